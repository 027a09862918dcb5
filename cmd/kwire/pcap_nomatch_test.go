package main

import (
	"encoding/binary"
	"regexp"
	"strings"
	"testing"
	"time"

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

// TestPcapFilterLongClientIDCut: a client id past 64 bytes is named cut,
// at a character's start, with "…", as the views cut a text
// (render.Truncate); it ended in "...", the only such in kwire's output.
func TestPcapFilterLongClientIDCut(t *testing.T) {
	id := strings.Repeat("a", 63) + "ééé" // é spans bytes 63 and 64
	req := exampleFrame(t, "Metadata", 12, false, 1)
	old := int(binary.BigEndian.Uint16(req[12:]))
	b := binary.BigEndian.AppendUint16(append([]byte(nil), req[:12]...), uint16(len(id)))
	b = append(append(b, id...), req[14+old:]...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	file := segmentsPcap(t,
		segment{true, 0, b},
		segment{false, time.Millisecond, exampleFrame(t, "Metadata", 12, true, 1)})
	out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"clientId":"`+id+`"`, "the exchange's line keeps it whole")
	_, errOut, code = runCLI(t, []string{"pcap", "--client-id", "nobody", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, `--client-id "nobody" matched none of the 1 exchange; the client ids seen: "`+strings.Repeat("a", 63)+`…" ×1`+"\n")
}
