package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/kwire/kwire/internal/capture"
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

// freePort returns a loopback port for a broker the test starts, and holds
// it until the test ends: a socket is bound to it (SO_REUSEADDR, not
// listening), so the OS gives it to no other bind, while the broker's
// listener, with SO_REUSEADDR as Go's are, may bind beside it, and until
// it does (and after it closes) connections to the port are refused. The
// captures filter on the port alone ("tcp port P"): another process's
// connections to it would be in them. See TestFreePortHeld.
func freePort(t *testing.T) int {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	require.NoError(t, err)
	syscall.CloseOnExec(fd)
	t.Cleanup(func() { syscall.Close(fd) })
	require.NoError(t, syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1))
	require.NoError(t, syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}))
	sa, err := syscall.Getsockname(fd)
	require.NoError(t, err)
	return sa.(*syscall.SockaddrInet4).Port
}

// TestFreePortHeld: the port freePort gives is the test's until it ends:
// no other socket may take it but a broker's listener (SO_REUSEADDR, as
// Go's are), which may, and connections to it are refused while none
// listens. Let go at once, the port was free while dumpcap started and
// after the broker closed, and another test process's broker was given it
// by the OS: a capture of "tcp port P" then held that process's plaintext
// exchanges (TestCaptureTLSRealClients/TLS12_CHACHA20 found a line with
// no "tls": conn 1, Metadata v9 at packet 4).
func TestFreePortHeld(t *testing.T) {
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// bindOther binds a socket without SO_REUSEADDR to the port: refused,
	// the port is in use, and a bind to port 0 is not given it (one with
	// SO_REUSEADDR neither, net.ipv4.ip_autobind_reuse being off, its
	// default).
	bindOther := func() error {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
		require.NoError(t, err)
		defer syscall.Close(fd)
		return syscall.Bind(fd, &syscall.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}})
	}
	require.ErrorIs(t, bindOther(), syscall.EADDRINUSE, "the port is held")
	_, err := net.DialTimeout("tcp", addr, time.Second)
	require.ErrorIs(t, err, syscall.ECONNREFUSED, "nothing listens on the held port")
	l, err := net.Listen("tcp", addr)
	require.NoError(t, err, "a broker listens on the held port")
	c, err := net.DialTimeout("tcp", addr, time.Second)
	require.NoError(t, err)
	c.Close()
	l.Close()
	require.ErrorIs(t, bindOther(), syscall.EADDRINUSE, "the port is held after the broker closed")
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

// dumpcapRun is dumpcap capturing "tcp port P" on the loopback interface
// and writing pcapng to its standard output, which the test reads: it
// passes the bytes on to a sink (a file, or kwire's standard input) and
// watches the packets go by, so the test knows when the capture has
// started and when it has seen everything, without sleeping.
type dumpcapRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	port int
	syns chan uint16 // source ports of SYNs to port, as they are captured
	done chan error  // the copy to the sink ended
}

