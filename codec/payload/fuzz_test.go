package payload

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"testing"
	"unicode/utf8"

	"github.com/linkedin/goavro/v2"

	"github.com/kwire/kwire/codec/internal/budget"
)

// fuzzBudget is small enough that limits are met often.
func fuzzBudget() budget.Budget {
	return budget.Budget{MaxNodes: 4096, NestedNodes: 4000, MaxWork: 1 << 16}
}

// cutBoth decodes p again, as decodeBoth does, under limits that cut it
// where p says: a NestedNodes and a MaxWork below what decoding it took
// (r.spent), picked by a hash of p, so the fuzzer's inputs meet the
// limits at every place of every kind of value. Whatever a limit cuts,
// the members are valid JSON (decodeBoth checks it), and DecodeBytesJSON's
// value is too; and p as a record's value in a frame, at a MaxNodes the
// hash picks, gives valid records JSON, the same on both paths.
func cutBoth(t *testing.T, d *Decoder, p []byte, topic string, r result) {
	t.Helper()
	h := crc32.ChecksumIEEE(p)
	n := int(h % uint32(r.spent.Nodes+2))
	w := int((h >> 8) % uint32(r.spent.Work+2))
	decodeBothCut(t, d, p, false, topic, fuzzLimitBudget(n, fuzzBudget().MaxWork))
	decodeBothCut(t, d, p, false, topic, fuzzLimitBudget(fuzzBudget().NestedNodes, w))
	members, value, _ := d.DecodeBytesJSON(p, false, topic)
	validMembers(t, string(members))
	if value != nil && !json.Valid(value) {
		t.Fatalf("DecodeBytesJSON's value is not valid JSON: %s", value)
	}
	framesBoth(t, d, nil, p, h)
}

// fuzzAvsc has every Avro type but bytes and fixed (goavro reads their
// JSON as UTF-8, not code points), so goavro can check kwire's reading.
const fuzzAvsc = `{"type":"record","name":"F","fields":[
 {"name":"i","type":"int"},{"name":"l","type":"long"},{"name":"s","type":"string"},
 {"name":"b","type":"boolean"},{"name":"f","type":"float"},{"name":"d","type":"double"},
 {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
 {"name":"a","type":{"type":"array","items":["null","long","string"]}},
 {"name":"m","type":{"type":"map","values":{"type":"array","items":"int"}}},
 {"name":"n","type":["null","F"]}]}`

// FuzzAvro decodes arbitrary data with a schema of every kind of type:
// no panic, both paths alike, spans inside the payload, and whatever
// kwire reads, goavro reads the same from the same bytes.
func FuzzAvro(f *testing.F) {
	codec, err := goavro.NewCodec(fuzzAvsc)
	if err != nil {
		f.Fatal(err)
	}
	for _, js := range []string{
		`{"i":1,"l":-2,"s":"x","b":true,"f":1.5,"d":-0.25,"e":"C","a":[null,{"long":3},{"string":"y"}],"m":{"k":[1,2]},"n":null}`,
		`{"i":0,"l":0,"s":"","b":false,"f":0,"d":0,"e":"A","a":[],"m":{},"n":{"F":{"i":1,"l":2,"s":"z","b":false,"f":0,"d":0,"e":"B","a":[],"m":{},"n":null}}}`,
	} {
		native, _, err := codec.NativeFromTextual([]byte(js))
		if err != nil {
			f.Fatal(err)
		}
		b, _ := codec.BinaryFromNative(nil, native)
		f.Add(b)
	}
	f.Add([]byte{2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Text: fuzzAvsc}}}, Config{MaxDepth: 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := framed(1, data)
		r := decodeBoth(t, d, p, false, "t", fuzzBudget())
		cutBoth(t, d, p, "t", r)
		dec, ok := membersOf(t, r.json)["decoded"]
		if !ok || len(r.warnings) > 0 {
			return // (goavro refuses a map with a key twice; kwire warns)
		}
		// kwire read it all: goavro must read the same value.
		want, rest, err := codec.NativeFromBinary(data)
		if err != nil || len(rest) > 0 {
			t.Fatalf("kwire read %s; goavro: %v, %d bytes left", dec, err, len(rest))
		}
		if bytes.Contains(dec, []byte(`"NaN"`)) || bytes.Contains(dec, []byte(`Infinity"`)) {
			return // JSON has no NaN; kwire writes it as protojson does, goavro not at all
		}
		got, _, err := codec.NativeFromTextual(dec)
		if err != nil {
			t.Fatalf("goavro cannot read kwire's %s: %v", dec, err)
		}
		g, _ := json.Marshal(normal(got))
		w, _ := json.Marshal(normal(want))
		if !bytes.Equal(g, w) {
			t.Fatalf("kwire read %s, goavro %s", g, w)
		}
	})
}

// normal makes goavro's values comparable: NaN equal to NaN, an empty
// array however it was made.
func normal(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normal(e)
		}
	case []any:
		if x == nil {
			return []any{}
		}
		for i, e := range x {
			x[i] = normal(e)
		}
	case float32:
		if x != x {
			return "NaN"
		}
	case float64:
		if x != x {
			return "NaN"
		}
	}
	return v
}

