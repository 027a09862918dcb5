package rec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/internal/datamsg"
	"github.com/kwire/kwire/codec/internal/encerr"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/wire"
)

// EncodeError is an Encode failure at a JSON path such as
// "[0].records[2].value" (codec.EncodeError is the same type).
type EncodeError = encerr.Error

func eerr(path, msg string) error { return &EncodeError{Path: path, Msg: msg} }

// Encode turns the decoded JSON form (as WriteJSON writes it, parsed into
// map[string]any, []any, json.Number, string, bool and nil; float64 and Go
// integers are accepted for numbers, []byte for keys and values,
// []map[string]any for arrays of entries) back into record batch or
// message set bytes appended to dst. Lengths, counts and CRCs are
// computed; "crc", "offset", "timestamp", "absoluteOffset" and
// "logAppendTime" are informational, as are the members a payload reader
// adds to a key or value beside its bytes; a member the decoder never
// writes is refused ("unknown field; valid here: ...").
//
// No edit is dropped. An entry with "_raw" (one that decoded with
// warnings) is written verbatim from it only when those bytes, decoded,
// show exactly the entry given ("absoluteOffset" and "logAppendTime"
// aside); otherwise the entry is encoded from its fields. Likewise a
// compressed batch or wrapper reuses its "_compressed" bytes only when
// they inflate to the content encoded from the JSON, so an unchanged
// batch comes back byte for byte; otherwise the content is compressed
// afresh with the codec in attributes (magic 0 lz4 with the old Kafka
// header checksum), and lengths, offsets and CRCs are computed anew. A
// build without compressors (WebAssembly) refuses such an edit with an
// error naming its path. An entry that is only "_raw" (bytes after a
// framing error) or "_truncated" is written verbatim.
//
// A batch's lastOffsetDelta and maxTimestamp, and a record's offsetDelta,
// are written as given, consistent with the records or not (a protocol
// playground crafts inconsistent batches on purpose). Left out (or null),
// they are computed as a producer writes them: lastOffsetDelta the last
// record's offsetDelta, maxTimestamp the largest baseTimestamp +
// timestampDelta (-1 and -1 without records), a record's offsetDelta its
// index in the batch. A record lacking timestampDelta gets "timestamp"
// less baseTimestamp, else 0. A batch's other header fields left out are
// a producer's too: magic 2 (an entry with records), baseTimestamp the
// first record's "timestamp", baseOffset 0, and -1 for
// partitionLeaderEpoch, producerId, producerEpoch and baseSequence.
//
// A control record's "control" (its key's version and type, a marker's
// value version and coordinator epoch, a KRaft record's data) builds the
// record's key and value when the record leaves them out; when it gives
// them, they must agree with "control", or the record is refused. A nil v
// encodes nothing.
func Encode(dst []byte, v any) ([]byte, error) {
	if v == nil {
		return dst, nil
	}
	return encodeSet(dst, v, "", 0)
}

