package proxy

import (
	"crypto/tls"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

const (
	relayBuf   = 64 << 10
	maxWaiting = 1024 // requests waiting for their response, per connection
	// maxOvertaken is how many later requests of its connection may be
	// answered before a request is given up on (delivered Unanswered): a
	// broker that answers out of order still has its late answers paired
	// (and rewritten) within this many. kwire check pairs a capture's the
	// same way (internal/capture's maxOvertaken), so that its rules judge
	// the proxy's exchanges as they judge a capture's.
	maxOvertaken = 4
	// produceHead is how much of a Produce request is looked at to find
	// acks: the header with the longest client id, then the longest
	// transactional id.
	produceHead = 4 + 10 + 2 + 32767 + 8 + 2 + 32767 + 2
)

// conn is one client connection and its connection to the broker.
type conn struct {
	p        *Proxy
	id       uint64
	client   net.Conn
	first    []byte // read ahead from client before the broker was dialled (run)
	upstream net.Conn
	ln       *listener
	name     string // "conn 3 127.0.0.1:50000->127.0.0.1:9092"
	cAddr    netip.AddrPort
	bAddr    netip.AddrPort

	closeOnce sync.Once

	mu       sync.Mutex
	cond     *sync.Cond
	waiting  []*waitingReq // requests in flight, in order
	done     bool
	saslRaw  bool // after SaslHandshake v0: frames may be raw SASL tokens
	saslLeft int  // raw tokens the client's mechanism still sends for sure
	// token is the client's raw SASL token waiting for the broker's
	// (SASL is lock-step: one at a time).
	token *waitingReq

	rawDec *codec.Decoder // (requests) reading frames that may be SASL tokens

	skipped atomic.Int64 // its exchanges skipped (Exchange.ConnSkipped)

	dec codec.Decoder // for rewriting responses

	// Said once per connection, not once per frame: the requests side's
	// short frames, the responses side's short and stray ones.
	saidShortReq, saidShortRsp, saidStray bool
}

// waitingReq is a request forwarded and not yet answered.
type waitingReq struct {
	x      *Exchange
	wanted bool
}

func newConn(p *Proxy, nc net.Conn, l *listener) *conn {
	c := &conn{p: p, id: p.nextConn.Add(1), client: nc, ln: l}
	c.cond = sync.NewCond(&c.mu)
	c.cAddr = addrPort(nc.RemoteAddr())
	c.name = "conn " + strconv.FormatUint(c.id, 10) + " " + nc.RemoteAddr().String() + "->" + l.upstream
	return c
}

// resetClose closes a client's connection with a reset (SO_LINGER 0)
// rather than a clean end of stream.
func resetClose(nc net.Conn) {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	nc.Close()
}

func addrPort(a net.Addr) netip.AddrPort {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.AddrPort()
	}
	ap, _ := netip.ParseAddrPort(a.String())
	return ap
}

func (c *conn) logf(parts ...string) {
	c.p.logf(append([]string{c.name, ": "}, parts...)...)
}

func (c *conn) close() {
	c.closeOnce.Do(func() {
		c.client.Close()
		if c.upstream != nil {
			c.upstream.Close()
		}
		c.mu.Lock()
		c.done = true
		c.cond.Broadcast()
		c.mu.Unlock()
	})
}

func (c *conn) isDone() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

