// Package proxy is a Kafka proxy that shows what passes through it: it
// forwards every byte between clients and brokers, pairs each request with
// its response by correlation id, and hands the exchanges, as the bytes
// that crossed, to a caller's sink behind a bounded queue, where they can
// be decoded without ever holding up the traffic.
//
// Clients stay on the proxy: every broker address a response carries (the
// fields are found in the schemas: Metadata's brokers, FindCoordinator,
// DescribeCluster, the node endpoints of Produce and Fetch, and every other
// response struct naming a node's host and port) is rewritten to a
// listener of the proxy, one per broker, opened when the broker is first
// named; an endpoint that names no node (an empty host, a negative port
// or node id: FindCoordinator's COORDINATOR_NOT_AVAILABLE answer) is left
// as the broker sent it. A response that can carry addresses is held
// whole, decoded, rewritten and encoded again by the codec; every other
// frame is relayed as it arrives.
//
// ApiVersions responses are held too: the versions they offer of the APIs
// whose responses carry addresses are capped at the newest kwire knows, so
// that a client never picks one the proxy could not rewrite (never into a
// range with no version in it: an API whose lowest version offered is
// already newer is left as offered). One that does not read at its
// request's version is read at v0, as a broker's UNSUPPORTED_VERSION
// answer to a version it does not know is laid out (KIP-511); one that
// does not read either way goes to the client as the broker sent it,
// uncapped, with a log line: it names no broker.
//
// What it guarantees:
//
//   - Forwarding never waits for the sink: an exchange that finds the queue
//     full (or the bytes it holds over Config.QueueBytes) is skipped and
//     counted, and the next one delivered says how many were skipped: every
//     exchange that ended before it and was not delivered is counted by it
//     or by one delivered earlier, so a sink following a conversation
//     knows what it missed (Exchange.Skipped, ConnSkipped).
//   - A frame that does not decode is forwarded unchanged, except a
//     response that can carry broker addresses (ApiVersions carries none):
//     that closes its connection, with a log line, rather than hand the
//     client a broker's own address.
//   - A frame over Config.MaxFrame closes its connection, with a log line.
//   - Memory per connection is bounded: two relay buffers, at most
//     maxWaiting requests waiting for their response, and one response of
//     at most MaxFrame held while it is rewritten; copies made for the sink
//     come out of one budget shared by every connection.
//   - It listens only where told.
//   - A broker that is down is refused to its clients, as it would refuse
//     them itself: each listener keeps a spare connection to its broker,
//     dialled ahead of the next client, which tells it the moment the
//     broker goes away; the listener then stops listening until a dial to
//     the broker works again, on the same address. A client whose own
//     dial fails is reset, never closed cleanly (librdkafka reads a clean
//     close right after connecting as its own misconfiguration).
//   - Running out of file descriptors, it backs off and accepts again (5
//     ms doubling to 1 s, as net/http does), saying so at most once a
//     minute.
//   - Every line it logs is escaped (AppendEscaped): what came from the
//     network, broker host names first, cannot drive a terminal.
package proxy

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kwire/kwire/internal/positive"
)

// DefaultSinkShare is the share of one CPU kwire proxy lets decoding take
// by default (--decode-cpu). Value JSON written straight from the bytes
// costs about 1.6 ms per 230 KB Produce exchange of 1 KiB records
// (BenchmarkSink: 150 MB/s of frames on a core), so a tenth of a core
// decodes every exchange of a steady 20 or 60 MB/s of such records
// (BenchmarkDebugLoad: none skipped; at 150 MB/s it skips half, a
// quarter of a core 2-5%), a debugging session's load, while keeping what
// decoding takes from traffic beyond that small: at 1 GB/s of records
// (BenchmarkProduce) decoding cost 15-24% of direct throughput on a shared
// two-core machine, a quarter of a core 20-35%.
const DefaultSinkShare = 0.1

// DefaultMaxFrame is the largest frame relayed by default, Kafka's own
// socket.request.max.bytes.
const DefaultMaxFrame = 100 << 20

// DefaultMaxListeners bounds the listeners a proxy opens, one per broker
// its responses name: larger than most clusters, small enough that a
// broker advertising thousands of others costs a few hundred sockets.
const DefaultMaxListeners = 256

