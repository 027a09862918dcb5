package payload

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/linkedin/goavro/v2"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/internal/budget"
)

const refundProto = `syntax = "proto3";
package shop;
message Order {
  int64 id = 1;
  Item item = 2;
  message Item { string sku = 1; }
}
message Refund { int64 order_id = 1; string reason = 2; }
`

func protoSource() mapSource {
	return mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: refundProto}}}
}

// members reads the JSON members Decode wrote.
func membersOf(t *testing.T, js string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte("{"+strings.TrimPrefix(js, ",")+"}"), &m); err != nil {
		t.Fatalf("members %s: %v", js, err)
	}
	return m
}

func oneWarning(t *testing.T, r result, off int, has string) {
	t.Helper()
	if len(r.warnings) != 1 || r.warnings[0].Offset != off || !strings.Contains(r.warnings[0].Message, has) {
		t.Fatalf("warnings %+v, want one at byte %d saying %q", r.warnings, off, has)
	}
}

func TestTextAndJSON(t *testing.T) {
	d := NewDecoder(nil, Config{})
	for _, c := range []struct {
		in, json string
	}{
		{"mixed-gzip-key-0", ""},
		{"42", ""},
		{`{"a": [1, 2.5e3, "x\u00e9", true, null], "b": {}}`, `,"format":"json","decoded":{"a":[1,2.5e3,"x\u00e9",true,null],"b":{}}`},
		{" [ ] ", `,"format":"json","decoded":[]`},
		{`{"a":1`, ""},
		{`{"a":1} x`, ""},
		{`{"a":01}`, ""},
		{"{\"a\":\"\x01\"}", ""},
	} {
		r := decodeBoth(t, d, []byte(c.in), false, "t", bigBudget())
		if r.json != c.json || len(r.warnings) > 0 {
			t.Errorf("%q: %s %v, want %s", c.in, r.json, r.warnings, c.json)
		}
	}
	r := decodeBoth(t, d, []byte(`{"amount": 12, "items": [{"sku": "A"}]}`), false, "t", bigBudget())
	root := r.nodes[0]
	amount := root.Get("amount")
	// Members tile their object: the key before a value is its prefix.
	if root.Name != "json" || amount == nil || amount.Int != 12 || amount.Start != 1 || amount.PrefixEnd != 11 || amount.End != 13 {
		t.Fatalf("nodes: %+v", root)
	}
	sku := root.Get("items").Children[0].Get("sku")
	if sku == nil || string(sku.Raw) != "A" || sku.Start != 26 || sku.PrefixEnd != 33 || sku.End != 36 {
		t.Fatalf("items[0].sku: %+v", sku)
	}
}