func encodeSet(dst []byte, v any, path string, depth int) ([]byte, error) {
	n, ok := listLen(v)
	if !ok {
		return dst, eerr(pathOr(path), "expected an array of batches or messages, found "+kindOf(v))
	}
	if depth > 16 {
		return dst, eerr(pathOr(path), "expected message sets nested at most 16 deep, found deeper ones")
	}
	for i := 0; i < n; i++ {
		p := path + "[" + itoa(i) + "]"
		obj, ok := listAt(v, i).(map[string]any)
		if !ok {
			return dst, eerr(p, "expected an object, found "+kindOf(listAt(v, i)))
		}
		if raw, ok, err := b64Field(obj, "_raw", p); err != nil {
			return dst, err
		} else if ok && (len(obj) == 1 || unchanged(obj, raw)) {
			dst = append(dst, raw...)
			continue
		}
		if raw, ok, err := b64Field(obj, "_truncated", p); err != nil {
			return dst, err
		} else if ok {
			if err := truncatedKeys.check(obj, p); err != nil {
				return dst, err
			}
			dst = append(dst, raw...)
			continue
		}
		if obj["magic"] == nil {
			// Which fields are valid depends on the magic: a misspelt
			// "magic" is said to be unknown, not the magic missing.
			if err := entryKeys.check(obj, p); err != nil {
				return dst, err
			}
		}
		// Left out, an entry with records is a batch, magic 2; a legacy
		// message says its magic, 0 or 1.
		magic, err := intOf(obj, "magic", p, minInt8, maxInt8, obj["records"] == nil, 2)
		if err != nil {
			return dst, err
		}
		switch magic {
		case 2:
			if err := batchKeys.check(obj, p); err != nil {
				return dst, err
			}
			dst, err = encodeBatch(dst, obj, p)
		case 0, 1:
			if err := messageKeys[magic].check(obj, p); err != nil {
				return dst, err
			}
			dst, err = encodeMessage(dst, obj, p, int8(magic), depth)
		default:
			return dst, eerr(p+".magic", "expected 0, 1 or 2, found "+strconv.FormatInt(magic, 10))
		}
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// fieldSet is the members an object of records JSON may have: those the
// decoder writes for it, each read by Encode or, when it is informational
// ("crc", "offset" of a record, "_sizeInBytes", a payload's "decoded"),
// let be. Any other member is refused, as the schema fields refuse an
// unknown field: a misspelt one ("compresion", "producerID") would be
// an edit silently dropped.
type fieldSet struct {
	names []string
	at    string // what the names are valid for, when it is not the path alone: "at magic 0"
}

func (s *fieldSet) has(k string) bool {
	for _, n := range s.names {
		if n == k {
			return true
		}
	}
	return false
}

// check refuses a member of obj outside s, naming the first (in sorted
// order) and the valid ones. It looks s's names up in obj, stopping once
// all of obj's are found (a key's {"text":...} at the first), which costs
// a record a fraction of what ranging over its map would.
func (s *fieldSet) check(obj map[string]any, path string) error {
	if len(obj) == 0 {
		return nil
	}
	n := 0
	for _, name := range s.names {
		if _, ok := obj[name]; ok {
			if n++; n == len(obj) {
				return nil
			}
		}
	}
	return s.unknown(obj, path)
}

func (s *fieldSet) unknown(obj map[string]any, path string) error {
	var bad []string
	for k := range obj {
		if !s.has(k) {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	msg := "unknown field; valid here: " + strings.Join(s.names, ", ")
	if s.at != "" {
		msg += " (" + s.at + ")"
	}
	return eerr(path+"."+bad[0], msg)
}

// The members of each object of records JSON, as the decoder writes them
// (sink_json.go, the tree's JSON, and the payload readers' members in a
// key or value: codec/payload, the internal topics' in codec's walk).
var (
	batchKeys = &fieldSet{names: []string{"baseOffset", "partitionLeaderEpoch", "magic", "crc", "attributes", "lastOffsetDelta",
		"baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence", "records",
		"_compressed", "_sizeInBytes", "_uncompressedBytes", "_compressionRatio", "_raw"}}
	messageKeys = [2]*fieldSet{
		{names: []string{"offset", "absoluteOffset", "magic", "crc", "attributes", "key", "value", "messages", "_compressed", "_raw"}, at: "at magic 0"},
		{names: []string{"offset", "absoluteOffset", "magic", "crc", "attributes", "timestamp", "logAppendTime", "key", "value", "messages", "_compressed", "_raw"}, at: "at magic 1"},
	}
	// entryKeys are a batch's and a message's: for an entry that names
	// no magic.
	entryKeys = &fieldSet{names: []string{"baseOffset", "partitionLeaderEpoch", "magic", "crc", "attributes", "lastOffsetDelta",
		"baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence", "records",
		"offset", "absoluteOffset", "timestamp", "logAppendTime", "key", "value", "messages",
		"_compressed", "_sizeInBytes", "_uncompressedBytes", "_compressionRatio", "_raw"}, at: "a batch's and a legacy message's"}
	truncatedKeys = &fieldSet{names: []string{"_truncated"}, at: "an entry cut short"}
	recordKeys    = &fieldSet{names: []string{"attributes", "timestampDelta", "offsetDelta", "offset", "timestamp", "key", "value", "headers", "control"}}
	headerKeys    = &fieldSet{names: []string{"key", "value"}}
	attrKeys      = [3]*fieldSet{
		{names: []string{"compression", "otherBits"}, at: "at magic 0"},
		{names: []string{"compression", "timestampType", "otherBits"}, at: "at magic 1"},
		{names: []string{"compression", "timestampType", "transactional", "control", "deleteHorizon", "otherBits"}},
	}
	// A record's or message's key or value: its bytes, and what a payload
	// reader adds beside them to be read (never encoded).
	payloadKeys = &fieldSet{names: []string{"text", "base64", "format", "schemaId", "messageIndexes", "message",
		"type", "frameVersion", "version", "schema", "decoded"}, at: `"text" or "base64" the bytes; the others, a payload reader's, are not read`}
	// A header's key or value (the payload readers read neither).
	headerBytesKeys = &fieldSet{names: []string{"text", "base64"}}
)

func pathOr(p string) string {
	if p == "" {
		return "$"
	}
	return p
}

func b64Field(obj map[string]any, name, path string) ([]byte, bool, error) {
	v, ok := obj[name]
	if !ok || v == nil {
		return nil, false, nil
	}
	if b, ok := v.([]byte); ok {
		return b, true, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, false, eerr(path+"."+name, "expected a base64 string, found "+kindOf(v))
	}
	b, err := jsontext.DecodeBase64(s)
	if err != nil {
		return nil, false, &EncodeError{Path: path + "." + name, Msg: "bad base64: " + err.Error(), Err: err}
	}
	return b, true, nil
}

// num converts a JSON number to int64.
func num(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(string(x), 64)
			if ferr != nil || f != math.Trunc(f) || f < -9.2e18 || f > 9.2e18 {
				return 0, false
			}
			return int64(f), true
		}
		return i, true
	case float64:
		if x != math.Trunc(x) || x < -9.2e18 || x > 9.2e18 {
			return 0, false
		}
		return int64(x), true
	}
	i, ok, exact := GoInt(v)
	return i, ok && exact
}

// GoInt reads any Go integer type. ok says v is one; exact says it fits an int64.
func GoInt(v any) (i int64, ok, exact bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true, true
	case int8:
		return int64(x), true, true
	case int16:
		return int64(x), true, true
	case int32:
		return int64(x), true, true
	case int64:
		return x, true, true
	case uint:
		return int64(x), true, uint64(x) <= math.MaxInt64
	case uint8:
		return int64(x), true, true
	case uint16:
		return int64(x), true, true
	case uint32:
		return int64(x), true, true
	case uint64:
		return int64(x), true, x <= math.MaxInt64
	}
	return 0, false, false
}

// intOf reads obj[name] as an integer in lo..hi: def when it is absent
// or null, unless required.
func intOf(obj map[string]any, name, path string, lo, hi int64, required bool, def int64) (int64, error) {
	return intMember(obj[name], name, path, lo, hi, required, def)
}

// intMember is intOf for member name's value v, already looked up.
func intMember(v any, name, path string, lo, hi int64, required bool, def int64) (int64, error) {
	if v == nil {
		if required {
			return 0, eerr(path+"."+name, "missing")
		}
		return def, nil
	}
	i, msg := intRead(v, lo, hi)
	if msg != "" {
		return 0, eerr(path+"."+name, msg)
	}
	return i, nil
}

// The ranges of the integer fields.
const (
	minInt8, maxInt8   = math.MinInt8, math.MaxInt8
	minInt16, maxInt16 = math.MinInt16, math.MaxInt16
	minInt32, maxInt32 = math.MinInt32, math.MaxInt32
	minInt64, maxInt64 = math.MinInt64, math.MaxInt64
)

// intValue reads v as an integer in lo..hi: a JSON number (one written
// with a fraction or an exponent too, when it is integral), a Go integer
// or integral float, or, for an int64 (hi is math.MaxInt64), a string of
// its digits, as JSON that keeps int64 values exact writes them. Its
// errors are the schema fields' ("expected an integer in A..B, found X").
func intValue(v any, path string, lo, hi int64) (int64, error) {
	i, msg := intRead(v, lo, hi)
	if msg != "" {
		return 0, eerr(path, msg)
	}
	return i, nil
}

// intRead is intValue with its error's message alone, so that a caller
// builds the path only for an error (a record reads three integers).
func intRead(v any, lo, hi int64) (int64, string) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		i, err := strconv.ParseInt(s, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			f, ferr := strconv.ParseFloat(s, 64)
			if ferr != nil || f != math.Trunc(f) {
				return 0, "expected an integer, found " + strconv.Quote(s)
			}
			if f < -9.2e18 || f > 9.2e18 {
				return 0, rangeMsg(lo, hi, s)
			}
			i, err = int64(f), nil
		}
		if err != nil || i < lo || i > hi {
			return 0, rangeMsg(lo, hi, s)
		}
		return i, ""
	case string:
		if hi < math.MaxInt64 {
			return 0, "expected an integer, found the string " + strconv.Quote(x) + " (only int64 values may be quoted)"
		}
		if msg := QuotedInt64(x); msg != "" {
			return 0, msg
		}
		i, err := strconv.ParseInt(x, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, "expected an integer, found " + strconv.Quote(x)
		}
		if err != nil || i < lo {
			return 0, rangeMsg(lo, hi, x)
		}
		return i, ""
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			return 0, "expected an integer, found " + strconv.FormatFloat(x, 'g', -1, 64)
		}
		if x < -9.2e18 || x > 9.2e18 || int64(x) < lo || int64(x) > hi {
			return 0, rangeMsg(lo, hi, strconv.FormatFloat(x, 'g', -1, 64))
		}
		return int64(x), ""
	case float32:
		return intRead(float64(x), lo, hi)
	}
	i, ok, exact := GoInt(v)
	if !ok {
		return 0, "expected an integer, found " + kindOf(v)
	}
	if !exact || i < lo || i > hi {
		s := strconv.FormatInt(i, 10)
		if !exact {
			s = strconv.FormatUint(uint64(i), 10)
		}
		return 0, rangeMsg(lo, hi, s+" (Go "+GoTypeName(v)+")")
	}
	return i, ""
}

