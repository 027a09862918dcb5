package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
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

// fileOutput is a process's standard output written straight to a file:
// no copying goroutine and no growing buffer in the test's process, whose
// CPU the soak's client shares (a buffer of some hundred megabytes, grown
// by doubling, stalled it for a second at a time).
type fileOutput struct{ f *os.File }

func (o *fileOutput) String() string {
	if o.f == nil {
		return "" // the test took the output itself
	}
	b, _ := os.ReadFile(o.f.Name())
	return string(b)
}

// proxyCLI is kwire proxy running as a user runs it.
type proxyCLI struct {
	cmd    *exec.Cmd
	addr   string
	stdout fileOutput
	stderr lockedBuffer
	done   chan struct{}
}

var listeningRE = regexp.MustCompile(`listening on (\S+),`)

// startProxyCLI runs kwire proxy with args and waits until it listens.
func startProxyCLI(t *testing.T, args ...string) *proxyCLI {
	t.Helper()
	return startProxyCLILimited(t, 0, args...)
}

// startProxyCLILimited is startProxyCLI with at most nofile descriptors
// for the proxy (sh's ulimit in the child; 0: the default).
func startProxyCLILimited(t *testing.T, nofile int, args ...string) *proxyCLI {
	t.Helper()
	cmd := exec.Command(kwireBin, append([]string{"proxy"}, args...)...)
	if nofile > 0 {
		cmd = exec.Command("sh", append([]string{"-c", `ulimit -n "$0" && exec "$@"`, strconv.Itoa(nofile), kwireBin, "proxy"}, args...)...)
	}
	p := &proxyCLI{cmd: cmd, done: make(chan struct{})}
	p.cmd.Dir = workDir
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	require.NoError(t, err)
	t.Cleanup(func() { out.Close() })
	p.stdout.f, p.cmd.Stdout = out, out
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

// stop interrupts the proxy (SIGINT), waits for it to exit and returns
// its standard output and error; it must exit 0.
func (p *proxyCLI) stop(t *testing.T) (string, string) {
	t.Helper()
	out, errOut, code := p.stopStatus(t)
	require.Equal(t, 0, code, errOut)
	return out, errOut
}

// stopStatus is stop, the exit status returned rather than required.
func (p *proxyCLI) stopStatus(t *testing.T) (string, string, int) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGINT))
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		t.Fatalf("kwire proxy did not stop on SIGINT: %s", p.stderr.String())
	}
	return p.stdout.String(), p.stderr.String(), p.cmd.ProcessState.ExitCode()
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
	RequestError  json.RawMessage `json:"requestError"`
	ResponseError json.RawMessage `json:"responseError"`
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
	// --decode-cpu 0: every exchange is shown, however loaded the machine.
	p := startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--format", "ndjson", "--decode-cpu", "0")
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
	m := regexp.MustCompile(`stopped: (\d+) connections?, (\d+) exchanges? \((\d+) shown, (\d+) skipped.*; (\d+) connections? to brokers tried`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	conns, _ := strconv.Atoi(m[1])
	dials, _ := strconv.Atoi(m[5])
	require.Equal(t, "0", m[4], "no exchange skipped")
	require.Equal(t, m[2], m[3], "every exchange shown")
	require.Equal(t, strconv.Itoa(len(lines)), m[3])
	// The proxy's connections to brokers are its clients' and one spare
	// per broker, made ahead of the next client.
	require.GreaterOrEqual(t, dials, conns)
	require.LessOrEqual(t, dials, conns+len(brokers)+1)
	require.Len(t, accepted()[direct:], dials, "the brokers accepted exactly the connections the proxy made: no client reached a broker directly")
	t.Logf("%d exchanges over %d connections: %v", len(lines), conns, apis)
}

// testPKI is a CA made for one test, and certificates it signs.
type testPKI struct {
	ca     *x509.Certificate
	key    *ecdsa.PrivateKey
	pool   *x509.CertPool
	dir    string
	serial int64
}

func newTestPKI(t *testing.T) *testPKI {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kwire test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	ca, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600))
	return &testPKI{ca: ca, key: key, pool: pool, dir: dir, serial: 1}
}

// issue signs a server certificate for the names and IPs, writes it and
// its key as NAME.pem and NAME-key.pem, and returns it.
func (p *testPKI) issue(t *testing.T, name string, dns []string, ips []net.IP) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	p.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.serial), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		DNSNames: dns, IPAddresses: ips, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.ca, &key.PublicKey, p.key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, name+".pem"), certPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, name+"-key.pem"), keyPEM, 0o600))
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	return c
}