// maxSaid bounds the brokers outside AllowBrokers that the log names.
const maxSaid = 16

// Config says where to listen, where to forward and what to do with the
// exchanges.
type Config struct {
	// Listen is the address of the first listener, which forwards to
	// Upstream ("127.0.0.1:19092"; port 0 picks one).
	Listen string
	// Upstream is the broker the first listener forwards to ("broker:9092").
	Upstream string
	// Ports are used in order for the listeners opened for brokers as
	// responses name them; when none are left the system picks.
	Ports []int
	// AdvertiseHost is the host written into rewritten responses; by
	// default Listen's host (which must then be a specific address).
	AdvertiseHost string
	// MaxFrame is the largest frame relayed; a larger size prefix closes
	// the connection. Zero means DefaultMaxFrame.
	MaxFrame int
	// ClientTLS, when set, makes every listener speak TLS to clients.
	ClientTLS *tls.Config
	// UpstreamTLS, when set, makes connections to brokers use TLS. An empty
	// ServerName is filled with each broker's host.
	UpstreamTLS *tls.Config
	// DialTimeout bounds connecting to a broker (default 10 s).
	DialTimeout time.Duration
	// MaxListeners bounds the listeners, the first one included, and so
	// the brokers the proxy relays to (default DefaultMaxListeners). A
	// broker named once they are all open is left in responses as the
	// broker gave it, as the log says once.
	MaxListeners int
	// AllowBrokers, when not empty, lists the brokers responses may send
	// clients to through the proxy: host patterns (path.Match globs, any
	// case: "*.kafka.internal"), address prefixes ("10.1.0.0/16"), either
	// with a port ("kafka-?.example:9092"). Upstream is always allowed. A
	// broker outside them is left as the broker gave it (the proxy never
	// connects to it), as the log says.
	AllowBrokers []string

	// Sink receives each exchange, in the order they complete, from one
	// goroutine. Nil turns copying off: the proxy only forwards (and
	// counts).
	Sink func(*Exchange)
	// Keep, when set, says which API keys the sink wants; others are not
	// copied at all. Raw SASL tokens (Exchange.SASLToken) are asked about
	// as key -1.
	Keep func(apiKey int16) bool
	// QueueLen bounds the exchanges waiting for the sink (default 1024);
	// QueueBytes the bytes of frames copied for it, waiting or in flight,
	// across all connections (default 64 MiB; one frame larger than that
	// is still copied when nothing else is).
	QueueLen   int
	QueueBytes int64
	// SinkShare bounds the CPU time the sink may take, as a share of one
	// CPU (0.25: a quarter of a core's time), measured by the CPU clock of
	// the thread that runs it (where there is none, as the wall time spent
	// in Sink); past it (after a burst of SinkBurst) exchanges are skipped,
	// and not even copied, until the share is back under. Time the sink
	// waits (on its output, for a CPU) is not counted. One call is charged
	// at most SinkBurst, so the longest silence after one is
	// 2*SinkBurst/SinkShare. Decoding is what a busy proxy can least
	// afford: this keeps it from taking the CPU the traffic needs. Zero
	// means no limit beyond the queue.
	SinkShare float64
	// SinkBurst is the sink time allowed above SinkShare in a burst
	// (default 100 ms).
	SinkBurst time.Duration

	// Log receives one line per event worth telling: a connection closed
	// for a reason, a frame over the limit, a response that could not be
	// rewritten, a listener opened.
	Log func(string)
}

