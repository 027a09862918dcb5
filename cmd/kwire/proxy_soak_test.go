package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// attackers throws connections at an address until stopped: idle ones
// that send nothing, slow ones that send a byte at a time, and hungry
// ones that open connection after connection to take every descriptor
// the server has, keeping the newest and dropping the oldest.
type attackers struct {
	wg     sync.WaitGroup
	stop   chan struct{}
	mu     sync.Mutex
	conns  []net.Conn
	opened atomic.Int64
}

func newAttackers() *attackers { return &attackers{stop: make(chan struct{})} }

func (a *attackers) keep(c net.Conn) {
	a.opened.Add(1)
	a.mu.Lock()
	a.conns = append(a.conns, c)
	a.mu.Unlock()
}

func (a *attackers) dial(addr string) net.Conn {
	d := net.Dialer{Timeout: 500 * time.Millisecond}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil
	}
	return c
}

// idle opens n connections that never send a byte.
func (a *attackers) idle(addr string, n int) {
	for range n {
		if c := a.dial(addr); c != nil {
			a.keep(c)
		}
	}
}

// slow opens n connections that send prefix a byte every 200 ms.
func (a *attackers) slow(addr string, n int, prefix []byte) {
	for range n {
		c := a.dial(addr)
		if c == nil {
			continue
		}
		a.keep(c)
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			t := time.NewTicker(200 * time.Millisecond)
			defer t.Stop()
			for i := 0; ; i++ {
				select {
				case <-a.stop:
					return
				case <-t.C:
					if _, err := c.Write(prefix[i%len(prefix) : i%len(prefix)+1]); err != nil {
						return
					}
				}
			}
		}()
	}
}

// hungry keeps opening connections to addr (every 5 ms, holding the
// newest max) until stopped.
func (a *attackers) hungry(addr string, max int) {
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-a.stop:
				return
			case <-t.C:
			}
			if c := a.dial(addr); c != nil {
				a.opened.Add(1)
				held = append(held, c)
				if len(held) > max {
					held[0].Close()
					held = held[1:]
				}
			}
		}
	}()
}

func (a *attackers) close() {
	close(a.stop)
	a.wg.Wait()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.conns {
		c.Close()
	}
}

// soakAttackEnv names the addresses a soak attacker process attacks (the
// proxy's and its web server's, space-separated): TestMain runs the
// attacker instead of the tests when it is set.
const soakAttackEnv = "KWIRE_SOAK_ATTACK"

// soakAttacker is the soak's attackers in a process of their own, at the
// lowest priority (nice 19): on two cores, attackers in the test's process
// took the CPU the client's throughput is measured with, which is the
// machine's limit, not the proxy's. It is told "start" and "stop" a line
// at a time, and answers each with a line.
type soakAttacker struct {
	in  io.WriteCloser
	out *bufio.Scanner
}

func startSoakAttacker(t *testing.T, proxy, web string) *soakAttacker {
	cmd := exec.Command("nice", "-n", "19", os.Args[0])
	cmd.Env = append(os.Environ(), soakAttackEnv+"="+proxy+" "+web)
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return &soakAttacker{in: in, out: bufio.NewScanner(out)}
}

// say sends a command and returns the answer.
func (a *soakAttacker) say(cmd string) string {
	io.WriteString(a.in, cmd+"\n")
	if !a.out.Scan() {
		return ""
	}
	return a.out.Text()
}

// runSoakAttacker is the attacker process: "start" throws idle, slow and
// descriptor-hungry connections at both addresses and answers once the
// descriptors have run out (a second); "stop" closes them and answers how
// many were opened. It ends when its input does.
func runSoakAttacker(spec string) int {
	proxy, web, _ := strings.Cut(spec, " ")
	kafkaSlow := []byte{0, 0, 0, 40, 0, 18, 0, 3, 0, 0, 0, 1}
	webSlow := []byte("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + strings.Repeat("a", 64))
	var a *attackers
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		switch in.Text() {
		case "start":
			a = newAttackers()
			a.idle(proxy, 40)
			a.idle(web, 40)
			a.slow(proxy, 10, kafkaSlow)
			a.slow(web, 10, webSlow)
			a.hungry(proxy, 300)
			a.hungry(web, 300)
			time.Sleep(time.Second) // the descriptors run out
			fmt.Println("started")
		case "stop":
			a.close()
			fmt.Println(a.opened.Load())
		}
	}
	return 0
}