// startDumpcap starts the capture and waits until it is live: until a
// marker connection is seen in its output.
func startDumpcap(t *testing.T, port int, sink io.WriteCloser) *dumpcapRun {
	dumpcap := needTool(t, "dumpcap")
	cmd := exec.Command(dumpcap, "-i", "lo", "-f", "tcp port "+strconv.Itoa(port), "-w", "-", "-q")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	require.NoError(t, cmd.Start())
	d := &dumpcapRun{t: t, cmd: cmd, port: port, syns: make(chan uint16, 256), done: make(chan error, 1)}
	go func() {
		err := d.copy(out, sink)
		sink.Close()
		d.done <- err
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	d.mark()
	return d
}

// copy passes dumpcap's pcapng blocks to sink, noting the SYNs it carries.
func (d *dumpcapRun) copy(r io.Reader, sink io.Writer) error {
	br := bufio.NewReader(r)
	order := binary.ByteOrder(binary.LittleEndian)
	for {
		var h [12]byte
		if _, err := io.ReadFull(br, h[:]); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if binary.LittleEndian.Uint32(h[:]) == 0x0A0D0D0A && binary.LittleEndian.Uint32(h[8:]) != 0x1A2B3C4D {
			order = binary.BigEndian
		}
		n := int(order.Uint32(h[4:]))
		if n < 12 || n > 1<<24 {
			return fmt.Errorf("dumpcap wrote a block of %d bytes", n)
		}
		block := make([]byte, n)
		copy(block, h[:])
		if _, err := io.ReadFull(br, block[12:]); err != nil {
			return err
		}
		if _, err := sink.Write(block); err != nil {
			return err
		}
		if order.Uint32(block) == 6 && n >= 28 {
			d.notice(block[28:min(n, 28+int(order.Uint32(block[20:])))])
		}
	}
}

// notice reports a SYN to the port in an Ethernet/IPv4 packet (Linux's
// loopback link type).
func (d *dumpcapRun) notice(pkt []byte) {
	if len(pkt) < 14+20 || binary.BigEndian.Uint16(pkt[12:]) != 0x0800 {
		return
	}
	ip := pkt[14:]
	ihl := int(ip[0]&0x0f) * 4
	if ip[9] != 6 || len(ip) < ihl+20 {
		return
	}
	tcp := ip[ihl:]
	if int(binary.BigEndian.Uint16(tcp[2:])) == d.port && tcp[13]&0x12 == 0x02 {
		select {
		case d.syns <- binary.BigEndian.Uint16(tcp[0:]):
		default:
		}
	}
}

// mark opens a connection to the port from a port of its own (refused:
// nothing listens there before and after the broker runs) and waits for
// its SYN in the capture, trying again while the capture is not yet live.
// Every packet sent before it has then been captured.
func (d *dumpcapRun) mark() {
	t := d.t
	for try := 0; try < 50; try++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		from := l.Addr().(*net.TCPAddr)
		l.Close()
		dialer := net.Dialer{LocalAddr: from, Timeout: time.Second}
		if c, err := dialer.Dial("tcp", "127.0.0.1:"+strconv.Itoa(d.port)); err == nil {
			c.Close()
		}
		deadline := time.After(500 * time.Millisecond)
		for {
			select {
			case p := <-d.syns:
				if int(p) == from.Port {
					return
				}
				continue
			case err := <-d.done:
				t.Fatalf("dumpcap stopped: %v", err)
			case <-deadline:
			}
			break
		}
	}
	t.Fatal("the capture never saw a marker connection")
}

// stop waits until everything sent so far is captured, then ends dumpcap
// and the copy.
func (d *dumpcapRun) stop() {
	d.mark()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		require.NoError(d.t, err)
	case <-time.After(20 * time.Second):
		d.t.Fatal("dumpcap did not stop")
	}
	d.cmd.Wait()
}

// captureLoopback captures the broker's port on loopback while fn runs
// and returns the pcapng file.
func captureLoopback(t *testing.T, port int, fn func()) string {
	file := filepath.Join(t.TempDir(), "kafka.pcapng")
	f, err := os.Create(file)
	require.NoError(t, err)
	d := startDumpcap(t, port, f)
	fn()
	d.stop()
	return file
}

type pcapLine struct {
	ConnID        int             `json:"connId"`
	CorrelationID int32           `json:"correlationId"`
	APIName       string          `json:"apiName"`
	Paired        bool            `json:"paired"`
	NoResponse    bool            `json:"noResponseExpected"`
	ConnClosed    bool            `json:"connClosed"`
	Request       json.RawMessage `json:"request"`
	Response      json.RawMessage `json:"response"`
	RequestError  json.RawMessage `json:"requestError"`
	ResponseError json.RawMessage `json:"responseError"`
}

// jsonBatch is a record batch as kwire pcap writes it, as far as the
// tests read it.
type jsonBatch struct {
	Attributes struct{ Compression string } `json:"attributes"`
	Records    []struct {
		Key   struct{ Text string } `json:"key"`
		Value struct{ Text string } `json:"value"`
	} `json:"records"`
}

// produceBatches is the record batches of a Produce request's value JSON.
func produceBatches(t *testing.T, request json.RawMessage) []jsonBatch {
	var req struct {
		Body struct {
			TopicData []struct {
				PartitionData []struct {
					Records []jsonBatch `json:"records"`
				} `json:"partitionData"`
			} `json:"topicData"`
		} `json:"body"`
	}
	require.NoError(t, json.Unmarshal(request, &req))
	var out []jsonBatch
	for _, td := range req.Body.TopicData {
		for _, pd := range td.PartitionData {
			out = append(out, pd.Records...)
		}
	}
	return out
}