// Exchange is a request and its response as they crossed the proxy.
type Exchange struct {
	ConnID uint64
	// Client is the client's address, Broker the broker's, as connected.
	Client, Broker netip.AddrPort
	// APIKey, APIVersion and CorrelationID come from the request header
	// (from the response alone when there is no request: -1, -1 and the
	// response's).
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	// Request and Response are the whole frames, size prefix included, as
	// the client and broker sent them (the response before any rewriting).
	// Nil when there is none; both nil when the exchange was not copied.
	Request, Response []byte
	// Sizes of the frames, copied or not (0 when absent).
	RequestSize, ResponseSize int
	// When the last byte of each frame arrived.
	RequestTime, ResponseTime time.Time
	// NoResponseExpected marks a Produce with acks=0.
	NoResponseExpected bool
	// ConnClosed marks a request still waiting when its connection closed,
	// or whose response the close cut short (Response then holds what came
	// of it, ResponseSize the size it announced); Unanswered one given up
	// on after more than maxOvertaken later requests of its connection
	// were answered.
	ConnClosed, Unanswered bool
	// Overtook counts the requests sent before this one on its connection
	// still waiting when its response came; Overtaken the later requests
	// answered while this one waited, the first with correlation id
	// OvertakenBy. Kafka answers a connection's requests in order; one
	// overtaken waits on, paired when its answer comes, as kwire check
	// pairs a capture's (internal/capture), up to maxOvertaken times.
	Overtook    int
	Overtaken   int
	OvertakenBy int32
	// ReusedCorrelation marks a request whose correlation id was that of
	// a request of its connection still waiting (its response goes to the
	// older one).
	ReusedCorrelation bool
	// SASLToken marks raw SASL tokens, which a client and broker exchange
	// after a SaslHandshake v0 with no Kafka header (KIP-43): Request is
	// the client's token, Response the broker's answer, either alone when
	// the other is missing. APIKey, APIVersion and CorrelationID are -1.
	// A client's token is kept as far as maxRawFrame (64 KiB), the
	// largest frame the proxy reads whole to tell a token from a request.
	SASLToken bool
	// Rewritten counts the broker endpoints rewritten in the response.
	Rewritten int
	// Skipped is how many exchanges were skipped (the sink was behind)
	// since the one delivered before this. Every exchange skipped that
	// ended before this one is counted here or in an exchange delivered
	// earlier.
	Skipped int
	// ConnSkipped is how many of this connection's exchanges were skipped
	// so far, when this one was delivered: every one that ended before
	// it, and maybe some that ended since.
	ConnSkipped int

	budget      int64
	connSkipped *atomic.Int64 // the connection's count
}

// Paired reports whether both frames are there.
func (x *Exchange) Paired() bool { return x.RequestSize > 0 && x.ResponseSize > 0 }

// Latency is the time from the request's last byte to the response's.
func (x *Exchange) Latency() time.Duration {
	if x.RequestTime.IsZero() || x.ResponseTime.IsZero() {
		return 0
	}
	return x.ResponseTime.Sub(x.RequestTime)
}

// Stats are the proxy's counters.
type Stats struct {
	Connections  int64 // accepted
	Open         int64 // open now
	Exchanges    int64 // completed (copied or not)
	Delivered    int64 // handed to the sink
	Skipped      int64 // not handed to the sink because it was behind
	Rewritten    int64 // endpoints rewritten
	Listeners    int64 // listeners open
	OverLimit    int64 // connections closed for a frame over MaxFrame
	RewriteFails int64 // connections closed for a response that could not be rewritten
	SASLTokens   int64 // legacy (SaslHandshake v0) SASL tokens passed through
	BytesUp      int64 // bytes relayed from clients
	BytesDown    int64 // bytes relayed to clients
	BrokersDown  int64 // times a listener stopped because its broker was unreachable
	Dials        int64 // connections to brokers tried: each client's, spares made ahead
}

// Listener is one of the proxy's listeners and the broker it forwards to.
type Listener struct {
	Addr     net.Addr
	Upstream string
}

// Proxy is a running proxy.
type Proxy struct {
	cfg       Config
	advertise string
	listenIP  string
	copyStart int // sinkCopy's first room, when not the default (tests)

	mu         sync.Mutex
	byUpstream map[string]*listener
	listeners  []*listener
	ports      []int
	conns      map[uint64]*conn
	closed     bool
	allow      []brokerPattern
	// Said once: the listener limit reached, --ports used up; said for the
	// first maxSaid brokers outside AllowBrokers.
	saidFull, saidPorts bool
	notAllowed          map[string]bool // the brokers said not allowed, at most maxSaid

	queue    chan *Exchange
	paused   atomic.Int64 // UnixNano until which nothing is copied: the sink is over its share
	used     atomic.Int64 // bytes copied for the sink and not yet released
	skipped  atomic.Int64 // since the last delivery
	nextConn atomic.Uint64
	stats    struct {
		connections, open, exchanges, delivered, skipped, rewritten, listeners atomic.Int64
		overLimit, rewriteFails, saslTokens, bytesUp, bytesDown, down, dials   atomic.Int64
	}

	relays      sync.WaitGroup // connection goroutines and accept loops
	sinkWG      sync.WaitGroup
	done        chan struct{}   // closed by Close
	ctx         context.Context // cancelled by Close: dials in progress end
	cancel      context.CancelFunc
	saidStarved atomic.Int64 // UnixNano when want of descriptors was last said
}