// TestProxyTLS: TLS on both sides, with certificates made here. The
// brokers' certificate names broker.test only (not their IP), so the
// proxy must check it against --upstream-server-name; the client checks
// the proxy's own certificate against the CA. A client speaking plain
// Kafka to the TLS listener is refused and said so, and the others go on.
func TestProxyTLS(t *testing.T) {
	pki := newTestPKI(t)
	brokerCert := pki.issue(t, "broker", []string{"broker.test"}, nil)
	pki.issue(t, "proxy", nil, []net.IP{net.ParseIP("127.0.0.1")})
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(2, "secure"), kfake.TLS(&tls.Config{Certificates: []tls.Certificate{brokerCert}}))
	dir := pki.dir
	p := startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--format", "ndjson", "--decode-cpu", "0",
		"--tls-cert", filepath.Join(dir, "proxy.pem"), "--tls-key", filepath.Join(dir, "proxy-key.pem"),
		"--upstream-tls", "--upstream-ca", filepath.Join(dir, "ca.pem"), "--upstream-server-name", "broker.test")

	// Plain Kafka to a TLS listener.
	plainConn, err := net.Dial("tcp", p.addr)
	require.NoError(t, err)
	plainConn.Write([]byte{0, 0, 0, 12, 0, 18, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0})
	plainConn.SetReadDeadline(time.Now().Add(10 * time.Second))
	io.ReadAll(plainConn)
	plainConn.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.DialTLSConfig(&tls.Config{RootCAs: pki.pool}),
		kgo.ConsumeTopics("secure"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	for i := 0; i < 10; i++ {
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: "secure", Key: []byte("k" + strconv.Itoa(i)), Value: []byte("over TLS")}).FirstErr())
	}
	n := 0
	for n < 10 {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(*kgo.Record) { n++ })
	}
	cl.Close()
	stdout, stderr := p.stop(t)
	require.Contains(t, stderr, "TLS handshake with the client failed")
	lines := parseProxyLines(t, stdout)
	apis := map[string]int{}
	for _, l := range lines {
		require.Empty(t, l.RequestError)
		require.Empty(t, l.ResponseError)
		apis[l.APIName]++
	}
	require.Greater(t, apis["Produce"], 0)
	require.Greater(t, apis["Fetch"], 0)
	require.Greater(t, apis["Metadata"], 0)
	require.Len(t, proxiedRecords(t, lines), 10)

	// Without --upstream-server-name the brokers' certificate (for
	// broker.test) does not match 127.0.0.1: the proxy refuses them.
	p = startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0",
		"--upstream-tls", "--upstream-ca", filepath.Join(dir, "ca.pem"))
	c, err := net.Dial("tcp", p.addr)
	require.NoError(t, err)
	c.Write([]byte{0, 0, 0, 12, 0, 18, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0})
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.ReadAll(c)
	require.Empty(t, got)
	_, stderr = p.stop(t)
	require.Contains(t, stderr, "cannot reach the broker")
	require.Contains(t, stderr, "certificate")
}

// kgoTraffic produces n records to topic through addr with a client id,
// and fetches them back.
func kgoTraffic(t *testing.T, addr, clientID, topic string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.ClientID(clientID), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	for i := 0; i < n; i++ {
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: topic, Value: []byte(strings.Repeat("x", 100))}).FirstErr())
	}
	got := 0
	for got < n {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(*kgo.Record) { got++ })
	}
}

// TestProxyCLIFilters: --api, --client-id and --errors-only keep exactly
// the exchanges they name, as kwire pcap's do. The CLI tests run with
// --decode-cpu 0, so that every exchange is shown however loaded the
// machine; the CPU share itself is tested in internal/proxy (TestSinkShare).
func TestProxyCLIFilters(t *testing.T) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "f"))
	seed := cluster.ListenAddrs()[0]
	api := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--api", "Metadata")
	client := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--client-id", "only-me")
	errs := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--errors-only")
	kgoTraffic(t, api.addr, "a", "f", 3)
	kgoTraffic(t, client.addr, "only-me", "f", 3)
	kgoTraffic(t, client.addr, "someone-else", "f", 3)
	kgoTraffic(t, errs.addr, "e", "f", 3)
	// A topic that does not exist: Metadata and Produce answer with errors.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(errs.addr), kgo.ProduceRequestTimeout(time.Second), kgo.RecordDeliveryTimeout(2*time.Second))
	require.NoError(t, err)
	require.Error(t, cl.ProduceSync(ctx, &kgo.Record{Topic: "no-such-topic", Value: []byte("v")}).FirstErr())
	cl.Close()

	out, _ := api.stop(t)
	lines := parseProxyLines(t, out)
	require.NotEmpty(t, lines)
	for _, l := range lines {
		require.Equal(t, "Metadata", l.APIName)
	}
	out, _ = client.stop(t)
	lines = parseProxyLines(t, out)
	require.NotEmpty(t, lines)
	for _, l := range lines {
		require.Equal(t, "only-me", clientIDIn(l.Request))
	}
	out, _ = errs.stop(t)
	lines = parseProxyLines(t, out)
	require.NotEmpty(t, lines)
	for _, l := range lines {
		require.Regexp(t, `"errorCode":[1-9]`, string(l.Response), l.APIName)
	}
}