// appendRecords appends the keys and values of the records of batches.
func appendRecords(out []produced, batches []jsonBatch) []produced {
	for _, b := range batches {
		for _, r := range b.Records {
			out = append(out, produced{r.Key.Text, r.Value.Text})
		}
	}
	return out
}

// recordsIn collects the keys and values of the records in Produce requests.
func recordsIn(t *testing.T, lines []pcapLine) []produced {
	var out []produced
	for _, l := range lines {
		if l.APIName == "Produce" {
			out = appendRecords(out, produceBatches(t, l.Request))
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
		// A request still in flight when its client closes the connection
		// (a fetch long poll, the last heartbeat as a member leaves its
		// group) never gets its answer; every other request is paired,
		// and no response is left without its request.
		require.True(t, l.Paired || l.NoResponse || l.ConnClosed && l.Response == nil, "unpaired %s %s", l.APIName, s)
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
	// A new member's first JoinGroup answered MEMBER_ID_REQUIRED is a
	// step of the protocol (KIP-394), said so, not listed as a failure.
	require.Contains(t, out, "79 MEMBER_ID_REQUIRED ×1 (expected in JoinGroup ×1")
	out, _, code = runCLI(t, []string{"pcap", "--api", "Produce", "--client-id", "kwire-zstd", "--port", fmt.Sprint(meta.Port), "kfake-clients.pcapng"}, nil)
	require.Equal(t, 0, code)
	n := strings.Count(strings.TrimSpace(out), "\n") + 1
	require.GreaterOrEqual(t, n, 1)
	require.NotContains(t, out, `"clientId":"kwire-gzip"`)
}

// TestPcapLive decodes live traffic: dumpcap writes its capture to a pipe
// that kwire pcap - reads (as tcpdump -w - | kwire pcap - would) while a
// franz-go client produces to a kfake broker on loopback. Each Produce
// exchange must come out of kwire while the capture is still running: it
// is decoded as soon as its response is captured, and its line flushed.
// Bounded: three records, 30 seconds at most for each line.
func TestPcapLive(t *testing.T) {
	port := freePort(t)
	runLive(t, port, func(stdin io.WriteCloser) func() {
		return startDumpcap(t, port, stdin).stop
	})
}

// TestPcapLiveText is TestPcapLive with the capture printed as text:
// tcpdump -l -X | kwire pcap -. Each exchange comes out while tcpdump
// runs, read as its packets' dumps end (input.PacketStream), not when the
// text ends.
func TestPcapLiveText(t *testing.T) {
	tcpdump := needTool(t, "tcpdump")
	port := freePort(t)
	stderr := runLive(t, port, func(stdin io.WriteCloser) func() {
		return startTcpdumpText(t, tcpdump, port, stdin)
	})
	require.Contains(t, stderr, "kwire: -: a text dump of packets (tcpdump -X), read as a capture packet by packet as it comes\n")
	require.Contains(t, stderr, "; its times are times of day, dated 1970-01-01\n")
}

// startTcpdumpText starts tcpdump -l -X on loopback's port, its text
// written to sink, and waits until it listens; stop ends it (as ^C does)
// and closes sink.
func startTcpdumpText(t *testing.T, tcpdump string, port int, sink io.WriteCloser) (stop func()) {
	cmd := exec.Command(tcpdump, "-l", "-X", "-n", "-i", "lo", "tcp port "+strconv.Itoa(port))
	cmd.Stdout = sink
	errs, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Live once it says it listens.
	listening := make(chan bool, 1)
	go func() {
		s := bufio.NewScanner(errs)
		ok := false
		for s.Scan() {
			if !ok && strings.HasPrefix(s.Text(), "listening on lo") {
				ok = true
				listening <- true
			}
		}
		if !ok {
			listening <- false
		}
	}()
	select {
	case ok := <-listening:
		require.True(t, ok, "tcpdump ended without listening")
	case <-time.After(30 * time.Second):
		t.Fatal("tcpdump did not start listening within 30 s")
	}
	return func() {
		cmd.Process.Signal(syscall.SIGINT)
		cmd.Wait()
		sink.Close()
	}
}

// startPiped starts kwire with args, reading standard input from the
// pipe it returns: its standard output's lines come on lines, as it
// writes them, its standard error is kept.
func startPiped(t *testing.T, args ...string) (kw *exec.Cmd, stdin io.WriteCloser, lines chan string, stderr *strings.Builder) {
	kw = exec.Command(kwireBin, args...)
	stdin, err := kw.StdinPipe()
	require.NoError(t, err)
	stdout, err := kw.StdoutPipe()
	require.NoError(t, err)
	stderr = new(strings.Builder)
	kw.Stderr = stderr
	require.NoError(t, kw.Start())
	t.Cleanup(func() { kw.Process.Kill(); kw.Wait() })
	lines = make(chan string, 1024)
	go func() {
		s := bufio.NewScanner(stdout)
		s.Buffer(nil, 1<<24)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	return kw, stdin, lines, stderr
}

// runLive runs kwire pcap - on what the capture start begins to write to
// its standard input, while a franz-go client produces three records to a
// kfake broker on port: each Produce exchange must come out of kwire (the
// record's key in its line) before the next record is produced. The
// capture then stops (start's stop), kwire must end cleanly, and every
// line decode whole. It returns kwire's stderr.
func runLive(t *testing.T, port int, start func(stdin io.WriteCloser) (stop func())) string {
	kw, stdin, lines, stderr := startPiped(t, "pcap", "--port", strconv.Itoa(port), "-")
	var out []string
	waitFor := func(what string) {
		timeout := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "kwire ended before printing %s; stderr: %s", what, stderr.String())
				out = append(out, l)
				if strings.Contains(l, `"apiName":"Produce"`) && strings.Contains(l, what) {
					return
				}
			case <-timeout:
				t.Fatalf("no line with %s from kwire pcap - within 30 s", what)
			}
		}
	}

	stop := start(stdin)
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, "live"))
	require.NoError(t, err)
	cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.ClientID("kwire-live"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 3; i++ {
		key := "live-key-" + strconv.Itoa(i)
		rec := &kgo.Record{Topic: "live", Key: []byte(key), Value: []byte("live value " + strconv.Itoa(i))}
		require.NoError(t, cl.ProduceSync(ctx, rec).FirstErr())
		waitFor(key) // while the capture still runs
	}
	cl.Close()
	cluster.Close()
	stop()
	for l := range lines {
		out = append(out, l)
	}
	require.NoError(t, kw.Wait(), stderr.String())
	produce := 0
	for _, s := range out {
		var l pcapLine
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		require.Empty(t, l.RequestError)
		require.Empty(t, l.ResponseError)
		require.True(t, l.Paired || l.NoResponse || l.ConnClosed && l.Response == nil, "unpaired %s", s)
		if l.APIName == "Produce" {
			produce++
		}
	}
	require.Equal(t, 3, produce)
	return stderr.String()
}