// run dials the broker and relays both ways until either side ends.
func (c *conn) run() {
	defer c.p.relays.Done()
	defer c.p.forget(c)
	if tc, ok := c.client.(*tls.Conn); ok {
		tc.SetDeadline(time.Now().Add(c.p.cfg.DialTimeout))
		if err := tc.Handshake(); err != nil {
			// Said without the broker's address: no connection to it is
			// made (nor a spare taken) until the handshake is done and the
			// client has spoken.
			c.p.logf("conn ", strconv.FormatUint(c.id, 10), " ", c.client.RemoteAddr().String(), ": TLS handshake with the client failed: ",
				err.Error(), "; closed, the broker (", c.ln.upstream, ") not contacted")
			c.client.Close()
			return
		}
		tc.SetDeadline(time.Time{})
	}
	// The broker is dialled once the client has said something: a
	// connection that never sends a byte (an idle or hostile one) holds
	// one descriptor, not two, and costs the broker nothing. The spare
	// dialled ahead keeps the first request as quick as before.
	first := make([]byte, 1)
	if n, err := c.client.Read(first); n == 0 || err != nil {
		c.client.Close()
		return
	}
	c.first = first
	up := c.p.takeSpare(c.ln)
	var err error
	if up == nil {
		up, err = c.p.dial(c.ln.upstream)
	}
	if err != nil {
		// Reset, not closed: a client that reads a clean close right
		// after connecting blames its own configuration (librdkafka: "might
		// be caused by incorrect security.protocol").
		resetClose(c.client)
		var u *unreachable
		switch {
		case outOfResources(err):
			c.p.outOfFiles(err)
		case errors.As(err, &u):
			c.logf("cannot reach the broker: ", err.Error(), "; the client's connection is reset")
			c.p.brokerDown(c.ln, err)
		default:
			c.logf("cannot reach the broker: ", err.Error(), "; the client's connection is reset")
		}
		return
	}
	c.mu.Lock()
	c.upstream = up
	closed := c.done
	c.mu.Unlock()
	if closed {
		up.Close()
		return
	}
	c.bAddr = addrPort(up.RemoteAddr())
	c.name = "conn " + strconv.FormatUint(c.id, 10) + " " + c.client.RemoteAddr().String() + "->" + up.RemoteAddr().String()
	c.relay()
}

// readClient reads from the client, the byte run read ahead first.
func (c *conn) readClient(b []byte) (int, error) {
	if len(c.first) > 0 && len(b) > 0 {
		n := copy(b, c.first)
		c.first = c.first[n:]
		return n, nil
	}
	return c.client.Read(b)
}

// relay runs both directions until either ends, then hands over the
// requests left unanswered.
func (c *conn) relay() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := c.requests(); err != nil {
			c.logf(err.Error())
		}
		c.close()
	}()
	if err := c.responses(); err != nil {
		c.logf(err.Error())
	}
	c.close()
	wg.Wait()
	// What is still waiting will not be answered.
	c.mu.Lock()
	w := c.waiting
	if c.token != nil {
		w = append(w, c.token)
	}
	c.waiting, c.token = nil, nil
	c.mu.Unlock()
	for _, r := range w {
		r.x.ConnClosed = true
		c.p.deliver(r.x, r.wanted)
	}
}

// framer follows the frames of one direction: the size prefix and the
// first bytes after it (a request's API key, version and correlation id; a
// response's correlation id), then the rest of the frame.
type framer struct {
	need int // prefix bytes wanted: 12 for requests, 8 for responses
	pre  [12]byte
	pn   int
	size int // after the size prefix
	left int // bytes of the frame still to come once the prefix is complete
	in   bool
}

// errFrame is a frame the proxy refuses.
type errFrame struct{ msg string }

func (e *errFrame) Error() string { return e.msg }

// prefix takes bytes of p into the prefix; it returns what is left of p and
// whether the prefix is complete. A size over max is an *errFrame.
func (f *framer) prefix(p []byte, max int, what string) ([]byte, bool, error) {
	for len(p) > 0 {
		want := f.need
		if f.pn >= 4 && 4+f.size < want {
			want = 4 + f.size
		}
		if f.pn < 4 {
			want = 4
		}
		k := copy(f.pre[f.pn:want], p)
		f.pn += k
		p = p[k:]
		if f.pn == 4 {
			s, _ := wire.SizePrefix(f.pre[:4])
			if s < 0 || int(s) > max {
				return p, false, &errFrame{frameTooBig(what, s, max, f.pre[:4])}
			}
			f.size = int(s)
		}
		if f.pn >= 4 && f.pn == min(f.need, 4+f.size) {
			f.in = true
			f.left = 4 + f.size - f.pn
			return p, true, nil
		}
	}
	return p, false, nil
}

func (f *framer) reset() { f.pn, f.in, f.left = 0, false, 0 }

