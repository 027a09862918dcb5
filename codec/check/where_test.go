package check

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAcksFindingSaysWhereAcksIs: a Produce request with acks 5 was a
// frame.enum finding "at byte 0 (body.acks)" in every format (text, JSON,
// SARIF, kwire proxy --check): the offset was written as 0. It is where
// acks sits, as other enumerations' findings say theirs.
func TestAcksFindingSaysWhereAcksIs(t *testing.T) {
	for _, v := range []int16{3, 9, 12} {
		r := kmsg.NewPtrProduceRequest()
		r.Acks, r.TimeoutMillis = 5, 30000
		b := req(r, v, 7)
		// size, key, version, correlation id, client id; header v2 (v9+)
		// adds a tag byte; transactionalId null: 2 bytes (-1) before v9,
		// 1 (compact 0) from v9.
		at := 4 + 2 + 2 + 4 + 2 + len(clientID) + 2
		if v >= 9 {
			at = 4 + 2 + 2 + 4 + 2 + len(clientID) + 1 + 1
		}
		require.Equal(t, uint16(5), binary.BigEndian.Uint16(b[at:]), "v%d: acks is not at %d", v, at)
		fs := Check([]Exchange{{Request: b}})
		var found bool
		for _, f := range fs {
			if f.Rule == FrameEnum && f.Where.Path == "body.acks" {
				found = true
				require.True(t, f.Where.HasOffset)
				require.Equal(t, at, f.Where.Offset, "v%d: %s", v, f.String())
			}
		}
		require.True(t, found, "v%d: no frame.enum for acks 5:\n%s", v, findingLines(fs))
	}
}

// TestEnumFindingArticle: frame.enum said "expected a IsolationLevel
// value"; it is "an" before a vowel, "a" before a consonant.
func TestEnumFindingArticle(t *testing.T) {
	fs := Check([]Exchange{{Request: listOffsets(2)}})
	var expected []string
	for _, f := range fs {
		if f.Rule == FrameEnum {
			expected = append(expected, f.Expected)
		}
	}
	require.Equal(t, []string{"an IsolationLevel value"}, expected, findingLines(fs))
	require.Equal(t, "a", article("CompressionType"))
	require.Equal(t, "an", article("AclOperation"))
}