// QuotedInt64 says what is wrong with s as a quoted int64, "" when
// nothing is: it is taken only as Int64Strings writes one
// (strconv.FormatInt's form), an optional '-', then digits without a
// leading zero ("0" alone, never "-0"). "+5" or "05" would be written as
// 5 all the same, a value the text does not show as it is.
func QuotedInt64(s string) string {
	d := s
	if len(d) > 0 && (d[0] == '-' || d[0] == '+') {
		d = d[1:]
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return "expected an integer, found " + strconv.Quote(s)
		}
	}
	if d == "" {
		return "expected an integer, found " + strconv.Quote(s)
	}
	if s[0] == '+' || d[0] == '0' && len(s) > 1 {
		return "expected an integer's digits as Int64Strings writes them (an optional '-', no '+', no leading zero), found " + strconv.Quote(s)
	}
	return ""
}

// isNumber reports whether v is a number, from JSON or Go.
func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, float32:
		return true
	}
	_, ok, _ := GoInt(v)
	return ok
}

func rangeErr(path string, lo, hi int64, found string) error {
	return eerr(path, rangeMsg(lo, hi, found))
}

func rangeMsg(lo, hi int64, found string) string {
	return "expected an integer in " + strconv.FormatInt(lo, 10) + ".." + strconv.FormatInt(hi, 10) + ", found " + found
}

// kindOf is KindOf, with an empty object said as "{}" (given where a
// records member wants bytes or a number).
func kindOf(v any) string {
	if m, ok := v.(map[string]any); ok && len(m) == 0 {
		return "{}"
	}
	return KindOf(v)
}

// KindOf says what v is, in JSON's terms, adding the Go type for values
// that did not come from JSON: "a string", "a number (Go int32)", "a value
// of Go type chan int". The one wording of the encoders' errors (codec's,
// which adds the Go slices it takes, and the records').
func KindOf(v any) string {
	switch v.(type) {
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
	case float32:
		return "a number (Go float32)"
	case []byte:
		return "bytes (Go []byte)"
	case *string:
		return "a string (Go *string)"
	case []map[string]any:
		return "an array (Go []map[string]interface {})"
	}
	if _, ok, _ := GoInt(v); ok {
		return "a number (Go " + GoTypeName(v) + ")"
	}
	return "a value of Go type " + GoTypeName(v)
}

// GoTypeName names v's Go type for an error message (an error's cold
// path: the reflection is not on the way of any value that encodes).
func GoTypeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

func boolOf(obj map[string]any, name, path string) (bool, error) {
	v, ok := obj[name]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, eerr(path+"."+name, "expected true or false, found "+kindOf(v))
	}
	return b, nil
}

// attrsOf reads an attributes object, or a plain number in lo..hi (a
// batch's int16 or a message's int8, signed or not).
func attrsOf(obj map[string]any, path string, magic int8, lo, hi int64) (int, error) {
	p := path + ".attributes"
	v, ok := obj["attributes"]
	if !ok || v == nil {
		return 0, nil
	}
	a, ok := v.(map[string]any)
	if !ok {
		if !isNumber(v) {
			return 0, eerr(p, "expected an object or an integer, found "+kindOf(v))
		}
		i, err := intValue(v, p, lo, hi)
		return int(i), err
	}
	if err := attrKeys[magic].check(a, p); err != nil {
		return 0, err
	}
	attrs := 0
	switch c := a["compression"].(type) {
	case nil:
	case string:
		found := false
		for i := CodecNone; i <= CodecZstd; i++ {
			if CodecName(i) == c {
				attrs, found = i, true
			}
		}
		if !found {
			return 0, eerr(p+".compression", "expected none, gzip, snappy, lz4, zstd or a number 0-7, found "+strconv.Quote(c))
		}
	default:
		i, err := intValue(c, p+".compression", 0, 7)
		if err != nil {
			return 0, err
		}
		attrs = int(i)
	}
	switch t := a["timestampType"].(type) {
	case nil:
	case string:
		switch t {
		case "CreateTime":
		case "LogAppendTime":
			attrs |= 8
		default:
			return 0, eerr(p+".timestampType", "expected CreateTime or LogAppendTime, found "+strconv.Quote(t))
		}
	default:
		return 0, eerr(p+".timestampType", "expected CreateTime or LogAppendTime, found "+kindOf(t))
	}
	if magic == 2 {
		for i, f := range [...]string{"transactional", "control", "deleteHorizon"} {
			b, err := boolOf(a, f, p)
			if err != nil {
				return 0, err
			}
			if b {
				attrs |= 0x10 << i
			}
		}
	}
	o, err := intOf(a, "otherBits", p, lo, hi, false, 0)
	if err != nil {
		return 0, err
	}
	if all := int64(attrs) | o; all < lo || all > hi {
		return 0, rangeErr(p, lo, hi, strconv.FormatInt(all, 10)+" (these attributes with otherBits "+strconv.FormatInt(o, 10)+")")
	}
	return attrs | int(o), nil
}

