package main

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
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
			"kwire: at byte 0: expected a response of any version of Metadata, found 31 bytes that read as none; they start with a request's header: " + header + "\n",
			[]string{`"apiVersion"`}, true},
		{[]string{"--response"}, `{"direction":"response","guess":`,
			"kwire: at byte 0: expected a response of any API and version, found 31 bytes that read as none; they start with a request's header: " + header + "\n",
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

// TestDecodeRequestGuessedAsResponse: franz-go's Metadata v13 request
// (client id "franz-gzip", topic "t4") decoded with --response: the one
// response that reads its bytes (GetTelemetrySubscriptions v0) has all
// the confidence there is to share, so the guess says its doubts, and
// since it read only with leniency, what the bytes' header says they are.
func TestDecodeRequestGuessedAsResponse(t *testing.T) {
	const mdRequest = "0000002d0003000d00000001000a6672616e7a2d677a697000020000000000000000000000000000000003743400010000"
	_, errOut, code := runCLI(t, []string{"decode", "--response", mdRequest}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "kwire: read as a response: guessed GetTelemetrySubscriptions v0 response, confidence 1.00 (doubts: errorCode 2662 is no Kafka error code; ")
	require.True(t, strings.HasSuffix(errOut, `kwire: these bytes start with a request's header: api key 3 (Metadata) v13, correlation id 1, client id "franz-gzip"; without --response they are read as that request`+"\n"), errOut)

	// A response read free of doubt says neither.
	av := kmsg.NewApiVersionsResponse()
	av.SetVersion(3)
	av.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 0, MinVersion: 3, MaxVersion: 11}, {ApiKey: 18, MinVersion: 0, MaxVersion: 4}}
	rsp := append([]byte{0, 0, 0, 0, 0, 0, 0, 9}, av.AppendTo(nil)...)
	rsp[3] = byte(len(rsp) - 4)
	_, errOut, code = runCLI(t, []string{"decode", "--response", hex.EncodeToString(rsp)}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "doubts")
	require.NotContains(t, errOut, "request's header")
}
