package codec

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/sasl"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/sortfunc"
)

// EncodeOptions say how to write bytes.
type EncodeOptions struct {
	// NoSizePrefix leaves out the 4-byte size prefix.
	NoSizePrefix bool
	// Body says the value is a body alone, no envelope: of the request or
	// response (Response) of APIKey at Version. What is written is the
	// body alone too, no size or header.
	Body     bool
	Response bool
	APIKey   int16
	Version  int16
	// Lenient drops the fields a value gives that its version lacks (a
	// field Kafka added later, or removed), as kmsg does, instead of
	// failing, and _unknownTaggedFields where the version is not flexible
	// (it has no tagged fields); a name no version knows is still an
	// error. Dropped, when set, is told the path of each field dropped
	// ("body.topics[0].topicId"), once the encoding has succeeded (a
	// call that fails reports none), in the order the value's structs
	// are met (a struct before those inside it) and, within one, of the
	// schema's fields.
	Lenient bool
	Dropped func(path string)
}

// envelopeKeys are the keys an envelope may have. "warnings" and "guess"
// are what the decoder adds about its reading; the encoder ignores them.
var envelopeKeys = []string{"direction", "apiKey", "apiName", "apiVersion", "header", "body", "warnings", "guess"}

// dataKeys are the keys of a data message's or records field's envelope.
var dataKeys = []string{"data", "version", "value", "warnings"}

// Encode appends to dst the bytes v describes: a frame (an envelope of
// direction, API, version, header and body), a data message or records
// field (an envelope of data and value, as Decode reads them with
// Options.Data), or, with o.Body, a body alone.
//
// v is value JSON text ([]byte or string, in either form Frame.AppendJSON
// writes), or the same values built in Go: map[string]any objects, []any
// arrays, and for values json.Number, float64, every Go integer type,
// bool, string, *string, []byte (a bytes or records field's raw bytes),
// [16]byte (a UUID) and nil, with typed slices ([]int32, []string,
// []map[string]any, ...) for arrays; what tree.Node.Value gives is
// taken as it is. Bytes, records and consumer-protocol fields take
// either Kafka's form (base64 text) or the decoded form kwire's JSON
// shows (batches, data-message objects). An integer quoted as a string is
// taken for an int64 field only (JSON that keeps int64 exact), in the
// form Options.Int64Strings writes: an optional '-', then digits without
// a leading zero ("+5", "05" and "-0" are refused). A UUID is Kafka's 22
// base64url characters, unpadded, as it prints one (or a [16]byte). A
// float64 is a number float64 holds: one past its range (1e400), or
// nonzero and so small it would be written as 0 (1e-400), is refused;
// "NaN", "Infinity" and "-Infinity" are taken as strings. JSON text is
// read as RFC 8259 says it is: UTF-8, with no lone surrogate escape
// ("\ud800"); where encoding/json would read U+FFFD, Encode refuses,
// naming the string's path, since the bytes written would not be the
// text given.
//
// Fields left out take the schema's default; tagged fields left out stay
// absent, and a tagged field given is written even when it holds its
// default. In a records field, a batch needs only its records: magic is
// 2, baseTimestamp the first record's "timestamp", and the rest what a
// producer writes without idempotence (baseOffset 0,
// partitionLeaderEpoch, producerId, producerEpoch and baseSequence -1);
// lastOffsetDelta, maxTimestamp, a record's offsetDelta and
// timestampDelta left out are computed from the records, and the
// framing (batchLength, recordCount, lengths, sizes) and the CRC always
// are, a "crc" given being read as a note (a record's "offset" too). A
// legacy message needs its magic and, at magic 1, its timestamp. A field
// unknown at the version is an error naming it and the valid names (see
// Lenient); a value of the wrong kind or Go type is an *EncodeError
// naming its path and its type.
func Encode(dst []byte, v any, o EncodeOptions) ([]byte, error) {
	report := holdDropped(&o)
	out, err := encodeAny(dst, v, o)
	if err == nil {
		report()
	}
	return out, err
}

// holdDropped holds back what Lenient drops (o.Dropped's calls) until the
// encoding has succeeded, when the function it returns reports them, in
// the order they were met: a call that fails reports nothing.
func holdDropped(o *EncodeOptions) (report func()) {
	if o.Dropped == nil || !o.Lenient {
		return func() {}
	}
	to := o.Dropped
	var paths []string
	o.Dropped = func(path string) { paths = append(paths, path) }
	return func() {
		for _, p := range paths {
			to(p)
		}
	}
}