// bytesOf reads the key or value name (of the object at path): null,
// {"text":...}, {"base64":...} or a string; an object may have the members
// of keys beside its bytes.
func bytesOf(v any, path, name string, keys *fieldSet) ([]byte, bool, error) {
	switch x := v.(type) {
	case nil:
		return nil, true, nil
	case []byte:
		return x, x == nil, nil
	case string:
		return []byte(x), false, nil
	case map[string]any:
		t, hasText := x["text"]
		b, hasB64 := x["base64"]
		if len(x) != 1 || !hasText && !hasB64 {
			// Beside the bytes, a payload reader's members (or others).
			if err := keys.check(x, path+"."+name); err != nil {
				return nil, false, err
			}
		}
		switch {
		case hasText && hasB64:
			return nil, false, eerr(path+"."+name, `expected {"text":...} or {"base64":...}, found both text and base64`)
		case hasText:
			s, ok := t.(string)
			if !ok {
				return nil, false, eerr(path+"."+name+".text", "expected a string, found "+kindOf(t))
			}
			return []byte(s), false, nil
		case hasB64:
			s, ok := b.(string)
			if !ok {
				return nil, false, eerr(path+"."+name+".base64", "expected a base64 string, found "+kindOf(b))
			}
			out, err := jsontext.DecodeBase64(s)
			if err != nil {
				return nil, false, eerr(path+"."+name+".base64", "bad base64: "+err.Error())
			}
			return out, false, nil
		}
		return nil, false, eerr(path+"."+name, `expected null, a string, {"text":...} or {"base64":...}, found `+objectWithout(x))
	}
	return nil, false, eerr(path+"."+name, `expected null, a string, {"text":...} or {"base64":...}, found `+kindOf(v))
}

// objectWithout says what an object that has neither "text" nor "base64"
// is: "{}", or an object with the members it has.
func objectWithout(x map[string]any) string {
	if len(x) == 0 {
		return "{}"
	}
	names := make([]string, 0, len(x))
	for k := range x {
		names = append(names, strconv.Quote(k))
	}
	sort.Strings(names)
	return "an object of " + strings.Join(names, ", ") + " and neither text nor base64"
}

func appendVarbytes(dst, b []byte, null bool) []byte {
	if null {
		return wire.AppendVarint(dst, -1)
	}
	dst = wire.AppendVarint(dst, int32(len(b)))
	return append(dst, b...)
}

// The batch header's fields Encode reads, in their order on the wire.
// lastOffsetDelta and maxTimestamp are derived from the records when left
// out (or null), baseTimestamp is the first record's "timestamp"; the
// others are def, as a producer writes a batch of no idempotence or
// transaction (Kafka's MemoryRecordsBuilder: baseOffset 0, no partition
// leader epoch, producer id, epoch or sequence).
var encBatchFields = [...]struct {
	name   string
	lo, hi int64
	def    int64
}{{"baseOffset", minInt64, maxInt64, 0}, {"partitionLeaderEpoch", minInt32, maxInt32, -1}, {"lastOffsetDelta", minInt32, maxInt32, 0},
	{"baseTimestamp", minInt64, maxInt64, 0}, {"maxTimestamp", minInt64, maxInt64, 0}, {"producerId", minInt64, maxInt64, -1},
	{"producerEpoch", minInt16, maxInt16, -1}, {"baseSequence", minInt32, maxInt32, -1}}

// batchBaseTimestamp is baseTimestamp's place in encBatchFields.
const batchBaseTimestamp = 3

// firstTimestamp is the "timestamp" of the first of records, a batch's
// baseTimestamp when the batch leaves it out, as a producer's is; an
// error when there is none to take (with no records at all, the error is
// theirs, said after).
func firstTimestamp(records any, path string) (int64, error) {
	if records == nil {
		return 0, nil
	}
	if n, ok := listLen(records); ok && n > 0 {
		if r, ok := listAt(records, 0).(map[string]any); ok && r["timestamp"] != nil {
			return intOf(r, "timestamp", path+".records[0]", minInt64, maxInt64, true, 0)
		}
	}
	return 0, eerr(path+".baseTimestamp", "missing: give it, or the first record's timestamp")
}

// Where the batch header holds lastOffsetDelta and maxTimestamp.
const (
	batchLastOffsetDeltaAt = 23
	batchMaxTimestampAt    = 35
)

