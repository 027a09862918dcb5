package records_test

import (
	"fmt"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/tree"
)

// Decode the records of a Produce or Fetch partition: here a gzip batch
// made by Encode from Go values. Each record's absolute offset and
// timestamp come with it; the decompressed bytes are a derived buffer.
func ExampleDecode() {
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
	var slab slab.Slab
	res, err := records.Decode(&slab, payload, records.Options{})
	if err != nil {
		panic(err)
	}
	for _, r := range res.Records {
		key := r.Node.Get("key")
		fmt.Printf("offset %d, time %d, key %q (null %v), value %q\n", r.Offset, r.Timestamp, key.Raw, key.Null, r.Node.Get("value").Raw)
	}
	inflated := res.Nodes[0].Get("records").Children[0]
	fmt.Printf("%s: %d bytes, buffer %d\n", inflated.Type, len(res.Derived[0]), inflated.Buf)
	// Output:
	// offset 100, time 1700000000000, key "user-1" (null false), value "signed up"
	// offset 101, time 1700000000005, key "" (null true), value "logged in"
	// gzip inflated: 47 bytes, buffer 1
}