// TestProxySoak: a real client (franz-go) producing and consuming through
// kwire proxy keeps its throughput, within 20%, while idle, slow and
// descriptor-hungry connections are thrown at the proxy and at its --web
// server (from a process of its own at the lowest priority), with the
// proxy's descriptors limited to 256 so that they run out; every exchange
// is printed; and once the attack ends new clients
// are served. Bounded: six rounds of 1.5 seconds with and without the
// attack, on loopback.
//
// The comparison is of throughput, so it needs the machine to itself:
// `make test` runs it in a step of its own (KWIRE_SOAK=1) after the other
// packages' tests, which on two cores took 40% of its throughput while
// they ran beside it.
func TestProxySoak(t *testing.T) {
	if os.Getenv("KWIRE_SOAK") != "1" {
		t.Skip("make test runs the soak alone, with KWIRE_SOAK=1")
	}
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "soak"))
	site := t.TempDir()
	p := startProxyCLILimited(t, 256, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--format", "ndjson",
		"--decode-cpu", "0", "--web", "127.0.0.1:0", "--web-dir", site)
	var web string
	require.Eventually(t, func() bool {
		m := webRE.FindStringSubmatch(p.stderr.String())
		if m != nil {
			web = m[1]
		}
		return m != nil
	}, 10*time.Second, 5*time.Millisecond)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.ClientID("soak"), kgo.ConsumeTopics("soak"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.ProducerLinger(0))
	require.NoError(t, err)
	defer cl.Close()
	produced := 0
	// run produces one record at a time for d, and consumes what is
	// there, and returns the records produced per second.
	run := func(d time.Duration) float64 {
		start := time.Now()
		n := 0
		for time.Since(start) < d {
			require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: "soak", Value: []byte("soak " + strconv.Itoa(produced))}).FirstErr())
			produced++
			n++
			if n%200 == 0 {
				pctx, pcancel := context.WithTimeout(ctx, 50*time.Millisecond)
				cl.PollFetches(pctx)
				pcancel()
			}
		}
		return float64(n) / time.Since(start).Seconds()
	}
	run(time.Second) // every connection the client needs is open before the attack

	attacker := startSoakAttacker(t, p.addr, web)
	// Short windows with and without the attack, interleaved, compared by
	// their medians: a window's throughput on a shared two-core machine
	// varies by a third from one to the next whatever the proxy does, and
	// a slow trend over the run would favour whichever came first.
	const rounds = 6
	var base, attacked []float64
	var opened int64
	for round := range rounds {
		base = append(base, run(1500*time.Millisecond))
		attacker.say("start") // answered once the descriptors have run out
		attacked = append(attacked, run(1500*time.Millisecond))
		n, err := strconv.ParseInt(attacker.say("stop"), 10, 64)
		require.NoError(t, err)
		opened += n
		t.Logf("round %d: %.0f records/s, %.0f under the attack of %d connections", round, base[round], attacked[round], n)
	}
	mb, ma := median(base), median(attacked)
	t.Logf("median %.0f records/s without the attack, %.0f with it (%d attacking connections in all)", mb, ma, opened)
	require.GreaterOrEqual(t, ma, 0.8*mb, "throughput under attack within 20%% of the throughput without")

	// The proxy ran out of descriptors and said so, and serves new clients
	// once the attack is over.
	require.Contains(t, p.stderr.String(), "out of file descriptors")
	kgoTraffic(t, p.addr, "after", "soak", 1)
	cl.Close()

	stdout, stderr := p.stop(t)
	m := regexp.MustCompile(`stopped: (\d+) connections?, (\d+) exchanges? \((\d+) shown, (\d+) skipped`).FindStringSubmatch(stderr)
	require.NotNil(t, m, stderr)
	require.Equal(t, m[2], m[3], "every exchange printed")
	require.Equal(t, "0", m[4])
	lines := parseProxyLines(t, stdout)
	require.Equal(t, m[3], strconv.Itoa(len(lines)))
	seen := map[string]bool{}
	for _, r := range proxiedRecords(t, lines) {
		seen[r.value] = true
	}
	for i := range produced {
		require.True(t, seen["soak "+strconv.Itoa(i)], "record %d of %d is in a Produce exchange printed", i, produced)
	}
	require.Less(t, strings.Count(stderr, "out of file descriptors"), 3, "said at most once a minute")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
