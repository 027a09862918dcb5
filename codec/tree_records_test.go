package codec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// A batch and a record are objects in value JSON: Elems, Count and Elem
// list nothing of theirs; their records and headers are lists of their
// own, reached by name, as value JSON reaches them.
func TestElemsOfBatchAndRecord(t *testing.T) {
	b, err := codec.ExampleFrame(schema.ByKey(schema.KeyProduce), 9, false)
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	batch, err := f.Root.Lookup("body.topicData[0].partitionData[0].records[0]")
	require.NoError(t, err)
	require.Equal(t, "batch", batch.Name)
	require.Zero(t, batch.Count())
	require.Equal(t, 1, batch.Get("records").Count())
	rec, err := f.Root.Lookup("body.topicData[0].partitionData[0].records[0].records[0]")
	require.NoError(t, err)
	require.Equal(t, "record", rec.Name)
	require.Zero(t, rec.Count())
	require.Equal(t, 1, rec.Get("headers").Count())
	h, err := rec.Lookup("headers[0].key")
	require.NoError(t, err)
	require.Equal(t, "trace-id", string(h.Raw))
	_, err = f.Root.Lookup("body.topicData[0].partitionData[0].records[0][0]")
	require.EqualError(t, err, `tree: path "body.topicData[0].partitionData[0].records[0][0]": no item 0 (0 there) after body.topicData[0].partitionData[0].records[0]`)
}

// Root.Value gives the envelope Encode takes: every example frame of
// every API, version and direction comes back byte for byte.
func TestRootValueEncodesBack(t *testing.T) {
	n := 0
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Request
			if response {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				b, err := codec.ExampleFrame(api, v, response)
				if err != nil {
					continue
				}
				f, err := codec.Decode(b, codec.Options{Response: response, APIKey: api.Key, Version: v})
				require.NoError(t, err)
				back, err := codec.Encode(nil, f.Root.Value(), codec.EncodeOptions{})
				require.NoError(t, err, "%s v%d response %v", api.Name, v, response)
				require.Equal(t, b, back, "%s v%d response %v", api.Name, v, response)
				n++
			}
		}
	}
	require.Greater(t, n, 700)
}

// The records of every Produce request and Fetch response example:
// each entry's Value (batch or legacy message) encodes back to its
// bytes, its records carry what value JSON shows, and a record's offset
// is its Int; a record alone has no timestamp (its batch's Value has).
func TestRecordsValueEncodesBack(t *testing.T) {
	for _, c := range []struct {
		key      int16
		response bool
	}{{schema.KeyProduce, false}, {schema.KeyFetch, true}, {schema.KeyShareFetch, true}} {
		api := schema.ByKey(c.key)
		m := api.Request
		if c.response {
			m = api.Response
		}
		for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
			b, err := codec.ExampleFrame(api, v, c.response)
			require.NoError(t, err)
			f, err := codec.Decode(b, codec.Options{Response: c.response, APIKey: c.key, Version: v})
			require.NoError(t, err)
			entries := 0
			tree.Walk(f.Body, func(n *tree.Node) bool {
				if n.Field == nil || n.Kind != schema.Records {
					return true
				}
				for _, e := range n.Elems() {
					val := e.Value().(map[string]any)
					back, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{val}}, codec.EncodeOptions{})
					require.NoError(t, err, "%s v%d", api.Name, v)
					require.Equal(t, e.Raw, back, "%s v%d", api.Name, v)
					require.NotContains(t, val, "batchLength")
					if e.Name == "batch" {
						recs := val["records"].([]any)
						require.Len(t, recs, e.Get("records").Count())
						r0 := recs[0].(map[string]any)
						require.Contains(t, r0, "timestamp")
						require.NotContains(t, r0, "length")
						r := must(e.Lookup("records[0]"))
						alone := r.Value().(map[string]any)
						require.Equal(t, r.Int, alone["offset"])
						require.NotContains(t, alone, "timestamp")
						delete(r0, "timestamp")
						require.Equal(t, r0, alone)
						require.Equal(t, map[string]any{"compression": "none", "timestampType": "CreateTime", "transactional": false, "control": false, "deleteHorizon": false}, val["attributes"])
					}
					entries++
				}
				return false
			})
			require.Positive(t, entries, "%s v%d", api.Name, v)
		}
	}
}

