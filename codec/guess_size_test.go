package codec

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// A request with its size prefix read as having none (kwire decode --size
// no) was guessed an InitProducerId v6 response of nonsense values at
// confidence 1.000, with no word of the size: its first 4 bytes, 28, are
// the length of the rest. Now the frame says so in a warning, whatever it
// is read as, and the guess shares its belief with a sized reading.
func TestNoSizePrefixThatFits(t *testing.T) {
	b, err := hex.DecodeString("0000001c001200030000000700056b7769726500076b776972652004312e3000")
	require.NoError(t, err)
	f, err := Decode(b, Options{Auto: true, NoSizePrefix: true})
	require.NoError(t, err)
	require.NotNil(t, f.Guess)
	require.Less(t, f.Guess.Confidence, 0.5)
	require.Contains(t, f.Guess.Candidates[0].Doubts, sizeFits(b))
	var msgs []string
	for _, w := range f.Warnings {
		msgs = append(msgs, w.Message)
	}
	require.Contains(t, strings.Join(msgs, "\n"), "the first 4 bytes are 28, the length of the rest: a size prefix?")

	// The JSON path says the same.
	var dec Decoder
	out, _, err := dec.AppendJSON(nil, b, Options{Auto: true, NoSizePrefix: true})
	require.NoError(t, err)
	require.Contains(t, string(out), "the first 4 bytes are 28, the length of the rest: a size prefix?")

	// Read with its size, or unsized bytes whose first 4 are no size of
	// the rest, no such word.
	f, err = Decode(b, Options{Auto: true})
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
	f, err = Decode(b[4:], Options{Auto: true, NoSizePrefix: true})
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
}

// Sized bytes read as unsized that fail to decode got no word of the
// size, though that is when a user needs it most: kwire decode --size no
// on the ApiVersions example read a Produce v27 request and stopped at an
// impossible count. The partial result's warnings now say it too.
func TestNoSizePrefixThatFitsAndFails(t *testing.T) {
	b, err := hex.DecodeString("0000001b001200030000000700056b7769726500066b7769726504312e3000")
	require.NoError(t, err)
	f, err := Decode(b, Options{NoSizePrefix: true})
	require.Error(t, err)
	require.NotNil(t, f)
	var msgs []string
	for _, w := range f.Warnings {
		msgs = append(msgs, w.Message)
	}
	require.Contains(t, strings.Join(msgs, "\n"), "the first 4 bytes are 27, the length of the rest: a size prefix?")

	var dec Decoder
	out, _, err := dec.AppendJSON(nil, b, Options{NoSizePrefix: true})
	require.Error(t, err)
	require.Contains(t, string(out), "the first 4 bytes are 27, the length of the rest: a size prefix?")
}

// minResponse is a lower bound, and a close one: a response encoded from
// an empty body (every field its default, arrays empty) has at least as
// many bytes, every example of every version too, and most empty bodies
// exactly as many.
func TestMinResponseBound(t *testing.T) {
	exact, all := 0, 0
	for _, api := range schema.APIs() {
		m := api.Response
		for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
			h := RequestHeader{APIKey: api.Key, Version: v, CorrelationID: 1}
			empty, err := EncodeResponse(nil, h, v, map[string]any{}, EncodeOptions{})
			require.NoError(t, err)
			ex, err := ExampleFrame(api, v, true)
			require.NoError(t, err)
			min := minResponse(api.Key, v)
			require.LessOrEqual(t, min, len(empty)-4, "%s v%d", m.Name, v)
			require.LessOrEqual(t, min, len(ex)-4, "%s v%d", m.Name, v)
			all++
			if min == len(empty)-4 {
				exact++
			}
		}
	}
	require.Greater(t, exact*10, all*9, "%d of %d empty bodies are as short as the bound", exact, all)
}

// A tiny frame (a size of 0: no header even) is tried as every reading
// without a walk of any: a file of thousands cost a walk of each of some
// 370 readings each.
func TestTinyFrameGuessWalksNothing(t *testing.T) {
	var dec Decoder
	lim := Limits{}.resolve(4)
	spend := lim.budgetValue()
	g := dec.guessResponses([]byte{0, 0, 0, 0}, false, nil, lim, &spend)
	require.Empty(t, g.Candidates)
	require.Positive(t, g.Tried)
	require.Zero(t, spend.Work)
	require.Zero(t, g.nodes)
}

// BenchmarkGuess reads responses of unknown API and version, as kwire
// decode --response and kwire pcap's unpaired responses do: a realistic
// mix of answers, and a tiny frame of zeros (the floor of a guess).
func BenchmarkGuess(b *testing.B) {
	for _, c := range []struct {
		name string
		key  int16
		v    int16
	}{{"ApiVersionsV3", schema.KeyApiVersions, 3}, {"MetadataV12", schema.KeyMetadata, 12}, {"ProduceV9", schema.KeyProduce, 9},
		{"FetchV11", schema.KeyFetch, 11}, {"OffsetCommitV8", schema.KeyOffsetCommit, 8}} {
		frame, err := ExampleFrame(schema.ByKey(c.key), c.v, true)
		require.NoError(b, err)
		b.Run(c.name, func(b *testing.B) {
			var dec Decoder
			b.SetBytes(int64(len(frame)))
			for b.Loop() {
				if _, _, err := dec.AppendJSON(nil, frame, Options{Response: true, APIKey: Any, Version: Any}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("Zeros12", func(b *testing.B) {
		var dec Decoder
		frame := []byte{0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0}
		for b.Loop() {
			dec.AppendJSON(nil, frame, Options{Response: true, APIKey: Any, Version: Any})
		}
	})
}
