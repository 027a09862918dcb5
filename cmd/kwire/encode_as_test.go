package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const apiVersionsV3Hex = "0000001b001200030000000700056b7769726500066b7769726504312e3000"

const apiVersionsJSON = `{"apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}`

// TestEncodeAs: kwire encode writes a frame as hex (a line), base64 (a
// line) or its bytes alone (--as binary), so a frame can go to nc or a
// file with no xxd -r -p between; it wrote hex only.
func TestEncodeAs(t *testing.T) {
	want, err := hex.DecodeString(apiVersionsV3Hex)
	require.NoError(t, err)
	out, errOut, code := runCLI(t, []string{"encode", "--as", "base64", apiVersionsJSON}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, base64.StdEncoding.EncodeToString(want)+"\n", out)
	out, errOut, code = runCLI(t, []string{"encode", "--as", "binary", apiVersionsJSON}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want, []byte(out))
	// A stream: binary frames one after another, a failed one said on
	// standard error alone (its JSON error object would break the bytes).
	in := apiVersionsJSON + "\n" + `{"apiKey":18}` + "\n" + apiVersionsJSON + "\n"
	out, errOut, code = runCLI(t, []string{"encode", "--as", "binary"}, []byte(in))
	require.Equal(t, 1, code)
	require.Equal(t, append(append([]byte{}, want...), want...), []byte(out))
	require.Contains(t, errOut, "line 2:")
	out, _, code = runCLI(t, []string{"encode", "--as", "BASE64"}, []byte(in))
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 3)
	require.Equal(t, base64.StdEncoding.EncodeToString(want), lines[2])
	require.Contains(t, lines[1], `"line":2,"error"`)
	// What is not a form is refused.
	_, errOut, code = runCLI(t, []string{"encode", "--as", "octal", apiVersionsJSON}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "kwire: --as must be hex, base64 or binary, not \"octal\"\n", errOut)
}

// TestEncodeAsBinaryNotToATerminal: raw bytes are not written to a
// terminal, which would take them as control sequences.
func TestEncodeAsBinaryNotToATerminal(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, stdoutIsTTY: true}, []string{"encode", "--as", "binary", apiVersionsJSON})
	require.Equal(t, 2, code)
	require.Empty(t, out.String())
	require.Contains(t, errOut.String(), "redirect it")
}

// TestEncodeAsZeros: a log line that stands for zeros (a segment's tail
// of them) is written in pieces in every form, as many zeros as it says.
func TestEncodeAsZeros(t *testing.T) {
	const n = 100000 // more than a piece of either form
	line := `{"kind":"tail","zero":true,"size":100000}`
	out, errOut, code := runCLI(t, []string{"encode", "--as", "binary", line}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, make([]byte, n), []byte(out))
	out, errOut, code = runCLI(t, []string{"encode", "--as", "base64", line}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, base64.StdEncoding.EncodeToString(make([]byte, n))+"\n", out)
	out, errOut, code = runCLI(t, []string{"encode", line}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, strings.Repeat("00", n)+"\n", out)
}
