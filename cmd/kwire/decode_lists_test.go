package main

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// exampleHex is the first line kwire example prints: the frame's hex.
func exampleHex(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"example"}, args...), nil)
	require.Equal(t, 0, code, errOut)
	return strings.SplitN(out, "\n", 2)[0]
}

// A frame a Go program printed with fmt.Println (its []byte in decimal,
// "[0 0 0 81 0 18 ...]") decodes as the frame; before, it was "odd number
// of hex digits", or, with two digits a value, hex of other bytes.
func TestDecodeGoPrintedBytes(t *testing.T) {
	h := exampleHex(t, "Metadata", "--version", "12")
	b, err := hex.DecodeString(h)
	require.NoError(t, err)
	want, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", h}, nil)
	require.Equal(t, 0, code, errOut)

	out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", "-"}, []byte(fmt.Sprintln(b)))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, out)

	// kwire batch reads a log of such lines, one frame a line.
	log := fmt.Sprintln(b) + fmt.Sprintln(b)
	out, errOut, code = runCLI(t, []string{"batch"}, []byte(log))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 2, strings.Count(out, `"apiName":"Metadata"`), out)
}

// kwire example prints the hex above the JSON; piped into kwire decode
// (for --format tree or annotated), the hex is the frame and the JSON is
// passed over with a note. Before, it failed at the JSON's first letter.
func TestDecodeReadsExampleOutput(t *testing.T) {
	ex, errOut, code := runCLI(t, []string{"example", "Fetch", "--version", "4", "--response"}, nil)
	require.Equal(t, 0, code, errOut)
	want, errOut, code := runCLI(t, []string{"decode", "--format", "tree", "--response", "--api", "Fetch", "--version", "4", strings.SplitN(ex, "\n", 2)[0]}, nil)
	require.Equal(t, 0, code, errOut)

	out, errOut, code := runCLI(t, []string{"decode", "--format", "tree", "--response", "--api", "Fetch", "--version", "4"}, []byte(ex))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, out)
	require.Contains(t, errOut, "the JSON after the line of hex (kwire example's output) is passed over")
}

// Value JSON given to decode is said to be JSON, with the command that
// reads it, not "odd number of hex digits" at its first key.
func TestDecodeSaysJSONIsForEncode(t *testing.T) {
	ex, _, _ := runCLI(t, []string{"example", "ApiVersions"}, nil)
	json := strings.SplitN(ex, "\n", 2)[1]
	_, errOut, code := runCLI(t, []string{"decode"}, []byte(json))
	require.Equal(t, 1, code)
	require.Equal(t, "kwire: input: line 1, column 1: this is JSON, not a frame's bytes: value JSON becomes a frame by encoding it (kwire encode)\n", errOut)
}
