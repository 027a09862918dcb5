package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// cutHeaderFrame is a request whose header ends in its correlation id:
// it fails to decode, at byte 8, with --request.
const cutHeaderFrame = "00000006" + "ffff0003" + "0000"

// TestDecodeFailuresSummarised: a file of many bad frames says why for
// the first maxFailuresShown, in full, and counts the rest in one line,
// rather than a line for each; standard output still has every frame's
// JSON, and the exit status still says failure.
func TestDecodeFailuresSummarised(t *testing.T) {
	const bad = 50
	var in []byte
	good, err := hex.DecodeString(apiVersionsV3)
	require.NoError(t, err)
	badFrame, err := hex.DecodeString(cutHeaderFrame)
	require.NoError(t, err)
	for i := range bad + 1 {
		if i == 3 {
			in = append(in, good...) // frame 4 decodes
			continue
		}
		in = append(in, badFrame...)
	}
	out, errOut, code := runCLI(t, []string{"decode", "--request", "--format", "ndjson"}, in)
	require.Equal(t, 1, code, "stderr: %s", errOut)

	// Standard output: every frame's JSON, as before.
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, bad+1)
	badJSON := `{"direction":"request","apiKey":-1,"apiVersion":3,"header":{"requestApiKey":-1,"requestApiVersion":3}}`
	for i, l := range lines {
		if i == 3 {
			require.Contains(t, l, `"apiName":"ApiVersions"`)
			continue
		}
		require.Equal(t, badJSON, l, "frame %d", i+1)
	}

	// Standard error: the first ten failing frames in full (frame 4
	// decodes), then one line for the other forty.
	var want []string
	for _, n := range []int{1, 2, 3, 5, 6, 7, 8, 9, 10, 11} {
		want = append(want, "kwire: frame "+strconv.Itoa(n)+": at byte 8 (header.correlationId): expected 4 bytes for int32, found 2 bytes left")
	}
	want = append(want, "kwire: 40 more failing frames not shown (the first: frame 12); 50 of 51 frames failed")
	require.Equal(t, strings.Join(want, "\n")+"\n", errOut)
}

// TestDecodeFailuresSummarisedInputs: with several inputs, the lines
// shown name the input, as before, and so does the summary's first frame
// not shown; a handful of failures is said in full, with no summary.
func TestDecodeFailuresSummarisedInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, frames int) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(strings.Repeat(cutHeaderFrame+"\n", frames)), 0o644))
		return p
	}
	a, b := write("a.hex", 4), write("b.hex", 12)
	_, errOut, code := runCLI(t, []string{"decode", "--request", "--format", "ndjson", a, b}, nil)
	require.Equal(t, 1, code, "stderr: %s", errOut)
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	require.Len(t, lines, 11, errOut)
	require.Equal(t, "kwire: "+a+": frame 1: at byte 8 (header.correlationId): expected 4 bytes for int32, found 2 bytes left", lines[0])
	require.Equal(t, "kwire: "+b+": frame 10: at byte 8 (header.correlationId): expected 4 bytes for int32, found 2 bytes left", lines[9])
	require.Equal(t, "kwire: 6 more failing frames not shown (the first: frame 11 of "+b+"); 16 of 16 frames failed", lines[10])

	// Ten failures or fewer: each said, no summary.
	_, errOut, code = runCLI(t, []string{"decode", "--request", "--format", "ndjson", write("c.hex", 10)}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, 10, strings.Count(errOut, "\n"), errOut)
	require.NotContains(t, errOut, "not shown")
}

// The README states the number of failures decode and pcap say one by
// one; it is maxFailuresShown, the one cap both use (pcap's was 5).
func TestReadmeFailuresShown(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	readme := strings.Join(strings.Fields(string(b)), " ")
	n := strconv.Itoa(maxFailuresShown)
	for _, want := range []string{"`kwire decode` says why for the first " + n + " failing frames", "standard error names the first " + n + " such exchanges"} {
		require.True(t, strings.Contains(readme, want), "README.md does not say %q", want)
	}
}
