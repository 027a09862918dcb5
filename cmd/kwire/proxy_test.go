package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// proxyCLI is kwire proxy running as a user runs it.
type proxyCLI struct {
	cmd    *exec.Cmd
	addr   string
	stdout lockedBuffer
	stderr lockedBuffer
	done   chan struct{}
}

var listeningRE = regexp.MustCompile(`listening on (\S+),`)

// startProxyCLI runs kwire proxy with args and waits until it listens.
func startProxyCLI(t *testing.T, args ...string) *proxyCLI {
	t.Helper()
	p := &proxyCLI{cmd: exec.Command(kwireBin, append([]string{"proxy"}, args...)...), done: make(chan struct{})}
	p.cmd.Dir = workDir
	p.cmd.Stdout = &p.stdout
	errPipe, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	addr := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(errPipe)
		for s.Scan() {
			p.stderr.Write([]byte(s.Text() + "\n"))
			if m := listeningRE.FindStringSubmatch(s.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		p.cmd.Wait()
		close(p.done)
	}()
	select {
	case p.addr = <-addr:
	case <-p.done:
		t.Fatalf("kwire proxy exited: %s", p.stderr.String())
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("kwire proxy did not start: %s", p.stderr.String())
	}
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// signal sends sig and, for SIGINT, waits for the proxy to exit.
func (p *proxyCLI) stop(t *testing.T) (string, string) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("kwire proxy did not stop on SIGINT: %s", p.stderr.String())
	}
	require.Equal(t, 0, p.cmd.ProcessState.ExitCode(), p.stderr.String())
	return p.stdout.String(), p.stderr.String()
}

// brokerFront records the remote address of every connection a kfake
// broker accepts.
type brokerFront struct {
	net.Listener
	mu      *sync.Mutex
	remotes *[]string
}

func (l brokerFront) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.mu.Lock()
		*l.remotes = append(*l.remotes, c.RemoteAddr().String())
		l.mu.Unlock()
	}
	return c, err
}

// kfakeCluster starts kfake with three brokers on loopback, each fronted by
// a listener that counts the connections it accepts.
func kfakeCluster(t *testing.T, opts ...kfake.Opt) (*kfake.Cluster, func() []string) {
	var mu sync.Mutex
	var remotes []string
	listen := func(network, addr string) (net.Listener, error) {
		if strings.HasPrefix(addr, ":") {
			addr = "127.0.0.1" + addr
		}
		ln, err := net.Listen(network, addr)
		if err != nil {
			return nil, err
		}
		return brokerFront{ln, &mu, &remotes}, nil
	}
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(3), kfake.ListenFn(listen)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), remotes...)
	}
}

// produceFromV0 makes the cluster's ApiVersions answers list Produce from
// version 0, as a real broker's do (kfake starts at 3): librdkafka enables
// compression only when they do. It asks the cluster once directly, which
// the caller counts as one connection the proxy did not make.
func produceFromV0(t *testing.T, c *kfake.Cluster) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()[0]))
	require.NoError(t, err)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
	require.NoError(t, err)
	c.ControlKey(18, func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		out := *resp
		out.Version = r.GetVersion()
		out.ApiKeys = append([]kmsg.ApiVersionsResponseApiKey(nil), resp.ApiKeys...)
		for i := range out.ApiKeys {
			if out.ApiKeys[i].ApiKey == 0 {
				out.ApiKeys[i].MinVersion = 0
			}
		}
		return &out, nil, true
	})
}

// proxyLine is the part of an exchange's line the tests read.
type proxyLine struct {
	Conn          string          `json:"conn"`
	APIName       string          `json:"apiName"`
	APIVersion    int             `json:"apiVersion"`
	Paired        bool            `json:"paired"`
	NoResponse    bool            `json:"noResponseExpected"`
	ConnClosed    bool            `json:"connClosed"`
	LatencyMs     *float64        `json:"latencyMs"`
	Rewritten     int             `json:"rewritten"`
	Redacted      []string        `json:"redacted"`
	Request       json.RawMessage `json:"request"`
	Response      json.RawMessage `json:"response"`
	RequestError  string          `json:"requestError"`
	ResponseError string          `json:"responseError"`
}

func parseProxyLines(t *testing.T, out string) []proxyLine {
	t.Helper()
	var lines []proxyLine
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		if s == "" {
			continue
		}
		var l proxyLine
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		lines = append(lines, l)
	}
	return lines
}