// encodeAny is Encode, reporting what Lenient drops as it goes.
func encodeAny(dst []byte, v any, o EncodeOptions) ([]byte, error) {
	switch x := v.(type) {
	case []byte:
		p, err := parseJSON(x)
		if err != nil {
			return nil, err
		}
		v = p
	case string:
		p, err := parseJSON([]byte(x))
		if err != nil {
			return nil, err
		}
		v = p
	}
	if o.Body {
		body, ok := v.(map[string]any)
		if !ok {
			return nil, &EncodeError{Path: "body", Msg: "expected an object, found " + jsonKind(v)}
		}
		return encodeBody(dst, o.APIKey, o.Version, o.Response, body, o)
	}
	if obj, ok := v.(map[string]any); ok && obj["data"] != nil {
		return encodeData(dst, obj, o)
	}
	return encode(dst, v, o)
}

// encode appends the frame of envelope env.
func encode(dst []byte, env any, o EncodeOptions) ([]byte, error) {
	e := &encoder{o: o}
	obj, ok := env.(map[string]any)
	if !ok {
		return nil, &EncodeError{Msg: "expected an object with direction, apiKey, apiVersion, header and body, found " + jsonKind(env)}
	}
	if err := checkKeys(obj, "", envelopeKeys); err != nil {
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
	var api, named *schema.API
	if n, present := obj["apiName"]; present {
		s, ok := n.(string)
		if !ok {
			return nil, &EncodeError{Path: "apiName", Msg: "expected a string, found " + jsonKind(n)}
		}
		if named = schema.ByName(s); named == nil {
			return nil, &EncodeError{Path: "apiName", Msg: "unknown API " + strconv.Quote(s)}
		}
	}
	if k, present := obj["apiKey"]; present {
		key, err := e.intValue(k, "apiKey", math.MinInt16, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		if api = schema.ByKey(int16(key)); api == nil {
			return nil, &EncodeError{Path: "apiKey", Msg: "unknown API key " + strconv.FormatInt(key, 10)}
		}
		if named != nil && named != api {
			return nil, &EncodeError{Path: "apiName", Msg: "is " + named.Name + " (key " + strconv.Itoa(int(named.Key)) + ") but apiKey says " + strconv.FormatInt(key, 10) + " (" + api.Name + ")"}
		}
	} else if api = named; api == nil {
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
	m, def, err := messageAt(api, response, version)
	if err != nil {
		return nil, err
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
			h[k] = want
		}
		hdr = h
	}
	hd := hdrMsg.At(hv)
	e.v, e.flex, e.of = hv, hd.Flexible.Contains(hv), "request header "
	if response {
		e.of = "response header "
	}
	e.path = append(e.path[:0], encStep{"header", -1})
	e.msg, e.base = hdrMsg, 1
	if dst, err = e.structValue(dst, hd.Root, hdr); err != nil {
		return nil, err
	}
	body, _ := obj["body"].(map[string]any)
	if obj["body"] != nil && body == nil {
		return nil, &EncodeError{Path: "body", Msg: "expected an object, found " + jsonKind(obj["body"])}
	}
	e.v, e.flex, e.of = version, def.Flexible.Contains(version), ""
	e.path = append(e.path[:0], encStep{"body", -1})
	e.msg = m
	if dst, err = e.structValue(dst, def.Root, body); err != nil {
		return nil, err
	}
	if !o.NoSizePrefix {
		n := len(dst) - start - 4
		dst[start], dst[start+1], dst[start+2], dst[start+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	}
	return dst, nil
}

// encodeStruct appends the encoding of a struct at version v (flexible or
// not) from its generic value, for nested messages.
func encodeStruct(dst []byte, l *schema.Layout, v int16, flex bool, val map[string]any, path string, o EncodeOptions) ([]byte, error) {
	e := &encoder{o: o, v: v, flex: flex}
	if path != "" {
		e.path = append(e.path, encStep{path, -1})
	}
	return e.structValue(dst, l, val)
}

// encodeBody appends a request or response body alone (no size, no header)
// from its generic value (see Encode for the Go values it takes).
func encodeBody(dst []byte, apiKey, version int16, response bool, body map[string]any, o EncodeOptions) ([]byte, error) {
	api := schema.ByKey(apiKey)
	if api == nil {
		return nil, &EncodeError{Path: "apiKey", Msg: "unknown API key " + strconv.Itoa(int(apiKey))}
	}
	m, def, err := messageAt(api, response, version)
	if err != nil {
		return nil, err
	}
	e := &encoder{o: o, v: version, flex: def.Flexible.Contains(version), path: []encStep{{"body", -1}}, msg: m, base: 1}
	return e.structValue(dst, def.Root, body)
}

type encoder struct {
	o    EncodeOptions
	v    int16
	flex bool
	// of says whose version v is when it is not the message's own: "request
	// header " or "response header " while the header is encoded (its
	// version is not the API's), so an error names the right one.
	of      string
	scratch []byte
	path    []encStep // where the value being encoded is; written out only for an error
	// msg is the message whose struct is being encoded, its root at
	// path[base:]: checkFields looks for a field in its other layouts.
	msg  *schema.Message
	base int
}

// at names the version being encoded: "v3", or "response header v0"
// in a header.
func (e *encoder) at() string { return e.of + "v" + strconv.Itoa(int(e.v)) }

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

// encStep is one step of the path of the value being encoded: a field
// name, or an array index when name is "".
type encStep struct {
	name string
	idx  int
}

// pathString writes out the current path, as in "body.topics[0].name".
func (e *encoder) pathString() string {
	var b []byte
	for _, p := range e.path {
		if p.name == "" {
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(p.idx), 10)
			b = append(b, ']')
			continue
		}
		if len(b) > 0 {
			b = append(b, '.')
		}
		b = append(b, p.name...)
	}
	return string(b)
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

// tagged is a tag section's field to write: its tag and its value's
// bytes, from the struct's fields (unknown -1) or from element unknown of
// its _unknownTaggedFields.
type tagged struct {
	tag     uint32
	data    []byte
	unknown int
}

// tagTwice refuses a tag given twice in a section (tags, sorted by tag,
// stably), which only two of _unknownTaggedFields can do (a known field's
// tag there is refused before): at the first element, in the JSON's
// order, that gives a tag again.
func (e *encoder) tagTwice(tags []tagged) error {
	var again, first *tagged
	for i := 1; i < len(tags); i++ {
		if t := &tags[i]; t.tag == tags[i-1].tag && (again == nil || t.unknown < again.unknown) {
			again, first = t, &tags[i-1]
		}
	}
	if again == nil {
		return nil
	}
	up := join(e.pathString(), "_unknownTaggedFields")
	return &EncodeError{Path: up + "[" + strconv.Itoa(again.unknown) + "].tag", Msg: "expected a tag given once, found " + strconv.FormatUint(uint64(again.tag), 10) + " again (given by _unknownTaggedFields[" + strconv.Itoa(first.unknown) + "] too)"}
}

func (e *encoder) structValue(dst []byte, l *schema.Layout, obj map[string]any) ([]byte, error) {
	if err := e.checkFields(l, obj); err != nil {
		return nil, err
	}
	var err error
	var tags []tagged
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(e.v) {
			continue
		}
		val, present := obj[f.JSON]
		if e.flex && f.IsTagged(e.v) {
			// A tagged field is written exactly when it is given, even
			// holding its default: the bytes then say what the JSON says.
			if !present {
				continue
			}
			var b []byte
			e.path = append(e.path, encStep{f.JSON, -1})
			if b, err = e.value(nil, f, f.Kind, val); err != nil {
				return nil, err
			}
			e.path = e.path[:len(e.path)-1]
			tags = append(tags, tagged{uint32(f.Tag), b, -1})
			continue
		}
		if !present {
			dst = e.defaultValue(dst, f, f.Kind)
			continue
		}
		e.path = append(e.path, encStep{f.JSON, -1})
		if dst, err = e.value(dst, f, f.Kind, val); err != nil {
			return nil, err
		}
		e.path = e.path[:len(e.path)-1]
	}
	if !e.flex {
		return dst, nil
	}
	if u, ok := obj["_unknownTaggedFields"]; ok && u != nil {
		up := join(e.pathString(), "_unknownTaggedFields")
		n, ok := sliceLen(u)
		if !ok {
			return nil, &EncodeError{Path: up, Msg: "expected an array, found " + jsonKind(u)}
		}
		for i := 0; i < n; i++ {
			x := sliceAt(u, i)
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
			if f := taggedField(l, e.v, uint32(tag)); f != nil {
				// The decoder would read it as that field.
				return nil, &EncodeError{Path: ip + ".tag", Msg: "expected a tag no field has at " + e.at() + ", found " + strconv.FormatInt(tag, 10) + ", the tag of " + f.JSON + " (give it by that name)"}
			}
			var b []byte
			switch d := t["data"].(type) {
			case []byte:
				b = d
			case string:
				if b, err = jsontext.DecodeBase64(d); err != nil {
					return nil, &EncodeError{Path: ip + ".data", Msg: "invalid base64: " + err.Error(), Err: err}
				}
			default:
				return nil, &EncodeError{Path: ip + ".data", Msg: "expected base64 text, found " + jsonKind(t["data"])}
			}
			tags = append(tags, tagged{uint32(tag), b, i})
		}
	}
	sortfunc.Stable(len(tags), func(i, j int) bool { return tags[i].tag < tags[j].tag }, func(i, j int) { tags[i], tags[j] = tags[j], tags[i] })
	if err := e.tagTwice(tags); err != nil {
		return nil, err
	}
	dst = wire.AppendUvarint(dst, uint32(len(tags)))
	for _, t := range tags {
		dst = wire.AppendUvarint(dst, t.tag)
		dst = wire.AppendUvarint(dst, uint32(len(t.data)))
		dst = append(dst, t.data...)
	}
	return dst, nil
}

// checkFields rejects keys of obj that are no field of l at this version,
// naming the valid ones (the list is built only then). A name no version
// of l knows is refused even with Lenient, which drops only the fields
// of other versions (and _unknownTaggedFields where the version is not
// flexible): one that is refused is named before those, and the first in
// sorted order of its kind, so the error does not depend on the map's
// order. What Lenient drops is reported in the layout's order, after
// every check of the struct has passed.
func (e *encoder) checkFields(l *schema.Layout, obj map[string]any) error {
	var unknown, other string // the first (sorted) unknown name, and field of another version
	var drop []string         // the fields of other versions, when any
	tags := false             // _unknownTaggedFields at a version that is not flexible
	for k := range obj {
		if k == "_unknownTaggedFields" {
			tags = !e.flex
			continue
		}
		known, elsewhere := false, false
		for i := range l.Fields {
			if f := &l.Fields[i]; f.JSON == k {
				known = known || f.Versions.Contains(e.v)
				elsewhere = true
			}
		}
		elsewhere = elsewhere || e.otherVersions(l, k) != ""
		switch {
		case known:
		case !elsewhere:
			if unknown == "" || k < unknown {
				unknown = k
			}
		default:
			if other == "" || k < other {
				other = k
			}
			if e.o.Lenient {
				drop = append(drop, k)
			}
		}
	}
	switch {
	case unknown != "":
		return e.fieldError(l, unknown, "unknown field; ")
	case other != "" && !e.o.Lenient:
		return e.fieldError(l, other, "a field of "+e.of+"v"+e.versionsOf(l, other)+" only; ")
	case tags && !e.o.Lenient:
		return &EncodeError{Path: join(e.pathString(), "_unknownTaggedFields"), Msg: "expected no tagged fields (" + e.at() + " is not a flexible version: it has none), found _unknownTaggedFields"}
	}
	if e.o.Dropped == nil || len(drop) == 0 && !tags {
		return nil
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		for j, k := range drop {
			if k == f.JSON {
				e.o.Dropped(join(e.pathString(), k))
				drop = append(drop[:j], drop[j+1:]...)
				break
			}
		}
	}
	slices.Sort(drop) // the fields only another layout has
	for _, k := range drop {
		e.o.Dropped(join(e.pathString(), k))
	}
	if tags {
		e.o.Dropped(join(e.pathString(), "_unknownTaggedFields"))
	}
	return nil
}

// fieldError refuses key k of a struct of layout l, naming the fields
// valid at the encoder's version: msg, then "valid here: ..." or, for a
// struct with none at that version, "none is valid here".
func (e *encoder) fieldError(l *schema.Layout, k, msg string) *EncodeError {
	valid := make([]string, 0, len(l.Fields)+1)
	for i := range l.Fields {
		if f := &l.Fields[i]; f.Versions.Contains(e.v) {
			valid = append(valid, f.JSON)
		}
	}
	if e.flex {
		valid = append(valid, "_unknownTaggedFields")
	}
	if len(valid) == 0 {
		msg += "none is valid here"
	} else {
		msg += "valid here: " + strings.Join(valid, ", ")
	}
	return &EncodeError{Path: join(e.pathString(), k), Msg: msg + " (at " + e.at() + ")"}
}

// fieldVersions says at which versions l has a field named k: "4+",
// "0-3, 5+".
func fieldVersions(l *schema.Layout, k string) string {
	if l == nil {
		return ""
	}
	var out []string
	for i := range l.Fields {
		if f := &l.Fields[i]; f.JSON == k {
			out = append(out, f.Versions.String())
		}
	}
	return strings.Join(out, ", v")
}

// versionsOf is the versions at which the struct of layout l, at the
// current path, has field k: in l, then in the message's other layouts.
func (e *encoder) versionsOf(l *schema.Layout, k string) string {
	v, o := fieldVersions(l, k), e.otherVersions(l, k)
	if v != "" && o != "" {
		return v + ", v" + o
	}
	return v + o
}

// otherVersions is the versions at which k is a field of the struct at the
// current path in the message's layouts other than l, those another schema
// folder defines (Produce v0-2's, the legacy folder's, have no topicId,
// which v13 has): the struct found in each by the path's field names. ""
// when none has it, or the encoder knows no message (a records field's
// batches).
func (e *encoder) otherVersions(l *schema.Layout, k string) string {
	if e.msg == nil || len(e.msg.Versions) < 2 {
		return ""
	}
	var out []string
	for i := range e.msg.Versions {
		s := e.msg.Versions[i].Root
		for _, p := range e.path[e.base:] {
			if p.name == "" || s == nil {
				continue // an array's element is its array's struct
			}
			var next *schema.Layout
			for j := range s.Fields {
				if s.Fields[j].JSON == p.name {
					next = s.Fields[j].Struct
					break
				}
			}
			s = next
		}
		if s == l {
			continue
		}
		if v := fieldVersions(s, k); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return strings.Join(out, ", v")
}

// intValue reads an integer in [lo, hi] from JSON (a number, or its text in
// a string) or from any Go integer or integral float.
func (e *encoder) intValue(v any, path string, lo, hi int64) (int64, error) {
	i, err := intOf(v, lo, hi)
	if err != nil {
		err.Path = path
		return 0, err
	}
	return i, nil
}

// intOf is intValue with the error's path left for the caller to fill.
func intOf(v any, lo, hi int64) (int64, *EncodeError) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		if hi < math.MaxInt64 {
			return 0, &EncodeError{Msg: "expected an integer, found the string " + strconv.Quote(x) + " (only int64 values may be quoted)"}
		}
		if msg := rec.QuotedInt64(x); msg != "" {
			return 0, &EncodeError{Msg: msg}
		}
		s = x // an int64 quoted, as JSON that keeps it exact writes it
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return 0, &EncodeError{Msg: "expected an integer, found " + strconv.FormatFloat(x, 'g', -1, 64)}
		}
		s = strconv.FormatFloat(x, 'f', -1, 64)
	case float32:
		return intOf(float64(x), lo, hi)
	default:
		i, ok, exact := rec.GoInt(v)
		if !ok {
			return 0, &EncodeError{Msg: "expected an integer, found " + jsonKind(v)}
		}
		if !exact || i < lo || i > hi {
			return 0, &EncodeError{Msg: "expected an integer in " + strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10) + ", found " + goIntText(v) + " (Go " + rec.GoTypeName(v) + ")"}
		}
		return i, nil
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		if u, err2 := strconv.ParseUint(s, 10, 64); err2 == nil && hi > math.MaxInt32 && u <= math.MaxUint32 {
			return int64(u), nil
		}
		if !errors.Is(err, strconv.ErrRange) {
			return 0, &EncodeError{Msg: "expected an integer, found " + numberText(s)}
		}
	}
	if err != nil || i < lo || i > hi {
		return 0, &EncodeError{Msg: "expected an integer in " + strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10) + ", found " + numberText(s)}
	}
	return i, nil
}