// frameTooBig explains a size prefix the proxy refuses, guessing at what
// the bytes were when they are no Kafka frame.
func frameTooBig(what string, s int32, max int, b []byte) string {
	msg := "a " + what + " of " + strconv.FormatInt(int64(s), 10) + " bytes is over the limit of " + strconv.Itoa(max) + " (--max-frame); closing the connection"
	if s < 0 {
		msg = "a " + what + " size prefix of " + strconv.FormatInt(int64(s), 10) + " is negative; closing the connection"
	}
	switch {
	case b[0] == 0x16 && b[1] == 3:
		msg += " (the bytes look like a TLS handshake: does the client use TLS where the proxy does not, or the reverse?)"
	case printable(b):
		msg += " (the bytes are text, " + strconv.Quote(string(b)) + ": not Kafka)"
	}
	return msg
}

func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// requests relays client to broker.
func (c *conn) requests() error {
	buf := make([]byte, relayBuf)
	var out []byte
	var f framer
	f.need = 12
	var cur *Exchange                             // the request being relayed
	defer func() { c.p.release(budgetOf(cur)) }() // a request cut short is never shown
	var wanted bool
	// The start of the frame, kept for the relay's own reading: a
	// Produce's as far as acks, a SaslHandshake v0's mechanism, and the
	// whole of a frame that may be a raw SASL token (up to maxRawFrame).
	var head []byte
	headWant, kind := 0, headNone
	acks := int16(-1)
	// keep notes bytes of the request passed on: the exchange's copy, and
	// the start of the frame.
	keep := func(b []byte) {
		if cur != nil && cur.Request != nil {
			cur.Request = append(cur.Request, b...)
		}
		if len(head) >= headWant {
			return
		}
		head = append(head, b[:min(len(b), headWant-len(head))]...)
		if kind == headProduce {
			if a, ok := produceAcks(head); ok || len(head) >= produceHead {
				acks, headWant = a, len(head)
			}
		}
	}
	for {
		n, rerr := c.readClient(buf)
		p, err := c.through(&f, buf[:n], c.upstream, &c.p.stats.bytesUp, keep)
		if err != nil {
			return nil
		}
		for len(p) > 0 {
			b, rest, began, err := c.frame(&f, p, "request", c.upstream, out, &c.p.stats.bytesUp)
			if err != nil {
				return err
			}
			p = rest
			if len(b) == 0 {
				break // a size prefix not yet whole took all of p
			}
			if began {
				var raw bool
				cur, wanted, raw = c.beginRequest(&f)
				head, acks, headWant, kind = head[:0], -1, 0, headNone
				switch {
				case raw:
					kind, headWant = headRaw, min(4+f.size, maxRawFrame)
				case cur == nil:
				case cur.APIKey == schema.KeyProduce:
					kind, headWant = headProduce, produceHead
				case cur.APIKey == schema.KeySaslHandshake && cur.APIVersion == 0:
					kind, headWant = headSASL, min(4+f.size, maxHandshake)
				}
			}
			out = append(out, b...)
			keep(b)
			if f.in && f.left == 0 {
				tokens := -1
				switch kind {
				case headRaw:
					cur, wanted = c.endRawFrame(head, 4+f.size)
					if cur != nil && cur.APIKey == schema.KeyProduce {
						acks, _ = produceAcks(head)
					}
				case headSASL:
					tokens = saslTokens(head)
				}
				if cur != nil && cur.SASLToken {
					c.endToken(cur, wanted)
				} else if err := c.endRequest(cur, wanted, acks == 0, tokens); err != nil {
					return err
				}
				cur = nil
				f.reset()
			}
		}
		if out, err = c.flush(c.upstream, out, &c.p.stats.bytesUp); err != nil {
			return nil // the broker side ends the connection and says why
		}
		if rerr != nil {
			return c.readEnd(rerr, &f, cur != nil, "client", "request", "broker")
		}
	}
}

