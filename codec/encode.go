package codec

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// EncodeOptions say how to write a frame.
type EncodeOptions struct {
	// NoSizePrefix leaves out the 4-byte size prefix.
	NoSizePrefix bool
}

// EncodeJSON encodes value JSON (the envelope Frame.AppendJSON writes) into a frame.
func EncodeJSON(js []byte, o EncodeOptions) ([]byte, error) {
	v, err := ParseJSON(js)
	if err != nil {
		return nil, err
	}
	return Encode(nil, v, o)
}

// Encode appends the frame for an envelope in generic form (see ParseJSON)
// to dst. Fields left out take the schema's default; a field unknown at
// the version is an error naming it and the valid names.
func Encode(dst []byte, env any, o EncodeOptions) ([]byte, error) {
	e := &encoder{o: o}
	obj, ok := env.(map[string]any)
	if !ok {
		return nil, &EncodeError{Msg: "expected an object with direction, apiKey, apiVersion, header and body, found " + jsonKind(env)}
	}
	if err := checkKeys(obj, "", []string{"direction", "apiKey", "apiName", "apiVersion", "header", "body"}); err != nil {
		return nil, err
	}
	response := false
	switch d := obj["direction"].(type) {
	case nil:
	case string:
		switch strings.ToLower(d) {
		case "request":
		case "response":
			response = true
		default:
			return nil, &EncodeError{Path: "direction", Msg: `expected "request" or "response", found "` + d + `"`}
		}
	default:
		return nil, &EncodeError{Path: "direction", Msg: "expected a string, found " + jsonKind(d)}
	}
	var api *schema.API
	if k, present := obj["apiKey"]; present {
		key, err := e.intValue(k, "apiKey", math.MinInt16, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		if api = schema.ByKey(int16(key)); api == nil {
			return nil, &EncodeError{Path: "apiKey", Msg: "unknown API key " + strconv.FormatInt(key, 10)}
		}
	} else if n, ok := obj["apiName"].(string); ok {
		if api = schema.ByName(n); api == nil {
			return nil, &EncodeError{Path: "apiName", Msg: "unknown API " + strconv.Quote(n)}
		}
	} else {
		return nil, &EncodeError{Path: "apiKey", Msg: "missing: give apiKey or apiName"}
	}
	vv, present := obj["apiVersion"]
	if !present {
		return nil, &EncodeError{Path: "apiVersion", Msg: "missing"}
	}
	ver, err := e.intValue(vv, "apiVersion", 0, math.MaxInt16)
	if err != nil {
		return nil, err
	}
	version := int16(ver)
	m := api.Message(schema.Request)
	if response {
		m = api.Response
	}
	def := m.At(version)
	if def == nil {
		return nil, &EncodeError{Path: "apiVersion", Msg: m.Name + " has versions " + m.Valid.String() + ", not " + strconv.Itoa(int(version))}
	}
	start := len(dst)
	if !o.NoSizePrefix {
		dst = append(dst, 0, 0, 0, 0)
	}
	// Header.
	hv := m.HeaderVersion(version)
	hdrMsg := schema.RequestHeader()
	if response {
		hdrMsg = schema.ResponseHeader()
	}
	hdr, _ := obj["header"].(map[string]any)
	if obj["header"] != nil && hdr == nil {
		return nil, &EncodeError{Path: "header", Msg: "expected an object, found " + jsonKind(obj["header"])}
	}
	if hdr == nil {
		hdr = map[string]any{}
	}
	if !response {
		h := make(map[string]any, len(hdr)+2)
		for k, v := range hdr {
			h[k] = v
		}
		for _, k := range []string{"requestApiKey", "requestApiVersion"} {
			want := int64(api.Key)
			if k == "requestApiVersion" {
				want = int64(version)
			}
			if x, ok := h[k]; ok {
				got, err := e.intValue(x, "header."+k, math.MinInt16, math.MaxInt16)
				if err != nil {
					return nil, err
				}
				if got != want {
					return nil, &EncodeError{Path: "header." + k, Msg: "is " + strconv.FormatInt(got, 10) + " but the envelope says " + strconv.FormatInt(want, 10)}
				}
			}
			h[k] = json.Number(strconv.FormatInt(want, 10))
		}
		hdr = h
	}
	hd := hdrMsg.At(hv)
	e.v, e.flex = hv, hd.Flexible.Contains(hv)
	if dst, err = e.structValue(dst, hd.Root, hdr, "header"); err != nil {
		return nil, err
	}
	body, _ := obj["body"].(map[string]any)
	if obj["body"] != nil && body == nil {
		return nil, &EncodeError{Path: "body", Msg: "expected an object, found " + jsonKind(obj["body"])}
	}
	e.v, e.flex = version, def.Flexible.Contains(version)
	if dst, err = e.structValue(dst, def.Root, body, "body"); err != nil {
		return nil, err
	}
	if !o.NoSizePrefix {
		n := len(dst) - start - 4
		dst[start], dst[start+1], dst[start+2], dst[start+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	}
	return dst, nil
}

// EncodeStruct appends the encoding of a struct at version v (flexible or
// not) from its generic value, for nested messages.
func EncodeStruct(dst []byte, l *schema.Layout, v int16, flex bool, val map[string]any, path string, o EncodeOptions) ([]byte, error) {
	e := &encoder{o: o, v: v, flex: flex}
	return e.structValue(dst, l, val, path)
}

type encoder struct {
	o       EncodeOptions
	v       int16
	flex    bool
	scratch []byte
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a bool"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		_ = x
		return "a value"
	}
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// checkKeys rejects keys of obj outside valid, naming the valid ones.
func checkKeys(obj map[string]any, path string, valid []string) error {
	var bad []string
	for k := range obj {
		ok := false
		for _, v := range valid {
			if k == v {
				ok = true
				break
			}
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	return &EncodeError{Path: join(path, bad[0]), Msg: "unknown field; valid here: " + strings.Join(valid, ", ")}
}

func (e *encoder) structValue(dst []byte, l *schema.Layout, obj map[string]any, path string) ([]byte, error) {
	valid := make([]string, 0, len(l.Fields)+1)
	for i := range l.Fields {
		if f := &l.Fields[i]; f.Versions.Contains(e.v) {
			valid = append(valid, f.JSON)
		}
	}
	if e.flex {
		valid = append(valid, "_unknownTaggedFields")
	}
	if err := checkKeys(obj, path, valid); err != nil {
		if ee, ok := err.(*EncodeError); ok {
			ee.Msg += " (at v" + strconv.Itoa(int(e.v)) + ")"
		}
		return nil, err
	}
	var err error
	type tagged struct {
		tag  uint32
		data []byte
	}
	var tags []tagged
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(e.v) {
			continue
		}
		val, present := obj[f.JSON]
		p := join(path, f.JSON)
		if e.flex && f.IsTagged(e.v) {
			if !present || e.isDefault(f, f.Kind, val) {
				continue
			}
			var b []byte
			if b, err = e.value(nil, f, f.Kind, val, p); err != nil {
				return nil, err
			}
			tags = append(tags, tagged{uint32(f.Tag), b})
			continue
		}
		if !present {
			dst = e.defaultValue(dst, f, f.Kind)
			continue
		}
		if dst, err = e.value(dst, f, f.Kind, val, p); err != nil {
			return nil, err
		}
	}
	if !e.flex {
		return dst, nil
	}
	if u, ok := obj["_unknownTaggedFields"]; ok && u != nil {
		arr, ok := u.([]any)
		up := join(path, "_unknownTaggedFields")
		if !ok {
			return nil, &EncodeError{Path: up, Msg: "expected an array, found " + jsonKind(u)}
		}
		for i, x := range arr {
			ip := up + "[" + strconv.Itoa(i) + "]"
			t, ok := x.(map[string]any)
			if !ok {
				return nil, &EncodeError{Path: ip, Msg: "expected an object with tag and data, found " + jsonKind(x)}
			}
			if err := checkKeys(t, ip, []string{"tag", "data"}); err != nil {
				return nil, err
			}
			tag, err := e.intValue(t["tag"], ip+".tag", 0, math.MaxUint32)
			if err != nil {
				return nil, err
			}
			s, ok := t["data"].(string)
			if !ok {
				return nil, &EncodeError{Path: ip + ".data", Msg: "expected base64 text, found " + jsonKind(t["data"])}
			}
			b, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				return nil, &EncodeError{Path: ip + ".data", Msg: "invalid base64: " + err.Error()}
			}
			tags = append(tags, tagged{uint32(tag), b})
		}
	}
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].tag < tags[j].tag })
	dst = wire.AppendUvarint(dst, uint32(len(tags)))
	for _, t := range tags {
		dst = wire.AppendUvarint(dst, t.tag)
		dst = wire.AppendUvarint(dst, uint32(len(t.data)))
		dst = append(dst, t.data...)
	}
	return dst, nil
}

