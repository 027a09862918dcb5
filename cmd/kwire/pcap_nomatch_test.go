package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPcapFilterMatchingNothingSaysSo: when kwire pcap's filters let no
// exchange through, standard error says which filter matched nothing,
// among how many exchanges, and what it saw instead (a few client ids or
// APIs, the most frequent first): the output was empty and the exit 0,
// as for a capture with no Kafka in it, with no word of why.
func TestPcapFilterMatchingNothingSaysSo(t *testing.T) {
	const capture = "kfake-clients.pcapng"
	const prefix = "kwire: " + capture + ": no exchange shown: "
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--client-id", "nobody"}, `--client-id "nobody" matched none of the 74 exchanges; the client ids seen: "kwire-group" ×23, "rdkafka" ×11, `},
		{[]string{"--client-id", "nobody", "--summary"}, `--client-id "nobody" matched none of the 74 exchanges; the client ids seen: "kwire-group" ×23, `},
		{[]string{"--api", "DescribeAcls"}, "--api DescribeAcls matched none of the 74 exchanges; the APIs seen: ApiVersions ×23, Metadata ×10, "},
		{[]string{"--api", "JoinGroup", "--client-id", "nobody"}, `--client-id "nobody" matched none of the 2 JoinGroup exchanges; the client ids seen: "kwire-group" ×2` + "\n"},
		{[]string{"--api", "Metadata", "--errors-only"}, "--errors-only: none of the 10 Metadata exchanges has a response with a non-zero error code\n"},
	} {
		args := append(append([]string{"pcap"}, c.args...), capture)
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		if !strings.Contains(strings.Join(c.args, " "), "--summary") {
			require.Empty(t, out, args)
		}
		require.Contains(t, errOut, prefix+c.want, args)
		// A few named, the rest counted.
		line := errOut[strings.Index(errOut, prefix):]
		line = line[:strings.IndexByte(line, '\n')]
		require.LessOrEqual(t, len(regexp.MustCompile(`×\d+`).FindAllString(line, -1)), maxSeenSaid, line)
	}
	// Filters that let some through say nothing of the kind.
	out, errOut, code := runCLI(t, []string{"pcap", "--api", "JoinGroup", "--client-id", "kwire-group", capture}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 2, strings.Count(out, "\n"))
	require.NotContains(t, errOut, "no exchange shown")
}
