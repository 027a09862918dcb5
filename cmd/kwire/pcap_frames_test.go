package main

import (
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Each exchange `kwire pcap` prints names the packets that completed its
// request and its response, numbered as Wireshark numbers frames, so that
// a response leads to its request as Wireshark's "Request Frame" does
// (issue 24). Checked against tshark's own kafka.request_frame on a capture
// of real clients.
func TestPcapFramesMatchWireshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	require.NoError(t, err, "tshark is needed (CI installs it)")
	out, errOut, code := runCLI(t, []string{"pcap", "--records", "size", "kfake-clients.pcapng"}, nil)
	require.Equal(t, 0, code, errOut)

	type exchange struct {
		Conn          string `json:"conn"`
		CorrelationID int32  `json:"correlationId"`
		Paired        bool   `json:"paired"`
		RequestFrame  int    `json:"requestFrame"`
		ResponseFrame int    `json:"responseFrame"`
	}
	var xs []exchange
	ports := map[string]bool{}
	portRE := regexp.MustCompile(`->[^ ]*:(\d+)$`)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var x exchange
		require.NoError(t, json.Unmarshal([]byte(line), &x))
		require.Positive(t, x.RequestFrame, line[:min(len(line), 200)])
		if x.Paired {
			require.Greater(t, x.ResponseFrame, x.RequestFrame)
		}
		if m := portRE.FindStringSubmatch(x.Conn); m != nil {
			ports[m[1]] = true
		}
		xs = append(xs, x)
	}
	require.Greater(t, len(xs), 50)

	args := []string{"-r", "kfake-clients.pcapng", "-Y", "kafka", "-T", "fields",
		"-e", "frame.number", "-e", "kafka.correlation_id", "-e", "kafka.request_frame"}
	for p := range ports {
		args = append(args, "-d", "tcp.port=="+p+",kafka")
	}
	cmd := exec.Command(tshark, args...)
	cmd.Dir = workDir
	ws, err := cmd.Output()
	require.NoError(t, err)
	// Wireshark's rows: a request's frame number, and for a response the
	// frame of its request.
	requestOf := map[int]int{}
	isRequest := map[int]bool{}
	for _, row := range strings.Split(strings.TrimSpace(string(ws)), "\n") {
		f := strings.Split(row, "\t")
		n, _ := strconv.Atoi(f[0])
		if len(f) > 2 && f[2] != "" {
			requestOf[n], _ = strconv.Atoi(strings.Split(f[2], ",")[0])
		} else {
			isRequest[n] = true
		}
	}
	// Wireshark pairs most of them (not all: it leaves some responses of
	// versions newer than its dissector unpaired); where it pairs, kwire
	// agrees.
	checked := 0
	for _, x := range xs {
		require.True(t, isRequest[x.RequestFrame], "frame %d (%s correlation %d) is a request to Wireshark", x.RequestFrame, x.Conn, x.CorrelationID)
		if req, ok := requestOf[x.ResponseFrame]; ok && x.Paired {
			require.Equal(t, req, x.RequestFrame, "response frame %d's request (%s correlation %d)", x.ResponseFrame, x.Conn, x.CorrelationID)
			checked++
		}
	}
	t.Logf("%d exchanges, %d paired by Wireshark too, all alike", len(xs), checked)
	require.Greater(t, checked, len(xs)/2)
}