// trafficPcap writes a capture of realistic exchanges (Metadata v9,
// Produce v7, Fetch v11 with record batches) to a temporary file.
func trafficPcap(t *testing.T, o traffic.PcapOptions) string {
	file := filepath.Join(t.TempDir(), "traffic.pcap")
	f, err := os.Create(file)
	require.NoError(t, err)
	_, err = traffic.WritePcap(f, o)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return file
}

// TestPcapOrderManyExchanges: decoded by one worker or by four, the
// output is the same bytes, one line per exchange in the order the
// capture completes them (capture.ReadFunc's order), which differs from
// the order of the requests here.
func TestPcapOrderManyExchanges(t *testing.T) {
	file := trafficPcap(t, traffic.PcapOptions{Pairs: 1500, Conns: 7, InFlight: 5})
	one, errOut, code := runCLI(t, []string{"pcap", "--jobs", "1", file}, nil)
	require.Equal(t, 0, code, errOut)
	four, errOut, code := runCLI(t, []string{"pcap", "--jobs", "4", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, one, four)

	type id struct {
		conn int
		corr int32
	}
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	var want []id
	_, err = capture.ReadFunc(f, capture.Options{}, func(x *capture.Exchange) {
		want = append(want, id{x.Conn.ID, x.CorrelationID})
	})
	require.NoError(t, err)
	var got []id
	for _, s := range strings.Split(strings.TrimSuffix(one, "\n"), "\n") {
		var l pcapLine
		require.NoError(t, json.Unmarshal([]byte(s), &l))
		require.True(t, l.Paired)
		got = append(got, id{l.ConnID, l.CorrelationID})
	}
	require.Len(t, got, 1500)
	require.Equal(t, want, got)
	require.NotEqual(t, want[0], id{1, 1}, "the first exchange to complete is not the first request")
}

// TestPcapStrictFailsOnACutCapture: a capture cut short is read up to
// the cut and its note says so; --strict, as for an exchange with
// warnings, then exits 1 (with or without --summary); the whole capture
// passes --strict as before.
func TestPcapStrictFailsOnACutCapture(t *testing.T) {
	whole := trafficPcap(t, traffic.PcapOptions{Pairs: 20})
	_, errOut, code := runCLI(t, []string{"pcap", "--strict", "--summary", whole}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)

	b, err := os.ReadFile(whole)
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	require.NoError(t, os.WriteFile(cut, b[:len(b)-40], 0o644))
	out, errOut, code := runCLI(t, []string{"pcap", cut}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotEmpty(t, out)
	require.Contains(t, errOut, "file truncated or corrupt after packet")
	for _, args := range [][]string{{"pcap", "--strict", cut}, {"pcap", "--strict", "--summary", cut}} {
		_, errOut, code = runCLI(t, args, nil)
		require.Equal(t, 1, code, "%v: %s", args, errOut)
		require.Contains(t, errOut, "kwire: "+cut+": the capture is truncated or corrupt, read up to there (--strict)\n")
	}
}

// segment is one TCP segment of segmentsPcap's connection: who sent it,
// when, and its payload.
type segment struct {
	fromClient bool
	at         time.Duration // after 2024-05-01T12:00:00Z
	payload    []byte
}

// segmentsPcap writes a classic pcap file (Ethernet, microseconds) of one
// TCP connection, client 10.0.0.2:40000 to broker 10.0.0.1:9092, with no
// handshake: the segments in the order given.
func segmentsPcap(t *testing.T, segs ...segment) string {
	return connPcap(t, false, nil, segs...)
}

// connPcap is segmentsPcap, from the handshake on when syn is set, with
// the segments whose index is in lost sent (their bytes count in the
// sequence numbers, and the peer's ACKs) but not captured.
func connPcap(t *testing.T, syn bool, lost []int, segs ...segment) string {
	le := binary.LittleEndian
	magic, unit := uint32(0xa1b2c3d4), 1000 // microsecond timestamps
	for _, sg := range segs {
		if sg.at%time.Microsecond != 0 {
			magic, unit = 0xa1b23c4d, 1 // nanosecond ones
		}
	}
	out := le.AppendUint32(nil, magic)
	out = le.AppendUint16(out, 2)
	out = le.AppendUint16(out, 4)
	out = append(out, make([]byte, 8)...)
	out = le.AppendUint32(out, 65535)
	out = le.AppendUint32(out, 1) // Ethernet
	seq := [2]uint32{1000, 9000}  // the client's, the broker's
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	flags := make([]byte, len(segs))
	for i := range flags {
		flags[i] = 0x18 // PSH, ACK
	}
	if syn {
		seq[0]--
		seq[1]--
		segs = append([]segment{{true, 0, nil}, {false, 0, nil}, {true, 0, nil}}, segs...)
		flags = append([]byte{0x02, 0x12, 0x10}, flags...) // SYN, SYN-ACK, ACK
		shifted := make([]int, len(lost))
		for i, k := range lost {
			shifted[i] = k + 3
		}
		lost = shifted
	}
	for i, sg := range segs {
		src, dst, sport, dport, side := []byte{10, 0, 0, 2}, []byte{10, 0, 0, 1}, uint16(40000), uint16(9092), 0
		if !sg.fromClient {
			src, dst, sport, dport, side = dst, src, dport, sport, 1
		}
		if slices.Contains(lost, i) {
			seq[side] += uint32(len(sg.payload))
			continue
		}
		pkt := append(make([]byte, 12), 0x08, 0x00)
		pkt = append(pkt, 0x45, 0)
		pkt = binary.BigEndian.AppendUint16(pkt, uint16(40+len(sg.payload)))
		pkt = append(pkt, 0, 1, 0, 0, 64, 6, 0, 0)
		pkt = append(append(pkt, src...), dst...)
		pkt = binary.BigEndian.AppendUint16(pkt, sport)
		pkt = binary.BigEndian.AppendUint16(pkt, dport)
		pkt = binary.BigEndian.AppendUint32(pkt, seq[side])
		pkt = binary.BigEndian.AppendUint32(pkt, seq[1-side])
		pkt = append(pkt, 0x50, flags[i], 0xff, 0xff, 0, 0, 0, 0)
		pkt = append(pkt, sg.payload...)
		seq[side] += uint32(len(sg.payload))
		if flags[i]&0x02 != 0 {
			seq[side]++ // a SYN takes a sequence number
		}
		at := t0.Add(sg.at)
		out = le.AppendUint32(out, uint32(at.Unix()))
		out = le.AppendUint32(out, uint32(at.Nanosecond()/unit))
		out = le.AppendUint32(out, uint32(len(pkt)))
		out = le.AppendUint32(out, uint32(len(pkt)))
		out = append(out, pkt...)
	}
	file := filepath.Join(t.TempDir(), "segments.pcap")
	require.NoError(t, os.WriteFile(file, out, 0o644))
	return file
}

// exampleFrame is kwire example's frame of api at version v (a response
// when response is set), with correlation id corr.
func exampleFrame(t *testing.T, api string, v int, response bool, corr int32) []byte {
	args := []string{"example", api, "--version", strconv.Itoa(v)}
	if response {
		args = append(args, "--response")
	}
	out, errOut, code := runCLI(t, args, nil)
	require.Equal(t, 0, code, errOut)
	b, err := hex.DecodeString(strings.SplitN(out, "\n", 2)[0])
	require.NoError(t, err)
	at := 8
	if response {
		at = 4
	}
	binary.BigEndian.PutUint32(b[at:], uint32(corr))
	return b
}

// TestPcapSummaryNoLatencyWithoutAPair: an API whose exchanges are all
// unpaired has no latency to show: its percentiles are "-", not 0.00;
// an API with a paired exchange shows its latency as before.
func TestPcapSummaryNoLatencyWithoutAPair(t *testing.T) {
	file := segmentsPcap(t,
		segment{true, 0, exampleFrame(t, "Metadata", 12, false, 1)},
		segment{false, 1500 * time.Microsecond, exampleFrame(t, "Metadata", 12, true, 1)},
		segment{true, 2 * time.Millisecond, exampleFrame(t, "ApiVersions", 3, false, 2)})
	out, errOut, code := runCLI(t, []string{"pcap", "--summary", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `\n\s+ApiVersions\s+v3×1\s+1\s+1\s+\d+\s+-\s+-\s+-\s+-\s*\n`, out)
	require.Regexp(t, `\n\s+Metadata\s+v12×1\s+1\s+0\s+\d+\s+1\.50\s+1\.50\s+1\.50\s+1\.50\s*\n`, out)
}

// TestPcapLatencyRounded: a latency is said to the microsecond, rounded
// (1,234,567 ns is 1.235 ms; it was cut to 1.234), as pcap, proxy and the
// playground say it.
func TestPcapLatencyRounded(t *testing.T) {
	file := segmentsPcap(t,
		segment{true, 0, exampleFrame(t, "Metadata", 12, false, 1)},
		segment{false, 1234567 * time.Nanosecond, exampleFrame(t, "Metadata", 12, true, 1)})
	out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"latencyMs":1.235,`)
	require.Equal(t, 1.235, capture.Millis(1234567*time.Nanosecond))
	require.Equal(t, 1.234, capture.Millis(1234499*time.Nanosecond))
}

// TestPcapTimesFixedPrecision: a line's times have nine fractional
// digits whatever their value (not ".01Z" beside ".004Z"), so they align
// and sort as text.
func TestPcapTimesFixedPrecision(t *testing.T) {
	file := segmentsPcap(t,
		segment{true, 4 * time.Millisecond, exampleFrame(t, "Metadata", 12, false, 1)},
		segment{false, 10 * time.Millisecond, exampleFrame(t, "Metadata", 12, true, 1)},
		segment{true, 10*time.Millisecond + 250*time.Microsecond, exampleFrame(t, "ApiVersions", 3, false, 2)},
		segment{false, 11 * time.Second, exampleFrame(t, "ApiVersions", 3, true, 2)})
	out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	var times []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var x struct{ RequestTime, ResponseTime string }
		require.NoError(t, json.Unmarshal([]byte(l), &x))
		times = append(times, x.RequestTime, x.ResponseTime)
	}
	require.Equal(t, []string{"2024-05-01T12:00:00.004000000Z", "2024-05-01T12:00:00.010000000Z",
		"2024-05-01T12:00:00.010250000Z", "2024-05-01T12:00:11.000000000Z"}, times)
	require.True(t, sort.StringsAreSorted(times))
}

// TestPcapStdin: kwire pcap - reads the capture from standard input.
func TestPcapStdin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(sharedTestdata, "captures", "kafka-ipv6-null.pcapng"))
	require.NoError(t, err)
	want, wantErr, code := runCLI(t, []string{"pcap", "kafka-ipv6-null.pcapng"}, nil)
	require.Equal(t, 0, code, wantErr)
	got, gotErr, code := runCLI(t, []string{"pcap", "-"}, b)
	require.Equal(t, 0, code, gotErr)
	require.Equal(t, want, got)
	require.Equal(t, strings.ReplaceAll(wantErr, "kafka-ipv6-null.pcapng", "-"), gotErr)
}

// TestPcapMemoryFlat: kwire pcap streams, so its peak memory (the child
// process's maximum resident set) barely moves when the capture grows
// tenfold: at most 1.5 times, from 1,000 exchanges (7 MB) to 10,000 (70 MB).
func TestPcapMemoryFlat(t *testing.T) {
	helper := filepath.Join(t.TempDir(), "maxrss")
	out, err := exec.Command("go", "build", "-o", helper, "./testdata/maxrss").CombinedOutput()
	require.NoError(t, err, string(out))
	rss := func(pairs int) int64 {
		file := trafficPcap(t, traffic.PcapOptions{Pairs: pairs, Conns: 10, InFlight: 4})
		defer os.Remove(file)
		return peakRSS(t, helper, kwireBin, "pcap", "--jobs", "2", file)
	}
	small, large := rss(1000), rss(10000)
	t.Logf("peak RSS: %d KiB at 1,000 exchanges, %d KiB at 10,000 (%.2fx)", small, large, float64(large)/float64(small))
	require.LessOrEqual(t, float64(large), 1.5*float64(small))
}

// peakRSS runs a command through the maxrss helper (testdata/maxrss) with
// its output discarded, and returns its peak resident set in KiB.
func peakRSS(t *testing.T, helper string, args ...string) int64 {
	cmd := exec.Command(helper, args...)
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	kib, err := strconv.ParseInt(strings.TrimPrefix(lines[len(lines)-1], "maxrss "), 10, 64)
	require.NoError(t, err, stderr.String())
	return kib
}

// framePool hands out buffers of a power-of-two capacity that holds the
// size asked for, hands a frame's buffer out again once it is put back,
// and keeps no more than maxFreeFrames bytes.
func TestFramePoolReuse(t *testing.T) {
	var p framePool
	for _, n := range []int{1, 2, 3, 100, 128, 129, 10_000} {
		b := p.get(n)
		require.Empty(t, b)
		require.GreaterOrEqual(t, cap(b), n)
		require.Less(t, cap(b), 2*n+1)
	}
	b := append(p.get(100), make([]byte, 100)...)
	f := &capture.Frame{Bytes: b}
	p.put(f)
	require.Nil(t, f.Bytes, "a frame put back keeps no view of the buffer")
	c := p.get(120)
	require.Equal(t, cap(b), cap(c))
	require.Same(t, &b[0], &c[:1][0], "the same buffer again")
	require.NotSame(t, &b[0], &p.get(120)[:1][0], "handed out once")
	p.put(nil) // an exchange without a response

	big := maxFreeFrames / 4
	for range 6 {
		p.put(&capture.Frame{Bytes: make([]byte, 0, big)})
	}
	require.Equal(t, maxFreeFrames, p.bytes, "four kept, two dropped: no more than maxFreeFrames")
	for range 4 {
		p.get(big)
	}
	require.Zero(t, p.bytes, "all handed out again")
}

// TestPcapStrictFailsOnLostBytes: --strict exits 1 when the capture lost
// bytes (a gap, said where it is), as when it is cut short; without it,
// the exit status is 0.
func TestPcapStrictFailsOnLostBytes(t *testing.T) {
	produce := exampleFrame(t, "Produce", 9, false, 2)
	cut := len(produce) - 20
	file := connPcap(t, true, []int{3},
		segment{true, 0, exampleFrame(t, "Metadata", 9, false, 1)},
		segment{false, time.Millisecond, exampleFrame(t, "Metadata", 9, true, 1)},
		segment{true, 2 * time.Millisecond, produce[:cut]},
		segment{true, 2 * time.Millisecond, produce[cut:]}, // lost
		segment{false, 3 * time.Millisecond, exampleFrame(t, "Produce", 9, true, 2)})
	_, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "acknowledged by peer but not captured")
	_, errOut, code = runCLI(t, []string{"pcap", "--strict", file}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "kwire: "+file+": 1 gaps: bytes missing from the capture (lost, or cut by the snap length) (--strict)\n")
}

// A capture in which no Kafka exchange is found says so, with what its
// packets were, in kwire pcap and kwire check alike: an empty output is
// not a clean capture.
func TestCaptureWithNoKafkaSaysSo(t *testing.T) {
	file := segmentsPcap(t,
		segment{true, 0, []byte("GET / HTTP/1.1\r\nHost: broker\r\n\r\n")},
		segment{false, time.Millisecond, []byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")})
	// On the broker port (9092): its bytes are skipped as no frames.
	for _, cmd := range []string{"pcap", "check"} {
		out, errOut, code := runCLI(t, []string{cmd, file}, nil)
		require.Equal(t, 0, code, errOut)
		require.Empty(t, out)
		require.Contains(t, errOut, "segments.pcap: no Kafka exchange found in its 2 packets; 75 bytes did not read as frames and were skipped\n")
	}
	// A broker named on another port: the connection is other traffic.
	out, errOut, code := runCLI(t, []string{"check", "--port", "5555", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, out)
	require.Contains(t, errOut, "segments.pcap: no Kafka exchange found in its 2 packets; 75 bytes did not read as frames and were skipped; 2 read as other traffic (a broker on a port other than 5555 is found by its requests; --port names one)\n")
	require.Contains(t, errOut, "kwire: check: 0 errors, 0 warnings, 0 notes; 0 rules not judged (said in their lines); 1 of 1 files with no Kafka exchange (said above)\n")
	// Kafka found: nothing said.
	file = segmentsPcap(t, segment{true, 0, exampleFrame(t, "ApiVersions", 3, false, 2)})
	_, errOut, code = runCLI(t, []string{"check", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "no Kafka")
}

// An exchange whose request the capture holds only in part and whose
// response fails on its own bytes is named on standard error by its
// response, the frame that failed, not by the damaged request.
func TestPcapFailureNamesTheFrameThatFailed(t *testing.T) {
	produce := exampleFrame(t, "Produce", 9, false, 2)
	cut := len(produce) - 20
	bad := exampleFrame(t, "Produce", 9, true, 2)
	bad = append(bad[:len(bad)-6:len(bad)-6], 0xff, 0xff, 0xff, 0xff, 0xff, 0xff) // its last fields as impossible lengths
	file := connPcap(t, true, []int{1}, segment{true, 0, produce[:cut]}, segment{true, 0, produce[cut:]},
		segment{false, time.Millisecond, bad})
	out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, `"correlationId":2,"paired":true`)
	require.Contains(t, errOut, "kwire: 1 exchange had frames that failed to decode (each has a requestError or responseError in its line):\n")
	require.Regexp(t, `(?m)^kwire: packet \d+: conn 1 correlation 2 response: `, errOut)
	require.NotRegexp(t, `(?m)^kwire: packet \d+: conn 1 correlation 2 request: `, errOut)
}