func (e *encoder) intValue(v any, path string, lo, hi int64) (int64, error) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		s = x // integers quoted as strings are accepted
	default:
		return 0, &EncodeError{Path: path, Msg: "expected an integer, found " + jsonKind(v)}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if u, err2 := strconv.ParseUint(s, 10, 64); err2 == nil && hi > math.MaxInt32 && u <= math.MaxUint32 {
			return int64(u), nil
		}
		return 0, &EncodeError{Path: path, Msg: "expected an integer, found " + strconv.Quote(s)}
	}
	if i < lo || i > hi {
		return 0, &EncodeError{Path: path, Msg: "expected an integer in " + strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10) + ", found " + s}
	}
	return i, nil
}

func (e *encoder) compact(f *schema.Field) bool {
	return e.flex && (!f.FlexSet || f.Flexible.Contains(e.v))
}

func (e *encoder) appendLen(dst []byte, f *schema.Field, k schema.Kind, n int) []byte {
	if e.compact(f) {
		return wire.AppendUvarint(dst, uint32(n+1))
	}
	if k == schema.String {
		return wire.AppendInt16(dst, int16(n))
	}
	return wire.AppendInt32(dst, int32(n))
}

func (e *encoder) value(dst []byte, f *schema.Field, k schema.Kind, v any, path string) ([]byte, error) {
	switch k {
	case schema.Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, &EncodeError{Path: path, Msg: "expected a bool, found " + jsonKind(v)}
		}
		return wire.AppendBool(dst, b), nil
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint16, schema.Uint32:
		lo, hi := intRange(k)
		i, err := e.intValue(v, path, lo, hi)
		if err != nil {
			return nil, err
		}
		switch k {
		case schema.Int8:
			return wire.AppendInt8(dst, int8(i)), nil
		case schema.Int16:
			return wire.AppendInt16(dst, int16(i)), nil
		case schema.Uint16:
			return wire.AppendUint16(dst, uint16(i)), nil
		case schema.Int32:
			return wire.AppendInt32(dst, int32(i)), nil
		case schema.Uint32:
			return wire.AppendUint32(dst, uint32(i)), nil
		}
		return wire.AppendInt64(dst, i), nil
	case schema.Float64:
		var x float64
		switch t := v.(type) {
		case json.Number:
			var err error
			if x, err = strconv.ParseFloat(string(t), 64); err != nil {
				return nil, &EncodeError{Path: path, Msg: "expected a float64, found " + string(t)}
			}
		case string:
			switch t {
			case "NaN":
				x = math.NaN()
			case "Infinity":
				x = math.Inf(1)
			case "-Infinity":
				x = math.Inf(-1)
			default:
				return nil, &EncodeError{Path: path, Msg: `expected a number, "NaN", "Infinity" or "-Infinity", found ` + strconv.Quote(t)}
			}
		default:
			return nil, &EncodeError{Path: path, Msg: "expected a number, found " + jsonKind(v)}
		}
		return wire.AppendFloat64(dst, x), nil
	case schema.UUID:
		s, ok := v.(string)
		if !ok {
			return nil, &EncodeError{Path: path, Msg: "expected a UUID in Kafka's base64url form, found " + jsonKind(v)}
		}
		b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
		if err != nil || len(b) != 16 {
			return nil, &EncodeError{Path: path, Msg: "expected a UUID in Kafka's base64url form (22 characters), found " + strconv.Quote(s)}
		}
		return append(dst, b...), nil
	case schema.String:
		if v == nil {
			return e.appendLen(dst, f, k, -1), nil
		}
		s, ok := v.(string)
		if !ok {
			return nil, &EncodeError{Path: path, Msg: "expected a string, found " + jsonKind(v)}
		}
		if len(s) > math.MaxInt16 && !e.compact(f) {
			return nil, &EncodeError{Path: path, Msg: "string of " + strconv.Itoa(len(s)) + " bytes is longer than 32767"}
		}
		dst = e.appendLen(dst, f, k, len(s))
		return append(dst, s...), nil
	case schema.Bytes, schema.Records:
		if v == nil {
			return e.appendLen(dst, f, k, -1), nil
		}
		s, ok := v.(string)
		if !ok {
			return e.nested(dst, f, k, v, path)
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, &EncodeError{Path: path, Msg: "invalid base64: " + err.Error()}
		}
		dst = e.appendLen(dst, f, k, len(b))
		return append(dst, b...), nil
	case schema.Array:
		if v == nil {
			return e.appendLen(dst, f, k, -1), nil
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, &EncodeError{Path: path, Msg: "expected an array, found " + jsonKind(v)}
		}
		dst = e.appendLen(dst, f, k, len(arr))
		var err error
		for i, x := range arr {
			p := path + "[" + strconv.Itoa(i) + "]"
			if f.Elem == schema.Struct {
				obj, ok := x.(map[string]any)
				if !ok {
					return nil, &EncodeError{Path: p, Msg: "expected an object, found " + jsonKind(x)}
				}
				dst, err = e.structValue(dst, f.Struct, obj, p)
			} else {
				dst, err = e.value(dst, f, f.Elem, x, p)
			}
			if err != nil {
				return nil, err
			}
		}
		return dst, nil
	case schema.Struct:
		nullable := f.Nullable.Contains(e.v)
		if v == nil {
			if !nullable {
				return nil, &EncodeError{Path: path, Msg: "null is not allowed here at v" + strconv.Itoa(int(e.v))}
			}
			return wire.AppendInt8(dst, -1), nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &EncodeError{Path: path, Msg: "expected an object, found " + jsonKind(v)}
		}
		if nullable {
			dst = wire.AppendInt8(dst, 1)
		}
		return e.structValue(dst, f.Struct, obj, path)
	}
	return nil, &EncodeError{Path: path, Msg: "cannot encode kind " + k.String()}
}

