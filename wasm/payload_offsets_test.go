//go:build js && wasm && kwire_payload

package main

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"syscall/js"
	"testing"
	"testing/fstest"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/internal/registry/resolve"
)

// TestPayloadWarningOffsetsAsCLI: payload.wasm says a record payload's
// warnings at the bytes kwire decode says them at (Frame.Warnings), not
// at the start of the node they hang on: the message indexes after the
// schema id (not the id), the bytes after an Avro value (not the value's
// start), a Protobuf field the schema lacks (not the message's start).
//
//	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -tags kwire_payload ./wasm
func TestPayloadWarningOffsetsAsCLI(t *testing.T) {
	files := map[string]string{
		"1.proto": `syntax = "proto3"; message A { int32 a = 1; } message B { int32 b = 1; }`,
		"2.avsc":  `"string"`,
	}
	framed := func(id int, data ...byte) []byte {
		return append(binary.BigEndian.AppendUint32([]byte{0}, uint32(id)), data...)
	}
	values := [][]byte{
		framed(1, 1, 1, 0x08, 7), // indexes [1] as unsigned varints: B{b: 7}
		framed(2, append([]byte{4, 'h', 'i'}, make([]byte, 12)...)...), // "hi", then 12 bytes
		framed(1, 0, 0x08, 7, 0x10, 1),                                 // A{a: 7}, field 2 not in A
	}
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
	frame = req.AppendTo(frame)

	// The CLI's: the codec's warnings with the same schemas.
	fsys := fstest.MapFS{}
	var names, texts []any
	for n, text := range files {
		fsys[n] = &fstest.MapFile{Data: []byte(text)}
		names, texts = append(names, n), append(texts, text)
	}
	dec := payload.NewDecoder(resolve.Chain{resolve.NewFiles("dir", fsys)}, payload.Config{})
	f, err := codec.Decode(frame, codec.Options{NoSizePrefix: true, Payload: dec.Decode})
	if err != nil {
		t.Fatal(err)
	}
	type said struct {
		Offset  int    `json:"offset"`
		Message string `json:"message"`
	}
	var cli []said
	for _, w := range f.Warnings {
		cli = append(cli, said{w.Offset, w.Message})
	}
	if len(cli) != 3 {
		t.Fatalf("the CLI's warnings: %+v", cli)
	}

	// The page's.
	if r := schemas(js.Undefined(), []js.Value{js.ValueOf(names), js.ValueOf(texts), js.ValueOf("")}).(string); r != `{"files":2,"registry":""}` {
		t.Fatal(r)
	}
	defer func() { setDecoder(payload.NewDecoder(nil, payload.Config{})) }()
	r := decode(js.Undefined(), []js.Value{bytesValue(frame), js.ValueOf(false), js.ValueOf(0), js.ValueOf(0), js.ValueOf("no")})
	var s struct {
		Warnings []struct {
			Start   int    `json:"start"`  // the node's (the page said it once)
			Offset  *int   `json:"offset"` // the warning's, which the page says
			Message string `json:"message"`
		} `json:"warnings"`
	}
	summary := r.(map[string]any)["summary"].(string)
	if err := json.Unmarshal([]byte(summary), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != len(cli) {
		t.Fatalf("the page's warnings %+v, the CLI's %+v", s.Warnings, cli)
	}
	for i, w := range s.Warnings {
		page := said{w.Start, w.Message}
		if w.Offset != nil {
			page.Offset = *w.Offset
		}
		if page != cli[i] {
			t.Errorf("warning %d: the page says %+v, the CLI %+v", i, page, cli[i])
		}
	}
}
