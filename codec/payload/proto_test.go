package payload

import (
	"encoding/base64"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// TestProtobufImports compiles schemas with imports as the registry gives
// them: other schemas by name (imports of imports too, and one held as a
// base64 FileDescriptorProto, as confluent-kafka-python registers it),
// the well-known types (always the built-in ones), custom options on
// descriptor.proto, and editions; an import cycle or a missing file is
// said, not compiled.
func TestProtobufImports(t *testing.T) {
	money := &Schema{Type: TypeProtobuf, Text: `syntax = "proto3"; package acme; import "acme/unit.proto"; message Money { int64 units = 1; acme.Unit unit = 2; }`}
	unit := &Schema{Type: TypeProtobuf, Text: `syntax = "proto3"; package acme; enum Unit { EUR = 0; USD = 1; }`}
	money.References = []Reference{{Name: "acme/unit.proto", Schema: unit}}
	// No JSON names, as Python writes its descriptors.
	desc, err := proto.Marshal(&descriptorpb.FileDescriptorProto{
		Name: proto.String("py.proto"), Package: proto.String("py"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Tag"), Field: []*descriptorpb.FieldDescriptorProto{{
			Name: proto.String("tag_name"), Number: proto.Int32(1), Type: descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	py := &Schema{Type: TypeProtobuf, Text: base64.StdEncoding.EncodeToString(desc)}
	loopA := &Schema{Type: TypeProtobuf, Text: `syntax = "proto3"; import "b.proto"; message A {}`}
	loopB := &Schema{Type: TypeProtobuf, Text: `syntax = "proto3"; import "a.proto"; message B {}`}
	loopA.References = []Reference{{Name: "b.proto", Schema: loopB}}
	loopB.References = []Reference{{Name: "a.proto", Schema: loopA}}
	src := mapSource{ids: map[int]*Schema{
		1: {Type: TypeProtobuf, Text: `syntax = "proto3";
import "acme/money.proto";
import "py.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/descriptor.proto";
extend google.protobuf.FieldOptions { string pii = 50000; }
message Order {
  acme.Money total = 1;
  google.protobuf.Timestamp at = 2;
  google.protobuf.StringValue note = 3 [(pii) = "yes"];
  py.Tag tag = 4;
}`, References: []Reference{{Name: "acme/money.proto", Schema: money}, {Name: "py.proto", Schema: py}}},
		2: {Type: TypeProtobuf, Text: `edition = "2023";
package ed;
message E { int32 n = 1; repeated int32 r = 2 [features.repeated_field_encoding = EXPANDED]; }`},
		3: {Type: TypeProtobuf, Text: `syntax = "proto3"; import "a.proto"; message M {}`, References: []Reference{{Name: "a.proto", Schema: loopA}}},
		4: {Type: TypeProtobuf, Text: `syntax = "proto3"; import "nowhere.proto"; message M {}`},
		5: {Type: TypeProtobuf, Text: `syntax = "proto3"; import "google/protobuf/nothing.proto"; message M {}`},
		6: {Type: TypeProtobuf, Text: `syntax = "proto3"; message M { int32 n = 1 [(nope) = 1]; }`},
	}}
	d := NewDecoder(src, Config{})
	// Order{total: {units: 5, unit: USD}, at: 1s, note: "hi", tag: {tag_name: "x"}}
	order := []byte{0, 0x0a, 4, 8, 5, 16, 1, 0x12, 2, 8, 1, 0x1a, 4, 0x0a, 2, 'h', 'i', 0x22, 3, 0x0a, 1, 'x'}
	for _, c := range []struct {
		name    string
		p       []byte
		decoded string
		warning string
	}{
		{"imports", framed(1, order), `{"total":{"units":"5","unit":"USD"},"at":"1970-01-01T00:00:01Z","note":"hi","tag":{"tagName":"x"}}`, ""},
		{"editions", framed(2, []byte{0, 8, 7, 16, 1, 16, 2}), `{"n":7,"r":[1,2]}`, ""},
		{"cycle", framed(3, []byte{0}), "", `b.proto:1:27: cycle found in imports: "a.proto" -> "b.proto" -> "a.proto"`},
		{"missing", framed(4, []byte{0}), "", `kwire-schema.proto:1:27: could not resolve path "nowhere.proto": file does not exist`},
		{"missing well-known", framed(5, []byte{0}), "", `kwire-schema.proto:1:27: could not resolve path "google/protobuf/nothing.proto": file does not exist`},
		{"unknown option", framed(6, []byte{0}), "", "unknown extension nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := decodeBoth(t, d, c.p, false, "t", bigBudget())
			m := membersOf(t, r.json)
			if c.warning != "" {
				oneWarning(t, r, 1, c.warning)
				return
			}
			if string(m["decoded"]) != c.decoded || len(r.warnings) > 0 {
				t.Fatalf("%s %v", r.json, r.warnings)
			}
		})
	}
}

// TestProtobufPackedValues reads packed repeated scalars into element
// nodes with the values protojson gives them, as an unpacked field of the
// same kind gets: a negative sfixed32 is negative (not its 32 bits read
// unsigned), a bool is 0 or 1, a float its IEEE value.
func TestProtobufPackedValues(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{1: {Type: TypeProtobuf,
		Text: `syntax = "proto3"; message P { repeated sfixed32 s = 1; repeated bool b = 2; repeated float f = 3; sfixed32 one = 4; }`}}}
	d := NewDecoder(src, Config{})
	msg := []byte{0,
		0x0a, 4, 0xff, 0xff, 0xff, 0xff, // s: [-1]
		0x12, 1, 2, // b: [true], written as 2
		0x1a, 4, 0, 0, 0xc0, 0x3f, // f: [1.5]
		0x25, 0xfe, 0xff, 0xff, 0xff, // one: -2
	}
	r := decodeBoth(t, d, framed(1, msg), false, "t", bigBudget())
	if got := string(membersOf(t, r.json)["decoded"]); got != `{"s":[-1],"b":[true],"f":[1.5],"one":-2}` {
		t.Fatalf("decoded %s", got)
	}
	want := map[string]func(n *tree.Node) bool{
		"s":   func(n *tree.Node) bool { return n.Kind == schema.Int64 && n.Int == -1 },
		"b":   func(n *tree.Node) bool { return n.Kind == schema.Bool && n.Int == 1 },
		"f":   func(n *tree.Node) bool { return n.Kind == schema.Float64 && n.Float == 1.5 },
		"one": func(n *tree.Node) bool { return n.Kind == schema.Int64 && n.Int == -2 },
	}
	seen := 0
	var walk func(ns []*tree.Node)
	walk = func(ns []*tree.Node) {
		for _, n := range ns {
			if ok, named := want[n.Name]; named && len(n.Children) == 0 {
				seen++
				if !ok(n) {
					t.Errorf("%s: kind %v, int %d, float %g", n.Name, n.Kind, n.Int, n.Float)
				}
			}
			walk(n.Children)
		}
	}
	walk(r.nodes)
	if seen != len(want) {
		t.Fatalf("found %d of the %d value nodes", seen, len(want))
	}
}

// TestProtobufUnsignedPast2To63: uint64 and fixed64 values past an
// int64's range, and unknown fields', are shown as their digits in the
// tree, as protojson writes them, not as negative numbers.
func TestProtobufUnsignedPast2To63(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{1: {Type: TypeProtobuf, Text: `syntax = "proto3"; message M { uint64 u = 1; fixed64 f = 2; int64 i = 3; sfixed64 s = 4; repeated uint64 p = 5; }`}}}
	d := NewDecoder(src, Config{})
	max8 := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	maxVarint := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	var data []byte
	data = append(append(data, 0x08), maxVarint...)           // u
	data = append(append(data, 0x11), max8...)                // f
	data = append(append(data, 0x18), maxVarint...)           // i: -1
	data = append(append(data, 0x21), max8...)                // s: -1
	data = append(append(data, 0x2a, 11, 0x05), maxVarint...) // p: [5, 2^64-1]
	data = append(append(data, 0x31), max8...)                // unknown field 6, fixed64
	data = append(append(data, 0x38), maxVarint...)           // unknown field 7, varint
	r := decodeBoth(t, d, framed(1, []byte{0}, data), false, "t", bigBudget())
	// The unknown fields are said (TestProtobufSchemaMismatchSaid).
	if len(r.warnings) != 2 || !strings.Contains(r.warnings[0].Message, "field 6 (wire type fixed64) is not in the schema's M") ||
		!strings.Contains(r.warnings[1].Message, "field 7 (wire type varint) is not in the schema's M") {
		t.Fatalf("warnings %+v", r.warnings)
	}
	const big = "18446744073709551615"
	if m := membersOf(t, r.json); string(m["decoded"]) != `{"u":"`+big+`","f":"`+big+`","i":"-1","s":"-1","p":["5","`+big+`"]}` {
		t.Fatalf("decoded %s", m["decoded"])
	}
	msg := r.nodes[len(r.nodes)-1]
	var got []string
	tree.Walk(msg, func(n *tree.Node) bool {
		switch n.Kind {
		case schema.String:
			got = append(got, n.Name+"="+string(n.Raw))
		case schema.Int64:
			got = append(got, n.Name+"="+strconv.FormatInt(n.Int, 10))
		}
		return true
	})
	want := "u=" + big + " f=" + big + " i=-1 s=-1 p=5 p=" + big + " 6=" + big + " 7=" + big
	if s := strings.Join(got, " "); s != want {
		t.Fatalf("nodes %s, want %s", s, want)
	}
}

// TestProtobufUnframedSeveralMessages: unframed data read through a
// topic's .proto file names no message, so the file's first is taken;
// when the file declares more than one, the user is told which was taken
// (and how to choose another). One message needs no word.
func TestProtobufUnframedSeveralMessages(t *testing.T) {
	data := []byte{0x08, 0x07} // field 1, varint 7
	for _, tc := range []struct {
		text string
		warn bool
	}{
		{`syntax = "proto3"; message A { int32 a = 1; } message B { string b = 1; }`, true},
		{`syntax = "proto3"; message A { int32 a = 1; }`, false},
	} {
		d := NewDecoder(mapSource{subs: map[string]*Schema{"orders-value": {Type: TypeProtobuf, Text: tc.text}}}, Config{})
		r := decodeBoth(t, d, data, false, "orders", bigBudget())
		if got := string(membersOf(t, r.json)["decoded"]); got != `{"a":7}` {
			t.Fatalf("%s: decoded %s", tc.text, got)
		}
		warned := false
		for _, w := range r.warnings {
			if strings.Contains(w.Message, "declares 2 messages") && strings.Contains(w.Message, "read as the first, A") {
				warned = true
			}
		}
		if warned != tc.warn {
			t.Errorf("%s: warned %v, want %v (warnings %+v)", tc.text, warned, tc.warn, r.warnings)
		}
	}
}

// TestProtobufSchemaMismatchSaid: the schema id names the writer's
// schema, so a field the schema lacks, or one written with a wire type
// its type never has, means the schema does not match the data: protojson
// drops such fields from "decoded" silently, so a warning names each
// (once per message and field), at its tag's byte, with the path of the
// message that holds it.
func TestProtobufSchemaMismatchSaid(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{
		1: {Type: TypeProtobuf, Text: `syntax = "proto3"; message Order { int64 id = 1; int32 card = 6; Item item = 7; repeated Item items = 8; } message Item { string sku = 1; }`},
	}}
	d := NewDecoder(src, Config{})
	data := []byte{
		0x08, 0x2a, // id 42
		0x32, 0x02, 'h', 'i', // field 6 as a string: card is an int32
		0x48, 0x01, // field 9: not in Order
		0x3a, 0x05, 0x0a, 0x01, 'A', 0x10, 0x03, // item {sku "A", field 2: not in Item}
		0x42, 0x02, 0x10, 0x04, // items[0] {field 2}: said once
		0x42, 0x02, 0x10, 0x05, // items[1] {field 2}
	}
	p := framed(1, []byte{0}, data)
	r := decodeBoth(t, d, p, false, "t", bigBudget())
	if m := membersOf(t, r.json); string(m["decoded"]) != `{"id":"42","item":{"sku":"A"},"items":[{},{}]}` {
		t.Fatalf("decoded %s", m["decoded"])
	}
	type want struct {
		off       int
		path, has string
	}
	wants := []want{
		{8, "value", "field 6 (wire type length-delimited) is card in the schema's Order, of type int32, which is never written as wire type length-delimited"},
		{12, "value", "field 9 (wire type varint) is not in the schema's Order"},
		{19, "value.decoded.item", "field 2 (wire type varint) is not in the schema's Item"},
	}
	if len(r.warnings) != len(wants) {
		t.Fatalf("warnings %+v", r.warnings)
	}
	for i, w := range wants {
		g := r.warnings[i]
		if g.Offset != w.off || g.Path != w.path || !strings.Contains(g.Message, w.has) || !strings.Contains(g.Message, "the schema does not match the data") {
			t.Errorf("warning %d: %+v, want at byte %d (%s) %q", i, g, w.off, w.path, w.has)
		}
	}
}