func encodeBatch(dst []byte, obj map[string]any, path string) ([]byte, error) {
	var f [8]int64
	var given [8]bool
	for i, spec := range encBatchFields {
		var err error
		given[i] = obj[spec.name] != nil
		if f[i], err = intOf(obj, spec.name, path, spec.lo, spec.hi, false, spec.def); err != nil {
			return dst, err
		}
	}
	if !given[batchBaseTimestamp] {
		var err error
		if f[batchBaseTimestamp], err = firstTimestamp(obj["records"], path); err != nil {
			return dst, err
		}
	}
	attrs, err := attrsOf(obj, path, 2, minInt16, math.MaxUint16)
	if err != nil {
		return dst, err
	}
	var body []byte
	count := 0
	rv := obj["records"]
	if comp, ok, err := b64Field(obj, "_compressed", path); err != nil {
		return dst, err
	} else if rv == nil && ok && attrs&7 != CodecNone {
		// Records that could not be decompressed: the edit is to the batch
		// fields, so the compressed bytes stay as they are, with the record
		// count the original batch declared.
		raw, _, _ := b64Field(obj, "_raw", path)
		if len(raw) < batchHeader {
			return dst, eerr(path+".records", "missing: the records, or for a batch whose records could not be decompressed its _raw")
		}
		body, count = comp, int(be32(raw[batchHeader-4:]))
		// The records are as they came: so are the fields derived from them.
		if !given[2] {
			f[2] = be32(raw[batchLastOffsetDeltaAt:])
		}
		if !given[4] {
			f[4] = be64(raw[batchMaxTimestampAt:])
		}
	} else {
		if rv == nil {
			return dst, eerr(path+".records", "missing: the records, or for a batch whose records could not be decompressed its _raw")
		}
		n, ok := listLen(rv)
		if !ok {
			return dst, eerr(path+".records", "expected an array, found "+kindOf(rv))
		}
		if n > math.MaxInt32 {
			return dst, eerr(path+".records", "expected at most 2147483647 records, found "+itoa(n))
		}
		// Left out, lastOffsetDelta and maxTimestamp are what a producer
		// writes (Kafka's MemoryRecordsBuilder, franz-go): the last record's
		// offsetDelta, the largest baseTimestamp + timestampDelta; -1 and -1
		// (no timestamp) for a batch of no records.
		var scratch []byte
		lastOD, maxTS := int64(-1), int64(-1)
		for k := 0; k < n; k++ {
			var od, tsd int64
			if body, scratch, od, tsd, err = encodeRecord(body, scratch, listAt(rv, k), path+".records["+itoa(k)+"]", f[3], k); err != nil {
				return dst, err
			}
			lastOD = od
			if ts := f[3] + tsd; k == 0 || ts > maxTS {
				maxTS = ts
			}
		}
		if !given[2] {
			f[2] = lastOD
		}
		if !given[4] {
			f[4] = maxTS
		}
		if codec := attrs & 7; codec != CodecNone {
			if body, err = recompress(codec, body, obj, path, 2); err != nil {
				return dst, err
			}
		}
		count = n
	}
	start := len(dst)
	dst = wire.AppendInt64(dst, f[0])
	dst = wire.AppendInt32(dst, 0) // batchLength
	dst = wire.AppendInt32(dst, int32(f[1]))
	dst = append(dst, 2)
	dst = wire.AppendUint32(dst, 0) // crc
	dst = wire.AppendUint16(dst, uint16(attrs))
	dst = wire.AppendInt32(dst, int32(f[2]))
	dst = wire.AppendInt64(dst, f[3])
	dst = wire.AppendInt64(dst, f[4])
	dst = wire.AppendInt64(dst, f[5])
	dst = wire.AppendInt16(dst, int16(f[6]))
	dst = wire.AppendInt32(dst, int32(f[7]))
	dst = wire.AppendInt32(dst, int32(count))
	dst = append(dst, body...)
	if len(dst)-start-12 > math.MaxInt32 {
		return dst[:start], eerr(path, "expected a batch of at most 2147483647 bytes after its length, found "+itoa(len(dst)-start-12))
	}
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-12))
	binary.BigEndian.PutUint32(dst[start+17:], crc32.Checksum(dst[start+21:], castagnoli))
	return dst, nil
}

// recompress reuses obj["_compressed"] when it inflates to content,
// else compresses content with codec for an entry of magic.
func recompress(codec int, content []byte, obj map[string]any, path string, magic int8) ([]byte, error) {
	comp, ok, err := b64Field(obj, "_compressed", path)
	if err != nil {
		return nil, err
	}
	if ok {
		if out, _, err := inflate(codec, comp, max(len(content), 1), defaultMaxDecompressed); err == nil && bytes.Equal(out, content) {
			return comp, nil
		}
	}
	if CodecName(codec) == "" {
		return nil, eerr(path+".attributes.compression", "expected a codec to compress the content with (gzip, snappy, lz4, zstd), found "+itoa(codec))
	}
	if codec == CodecZstd && magic < 2 {
		// Kafka takes zstd only in record batches (KIP-110: its brokers
		// answer UNSUPPORTED_COMPRESSION_TYPE), so kwire writes no new zstd
		// wrapper; one that came in bytes comes back while its content is
		// unchanged (its _compressed, above).
		return nil, eerr(path+".attributes.compression", `expected gzip, snappy or lz4 in a magic `+itoa(int(magic))+
			` wrapper, found "zstd": Kafka takes zstd only in record batches (magic 2)`)
	}
	out, err := deflate(codec, content, magic == 0)
	if err != nil {
		return nil, &EncodeError{Path: path + ".attributes.compression", Msg: err.Error(), Err: err}
	}
	return out, nil
}

// encodeRecord appends record v, the idx-th of its batch, and returns
// its offsetDelta and timestampDelta. Left out (or null), offsetDelta is
// idx, as a producer numbers a batch's records ("offset", which the
// decoder writes beside it, is not read: a copied record's would repeat
// its original's), and timestampDelta is "timestamp" less the batch's
// baseTimestamp when that is given, else 0.
func encodeRecord(dst, scratch []byte, v any, path string, baseTS int64, idx int) (_, _ []byte, od, tsd int64, err error) {
	r, ok := v.(map[string]any)
	if !ok {
		return dst, scratch, 0, 0, eerr(path, "expected an object, found "+kindOf(v))
	}
	// One pass over the record's members (recordKeys), where looking each
	// up and checking for others cost a record twice as many lookups.
	var f struct{ attributes, timestampDelta, offsetDelta, timestamp, headers, control any }
	var parts [2]controlPart // the key and the value
	var kv [2]any
	for k, x := range r {
		switch k {
		case "attributes":
			f.attributes = x
		case "timestampDelta":
			f.timestampDelta = x
		case "offsetDelta":
			f.offsetDelta = x
		case "timestamp":
			f.timestamp = x
		case "offset": // informational: baseOffset + offsetDelta
		case "key":
			kv[0], parts[0].given = x, true
		case "value":
			kv[1], parts[1].given = x, true
		case "headers":
			f.headers = x
		case "control":
			f.control = x
		default:
			return dst, scratch, 0, 0, recordKeys.unknown(r, path)
		}
	}
	attrs, err := intMember(f.attributes, "attributes", path, minInt8, maxInt8, false, 0)
	if err != nil {
		return dst, scratch, 0, 0, err
	}
	if f.timestampDelta != nil {
		tsd, err = intMember(f.timestampDelta, "timestampDelta", path, minInt64, maxInt64, true, 0)
	} else if f.timestamp != nil {
		if tsd, err = intMember(f.timestamp, "timestamp", path, minInt64, maxInt64, true, 0); err == nil {
			tsd -= baseTS
		}
	}
	if err != nil {
		return dst, scratch, 0, 0, err
	}
	if od, err = intMember(f.offsetDelta, "offsetDelta", path, minInt32, maxInt32, false, int64(idx)); err != nil {
		return dst, scratch, 0, 0, err
	}
	b := scratch[:0]
	b = append(b, byte(attrs))
	b = wire.AppendVarlong(b, tsd)
	b = wire.AppendVarint(b, int32(od))
	for i, name := range [...]string{"key", "value"} {
		p := &parts[i]
		if p.b, p.null, err = bytesOf(kv[i], path, name, payloadKeys); err != nil {
			return dst, scratch, 0, 0, err
		}
	}
	if c := f.control; c != nil {
		if err := controlParts(c, path+".control", &parts[0], &parts[1]); err != nil {
			return dst, scratch, 0, 0, err
		}
	}
	for _, p := range parts {
		b = appendVarbytes(b, p.b, p.null)
	}
	hs, nh := f.headers, 0
	if hs != nil {
		if nh, ok = listLen(hs); !ok {
			return dst, scratch, 0, 0, eerr(path+".headers", "expected an array, found "+kindOf(hs))
		}
	}
	b = wire.AppendVarint(b, int32(nh))
	for i := 0; i < nh; i++ {
		hp := path + ".headers[" + itoa(i) + "]"
		ho, ok := listAt(hs, i).(map[string]any)
		if !ok {
			return dst, scratch, 0, 0, eerr(hp, "expected an object, found "+kindOf(listAt(hs, i)))
		}
		if err := headerKeys.check(ho, hp); err != nil {
			return dst, scratch, 0, 0, err
		}
		if ho["key"] == nil {
			// Kafka has none: its clients refuse one, its brokers fail
			// to read one (a negative header key length).
			return dst, scratch, 0, 0, eerr(hp+".key", `expected a string or {"base64":...}, found `+kindOf(ho["key"])+`: Kafka has no null header key`)
		}
		for _, name := range [...]string{"key", "value"} {
			x, null, err := bytesOf(ho[name], hp, name, headerBytesKeys)
			if err != nil {
				return dst, scratch, 0, 0, err
			}
			b = appendVarbytes(b, x, null)
		}
	}
	if len(b) > math.MaxInt32 {
		return dst, b, 0, 0, eerr(path, "expected a record of at most 2147483647 bytes, found "+itoa(len(b)))
	}
	dst = wire.AppendVarint(dst, int32(len(b)))
	dst = append(dst, b...)
	return dst, b, od, tsd, nil
}