// TestProxyFilterMatchingNothingSaysSo: when kwire proxy's filters
// showed no exchange, its log says, once it stops (SIGINT here), which
// filter matched nothing, among how many exchanges, and what it saw
// instead, in kwire pcap's words (TestPcapFilterMatchingNothingSaysSo):
// it stopped saying "0 shown" and nothing of why. --api counts the
// exchanges it kept from being copied at all too. Filters that show some
// say nothing of the kind.
func TestProxyFilterMatchingNothingSaysSo(t *testing.T) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "n"))
	seed := cluster.ListenAddrs()[0]
	const prefix = "kwire: proxy: no exchange shown: "
	for _, c := range []struct {
		args []string
		want *regexp.Regexp
	}{
		{[]string{"--api", "DescribeAcls"}, regexp.MustCompile(`--api DescribeAcls matched none of the (\d+) exchanges; the APIs seen: ApiVersions ×\d+, `)},
		{[]string{"--api", "DescribeAcls", "--format", "tree"}, regexp.MustCompile(`--api DescribeAcls matched none of the (\d+) exchanges; the APIs seen: ApiVersions ×\d+, `)},
		{[]string{"--client-id", "nobody"}, regexp.MustCompile(`--client-id "nobody" matched none of the (\d+) exchanges; the client ids seen: "someone" ×\d+\n`)},
		{[]string{"--api", "Produce", "--client-id", "nobody", "--check"}, regexp.MustCompile(`--client-id "nobody" matched none of the (\d+) Produce exchanges; the client ids seen: "someone" ×(\d+)\n`)},
	} {
		p := startProxyCLI(t, append([]string{"--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson"}, c.args...)...)
		kgoTraffic(t, p.addr, "someone", "n", 3)
		out, errOut := p.stop(t)
		require.Empty(t, out, c.args)
		i := strings.Index(errOut, prefix)
		require.GreaterOrEqual(t, i, 0, "%v:\n%s", c.args, errOut)
		line := errOut[i+len(prefix):]
		m := c.want.FindStringSubmatch(line[:strings.IndexByte(line, '\n')+1])
		require.NotNil(t, m, "%v: %s", c.args, line)
		n, _ := strconv.Atoi(m[1])
		require.Positive(t, n)
		require.Less(t, i, strings.Index(errOut, "proxy: stopped:"), "before the line saying it stopped")
	}
	// Filters that show some: nothing of the kind.
	p := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--api", "Produce", "--client-id", "someone")
	kgoTraffic(t, p.addr, "someone", "n", 3)
	out, errOut := p.stop(t)
	require.Equal(t, 3, strings.Count(out, "\n"), out)
	require.NotContains(t, errOut, "no exchange shown")
}