type listener struct {
	addr     net.Addr // where it listens, kept while it stops for a broker that is down
	upstream string
	adv      Endpoint
	// Under p.mu: the listener, nil while the broker is down, and back,
	// closed when it listens again; the spare connection to the broker.
	ln    net.Listener
	back  chan struct{}
	spare *spare
}

// spare is a connection to a listener's broker, made before a client
// needs it: the next client takes it, and while it waits it tells the
// proxy the moment the broker goes away.
type spare struct {
	c        net.Conn
	released chan struct{} // closed once the keeper no longer reads c
	n        int           // what the keeper's read returned
	err      error
}

// New opens the first listener; Serve runs the proxy.
func New(cfg Config) (*Proxy, error) {
	if cfg.Upstream == "" {
		return nil, errors.New("proxy: no upstream broker")
	}
	if _, _, err := net.SplitHostPort(cfg.Upstream); err != nil {
		return nil, errors.New("proxy: upstream " + strconv.Quote(cfg.Upstream) + " is not host:port")
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	cfg.MaxFrame = positive.Or(cfg.MaxFrame, DefaultMaxFrame)
	cfg.QueueLen = positive.Or(cfg.QueueLen, 1024)
	cfg.QueueBytes = positive.Or(cfg.QueueBytes, 64<<20)
	cfg.DialTimeout = positive.Or(cfg.DialTimeout, 10*time.Second)
	cfg.MaxListeners = positive.Or(cfg.MaxListeners, DefaultMaxListeners)
	allow, err := parseBrokerPatterns(cfg.AllowBrokers)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, errors.New("proxy: listen address " + strconv.Quote(cfg.Listen) + " is not host:port")
	}
	adv := cfg.AdvertiseHost
	if adv == "" {
		if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
			return nil, errors.New("proxy: listening on every address (" + cfg.Listen + ") needs an address to give clients (AdvertiseHost, --advertise-host)")
		}
		adv = host
	}
	p := &Proxy{cfg: cfg, advertise: adv, listenIP: host, byUpstream: map[string]*listener{},
		ports: append([]int(nil), cfg.Ports...), conns: map[uint64]*conn{}, queue: make(chan *Exchange, cfg.QueueLen), done: make(chan struct{}), allow: allow}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	l, err := p.listen(cfg.Listen, cfg.Upstream)
	if err != nil {
		return nil, err
	}
	p.byUpstream[cfg.Upstream] = l
	return p, nil
}

// Addr is the first listener's address.
func (p *Proxy) Addr() net.Addr { return p.listeners[0].addr }

// Listeners lists the listeners open now, the first one first.
func (p *Proxy) Listeners() []Listener {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Listener, len(p.listeners))
	for i, l := range p.listeners {
		out[i] = Listener{Addr: l.addr, Upstream: l.upstream}
	}
	return out
}

// Queued is the number of exchanges waiting for the sink.
func (p *Proxy) Queued() int { return len(p.queue) }

// Stats returns the counters.
func (p *Proxy) Stats() Stats {
	s := &p.stats
	return Stats{Connections: s.connections.Load(), Open: s.open.Load(), Exchanges: s.exchanges.Load(),
		Delivered: s.delivered.Load(), Skipped: s.skipped.Load(), Rewritten: s.rewritten.Load(),
		Listeners: s.listeners.Load(), OverLimit: s.overLimit.Load(), RewriteFails: s.rewriteFails.Load(),
		SASLTokens: s.saslTokens.Load(), BytesUp: s.bytesUp.Load(), BytesDown: s.bytesDown.Load(),
		BrokersDown: s.down.Load(), Dials: s.dials.Load()}
}