func (e *encoder) appendLen(dst []byte, f *schema.Field, k schema.Kind, n int) []byte {
	if f.CompactAt(e.v, e.flex) {
		return wire.AppendUvarint(dst, uint32(n+1))
	}
	if k == schema.String {
		return wire.AppendInt16(dst, int16(n))
	}
	return wire.AppendInt32(dst, int32(n))
}

func (e *encoder) value(dst []byte, f *schema.Field, k schema.Kind, v any) ([]byte, error) {
	switch k {
	case schema.Bool:
		b, ok := v.(bool)
		if !ok {
			return nil, &EncodeError{Path: e.pathString(), Msg: "expected a bool, found " + jsonKind(v)}
		}
		return wire.AppendBool(dst, b), nil
	case schema.Int8, schema.Int16, schema.Int32, schema.Int64, schema.Uint16, schema.Uint32:
		return e.appendInt(dst, k, v)
	case schema.Float64:
		x, err := floatOf(v)
		if err != nil {
			err.Path = e.pathString()
			return nil, err
		}
		if x != x {
			// Every NaN is written as Java's Double.NaN, whatever its bits
			// (Go's math.NaN() has others): the decoder warns about any
			// other NaN, so a NaN decoded clean comes back byte for byte.
			return wire.AppendInt64(dst, javaNaN), nil
		}
		return wire.AppendFloat64(dst, x), nil
	case schema.UUID:
		return e.uuidValue(dst, v)
	case schema.String:
		return e.stringValue(dst, f, v)
	case schema.Bytes, schema.Records:
		return e.bytesValue(dst, f, k, v)
	case schema.Array:
		return e.arrayValue(dst, f, v)
	case schema.Struct:
		nullable := f.Nullable.Contains(e.v)
		if v == nil {
			if !nullable {
				return nil, e.nullRefused()
			}
			return wire.AppendInt8(dst, -1), nil
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &EncodeError{Path: e.pathString(), Msg: "expected an object, found " + jsonKind(v)}
		}
		if nullable {
			dst = wire.AppendInt8(dst, 1)
		}
		return e.structValue(dst, f.Struct, obj)
	}
	return nil, &EncodeError{Path: e.pathString(), Msg: "cannot encode kind " + k.String()}
}

