package codec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
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
	require.Nil(t, batch.Elem(0))
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