// nested encodes a records field given as batches, or a consumer-protocol
// bytes field given as its decoded data message.
func (e *encoder) nested(dst []byte, f *schema.Field, k schema.Kind, v any, path string) ([]byte, error) {
	var body []byte
	var err error
	switch {
	case k == schema.Records:
		if _, ok := v.([]any); !ok {
			return nil, &EncodeError{Path: path, Msg: "expected base64 text or an array of batches, found " + jsonKind(v)}
		}
		body, err = records.Encode(e.scratch[:0], v)
		if err != nil {
			var re *records.EncodeError
			if errors.As(err, &re) {
				return nil, &EncodeError{Path: path + re.Path, Msg: re.Msg}
			}
			return nil, &EncodeError{Path: path, Msg: err.Error()}
		}
	case consumerData(f.Name) != "":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &EncodeError{Path: path, Msg: "expected base64 text or a " + consumerData(f.Name) + " object, found " + jsonKind(v)}
		}
		m := schema.DataMessage(consumerData(f.Name))
		ver, err := e.intValue(obj["version"], path+".version", 0, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		lv := int16(ver)
		if lv > m.Valid.Hi {
			lv = m.Valid.Hi
		}
		fields := make(map[string]any, len(obj))
		for k, x := range obj {
			if k != "version" {
				fields[k] = x
			}
		}
		body = wire.AppendInt16(e.scratch[:0], int16(ver))
		sub := &encoder{o: e.o, v: lv, flex: m.Flexible(lv)}
		if body, err = sub.structValue(body, m.At(lv).Root, fields, path); err != nil {
			return nil, err
		}
	default:
		return nil, &EncodeError{Path: path, Msg: "expected base64 text, found " + jsonKind(v)}
	}
	e.scratch = body
	dst = e.appendLen(dst, f, k, len(body))
	return append(dst, body...), nil
}