func TestFramingWithoutSchemas(t *testing.T) {
	d := NewDecoder(nil, Config{})
	r := decodeBoth(t, d, framed(7, []byte{2, 'h', 'i'}), false, "t", bigBudget())
	if r.json != `,"schemaId":7` || len(r.warnings) > 0 {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	if len(r.nodes) != 3 || r.nodes[1].Int != 7 || r.nodes[1].Start != 1 || r.nodes[1].End != 5 || r.nodes[2].Start != 5 {
		t.Fatalf("nodes %v", r.nodes)
	}
	// Id 0 is no registry's: bytes that start with five zeros are bytes.
	if r := decodeBoth(t, d, make([]byte, 8), false, "t", bigBudget()); r.json != "" {
		t.Fatalf("zeros read as %s", r.json)
	}
}

func TestBadPayloads(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{
		1: {Text: `{"type":"record","name":"R","fields":[{"name":"s","type":"string"},{"name":"n","type":"long"}]}`},
		2: {Text: `{"type":"record","name":"R","fields":[{"name":"s","type":"strin"}]}`},
		3: {Type: TypeProtobuf, Text: refundProto},
		4: {Type: TypeJSON, Text: `{"type":"object","required":["id"]}`},
		5: {Type: "XML", Text: `<a/>`},
	}}
	d := NewDecoder(src, Config{Validate: true})
	for _, c := range []struct {
		name string
		p    []byte
		off  int
		has  string
	}{
		{"no such schema", framed(9, []byte{0}), 1, "schema 9 not read"},
		{"schema does not parse", framed(2, []byte{0}), 1, "the AVRO schema does not parse"},
		{"unknown schema type", framed(5, []byte{0}), 1, `"XML" is not AVRO`},
		{"avro cut short", framed(1, []byte{6, 'a', 'b'}), 5, "avro: string length 3 does not fit the 2 bytes left"},
		{"avro varint cut", framed(1, []byte{2, 'a', 0x80}), 7, "ends inside a varint"},
		{"avro bytes after", framed(1, []byte{2, 'a', 2, 9}), 8, "1 byte after the value"},
		{"avro bad utf-8", framed(1, []byte{2, 0xff, 2}), 6, "not valid UTF-8"},
		{"protobuf bad index", framed(3, []byte{2, 10, 8, 1}), 5, "name no message"},
		{"protobuf cut", framed(3, []byte{0, 0x12, 5, 'a'}), 7, "length 5 does not fit"},
		{"jsonschema not json", framed(4, []byte(`{"id":`)), 11, "the data is not JSON"},
		// Cut short after a comma or a key, it says so: "expected a
		// member name" read as malformed.
		{"jsonschema cut after a comma", framed(4, []byte(`{"n":1,`)), 12, "the data is not JSON: the text ends inside an object or array"},
		{"jsonschema cut after a key", framed(4, []byte(`{"n"`)), 9, "the data is not JSON: the text ends inside an object or array"},
		{"jsonschema invalid", framed(4, []byte(`{"x":1}`)), 5, "does not match the schema"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := decodeBoth(t, d, c.p, false, "t", bigBudget())
			oneWarning(t, r, c.off, c.has)
			m := membersOf(t, r.json)
			if string(m["schemaId"]) == "" {
				t.Fatalf("no schemaId in %s", r.json)
			}
			if _, ok := m["decoded"]; ok != (c.name == "jsonschema invalid") {
				t.Fatalf("decoded in %s", r.json)
			}
			last := r.nodes[len(r.nodes)-1]
			if last.End != len(c.p) {
				t.Fatalf("the nodes end at %d of %d bytes", last.End, len(c.p))
			}
		})
	}
}

// TestProtobufIndexes reads the message-index list as Confluent's
// serializers write it (zig-zag varints; [0] as one zero byte) and as
// @kafkajs/confluent-schema-registry 4.1 does not (no list at all).
func TestProtobufIndexes(t *testing.T) {
	d := NewDecoder(protoSource(), Config{})
	for _, c := range []struct {
		name     string
		p        []byte
		indexes  string
		message  string
		decoded  string
		warnings int
	}{
		{"first", framed(3, []byte{0, 8, 42}), "[0]", "shop.Order", `{"id":"42"}`, 0},
		{"second", framed(3, []byte{2, 2, 8, 42}), "[1]", "shop.Refund", `{"orderId":"42"}`, 0},
		{"nested", framed(3, []byte{4, 0, 0, 10, 1, 'A'}), "[0,0]", "shop.Order.Item", `{"sku":"A"}`, 0},
		{"index-less", framed(3, []byte{8, 42, 0x12, 3, 0x0a, 1, 'A'}), "", "shop.Order", `{"id":"42","item":{"sku":"A"}}`, 1},
		// confluent-kafka-python 1.7's unsigned [1]: the count 01 reads
		// as zig-zag -1.
		{"unsigned odd count", framed(3, []byte{1, 1, 8, 42}), "[1]", "shop.Refund", `{"orderId":"42"}`, 1},
		{"unsigned nested", framed(3, []byte{2, 0, 0, 10, 1, 'A'}), "[0,0]", "shop.Order.Item", `{"sku":"A"}`, 1},
		{"empty", framed(3), "", "shop.Order", `{}`, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := decodeBoth(t, d, c.p, false, "t", bigBudget())
			m := membersOf(t, r.json)
			if string(m["messageIndexes"]) != c.indexes || string(m["message"]) != `"`+c.message+`"` || string(m["decoded"]) != c.decoded || len(r.warnings) != c.warnings {
				t.Fatalf("%s %v", r.json, r.warnings)
			}
		})
	}
}