// controlPart is a record's key or value as a control record's "control"
// object is held to, or builds: its bytes, and whether the record gave it.
type controlPart struct {
	b           []byte
	null, given bool
}

var controlKeys = &fieldSet{names: []string{"keyVersion", "type", "valueVersion", "coordinatorEpoch", "data"}}

// controlParts holds a control record's key and value to its "control"
// object v (at path), as the decoder writes it: "keyVersion" and "type"
// (the key's two int16s), and a marker's (ABORT, COMMIT) "valueVersion"
// and "coordinatorEpoch" (the value's int16 and int32) or a KRaft
// record's "data" (the value: its message, as an object, or base64 when
// it did not decode). A key or value the record leaves out is built from
// them; one it gives must agree with each member given, or the record is
// refused (which of the two was edited is not for the encoder to guess).
func controlParts(v any, path string, key, val *controlPart) error {
	c, ok := v.(map[string]any)
	if !ok {
		return eerr(path, "expected an object, found "+kindOf(v))
	}
	if err := controlKeys.check(c, path); err != nil {
		return err
	}
	typ, typGiven := int64(-1), c["type"] != nil
	if typGiven {
		var err error
		if typ, err = controlType(c["type"], path+".type"); err != nil {
			return err
		}
	}
	kv, err := intOf(c, "keyVersion", path, minInt16, maxInt16, false, 0)
	if err != nil {
		return err
	}
	switch {
	case !key.given:
		if !typGiven {
			return eerr(path+".type", `missing: the control record's type, to build its key (the record has no "key")`)
		}
		key.b, key.null = wire.AppendInt16(wire.AppendInt16(nil, int16(kv)), int16(typ)), false
	case key.null || len(key.b) < 4:
		for _, name := range [...]string{"keyVersion", "type"} {
			if c[name] != nil {
				return disagree(path+"."+name, "key", "no control key (null or under 4 bytes)", c[name])
			}
		}
	default:
		if c["keyVersion"] != nil && be16(key.b) != kv {
			return disagree(path+".keyVersion", "key", itoa(int(be16(key.b))), c["keyVersion"])
		}
		if typGiven && be16(key.b[2:]) != typ {
			return disagree(path+".type", "key", controlTypeText(be16(key.b[2:])), c["type"])
		}
		typ = be16(key.b[2:])
	}

	marker, kraft := typ == 0 || typ == 1, typ >= 2 && typ < int64(len(controlData))
	for _, name := range [...]string{"valueVersion", "coordinatorEpoch", "data"} {
		if c[name] == nil || marker && name != "data" || kraft && name == "data" {
			continue
		}
		what := `"data"`
		switch {
		case marker:
			what = `"valueVersion" and "coordinatorEpoch"`
		case !kraft:
			what = "no value members (kwire knows control types 0-6)"
		}
		return eerr(path+"."+name, "expected "+what+" for a control record of type "+controlTypeText(typ)+`, found "`+name+`"`)
	}
	vv, err := intOf(c, "valueVersion", path, minInt16, maxInt16, false, 0)
	if err != nil {
		return err
	}
	epoch, err := intOf(c, "coordinatorEpoch", path, minInt32, maxInt32, false, 0)
	if err != nil {
		return err
	}
	switch {
	case !val.given && marker:
		if c["coordinatorEpoch"] == nil {
			return eerr(path+".coordinatorEpoch", `missing: the marker's coordinator epoch, to build its value (the record has no "value")`)
		}
		val.b, val.null = wire.AppendInt32(wire.AppendInt16(nil, int16(vv)), int32(epoch)), false
	case !val.given && kraft:
		if c["data"] == nil {
			return eerr(path+".data", `missing: the record's data, to build its value (the record has no "value")`)
		}
		b, err := controlValue(c["data"], int(typ), path+".data")
		if err != nil {
			return err
		}
		if b == nil {
			return eerr(path+".data", `expected "value" beside a KRaft control record's data object: this build has no data-message encoder to build it`)
		}
		val.b, val.null = b, false
	case !val.given:
		return eerr(path+".type", `expected a control type whose value kwire builds (0-6), found `+controlTypeText(typ)+`: give "value"`)
	case marker:
		if c["valueVersion"] != nil {
			if val.null || len(val.b) < 2 {
				return disagree(path+".valueVersion", "value", "no version (null or under 2 bytes)", c["valueVersion"])
			}
			if be16(val.b) != vv {
				return disagree(path+".valueVersion", "value", itoa(int(be16(val.b))), c["valueVersion"])
			}
		}
		if c["coordinatorEpoch"] != nil {
			if val.null || len(val.b) < 6 {
				return disagree(path+".coordinatorEpoch", "value", "no coordinator epoch (null or under 6 bytes)", c["coordinatorEpoch"])
			}
			if be32(val.b[2:]) != epoch {
				return disagree(path+".coordinatorEpoch", "value", itoa(int(be32(val.b[2:]))), c["coordinatorEpoch"])
			}
		}
	case kraft && c["data"] != nil:
		b, err := controlValue(c["data"], int(typ), path+".data")
		if err != nil {
			return err
		}
		// Without a data-message encoder (this package's own tests) an
		// object cannot be compared: the value is as given.
		if b != nil && (val.null || !bytes.Equal(b, val.b)) {
			return disagree(path+".data", "value", "other bytes", "data that encodes to "+itoa(len(b))+" bytes of its own")
		}
	}
	return nil
}

