package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// The descriptor tests run the proxy in a child process (this test binary
// again), whose descriptors they can exhaust without touching their own.
const (
	childUpstream = "KWIRE_PROXY_CHILD_UPSTREAM"
	childFree     = "KWIRE_PROXY_CHILD_FREE"
	childLimit    = 128 // the child's RLIMIT_NOFILE
)

func TestMain(m *testing.M) {
	if up := os.Getenv(childUpstream); up != "" {
		os.Exit(runChildProxy(up))
	}
	os.Exit(m.Run())
}

// runChildProxy runs a proxy in front of up with exactly KWIRE_PROXY_CHILD_FREE
// descriptors left free: it lowers its own RLIMIT_NOFILE, starts the proxy,
// waits for its spare connection to the broker, then takes descriptors (on
// /dev/null) until none is left and gives back that many. It prints the
// proxy's address on stdout, its log on stderr, and runs until stdin
// closes.
//
// The count is exact only if nothing else opens or closes a descriptor
// meanwhile. The spare is dialled by a goroutine of its own: dialled
// while the descriptors were taken, it failed for want of one and took one
// of those given back 100 ms later, one fewer for the clients. The
// descriptors taken are held to the end: once unreachable, the garbage
// collector closed them (an *os.File's cleanup) at a moment of its
// choosing, giving the proxy more, and a client that should have waited
// was served.
func runChildProxy(up string) int {
	free, _ := strconv.Atoi(os.Getenv(childFree))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: childLimit, Max: childLimit}); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 1
	}
	p, err := New(Config{Upstream: up, Listen: "127.0.0.1:0", Log: func(s string) { fmt.Fprintln(os.Stderr, s) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() { p.Serve(ctx); close(done) }()
	for deadline := time.Now().Add(10 * time.Second); !hasSpare(p); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "no spare connection to the broker in 10 s")
			return 1
		}
	}
	var held []*os.File
	for {
		f, err := os.Open(os.DevNull)
		if err != nil {
			if !errors.Is(err, syscall.EMFILE) {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			break
		}
		held = append(held, f)
	}
	for _, f := range held[len(held)-free:] {
		f.Close()
	}
	// A collection now, as one may come at any time: the descriptors
	// held stay open through it.
	runtime.GC()
	fmt.Println(p.Addr().String())
	io.Copy(io.Discard, os.Stdin)
	cancel()
	<-done
	runtime.KeepAlive(held) // open until the proxy stopped
	return 0
}

// hasSpare reports whether p's first listener holds its spare connection
// to the broker.
func hasSpare(p *Proxy) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.listeners[0].spare != nil
}

// freeDescriptors is how many descriptors the process pid has free
// under childLimit, read from /proc/PID/fd; ok is false where there is
// no such folder (not Linux).
func freeDescriptors(pid int) (n int, ok bool) {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		return 0, false
	}
	n = childLimit
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd < childLimit {
			n--
		}
	}
	return n, true
}