// TestProxyCLISummaryAndTree: --summary prints the per-API table on
// SIGUSR1 while running, every --every, and on exit; --format tree draws
// each exchange as a tree.
func TestProxyCLISummaryAndTree(t *testing.T) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "s"))
	seed := cluster.ListenAddrs()[0]
	sum := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--summary")
	tree := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "tree")
	every := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--summary", "--every", "50ms")
	kgoTraffic(t, sum.addr, "sum", "s", 2)
	kgoTraffic(t, tree.addr, "tree", "s", 2)
	kgoTraffic(t, every.addr, "every", "s", 2)

	require.NoError(t, sum.cmd.Process.Signal(syscall.SIGUSR1))
	require.Eventually(t, func() bool { return strings.Contains(sum.stdout.String(), "Produce") }, 10*time.Second, 5*time.Millisecond,
		"SIGUSR1 prints the table while the proxy runs")
	require.Regexp(t, `(?m)^\s+Produce\s+v\d+×2\s+2\s+0\s+\d+`, sum.stdout.String())
	out, _ := sum.stop(t)
	require.Equal(t, 2, strings.Count(out, "API  VERSIONS"), "once on SIGUSR1, once on exit:\n%s", out)
	require.Contains(t, out, "ApiVersions")

	require.Eventually(t, func() bool { return strings.Count(every.stdout.String(), "API  VERSIONS") >= 3 }, 10*time.Second, 5*time.Millisecond)
	every.stop(t)

	out, _ = tree.stop(t)
	require.Regexp(t, `(?m)^conn \d+ 127\.0\.0\.1:\d+->127\.0\.0\.1:\d+  Produce v\d+  correlation id \d+  [0-9.]+ ms$`, out)
	require.Contains(t, out, "request:\n[0,")
	require.Contains(t, out, "size int32")
	require.Contains(t, out, "response:\n")
	require.Regexp(t, `Metadata v\d+  correlation id \d+  [0-9.]+ ms  \d+ broker addresses rewritten`, out)
}

var webRE = regexp.MustCompile(`live feed is at http://([^/]+)/`)

// TestProxyCLIWeb: --web serves the site folder and a live feed on which
// each exchange arrives as it happens, with its line and raw frames.
func TestProxyCLIWeb(t *testing.T) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "w"))
	site := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(site, "index.html"), []byte("<title>kwire</title>"), 0o644))
	p := startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--format", "ndjson", "--decode-cpu", "0", "--web", "127.0.0.1:0", "--web-dir", site)
	var web string
	require.Eventually(t, func() bool {
		m := webRE.FindStringSubmatch(p.stderr.String())
		if m != nil {
			web = m[1]
		}
		return m != nil
	}, 10*time.Second, 5*time.Millisecond)
	resp, err := http.Get("http://" + web + "/")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, "<title>kwire</title>", string(body))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+web+"/proxy/events", nil)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := bufio.NewReader(resp.Body)
	// Wait for the subscription to be in place: the stream starts with
	// its retry line once the feed has the page.
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "retry: 1000\n", line)

	kgoTraffic(t, p.addr, "web", "w", 1)
	var apis []string
	for len(apis) < 4 {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Exchange proxyLine `json:"exchange"`
			Request  []byte    `json:"request"`
			Response []byte    `json:"response"`
		}
		require.NoError(t, json.Unmarshal([]byte(data), &ev))
		apis = append(apis, ev.Exchange.APIName)
		require.NotEmpty(t, ev.Request)
		h, err := codec.ParseRequestHeader(ev.Request, codec.Options{})
		require.NoError(t, err)
		require.Equal(t, ev.Exchange.APIName, schema.APIName(h.APIKey))
		if ev.Exchange.Paired {
			var o codec.Options
			o.Response, o.APIKey, o.Version = true, h.APIKey, h.Version
			_, err := codec.Decode(ev.Response, o)
			require.NoError(t, err)
		}
	}
	require.Contains(t, apis, "ApiVersions")
	cancel()
	p.stop(t)
}

// TestProxyCLISlowOutput: when nothing reads the proxy's output, decoding
// falls behind and skips exchanges, saying how many within a second (the
// output stuck or not), while the clients are served as fast as ever.
// (--decode-cpu 0: the queue alone decides here.)
func TestProxyCLISlowOutput(t *testing.T) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "slow"))
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	p := &proxyCLI{cmd: exec.Command(kwireBin, "proxy", "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0",
		"--format", "ndjson", "--queue", "4", "--decode-cpu", "0"), done: make(chan struct{})}
	p.cmd.Stdout = pw
	errPipe, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, p.cmd.Start())
	pw.Close()
	addr := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(errPipe)
		for s.Scan() {
			p.stderr.Write([]byte(s.Text() + "\n"))
			if m := listeningRE.FindStringSubmatch(s.Text()); m != nil {
				addr <- m[1]
			}
		}
		p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	p.addr = <-addr
	// Nobody reads standard output: the pipe fills (64 KiB), then every
	// write of the decoder waits.
	kgoTraffic(t, p.addr, "slow", "slow", 400)
	require.Eventually(t, func() bool {
		return regexp.MustCompile(`exchanges skipped in the last second, \d+ in all: decoding was behind the traffic`).MatchString(p.stderr.String())
	}, 10*time.Second, 5*time.Millisecond, p.stderr.String())
	go io.Copy(io.Discard, pr)
	_, stderr := p.stop(t)
	m := regexp.MustCompile(`(\d+) skipped because decoding was behind`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	n, _ := strconv.Atoi(m[1])
	require.Greater(t, n, 0)
}