// logf hands Config.Log one line made of parts, escaped: broker host
// names, error texts and whatever else came from the network may hold
// terminal control sequences.
func (p *Proxy) logf(parts ...string) {
	if p.cfg.Log == nil {
		return
	}
	n := 0
	for _, s := range parts {
		n += len(s)
	}
	b := make([]byte, 0, n)
	for _, s := range parts {
		b = AppendEscaped(b, s)
	}
	p.cfg.Log(string(b))
}

// AppendEscaped appends s with every byte a terminal could act on
// escaped: C0 and C1 controls, DEL and invalid UTF-8 as \xNN, Unicode
// format characters (bidirectional overrides, zero-width joiners) as
// \uNNNN. Printable text, whatever its script, is appended as it is.
func AppendEscaped(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r < 0x20, r == 0x7f:
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
			i++
			continue
		case r >= 0x80 && r < 0xa0, unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029:
			dst = append(dst, '\\', 'u')
			for sh := 12; sh >= 0; sh -= 4 {
				dst = append(dst, hex[(r>>sh)&15])
			}
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}

// listen opens a listener forwarding to upstream (p.mu held or not yet
// shared) and starts accepting on it.
func (p *Proxy) listen(addr, upstream string) (*listener, error) {
	ln, err := p.listenOn(addr)
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	l := &listener{ln: ln, addr: ln.Addr(), upstream: upstream, adv: Endpoint{p.advertise, port}}
	p.listeners = append(p.listeners, l)
	p.stats.listeners.Add(1)
	return l, nil
}

// listenOn opens a TCP listener on addr, speaking TLS when configured.
func (p *Proxy) listenOn(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if p.cfg.ClientTLS != nil {
		ln = tls.NewListener(ln, p.cfg.ClientTLS)
	}
	return ln, nil
}

// mapEndpoint gives the proxy's address for a broker's, opening a listener
// the first time a broker is named.
//
// A broker outside Config.AllowBrokers, or named once Config.MaxListeners
// listeners are open, is given back as it is: the proxy does not relay to
// it, and says so in the log.
func (p *Proxy) mapEndpoint(e Endpoint) (Endpoint, error) {
	key := e.String()
	p.mu.Lock()
	defer p.mu.Unlock()
	if l := p.byUpstream[key]; l != nil {
		return l.adv, nil
	}
	if p.closed {
		return Endpoint{}, errors.New("proxy closed")
	}
	if !p.allowed(e) {
		if len(p.notAllowed) < maxSaid && !p.notAllowed[key] {
			// Each broker once: every Metadata answer names it again.
			if p.notAllowed == nil {
				p.notAllowed = map[string]bool{}
			}
			p.notAllowed[key] = true
			more := ""
			if len(p.notAllowed) == maxSaid {
				more = " (said for the first " + strconv.Itoa(maxSaid) + " such brokers only)"
			}
			p.logf("broker ", key, " is not in the brokers allowed (--allow-brokers): its address is left as the broker gave it, ",
				"so the proxy never connects to it; clients that use it reach it directly, unseen", more)
		}
		return e, nil
	}
	if len(p.listeners) >= p.cfg.MaxListeners {
		if !p.saidFull {
			p.saidFull = true
			p.logf("broker ", key, " would need listener ", strconv.Itoa(len(p.listeners)+1), ", over the limit of ", strconv.Itoa(p.cfg.MaxListeners),
				" (--max-brokers): its address, and every other broker's named from now on, is left as the broker gave it; ",
				"clients that use them reach them directly, unseen (said once)")
		}
		return e, nil
	}
	port := 0
	if len(p.ports) > 0 {
		port, p.ports = p.ports[0], p.ports[1:]
	} else if len(p.cfg.Ports) > 0 && !p.saidPorts {
		p.saidPorts = true
		p.logf("--ports are all in use; the system picks the port for ", key, " and the brokers after it (said once)")
	}
	l, err := p.listen(joinHostPort(p.listenIP, port), key)
	if err != nil {
		return Endpoint{}, errors.New("cannot open a listener for broker " + key + ": " + err.Error())
	}
	p.byUpstream[key] = l
	p.logf("broker ", key, " is reached through ", l.addr.String())
	p.start(l)
	return l.adv, nil
}

// Serve accepts connections and feeds the sink until ctx ends or Close is
// called; then it closes every connection and returns once the sink has
// had every exchange copied for it.
func (p *Proxy) Serve(ctx context.Context) error {
	p.sinkWG.Add(1)
	go p.runSink()
	p.mu.Lock()
	for _, l := range p.listeners {
		p.start(l)
	}
	p.mu.Unlock()
	<-ctx.Done()
	p.Close()
	return nil
}

