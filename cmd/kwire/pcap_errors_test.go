package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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
	require.Contains(t, errOut, "kwire: 2 exchanges had frames that failed to decode (each has a requestError or responseError in its line):\n"+
		"kwire: packet 20: conn 2 correlation 8 response: at byte 21: expected the end of the message, found 17 more bytes inside the frame\n"+
		"kwire: packet 22: conn 2 correlation 9 response: at byte 21: expected the end of the message, found 17 more bytes inside the frame\n")
}

// The failed exchanges named are the first maxFailuresShown; the count
// says how many there were in all, and which was the first not named.
func TestPcapFailuresNamedBounded(t *testing.T) {
	run := pcapRun{stats: map[int16]*apiStats{}, errCodes: map[apiCode]int{}}
	for i := range 2 * maxFailuresShown {
		run.add(&runLine{keep: true, failed: true, failure: "packet " + strconv.Itoa(i+1) + ": why", failureAt: "packet " + strconv.Itoa(i+1)})
	}
	require.Equal(t, 2*maxFailuresShown, run.failed)
	require.Len(t, run.failures, maxFailuresShown)
	require.Equal(t, "packet 1: why", run.failures[0])
	require.Equal(t, "packet "+strconv.Itoa(maxFailuresShown+1), run.firstNotShown)
}

// kwire pcap names as many failed exchanges as kwire decode names failing
// frames, and counts the rest in one line worded as decode's: a capture
// of 15 exchanges whose responses fail names the first 10 (it named 5,
// saying "the first 5" in its heading, where decode says "N more failing
// frames not shown (the first: frame 11); 15 of 15 frames failed").
func TestPcapFailuresShownAsDecodes(t *testing.T) {
	var segs []segment
	for i := range 15 {
		corr := int32(i + 1)
		bad := exampleFrame(t, "Produce", 9, true, corr)
		bad = append(bad[:len(bad)-6:len(bad)-6], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff) // its last fields as impossible lengths
		at := time.Duration(i) * time.Millisecond
		segs = append(segs, segment{true, at, exampleFrame(t, "Produce", 9, false, corr)}, segment{false, at + time.Microsecond, bad})
	}
	_, errOut, code := runCLI(t, []string{"pcap", connPcap(t, true, nil, segs...)}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "kwire: 15 exchanges had frames that failed to decode (each has a requestError or responseError in its line):\n")
	require.Equal(t, maxFailuresShown, len(regexp.MustCompile(`(?m)^kwire: packet \d+: conn 1 correlation \d+ response: `).FindAllString(errOut, -1)), errOut)
	require.Regexp(t, `(?m)^kwire: packet \d+: conn 1 correlation 10 response: `, errOut)
	require.Regexp(t, `(?m)^kwire: 5 more failing exchanges not shown \(the first: packet \d+, conn 1 correlation 11 response\); 15 of 15 exchanges failed$`, errOut)

	// Decode's line is worded so.
	var frames []byte
	for range 15 {
		frames = append(frames, cutHeaderFrame...)
		frames = append(frames, '\n')
	}
	_, errOut, code = runCLI(t, []string{"decode", "--request", "--format", "ndjson"}, frames)
	require.Equal(t, 1, code, errOut)
	require.Equal(t, maxFailuresShown+1, strings.Count(errOut, "\n"), errOut)
	require.Contains(t, errOut, "kwire: 5 more failing frames not shown (the first: frame 11); 15 of 15 frames failed\n")
}

// TestPcapDirectory: a directory given to kwire pcap is said to be one, in
// the words decode and batch use, not taken for a capture too short.
func TestPcapDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"pcap", "batch", "decode"} {
		out, errOut, code := runCLI(t, []string{cmd, dir}, nil)
		require.Equal(t, 1, code, cmd)
		require.Empty(t, out, cmd)
		require.Equal(t, "kwire: "+dir+": is a directory\n", errOut, cmd)
	}
}

// A file of frames given to kwire pcap (binary, as kwire encode --as
// binary writes it) says its first bytes in their order and which
// commands read frames; the capture reader said "unknown magic c5000000",
// the bytes 00 00 00 c5 read as a little-endian number, and no more.
// Compressed, the capture reader says the bytes so too.
func TestPcapOfFramesSaysDecode(t *testing.T) {
	frame := exampleFrame(t, "Produce", 9, false, 7)
	dir := t.TempDir()
	f := filepath.Join(dir, "frame.bin")
	require.NoError(t, os.WriteFile(f, frame, 0o644))
	start := fmt.Sprintf("% x", frame[:4])
	for _, c := range []struct {
		args  []string
		stdin []byte
		name  string
	}{{[]string{"pcap", f}, nil, f}, {[]string{"pcap", "-"}, frame, "-"}} {
		out, errOut, code := runCLI(t, c.args, c.stdin)
		require.Equal(t, 1, code, errOut)
		require.Empty(t, out)
		require.Equal(t, "kwire: "+c.name+": capture: not a pcap or pcapng file: it starts "+start+", no capture file's magic: kwire decode reads frames, and kwire check their protocol rules\n", errOut)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(frame)
	require.NoError(t, zw.Close())
	gzf := filepath.Join(dir, "frame.bin.gz")
	require.NoError(t, os.WriteFile(gzf, gz.Bytes(), 0o644))
	_, errOut, code := runCLI(t, []string{"pcap", gzf}, nil)
	require.Equal(t, 1, code, errOut)
	require.Equal(t, "kwire: "+gzf+": capture: not a pcap or pcapng file: it starts "+start+", no capture file's magic\n", errOut)
}
