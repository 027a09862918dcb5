package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// needTool finds a tool the test needs. Where CI runs (CI set), a missing
// tool fails the test: .ci/run installs it; elsewhere the test is skipped.
func needTool(t *testing.T, name string) string {
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI (.ci/run installs it)", name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

type produced struct{ key, value string }

// clientTraffic drives real clients against an in-process kfake broker on
// 127.0.0.1:port: franz-go producing with every codec, keys and headers,
// consuming, and a consumer group that joins, syncs, heartbeats and
// commits; then kcat (librdkafka) producing and consuming. It returns the
// records produced.
func clientTraffic(t *testing.T, port int, kcat string) []produced {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, "orders", "kcat"))
	require.NoError(t, err)
	defer cluster.Close()
	seeds := kgo.SeedBrokers(cluster.ListenAddrs()...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var want []produced
	codecs := []struct {
		name string
		c    kgo.CompressionCodec
	}{{"none", kgo.NoCompression()}, {"gzip", kgo.GzipCompression()}, {"snappy", kgo.SnappyCompression()}, {"lz4", kgo.Lz4Compression()}, {"zstd", kgo.ZstdCompression()}}
	for _, c := range codecs {
		cl, err := kgo.NewClient(seeds, kgo.ProducerBatchCompression(c.c), kgo.ProducerLinger(20*time.Millisecond), kgo.ClientID("kwire-"+c.name))
		require.NoError(t, err)
		var recs []*kgo.Record
		for i := 0; i < 5; i++ {
			p := produced{key: c.name + "-key-" + strconv.Itoa(i), value: strings.Repeat(c.name+" value "+strconv.Itoa(i)+" ", 8)}
			want = append(want, p)
			recs = append(recs, &kgo.Record{Topic: "orders", Key: []byte(p.key), Value: []byte(p.value),
				Headers: []kgo.RecordHeader{{Key: "codec", Value: []byte(c.name)}}})
		}
		require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
		cl.Close()
	}

	// A consumer group: join, sync, heartbeat, fetch, commit.
	group, err := kgo.NewClient(seeds, kgo.ConsumerGroup("billing"), kgo.ConsumeTopics("orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.HeartbeatInterval(100*time.Millisecond), kgo.ClientID("kwire-group"))
	require.NoError(t, err)
	got := 0
	for got < len(want) {
		fs := group.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(*kgo.Record) { got++ })
	}
	time.Sleep(300 * time.Millisecond) // a few heartbeats
	require.NoError(t, group.CommitUncommittedOffsets(ctx))
	group.Close()

	// kcat, librdkafka's command-line client.
	addr := "127.0.0.1:" + strconv.Itoa(port)
	in := ""
	for i := 0; i < 3; i++ {
		p := produced{key: "kcat-key-" + strconv.Itoa(i), value: "kcat value " + strconv.Itoa(i)}
		want = append(want, p)
		in += p.key + ":" + p.value + "\n"
	}
	cmd := exec.CommandContext(ctx, kcat, "-b", addr, "-P", "-t", "kcat", "-K", ":", "-X", "broker.address.family=v4")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	cmd = exec.CommandContext(ctx, kcat, "-b", addr, "-C", "-t", "kcat", "-o", "beginning", "-e", "-q", "-X", "broker.address.family=v4")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "kcat value 2")
	return want
}

// capture runs dumpcap on the loopback interface for the broker's port
// while fn runs, and returns the pcapng file.
func captureLoopback(t *testing.T, port int, fn func()) string {
	dumpcap := needTool(t, "dumpcap")
	file := filepath.Join(t.TempDir(), "kafka.pcapng")
	cmd := exec.Command(dumpcap, "-i", "lo", "-f", "tcp port "+strconv.Itoa(port), "-w", file, "-q")
	stderr, _ := cmd.StderrPipe()
	require.NoError(t, cmd.Start())
	ready := make(chan struct{})
	go func() {
		s := bufio.NewScanner(stderr)
		once := false
		for s.Scan() {
			if !once && strings.Contains(s.Text(), "File:") {
				once = true
				close(ready)
			}
		}
		if !once {
			close(ready)
		}
	}()
	select {
	case <-ready:
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("dumpcap did not start")
	}
	time.Sleep(200 * time.Millisecond)
	fn()
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
	}
	return file
}

type pcapLine struct {
	APIName       string          `json:"apiName"`
	Paired        bool            `json:"paired"`
	NoResponse    bool            `json:"noResponseExpected"`
	Request       json.RawMessage `json:"request"`
	Response      json.RawMessage `json:"response"`
	RequestError  string          `json:"requestError"`
	ResponseError string          `json:"responseError"`
}