// null appends a null for f, a string, bytes, records or array field of
// kind k, or refuses it where f is not nullable at this version, as
// Kafka's own writers do ("non-nullable field ... was serialized as
// null") and as a null struct is refused. An element of an array (k is
// f's Elem) is never null: nullableVersions is the array's ("element was
// serialized as null", Kafka's readers say).
func (e *encoder) null(dst []byte, f *schema.Field, k schema.Kind) ([]byte, error) {
	if k != f.Kind || !f.Nullable.Contains(e.v) {
		return nil, e.nullRefused()
	}
	return e.appendLen(dst, f, k, -1), nil
}

// nullRefused is the error of a null where the field is not nullable.
func (e *encoder) nullRefused() *EncodeError {
	return &EncodeError{Path: e.pathString(), Msg: "null is not allowed here at " + e.at()}
}

// appendInt writes an integer of kind k, checked against the kind's range.
func (e *encoder) appendInt(dst []byte, k schema.Kind, v any) ([]byte, error) {
	lo, hi := intRange(k)
	i, err := intOf(v, lo, hi)
	if err != nil {
		err.Path = e.pathString()
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
}

// uuidValue writes a UUID given as 16 bytes or in Kafka's base64url text.
func (e *encoder) uuidValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case [16]byte:
		return append(dst, x[:]...), nil
	case []byte:
		if len(x) == 16 {
			return append(dst, x...), nil
		}
	case string:
		// Exactly the 22 characters Kafka prints a UUID as (Uuid.toString):
		// no padding, no bits past the 16 bytes, so the bytes written
		// are the ones the text shows.
		b, err := base64.RawURLEncoding.Strict().DecodeString(x)
		if err != nil || len(x) != 22 || len(b) != 16 {
			return nil, &EncodeError{Path: e.pathString(), Msg: "expected a UUID in Kafka's base64url form (22 characters, no padding), found " + strconv.Quote(x)}
		}
		return append(dst, b...), nil
	}
	return nil, &EncodeError{Path: e.pathString(), Msg: "expected a UUID in Kafka's base64url form, found " + jsonKind(v)}
}

