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

// TestVersionAnAPIDoesNotHave: a Produce request at v99 had no frame.api
// finding, though the rule is "a version that API has": the codec reads
// it with the newest layout it knows (v13) and warns so, and check
// dropped that warning and reported what the v13 layout found wrong
// (frame.size "149 more bytes inside the frame", frame.null "at v13").
// It is now frame.api, at the version's bytes, as an unknown API key is,
// and neither side's layout is judged. Where the broker's ApiVersions
// answer was captured, conn.version judges the version instead: outside
// the advertised range it is that rule's error (one fault, one finding);
// inside it, the broker serves a version newer than kwire's schemas, and
// frame.api says it is not judged. ApiVersions is the exception: a client
// may send it at a version the broker does not know (KIP-511).
func TestVersionAnAPIDoesNotHave(t *testing.T) {
	setVersion := func(b []byte, v int16) []byte {
		b = append([]byte(nil), b...)
		binary.BigEndian.PutUint16(b[6:], uint16(v))
		return b
	}
	ok := produce(9, 7, nil, plain().bytes())
	for _, v := range []int16{14, 99} {
		xs := []Exchange{{Request: setVersion(ok, v), Response: produceOK(9, 7, 0)}}
		fs := Check(xs)
		require.Equal(t, []string{"frame.api"}, ruleIDs(fs), "v%d:\n%s", v, findingLines(fs))
		for _, f := range fs {
			if f.Rule == FrameAPI {
				require.Equal(t, Request, f.Where.Side)
				require.Equal(t, 6, f.Where.Offset)
				require.Equal(t, "header.requestApiVersion", f.Where.Path)
				require.Equal(t, "ProduceRequest version 0-13", f.Expected)
				require.Equal(t, "version "+itoa(int(v)), f.Found)
				require.Contains(t, f.What, "read with the v13 layout")
			}
		}
		require.Contains(t, skippedIDs(fs), "frame.decode", "v%d: the response's layout is said not judged:\n%s", v, findingLines(fs))
	}
	// The broker's ApiVersions answer captured before it: conn.version.
	for _, hi := range []int16{13, 99} {
		frames := [][]byte{apiVersionsReq(3, 1), apiVersionsRsp(3, 1, 0, [3]int16{0, 3, hi}, [3]int16{18, 0, 4}),
			setVersion(ok, 99), produceOK(9, 7, 0)}
		fs := Check(exchangesOn(&Conn{ID: 1, FromStart: true}, frames...))
		if hi == 13 {
			require.Equal(t, []string{"conn.version"}, ruleIDs(fs), findingLines(fs))
		} else {
			require.Empty(t, ruleIDs(fs), findingLines(fs))
			require.Contains(t, skippedIDs(fs), "frame.api", findingLines(fs))
		}
	}
	// An unknown API key, for comparison, is frame.api too.
	bad := append([]byte(nil), ok...)
	binary.BigEndian.PutUint16(bad[4:], 9999)
	require.Equal(t, []string{"frame.api"}, ruleIDs(Check([]Exchange{{Request: bad}})))
	// ApiVersions at v9: no finding; the broker answers at v0.
	av := setVersion(apiVersionsReq(3, 1), 9)
	fs := Check([]Exchange{{Request: av, Response: apiVersionsRsp(0, 1, 35, [3]int16{18, 0, 4})}})
	require.NotContains(t, ruleIDs(fs), "frame.api", findingLines(fs))
}
