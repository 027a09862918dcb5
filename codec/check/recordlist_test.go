package check

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// recordsBatch decodes a records blob of one batch of three records,
// compressed with compression, and returns its batch node.
func recordsBatch(t *testing.T, compression string, o codec.Options) *tree.Node {
	t.Helper()
	var recs []any
	for i := range 3 {
		recs = append(recs, map[string]any{"timestampDelta": i, "offsetDelta": i, "key": nil, "value": []byte("v")})
	}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": compression}, "lastOffsetDelta": 2, "baseTimestamp": 10, "maxTimestamp": 12,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}}}, codec.EncodeOptions{})
	require.NoError(t, err)
	o.Data = "records"
	f, err := codec.Decode(b, o)
	require.NoError(t, err)
	e, err := f.Root.Lookup("value[0]")
	require.NoError(t, err)
	require.Equal(t, "RecordBatch", e.Type)
	return e
}

// readBatch reads a batch's records whether or not they were
// compressed, and judges a compressed batch's records read only when the
// reader decompressed them: the node of decompressed bytes is told by
// its type, not its name "inflated" (the records reader's names are its
// own, so no input decodes to a tree where the two differ: the last two
// cases change a decoded tree to show the difference).
func TestReadBatchDecompressedByType(t *testing.T) {
	read := func(e *tree.Node) batchFacts {
		var bf batchFacts
		readBatch(e, &bf)
		return bf
	}
	for _, c := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		bf := read(recordsBatch(t, c, codec.Options{}))
		require.True(t, bf.AllRead, c)
		require.Equal(t, 3, bf.Parsed, c)
		require.True(t, bf.DeltasCount, c)
		require.Equal(t, int64(12), bf.MaxRecordTS, c)
	}
	// Not decompressed (a limit): nothing read, not all read.
	bf := read(recordsBatch(t, "gzip", codec.Options{Limits: codec.Limits{MaxDecompressed: 1}}))
	require.False(t, bf.AllRead)
	require.Equal(t, 0, bf.Parsed)

	// The decompressed bytes, renamed: still stepped into.
	e := recordsBatch(t, "gzip", codec.Options{})
	inf := e.Get("records").Children[0]
	require.Equal(t, "gzip inflated", inf.Type)
	inf.Name = "decompressed"
	bf = read(e)
	require.True(t, bf.AllRead)
	require.Equal(t, 3, bf.Parsed)

	// A node named "inflated" that is no decompressed bytes (bytes left
	// raw, holding the records): not stepped into, so not all read.
	e = recordsBatch(t, "gzip", codec.Options{})
	recs := e.Get("records")
	impostor := &tree.Node{Name: "inflated", Role: tree.RoleRaw, Kind: schema.Bytes, Type: "bytes", Index: -1, Tag: -1,
		Children: recs.Children[0].Children}
	recs.Children = []*tree.Node{impostor}
	bf = read(e)
	require.False(t, bf.AllRead)
	require.Equal(t, 0, bf.Parsed)
}