// stringValue writes a string (or null) with its length prefix.
func (e *encoder) stringValue(dst []byte, f *schema.Field, v any) ([]byte, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return e.null(dst, f, schema.String)
	case string:
		s = x
	case *string:
		if x == nil {
			return e.null(dst, f, schema.String)
		}
		s = *x
	default:
		return nil, &EncodeError{Path: e.pathString(), Msg: "expected a string, found " + jsonKind(v)}
	}
	if len(s) > maxString { // compact too: Kafka's generated code refuses it
		return nil, &EncodeError{Path: e.pathString(), Msg: "string of " + strconv.Itoa(len(s)) + " bytes is longer than 32767"}
	}
	dst = e.appendLen(dst, f, schema.String, len(s))
	return append(dst, s...), nil
}

// bytesValue writes bytes or records of kind k given as bytes, base64 or
// null with their length prefix, or, given as JSON, encoded by nested.
func (e *encoder) bytesValue(dst []byte, f *schema.Field, k schema.Kind, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return e.null(dst, f, k)
	case []byte:
		if x == nil && k == f.Kind && f.Nullable.Contains(e.v) {
			return e.appendLen(dst, f, k, -1), nil
		}
		dst = e.appendLen(dst, f, k, len(x))
		return append(dst, x...), nil
	case string:
		b, err := jsontext.DecodeBase64(x)
		if err != nil {
			return nil, &EncodeError{Path: e.pathString(), Msg: "invalid base64: " + err.Error(), Err: err}
		}
		dst = e.appendLen(dst, f, k, len(b))
		return append(dst, b...), nil
	}
	return e.nested(dst, f, k, v)
}