// recordsIn collects the keys and values of the records in Produce requests.
func recordsIn(t *testing.T, lines []pcapLine) []produced {
	var out []produced
	for _, l := range lines {
		if l.APIName != "Produce" {
			continue
		}
		var req struct {
			Body struct {
				TopicData []struct {
					PartitionData []struct {
						Records []struct {
							Records []struct {
								Key   struct{ Text string } `json:"key"`
								Value struct{ Text string } `json:"value"`
							} `json:"records"`
						} `json:"records"`
					} `json:"partitionData"`
				} `json:"topicData"`
			} `json:"body"`
		}
		require.NoError(t, json.Unmarshal(l.Request, &req))
		for _, td := range req.Body.TopicData {
			for _, pd := range td.PartitionData {
				for _, b := range pd.Records {
					for _, r := range b.Records {
						out = append(out, produced{r.Key.Text, r.Value.Text})
					}
				}
			}
		}
	}
	return out
}

func checkCapture(t *testing.T, file string, port int, want []produced) map[string]int {
	out, errOut, code := runCLI(t, []string{"pcap", "--port", strconv.Itoa(port), file}, nil)
	require.Equal(t, 0, code, errOut)
	var lines []pcapLine
	apis := map[string]int{}
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l pcapLine
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		require.Empty(t, l.RequestError)
		require.Empty(t, l.ResponseError)
		// A fetch long poll still waiting when its client closes the
		// connection never gets its answer; every other request is paired.
		require.True(t, l.Paired || l.NoResponse || l.APIName == "Fetch" && l.Response == nil, "unpaired %s", l.APIName)
		lines = append(lines, l)
		apis[l.APIName]++
	}
	got := recordsIn(t, lines)
	sort.Slice(got, func(i, j int) bool { return got[i].key < got[j].key })
	sort.Slice(want, func(i, j int) bool { return want[i].key < want[j].key })
	require.Equal(t, want, got, "the records decoded from the capture are exactly those produced")
	for _, a := range []string{"ApiVersions", "Metadata", "Produce", "Fetch", "FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit"} {
		require.Greater(t, apis[a], 0, "the capture holds %s exchanges", a)
	}
	return apis
}

// TestCaptureRealClients captures kcat and franz-go talking to a kfake
// broker on loopback and decodes the capture with kwire pcap. With -update
// it also refreshes testdata/captures/kfake-clients.pcapng at the top (see its README.md).
func TestCaptureRealClients(t *testing.T) {
	kcat := needTool(t, "kcat")
	port := freePort(t)
	var want []produced
	file := captureLoopback(t, port, func() { want = clientTraffic(t, port, kcat) })
	apis := checkCapture(t, file, port, want)
	t.Logf("exchanges per API: %v", apis)
	if *update {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(sharedTestdata, "captures", "kfake-clients.pcapng"), b, 0o644))
		recs := make([]map[string]string, len(want))
		for i, p := range want {
			recs[i] = map[string]string{"key": p.key, "value": p.value}
		}
		wb, _ := json.Marshal(map[string]any{"port": port, "records": recs})
		require.NoError(t, os.WriteFile("testdata/kfake-clients.json", wb, 0o644))
	}
}

// TestCommittedCapture decodes the committed capture of real clients, made
// by TestCaptureRealClients -update.
func TestCommittedCapture(t *testing.T) {
	b, err := os.ReadFile("testdata/kfake-clients.json")
	require.NoError(t, err)
	var meta struct {
		Port    int
		Records []struct{ Key, Value string }
	}
	require.NoError(t, json.Unmarshal(b, &meta))
	require.NotEmpty(t, meta.Records)
	var want []produced
	for _, r := range meta.Records {
		want = append(want, produced{r.Key, r.Value})
	}
	checkCapture(t, "kfake-clients.pcapng", meta.Port, want)
	out, _, code := runCLI(t, []string{"pcap", "--summary", "--port", fmt.Sprint(meta.Port), "kfake-clients.pcapng"}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, out, "Produce")
	require.Contains(t, out, "P50 ms")
	out, _, code = runCLI(t, []string{"pcap", "--api", "Produce", "--client-id", "kwire-zstd", "--port", fmt.Sprint(meta.Port), "kfake-clients.pcapng"}, nil)
	require.Equal(t, 0, code)
	n := strings.Count(strings.TrimSpace(out), "\n") + 1
	require.GreaterOrEqual(t, n, 1)
	require.NotContains(t, out, `"clientId":"kwire-gzip"`)
}
