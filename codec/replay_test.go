package codec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// TestReplayPlainFrames: a frame whose walk read no nested payload writes
// its JSON from its tree (replay), and that JSON is the walk's again, byte
// for byte, for every example of every API and version; frames with
// records or consumer-protocol bytes are walked again.
func TestReplayPlainFrames(t *testing.T) {
	plain, deep := 0, 0
	eachVersion(t, func(t *testing.T, api *schema.API, v int16, resp bool) {
		b, err := ExampleFrame(api, v, resp)
		require.NoError(t, err)
		for _, mode := range jsonModes {
			f, err := Decode(b, inMode(Options{Response: resp, APIKey: api.Key, Version: v}, mode))
			require.NoError(t, err)
			got := f.AppendJSON(nil)
			if !f.plain {
				deep++
				continue
			}
			plain++
			f.plain = false // the walk again
			require.Equal(t, string(f.AppendJSON(nil)), string(got), "%s v%d response=%v", api.Name, v, resp)
		}
	})
	require.Positive(t, plain)
	require.Positive(t, deep, "frames with records or consumer-protocol bytes are walked again")

	// Produce with records is walked again; Metadata is replayed.
	b, err := ExampleFrame(schema.ByKey(0), 9, false)
	require.NoError(t, err)
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	require.False(t, f.plain, "records decoded")
	b, err = ExampleFrame(schema.ByKey(3), 12, true)
	require.NoError(t, err)
	f, err = Decode(b, Options{Response: true, APIKey: 3, Version: 12})
	require.NoError(t, err)
	require.True(t, f.plain)
}

// TestReplayOutOfOrder: a frame whose layouts declare tagged fields before
// untagged ones (Fetch v12+, CreateTopics v5, ...) is replayed too, its
// tagged values, kept in their section in the tree, put at their declared
// place by the JSON sink as the walk's are.
func TestReplayOutOfOrder(t *testing.T) {
	replayed := 0
	for _, e := range append(outOfOrderExamples(t), outOfOrderWarned(t)...) {
		f, err := Decode(e.b, e.o)
		require.NoError(t, err, e.name)
		if !f.plain {
			continue
		}
		replayed++
		got := f.AppendJSON(nil)
		f.plain = false
		require.Equal(t, string(f.AppendJSON(nil)), string(got), e.name)
		require.Equal(t, string(treeJSON(f)), string(got), e.name)
	}
	require.GreaterOrEqual(t, replayed, 10)

	// The Fetch v12 request's clusterId, tag 0 at the end of its bytes,
	// comes first in its body.
	e := outOfOrderWarned(t)[2]
	f, err := Decode(e.b, e.o)
	require.NoError(t, err)
	require.True(t, f.plain)
	require.Contains(t, string(f.AppendJSON(nil)), `"body":{"clusterId":null,"replicaId":-1,`)
}