// readEnd is how a relay loop reading from one side (from: "client" or
// "broker") ends on rerr: nil for a clean close, or for one the other side
// (done first) explains; else an error saying how much of a frame (a
// "request" or "response") was cut off, or what the read failed with.
// midFrame says an exchange was under way.
func (c *conn) readEnd(rerr error, f *framer, midFrame bool, from, frame, other string) error {
	if c.isDone() {
		return nil // closed from the other side, which said why
	}
	if midFrame || f.pn > 0 {
		got := f.pn
		if f.in {
			got = 4 + f.size - f.left
		}
		return errors.New("the " + from + " closed the connection in the middle of a " + frame + " (" + strconv.Itoa(got) + " of " + sizeText(f) + " bytes); the " + other + " connection is closed too")
	}
	if rerr == io.EOF || errors.Is(rerr, net.ErrClosed) {
		return nil
	}
	return errors.New("reading from the " + from + ": " + rerr.Error())
}

func budgetOf(x *Exchange) int64 {
	if x == nil {
		return 0
	}
	return x.budget
}

func sizeText(f *framer) string {
	if f.pn < 4 {
		return "an unknown number of"
	}
	return strconv.Itoa(4 + f.size)
}

// What requests keeps of a frame's start (head), and why.
const (
	headNone    = iota
	headProduce // a Produce request, as far as acks
	headSASL    // a SaslHandshake v0 request, for its mechanism
	headRaw     // a frame after a SaslHandshake v0: a raw SASL token unless it reads as a request
)

const (
	// maxRawFrame is the largest frame after a SaslHandshake v0 that may be
	// read as a request; a larger one is taken for a token. SASL tokens
	// are small, and so are the requests a client sends first.
	maxRawFrame = 64 << 10
	// maxHandshake is as much of a SaslHandshake v0 request as is read for
	// its mechanism.
	maxHandshake = 1 << 10
)

// beginRequest starts a request once its prefix is known. It returns the
// exchange to fill (a raw SASL token's when the frame, after a
// SaslHandshake v0, is too short to be a request; nil for a frame too short
// to be a request), whether the sink wants it, and whether the frame,
// coming after a SaslHandshake v0, is to be judged whole (endRawFrame)
// before it is taken for a request.
func (c *conn) beginRequest(f *framer) (*Exchange, bool, bool) {
	c.mu.Lock()
	raw := c.saslRaw
	c.mu.Unlock()
	if raw {
		if f.pn < 12 {
			c.p.stats.saslTokens.Add(1)
			x, wanted := c.newToken(4+f.size, true)
			return x, wanted, false
		}
		return nil, false, true
	}
	if f.pn < 12 {
		if !c.saidShortReq {
			c.saidShortReq = true
			c.logf("a request of ", strconv.Itoa(f.size), " bytes is too short for a request header; forwarded as it is (said once per connection)")
		}
		return nil, false, false
	}
	x, wanted := c.newRequest(f.pre[:], 4+f.size)
	return x, wanted, false
}

// newRequest is the exchange of a request whose first 12 bytes are b, and
// whether the sink wants it; when it does and the budget allows, the
// budget is taken and Request made, empty, with room for the frame.
func (c *conn) newRequest(b []byte, size int) (*Exchange, bool) {
	key := int16(binary.BigEndian.Uint16(b[4:]))
	ver := int16(binary.BigEndian.Uint16(b[6:]))
	corr := int32(binary.BigEndian.Uint32(b[8:]))
	x := &Exchange{ConnID: c.id, Client: c.cAddr, Broker: c.bAddr, APIKey: key, APIVersion: ver, CorrelationID: corr, RequestSize: size, connSkipped: &c.skipped}
	wanted := c.p.keep(key)
	if wanted && c.p.acquire(size) {
		x.budget = int64(size)
		x.Request = c.p.sinkCopy(size)
	}
	return x, wanted
}