// Close stops the listeners and connections. It waits for them, and for
// the sink to finish the exchanges queued.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	p.cancel()
	for _, l := range p.listeners {
		if l.ln != nil {
			l.ln.Close()
		}
		if l.spare != nil {
			l.spare.c.Close()
			l.spare = nil
		}
	}
	for _, c := range p.conns {
		c.close()
	}
	p.mu.Unlock()
	p.relays.Wait()
	close(p.queue)
	p.sinkWG.Wait()
	return nil
}

// runSink hands the queued exchanges to the sink, within its share of
// the CPU: a token bucket of the sink's CPU time that fills at SinkShare
// seconds per second, up to SinkBurst. The goroutine keeps its OS thread,
// so the thread's CPU clock (threadCPU) is the sink's: waiting on its
// output or for a CPU costs nothing, and a session of a few exchanges a
// second never skips.
func (p *Proxy) runSink() {
	defer p.sinkWG.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	share := p.cfg.SinkShare
	burst := p.cfg.SinkBurst
	if burst <= 0 {
		burst = 100 * time.Millisecond
	}
	tokens := float64(burst)
	last := time.Now()
	// carry counts the exchanges skipped here, from the queue, for the
	// next one delivered: one queued after them (the count of an exchange
	// skipped at the queue's door goes to the next one queued).
	carry := 0
	for x := range p.queue {
		if share > 0 {
			now := time.Now()
			tokens = min(tokens+float64(now.Sub(last))*share, float64(burst))
			last = now
			if tokens <= 0 {
				p.pause(now, tokens, share)
				carry += x.Skipped + 1
				p.skip(x)
				continue
			}
		}
		x.Skipped += carry
		carry = 0
		if x.connSkipped != nil {
			x.ConnSkipped = int(x.connSkipped.Load())
		}
		start := time.Now()
		cpu0, cpuOK := threadCPU()
		if p.cfg.Sink != nil {
			p.cfg.Sink(x)
		}
		p.release(x.budget)
		p.stats.delivered.Add(1)
		if share > 0 {
			now := time.Now()
			used := now.Sub(start)
			if cpu1, ok := threadCPU(); ok && cpuOK {
				used = cpu1 - cpu0
			}
			// A call is charged at most the burst: the longest silence
			// after one is 2*SinkBurst/SinkShare.
			tokens = max(tokens-float64(used), -float64(burst))
			if tokens <= 0 {
				p.pause(now, tokens, share)
			}
		}
	}
}

// pause stops copying until the sink's bucket is back to zero.
func (p *Proxy) pause(now time.Time, tokens, share float64) {
	p.paused.Store(now.Add(time.Duration(-tokens / share)).UnixNano())
}

// accept runs a listener's accept loop until the proxy closes. When the
// process runs out of file descriptors it backs off (5 ms, doubling to
// 1 s, as net/http does) and tries again, saying so once; while the
// broker is down the listener is closed (brokerDown) and accept waits
// for the broker to answer again.
func (p *Proxy) accept(l *listener) {
	defer p.relays.Done()
	var delay time.Duration
	for {
		p.mu.Lock()
		ln := l.ln
		p.mu.Unlock()
		if ln == nil {
			p.mu.Lock()
			back := l.back
			p.mu.Unlock()
			select {
			case <-back:
			case <-p.done:
				return
			}
			continue
		}
		nc, err := ln.Accept()
		if err != nil {
			p.mu.Lock()
			closed, stopped := p.closed, l.ln != ln
			p.mu.Unlock()
			switch {
			case closed:
				return
			case stopped:
				continue // closed for a broker that is down
			case retryAccept(err):
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				p.outOfFiles(err)
				if !p.sleep(delay) {
					return
				}
				continue
			}
			p.logf("listener ", l.addr.String(), " (for ", l.upstream, ") failed, no longer accepting: ", err.Error())
			return
		}
		delay = 0
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			nc.Close()
			return
		}
		c := newConn(p, nc, l)
		p.conns[c.id] = c
		p.relays.Add(1)
		p.mu.Unlock()
		p.stats.connections.Add(1)
		p.stats.open.Add(1)
		go c.run()
	}
}

