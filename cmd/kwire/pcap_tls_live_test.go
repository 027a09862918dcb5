package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPcapLiveTLS decrypts live TLS traffic: dumpcap writes its capture
// to a pipe that kwire pcap --tls-keylog keys.log - reads while a
// franz-go client, over TLS 1.3, produces 3 records to kfake and fetches
// them back, writing its secrets to keys.log as its handshakes go. The
// key log does not exist when kwire starts: each session's secrets are
// read from it when its first encrypted record comes.
func TestPcapLiveTLS(t *testing.T) {
	port := freePort(t)
	keylog := filepath.Join(t.TempDir(), "keys.log")
	kw, stdin, lines, stderr := startPiped(t, "pcap", "--port", strconv.Itoa(port), "--tls-keylog", keylog, "-")
	stop := startDumpcap(t, port, stdin).stop
	run := tlsTraffic(t, port, keylog, tlsClients{}, true)
	stop()
	var out []string
	for l := range lines {
		out = append(out, l)
	}
	require.NoError(t, kw.Wait(), stderr.String())
	require.NotContains(t, stderr.String(), "encrypted, not decoded")
	var got []produced
	apis := map[string]int{}
	for _, s := range out {
		var l struct {
			pcapLine
			TLS string `json:"tls"`
		}
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		require.Empty(t, l.RequestError)
		require.Empty(t, l.ResponseError)
		require.Equal(t, run.Suites, []string{l.TLS}, s)
		apis[l.APIName]++
		got = append(got, recordsIn(t, []pcapLine{l.pcapLine})...)
	}
	require.Greater(t, apis["Produce"], 0, strings.Join(out, "\n"))
	require.Equal(t, sortedRecords(run.want()), sortedRecords(got))
}