// endRawFrame judges a whole frame sent after a SaslHandshake v0 (b, as
// much of it as was kept, size its length): a raw SASL token while the
// mechanism still has tokens to send (PLAIN and OAUTHBEARER one, SCRAM
// two), or when it does not read whole as a request (a token whose first
// bytes pass for a request header is still a token), returned as a token
// exchange holding b; else the request that ends the SASL exchange, which
// is returned as beginRequest would have.
func (c *conn) endRawFrame(b []byte, size int) (*Exchange, bool) {
	c.mu.Lock()
	left := c.saslLeft
	if left > 0 {
		c.saslLeft--
	}
	c.mu.Unlock()
	if left > 0 || len(b) < size || !c.readsAsRequest(b) {
		c.p.stats.saslTokens.Add(1)
		x, wanted := c.newToken(size, true)
		if x.Request != nil {
			// As much as was kept: a token past maxRawFrame is shown cut
			// short (its size prefix says how much is missing).
			x.Request = append(x.Request, b...)
		}
		return x, wanted
	}
	c.mu.Lock()
	c.saslRaw = false
	c.mu.Unlock()
	x, wanted := c.newRequest(b, size)
	if x.Request != nil {
		x.Request = append(x.Request, b...)
	}
	return x, wanted
}

// readsAsRequest reports whether b decodes as a request, whole, with no
// error (trailing bytes are one).
func (c *conn) readsAsRequest(b []byte) bool {
	if c.rawDec == nil {
		c.rawDec = new(codec.Decoder)
	}
	_, err := c.rawDec.Decode(b, codec.Options{Kafka: true})
	return err == nil
}

// newToken is the exchange of a raw SASL token of size bytes (size prefix
// included) from the client (fromClient) or the broker, and whether the
// sink wants it: tokens belong to no API, so a sink that wants only some
// APIs (Keep) is asked about key -1. When it does and the budget allows,
// the side's copy is made, empty, with room for what is kept of it: a
// client's as far as maxRawFrame, a broker's whole.
func (c *conn) newToken(size int, fromClient bool) (*Exchange, bool) {
	x := &Exchange{ConnID: c.id, Client: c.cAddr, Broker: c.bAddr, APIKey: -1, APIVersion: -1, CorrelationID: -1, SASLToken: true, connSkipped: &c.skipped}
	wanted := c.p.keep(-1)
	kept := size
	if fromClient {
		x.RequestSize, kept = size, min(size, maxRawFrame)
	} else {
		x.ResponseSize = size
	}
	if wanted && c.p.acquire(kept) {
		x.budget = int64(kept)
		if fromClient {
			x.Request = c.p.sinkCopy(kept)
		} else {
			x.Response = c.p.sinkCopy(kept)
		}
	}
	return x, wanted
}

// endToken registers the client's raw SASL token x as waiting for the
// broker's. A token still waiting is handed over unanswered: a client
// sends its next token only once answered, unless the broker said nothing.
func (c *conn) endToken(x *Exchange, wanted bool) {
	x.RequestTime = time.Now()
	c.mu.Lock()
	old := c.token
	c.token = &waitingReq{x, wanted}
	c.mu.Unlock()
	if old != nil {
		old.x.Unanswered = true
		c.p.deliver(old.x, old.wanted)
	}
}

// answerToken is the exchange a broker's raw SASL token of size bytes
// fills, and whether the sink wants it: the client's token waiting for it,
// or one of its own.
func (c *conn) answerToken(size int) (*Exchange, bool) {
	c.p.stats.saslTokens.Add(1)
	c.mu.Lock()
	w := c.token
	c.token = nil
	c.mu.Unlock()
	if w == nil {
		return c.newToken(size, false)
	}
	c.answered(w.x, size)
	return w.x, w.wanted
}

// saslTokens is how many raw tokens the client sends after the
// SaslHandshake v0 request b (its start), by its mechanism; 0 when the
// mechanism's count is not known (GSSAPI's depends on Kerberos), so that
// each frame is judged by whether it reads as a request.
func saslTokens(b []byte) int {
	h, err := codec.ParseRequestHeader(b, codec.Options{})
	if err != nil {
		return 0
	}
	off := 4 + h.Size
	if off+2 > len(b) {
		return 0
	}
	n := int(int16(binary.BigEndian.Uint16(b[off:])))
	if n < 0 || off+2+n > len(b) {
		return 0
	}
	switch strings.ToUpper(string(b[off+2 : off+2+n])) {
	case "PLAIN", "OAUTHBEARER":
		return 1
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		return 2
	}
	return 0
}

