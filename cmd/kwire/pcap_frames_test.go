package main

import (
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
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

// TestPcapApiVersionsUnsupported: kfake answers a client's ApiVersions v5
// (newer than it serves) with UNSUPPORTED_VERSION in the v0 layout
// (KIP-511), captured on loopback. kwire pcap reads that answer as Kafka's
// client does, at v0 with the broker's ranges, not as a broken v5; so does
// kwire decode told the request's version.
func TestPcapApiVersionsUnsupported(t *testing.T) {
	file, err := filepath.Abs(filepath.Join(checkCaptures, "conn.retry-version.good.pcapng"))
	require.NoError(t, err)
	out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	var first struct {
		APIVersion int16           `json:"apiVersion"`
		Response   json.RawMessage `json:"response"`
		Err        json.RawMessage `json:"responseError"`
	}
	require.NoError(t, json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &first))
	require.Equal(t, int16(5), first.APIVersion)
	require.Nil(t, first.Err)
	var rsp struct {
		APIVersion int16 `json:"apiVersion"`
		Body       struct {
			ErrorCode int16            `json:"errorCode"`
			APIKeys   []map[string]int `json:"apiKeys"`
		} `json:"body"`
		Warnings []any `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal(first.Response, &rsp))
	require.Equal(t, int16(0), rsp.APIVersion)
	require.Equal(t, int16(35), rsp.Body.ErrorCode)
	require.NotEmpty(t, rsp.Body.APIKeys)
	require.Empty(t, rsp.Warnings)

	// Such an answer's bytes, decoded as the response to a v5 request.
	v0 := kmsg.NewApiVersionsResponse()
	v0.ErrorCode = 35
	v0.ApiKeys = []kmsg.ApiVersionsResponseApiKey{{ApiKey: 18, MinVersion: 0, MaxVersion: 4}}
	b := append([]byte{0, 0, 0, 0, 0, 0, 0, 1}, v0.AppendTo(nil)...)
	b[3] = byte(len(b) - 4)
	out, errOut, code = runCLI(t, []string{"decode", "--format", "ndjson", "--response", "--api", "ApiVersions", "--version", "5"}, []byte(hex.EncodeToString(b)))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"apiVersion":0,"header":{"correlationId":1},"body":{"errorCode":35,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}]}`)
}
