package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// tlsCert is a self-signed ECDSA P-256 certificate for 127.0.0.1, made
// here, and a pool that trusts it.
func tlsCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "kwire test broker"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// opensslDialer dials each connection of a kgo client through an
// `openssl s_client` process of its own: TLS 1.3 offering only suite,
// the broker's certificate trusted from the ca file, the session's
// secrets appended to the key log (NSS format, as Go writes them); kgo
// speaks Kafka in plaintext to its standard input and output. This makes
// a TLS 1.3 session no Go client makes: Go offers no setting for TLS
// 1.3's suites and never picks TLS_AES_256_GCM_SHA384 (SHA-384's key
// schedule) on its own.
type opensslDialer struct {
	openssl, suite, ca, keylog string
	mu                         sync.Mutex
	cmds                       []*exec.Cmd
	done                       sync.WaitGroup
}

func (d *opensslDialer) dial(ctx context.Context, network, host string) (net.Conn, error) {
	cmd := exec.Command(d.openssl, "s_client", "-connect", host, "-quiet", "-no_ign_eof",
		"-tls1_3", "-ciphersuites", d.suite, "-CAfile", d.ca, "-verify_return_error", "-verify_ip", "127.0.0.1",
		"-keylogfile", d.keylog)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.cmds = append(d.cmds, cmd)
	d.mu.Unlock()
	kgoEnd, ours := net.Pipe()
	d.done.Add(2)
	go func() { // kgo's bytes to s_client; kgo closing its end closes s_client's input, which ends the session
		defer d.done.Done()
		io.Copy(stdin, ours)
		stdin.Close()
	}()
	go func() { // s_client's to kgo, until the session ends
		defer d.done.Done()
		io.Copy(ours, stdout)
		ours.Close()
		cmd.Wait()
	}()
	return kgoEnd, nil
}

// close ends the s_client processes still running (the broker is gone)
// and waits for them.
func (d *opensslDialer) close() {
	d.mu.Lock()
	for _, c := range d.cmds {
		c.Process.Kill()
	}
	d.mu.Unlock()
	d.done.Wait()
}

// tlsRun is what tlsTraffic did: the records produced and the version
// and suite of each session the broker accepted, as "TLS 1.3
// TLS_AES_128_GCM_SHA256" (sorted, once each).
type tlsRun struct {
	Records [][2]string // key, value
	Suites  []string
}

func (r tlsRun) want() []produced {
	var out []produced
	for _, kv := range r.Records {
		out = append(out, produced{kv[0], kv[1]})
	}
	return out
}

// tlsClients says how tlsTraffic's clients speak TLS: with Go's
// crypto/tls (kgo.DialTLSConfig), a config trusting the broker's
// certificate and writing the sessions' secrets to the key log, changed
// by tune; or, with openssl set (the openssl command), through OpenSSL's
// s_client in TLS 1.3 offering only the suite named (opensslDialer).
type tlsClients struct {
	tune           func(*tls.Config)
	openssl, suite string
}