// endRequest registers a whole request as waiting for its response (before
// its last bytes are forwarded, so the response always finds it). tokens,
// for a SaslHandshake v0, is how many raw SASL tokens follow it for sure
// (saslTokens).
func (c *conn) endRequest(x *Exchange, wanted, acksZero bool, tokens int) error {
	if x == nil {
		return nil
	}
	x.RequestTime = time.Now()
	if x.APIKey == schema.KeyProduce && acksZero {
		x.NoResponseExpected = true
		c.p.deliver(x, wanted)
		return nil
	}
	c.mu.Lock()
	for len(c.waiting) >= maxWaiting && !c.done {
		c.cond.Wait() // like a broker, stop reading until answers go out
	}
	if c.done {
		c.mu.Unlock()
		c.p.release(x.budget)
		return nil
	}
	for _, w := range c.waiting {
		if w.x.CorrelationID == x.CorrelationID {
			x.ReusedCorrelation = true
			break
		}
	}
	c.waiting = append(c.waiting, &waitingReq{x, wanted})
	if x.APIKey == schema.KeySaslHandshake && x.APIVersion == 0 {
		// After a version 0 handshake, SASL tokens travel as bare
		// size-prefixed frames, not Kafka requests.
		c.saslRaw, c.saslLeft = true, max(tokens, 0)
	}
	c.mu.Unlock()
	return nil
}

// produceAcks reads acks from the start of a Produce request; known is
// false while more bytes are needed. The codec reads as far as acks (its
// node limit stops it soon after, records are left as bytes).
func produceAcks(b []byte) (acks int16, known bool) {
	dec := acksDecoders.Get().(*codec.Decoder)
	defer acksDecoders.Put(dec)
	f, err := dec.Decode(b, codec.Options{Records: codec.RecordsSize, Limits: codec.Limits{MaxNodes: 64}})
	if n := f.Body.Get("acks"); n != nil && n.Flags&tree.Broken == 0 {
		return int16(n.Int), true
	}
	return -1, !errors.Is(err, wire.ErrShort)
}

var acksDecoders = sync.Pool{New: func() any { return new(codec.Decoder) }}

// frame takes the next piece of p for f, and returns it and the rest of
// p: the bytes of a frame's size prefix (see framer.prefix), a piece only
// once it is whole (began), then the frame's own bytes up to its end. A
// frame over MaxFrame ends the relay of both directions: it is counted,
// and what was already taken for the peer (out) is written to it first.
func (c *conn) frame(f *framer, p []byte, what string, to net.Conn, out []byte, count interface{ Add(int64) int64 }) (piece, rest []byte, began bool, err error) {
	if f.in {
		k := min(f.left, len(p))
		f.left -= k
		return p[:k], p[k:], false, nil
	}
	rest, began, err = f.prefix(p, c.p.cfg.MaxFrame, what)
	if err != nil {
		c.p.stats.overLimit.Add(1)
		c.write(to, out, count)
	}
	if began {
		piece = f.pre[:f.pn]
	}
	return piece, rest, began, err
}

// through passes p, read in the middle of a frame that goes on past it,
// straight to w, uncopied (keep sees it first), and returns nil; any other
// p it returns for the caller to frame.
func (c *conn) through(f *framer, p []byte, w net.Conn, count interface{ Add(int64) int64 }, keep func([]byte)) ([]byte, error) {
	if !f.in || f.left <= len(p) || len(p) == 0 {
		return p, nil
	}
	f.left -= len(p)
	keep(p)
	return nil, c.write(w, p, count)
}

// flush writes out, what one read made for w, and returns it emptied, or
// nil once it has grown past a few reads' worth.
func (c *conn) flush(w net.Conn, out []byte, count interface{ Add(int64) int64 }) ([]byte, error) {
	err := c.write(w, out, count)
	if cap(out) > 4*relayBuf {
		return nil, err
	}
	return out[:0], err
}

// write writes b whole, counting it.
func (c *conn) write(w net.Conn, b []byte, count interface{ Add(int64) int64 }) error {
	if len(b) == 0 {
		return nil
	}
	_, err := w.Write(b)
	count.Add(int64(len(b)))
	return err
}