// arrayValue writes an array (or null) with its count prefix, then each
// element, the path naming its index.
func (e *encoder) arrayValue(dst []byte, f *schema.Field, v any) ([]byte, error) {
	if v == nil {
		return e.null(dst, f, schema.Array)
	}
	n, ok := sliceLen(v)
	if !ok {
		return nil, &EncodeError{Path: e.pathString(), Msg: "expected an array, found " + jsonKind(v)}
	}
	if n == -1 { // a nil typed slice
		if f.Nullable.Contains(e.v) {
			return e.appendLen(dst, f, schema.Array, -1), nil
		}
		n = 0
	}
	dst = e.appendLen(dst, f, schema.Array, n)
	var err error
	for i := 0; i < n; i++ {
		x := sliceAt(v, i)
		e.path = append(e.path, encStep{"", i})
		if f.Elem == schema.Struct {
			obj, ok := x.(map[string]any)
			if !ok {
				return nil, &EncodeError{Path: e.pathString(), Msg: "expected an object, found " + jsonKind(x)}
			}
			dst, err = e.structValue(dst, f.Struct, obj)
		} else {
			dst, err = e.value(dst, f, f.Elem, x)
		}
		if err != nil {
			return nil, err
		}
		e.path = e.path[:len(e.path)-1]
	}
	return dst, nil
}

// javaNaN is the bits of Java's Double.NaN, the NaN the encoder writes and
// the only one the decoder reads without a warning: Kafka is Java, where
// Double.NaN, Double.parseDouble("NaN") and Double.doubleToLongBits give
// these bits.
const javaNaN = 0x7ff8000000000000

