package main

import (
	"testing"

	"github.com/stretchr/testify/require"
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