// childProxy starts runChildProxy and returns its address, its log and
// its process id.
func childProxy(t *testing.T, upstream string, free int) (string, *logs, int) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childUpstream+"="+upstream, childFree+"="+strconv.Itoa(free))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lg := &logs{}
	logged := make(chan struct{})
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			lg.log(s.Text())
		}
		close(logged)
	}()
	t.Cleanup(func() {
		stdin.Close()
		wait := make(chan error, 1)
		go func() { wait <- cmd.Wait() }()
		select {
		case err := <-wait:
			<-logged
			require.NoError(t, err, lg.String())
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("the child proxy did not stop: %s", lg)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err, lg.String())
	return strings.TrimSpace(line), lg, cmd.Process.Pid
}

// TestAcceptOutOfFiles: when the proxy has no descriptor left, a client
// waits in the listen queue, the proxy says so once, and once descriptors
// are free again the waiting client and new ones are served: the accept
// loop backs off and retries rather than stop for good (a proxy that
// stopped kept its port, and new clients hung forever in silence).
func TestAcceptOutOfFiles(t *testing.T) {
	b := newFakeBroker(t)
	const served = 3 // clients served at once: two descriptors each
	addr, lg, pid := childProxy(t, b.addr(), 2*served)
	if n, ok := freeDescriptors(pid); ok {
		require.Equal(t, 2*served, n, "the descriptors the proxy is left")
	}
	var conns []net.Conn
	for i := range served {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, err = roundTrip(c, request(t, schema.KeyListGroups, 4, int32(i), "holder", map[string]any{}))
		require.NoError(t, err, "client %d is served: %s", i, lg)
		conns = append(conns, c)
	}
	// Every descriptor is taken: the next client is not accepted. The
	// last may still be free for a moment: the spare taken by the last
	// client is dialled again by a goroutine of its own. A client
	// accepted then would find no descriptor to reach the broker with,
	// and be reset.
	if _, ok := freeDescriptors(pid); ok {
		require.Eventually(t, func() bool { n, _ := freeDescriptors(pid); return n == 0 }, 5*time.Second, time.Millisecond, "a descriptor left free: %s", lg)
	}
	waiting, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer waiting.Close()
	waiting.SetDeadline(time.Now().Add(time.Second))
	req := request(t, schema.KeyListGroups, 4, 42, "waiting", map[string]any{})
	_, err = waiting.Write(req)
	require.NoError(t, err)
	_, err = waiting.Read(make([]byte, 1))
	var ne net.Error
	require.True(t, errors.As(err, &ne) && ne.Timeout(), "no answer while the proxy has no descriptor: %v", err)
	require.Eventually(t, func() bool { return lg.has("out of file descriptors") }, 5*time.Second, 5*time.Millisecond, lg.String())

	for _, c := range conns {
		c.Close()
	}
	// The waiting client is accepted and answered.
	waiting.SetDeadline(time.Now().Add(10 * time.Second))
	var size [4]byte
	_, err = io.ReadFull(waiting, size[:])
	require.NoError(t, err, "the client that waited is served once descriptors are free: %s", lg)
	// And a new one.
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	_, err = roundTrip(c, request(t, schema.KeyListGroups, 4, 7, "after", map[string]any{}))
	require.NoError(t, err, lg.String())
	require.Equal(t, 1, strings.Count(lg.String(), "out of file descriptors"), "said once: %s", lg)
}

// refused reports whether a connection to addr is refused.
func refused(addr string) bool {
	c, err := net.Dial("tcp", addr)
	if err == nil {
		c.Close()
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// TestBrokerDownRefused: a client of a broker that is down sees it
// unreachable, as it would connecting directly: refused, not accepted and
// then dropped (which librdkafka blames on the client's security
// protocol). The proxy learns the broker is gone from its spare
// connection to it, before any client tries, stops listening, and listens
// again on the same address once the broker answers.
func TestBrokerDownRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	brokerAddr := ln.Addr().String()
	ln.Close() // the broker is down from the start
	lg := &logs{}
	p := startProxy(t, Config{Upstream: brokerAddr, Log: lg.log})
	addr := p.Addr().String()
	require.Eventually(t, func() bool { return lg.has("broker " + brokerAddr + " is unreachable") }, 5*time.Second, time.Millisecond, lg.String())
	require.True(t, refused(addr), "clients are refused")

	b := newFakeBrokerAt(t, brokerAddr)
	require.Eventually(t, func() bool { return lg.has("broker " + brokerAddr + " answers again: listening on " + addr) }, 15*time.Second, 5*time.Millisecond, lg.String())
	healthy(t, p)

	// Down while the proxy runs: its spare connection ends, the proxy
	// stops listening, and the first client after it is refused.
	b.stop()
	require.Eventually(t, func() bool { return p.Stats().BrokersDown == 2 }, 5*time.Second, time.Millisecond, lg.String())
	require.True(t, refused(addr), "the first client after the broker went down is refused")
	newFakeBrokerAt(t, brokerAddr)
	require.Eventually(t, func() bool { return !refused(addr) }, 15*time.Second, 5*time.Millisecond, lg.String())
	healthy(t, p)
}

// freePort is a loopback port nothing listens on.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// metadataBrokers asks for Metadata through the proxy and returns the
// brokers the client is given, as host:port.
func metadataBrokers(t *testing.T, addr string) []string {
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	rsp, err := roundTrip(c, request(t, schema.KeyMetadata, 9, 1, "meta", map[string]any{"topics": nil}))
	require.NoError(t, err)
	var o codec.Options
	o.Response, o.APIKey, o.Version = true, schema.KeyMetadata, 9
	f, err := codec.Decode(rsp, o)
	require.NoError(t, err)
	var out []string
	for _, n := range f.Root.Get("body").Get("brokers").Elems() {
		out = append(out, Endpoint{string(n.Get("host").Raw), int(n.Get("port").Int)}.String())
	}
	return out
}

// TestListenerLimit: a Metadata answer naming a thousand brokers opens
// at most DefaultMaxListeners listeners (the first included); the
// brokers past the limit reach the client as the broker named them, and
// the log says so once.
func TestListenerLimit(t *testing.T) {
	require.LessOrEqual(t, DefaultMaxListeners, 256)
	b := newFakeBroker(t)
	port := freePort(t)
	var named []map[string]any
	for i := range 1000 {
		named = append(named, map[string]any{"nodeId": i, "host": "127.0." + strconv.Itoa(1+i/250) + "." + strconv.Itoa(1+i%250), "port": port})
	}
	b.setBrokers(named)
	lg := &logs{}
	p := startProxy(t, Config{Upstream: b.addr(), Log: lg.log})
	got := metadataBrokers(t, p.Addr().String())
	require.Len(t, got, 1000)
	require.Len(t, p.Listeners(), DefaultMaxListeners)
	for i, e := range got {
		if i < DefaultMaxListeners-1 {
			require.True(t, strings.HasPrefix(e, "127.0.0.1:"), "broker %d is sent to the proxy: %s", i, e)
		} else {
			require.Equal(t, Endpoint{named[i]["host"].(string), port}.String(), e, "broker %d is left as named", i)
		}
	}
	// Asked again: no more listeners, and the limit is said once.
	metadataBrokers(t, p.Addr().String())
	require.Len(t, p.Listeners(), DefaultMaxListeners)
	require.Equal(t, 1, strings.Count(lg.String(), "(--max-brokers)"), lg.String())
	require.True(t, lg.has("broker 127.0.2.6:"+strconv.Itoa(port)+" would need listener 257, over the limit of 256"), lg.String())
}

// TestAllowBrokers: a response naming a service that is not a broker
// (here a line-based one on loopback) does not make the proxy connect to
// it or relay clients to it when AllowBrokers leaves it out; the client
// gets its address as the broker gave it, and the log says why.
func TestAllowBrokers(t *testing.T) {
	b := newFakeBroker(t)
	service, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer service.Close()
	reached := make(chan struct{}, 1)
	go func() {
		c, err := service.Accept()
		if err == nil {
			reached <- struct{}{}
			c.Close()
		}
	}()
	_, bport, _ := net.SplitHostPort(b.addr())
	bp, _ := strconv.Atoi(bport)
	sport := service.Addr().(*net.TCPAddr).Port
	b.setBrokers([]map[string]any{{"nodeId": 1, "host": "127.0.0.1", "port": bp}, {"nodeId": 2, "host": "127.0.0.1", "port": sport}})
	lg := &logs{}
	p := startProxy(t, Config{Upstream: b.addr(), Log: lg.log, AllowBrokers: []string{"localhost", "127.0.0.0/8:" + bport}})
	got := metadataBrokers(t, p.Addr().String())
	require.Equal(t, []string{p.Addr().String(), service.Addr().String()}, got)
	require.Len(t, p.Listeners(), 1)
	require.True(t, lg.has("broker "+service.Addr().String()+" is not in the brokers allowed (--allow-brokers)"), lg.String())
	// Every Metadata answer names it again: it is said once (it was
	// said again for each).
	for i := 0; i < 3; i++ {
		metadataBrokers(t, p.Addr().String())
	}
	require.Equal(t, 1, strings.Count(lg.String(), "is not in the brokers allowed"), lg.String())
	select {
	case <-reached:
		t.Fatal("the proxy connected to a service outside the brokers allowed")
	case <-time.After(200 * time.Millisecond):
	}
}

func TestBrokerPatterns(t *testing.T) {
	ps, err := parseBrokerPatterns([]string{"*.kafka.internal", "Kafka-?.example:9092", "10.1.0.0/16", "fd00::1", "[fd00::2]:9093"})
	require.NoError(t, err)
	p := &Proxy{allow: ps}
	for e, want := range map[Endpoint]bool{
		{"b1.kafka.internal", 1}:    true,
		{"B1.KAFKA.INTERNAL", 1}:    true,
		{"kafka.internal", 1}:       false,
		{"kafka-1.example", 9092}:   true,
		{"kafka-1.example", 9093}:   false,
		{"kafka-12.example", 9092}:  false,
		{"10.1.200.3", 6379}:        true,
		{"10.2.0.1", 9092}:          false,
		{"::ffff:10.1.0.9", 9092}:   true,
		{"fd00::1", 9092}:           true,
		{"fd00::2", 9093}:           true,
		{"fd00::2", 9092}:           false,
		{"127.0.0.1", 6379}:         false,
		{"evil.example/../x", 9092}: false,
	} {
		require.Equal(t, want, p.allowed(e), "%v", e)
	}
	for _, bad := range []string{"[a", "host:0", "host:http", "10.0.0.0/33", "a/b"} {
		_, err := parseBrokerPatterns([]string{bad})
		require.Error(t, err, bad)
	}
	_, err = New(Config{Upstream: "127.0.0.1:9092", AllowBrokers: []string{"[a"}})
	require.ErrorContains(t, err, `broker pattern "[a"`)
}