// disagree says that the member of "control" at path, found, is not what
// the record's key or value (part) holds.
func disagree(path, part, holds string, found any) error {
	f, ok := found.(string)
	if !ok {
		f = valueText(found)
	}
	return eerr(path, `expected what "`+part+`" holds, `+holds+`, found `+f+
		`: edit both, or leave "`+part+`" out to have it built from "control"`)
}

// valueText writes a number or name of "control" as it was given.
func valueText(v any) string {
	if i, msg := intRead(v, minInt64, maxInt64); msg == "" {
		return strconv.FormatInt(i, 10)
	}
	return kindOf(v)
}

// controlType reads a control record's type: its name ("COMMIT") or
// number.
func controlType(v any, path string) (int64, error) {
	if s, ok := v.(string); ok {
		for i, n := range controlNames {
			if n == s {
				return int64(i), nil
			}
		}
		return 0, eerr(path, "expected "+strings.Join(controlNames[:], ", ")+" or a number, found "+strconv.Quote(s))
	}
	return intValue(v, path, minInt16, maxInt16)
}

// controlTypeText names control type t as the decoder writes it.
func controlTypeText(t int64) string {
	if n := ControlTypeName(int(t)); n != "" {
		return n
	}
	return strconv.FormatInt(t, 10)
}

// controlValue is the value of a KRaft control record of type typ from
// its "data": base64 (as the decoder writes data that did not decode),
// or the message as an object, encoded by the codec's data-message
// encoder at the version its own "version" field gives (nil without
// that encoder, which package codec sets).
func controlValue(v any, typ int, path string) ([]byte, error) {
	switch x := v.(type) {
	case string:
		b, err := jsontext.DecodeBase64(x)
		if err != nil {
			return nil, eerr(path, "bad base64: "+err.Error())
		}
		return b, nil
	case map[string]any:
		if datamsg.Encode == nil {
			return nil, nil
		}
		ver, err := intOf(x, "version", path, minInt16, maxInt16, false, 0)
		if err != nil {
			return nil, err
		}
		return datamsg.Encode([]byte{}, controlData[typ], int16(ver), x, path)
	}
	return nil, eerr(path, "expected the record's message as an object, or base64, found "+kindOf(v))
}

func encodeMessage(dst []byte, obj map[string]any, path string, magic int8, depth int) ([]byte, error) {
	offset, err := intOf(obj, "offset", path, minInt64, maxInt64, true, 0)
	if err != nil {
		return dst, err
	}
	attrs, err := attrsOf(obj, path, magic, minInt8, math.MaxUint8)
	if err != nil {
		return dst, err
	}
	var ts int64
	if magic == 1 {
		if ts, err = intOf(obj, "timestamp", path, minInt64, maxInt64, true, 0); err != nil {
			return dst, err
		}
	}
	key, keyNull, err := bytesOf(obj["key"], path, "key", payloadKeys)
	if err != nil {
		return dst, err
	}
	// A compressed message is a wrapper: its value is the message set in
	// "messages", compressed. Any other message has a "value". Content
	// that does not fit its compression is refused, never dropped (the
	// messages of a wrapper set to none) nor written as a frame no reader
	// takes (a value with compression bits).
	codec := attrs & 7
	ms, hasMessages := obj["messages"]
	v, hasValue := obj["value"]
	switch {
	case hasMessages && hasValue:
		return dst, eerr(path+".value", `expected "value" or "messages", found both: a compressed wrapper holds "messages", any other message a "value"`)
	case hasMessages && codec == CodecNone:
		return dst, eerr(path+".messages", `expected a "value" in a message whose compression is none, found "messages": `+
			`to send these messages uncompressed, list them in place of this wrapper (each with its own offset); to keep them wrapped, set attributes.compression to a codec`)
	case v != nil && codec != CodecNone:
		return dst, eerr(path+".value", `expected "messages" in a message whose compression is `+codecText(codec)+`, found a "value": `+
			`a compressed message wraps a message set; to compress this message, put it (with compression none) in the "messages" of a wrapper, or set attributes.compression to none`)
	}
	var val []byte
	valNull := false
	if hasMessages {
		if ms == nil {
			// Content that could not be decompressed: keep its bytes.
			comp, ok, err := b64Field(obj, "_compressed", path)
			if err != nil {
				return dst, err
			}
			if !ok {
				return dst, eerr(path+".messages", "missing: the messages, or for a wrapper whose content could not be decompressed its _compressed")
			}
			val = comp
		} else {
			inner, err := encodeSet(nil, ms, path+".messages", depth+1)
			if err != nil {
				return dst, err
			}
			if val, err = recompress(codec, inner, obj, path, magic); err != nil {
				return dst, err
			}
		}
	} else if val, valNull, err = bytesOf(v, path, "value", payloadKeys); err != nil {
		return dst, err
	}
	start := len(dst)
	dst = wire.AppendInt64(dst, offset)
	dst = wire.AppendInt32(dst, 0)
	dst = wire.AppendUint32(dst, 0)
	dst = append(dst, byte(magic), byte(attrs))
	if magic == 1 {
		dst = wire.AppendInt64(dst, ts)
	}
	for _, x := range [...]struct {
		b    []byte
		null bool
	}{{key, keyNull}, {val, valNull}} {
		if x.null {
			dst = wire.AppendInt32(dst, -1)
		} else {
			dst = wire.AppendInt32(dst, int32(len(x.b)))
			dst = append(dst, x.b...)
		}
	}
	if len(dst)-start-12 > math.MaxInt32 {
		return dst[:start], eerr(path, "expected a message of at most 2147483647 bytes after its size, found "+itoa(len(dst)-start-12))
	}
	binary.BigEndian.PutUint32(dst[start+8:], uint32(len(dst)-start-12))
	binary.BigEndian.PutUint32(dst[start+12:], crc32.ChecksumIEEE(dst[start+16:]))
	return dst, nil
}

