package records_test

import (
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/records"
)

// Encode the records of a Produce or Fetch partition from Go values (here
// a gzip batch), and read them back with codec.Decode, Options.Data
// "records": each record's node holds its absolute offset; the
// decompressed bytes are a derived buffer.
func ExampleEncode() {
	payload, err := records.Encode(nil, []map[string]any{{
		"baseOffset": 100, "partitionLeaderEpoch": 0, "magic": 2, "attributes": map[string]any{"compression": "gzip"},
		"lastOffsetDelta": 1, "baseTimestamp": 1700000000000, "maxTimestamp": 1700000000005,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1,
		"records": []map[string]any{
			{"key": []byte("user-1"), "value": []byte("signed up")},
			{"timestampDelta": 5, "key": nil, "value": map[string]any{"text": "logged in"},
				"headers": []map[string]any{{"key": "trace", "value": []byte{0xca, 0xfe}}}},
		},
	}})
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
	inflated := f.Body.Elem(0).Get("records").Children[0]
	fmt.Printf("%s: %d bytes, buffer %d\n", inflated.Type, len(f.Buffers[inflated.Buf]), inflated.Buf)
	// Output:
	// offset 100, time 1700000000000, key "user-1" (null false), value "signed up"
	// offset 101, time 1700000000005, key "" (null true), value "logged in"
	// gzip inflated: 47 bytes, buffer 1
}
