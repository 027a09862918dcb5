package codec

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
