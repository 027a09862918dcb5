package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPcapFailedFrameErrorObject: a frame of an exchange that fails to
// decode gets, as requestError or responseError, the error object batch's
// lines give (message, offset, path, expected, found), beside its partial
// value; standard error names the failed exchanges by packet, connection
// and correlation id, with their errors.
func TestPcapFailedFrameErrorObject(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"pcap", "kafka.pcap"}, nil)
	require.Equal(t, 1, code, errOut)
	var failed int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct {
			ResponseFrame int             `json:"responseFrame"`
			Response      json.RawMessage `json:"response"`
			ResponseError *struct {
				Message  string `json:"message"`
				Offset   *int   `json:"offset"`
				Path     string `json:"path"`
				Expected string `json:"expected"`
				Found    string `json:"found"`
			} `json:"responseError"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &l), line)
		if l.ResponseError == nil {
			continue
		}
		failed++
		e := l.ResponseError
		require.Equal(t, "at byte 21: expected the end of the message, found 17 more bytes inside the frame", e.Message)
		require.NotNil(t, e.Offset)
		require.Equal(t, 21, *e.Offset)
		require.Equal(t, "the end of the message", e.Expected)
		require.Equal(t, "17 more bytes inside the frame", e.Found)
		require.Contains(t, string(l.Response), `"apiName":"Metadata"`, "the partial value stays")
		require.Contains(t, errOut, "kwire: packet "+strconv.Itoa(l.ResponseFrame)+": conn 2 correlation ")
	}
	require.Equal(t, 2, failed)
	require.Contains(t, errOut, "kwire: 2 exchanges had frames that failed to decode:\n"+
		"kwire: packet 20: conn 2 correlation 8 response: at byte 21: expected the end of the message, found 17 more bytes inside the frame\n"+
		"kwire: packet 22: conn 2 correlation 9 response: at byte 21: expected the end of the message, found 17 more bytes inside the frame\n")
}

// The failed exchanges named are the first maxFailures; the count says
// how many there were in all.
func TestPcapFailuresNamedBounded(t *testing.T) {
	run := pcapRun{stats: map[int16]*apiStats{}, errCodes: map[apiCode]int{}}
	for i := range 2 * maxFailures {
		run.add(&runLine{keep: true, failed: true, failure: "packet " + strconv.Itoa(i+1)})
	}
	require.Equal(t, 2*maxFailures, run.failed)
	require.Len(t, run.failures, maxFailures)
	require.Equal(t, "packet 1", run.failures[0])
}

// TestPcapDirectory: a directory given to kwire pcap is said to be one, in
// the words decode and batch use, not taken for a capture too short.
func TestPcapDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"pcap", "batch", "decode"} {
		out, errOut, code := runCLI(t, []string{cmd, dir}, nil)
		require.Equal(t, 1, code, cmd)
		require.Empty(t, out, cmd)
		require.Equal(t, "kwire: read "+dir+": is a directory\n", errOut, cmd)
	}
}