// kcatMetadata runs kcat -L against addr and returns what it printed on
// both streams.
func kcatMetadata(t *testing.T, kcat, addr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, kcat, "-L", "-b", addr, "-m", "3", "-X", "broker.address.family=v4").CombinedOutput()
	return string(out)
}

// TestProxyBrokerDown: librdkafka (kcat) reports a broker that is down as
// refused through the proxy, as it does connecting directly, whether the
// broker was down from the start or went down while the proxy ran; never
// as its own misconfiguration ("Disconnected while requesting ApiVersion:
// might be caused by incorrect security.protocol configuration"), which is
// what a proxy that accepts and then hangs up makes it say.
func TestProxyBrokerDown(t *testing.T) {
	kcat := needTool(t, "kcat")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	ln.Close()
	direct := kcatMetadata(t, kcat, dead)
	require.Contains(t, direct, "Connection refused", "what a direct connection says")

	p := startProxyCLI(t, "--upstream", dead, "--listen", "127.0.0.1:0", "--format", "ndjson")
	require.Eventually(t, func() bool { return strings.Contains(p.stderr.String(), "is unreachable") }, 10*time.Second, 5*time.Millisecond, p.stderr.String())
	out := kcatMetadata(t, kcat, p.addr)
	require.Contains(t, out, "Connection refused", out)
	require.NotContains(t, out, "security.protocol", out)
	require.NotContains(t, out, "Disconnected", out)
	p.stop(t)

	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "up"))
	p = startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--format", "ndjson")
	require.Contains(t, kcatMetadata(t, kcat, p.addr), `topic "up" with 1 partitions`)
	cluster.Close()
	require.Eventually(t, func() bool { return strings.Contains(p.stderr.String(), "is unreachable") }, 10*time.Second, 5*time.Millisecond, p.stderr.String())
	out = kcatMetadata(t, kcat, p.addr)
	require.Contains(t, out, "Connection refused", out)
	require.NotContains(t, out, "security.protocol", out)
	_, stderr := p.stop(t)
	require.Contains(t, stderr, "stops listening, so that its clients are refused")
}

// startWeb runs kwire proxy with --web in front of a kfake cluster and
// returns the proxy and the web address.
func startWeb(t *testing.T, args ...string) (*proxyCLI, string) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "w"))
	site := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(site, "index.html"), []byte("<title>kwire</title>"), 0o644))
	p := startProxyCLI(t, append([]string{"--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--format", "ndjson",
		"--decode-cpu", "0", "--web", "127.0.0.1:0", "--web-dir", site}, args...)...)
	var web string
	require.Eventually(t, func() bool {
		m := webRE.FindStringSubmatch(p.stderr.String())
		if m != nil {
			web = m[1]
		}
		return m != nil
	}, 10*time.Second, 5*time.Millisecond)
	return p, web
}

// TestProxyWebGuarded: --web's live feed and API answer only requests
// made to it by name and from its own pages (a page under another name
// resolved to 127.0.0.1 read every decoded exchange), and its pages may not
// be framed by others.
func TestProxyWebGuarded(t *testing.T) {
	p, web := startWeb(t, "--web-allow-host", "kwire.test")
	_, port, _ := net.SplitHostPort(web)
	require.Equal(t, http.StatusMisdirectedRequest, get(t, "GET", web, "/proxy/events", "evil.example:"+port, ""))
	require.Equal(t, http.StatusMisdirectedRequest, get(t, "POST", web, "/api/decode", "evil.example:"+port, ""))
	require.Equal(t, http.StatusForbidden, get(t, "GET", web, "/proxy/events", "", "http://evil.example:"+port))
	require.Equal(t, http.StatusForbidden, get(t, "POST", web, "/api/decode", "", "http://evil.example:"+port))
	require.Equal(t, http.StatusOK, get(t, "POST", web, "/api/decode", "", "http://"+web))
	require.Equal(t, http.StatusOK, get(t, "GET", web, "/", "kwire.test:"+port, ""))
	res, err := http.Get("http://" + web + "/")
	require.NoError(t, err)
	res.Body.Close()
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	p.stop(t)
}