// TestProtobufIndexesSkipMapEntries: a map field's synthetic entry type
// (Order.AttrsEntry for attrs) is no message a producer writes as the
// record's type, and Confluent's Java serializer (from the .proto text)
// and protobufjs do not count it: [0,0] is Order.Address. Where counting
// it would name another message, a warning says which was read and what
// the other convention names.
func TestProtobufIndexesSkipMapEntries(t *testing.T) {
	const text = `syntax = "proto3"; package acme;
message Order {
  map<string, int32> attrs = 4;
  Address address = 8;
  message Address { string street = 1; int32 zip = 2; }
  map<string, string> labels = 9;
  message Note { string text = 1; }
}
message Card { string number = 1; int32 exp = 2; }`
	d := NewDecoder(mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: text}}}, Config{})
	for _, c := range []struct {
		name, indexes, message, decoded, other string
		p                                      []byte
	}{
		{"zig-zag [0,0]", "[0,0]", "acme.Order.Address", `{"street":"Nested","zip":7}`, "acme.Order.AttrsEntry",
			framed(3, []byte{4, 0, 0, 0x0a, 6, 'N', 'e', 's', 't', 'e', 'd', 0x10, 7})},
		{"zig-zag [0,1]", "[0,1]", "acme.Order.Note", `{"text":"x"}`, "acme.Order.Address",
			framed(3, []byte{4, 0, 2, 0x0a, 1, 'x'})},
		{"unsigned [0,0]", "[0,0]", "acme.Order.Address", `{"zip":7}`, "acme.Order.AttrsEntry",
			framed(3, []byte{2, 0, 0, 0x10, 7})},
		{"top level", "[1]", "acme.Card", `{"exp":7}`, "",
			framed(3, []byte{2, 2, 0x10, 7})},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := decodeBoth(t, d, c.p, false, "t", bigBudget())
			m := membersOf(t, r.json)
			if string(m["messageIndexes"]) != c.indexes || string(m["message"]) != `"`+c.message+`"` || string(m["decoded"]) != c.decoded {
				t.Fatalf("%s", r.json)
			}
			said := false
			for _, w := range r.warnings {
				if strings.Contains(w.Message, "entry types") {
					said = w.Offset == 5 && strings.Contains(w.Message, "read as "+c.message) && strings.HasSuffix(w.Message, "name "+c.other)
				}
			}
			if said != (c.other != "") {
				t.Fatalf("warnings %+v, want one naming %q: %v", r.warnings, c.other, said)
			}
		})
	}
}