func floatOf(v any) (float64, *EncodeError) {
	switch t := v.(type) {
	case float64:
		return t, nil
	case float32:
		return float64(t), nil
	case json.Number:
		x, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return 0, &EncodeError{Msg: "expected a float64, found " + string(t) + " (beyond float64's range)"}
		}
		if x == 0 && nonzero(string(t)) {
			// Written as 0, the number would not be the one given:
			// refused, as one past the range is.
			return 0, &EncodeError{Msg: "expected a float64, found " + string(t) + " (too small for float64: it would be written as 0)"}
		}
		return x, nil
	case string:
		switch t {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
		return 0, &EncodeError{Msg: `expected a number, "NaN", "Infinity" or "-Infinity", found ` + strconv.Quote(t)}
	}
	if i, ok, exact := rec.GoInt(v); ok && exact {
		return float64(i), nil
	}
	return 0, &EncodeError{Msg: "expected a number, found " + jsonKind(v)}
}

// nonzero reports whether the JSON number n has a nonzero digit before
// its exponent.
func nonzero(n string) bool {
	for i := 0; i < len(n) && n[i] != 'e' && n[i] != 'E'; i++ {
		if n[i] >= '1' && n[i] <= '9' {
			return true
		}
	}
	return false
}

// nested encodes a records field given as batches, or a consumer-protocol
// bytes field given as its decoded data message.
func (e *encoder) nested(dst []byte, f *schema.Field, k schema.Kind, v any) ([]byte, error) {
	var body []byte
	var err error
	switch {
	case k == schema.Records:
		if _, ok := sliceLen(v); !ok {
			msg := "expected base64 text, bytes or an array of batches, found " + jsonKind(v)
			if m, ok := v.(map[string]any); ok && len(m) == 1 && m["sizeInBytes"] != nil {
				// What --records size writes: the size alone, no bytes.
				msg += `: {"sizeInBytes":N} says how big the records were, not what they held, so it cannot be encoded; decode with --records decoded or base64 to encode them back`
			}
			return nil, &EncodeError{Path: e.pathString(), Msg: msg}
		}
		body, err = rec.Encode(e.scratch[:0], v)
		if err != nil {
			var re *EncodeError
			if errors.As(err, &re) {
				return nil, &EncodeError{Path: e.pathString() + re.Path, Msg: re.Msg, Err: re.Err}
			}
			return nil, &EncodeError{Path: e.pathString(), Msg: err.Error(), Err: err}
		}
	case f.Name == "AuthBytes":
		if body, err = e.saslMessage(e.scratch[:0], v); err != nil {
			return nil, err
		}
	case consumerData(f.Name) != "":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, &EncodeError{Path: e.pathString(), Msg: "expected base64 text, bytes or a " + consumerData(f.Name) + " object, found " + jsonKind(v)}
		}
		if body, err = e.consumerMessage(e.scratch[:0], schema.DataMessage(consumerData(f.Name)), obj); err != nil {
			return nil, err
		}
	default:
		return nil, &EncodeError{Path: e.pathString(), Msg: "expected base64 text or bytes, found " + jsonKind(v)}
	}
	e.scratch = body
	dst = e.appendLen(dst, f, k, len(body))
	return append(dst, body...), nil
}

// consumerMessage appends consumer-protocol message m from obj: its
// "version" (int16) first, then its fields.
func (e *encoder) consumerMessage(dst []byte, m *schema.Message, obj map[string]any) ([]byte, error) {
	if _, ok := obj["version"]; !ok {
		return nil, &EncodeError{Path: join(e.pathString(), "version"), Msg: "missing: the " + m.Name + " version the bytes start with (" + m.Valid.String() + ")"}
	}
	ver, err := e.intValue(obj["version"], join(e.pathString(), "version"), 0, math.MaxInt16)
	if err != nil {
		return nil, err
	}
	dst = wire.AppendInt16(dst, int16(ver))
	fields := make(map[string]any, len(obj))
	for k, x := range obj {
		if k != "version" {
			fields[k] = x
		}
	}
	return e.dataMessage(dst, m, fields, int16(ver))
}

// saslToken appends a raw SASL token (Options.Data "sasl"): its 4-byte
// size unless NoSizePrefix, then the message v gives as decoding shows it,
// or as base64 text. That is SaslAuthenticate v0's authBytes, an int32
// length and the bytes, which writes it.
func (e *encoder) saslToken(dst []byte, v any) ([]byte, error) {
	auth := &schema.ByKey(schema.KeySaslAuthenticate).Request.At(0).Root.Fields[0]
	at := len(dst)
	dst, err := e.bytesValue(dst, auth, schema.Bytes, v)
	if err == nil && e.o.NoSizePrefix {
		dst = append(dst[:at], dst[at+4:]...)
	}
	return dst, err
}

