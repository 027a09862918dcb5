package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDecodePinnedAPIThatDoesNotMatch: a request's bytes read with an API
// (or version) pinned that they are not give a clear error saying what
// their header says, and no -1 in the JSON in place of an API key or
// version nothing fitted; batch says the same.
func TestDecodePinnedAPIThatDoesNotMatch(t *testing.T) {
	const header = `api key 18 (ApiVersions) v3, correlation id 7, client id "kwire"`
	for _, c := range []struct {
		args    []string
		out     string // the JSON, or "" for none
		stderr  string
		noSuch  []string // not in the JSON
		hasJSON bool
	}{
		{[]string{"--api", "Metadata"}, `{"direction":"response","apiKey":3,"apiName":"Metadata","guess":`,
			"kwire: at byte 0: expected a response of any version of Metadata, found 32 bytes that read as none; they start with a request's header: " + header + "\n",
			[]string{`"apiVersion"`}, true},
		{[]string{"--response"}, `{"direction":"response","guess":`,
			"kwire: at byte 0: expected a response of any API and version, found 32 bytes that read as none; they start with a request's header: " + header + "\n",
			[]string{`"apiKey"`, `"apiVersion"`}, true},
		{[]string{"--response", "--api", "Metadata", "--version", "12"}, `{"direction":"response","apiKey":3,"apiName":"Metadata","apiVersion":12,`,
			"kwire: these bytes start with a request's header: " + header + "; without --response, --api and --version they are read as that request\n",
			nil, true},
		{[]string{"--request", "--api", "Metadata"}, "",
			"kwire: the request's header says " + header + ", not Metadata, the API pinned\n", nil, false},
		{[]string{"--request", "--version", "2"}, "",
			"kwire: the request's header says " + header + ", not v2, the version pinned\n", nil, false},
	} {
		out, errOut, code := runCLI(t, append(append([]string{"decode", "--format", "ndjson"}, c.args...), apiVersionsV3), nil)
		require.Equal(t, 1, code, c.args)
		require.NotContains(t, out, "-1", c.args)
		if c.hasJSON {
			require.True(t, strings.HasPrefix(out, c.out), "%v: %s", c.args, out)
		} else {
			require.Empty(t, out, c.args)
		}
		for _, k := range c.noSuch {
			require.NotContains(t, out, k, c.args)
		}
		require.True(t, strings.HasSuffix(errOut, c.stderr), "%v: %s", c.args, errOut)
	}
	// Pinned as they are, they read.
	_, errOut, code := runCLI(t, []string{"decode", "--request", "--api", "ApiVersions", "--version", "3", apiVersionsV3}, nil)
	require.Equal(t, 0, code, errOut)

	// A batch line says the same.
	out, _, code := runCLI(t, []string{"batch"}, []byte(`{"hex":"`+apiVersionsV3+`","direction":"request","api":"Metadata"}`+"\n"+
		`{"hex":"`+apiVersionsV3+`","api":"Metadata"}`+"\n"))
	require.Equal(t, 1, code)
	lines := strings.Split(out, "\n")
	require.Equal(t, `{"line":1,"error":{"message":"the request's header says api key 18 (ApiVersions) v3, correlation id 7, client id \"kwire\", not Metadata, the API pinned"}}`, lines[0])
	require.Contains(t, lines[1], `they start with a request's header: api key 18 (ApiVersions) v3`)
	require.NotContains(t, lines[1], "-1")
}
