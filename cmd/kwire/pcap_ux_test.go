package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// unpairedResponses is a capture of n responses whose requests were not
// captured: ApiVersions v3, correlation ids 1 to n.
func unpairedResponses(t *testing.T, n int) string {
	var segs []segment
	for i := 1; i <= n; i++ {
		segs = append(segs, segment{false, time.Duration(i) * time.Millisecond, exampleFrame(t, "ApiVersions", 3, true, int32(i))})
	}
	return segmentsPcap(t, segs...)
}

// kwire pcap says how it read the first few unpaired responses it guessed
// the API of, then counts the rest at the end, as the capture's notes are
// capped: a capture with 51 of them printed 51 lines.
func TestPcapGuessedLinesCapped(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"pcap", unpairedResponses(t, 12)}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 12, strings.Count(out, `"guessed":`))
	require.Equal(t, maxGuessLines, strings.Count(errOut, "read as a response: guessed"), errOut)
	require.Contains(t, errOut, "kwire: conn 1 correlation 1 response: read as a response: guessed ApiVersions")
	require.Regexp(t, `(?m)^kwire: .*: 7 more unpaired responses read by a guessed API, not said above \(each line's "guessed" says it\)$`, errOut)

	// As many as the cap: each said, no count.
	_, errOut, code = runCLI(t, []string{"pcap", unpairedResponses(t, maxGuessLines)}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, maxGuessLines, strings.Count(errOut, "read as a response: guessed"), errOut)
	require.NotContains(t, errOut, "more unpaired responses")
}

// kwire pcap --summary says on standard output what the capture lost,
// which only standard error's notes said: a summary saved alone (2>
// /dev/null) looked clean.
func TestPcapSummarySaysWhatWasLost(t *testing.T) {
	file := snapPcap(t, connPcap(t, true, nil,
		segment{true, 0, exampleFrame(t, "Heartbeat", 3, false, 7)},
		segment{false, time.Millisecond, exampleFrame(t, "Heartbeat", 3, true, 7)},
		segment{true, 2 * time.Millisecond, exampleFrame(t, "Heartbeat", 3, false, 8)},
		segment{false, 3 * time.Millisecond, exampleFrame(t, "Heartbeat", 3, true, 8)}), 100)
	out, errOut, code := runCLI(t, []string{"pcap", "--summary", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `(?m)^capture incomplete: 2 gaps \([0-9,]+ bytes missing, [0-9,]+ of them cut by the snap length\), 2 frames held only in part, [0-9,]+ bytes not read as frames \(skipped to resynchronise\) \(the notes on standard error say where\)$`, out)

	// A whole capture says nothing of the kind.
	out, errOut, code = runCLI(t, []string{"pcap", "--summary", "kfake-clients.pcapng"}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "capture incomplete")
}

// In the summary, responses whose request the capture lacks that fit no
// API are "(unknown)", not API -1 "v-1×1"; and the versions of those
// read by a guessed API are counted apart, marked "?", with a legend:
// they are guesses, not what the clients sent.
func TestPcapSummaryGuessedVersionsApart(t *testing.T) {
	file := segmentsPcap(t,
		segment{true, 0, exampleFrame(t, "ApiVersions", 3, false, 1)},
		segment{false, time.Millisecond, exampleFrame(t, "ApiVersions", 3, true, 1)},
		segment{false, 2 * time.Millisecond, exampleFrame(t, "ApiVersions", 3, true, 5)},
		segment{false, 3 * time.Millisecond, exampleFrame(t, "ApiVersions", 3, true, 6)},
		segment{false, 4 * time.Millisecond, []byte{0, 0, 0, 5, 0, 0, 0, 9, 0xff}})
	out, errOut, code := runCLI(t, []string{"pcap", "--summary", file}, nil)
	require.Equal(t, 1, code, errOut) // the response that fits no API fails to decode
	require.Regexp(t, `(?m)^\s+ApiVersions\s+v3×1 v\d+×2\?\s+3\s+2\s`, out)
	require.Regexp(t, `(?m)^\s+\(unknown\)\s+1\s+1\s`, out)
	require.NotContains(t, out, "v-1")
	require.Contains(t, out, "(v3×5?: 5 responses whose request the capture lacks, read as v3 by a guess from their bytes)\n")
}