// tlsTraffic runs franz-go's kfake broker on 127.0.0.1:port with TLS
// (a certificate made here) and franz-go clients against it, speaking
// TLS as c says, the sessions' secrets written to the key log file.
// Small: one client producing 3 records and fetching them back.
// Otherwise: 30 records in three batches (uncompressed, lz4, zstd), each
// from a client of its own, then a consumer group reading them all back,
// heartbeating and committing. The version and suite of each session
// are those the broker saw.
func tlsTraffic(t *testing.T, port int, keylog string, c tlsClients, small bool) tlsRun {
	cert, pool := tlsCert(t)
	kl, err := os.OpenFile(keylog, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	defer kl.Close()
	var mu sync.Mutex
	suites := map[string]bool{}
	server := &tls.Config{
		Certificates: []tls.Certificate{cert},
		VerifyConnection: func(cs tls.ConnectionState) error {
			mu.Lock()
			suites[tls.VersionName(cs.Version)+" "+tls.CipherSuiteName(cs.CipherSuite)] = true
			mu.Unlock()
			return nil
		},
	}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, "secure"), kfake.TLS(server))
	require.NoError(t, err)
	defer cluster.Close()
	dial := func() kgo.Opt {
		// The file is opened for appending: each secret is one write,
		// whole, whichever handshake writes it.
		cfg := &tls.Config{RootCAs: pool, KeyLogWriter: kl}
		if c.tune != nil {
			c.tune(cfg)
		}
		return kgo.DialTLSConfig(cfg)
	}
	if c.openssl != "" {
		ca := filepath.Join(t.TempDir(), "ca.pem")
		require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o644))
		d := &opensslDialer{openssl: c.openssl, suite: c.suite, ca: ca, keylog: keylog}
		defer d.close()
		dial = func() kgo.Opt { return kgo.Dialer(d.dial) }
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := func(opts ...kgo.Opt) *kgo.Client {
		cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(cluster.ListenAddrs()...), dial()}, opts...)...)
		require.NoError(t, err)
		return cl
	}
	var run tlsRun
	records := func(prefix string, n int) []*kgo.Record {
		var recs []*kgo.Record
		for i := 0; i < n; i++ {
			k, v := prefix+"-key-"+strconv.Itoa(i), strings.Repeat(prefix+" secret value "+strconv.Itoa(i)+" ", 6)
			run.Records = append(run.Records, [2]string{k, v})
			recs = append(recs, &kgo.Record{Topic: "secure", Key: []byte(k), Value: []byte(v)})
		}
		return recs
	}
	consume := func(cl *kgo.Client) {
		got := 0
		for got < len(run.Records) {
			fs := cl.PollFetches(ctx)
			require.NoError(t, ctx.Err(), "consumed %d of %d records", got, len(run.Records))
			fs.EachError(func(topic string, p int32, err error) { t.Fatalf("fetching %s/%d: %v", topic, p, err) })
			fs.EachRecord(func(*kgo.Record) { got++ })
		}
	}

	if small {
		cl := client(kgo.ClientID("kwire-tls-sample"), kgo.ConsumeTopics("secure"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		require.NoError(t, cl.ProduceSync(ctx, records("sample", 3)...).FirstErr())
		consume(cl)
		cl.Close()
	} else {
		for _, p := range []struct {
			name  string
			codec kgo.CompressionCodec
		}{{"none", kgo.NoCompression()}, {"lz4", kgo.Lz4Compression()}, {"zstd", kgo.ZstdCompression()}} {
			cl := client(kgo.ProducerBatchCompression(p.codec), kgo.ProducerLinger(20*time.Millisecond), kgo.ClientID("kwire-tls-"+p.name))
			require.NoError(t, cl.ProduceSync(ctx, records(p.name, 10)...).FirstErr())
			cl.Close()
		}
		group := client(kgo.ConsumerGroup("secure-group"), kgo.ConsumeTopics("secure"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
			kgo.HeartbeatInterval(100*time.Millisecond), kgo.ClientID("kwire-tls-group"))
		consume(group)
		time.Sleep(300 * time.Millisecond) // a few heartbeats
		require.NoError(t, group.CommitUncommittedOffsets(ctx))
		group.Close()
	}
	mu.Lock()
	for s := range suites {
		run.Suites = append(run.Suites, s)
	}
	mu.Unlock()
	sort.Strings(run.Suites)
	return run
}

// tlsChildEnv, when set, makes TestTLSTrafficChild run tlsTraffic as
// runTLSChild's child process; its value is a tlsChildSpec in JSON.
const tlsChildEnv = "KWIRE_TLS_TRAFFIC_CHILD"

type tlsChildSpec struct {
	Port        int
	KeyLog, Out string
}

// TestTLSTrafficChild is not a test: it is the child of runTLSChild, and
// does nothing in a test run.
func TestTLSTrafficChild(t *testing.T) {
	spec := os.Getenv(tlsChildEnv)
	if spec == "" {
		return
	}
	var s tlsChildSpec
	require.NoError(t, json.Unmarshal([]byte(spec), &s))
	b, err := json.Marshal(tlsTraffic(t, s.Port, s.KeyLog, tlsClients{}, false))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(s.Out, b, 0o644))
}

// runTLSChild runs tlsTraffic, broker and clients, in a child process (this
// test binary again) whose Go believes the CPU has no AES instructions
// (GODEBUG=cpu.aes=off). Go offers no setting for TLS 1.3's cipher suites,
// but a Go client without AES hardware puts ChaCha20-Poly1305 first in
// its ClientHello, and a Go server then picks it: this is how a TLS 1.3
// ChaCha20 session between real Go peers is made, not faked.
func runTLSChild(t *testing.T, port int, keylog string) tlsRun {
	out := filepath.Join(t.TempDir(), "child.json")
	spec, err := json.Marshal(tlsChildSpec{port, keylog, out})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestTLSTrafficChild$", "-test.count=1")
	godebug := strings.TrimPrefix(os.Getenv("GODEBUG")+",cpu.aes=off", ",")
	cmd.Env = append(os.Environ(), tlsChildEnv+"="+string(spec), "GODEBUG="+godebug)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child: %s", b)
	b, err = os.ReadFile(out)
	require.NoError(t, err, "the child wrote nothing: did it run TestTLSTrafficChild?")
	var run tlsRun
	require.NoError(t, json.Unmarshal(b, &run))
	return run
}

// tlsLine is a line of kwire pcap with what pcapLine leaves out.
type tlsLine struct {
	pcapLine
	Conn       string `json:"conn"`
	APIKey     int    `json:"apiKey"`
	APIVersion int    `json:"apiVersion"`
	TLS        string `json:"tls"`
}

// clientPort is the port of the client end of a line's connection
// ("conn 1 127.0.0.1:51000->127.0.0.1:9092"), the end that is not port.
func (l tlsLine) clientPort(t *testing.T, port int) int {
	m := regexp.MustCompile(`:(\d+)->.*:(\d+)$`).FindStringSubmatch(l.Conn)
	require.NotNil(t, m, "conn %q", l.Conn)
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	if a == port {
		return b
	}
	require.Equal(t, port, b, "conn %q", l.Conn)
	return a
}

// request identifies a request across decoders: the client's port, its
// correlation id, API key and version.
type request struct{ clientPort, corr, key, version int }

func (r request) String() string {
	return fmt.Sprintf("port %d corr %d key %d v%d", r.clientPort, r.corr, r.key, r.version)
}

// fetchedIn collects the keys and values of the records in Fetch responses.
func fetchedIn(t *testing.T, lines []tlsLine) []produced {
	var out []produced
	for _, l := range lines {
		if l.APIName != "Fetch" || l.Response == nil {
			continue
		}
		var resp struct {
			Body struct {
				Responses []struct {
					Partitions []struct {
						Records []jsonBatch `json:"records"`
					} `json:"partitions"`
				} `json:"responses"`
			} `json:"body"`
		}
		require.NoError(t, json.Unmarshal(l.Response, &resp))
		for _, r := range resp.Body.Responses {
			for _, p := range r.Partitions {
				out = appendRecords(out, p.Records)
			}
		}
	}
	return out
}

// codecsIn counts the record batches of Produce requests by compression.
func codecsIn(t *testing.T, lines []tlsLine) map[string]int {
	n := map[string]int{}
	for _, l := range lines {
		if l.APIName == "Produce" {
			for _, b := range produceBatches(t, l.Request) {
				n[b.Attributes.Compression]++
			}
		}
	}
	return n
}

// sortedRecords sorts records by key, and drops repeats (a record fetched twice).
func sortedRecords(rs []produced) []produced {
	rs = slices.Clone(rs)
	sort.Slice(rs, func(i, j int) bool {
		return rs[i].key < rs[j].key || rs[i].key == rs[j].key && rs[i].value < rs[j].value
	})
	return slices.Compact(rs)
}

// decodedTLS checks kwire pcap's output of decrypted TLS connections:
// it exits 0, every line decodes whole, every request is paired but for
// those checkCapture lets go, every line names the TLS version and suite
// wantTLS, the records produced are those decoded from Produce requests
// and from Fetch responses, and the APIs apis were seen. It returns the
// lines and the requests, sorted.
func decodedTLS(t *testing.T, out, errOut string, code int, port int, wantTLS string, want []produced, apis []string) ([]tlsLine, []request) {
	t.Helper()
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "not decoded", "every connection is decrypted")
	var lines []tlsLine
	var reqs []request
	seen := map[string]int{}
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l tlsLine
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		require.Empty(t, l.RequestError, s)
		require.Empty(t, l.ResponseError, s)
		require.True(t, l.Paired || l.NoResponse || l.ConnClosed && l.Response == nil, "unpaired %s %s", l.APIName, s)
		require.Equal(t, wantTLS, l.TLS, "the line's TLS version and suite: %.300s", s)
		lines = append(lines, l)
		seen[l.APIName]++
		if l.Request != nil {
			reqs = append(reqs, request{l.clientPort(t, port), int(l.CorrelationID), l.APIKey, l.APIVersion})
		}
	}
	plain := make([]pcapLine, len(lines))
	for i, l := range lines {
		plain[i] = l.pcapLine
	}
	want = sortedRecords(want)
	got := recordsIn(t, plain)
	require.Len(t, got, len(want), "each record produced is in one Produce request")
	require.Equal(t, want, sortedRecords(got), "the records of the Produce requests are those produced")
	require.Equal(t, want, sortedRecords(fetchedIn(t, lines)), "the records of the Fetch responses are those produced")
	for _, a := range apis {
		require.Greater(t, seen[a], 0, "the capture holds %s exchanges: %v", a, seen)
	}
	sortRequests(reqs)
	return lines, reqs
}