// FuzzProtobuf decodes arbitrary data, framed with arbitrary message
// indexes or none: no panic, both paths alike, spans inside the payload.
func FuzzProtobuf(f *testing.F) {
	f.Add([]byte{0, 8, 42, 0x12, 3, 10, 1, 'A'})
	f.Add([]byte{2, 2, 8, 42, 0x12, 2, 'o', 'k'})
	f.Add([]byte{4, 0, 0, 10, 1, 'A'})
	f.Add([]byte{8, 42})
	f.Add([]byte{0, 0x0b, 0x0c})
	src := mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: `syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
import "google/protobuf/any.proto";
message Order {
  int64 id = 1;
  Item item = 2;
  repeated sint32 qty = 3;
  map<string, Item> items = 4;
  google.protobuf.Timestamp at = 5;
  google.protobuf.Any extra = 6;
  oneof c { string email = 7; double score = 8; }
  repeated fixed64 f = 9;
  E e = 10;
  enum E { Z = 0; O = 1; }
  message Item { string sku = 1; Order back = 2; }
}
message Refund { int64 order_id = 1; string reason = 2; }
`}}}
	d := NewDecoder(src, Config{MaxDepth: 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := framed(3, data)
		cutBoth(t, d, p, "t", decodeBoth(t, d, p, false, "t", fuzzBudget()))
	})
}

// FuzzJSON checks the JSON scanner against encoding/json: the same texts
// are JSON, and what kwire writes for them is json.Compact's text; and
// JSON Schema payloads decode alike on both paths.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"x\u00e9\n",true,null],"b":{}}`, ` [ ] `, `{"a":01}`, `"\ud83d\ude00"`, `[1,]`, `{"a":1}x`, "{\"\xff\":1}"} {
		f.Add([]byte(s))
	}
	d := NewDecoder(mapSource{ids: map[int]*Schema{4: {Type: TypeJSON, Text: `{"type":"object","properties":{"a":{"type":"array"}}}`}}}, Config{Validate: true, MaxDepth: 32})
	f.Fuzz(func(t *testing.T, data []byte) {
		// encoding/json takes invalid UTF-8 inside strings; RFC 8259
		// does not, nor does kwire (such bytes are not text).
		if validJSON(data, 1000) != json.Valid(data) && utf8.Valid(data) {
			t.Fatalf("kwire says JSON: %v, encoding/json: %v", validJSON(data, 1000), json.Valid(data))
		}
		p := framed(4, data)
		cutBoth(t, d, p, "t", decodeBoth(t, d, p, false, "t", fuzzBudget()))
		r := decodeBoth(t, d, data, false, "t", fuzzBudget())
		cutBoth(t, d, data, "t", r)
		if _, framed := readFraming(data); framed {
			return
		}
		if dec, ok := membersOf(t, r.json)["decoded"]; ok {
			var want bytes.Buffer
			json.Compact(&want, data)
			if !bytes.Equal(dec, want.Bytes()) {
				t.Fatalf("kwire wrote %s, json.Compact %s", dec, want.Bytes())
			}
		}
	})
}

// FuzzJSONSchema validates data against arbitrary schemas with a
// reference: whatever the schema, the validator neither panics nor
// recurses without end (a loop of $refs would overflow the stack), and
// the data is shown.
func FuzzJSONSchema(f *testing.F) {
	for _, c := range [][2]string{
		{`{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},"ship":{"$ref":"address.json"}}}`, `{"id":1,"ship":{"street":"x"}}`},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, `1`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"$id":"#n","type":"number"}},"items":{"$ref":"#n"},"dependencies":{"a":{"$ref":"#"}}}`, `[1,2]`},
		{`{"$id":"https://acme.example/o.json","$dynamicAnchor":"n","$defs":{"d":{"$dynamicRef":"#n"}},"properties":{"k":{"$ref":"#/$defs/d"}},"if":{"$ref":"address.json#/properties/street"},"then":true}`, `{"k":{"k":{}}}`},
		{`{"$anchor":"x","prefixItems":[{"$ref":"#x"}],"not":{"$ref":"https://acme.example/address.json"}}`, `[[[]]]`},
	} {
		f.Add(c[0], []byte(c[1]))
	}
	address := &Schema{Type: TypeJSON, Text: `{"type":"object","properties":{"street":{"type":"string"},"next":{"$ref":"address.json"}}}`}
	f.Fuzz(func(t *testing.T, schema string, data []byte) {
		src := mapSource{ids: map[int]*Schema{1: {Type: TypeJSON, Text: schema, References: []Reference{
			{Name: "address.json", Schema: address}, {Name: "https://acme.example/address.json", Schema: address}}}}}
		d := NewDecoder(src, Config{Validate: true, MaxDepth: 16})
		p := framed(1, data)
		r := decodeBoth(t, d, p, false, "t", fuzzBudget())
		cutBoth(t, d, p, "t", r)
		if json.Valid([]byte(schema)) && validJSON(data, 16) && len(data) > 0 {
			if _, ok := membersOf(t, r.json)["decoded"]; !ok {
				t.Fatalf("JSON data not shown: %s %v", r.json, r.warnings)
			}
		}
	})
}