// retryAccept reports whether an accept error is one to wait out: the
// process or the system out of descriptors or buffers, or a timeout.
func retryAccept(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return outOfResources(err)
}

// outOfResources reports whether err says the process or the system ran
// out of file descriptors or socket buffers.
func outOfResources(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// outOfFiles says that the proxy cannot accept or dial for want of
// descriptors, at most once a minute however long it lasts.
func (p *Proxy) outOfFiles(err error) {
	now := time.Now().UnixNano()
	last := p.saidStarved.Load()
	if last != 0 && now-last < int64(time.Minute) || !p.saidStarved.CompareAndSwap(last, now) {
		return
	}
	p.logf("out of file descriptors or socket buffers (", err.Error(), "): new clients wait until some are free, retried every 5 ms to 1 s; ",
		"raise the limit (ulimit -n) if it lasts (said at most once a minute)")
}

// sleep waits d, or until the proxy closes; false when it closed.
func (p *Proxy) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.done:
		return false
	}
}

func (p *Proxy) forget(c *conn) {
	p.mu.Lock()
	delete(p.conns, c.id)
	p.mu.Unlock()
	p.stats.open.Add(-1)
}

// dial connects to a broker, with TLS when configured. Failing to
// connect at all (refused, no route, no such host, timed out) is an
// *unreachable error; a TLS failure is not: the broker is there.
func (p *Proxy) dial(addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: p.cfg.DialTimeout}
	p.stats.dials.Add(1)
	nc, err := d.DialContext(p.ctx, "tcp", addr)
	if err != nil {
		return nil, &unreachable{err}
	}
	if p.cfg.UpstreamTLS == nil {
		return nc, nil
	}
	tc := p.cfg.UpstreamTLS.Clone()
	if tc.ServerName == "" {
		host, _, _ := net.SplitHostPort(addr)
		tc.ServerName = host
	}
	c := tls.Client(nc, tc)
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.DialTimeout)
	defer cancel()
	if err := c.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// unreachable is a broker that could not be connected to.
type unreachable struct{ err error }

func (e *unreachable) Error() string { return e.err.Error() }
func (e *unreachable) Unwrap() error { return e.err }

// start runs a listener: its accept loop and the keeper of its spare
// connection to the broker.
func (p *Proxy) start(l *listener) {
	p.relays.Add(2)
	go p.accept(l)
	go p.keepSpare(l)
}

// brokerDown stops l listening, after its broker could not be reached,
// so that clients trying it are refused, as they would be by the broker
// itself, rather than accepted and then dropped (which librdkafka reads as
// a client speaking the wrong protocol). The keeper listens again, on the
// same address, once the broker answers.
func (p *Proxy) brokerDown(l *listener, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || l.ln == nil {
		return
	}
	l.ln.Close()
	l.ln = nil
	l.back = make(chan struct{})
	if s := l.spare; s != nil {
		// Closed so that the keeper dials again, and listens again when
		// that works.
		l.spare = nil
		s.c.Close()
	}
	p.stats.down.Add(1)
	p.logf("broker ", l.upstream, " is unreachable (", err.Error(), "): ", l.addr.String(),
		" stops listening, so that its clients are refused as the broker would refuse them, until the broker answers again")
}

