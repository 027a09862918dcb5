package codec_test

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// Decode a request frame (size prefix included) to value JSON.
func ExampleDecode() {
	b, _ := hex.DecodeString("0000001b00120003000000070005" + "6b77697265" + "00" + "066b77697265" + "04312e30" + "00")
	f, err := codec.Decode(b, codec.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.API.Name, f.Version, f.CorrelationID)
	fmt.Println(string(f.AppendJSON(nil)))
	// Output:
	// ApiVersions 3 7
	// {"direction":"request","apiKey":18,"apiName":"ApiVersions","apiVersion":3,"header":{"requestApiKey":18,"requestApiVersion":3,"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}
}

// A response does not say which API it answers: give the API key and version.
func ExampleDecode_response() {
	b, _ := hex.DecodeString("0000000a00000007000000000000")
	f, err := codec.Decode(b, codec.Options{Response: true, APIKey: 18, Version: 0})
	fmt.Println(err)
	fmt.Println(string(f.AppendJSON(nil)))
	// Output:
	// <nil>
	// {"direction":"response","apiKey":18,"apiName":"ApiVersions","apiVersion":0,"header":{"correlationId":7},"body":{"errorCode":0,"apiKeys":[]}}
}

// Encode value JSON into a frame; fields left out take their defaults.
func ExampleEncode() {
	b, err := codec.Encode(nil, []byte(`{"apiName":"Metadata","apiVersion":1,"header":{"correlationId":1,"clientId":"c"},"body":{"topics":[{"name":"orders"}]}}`), codec.EncodeOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", b)
	// Output:
	// 0000001700030001000000010001630000000100066f7264657273
}

// A proxy reads frames from a connection, looks at the header, and passes them on.
func ExampleParseRequestHeader() {
	conn := bytes.NewReader([]byte("\x00\x00\x00\x0e\x00\x12\x00\x00\x00\x00\x00\x01\x00\x04kcat"))
	frame, err := wire.ReadFrame(conn, nil, 1<<20)
	if err != nil {
		panic(err)
	}
	h, err := codec.ParseRequestHeader(frame, codec.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.ByKey(h.APIKey).Name, h.Version, h.CorrelationID, *h.ClientID)
	// Output:
	// ApiVersions 0 1 kcat
}

// Nodes are found by value-JSON paths (JSON names), into records too; a
// path that goes astray is an error naming the step that failed.
func ExampleDecode_lookup() {
	b, _ := codec.Encode(nil, []byte(`{"apiName":"Produce","apiVersion":9,"header":{"correlationId":1,"clientId":"c"},
		"body":{"acks":-1,"timeoutMs":1000,"topicData":[{"name":"orders","partitionData":[{"index":3,"records":[{
		"baseOffset":0,"partitionLeaderEpoch":0,"magic":2,"attributes":{"compression":"zstd"},"lastOffsetDelta":1,
		"baseTimestamp":0,"maxTimestamp":0,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,
		"records":[{"key":{"text":"k1"},"value":{"text":"first"}},{"key":{"text":"k2"},"value":{"text":"second"}}]}]}]}]}}`), codec.EncodeOptions{})
	f, err := codec.Decode(b, codec.Options{})
	if err != nil {
		panic(err)
	}
	p, err := f.Root.Lookup("body.topicData[0].partitionData[0]")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Get("index").Int)
	v, err := p.Lookup("records[0].records[1].value")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %q at bytes %d-%d (its length at %d) of buffer %d, the decompressed records\n", v.Name, v.Raw, v.PrefixEnd, v.End, v.Start, v.Buf)
	_, err = p.Lookup("records[0].records[2].value")
	fmt.Println(err)
	// Output:
	// 3
	// value: "second" at bytes 22-28 (its length at 21) of buffer 1, the decompressed records
	// tree: path "records[0].records[2].value": no item 2 (2 there) after records[0].records
}

// Encode the records of a Produce or Fetch partition from Go values (here
// a gzip batch) in a data envelope named "records", and read them back with
// Options.Data "records": each record's node holds its absolute offset; the
// decompressed bytes are a derived buffer.
func ExampleEncode_records() {
	batches := []map[string]any{{
		"baseOffset": 100, "partitionLeaderEpoch": 0, "magic": 2, "attributes": map[string]any{"compression": "gzip"},
		"lastOffsetDelta": 1, "baseTimestamp": 1700000000000, "maxTimestamp": 1700000000005,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1,
		"records": []map[string]any{
			{"key": []byte("user-1"), "value": []byte("signed up")},
			{"timestampDelta": 5, "key": nil, "value": map[string]any{"text": "logged in"},
				"headers": []map[string]any{{"key": "trace", "value": []byte{0xca, 0xfe}}}},
		},
	}}
	payload, err := codec.Encode(nil, map[string]any{"data": "records", "value": batches}, codec.EncodeOptions{})
	if err != nil {
		panic(err)
	}
	f, err := codec.Decode(payload, codec.Options{Data: "records"})
	if err != nil {
		panic(err)
	}
	for _, batch := range f.Body.Elems() {
		for _, r := range batch.Get("records").Elems() {
			key := r.Get("key")
			fmt.Printf("offset %d, time %d, key %q (null %v), value %q\n", r.Int,
				batch.Get("baseTimestamp").Int+r.Get("timestampDelta").Int, key.Raw, key.Null, r.Get("value").Raw)
		}
	}
	inflated := must(f.Body.Lookup("[0].records")).Children[0]
	fmt.Printf("%s: %d bytes, buffer %d\n", inflated.Type, len(f.Buffers[inflated.Buf]), inflated.Buf)
	// Output:
	// offset 100, time 1700000000000, key "user-1" (null false), value "signed up"
	// offset 101, time 1700000000005, key "" (null true), value "logged in"
	// gzip inflated: 47 bytes, buffer 1
}