// TestProtobufMapKeyTwiceOfAnotherWireType: a map entry whose key comes
// twice, the second time as a varint where the key is a string, panics
// in the protobuf runtime (google.golang.org/protobuf v1.36.12's
// unmarshalMap keeps the failed read as the key), in the message and in
// an Any's value, which anyFits reads: the payload is said not to
// decode, with no "decoded", and does not crash the decoder. Found by
// internal/render's FuzzProtobufPaths.
func TestProtobufMapKeyTwiceOfAnotherWireType(t *testing.T) {
	const text = `syntax = "proto3"; package t;
import "google/protobuf/any.proto";
message M { map<string, int32> counts = 3; google.protobuf.Any any = 4; }`
	d := NewDecoder(mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: text}}}, Config{})
	entry := []byte{0x1a, 5, 0x0a, 1, 'k', 0x08, 1} // counts: key "k", then key 1
	url := "type.googleapis.com/t.M"
	anyv := append(append([]byte{0x0a, byte(len(url))}, url...), 0x12, byte(len(entry)))
	anyv = append(anyv, entry...)
	for name, data := range map[string][]byte{
		"in the message": entry,
		"in an Any":      append([]byte{0x22, byte(len(anyv))}, anyv...),
	} {
		t.Run(name, func(t *testing.T) {
			r := decodeBoth(t, d, framed(3, []byte{0}, data), false, "t", bigBudget())
			if _, ok := membersOf(t, r.json)["decoded"]; ok {
				t.Fatalf("decoded: %s", r.json)
			}
			// In the message, the key of another wire type is said first.
			last := r.warnings[len(r.warnings)-1]
			if last.Offset != 6 || last.Message != "protobuf: the protobuf runtime failed on the data: type mismatch: cannot convert nil to map key" {
				t.Fatalf("warnings %+v", r.warnings)
			}
		})
	}
}