// TestProxyWebLimits: --web has kwire serve's limits: connections that
// send nothing, or a body too slowly, are cut (they stayed open for
// good), and at the connection cap the ones that sent nothing make room
// for a client, who is served.
func TestProxyWebLimits(t *testing.T) {
	t.Parallel() // mostly waiting for the web server to cut idle connections; its own kfake and proxy: no global state
	p, web := startWeb(t)
	idle := dialGuarded(t, web)
	slow := dialGuarded(t, web)
	_, err := io.WriteString(slow, "POST /api/decode HTTP/1.1\r\nHost: "+web+"\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\n0000")
	require.NoError(t, err)
	var crowd []net.Conn
	for range defaultLimits.maxConns + 8 {
		c, err := net.Dial("tcp", web)
		require.NoError(t, err)
		defer c.Close()
		crowd = append(crowd, c)
	}
	time.Sleep(1100 * time.Millisecond) // nothing sent for a second: evictable
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Get("http://" + web + "/")
	require.NoError(t, err, "a client is served with every slot held")
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	for _, c := range crowd {
		c.Close()
	}

	start := time.Now()
	requireCut(t, idle)
	t.Logf("a connection that sent nothing was cut after %v", time.Since(start))
	got := requireCut(t, slow)
	res, err = http.ReadResponse(bufio.NewReader(bytes.NewReader(got)), nil)
	require.NoError(t, err, "%q", got)
	require.Equal(t, http.StatusRequestTimeout, res.StatusCode)
	p.stop(t)
}

// TestProxyCLIRefusesMisuse: flags that cannot work are refused before
// anything listens, exit 2, in the flags' words: a queue of no
// exchanges (0 and -1 were taken silently as the default), a listen
// address of every address with nothing to tell clients (it failed
// later, exit 1, naming the library's AdvertiseHost), and addresses that
// are no HOST:PORT (--listen bad and --upstream localhost exited 1; an
// upstream port past 65535, or two brokers' ports, were taken, and every
// dial failed later, in the log).
func TestProxyCLIRefusesMisuse(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--queue", "0"}, "kwire: --queue must be at least 1\n"},
		{[]string{"--queue", "-1"}, "kwire: --queue must be at least 1\n"},
		{[]string{"--listen", ":19160"}, "kwire: --listen :19160 is every address: give --advertise-host, the address clients reach the proxy by\n"},
		{[]string{"--listen", "[::]:19160"}, "kwire: --listen [::]:19160 is every address: give --advertise-host, the address clients reach the proxy by\n"},
		{[]string{"--listen", "bad"}, "kwire: --listen must be HOST:PORT, not \"bad\"\n"},
		{[]string{"--listen", "127.0.0.1:99999"}, "kwire: --listen 127.0.0.1:99999: \"99999\" is not a TCP port (1-65535)\n"},
		{[]string{"--upstream", "localhost"}, "kwire: --upstream must be HOST:PORT, not \"localhost\"\n"},
		{[]string{"--upstream", "127.0.0.1:99999"}, "kwire: --upstream 127.0.0.1:99999: \"99999\" is not a TCP port (1-65535)\n"},
		{[]string{"--upstream", "127.0.0.1:0"}, "kwire: --upstream 127.0.0.1:0: \"0\" is not a TCP port (1-65535)\n"},
		{[]string{"--upstream", "127.0.0.1:29190,29191"}, "kwire: --upstream is one broker, HOST:PORT, not \"127.0.0.1:29190,29191\": the proxy finds the others in its answers\n"},
	} {
		out, errOut, code := runCLI(t, append([]string{"proxy", "--upstream", "127.0.0.1:1"}, c.args...), nil)
		require.Equal(t, 2, code, c.args)
		require.Empty(t, out)
		require.Equal(t, c.want, errOut, c.args)
	}
}

// TestProxyWebDirCheckedFirst: --web with no built site where --web-dir
// says fails before the proxy listens, naming the whole path it looked
// for (--web-dir is relative to where kwire runs) and how to make one.
func TestProxyWebDirCheckedFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "no-site")
	_, errOut, code := runCLI(t, []string{"proxy", "--upstream", "127.0.0.1:9", "--listen", "127.0.0.1:0", "--web", "127.0.0.1:0", "--web-dir", dir, "--for", "1s"}, nil)
	require.Equal(t, 1, code, errOut)
	require.NotContains(t, errOut, "listening on")
	require.Equal(t, "kwire: --web serves the built site, and "+dir+" is not a folder: give the site kwire site --out DIR wrote (make site writes dist in the repository) with --web-dir DIR\n", errOut)
}