func sortRequests(rs []request) {
	sort.Slice(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.clientPort != b.clientPort {
			return a.clientPort < b.clientPort
		}
		if a.corr != b.corr {
			return a.corr < b.corr
		}
		return a.key < b.key
	})
}

// connsOf counts the connections of lines.
func connsOf(lines []tlsLine) int {
	ids := map[int]bool{}
	for _, l := range lines {
		ids[l.ConnID] = true
	}
	return len(ids)
}

// unrelatedKeyLog writes a key log in the NSS format, well formed, whose
// secrets belong to no session of the capture: a TLS 1.2 CLIENT_RANDOM
// line and the four TLS 1.3 traffic secrets of another client random.
func unrelatedKeyLog(t *testing.T) string {
	random := func(n int) string {
		b := make([]byte, n)
		rand.Read(b)
		return hex.EncodeToString(b)
	}
	cr12, cr13 := random(32), random(32)
	s := "# secrets of sessions not in the capture\n" +
		"CLIENT_RANDOM " + cr12 + " " + random(48) + "\n"
	for _, label := range []string{"CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET", "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0"} {
		s += label + " " + cr13 + " " + random(32) + "\n"
	}
	file := filepath.Join(t.TempDir(), "unrelated.log")
	require.NoError(t, os.WriteFile(file, []byte(s), 0o600))
	return file
}