func TestUnframedTopicSchema(t *testing.T) {
	avsc := `{"type":"record","name":"K","fields":[{"name":"id","type":"int"}]}`
	d := NewDecoder(mapSource{subs: map[string]*Schema{"orders-key": {Text: avsc}}}, Config{})
	r := decodeBoth(t, d, []byte{0x54}, true, "orders", bigBudget())
	if r.json != `,"format":"avro","decoded":{"id":42}` {
		t.Fatalf("%s", r.json)
	}
	if r := decodeBoth(t, d, []byte{0x54}, false, "orders", bigBudget()); r.json != "" {
		t.Fatalf("values read as keys: %s", r.json)
	}
}

// TestUnframedTopicSchemaZeroFirst: data of a topic with a schema for
// its unframed data that starts with a zero byte (Avro's int 0, false,
// an empty string, a union's first branch) looks like the registry's
// framing; it is read as the topic's data unless its "schema id" is found.
func TestUnframedTopicSchemaZeroFirst(t *testing.T) {
	avsc := `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},{"name":"c","type":"long"}]}`
	data := []byte("\x00\x0aHello\x02") // a=0, b="Hello", c=1
	src := mapSource{subs: map[string]*Schema{"rawint-value": {Text: avsc}}, ids: map[int]*Schema{}}
	r := decodeBoth(t, NewDecoder(src, Config{}), data, false, "rawint", bigBudget())
	if r.json != `,"format":"avro","decoded":{"a":0,"b":"Hello","c":1}` || len(r.warnings) > 0 {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	// Without the topic's schema it is the framing, as before.
	r = decodeBoth(t, NewDecoder(mapSource{}, Config{}), data, false, "rawint", bigBudget())
	if !strings.HasPrefix(r.json, `,"schemaId":172516716`) {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	// A schema id that is found makes it framed: a topic may carry both.
	src.ids[5] = &Schema{Text: `"string"`}
	r = decodeBoth(t, NewDecoder(src, Config{}), framed(5, []byte("\x04hi")), false, "rawint", bigBudget())
	if r.json != `,"schemaId":5,"format":"avro","decoded":"hi"` || len(r.warnings) > 0 {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	// The topic's data whose first five bytes name a schema id that is
	// found, and which that schema does not read, is the topic's data:
	// a=0, b="", c=0, d=0, e=3 read as "framing, id 6", then 6's long
	// leaves "hi". It was read as framed, its value lost, with a warning
	// that blamed a field of the wrong schema.
	src.subs["collide-value"] = &Schema{Text: `{"type":"record","name":"C","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"},` +
		`{"name":"c","type":"int"},{"name":"d","type":"int"},{"name":"e","type":"long"},{"name":"f","type":"string"}]}`}
	src.ids[6] = &Schema{Text: `"long"`}
	r = decodeBoth(t, NewDecoder(src, Config{}), []byte("\x00\x00\x00\x00\x06\x04hi"), false, "collide", bigBudget())
	if r.json != `,"format":"avro","decoded":{"a":0,"b":"","c":0,"d":0,"e":3,"f":"hi"}` || len(r.warnings) > 0 {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	// When both read it whole, the framing wins, as before.
	r = decodeBoth(t, NewDecoder(src, Config{}), framed(6, []byte{0}), false, "collide", bigBudget())
	if r.json != `,"schemaId":6,"format":"avro","decoded":0` || len(r.warnings) > 0 {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	// Framed data whose schema id is not found, which does not read as
	// the topic's data (bytes left after the record), stays framed, with
	// the warning that says its schema is missing.
	r = decodeBoth(t, NewDecoder(src, Config{}), framed(7, []byte("\x06\x04hi\x02\x02")), false, "rawint", bigBudget())
	if r.json != `,"schemaId":7` || len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, "schema 7 not read") {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	// Keys have their own schema: values' does not apply.
	r = decodeBoth(t, NewDecoder(src, Config{}), data, true, "rawint", bigBudget())
	if !strings.HasPrefix(r.json, `,"schemaId":172516716`) {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
}

// TestLimits: a payload that needs more nodes, depth or work than is
// left stops with a limit warning (and no "decoded"); both paths alike.
func TestLimits(t *testing.T) {
	list := `{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}`
	nulls := `{"type":"array","items":"null"}`
	src := mapSource{ids: map[int]*Schema{1: {Text: list}, 2: {Text: nulls}, 3: {Text: orderAvsc}}}
	d := NewDecoder(src, Config{MaxDepth: 8})
	deep := framed(1)
	for i := 0; i < 20; i++ {
		deep = append(deep, 2)
	}
	deep = append(deep, 0)
	r := decodeBoth(t, d, deep, false, "t", bigBudget())
	if len(r.warnings) != 1 || !r.warnings[0].Limit || !strings.Contains(r.warnings[0].Message, "MaxDepth") {
		t.Fatalf("deep: %v", r.warnings)
	}
	// 2^62 nulls declared in three bytes: each costs a node and work.
	huge := framed(2, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0})
	b := bigBudget()
	b.NestedNodes = 1000
	r = decodeBoth(t, d, huge, false, "t", b)
	if len(r.warnings) != 1 || !r.warnings[0].Limit || r.spent.Nodes > 1000+1 { // the undecoded rest's node, within the slack
		t.Fatalf("huge: %v, %d nodes", r.warnings, r.spent.Nodes)
	}
	if _, ok := membersOf(t, r.json)["decoded"]; ok {
		t.Fatalf("decoded after a limit: %s", r.json)
	}
	b = bigBudget()
	b.MaxWork = 5000
	r = decodeBoth(t, d, huge, false, "t", b)
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, "MaxWork") || r.spent.Work > 5000 {
		t.Fatalf("huge, work: %v, %d work", r.warnings, r.spent.Work)
	}
}

// TestAvroRoundTripGoavro: goavro encodes a value, kwire reads it, and
// goavro reads kwire's JSON back to the same value (goavro reads Avro
// JSON's bytes as UTF-8, not code points, so they are ASCII here).
func TestAvroRoundTripGoavro(t *testing.T) {
	codec, err := goavro.NewCodec(orderAvsc)
	if err != nil {
		t.Fatal(err)
	}
	native, _, err := codec.NativeFromTextual([]byte(`{"id":-42,"customer":"ana é","amount":"\u0004A","status":"SHIPPED","tags":["a","b"],"attrs":{"x":1,"y":-2},"note":{"string":"hi"},"hash":"abcd","at":1714564800000,"ok":false,"ratio":3.25,"score":-2.5e300}`))
	if err != nil {
		t.Fatal(err)
	}
	data, err := codec.BinaryFromNative(nil, native)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(mapSource{ids: map[int]*Schema{7: {Text: orderAvsc}}}, Config{})
	r := decodeBoth(t, d, framed(7, data), false, "orders", bigBudget())
	m := membersOf(t, r.json)
	native2, _, err := codec.NativeFromTextual(m["decoded"])
	if err != nil {
		t.Fatal(err)
	}
	// goavro writes a map's entries in Go's map order, so the values are
	// compared, not the bytes.
	if !reflect.DeepEqual(native, native2) {
		t.Fatalf("round trip: %v, want %v", native2, native)
	}
	// The tree: the amount field's bytes and its decimal reading.
	root := r.nodes[2]
	if !strings.Contains(root.Get("at").Type, "2024-05-01T12:00:00.000Z") {
		t.Fatalf("at: %s", root.Get("at").Type)
	}
	if c := root.Get("amount"); c == nil || !strings.Contains(c.Type, "= 10.89") {
		t.Fatalf("amount: %+v", c)
	}
	// Every byte of the data belongs to a field.
	if root.Start != 5 || root.End != len(data)+5 || root.Children[0].Start != 5 || root.Children[len(root.Children)-1].End != len(data)+5 {
		t.Fatalf("root [%d,%d) children [%d,%d)", root.Start, root.End, root.Children[0].Start, root.Children[len(root.Children)-1].End)
	}
}

// TestFuzzRegressions are the fuzzers' finds, by what they broke.
func TestFuzzRegressions(t *testing.T) {
	avroSrc := mapSource{ids: map[int]*Schema{1: {Text: fuzzAvsc}, 3: {Type: TypeProtobuf, Text: refundProto}}}
	d := NewDecoder(avroSrc, Config{MaxDepth: 16})
	for _, c := range []struct {
		name string
		p    []byte
		warn string
	}{
		// A union's null branch ended before its branch index.
		{"avro union null span", framed(1, []byte{2, 2, 2, '0', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0}), ""},
		// A map with a key twice: goavro refuses it; kwire says so.
		{"avro map key twice", framed(1, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 2, 'k', 0, 2, 'k', 0, 0, 0}), "appears more than once"},
		// An unknown wire type: its node and the undecoded rest overlapped.
		{"protobuf wire type 7", framed(3, []byte{2, 2, '7'}), "unknown wire type 7"},
		// A message-index count of 0 in two bytes: its elements were read.
		{"protobuf non-minimal count", framed(3, []byte{0x80, 0}), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := decodeBoth(t, d, c.p, false, "t", bigBudget())
			if c.warn == "" && len(r.warnings) > 0 || c.warn != "" && (len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, c.warn)) {
				t.Fatalf("warnings %v, want %q", r.warnings, c.warn)
			}
		})
	}
}

// The JSON path writes a JSON payload compacted in one pass and charges
// its nodes at once (jsonCompact); wherever a limit cuts the value short
// it walks it as the tree does. Either way both paths agree at every
// budget and depth: the same JSON, warnings and budget spent.
func TestJSONPayloadAtEveryBudgetAndDepth(t *testing.T) {
	p := []byte(` { "order" : 7, "lines":[ {"sku":"a\"b\\","qty":2}, [], {}, [1, [2, [3]]] ], "note":"x,y{z}[" , "ok":true,"none":null } `)
	whole := `"decoded":{"order":7,"lines":[{"sku":"a\"b\\","qty":2},[],{},[1,[2,[3]]]],"note":"x,y{z}[","ok":true,"none":null}`
	cut := 0
	for depth := 1; depth <= 7; depth++ {
		d := NewDecoder(nil, Config{MaxDepth: depth})
		for nodes := 0; nodes <= 40; nodes++ {
			b := budget.Budget{MaxNodes: 1 << 10, NestedNodes: nodes, MaxWork: 1 << 16}
			r := decodeBoth(t, d, p, false, "t", b)
			switch {
			case depth >= 5 && nodes >= 23: // it nests 5 deep and takes 23 nodes
				require.Contains(t, r.json, whole)
				require.Empty(t, r.warnings)
			case depth >= 5 && nodes > 0:
				require.NotContains(t, r.json, whole)
				require.Contains(t, r.warnings[0].Message, "the MaxNodes limit")
				cut++
			}
		}
	}
	require.Positive(t, cut, "limits met inside the value")
}

// TestJSONStringByteAtEveryPlace puts each kind of byte a string may or
// may not hold as it is (a control byte, the quote, the backslash of an
// escape, DEL, a lone continuation byte, a two-byte rune) at every place
// of strings of 0 to 24 bytes: the scanner, which reads plain bytes 8 at
// a time, agrees with encoding/json on each (and, as RFC 8259 asks, takes
// no invalid UTF-8, which encoding/json lets through), and the compacted
// text of each valid one is the text itself.
func TestJSONStringByteAtEveryPlace(t *testing.T) {
	for _, ins := range []string{"\x01", "\x1f", `"`, `\n`, `\u00e9`, `\x`, "\x7f", "\x80", "\xc3\xa9", "\xc3"} {
		for n := 0; n <= 24; n++ {
			for at := 0; at <= n; at++ {
				text := strings.Repeat("a", at) + ins + strings.Repeat("b", n-at)
				doc := []byte(`{"k":"` + text + `","n":1}`)
				want := json.Valid(doc) && utf8.Valid(doc)
				require.Equal(t, want, validJSON(doc, 8), "%q", doc)
				b := budget.Budget{MaxNodes: 100, NestedNodes: 100}
				out, ok := checkCompact(nil, doc, 8, 8, &b)
				require.Equal(t, want, ok, "%q", doc)
				if ok {
					require.Equal(t, string(doc), string(out))
				}
			}
		}
	}
}

// TestJSONPastMaxDepthSaysTheLimit: JSON that nests deeper than MaxDepth
// is shown as text, as before, but a limit warning says why it was not
// decoded (it counts for --strict), at the byte where it passes the
// limit; with a JSON Schema too, where it is a limit, not "not JSON".
// Text that shows it is not JSON before that depth is quietly text.
func TestJSONPastMaxDepthSaysTheLimit(t *testing.T) {
	deep := strings.Repeat("[", 40) + strings.Repeat("]", 40)
	src := mapSource{ids: map[int]*Schema{4: {Type: TypeJSON, Text: `{}`}}}
	for _, c := range []struct {
		name string
		d    *Decoder
		p    []byte
		off  int
	}{
		{"plain", NewDecoder(nil, Config{}), []byte(deep), 32},
		{"plain with a source", NewDecoder(src, Config{}), []byte(" " + deep), 33},
		{"json schema", NewDecoder(src, Config{Validate: true}), framed(4, []byte(deep)), 5 + 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := decodeBoth(t, c.d, c.p, false, "t", bigBudget())
			oneWarning(t, r, c.off, "payload not decoded as JSON: values nest deeper than the MaxDepth limit (32)")
			if !r.warnings[0].Limit {
				t.Fatalf("not a limit: %+v", r.warnings[0])
			}
			if _, ok := membersOf(t, r.json)["decoded"]; ok {
				t.Fatalf("decoded: %s", r.json)
			}
		})
	}
	for _, text := range []string{"[INFO] started", strings.Repeat("[", 10) + "x" + strings.Repeat("[", 40)} {
		r := decodeBoth(t, NewDecoder(nil, Config{}), []byte(text), false, "t", bigBudget())
		if len(r.warnings) > 0 || r.json != "" {
			t.Fatalf("%q: %s %v", text, r.json, r.warnings)
		}
	}
}