// codecText names codec as attributes.compression gives it: its name, or
// its number for the unassigned 5-7.
func codecText(codec int) string {
	if n := CodecName(codec); n != "" {
		return n
	}
	return itoa(codec)
}

// listLen reports whether v is an array of entries ([]any, or
// []map[string]any from Go code) and its length.
func listLen(v any) (int, bool) {
	switch x := v.(type) {
	case []any:
		return len(x), true
	case []map[string]any:
		return len(x), true
	}
	return 0, false
}

func listAt(v any, i int) any {
	switch x := v.(type) {
	case []any:
		return x[i]
	case []map[string]any:
		return x[i]
	}
	return nil
}

// unchanged reports whether raw, the bytes an entry was decoded from, shows
// exactly the entry obj when decoded again: only then may Encode write raw
// instead of encoding obj. "absoluteOffset" and "logAppendTime" (which
// depend on the enclosing wrapper) are left out of the comparison; a
// KRaft control record's data is decoded as the codec writes it (datamsg,
// which package codec sets).
//
// Decompression is bounded by the size of obj itself: content that is
// unchanged is all in obj (as text or base64, with more than a few bytes of
// JSON for each record's framing), so raw inflating to more than that
// cannot match, and a small hostile _raw cannot make the encoder inflate
// much more than its JSON holds. The bound is a power of two from 1 MiB to
// the decoder's default, so few decompressor pools exist.
func unchanged(obj map[string]any, raw []byte) bool {
	limit, size := 1<<20, valueSize(obj, 0)
	for limit < size && limit < defaultMaxDecompressed {
		limit <<= 1
	}
	var js []byte
	// KRaft control records' data as the codec writes it (a records
	// encoder without the codec, in this package's tests, compares it as
	// base64).
	WriteJSON(&js, raw, Options{MaxDecompressed: limit, DecodeData: datamsg.Decode, DataJSON: datamsg.AppendJSON}, nil)
	v, err := jsontext.Parse(js)
	if err != nil {
		return false
	}
	arr, ok := v.([]any)
	return ok && len(arr) == 1 && sameValue(arr[0], obj, payloadKeys)
}

// sameValue compares a value parsed from WriteJSON's output (want) with
// one given to Encode (got), numbers by value. A key's or value's object
// in got may have the members of bytesKeys beside its bytes.
func sameValue(want, got any, bytesKeys *fieldSet) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			// A key's or value's bytes given as Go bytes (or a header
			// key's as a string), as tree.Node.Value gives them.
			return sameBytes(w, got)
		}
		for _, k := range [...]string{"text", "base64"} {
			if wv, ok := w[k]; ok && len(w) == 1 {
				// A key or value's bytes: what a payload reader added
				// beside them ("format", "decoded", ...) is read, never
				// encoded. A member that is none of those (a misspelt
				// one, the bytes given twice) is refused by the fields'
				// encoding.
				for gk := range g {
					if !bytesKeys.has(gk) || gk != k && (gk == "text" || gk == "base64") {
						return false
					}
				}
				return sameValue(wv, g[k], bytesKeys)
			}
		}
		n := 0
		for k, gv := range g {
			if k == "absoluteOffset" || k == "logAppendTime" {
				continue
			}
			keys := bytesKeys
			if k == "headers" {
				keys = headerBytesKeys
			}
			wv, ok := w[k]
			if b, isBytes := gv.([]byte); isBytes && (k == "_raw" || k == "_compressed") {
				// Base64 in JSON, bytes from Go.
				s, _ := wv.(string)
				if d, err := jsontext.DecodeBase64(s); !ok || err != nil || !bytes.Equal(d, b) {
					return false
				}
			} else if !ok || !sameValue(wv, gv, keys) {
				return false
			}
			n++
		}
		for k := range w {
			if k != "absoluteOffset" && k != "logAppendTime" {
				n--
			}
		}
		return n == 0
	case []any:
		n, ok := listLen(got)
		if !ok || n != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(w[i], listAt(got, i), bytesKeys) {
				return false
			}
		}
		return true
	case json.Number:
		if i, ok := num(w); ok {
			// got may quote an int64, as JSON written with Int64Strings
			// does (want never does): the same number.
			j, msg := intRead(got, minInt64, maxInt64)
			return msg == "" && i == j
		}
		if g, ok := got.(float64); ok { // a ratio, as tree.Node.Value gives it
			f, err := strconv.ParseFloat(string(w), 64)
			return err == nil && f == g
		}
		g, ok := got.(json.Number)
		return ok && g == w
	case string:
		if g, ok := got.([]byte); ok { // a header key given as Go bytes
			return string(g) == w
		}
	}
	return want == got
}

// sameBytes reports whether got, bytes given as Go bytes or a string,
// are the bytes of want, a key's or value's {"text":...} or
// {"base64":...} object.
func sameBytes(want map[string]any, got any) bool {
	var g []byte
	switch x := got.(type) {
	case []byte:
		g = x
	case string:
		g = []byte(x)
	default:
		return false
	}
	if len(want) != 1 {
		return false
	}
	if t, ok := want["text"].(string); ok {
		return t == string(g)
	}
	if b, ok := want["base64"].(string); ok {
		d, err := jsontext.DecodeBase64(b)
		return err == nil && bytes.Equal(d, g)
	}
	return false
}

// valueSize is an upper bound of the bytes a generic value can stand for:
// its strings' lengths and 32 for every other value, capped at 1 GiB.
func valueSize(v any, depth int) int {
	const most = 1 << 30
	n := 32
	switch x := v.(type) {
	case string:
		n = len(x)
	case []byte:
		n = len(x)
	case map[string]any:
		if depth > 64 {
			return most
		}
		for k, e := range x {
			n += len(k) + valueSize(e, depth+1)
			if n > most {
				return most
			}
		}
	default:
		if l, ok := listLen(v); ok {
			if depth > 64 {
				return most
			}
			for i := 0; i < l; i++ {
				n += valueSize(listAt(v, i), depth+1)
				if n > most {
					return most
				}
			}
		}
	}
	return n
}