// tsharkRequests is the oracle: the Kafka requests tshark finds in the
// capture, decrypted with the key log, the port decoded as TLS and TLS's
// application data on it as Kafka (-d tls.port==P,kafka: Wireshark's
// Kafka dissector is registered on tcp.port only). Each is a request
// sent to port: its client's port, correlation id, API key and version;
// a TCP segment holding several Kafka PDUs gives each field once per PDU.
func tsharkRequests(t *testing.T, tshark, file, keylog string, port int) []request {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := strconv.Itoa(port)
	cmd := exec.CommandContext(ctx, tshark, "-n", "-r", file,
		"-o", "tls.keylog_file:"+keylog,
		"-d", "tcp.port=="+p+",tls", "-d", "tls.port=="+p+",kafka",
		"-Y", "kafka && tcp.dstport=="+p,
		"-T", "fields", "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,",
		"-e", "tcp.srcport", "-e", "kafka.correlation_id", "-e", "kafka.request_key", "-e", "kafka.api_version")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var reqs []request
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, "\t")
		require.Len(t, f, 4, "tshark line %q", line)
		sport, err := strconv.Atoi(f[0])
		require.NoError(t, err, line)
		corrs, keys, vers := strings.Split(f[1], ","), strings.Split(f[2], ","), strings.Split(f[3], ",")
		require.True(t, len(corrs) == len(keys) && len(keys) == len(vers), "tshark line %q", line)
		for i := range corrs {
			c, err1 := strconv.Atoi(corrs[i])
			k, err2 := strconv.Atoi(keys[i])
			v, err3 := strconv.Atoi(vers[i])
			require.True(t, err1 == nil && err2 == nil && err3 == nil, "tshark line %q", line)
			reqs = append(reqs, request{sport, c, k, v})
		}
	}
	sortRequests(reqs)
	return reqs
}

// tlsAPIs are the APIs the clients of tlsTraffic use, found in every
// decrypted capture of them.
var tlsAPIs = []string{"ApiVersions", "Metadata", "Produce", "Fetch", "FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit"}