// proxiedRecords collects the keys and values of the records in the
// Produce requests of the lines, as pcapLine's recordsIn does.
func proxiedRecords(t *testing.T, lines []proxyLine) []produced {
	var pl []pcapLine
	for _, l := range lines {
		pl = append(pl, pcapLine{APIName: l.APIName, Request: l.Request})
	}
	return recordsIn(t, pl)
}

func clientIDIn(req json.RawMessage) string {
	var r struct {
		Header struct {
			ClientID string `json:"clientId"`
		} `json:"header"`
	}
	json.Unmarshal(req, &r)
	return r.Header.ClientID
}

// TestProxyRealClients runs real clients through kwire proxy against kfake
// with three brokers: franz-go producing with every compression codec,
// in a transaction, and consuming in a group; kcat (librdkafka) producing
// and consuming in a group. Every client sees every record; the proxy's
// output holds every exchange, paired, with the records; and the brokers
// accepted exactly the connections the proxy made (none from a client
// directly).
func TestProxyRealClients(t *testing.T) {
	kcat := needTool(t, "kcat")
	cluster, accepted := kfakeCluster(t, kfake.SeedTopics(3, "orders", "kcat", "txn"))
	produceFromV0(t, cluster)
	direct := len(accepted())
	p := startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--format", "ndjson")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seeds := kgo.SeedBrokers(p.addr)

	var want []produced
	codecs := []struct {
		name string
		c    kgo.CompressionCodec
	}{{"none", kgo.NoCompression()}, {"gzip", kgo.GzipCompression()}, {"snappy", kgo.SnappyCompression()}, {"lz4", kgo.Lz4Compression()}, {"zstd", kgo.ZstdCompression()}}
	for _, c := range codecs {
		cl, err := kgo.NewClient(seeds, kgo.ProducerBatchCompression(c.c), kgo.ProducerLinger(10*time.Millisecond), kgo.ClientID("kwire-"+c.name))
		require.NoError(t, err)
		var recs []*kgo.Record
		for i := 0; i < 6; i++ {
			p := produced{key: c.name + "-key-" + strconv.Itoa(i), value: strings.Repeat(c.name+" value "+strconv.Itoa(i)+" ", 8)}
			want = append(want, p)
			recs = append(recs, &kgo.Record{Topic: "orders", Key: []byte(p.key), Value: []byte(p.value),
				Headers: []kgo.RecordHeader{{Key: "codec", Value: []byte(c.name)}}})
		}
		require.NoError(t, cl.ProduceSync(ctx, recs...).FirstErr())
		cl.Close()
	}

	// A transaction, committed.
	tx, err := kgo.NewClient(seeds, kgo.TransactionalID("kwire-tx"), kgo.ClientID("kwire-tx"), kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	require.NoError(t, err)
	require.NoError(t, tx.BeginTransaction())
	var txWant []produced
	for i := 0; i < 4; i++ {
		p := produced{key: "tx-key-" + strconv.Itoa(i), value: strings.Repeat("in a transaction "+strconv.Itoa(i)+" ", 10)}
		txWant = append(txWant, p)
		require.NoError(t, tx.ProduceSync(ctx, &kgo.Record{Topic: "txn", Key: []byte(p.key), Value: []byte(p.value)}).FirstErr())
	}
	require.NoError(t, tx.EndTransaction(ctx, kgo.TryCommit))
	tx.Close()
	want = append(want, txWant...)

	// A consumer group reading orders, and a read-committed consumer of txn.
	group, err := kgo.NewClient(seeds, kgo.ConsumerGroup("billing"), kgo.ConsumeTopics("orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ClientID("kwire-group"))
	require.NoError(t, err)
	got := map[string]string{}
	for len(got) < 30 {
		fs := group.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "the group consumer got %d of 30 records", len(got))
		fs.EachRecord(func(r *kgo.Record) { got[string(r.Key)] = string(r.Value) })
	}
	require.NoError(t, group.CommitUncommittedOffsets(ctx))
	group.Close()
	for _, w := range want[:30] {
		require.Equal(t, w.value, got[w.key])
	}
	rc, err := kgo.NewClient(seeds, kgo.ConsumeTopics("txn"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ClientID("kwire-read-committed"))
	require.NoError(t, err)
	gotTx := map[string]string{}
	for len(gotTx) < len(txWant) {
		fs := rc.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(r *kgo.Record) { gotTx[string(r.Key)] = string(r.Value) })
	}
	rc.Close()
	for _, w := range txWant {
		require.Equal(t, w.value, gotTx[w.key])
	}

	// kcat: produce with every codec, then consume in a consumer group
	// until the end.
	var kcatWant []produced
	for _, z := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		in := ""
		for i := 0; i < 3; i++ {
			p := produced{key: "kcat-" + z + "-" + strconv.Itoa(i), value: strings.Repeat("kcat "+z+" value "+strconv.Itoa(i)+" ", 10)}
			kcatWant = append(kcatWant, p)
			in += p.key + ":" + p.value + "\n"
		}
		cmd := exec.CommandContext(ctx, kcat, "-b", p.addr, "-P", "-t", "kcat", "-K", ":", "-z", z, "-X", "broker.address.family=v4")
		cmd.Stdin = strings.NewReader(in)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	want = append(want, kcatWant...)
	cmd := exec.CommandContext(ctx, kcat, "-b", p.addr, "-G", "kcat-group", "-o", "beginning", "-e", "-q", "-f", "%k=%s\n",
		"-X", "broker.address.family=v4", "kcat")
	out, err := cmd.Output()
	require.NoError(t, err, string(out))
	for _, w := range kcatWant {
		require.Contains(t, string(out), w.key+"="+w.value+"\n")
	}

	stdout, stderr := p.stop(t)
	lines := parseProxyLines(t, stdout)
	apis := map[string]int{}
	brokers := map[string]bool{}
	rewritten := 0
	compressions := map[string]bool{}
	for _, l := range lines {
		if l.APIName == "Produce" {
			for _, m := range regexp.MustCompile(`"compression":"(\w+)"`).FindAllStringSubmatch(string(l.Request), -1) {
				compressions[m[1]+" "+clientIDIn(l.Request)] = true
			}
		}
		require.Empty(t, l.RequestError, "%s", l.APIName)
		require.Empty(t, l.ResponseError, "%s", l.APIName)
		// A fetch or heartbeat still waiting when its client closed the
		// connection is never answered; every other exchange is paired.
		require.True(t, l.Paired || l.NoResponse || l.ConnClosed, "unpaired %s", l.APIName)
		if l.Paired {
			require.NotNil(t, l.LatencyMs)
		}
		apis[l.APIName]++
		rewritten += l.Rewritten
		brokers[l.Conn[strings.LastIndex(l.Conn, "->")+2:]] = true
	}
	gotRecs := proxiedRecords(t, lines)
	sort.Slice(gotRecs, func(i, j int) bool { return gotRecs[i].key < gotRecs[j].key })
	sort.Slice(want, func(i, j int) bool { return want[i].key < want[j].key })
	require.Equal(t, want, gotRecs, "the records in the proxy's output are exactly those produced")
	for _, a := range []string{"ApiVersions", "Metadata", "Produce", "Fetch", "FindCoordinator", "JoinGroup", "SyncGroup",
		"OffsetCommit", "OffsetFetch", "InitProducerId", "EndTxn", "LeaveGroup", "Heartbeat"} {
		require.Greater(t, apis[a], 0, "the output holds %s exchanges: %v", a, apis)
	}
	for _, c := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		require.True(t, compressions[c+" rdkafka"], "kcat produced %s batches: %v", c, compressions)
		require.True(t, compressions[c+" kwire-"+c], "franz-go produced %s batches: %v", c, compressions)
	}
	require.Len(t, brokers, 3, "all three brokers were reached through the proxy: %v", brokers)
	require.Greater(t, rewritten, 0)
	m := regexp.MustCompile(`stopped: (\d+) connections, (\d+) exchanges \((\d+) shown, (\d+) skipped`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	conns, _ := strconv.Atoi(m[1])
	require.Equal(t, "0", m[4], "no exchange skipped")
	require.Equal(t, m[2], m[3], "every exchange shown")
	require.Equal(t, strconv.Itoa(len(lines)), m[3])
	require.Len(t, accepted()[direct:], conns, "the brokers accepted exactly the connections the proxy made: no client reached a broker directly")
	t.Logf("%d exchanges over %d connections: %v", len(lines), conns, apis)
}
