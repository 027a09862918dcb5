package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// apiVersionsV3JSON is apiVersionsV3 as value JSON, on one line.
const apiVersionsV3JSON = `{"apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire ","clientSoftwareVersion":"1.0"}}`

// TestEncodeDashIsStandardInput: "-" reads standard input where it
// stands among the arguments, as kwire log, pcap and check take it, not
// as JSON; alone it is as no argument; twice is misuse.
func TestEncodeDashIsStandardInput(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"encode", "-"}, []byte(apiVersionsV3JSON+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, apiVersionsV3+"\n", out)
	require.Empty(t, errOut)

	// Among files, standard input is an input of its own, named "-".
	f := filepath.Join(t.TempDir(), "a.json")
	require.NoError(t, os.WriteFile(f, []byte(apiVersionsV3JSON+"\n"), 0o644))
	out, errOut, code = runCLI(t, []string{"encode", f, "-"}, []byte(`{"apiKey":18,"apiVersion":3,"body":{"nope":1}}`+"\n"))
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	require.Equal(t, apiVersionsV3, lines[0])
	require.True(t, strings.HasPrefix(lines[1], `{"file":"-","line":1,"error":{"path":"body.nope"`), lines[1])
	require.Contains(t, errOut, "kwire: -: line 1: body.nope: unknown field")

	_, errOut, code = runCLI(t, []string{"encode", "-", "-"}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "kwire: - is given twice: standard input is read once\n", errOut)
}

// TestEncodeSkipsAByteOrderMark: a UTF-8 BOM at an input's start, as
// editors on Windows save JSON, is dropped, on standard input and in a
// file.
func TestEncodeSkipsAByteOrderMark(t *testing.T) {
	bom := "\xef\xbb\xbf"
	out, errOut, code := runCLI(t, []string{"encode"}, []byte(bom+apiVersionsV3JSON+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, apiVersionsV3+"\n", out)
	f := filepath.Join(t.TempDir(), "a.json")
	require.NoError(t, os.WriteFile(f, []byte(bom+"\n"+apiVersionsV3JSON+"\n{bad\n"), 0o644))
	out, errOut, code = runCLI(t, []string{"encode", f}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, apiVersionsV3+"\n"+`{"line":3,"error":{"path":"","message":"invalid JSON at byte 1: expected a string key"}}`+"\n", out, errOut)
}

// TestEncodeOneDocumentErrorAlone: one document gives its frame or its
// error alone, on standard error, whether it does not parse or does not
// encode; a stream keeps an error object per bad document.
func TestEncodeOneDocumentErrorAlone(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"apiKey" 18}` + "\n", "kwire: line 1: invalid JSON at byte 10: expected ':' after a key\n"},
		{"\n\n" + `{"apiKey" 18}` + "\n", "kwire: line 3: invalid JSON at byte 10: expected ':' after a key\n"},
		{`{"apiKey":18,"apiVersion":3,"body":{"nope":1}}` + "\n", "kwire: body.nope: unknown field; valid here: clientSoftwareName, clientSoftwareVersion, _unknownTaggedFields (at v3)\n"},
	} {
		out, errOut, code := runCLI(t, []string{"encode"}, []byte(c.in))
		require.Equal(t, 1, code, c.in)
		require.Empty(t, out, c.in)
		require.Equal(t, c.err, errOut, c.in)
	}
	f := filepath.Join(t.TempDir(), "a.json")
	require.NoError(t, os.WriteFile(f, []byte("{bad\n"), 0o644))
	out, errOut, code := runCLI(t, []string{"encode", f}, nil)
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "kwire: "+f+": line 1: invalid JSON at byte 1: expected a string key\n", errOut)
}