// keepSpare keeps a spare connection to l's broker, dialled ahead of the next
// client, and watches it: a broker that goes away closes it, and the
// keeper dials again at once. When that fails the broker is down: the
// listener stops (brokerDown), and the keeper dials again 100 ms later,
// then at doubling intervals of up to 5 s, and listens again once a dial
// works. A spare the broker closes within a second of its dial (a broker
// that turns connections away) is dialled again with the same backoff.
func (p *Proxy) keepSpare(l *listener) {
	defer p.relays.Done()
	const first, most = 100 * time.Millisecond, 5 * time.Second
	var delay time.Duration
	saidListen := false
	for {
		if delay > 0 && !p.sleep(delay) {
			return
		}
		select {
		case <-p.done:
			return
		default:
		}
		c, err := p.dial(l.upstream)
		if err != nil {
			var u *unreachable
			if errors.As(err, &u) && !outOfResources(err) {
				p.brokerDown(l, err)
			}
			// TLS failures and want of descriptors: clients dial on
			// their own meanwhile, and say why they fail.
			delay = min(max(2*delay, first), most)
			continue
		}
		p.mu.Lock()
		down, closed := l.ln == nil, p.closed
		p.mu.Unlock()
		if closed {
			c.Close()
			return
		}
		if down {
			ln, err := p.listenOn(l.addr.String())
			if err != nil {
				c.Close()
				if !saidListen {
					saidListen = true
					p.logf("broker ", l.upstream, " answers again, but ", l.addr.String(), " cannot listen again (", err.Error(), "); retrying")
				}
				delay = min(max(2*delay, first), most)
				continue
			}
			saidListen = false
			p.mu.Lock()
			if p.closed {
				p.mu.Unlock()
				ln.Close()
				c.Close()
				return
			}
			l.ln = ln
			close(l.back)
			p.mu.Unlock()
			p.logf("broker ", l.upstream, " answers again: listening on ", l.addr.String())
		}
		s := &spare{c: c, released: make(chan struct{})}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return
		}
		l.spare = s
		p.mu.Unlock()
		dialled := time.Now()
		var b [1]byte
		s.n, s.err = c.Read(b[:])
		p.mu.Lock()
		taken := l.spare != s
		if !taken {
			l.spare = nil
		}
		p.mu.Unlock()
		close(s.released)
		if taken {
			delay = 0 // a client has it (or brokerDown closed it): the next one
			continue
		}
		c.Close() // the broker closed it, or sent what nobody asked for
		if time.Since(dialled) < time.Second {
			delay = min(max(2*delay, first), most)
		} else {
			delay = 0
		}
	}
}

// takeSpare takes l's spare connection to the broker, or nil when there
// is none (or it turned out closed).
func (p *Proxy) takeSpare(l *listener) net.Conn {
	p.mu.Lock()
	s := l.spare
	l.spare = nil
	p.mu.Unlock()
	if s == nil {
		return nil
	}
	s.c.SetReadDeadline(time.Now()) // ends the keeper's read
	<-s.released
	var ne net.Error
	if s.n > 0 || !errors.As(s.err, &ne) || !ne.Timeout() {
		s.c.Close() // closed by the broker, or a byte read from it
		return nil
	}
	s.c.SetReadDeadline(time.Time{})
	return s.c
}

// acquire takes n bytes from the budget for copies; false when it is
// spent, or when the sink is over its share of the CPU.
func (p *Proxy) acquire(n int) bool {
	if p.cfg.Sink == nil {
		return false
	}
	if p.cfg.SinkShare > 0 && time.Now().UnixNano() < p.paused.Load() {
		return false
	}
	if u := p.used.Add(int64(n)); u > p.cfg.QueueBytes && u != int64(n) {
		p.used.Add(-int64(n))
		return false
	}
	return true
}

func (p *Proxy) release(n int64) {
	if n != 0 {
		p.used.Add(-n)
	}
}

// keep reports whether exchanges of an API are wanted at all.
func (p *Proxy) keep(key int16) bool {
	return p.cfg.Sink != nil && (p.cfg.Keep == nil || p.cfg.Keep(key))
}

// deliver hands a finished exchange to the sink, or skips it when the sink
// is behind. wanted says whether the sink wanted it (its API passed Keep);
// an exchange it wanted but that was not copied counts as skipped.
func (p *Proxy) deliver(x *Exchange, wanted bool) {
	p.stats.exchanges.Add(1)
	if !wanted {
		p.release(x.budget)
		return
	}
	if x.Request == nil && x.Response == nil {
		p.skipped.Add(1)
		p.skip(x)
		return
	}
	x.Skipped = int(p.skipped.Swap(0))
	select {
	case p.queue <- x:
	default:
		p.skipped.Add(int64(x.Skipped) + 1)
		p.skip(x)
	}
}

// skip counts an exchange not delivered; its caller tells the next one
// delivered (p.skipped for the next one queued, runSink's carry).
func (p *Proxy) skip(x *Exchange) {
	p.release(x.budget)
	x.budget = 0
	p.stats.skipped.Add(1)
	if x.connSkipped != nil {
		x.connSkipped.Add(1)
	}
}