// saslMessage appends SaslAuthenticate's authBytes given as the SASL
// message decoding shows: its mechanism, its message's kind and its parts
// (codec/internal/sasl), iterations a number.
func (e *encoder) saslMessage(dst []byte, v any) ([]byte, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &EncodeError{Path: e.pathString(), Msg: "expected base64 text, bytes or a SASL message object, found " + jsonKind(v)}
	}
	mech, _ := obj["mechanism"].(string)
	kind, _ := obj["message"].(string)
	get := func(name string) (string, bool) {
		s, ok := obj[name].(string)
		return s, ok || obj[name] != nil
	}
	names := sasl.Names(mech, kind, get)
	if names == nil {
		return nil, e.saslError(sasl.Unknown(obj, jsonKind))
	}
	for k := range obj {
		if k != "mechanism" && k != "message" && !slices.Contains(names, k) {
			return nil, &EncodeError{Path: join(e.pathString(), k), Msg: "not a part of a " + mech + " " + kind + " message; valid here: mechanism, message, " + strings.Join(names, ", ")}
		}
	}
	var bad error
	dst, err := sasl.Append(dst, mech, kind, func(name string) (string, bool) {
		x := obj[name]
		if t, ok := x.(string); ok {
			return t, true
		} else if x == nil {
			return "", false
		}
		n, err := e.intValue(x, join(e.pathString(), name), 0, math.MaxInt32)
		if err != nil {
			bad = err
		}
		return strconv.FormatInt(n, 10), true
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, e.saslError(err)
	}
	return dst, nil
}

// saslError is err, a SASL message's, at the member it names.
func (e *encoder) saslError(err error) error {
	path, msg := e.pathString(), err.Error()
	if se, ok := err.(*sasl.Error); ok && se.Part != "" {
		path, msg = join(path, se.Part), se.Msg
	}
	return &EncodeError{Path: path, Msg: msg, Err: err}
}

// dataMessage appends the fields of data message m from obj, at version.
func (e *encoder) dataMessage(dst []byte, m *schema.Message, obj map[string]any, version int16) ([]byte, error) {
	fields := obj
	lv := min(version, m.Valid.Hi)
	if lv < m.Valid.Lo {
		return nil, &EncodeError{Path: join(e.pathString(), "version"), Msg: m.Name + " has versions " + m.Valid.String() + ", not " + strconv.Itoa(int(version))}
	}
	sub := &encoder{o: e.o, v: lv, flex: m.Flexible(lv), path: e.path, msg: m, base: len(e.path)}
	return sub.structValue(dst, m.At(lv).Root, fields)
}

// encodeData appends a data message's or records field's bytes from its
// envelope {"data": name, "value": ...}: a records field's batches, or a
// data message's fields, after its int16 version when the value gives
// one (else at o.Version).
func encodeData(dst []byte, env map[string]any, o EncodeOptions) ([]byte, error) {
	if err := checkKeys(env, "", dataKeys); err != nil {
		return nil, err
	}
	name, ok := env["data"].(string)
	if !ok {
		return nil, &EncodeError{Path: "data", Msg: "expected a name, found " + jsonKind(env["data"])}
	}
	e := &encoder{o: o, path: []encStep{{"value", -1}}}
	if name == dataSASL {
		return e.saslToken(dst, env["value"])
	}
	if name == "records" {
		b, err := rec.Encode(dst, env["value"])
		if err != nil {
			var re *EncodeError
			if errors.As(err, &re) {
				return nil, &EncodeError{Path: "value" + re.Path, Msg: re.Msg, Err: re.Err}
			}
			return nil, err
		}
		return b, nil
	}
	m := schema.DataMessage(name)
	if m == nil {
		return nil, &EncodeError{Path: "data", Msg: "unknown data message " + strconv.Quote(name)}
	}
	obj, ok := env["value"].(map[string]any)
	if !ok {
		return nil, &EncodeError{Path: "value", Msg: "expected an object, found " + jsonKind(env["value"])}
	}
	version := o.Version
	if vv, ok := env["version"]; ok {
		// The bytes start with the version the envelope gives.
		ver, err := e.intValue(vv, "version", 0, math.MaxInt16)
		if err != nil {
			return nil, err
		}
		version = int16(ver)
		dst = wire.AppendInt16(dst, version)
	}
	return e.dataMessage(dst, m, obj, version)
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
		out, _ := e.structValue(dst, f.Struct, nil)
		return out
	}
	return dst
}

// messageAt is api's request or response and its layout at version, or
// the error that it has no such version.
func messageAt(api *schema.API, response bool, version int16) (*schema.Message, *schema.Version, error) {
	m := api.Request
	if response {
		m = api.Response
	}
	def := m.At(version)
	if def == nil {
		return nil, nil, &EncodeError{Path: "apiVersion", Msg: m.Name + " has versions " + m.Valid.String() + ", not " + strconv.Itoa(int(version))}
	}
	return m, def, nil
}

// numberText is a JSON number's text as an error quotes it: as written (a
// number, not a string), cut past 40 characters, since a number of
// thousands of digits is JSON too.
func numberText(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:20] + "… (" + strconv.Itoa(len(s)) + " characters)"
}
