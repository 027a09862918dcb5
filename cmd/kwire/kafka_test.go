package main

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// unknownTagFrame is apiVersionsV3 with an unknown tag 5 (one byte, 2a) in
// the body's tag section: a frame that decodes with a warning.
const unknownTagFrame = "0000001e0012000300000007" + "00056b7769726500" + "066b77697265" + "04312e30" + "01" + "05012a"

// bodyOf is the "body" of value JSON.
func bodyOf(t *testing.T, js string) map[string]any {
	t.Helper()
	var v struct {
		Body map[string]any `json:"body"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &v), js)
	return v.Body
}

// --kafka on every command that prints value JSON: Kafka's own form, the
// same through decode, batch and pcap; refused where it has no meaning.
func TestKafkaFlag(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"decode", "--kafka", "--format", "ndjson", unknownTagFrame}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, map[string]any{"clientSoftwareName": "kwire", "clientSoftwareVersion": "1.0"}, bodyOf(t, out))
	require.Contains(t, errOut, "kwire: warning: at byte 31 (body._unknownTaggedFields): unknown tag 5 at v3")
	def, _, _ := runCLI(t, []string{"decode", "--format", "ndjson", unknownTagFrame}, nil)
	require.Contains(t, def, `"_unknownTaggedFields":[{"tag":5,"data":"Kg=="}]`)

	batch, errOut, code := runCLI(t, []string{"batch", "--kafka"}, []byte(unknownTagFrame+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, out, batch)

	for _, bad := range [][]string{
		{"decode", "--kafka", "--format", "tree", unknownTagFrame},
		{"decode", "--kafka", "--records", "size", unknownTagFrame},
		{"batch", "--kafka", "--records", "size"},
		{"pcap", "--kafka", "--records", "size", "kafka.pcap"},
		{"proxy", "--kafka", "--records", "size", "--upstream", "127.0.0.1:1"},
	} {
		_, errOut, code := runCLI(t, bad, nil)
		require.Equal(t, 2, code, "%v: %s", bad, errOut)
		require.Contains(t, errOut, "--kafka", bad)
	}

	// A capture of real clients: consumer-protocol metadata and
	// assignments, records, as base64 strings; no key of kwire's own in
	// any body; each frame as kwire decode --kafka shows it.
	pcapOut, errOut, code := runCLI(t, []string{"pcap", "--kafka", "kfake-clients.pcapng"}, nil)
	require.Equal(t, 0, code, errOut)
	seen := map[string]bool{}
	for _, l := range parsePcapLines(t, pcapOut) {
		for _, side := range []json.RawMessage{l.Request, l.Response} {
			if side == nil {
				continue
			}
			body := string(side)
			if i := strings.Index(body, `"body":`); i >= 0 {
				require.NotContains(t, body[i:], `"_`, l.APIName)
			}
		}
		switch l.APIName {
		case "JoinGroup":
			for _, p := range bodyOf(t, string(l.Request))["protocols"].([]any) {
				require.IsType(t, "", p.(map[string]any)["metadata"])
				seen["JoinGroup"] = true
			}
		case "SyncGroup":
			if a, ok := bodyOf(t, string(l.Response))["assignment"]; ok {
				require.IsType(t, "", a)
				seen["SyncGroup"] = true
			}
		case "Produce":
			tp := bodyOf(t, string(l.Request))["topicData"].([]any)[0].(map[string]any)
			require.IsType(t, "", tp["partitionData"].([]any)[0].(map[string]any)["records"])
			seen["Produce"] = true
		}
	}
	require.Equal(t, map[string]bool{"JoinGroup": true, "SyncGroup": true, "Produce": true}, seen)
}

// parsePcapLines reads kwire pcap's lines.
func parsePcapLines(t *testing.T, out string) []proxyLine { return parseProxyLines(t, out) }

// Warnings go to standard error, a line each, naming the frame they belong
// to (the line, the exchange); guessed readings say so; --strict makes any
// warning exit 1.
func TestWarningsOnStderr(t *testing.T) {
	in := apiVersionsV3 + "\n" + unknownTagFrame + "\n" + "0000000a00000007000000000000\n"
	_, errOut, code := runCLI(t, []string{"batch", "--jobs", "2"}, []byte(in))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "kwire: warning: line 2: at byte 31 (body._unknownTaggedFields): unknown tag 5 at v3 (1 byte kept)\n")
	require.Regexp(t, `(?m)^kwire: line 3: read as a response: guessed \w+ v\d+ .*response, confidence [0-9.]+`, errOut)
	require.NotContains(t, errOut, "line 1:")
	_, errOut, code = runCLI(t, []string{"batch", "--strict"}, []byte(in))
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: 1 line had warnings (--strict)")
	_, _, code = runCLI(t, []string{"batch", "--strict"}, []byte(apiVersionsV3+"\n"))
	require.Equal(t, 0, code)

	// kafka.pcap holds Metadata v12 exchanges with an empty unknown tag
	// in the request and null arrays in the response.
	out, errOut, code := runCLI(t, []string{"pcap", "kafka.pcap"}, nil)
	require.Equal(t, 1, code, errOut) // two of its frames are cut by the capture
	require.NotContains(t, errOut, "(--strict)")
	require.Contains(t, errOut, "kwire: warning: conn 2 correlation 8 request: at byte 23 (body._unknownTaggedFields): unknown tag 0 at v12 (0 bytes kept)\n")
	require.Contains(t, errOut, "kwire: warning: conn 2 correlation 8 response: at byte 13 (body.brokers): null where the schema says non-nullable at v12\n")
	require.Contains(t, out, `"correlationId":8`)
	_, errOut, code = runCLI(t, []string{"pcap", "--strict", "kafka.pcap"}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: 2 exchanges had warnings (--strict)")
	_, _, code = runCLI(t, []string{"pcap", "--strict", "--api", "ApiVersions", "kafka.pcap"}, nil)
	require.Equal(t, 0, code)

	// An unpaired response (its request before the capture began) is
	// guessed, and says so.
	file := segmentsPcap(t, segment{false, 0, exampleFrame(t, "ApiVersions", 3, true, 5)})
	_, errOut, code = runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `(?m)^kwire: conn 1 correlation 5 response: read as a response: guessed \w+ v\d+`, errOut)
}

// kwire proxy --kafka prints Kafka's form for a consumer group's traffic:
// its JoinGroup and SyncGroup carry consumer-protocol metadata and
// assignments, here base64; records too.
func TestProxyCLIKafka(t *testing.T) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "k"))
	p := startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--kafka")
	kgoTraffic(t, p.addr, "producer", "k", 2)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.ConsumerGroup("g"), kgo.ConsumeTopics("k"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	for got := 0; got < 2; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(*kgo.Record) { got++ })
	}
	cl.Close()
	out, _ := p.stop(t)
	seen := map[string]bool{}
	key := regexp.MustCompile(`"_\w+":`)
	for _, l := range parseProxyLines(t, out) {
		require.False(t, key.Match(l.Request) || key.Match(l.Response), "no kwire-only keys: %s %s", l.Request, l.Response)
		switch l.APIName {
		case "JoinGroup":
			for _, pr := range bodyOf(t, string(l.Request))["protocols"].([]any) {
				require.IsType(t, "", pr.(map[string]any)["metadata"])
				seen[l.APIName] = true
			}
		case "SyncGroup":
			require.IsType(t, "", bodyOf(t, string(l.Response))["assignment"])
			seen[l.APIName] = true
		case "Produce":
			seen[l.APIName] = true
		}
	}
	require.Equal(t, map[string]bool{"JoinGroup": true, "SyncGroup": true, "Produce": true}, seen)
}