// TestCaptureTLSRealClients captures franz-go clients producing to and
// consuming from a kfake broker over TLS, on loopback, with the sessions'
// key log, in TLS 1.3 and in TLS 1.2 with each AEAD suite and a CBC one; then kwire
// pcap and kwire check read the capture: with the key log (--tls-keylog,
// or its secrets injected in the pcapng by editcap) as a plaintext
// capture, its lines naming the TLS version and suite; without it, or
// with one lacking these sessions, as encrypted and said so. tshark,
// decrypting the same capture, finds the same requests.
func TestCaptureTLSRealClients(t *testing.T) {
	t.Parallel() // its own ports, dumpcaps and files: no global state
	needTool(t, "dumpcap")
	tshark, editcap := needTool(t, "tshark"), needTool(t, "editcap")
	tls12 := func(suite uint16) tlsClients {
		return tlsClients{tune: func(c *tls.Config) {
			c.MaxVersion = tls.VersionTLS12
			c.CipherSuites = []uint16{suite}
		}}
	}
	for _, v := range []struct {
		name    string
		clients tlsClients
		// child runs the traffic in a child process without AES (runTLSChild)
		child bool
		// openssl needs the openssl command (clients.openssl is set to it)
		openssl bool
		// want is the version and suite expected, or for Go's default
		// TLS 1.3 suite (AES-128-GCM with AES hardware, else ChaCha20)
		// its version, "TLS 1.3 "
		want string
	}{
		{"TLS13", tlsClients{}, false, false, "TLS 1.3 "},
		{"TLS12_AES128GCM", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256), false, false, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
		{"TLS12_AES256GCM", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384), false, false, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{"TLS12_CHACHA20", tls12(tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256), false, false, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
		// A CBC suite (HMAC-SHA-1, then padding, then AES-256-CBC), which
		// Go's broker side still takes by default.
		{"TLS12_AES256CBC", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA), false, false, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"},
		// Go has no setting for TLS 1.3's suites: ChaCha20 is had from Go
		// peers that believe the CPU has no AES (runTLSChild), and
		// AES-256-GCM only from another TLS stack (opensslDialer).
		{"TLS13_CHACHA20", tlsClients{}, true, false, "TLS 1.3 TLS_CHACHA20_POLY1305_SHA256"},
		{"TLS13_AES256GCM_OPENSSL", tlsClients{suite: "TLS_AES_256_GCM_SHA384"}, false, true, "TLS 1.3 TLS_AES_256_GCM_SHA384"},
	} {
		t.Run(v.name, func(t *testing.T) {
			if v.openssl {
				v.clients.openssl = needTool(t, "openssl")
			}
			port := freePort(t)
			dir := t.TempDir()
			keys := filepath.Join(dir, "keys.log")
			var run tlsRun
			file := captureLoopback(t, port, func() {
				if v.child {
					run = runTLSChild(t, port, keys)
				} else {
					run = tlsTraffic(t, port, keys, v.clients, false)
				}
			})
			require.Len(t, run.Suites, 1, "every handshake agreed on one version and suite: %v", run.Suites)
			wantTLS := run.Suites[0]
			if strings.HasSuffix(v.want, " ") {
				require.True(t, strings.HasPrefix(wantTLS, v.want), wantTLS)
			} else {
				require.Equal(t, v.want, wantTLS)
			}
			want := run.want()
			require.Len(t, want, 30)
			P := strconv.Itoa(port)

			// (a) Decrypted with the key log: as a plaintext capture.
			out, errOut, code := runCLI(t, []string{"pcap", "--port", P, "--tls-keylog", keys, file}, nil)
			plainOut := out
			lines, reqs := decodedTLS(t, out, errOut, code, port, wantTLS, want, tlsAPIs)
			conns := connsOf(lines)
			codecs := codecsIn(t, lines)
			for _, c := range []string{"none", "lz4", "zstd"} {
				require.Greater(t, codecs[c], 0, "batches by compression: %v", codecs)
			}
			t.Logf("%s: %d exchanges on %d connections; stderr: %q", wantTLS, len(lines), conns, errOut)
			sum, errOut, code := runCLI(t, []string{"pcap", "--summary", "--port", P, "--tls-keylog", keys, file}, nil)
			require.Equal(t, 0, code, errOut)
			require.NotContains(t, sum, "TLS connections among them (encrypted, not decoded)")

			// (b) Without it: encrypted, said once per connection, nothing decoded.
			out, errOut, code = runCLI(t, []string{"pcap", "--port", P, file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Empty(t, out, "no exchange of an encrypted connection")
			require.Equal(t, conns, strings.Count(errOut, ": encrypted, not decoded\n"), errOut)
			require.Regexp(t, `TLS \(record header 16 03 0[13]\): encrypted, not decoded`, errOut)
			sum, errOut, code = runCLI(t, []string{"pcap", "--summary", "--port", P, file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, sum, fmt.Sprintf(", %d TLS connections among them (encrypted, not decoded)", conns))

			// (c) With a key log lacking these sessions: said, nothing decoded.
			out, errOut, code = runCLI(t, []string{"pcap", "--port", P, "--tls-keylog", unrelatedKeyLog(t), file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Empty(t, out, "no exchange decoded without the session's secrets")
			noSecrets := regexp.MustCompile(`(?i)key ?log[^\n]*\bno\b[^\n]*secret|no secrets?\b[^\n]*key ?log`)
			require.Len(t, noSecrets.FindAllString(errOut, -1), conns, "each connection said to have no secrets in the key log: %s", errOut)
			require.Equal(t, conns, strings.Count(errOut, ": encrypted, not decoded\n"), errOut)
			sum, errOut, code = runCLI(t, []string{"pcap", "--summary", "--port", P, "--tls-keylog", unrelatedKeyLog(t), file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, sum, fmt.Sprintf(", %d TLS connections among them (encrypted, not decoded)", conns))

			// (d) The secrets injected in the pcapng (a Decryption Secrets
			// Block): decrypted with no flag, the same lines.
			withKeys := filepath.Join(dir, "withkeys.pcapng")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			b, err := exec.CommandContext(ctx, editcap, "--inject-secrets", "tls,"+keys, file, withKeys).CombinedOutput()
			require.NoError(t, err, string(b))
			out, errOut, code = runCLI(t, []string{"pcap", "--port", P, withKeys}, nil)
			decodedTLS(t, out, errOut, code, port, wantTLS, want, tlsAPIs)
			require.Equal(t, plainOut, out, "the capture with its secrets injected decodes as with --tls-keylog")

			// (e) The oracle: tshark decrypts the same requests.
			shark := tsharkRequests(t, tshark, file, keys, port)
			require.NotEmpty(t, shark, "tshark decrypted no Kafka request")
			require.Equal(t, shark, reqs, "the requests kwire decrypted (client port, correlation id, API key and version) are those tshark does")
			t.Logf("tshark: %d requests, as kwire", len(shark))

			// (f) kwire check: these well-behaved clients give no error;
			// without the key log, the TLS connections are not checked.
			out, errOut, code = runCLI(t, []string{"check", "--format", "ndjson", "--port", P, "--tls-keylog", keys, file}, nil)
			require.Equal(t, 0, code, "%s\n%s", out, errOut)
			for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
				if s == "" {
					continue
				}
				var c checkLine
				require.NoError(t, json.Unmarshal([]byte(s), &c), s)
				require.NotEqual(t, "error", c.Severity, s)
			}
			require.Contains(t, errOut, "kwire: check: 0 errors, ")
			require.NotContains(t, errOut, "not checked (encrypted")
			require.NotContains(t, errOut, "not decoded")
			_, errOut, code = runCLI(t, []string{"check", "--port", P, file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, errOut, fmt.Sprintf("; %d TLS connections not checked (encrypted, said above)\n", conns))
		})
	}
}

// tlsSample is the committed TLS sample, for package capture and here.
var tlsSample = filepath.Join("..", "..", "internal", "capture", "testdata", "tls")

// TestCommittedTLSCapture decodes the committed TLS 1.3 sample (a produce
// of 3 records and a fetch back, see its README.md) with its key log, and
// its copy with the secrets injected with no flag. -update records it
// again (dumpcap on lo, editcap).
func TestCommittedTLSCapture(t *testing.T) {
	readme := filepath.Join(tlsSample, "README.md")
	if *update {
		needTool(t, "dumpcap")
		editcap := needTool(t, "editcap")
		port := freePort(t)
		keys := filepath.Join(t.TempDir(), "keys.log")
		var run tlsRun
		file := captureLoopback(t, port, func() { run = tlsTraffic(t, port, keys, tlsClients{}, true) })
		require.Len(t, run.Suites, 1)
		require.NoError(t, os.MkdirAll(tlsSample, 0o755))
		for src, dst := range map[string]string{file: "tls13.pcapng", keys: "keys.log"} {
			b, err := os.ReadFile(src)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(tlsSample, dst), b, 0o644))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		b, err := exec.CommandContext(ctx, editcap, "--inject-secrets", "tls,"+filepath.Join(tlsSample, "keys.log"),
			filepath.Join(tlsSample, "tls13.pcapng"), filepath.Join(tlsSample, "tls13-dsb.pcapng")).CombinedOutput()
		require.NoError(t, err, string(b))
		doc := "A TLS sample for package capture and kwire, recorded by `go test ./cmd/kwire -run TestCommittedTLSCapture -update`\n" +
			"(cmd/kwire/pcap_tls_test.go, tlsTraffic): franz-go's kfake broker with TLS (a self-signed ECDSA P-256\n" +
			"certificate made by the test) and a franz-go client dialing it with kgo.DialTLSConfig, Go's default TLS\n" +
			"settings, its tls.Config.KeyLogWriter writing keys.log; captured with dumpcap on lo, filter `tcp port PORT`.\n" +
			"The client produces 3 records (keys sample-key-0 to 2) and fetches them back (no group).\n\n" +
			"- tls13.pcapng: the capture, pcapng, Linux loopback (Ethernet) IPv4.\n" +
			"- keys.log: its key log, the NSS SSLKEYLOGFILE format (the four TLS 1.3 traffic secrets of each connection).\n" +
			"- tls13-dsb.pcapng: tls13.pcapng with keys.log in a Decryption Secrets Block, by\n" +
			"  `editcap --inject-secrets tls,keys.log tls13.pcapng tls13-dsb.pcapng`.\n\n" +
			"Broker: 127.0.0.1:" + strconv.Itoa(port) + "\n" +
			"TLS: " + run.Suites[0] + "\n"
		require.NoError(t, os.WriteFile(readme, []byte(doc), 0o644))
	}
	b, err := os.ReadFile(readme)
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^Broker: 127\.0\.0\.1:(\d+)\nTLS: (TLS 1\.3 \S+)$`).FindStringSubmatch(string(b))
	require.NotNil(t, m, "the README names the broker's port and the TLS suite")
	port, _ := strconv.Atoi(m[1])
	wantTLS := m[2]
	for _, f := range []string{"tls13.pcapng", "keys.log", "tls13-dsb.pcapng"} {
		fi, err := os.Stat(filepath.Join(tlsSample, f))
		require.NoError(t, err)
		require.Less(t, fi.Size(), int64(64<<10), "%s is kept small", f)
	}
	var want []produced
	for i := 0; i < 3; i++ {
		want = append(want, produced{"sample-key-" + strconv.Itoa(i), strings.Repeat("sample secret value "+strconv.Itoa(i)+" ", 6)})
	}
	abs := func(f string) string {
		p, err := filepath.Abs(filepath.Join(tlsSample, f))
		require.NoError(t, err)
		return p
	}
	out, errOut, code := runCLI(t, []string{"pcap", "--port", m[1], "--tls-keylog", abs("keys.log"), abs("tls13.pcapng")}, nil)
	lines, _ := decodedTLS(t, out, errOut, code, port, wantTLS, want, []string{"ApiVersions", "Metadata", "Produce", "Fetch"})
	t.Logf("%d exchanges on %d connections", len(lines), connsOf(lines))
	dsb, errOut, code := runCLI(t, []string{"pcap", "--port", m[1], abs("tls13-dsb.pcapng")}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "not decoded")
	require.Equal(t, out, dsb, "the capture with its secrets injected decodes as with --tls-keylog")
	out, errOut, code = runCLI(t, []string{"pcap", "--port", m[1], abs("tls13.pcapng")}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, out, "without its key log, nothing is decoded")
	require.Equal(t, connsOf(lines), strings.Count(errOut, ": encrypted, not decoded\n"), errOut)
}