// responses relays broker to client.
func (c *conn) responses() error {
	buf := make([]byte, relayBuf)
	var out, hold []byte
	var f framer
	f.need = 8
	var cur *Exchange
	defer func() { c.p.release(budgetOf(cur)) }() // one the proxy refused is never shown
	var wanted, holding bool
	// keep notes bytes of the response passed on: the exchange's copy.
	keep := func(b []byte) {
		if cur != nil && cur.Response != nil {
			cur.Response = append(cur.Response, b...)
		}
	}
	for {
		n, rerr := c.upstream.Read(buf)
		p := buf[:n]
		if !holding {
			var err error
			if p, err = c.through(&f, p, c.client, &c.p.stats.bytesDown, keep); err != nil {
				return nil
			}
		}
		for len(p) > 0 {
			b, rest, began, err := c.frame(&f, p, "response", c.client, out, &c.p.stats.bytesDown)
			if err != nil {
				return err
			}
			p = rest
			if len(b) == 0 {
				break // a size prefix not yet whole took all of p
			}
			if began {
				cur, wanted = c.beginResponse(&f)
				holding = cur != nil && (cur.APIKey == schema.KeyApiVersions || HasEndpoints(cur.APIKey, cur.APIVersion)) && cur.RequestSize > 0
				hold = hold[:0]
			}
			if holding {
				hold = append(hold, b...)
			} else {
				out = append(out, b...)
				keep(b)
			}
			if f.in && f.left == 0 {
				if holding {
					b, err := c.rewrite(cur, hold)
					if err != nil {
						c.p.stats.rewriteFails.Add(1)
						c.write(c.client, out, &c.p.stats.bytesDown)
						return err
					}
					out = append(out, b...)
					if cap(hold) > 4*relayBuf {
						hold = nil
					}
				}
				if cur != nil {
					cur.ResponseTime = time.Now()
					c.p.deliver(cur, wanted)
				}
				cur, holding = nil, false
				f.reset()
			}
		}
		var err error
		if out, err = c.flush(c.client, out, &c.p.stats.bytesDown); err != nil {
			return nil // the client side ends the connection and says why
		}
		if rerr != nil {
			err := c.readEnd(rerr, &f, cur != nil, "broker", "response", "client")
			if cur != nil {
				// A response cut short is shown with its request and what
				// came of it, as kwire pcap shows one.
				if holding && cur.Response != nil {
					cur.Response = append(cur.Response, hold...)
				}
				cur.ResponseTime, cur.ConnClosed = time.Now(), true
				c.p.deliver(cur, wanted)
				cur = nil
			}
			return err
		}
	}
}