// Compressed batches and wrappers, of every codec, and a batch whose
// CRC is wrong (a warning: its Value carries "_raw"): Value encodes back
// to the very bytes, the compressed ones reused, the warned one whole.
func TestRecordsValueCompressed(t *testing.T) {
	recs := []map[string]any{
		{"key": []byte("k1"), "value": []byte("v1"), "headers": []map[string]any{{"key": "h", "value": []byte{0xca, 0xfe}}}},
		{"timestampDelta": 5, "key": nil, "value": []byte("v2")},
	}
	var entries []any
	for _, codecName := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		entries = append(entries, map[string]any{
			"baseOffset": 10, "partitionLeaderEpoch": 0, "magic": 2, "attributes": map[string]any{"compression": codecName, "timestampType": "LogAppendTime"},
			"baseTimestamp": 1700000000000, "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs})
	}
	for _, magic := range []int{0, 1} {
		for _, codecName := range []string{"gzip", "snappy", "lz4"} {
			wrapper := map[string]any{"offset": 7, "magic": magic, "key": nil, "attributes": map[string]any{"compression": codecName},
				"messages": []map[string]any{
					{"offset": 0, "magic": magic, "key": []byte("a"), "value": []byte("x")},
					{"offset": 1, "magic": magic, "key": nil, "value": nil},
				}}
			if magic == 1 { // relative inner offsets, a timestamp each
				wrapper["timestamp"] = 1700000000000
				for i, m := range wrapper["messages"].([]map[string]any) {
					m["timestamp"] = 1700000000001 + i
				}
			} else {
				for i, m := range wrapper["messages"].([]map[string]any) {
					m["offset"] = 6 + i
				}
			}
			entries = append(entries, wrapper)
		}
	}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": entries}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{Data: "records"})
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
	root := f.Root.Value().(map[string]any)
	back, err := codec.Encode(nil, root, codec.EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, b, back)
	vals := root["value"].([]any)
	require.Len(t, vals, 11)
	gz := vals[1].(map[string]any)
	require.Equal(t, "gzip", gz["attributes"].(map[string]any)["compression"])
	require.Contains(t, gz, "_compressed")
	require.Equal(t, int64(1700000000005), gz["records"].([]any)[0].(map[string]any)["timestamp"], "LogAppendTime: the batch's max timestamp")
	wrapper := vals[8].(map[string]any) // magic 1, gzip
	require.Equal(t, int64(6), wrapper["messages"].([]any)[0].(map[string]any)["absoluteOffset"])

	// A wrong CRC: a warning, and "_raw" brings those bytes back.
	first := must(f.Body.Lookup("[0]"))
	bad := append([]byte(nil), first.Raw...)
	bad[17] ^= 0xff // the CRC's first byte
	g, err := codec.Decode(bad, codec.Options{Data: "records"})
	require.NoError(t, err)
	require.NotEmpty(t, g.Warnings)
	v := g.Root.Value().(map[string]any)
	require.Contains(t, v["value"].([]any)[0], "_raw")
	back, err = codec.Encode(nil, v, codec.EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, bad, back)
}

// A data message's root gives its envelope, the version its bytes start
// with included; a body read alone gives the body.
func TestRootValueDataAndBody(t *testing.T) {
	js := `{"data":"ConsumerProtocolSubscription","version":1,"value":{"topics":["a","b"],"userData":null,"ownedPartitions":[]}}`
	b, err := codec.Encode(nil, js, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{Data: "ConsumerProtocolSubscription", Version: codec.Any})
	require.NoError(t, err)
	v := f.Root.Value().(map[string]any)
	require.Equal(t, "ConsumerProtocolSubscription", v["data"])
	require.Equal(t, int64(1), v["version"])
	back, err := codec.Encode(nil, v, codec.EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, b, back)

	body := []byte{0, 0, 0, 0, 0, 0} // an ApiVersions v0 response body alone: error code, no keys
	f, err = codec.Decode(body, codec.Options{Body: true, Response: true, APIKey: schema.KeyApiVersions, Version: 0})
	require.NoError(t, err)
	require.Equal(t, map[string]any{"errorCode": int64(0), "apiKeys": []any{}}, f.Root.Value())
	back, err = codec.Encode(nil, f.Root.Value(), codec.EncodeOptions{Body: true, Response: true, APIKey: schema.KeyApiVersions, Version: 0})
	require.NoError(t, err)
	require.Equal(t, body, back)
}

// Lookup says why a record has no "offset" node.
func TestLookupRecordOffset(t *testing.T) {
	b, err := codec.ExampleFrame(schema.ByKey(schema.KeyProduce), 9, false)
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	_, err = f.Root.Lookup("body.topicData[0].partitionData[0].records[0].records[0].offset")
	require.ErrorContains(t, err, `no "offset" (a record's offset and timestamp are no bytes of its own: its Int is its offset, its batch's Value gives both; there: length, attributes,`)
}
