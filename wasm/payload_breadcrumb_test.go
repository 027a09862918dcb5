//go:build js && wasm && kwire_payload

package main

import (
	"encoding/binary"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
)

// TestPayloadBreadcrumbIsTheNodesPath: in payload.wasm, the breadcrumb of
// every node of records whose keys and values the payload decoders read
// (Avro records, maps and arrays, a Protobuf message with a repeated, a
// packed and a map field, JSON with members named as the records
// reader's nodes) is the node's value-JSON path (checkBreadcrumbs): a
// key's or value's data is its "decoded", the registry's framing its
// "magic", "schemaId" and "messageIndexes".
func TestPayloadBreadcrumbIsTheNodesPath(t *testing.T) {
	defer func() { setDecoder(payload.NewDecoder(nil, payload.Config{})) }()
	names := []any{"1.avsc", "2.proto"}
	texts := []any{
		`{"type":"record","name":"Order","fields":[{"name":"customer","type":"string"},{"name":"items","type":{"type":"array","items":"long"}},{"name":"tags","type":{"type":"map","values":"string"}},{"name":"note","type":["null","string"]}]}`,
		`syntax = "proto3"; message P { repeated int32 packed = 1; repeated string names = 2; map<string, int32> counts = 3; P child = 4; }`,
	}
	if r := schemas(js.Undefined(), []js.Value{js.ValueOf(names), js.ValueOf(texts), js.ValueOf("")}).(string); !strings.HasPrefix(r, `{"files":2,`) {
		t.Fatal(r)
	}
	framed := func(id int, data ...byte) []byte {
		return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), data...)
	}
	str := func(s string) []byte { return append([]byte{byte(2 * len(s))}, s...) } // Avro's zigzag length
	avro := framed(1, str("ana")...)
	avro = append(avro, 4, 2, 4, 0)                                  // items: a block of 2: 1, 2; end
	avro = append(append(append(avro, 2), str("k")...), str("v")...) // tags: a block of 1: k -> v
	avro = append(append(avro, 0, 2), str("n")...)                   // end of tags; note: the union's string "n"
	child := []byte{0x0a, 2, 5, 6}
	proto := framed(2, 0, // message indexes [0]
		0x0a, 3, 1, 2, 3, // packed: 1, 2, 3
		0x12, 1, 'a', 0x12, 1, 'b', // names: "a", "b"
		0x1a, 5, 0x0a, 1, 'x', 0x10, 9) // counts: x -> 9
	proto = append(append(proto, 0x22, byte(len(child))), child...)
	proto = append(proto, 0x0a, 1, 4) // packed again: 4
	js := []byte(`{"record":{"batch":[1,{"header":2}],"message":"m"},"end":3,"count":[4,{"end":5}],"inflated":{"record":9}}`)
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{
			{"key": []byte("k"), "value": avro, "headers": []map[string]any{{"key": "record", "value": []byte("batch")}}},
			{"key": js, "value": proto},
		}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if exact := checkBreadcrumbs(t, crumbFrame{name: "payloads", b: b, data: "records"}); exact < 60 {
		t.Errorf("%d nodes found by their breadcrumb", exact)
	}
	v := view0()
	if len(v.f.Warnings) > 0 {
		t.Errorf("the payloads did not read cleanly: %v", v.f.Warnings)
	}
	// Each format's data was read.
	for _, p := range []string{"value[0].records[0].value.decoded.tags.k", "value[0].records[1].value.decoded.counts", "value[0].records[1].value.decoded.packed[3]", "value[0].records[1].key.decoded.inflated.record"} {
		if _, err := v.f.Root.Lookup(p); err != nil {
			t.Error(err)
		}
	}
}
