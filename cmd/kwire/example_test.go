package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// kwire example takes --request (the default, said aloud) as well as
// --response; before Kafka 0.11 the example carries a message set.
func TestExampleCLI(t *testing.T) {
	runCases(t, []cliCase{
		{name: "request said aloud", args: []string{"example", "Metadata", "--version", "1", "--request"}, golden: "example_metadata_v1"},
		{name: "produce v0: a magic 0 message set", args: []string{"example", "Produce", "--version", "0", "--request"}, golden: "example_produce_v0"},
		{name: "both directions", args: []string{"example", "Produce", "--request", "--response"}, code: 2, stderr: "give --request or --response, not both"},
		{name: "schema takes --request too", args: []string{"schema", "Produce", "--version", "9", "--request"}, golden: "schema_produce_v9"},
	})
	out, errOut, code := runCLI(t, []string{"example", "Fetch", "--version", "2", "--response"}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"magic": 1`)
}

// kwire example prints, for every API, version and direction, the JSON
// kwire decode prints for its hex: record keys and values read alike
// (a Produce request's JSON value with its "format" and "decoded").
func TestExampleIsWhatDecodePrints(t *testing.T) {
	run := func(cmd func(*env, []string) int, args ...string) string {
		var out, errb bytes.Buffer
		e := &env{stdin: bytes.NewReader(nil), stdout: &out, stderr: &errb}
		require.Equal(t, 0, cmd(e, args), "%v: %s", args, errb.String())
		require.Empty(t, errb.String(), "%v", args)
		return out.String()
	}
	n := 0
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m, dir := api.Request, "--request"
			if response {
				m, dir = api.Response, "--response"
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				if _, err := codec.ExampleFrame(api, v, response); err != nil {
					continue
				}
				ver := strconv.Itoa(int(v))
				hexLine, js, _ := strings.Cut(run(runExample, api.Name, "--version", ver, dir), "\n")
				got := run(runDecode, "--api", api.Name, "--version", ver, dir, hexLine)
				require.Equal(t, got, js, "%s v%d %s", api.Name, v, dir)
				n++
			}
		}
	}
	require.Greater(t, n, 700)
	js := run(runExample, "Produce", "--version", "9")
	require.Contains(t, js, `"format": "json"`)
}

// "kwire example Produce 9" (or "schema metadata v12") is how people
// write an API and its version; it said the command needs one API name.
// It now says how to give the version.
func TestExampleAndSchemaSayHowToGiveAVersion(t *testing.T) {
	for args, want := range map[string]string{
		"example Produce 9":     "kwire: example takes a version as a flag: kwire example Produce --version 9\n",
		"schema metadata v12":   "kwire: schema takes a version as a flag: kwire schema metadata --version 12\n",
		"schema Metadata Fetch": "kwire: schema needs one API name or key (run kwire apis)\n",
	} {
		out, errOut, code := runCLI(t, strings.Fields(args), nil)
		require.Equal(t, 2, code, args)
		require.Empty(t, out, args)
		require.Equal(t, want, errOut, args)
	}
}
