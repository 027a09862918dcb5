//go:build js && wasm && kwire_payload

package main

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"strings"
	"syscall/js"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/payload"
)

// TestSchemaFilesSaid: the page counts only the schema files a lookup can
// use, and says by name why each other cannot be: a name no lookup reads,
// a schema that does not parse (with where, when the parser says).
func TestSchemaFilesSaid(t *testing.T) {
	files := [][2]string{
		{"1.avsc", `{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`},
		{"foo.txt", `{}`},
		{"2.json", `{bad`},
		{"3.avsc", `{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}`},
		{"4.proto", "syntax = \"proto3\";\nmessage O { int32 a = 1 }"},
	}
	var names, texts []any
	for _, f := range files {
		names, texts = append(names, f[0]), append(texts, f[1])
	}
	defer func() { setDecoder(payload.NewDecoder(nil, payload.Config{})) }()
	r := schemas(js.Undefined(), []js.Value{js.ValueOf(names), js.ValueOf(texts), js.ValueOf("")}).(string)
	var got struct {
		Files    int
		Problems []struct{ Name, Problem string }
	}
	if err := json.Unmarshal([]byte(r), &got); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	want := [][2]string{
		{"2.json", "not JSON at line 1, column 2"},
		{"3.avsc", "the AVRO schema does not parse"},
		{"4.proto", "4.proto:2:25: syntax error"},
		{"foo.txt", "not a schema file's name"},
	}
	if got.Files != 1 || len(got.Problems) != len(want) {
		t.Fatal(r)
	}
	for i, w := range want {
		if p := got.Problems[i]; p.Name != w[0] || !strings.Contains(p.Problem, w[1]) {
			t.Errorf("problem %d: %+v, want %s saying %q", i, p, w[0], w[1])
		}
	}
}

// produceWith is a Produce v9 request whose records' values are values.
func produceWith(values ...[]byte) []byte {
	var batch []byte
	for i, v := range values {
		r := kmsg.Record{OffsetDelta: int32(i), Value: v}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		batch = r.AppendTo(batch)
	}
	rb := kmsg.RecordBatch{Magic: 2, LastOffsetDelta: int32(len(values) - 1), ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: int32(len(values)), Records: batch}
	records := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(records[8:], uint32(len(records)-12))
	binary.BigEndian.PutUint32(records[17:], crc32.Checksum(records[21:], crc32.MakeTable(crc32.Castagnoli)))
	req := kmsg.NewProduceRequest()
	req.SetVersion(9)
	req.Acks, req.TimeoutMillis = -1, 1000
	tp := kmsg.NewProduceRequestTopic()
	tp.Topic = "t"
	p := kmsg.NewProduceRequestTopicPartition()
	p.Records = records
	tp.Partitions = append(tp.Partitions, p)
	req.Topics = append(req.Topics, tp)
	frame := binary.BigEndian.AppendUint16(nil, 0)
	frame = binary.BigEndian.AppendUint16(frame, 9)
	frame = binary.BigEndian.AppendUint32(frame, 1)
	frame = append(frame, 0, 5, 'k', 'w', 'i', 'r', 'e', 0)
	return req.AppendTo(frame)
}

// TestRegistryDownSaidPerPayload: once a request to the registry gets no
// answer, every payload whose schema it would have asked for says it was
// not decoded: the first with the request's error, the others, which the
// registry is not asked for while it is held down, in a line pointing to
// that failure (not the first request's error again, which names another
// id's URL).
func TestRegistryDownSaidPerPayload(t *testing.T) {
	js.Global().Call("eval", `globalThis.location = { origin: "http://page.test" }; globalThis.XMLHttpRequest = class { open() {} setRequestHeader() {} send() { throw new Error("NetworkError: Failed to load") } }`)
	defer js.Global().Call("eval", `delete globalThis.XMLHttpRequest; delete globalThis.location`)
	defer func() { setDecoder(payload.NewDecoder(nil, payload.Config{})) }()
	if r := schemas(js.Undefined(), []js.Value{js.ValueOf([]any{}), js.ValueOf([]any{}), js.ValueOf("http://registry.invalid:8081/")}).(string); !strings.Contains(r, `"registry":"http://registry.invalid:8081/"`) {
		t.Fatal(r)
	}
	framed := func(id int, data ...byte) []byte {
		return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), data...)
	}
	frame := produceWith(framed(2, 2, 'a'), framed(1, 2, 'b'), framed(3, 2, 'c'))
	r := decode(js.Undefined(), []js.Value{bytesValue(frame), js.ValueOf(false), js.ValueOf(0), js.ValueOf(0), js.ValueOf("no")})
	var s struct {
		Warnings []struct{ Message string } `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(r.(map[string]any)["summary"].(string)), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 3 {
		t.Fatalf("warnings %+v", s.Warnings)
	}
	if m := s.Warnings[0].Message; !strings.HasPrefix(m, "schema 2 not read: ") || !strings.Contains(m, "Access-Control-Allow-Origin") {
		t.Errorf("first: %s", m)
	}
	for i, id := range []string{"1", "3"} {
		want := "schema " + id + " not read: the schema registry at http://registry.invalid:8081/ was not asked: a request before could not be read from this page (see Record payloads)"
		if m := s.Warnings[i+1].Message; m != want {
			t.Errorf("warning %d: %s\nwant %s", i+1, m, want)
		}
	}
	if registryState.requests != 1 {
		t.Errorf("%d requests", registryState.requests)
	}
}