func intRange(k schema.Kind) (int64, int64) {
	switch k {
	case schema.Int8:
		return math.MinInt8, math.MaxInt8
	case schema.Int16:
		return math.MinInt16, math.MaxInt16
	case schema.Uint16:
		return 0, math.MaxUint16
	case schema.Int32:
		return math.MinInt32, math.MaxInt32
	case schema.Uint32:
		return 0, math.MaxUint32
	}
	return math.MinInt64, math.MaxInt64
}

// defaultValue appends f's default.
func (e *encoder) defaultValue(dst []byte, f *schema.Field, k schema.Kind) []byte {
	switch k {
	case schema.Bool:
		return wire.AppendBool(dst, defaultInt(f) != 0)
	case schema.Int8:
		return wire.AppendInt8(dst, int8(defaultInt(f)))
	case schema.Int16:
		return wire.AppendInt16(dst, int16(defaultInt(f)))
	case schema.Uint16:
		return wire.AppendUint16(dst, uint16(defaultInt(f)))
	case schema.Int32:
		return wire.AppendInt32(dst, int32(defaultInt(f)))
	case schema.Uint32:
		return wire.AppendUint32(dst, uint32(defaultInt(f)))
	case schema.Int64:
		return wire.AppendInt64(dst, defaultInt(f))
	case schema.Float64:
		return wire.AppendFloat64(dst, defaultFloat(f))
	case schema.UUID:
		return append(dst, make([]byte, 16)...)
	case schema.String:
		if nullDefault(f, e.v) {
			return e.appendLen(dst, f, k, -1)
		}
		s := defaultString(f)
		dst = e.appendLen(dst, f, k, len(s))
		return append(dst, s...)
	case schema.Bytes, schema.Records, schema.Array:
		if nullDefault(f, e.v) {
			return e.appendLen(dst, f, k, -1)
		}
		return e.appendLen(dst, f, k, 0)
	case schema.Struct:
		if nullDefault(f, e.v) {
			return wire.AppendInt8(dst, -1)
		}
		if f.Nullable.Contains(e.v) {
			dst = wire.AppendInt8(dst, 1)
		}
		out, _ := e.structValue(dst, f.Struct, nil, "")
		return out
	}
	return dst
}

