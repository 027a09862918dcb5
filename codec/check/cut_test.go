package check

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCutResponseAloneInAFile: a Fetch response cut short, with no
// request in the file that it answers, was read as a Produce v7 request
// (its correlation id 7 reads as Produce v7, the body's first bytes as an
// empty client id), so check judged that reading: a frame.enum error for
// an acks of 4822, a frame.decode error in topicData, and the whole
// responses before it became strays answering no request. A cut frame
// that does not start as a client's request and answers no request is
// said to be cut, and not judged as anything else.
func TestCutResponseAloneInAFile(t *testing.T) {
	whole := fetchRsp(11, 7, 2, plain().bytes())
	cut := whole[:len(whole)/2]

	for _, frames := range [][][]byte{fr(cut), fr(whole, cut), fr(cut, whole)} {
		fs := Check(FromFrames(frames))
		require.Equal(t, []string{"frame.size"}, ruleIDs(fs), findingLines(fs))
		var f Finding
		for _, g := range fs {
			if g.Rule == FrameSize {
				f = g
			}
		}
		require.NotEqual(t, Request, f.Where.Side, "a cut response is no request: %s", findingLines(fs))
		require.Equal(t, "size", f.Where.Path)
		require.Contains(t, f.What, "cut short", findingLines(fs))
		require.Contains(t, f.What, "nothing in it is judged", findingLines(fs))
		require.False(t, strings.Contains(f.What, "Produce"), findingLines(fs))
	}

	// With its request in the file, the correlation id says what it is:
	// the Fetch v11 response, read as far as its bytes go.
	fs := Check(FromFrames(fr(fetchReq(11, 7, 0), cut)))
	require.Equal(t, []string{"frame.decode"}, nonSkipped(fs), findingLines(fs))
	for _, f := range fs {
		if !f.Skipped {
			require.Equal(t, Response, f.Where.Side, findingLines(fs))
			require.Contains(t, f.Found, "the frame is cut short", findingLines(fs))
		}
	}

	// A request cut short, its header a client's (an API at one of its
	// versions, a client id), stays that request.
	q := fetchReq(11, 7, 0)
	fs = Check(FromFrames(fr(q[:len(q)-6])))
	require.Equal(t, []string{"frame.decode"}, nonSkipped(fs), findingLines(fs))
	for _, f := range fs {
		if !f.Skipped {
			require.Equal(t, Request, f.Where.Side, findingLines(fs))
		}
	}
}

// nonSkipped is the ids of the findings that judged something.
func nonSkipped(fs []Finding) []string {
	var ids []string
	for _, f := range fs {
		if !f.Skipped {
			ids = append(ids, f.Rule.ID)
		}
	}
	return ids
}
