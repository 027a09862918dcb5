package payload

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
)

// TestDecodeBytesJSONValueApart: DecodeBytesJSON hands the decoded value
// apart from the other members (a listing shows the value, and had cut it
// out of the members by searching the text for "decoded"), on every path
// that writes one (JSON with and without a schema source, Avro, Protobuf,
// JSON Schema, an unframed topic schema) and on those that write none
// (text, a missing schema, data the schema does not read, which is rolled
// back): the members and the value are together what DecodeBytes writes.
func TestDecodeBytesJSONValueApart(t *testing.T) {
	avroOrder := `{"type":"record","name":"Order","fields":[{"name":"customer","type":"string"},{"name":"amount","type":"long"}]}`
	avro := func(customer string, amount int64) []byte {
		b := binary.AppendVarint(nil, int64(len(customer)))
		return binary.AppendVarint(append(b, customer...), amount)
	}
	src := mapSource{
		ids: map[int]*Schema{
			7: {Text: avroOrder},
			3: {Type: TypeProtobuf, Text: refundProto},
			5: {Type: TypeJSON, Text: `{"type":"object","properties":{"note":{"type":"string"}}}`},
		},
		subs: map[string]*Schema{"orders-key": {Text: `"string"`}},
	}
	withSrc, noSrc := NewDecoder(src, Config{}), NewDecoder(nil, Config{})
	for _, c := range []struct {
		name    string
		d       *Decoder
		p       []byte
		key     bool
		members string // without "decoded"
		value   string // "" for none
	}{
		{"JSON, no source", noSrc, []byte(` {"note": "\"decoded\":1"} `), false, `,"format":"json"`, `{"note":"\"decoded\":1"}`},
		{"JSON, a source", withSrc, []byte(`[1, {"decoded":2}]`), false, `,"format":"json"`, `[1,{"decoded":2}]`},
		{"text", noSrc, []byte("hello"), false, ``, ``},
		{"Avro", withSrc, framed(7, avro(`"decoded":`, 5)), false, `,"schemaId":7,"format":"avro"`, `{"customer":"\"decoded\":","amount":5}`},
		{"Avro, bytes past the value", withSrc, framed(7, avro("Bo", 5), []byte{1, 2}), false, `,"schemaId":7,"format":"avro"`, ``},
		{"Avro, the topic's key schema", withSrc, []byte{6, 'k', '-', '1'}, true, `,"format":"avro"`, `"k-1"`},
		{"Protobuf", withSrc, framed(3, []byte{2, 2, 8, 42}), false, `,"schemaId":3,"format":"protobuf","messageIndexes":[1],"message":"shop.Refund"`, `{"orderId":"42"}`},
		{"JSON Schema", withSrc, framed(5, []byte(`{"note":"x"}`)), false, `,"schemaId":5,"format":"jsonschema"`, `{"note":"x"}`},
		{"a missing schema", withSrc, framed(9, []byte{2}), false, `,"schemaId":9`, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			members, value, ws := c.d.DecodeBytesJSON(c.p, c.key, "orders")
			if string(members) != c.members || string(value) != c.value {
				t.Errorf("members %s, value %s; want %s and %s (warnings %v)", members, value, c.members, c.value, ws)
			}
			if c.value == "" && value != nil {
				t.Errorf("no value, yet %q", value)
			}
			whole, _, ws2 := c.d.DecodeBytes(c.p, c.key, "orders")
			joined := string(members)
			if value != nil {
				joined += `,"decoded":` + string(value)
			}
			if joined != string(whole) || len(ws) != len(ws2) {
				t.Errorf("apart %s (%d warnings), DecodeBytes %s (%d)", joined, len(ws), whole, len(ws2))
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte("{"+strings.TrimPrefix(string(members), ",")+"}"), &m); err != nil || m["decoded"] != nil {
				t.Errorf("members %s: %v", members, err)
			}
		})
	}
}
