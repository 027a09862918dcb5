package codec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// TestReplayPlainFrames: a frame whose walk read no nested payload and no
// tagged value early writes its JSON from its tree (replay), and that JSON
// is the walk's again, byte for byte, for every example of every API and
// version; frames with records, consumer-protocol bytes or early tags are
// walked again.
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
