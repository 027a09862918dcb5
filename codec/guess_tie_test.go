package codec

import (
	"encoding/hex"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// An ApiVersions v0 response with no APIs (kwire decode --help's example:
// correlation 7, error 0, an empty array) reads as well as a dozen other
// APIs' responses of an error code and an empty array, all of one score;
// ties were broken by the lowest key, so LeaderAndIsr v0, which Kafka 4.0
// removed with ZooKeeper, was guessed and ApiVersions was no runner-up
// shown. Ties now rank ApiVersions first, then what Kafka 4.0 serves,
// then what it removed.
func TestGuessTieBreak(t *testing.T) {
	b, err := hex.DecodeString("0000000a00000007000000000000")
	require.NoError(t, err)
	cands := guessed(b, Limits{})
	require.NotEmpty(t, cands)
	name := func(c Candidate) string { return schema.ByKey(c.APIKey).Name }
	require.Equal(t, "ApiVersions", name(cands[0]), "guessed %s v%d", name(cands[0]), cands[0].Version)
	require.Equal(t, int16(0), cands[0].Version)
	// Kafka 4.0 removed it at every version the reading stands for.
	gone := func(c Candidate) bool {
		for _, v := range append([]int16{c.Version}, c.Versions...) {
			if !schema.ByKey(c.APIKey).Removed40.Contains(v) {
				return false
			}
		}
		return true
	}
	removed := false
	for _, c := range cands[1:] {
		if c.Score != cands[0].Score {
			break
		}
		require.False(t, removed && !gone(c), "%s v%d, which Kafka 4.0 serves, after one it removed", name(c), c.Version)
		removed = removed || gone(c)
	}
	require.True(t, removed, "LeaderAndIsr and the like are among the tied readings")
}