// isDefault reports whether a JSON value equals f's default, so a tagged
// field holding it is left out, as Kafka's encoders do.
func (e *encoder) isDefault(f *schema.Field, k schema.Kind, v any) bool {
	switch k {
	case schema.Bool:
		b, ok := v.(bool)
		return ok && b == (defaultInt(f) != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		i, err := e.intValue(v, "", math.MinInt64, math.MaxInt64)
		return err == nil && i == defaultInt(f)
	case schema.Float64:
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		x, err := strconv.ParseFloat(string(n), 64)
		return err == nil && x == defaultFloat(f)
	case schema.UUID:
		s, ok := v.(string)
		return ok && s == "AAAAAAAAAAAAAAAAAAAAAA"
	case schema.String:
		if nullDefault(f, e.v) {
			return v == nil
		}
		s, ok := v.(string)
		return ok && s == defaultString(f)
	case schema.Bytes, schema.Records:
		if nullDefault(f, e.v) {
			return v == nil
		}
		s, ok := v.(string)
		return ok && s == ""
	case schema.Array:
		if nullDefault(f, e.v) {
			return v == nil
		}
		a, ok := v.([]any)
		return ok && len(a) == 0
	case schema.Struct:
		if nullDefault(f, e.v) {
			return v == nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return false
		}
		for i := range f.Struct.Fields {
			sf := &f.Struct.Fields[i]
			if x, present := obj[sf.JSON]; present && sf.Versions.Contains(e.v) && !e.isDefault(sf, sf.Kind, x) {
				return false
			}
		}
		if u, ok := obj["_unknownTaggedFields"].([]any); ok && len(u) > 0 {
			return false
		}
		return true
	}
	return false
}

// EncodeBody appends a request or response body alone (no size, no header)
// from its generic value.
func EncodeBody(dst []byte, apiKey, version int16, response bool, body map[string]any, o EncodeOptions) ([]byte, error) {
	api := schema.ByKey(apiKey)
	if api == nil {
		return nil, &EncodeError{Path: "apiKey", Msg: "unknown API key " + strconv.Itoa(int(apiKey))}
	}
	m := api.Request
	if response {
		m = api.Response
	}
	def := m.At(version)
	if def == nil {
		return nil, &EncodeError{Path: "apiVersion", Msg: m.Name + " has versions " + m.Valid.String() + ", not " + strconv.Itoa(int(version))}
	}
	e := &encoder{o: o, v: version, flex: def.Flexible.Contains(version)}
	return e.structValue(dst, def.Root, body, "body")
}