// beginResponse pairs a response with the request it answers, by
// correlation id: the oldest waiting with it. Requests it overtook wait
// on, each counting it, and one overtaken more than maxOvertaken times is
// given up on. A response that answers nothing is passed on as it is (a
// raw SASL token after a version 0 handshake, or a broker's mistake).
func (c *conn) beginResponse(f *framer) (*Exchange, bool) {
	if f.pn < 8 {
		c.mu.Lock()
		raw := c.saslRaw
		c.mu.Unlock()
		if raw {
			return c.answerToken(4 + f.size)
		}
		if !c.saidShortRsp {
			c.saidShortRsp = true
			c.logf("a response of ", strconv.Itoa(f.size), " bytes is too short for a response header; forwarded as it is (said once per connection)")
		}
		return nil, false
	}
	corr := int32(binary.BigEndian.Uint32(f.pre[4:]))
	c.mu.Lock()
	i := 0
	for i < len(c.waiting) && c.waiting[i].x.CorrelationID != corr {
		i++
	}
	if i == len(c.waiting) {
		raw := c.saslRaw
		c.mu.Unlock()
		if raw {
			return c.answerToken(4 + f.size)
		}
		if !c.saidStray {
			c.saidStray = true
			c.logf("a response with correlation id ", strconv.Itoa(int(corr)), " answers no request in flight; forwarded as it is (said once per connection)")
		}
		x := &Exchange{ConnID: c.id, Client: c.cAddr, Broker: c.bAddr, APIKey: -1, APIVersion: -1, CorrelationID: corr, ResponseSize: 4 + f.size, connSkipped: &c.skipped}
		wanted := c.p.cfg.Sink != nil
		if wanted && c.p.acquire(4+f.size) {
			x.budget = int64(4 + f.size)
			x.Response = c.p.sinkCopy(4 + f.size)
		}
		return x, wanted
	}
	w := c.waiting[i]
	for _, o := range c.waiting[:i] {
		if o.x.Overtaken == 0 {
			o.x.OvertakenBy = corr
		}
		o.x.Overtaken++
	}
	w.x.Overtook = i
	if i == 0 {
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
	} else {
		copy(c.waiting[i:], c.waiting[i+1:])
		c.waiting[len(c.waiting)-1] = nil
		c.waiting = c.waiting[:len(c.waiting)-1]
	}
	var given []*waitingReq
	for len(c.waiting) > 0 && c.waiting[0].x.Overtaken > maxOvertaken {
		given = append(given, c.waiting[0])
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
	}
	if len(c.waiting) == 0 {
		c.waiting = nil
	}
	c.cond.Broadcast()
	c.mu.Unlock()
	for _, o := range given {
		o.x.Unanswered = true
		c.p.deliver(o.x, o.wanted)
	}
	c.answered(w.x, 4+f.size)
	return w.x, w.wanted
}

// answered readies x, whose request (or client token) waited, for its
// answer of size bytes: the answer's copy is made, empty, when the request
// was copied and the budget allows; with no room for it, the exchange is
// skipped whole.
func (c *conn) answered(x *Exchange, size int) {
	x.ResponseSize = size
	if x.Request != nil && c.p.acquire(size) {
		x.budget += int64(size)
		x.Response = c.p.sinkCopy(size)
	} else if x.Request != nil {
		c.p.release(x.budget)
		x.budget, x.Request = 0, nil
	}
}

// rewrite gives the bytes to send the client for a response held whole:
// the original, or the codec's re-encoding with the proxy's addresses.
func (c *conn) rewrite(x *Exchange, frame []byte) ([]byte, error) {
	if x.Response != nil {
		x.Response = append(x.Response, frame...)
	}
	b, n, err := rewriteResponse(&c.dec, frame, x.APIKey, x.APIVersion, c.p.mapEndpoint)
	if err != nil && x.APIKey == schema.KeyApiVersions {
		// It names no broker: the client gets it as the broker sent it.
		c.logf("an ApiVersions v", strconv.Itoa(int(x.APIVersion)), " response (", strconv.Itoa(len(frame)),
			" bytes) could not be read (", err.Error(), "); forwarded as it is, its version ranges not capped")
		return frame, nil
	}
	if err != nil {
		return nil, errors.New("a " + apiName(x.APIKey) + " v" + strconv.Itoa(int(x.APIVersion)) + " response (" + strconv.Itoa(len(frame)) +
			" bytes) could not be rewritten (" + err.Error() + "); closing the connection rather than give the client a broker's own address")
	}
	if b == nil {
		return frame, nil
	}
	x.Rewritten = n
	c.p.stats.rewritten.Add(int64(n))
	return b, nil
}

func apiName(k int16) string {
	if n := schema.APIName(k); n != "" {
		return n
	}
	return "API " + strconv.Itoa(int(k))
}

// sinkCopy is an empty copy for the sink of a frame of size bytes, with
// room for its first copyStart (p.copyStart when set, for the fuzz test
// whose frames are small): it grows as the bytes are relayed, so a peer
// that declares a large frame and stalls costs what it sent. (The budget
// is still taken for the whole size, which the frame will be.)
func (p *Proxy) sinkCopy(size int) []byte {
	start := copyStart
	if p.copyStart > 0 {
		start = p.copyStart
	}
	return make([]byte, 0, min(size, start))
}

// copyStart is how much of a frame sinkCopy makes room for at first: most
// frames, whole.
const copyStart = 64 << 10