// TestLimitInNestedArraySaysWhere: a MaxNodes limit met inside an Avro
// array of arrays was said at byte 0 (the offset a JSON or Protobuf walk
// had left, none here), not at the item where decoding stopped.
func TestLimitInNestedArraySaysWhere(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{4: {Text: `{"type":"array","items":{"type":"array","items":"null"}}`}}}
	// one outer item: an inner array declaring 2^62 nulls (zero bytes each)
	p := framed(4, []byte{0x02, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0})
	b := bigBudget()
	b.NestedNodes = 1000
	r := decodeBoth(t, NewDecoder(src, Config{}), p, false, "t", b)
	if len(r.warnings) != 1 || !r.warnings[0].Limit || r.warnings[0].Offset != 15 {
		t.Fatalf("want the limit at byte 15, past the inner count: %v", r.warnings)
	}
}

// TestTopicSchemaNewerThanTheData: data written with a topic's schema v1
// and read with the file of v2, which adds a field, ran out of bytes with
// only "the payload ends inside a varint"; read through the topic's
// schema file (the writer's schema unknown), the warning says what may be
// the cause.
func TestTopicSchemaNewerThanTheData(t *testing.T) {
	v2 := `{"type":"record","name":"U","fields":[{"name":"id","type":"int"},{"name":"email","type":["null","string"],"default":null}]}`
	src := mapSource{subs: map[string]*Schema{"users-value": {Text: v2}}}
	r := decodeBoth(t, NewDecoder(src, Config{}), []byte{0x54}, false, "users", bigBudget()) // id 42, v1's only field
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, "the payload ends inside a varint (the topic's schema file reads on past the data: a newer schema than the one the data was written with?)") {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
	// Framed, the schema named is the writer's: no such guess.
	src.ids = map[int]*Schema{3: {Text: v2}}
	r = decodeBoth(t, NewDecoder(src, Config{}), framed(3, []byte{0x54}), false, "t", bigBudget())
	if len(r.warnings) != 1 || strings.Contains(r.warnings[0].Message, "newer schema") {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
}
