package capture

import (
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/positive"
	"github.com/kwire/kwire/internal/sortfunc"
	"github.com/kwire/kwire/internal/textfmt"
)

type connKey struct{ a, b Endpoint }

type engine struct {
	opts     Options
	keys     *KeyLog // Options.KeyLog, with the capture's own secrets
	keysFull bool    // its secrets were cut at maxKeyLogSessions, said once
	// resumable holds the master secrets of TLS 1.2 sessions decrypted,
	// by session id and ticket, for the sessions that resume them.
	resumable map[string][]byte
	ports     []uint16
	// brokers are the endpoints connections were surely made to (by the
	// SYN, or a request's correlation id echoed by the other side), at
	// most maxBrokerEndpoints: a connection whose broker side is not sure
	// takes the side a broker was seen at (decide).
	brokers map[Endpoint]bool
	res     *Result
	stream  func(*Exchange) // nil: collect into res.Exchanges
	conns   map[connKey]*Conn
	all     []*Conn // connections not yet retired, in order of first appearance
	retired int     // retired connections still in all
	closed  []*Conn // finished connections not yet retired, oldest first
	nextID  int
	// pkt is the 1-based index of the packet being read, always: what
	// is done while it is read (exchanges handed to ReadFunc's fn,
	// frames framed, holes shown) is done at it, even while a hole is
	// declared lost at the packet of the ACK that showed it (sayAt).
	pkt int
	// sayAt, while a hole is declared lost (half.expireHold), is the
	// packet of the ACK that showed it, where the notes of the loss
	// and of what follows from it are said (Note.Packet); 0 otherwise.
	sayAt   int
	now     time.Time
	xseq    int
	dropped int // notes not kept
	badLink map[uint32]bool
	tp      tcpPacket

	// The window of requests awaiting a response, over all connections,
	// oldest first; entries no longer waiting are skipped and compacted
	// away.
	waiting   []*Exchange
	waitHead  int
	nWaiting  int
	waitBytes int

	// The unpaired responses held in case their request is framed
	// late (Conn.early), over all connections, oldest first; entries
	// no longer held are skipped and compacted away.
	earlyQ     []*Exchange
	earlyHead  int
	nEarly     int
	earlyBytes int

	// holds are the halves holding for acknowledged bytes, in the order
	// their holds began (so of their deadlines).
	holds []hold

	// buffered is what the connections hold of what Options.MaxBuffered
	// bounds (the sum of their Conn.counted), peakBuffered its highest
	// (for tests); cuts counts the frames skipped past it, cutBytes their
	// bytes dropped, and cutNote says where the first was.
	buffered, peakBuffered int
	cuts                   int
	cutBytes               int64
	cutNote                Note
	// letGo counts the responses held in case their request came late
	// (holdEarly) handed out unpaired past MaxBuffered, letGoNote says
	// where the first was.
	letGo     int
	letGoNote Note
	// snapGaps are the gaps a snap length made, damagedDropped and
	// damagedKept the frames such gaps (or others) cut into: notes a
	// capture may have one of in every packet (tcpdump -s 128), folded.
	snapGaps, damagedDropped, damagedKept folded
	// lossGaps are the gaps of bytes lost (neither a snap length's nor
	// captured: a capture that dropped packets), malformed the packets
	// skipped as malformed: a lossy or damaged capture may have one in
	// many packets, folded too.
	lossGaps, malformed folded
	// ahead are the segments ignored for a sequence number past the
	// stream by more than 1 GiB: a capture (or an attacker's) may send
	// one in every packet.
	ahead folded
	// lostSync are the streams' losses of frame sync, and resynced the
	// bytes skipped to find a frame again after one: a lossy capture
	// has one or two of them in every loss, folded as the gaps are.
	lostSync, resynced folded
	// implausible are the frame headers found implausible in sync (but
	// the first of a stream followed from its SYN, Note.Unframed, which
	// kwire check judges, at most one a direction of a connection), and
	// bySize the requests framed by their size all the same: bytes that
	// are no Kafka (or a hostile capture) may have one in every frame.
	implausible, bySize folded
	// unframed are the Note.Unframed notes, refused those of them of a
	// client's first size a broker refuses (Note.Refused): a capture of
	// many connections of bytes that are no Kafka has one in each, so
	// they are folded too, kept whatever the cap on notes (kwire check
	// turns each into a finding, the last into one that counts them).
	unframed, refused unframedFold
	// spare are chunks of tails (half.tail) emptied, for the next ones:
	// a frame's chunks are not left to the collector, which lets the heap
	// grow to twice what is live before it collects, and the frames skipped
	// past MaxBuffered after one another use the same. Kept only while
	// they and what is held stay under MaxBuffered, and while some tail
	// is being gathered (tails counts them).
	spare [][]byte
	tails int

	onPacket func() // tests: called after each packet
}

// hold is a half's hold and its deadline, as when it began.
type hold struct {
	h     *half
	until int
}

func newEngine(opts Options, stream func(*Exchange)) *engine {
	opts.MaxFrame = positive.Or(opts.MaxFrame, DefaultMaxFrame)
	opts.MaxStreamBuffer = positive.Or(opts.MaxStreamBuffer, DefaultMaxStreamBuffer)
	opts.MaxBuffered = positive.Or(opts.MaxBuffered, DefaultMaxBuffered)
	opts.MaxWaiting = positive.Or(opts.MaxWaiting, DefaultMaxWaiting)
	opts.MaxWaitingBytes = positive.Or(opts.MaxWaitingBytes, DefaultMaxWaitingBytes)
	ports := opts.BrokerPorts
	if len(ports) == 0 {
		ports = []uint16{DefaultBrokerPort}
	}
	return &engine{
		opts:    opts,
		keys:    opts.KeyLog,
		ports:   ports,
		res:     &Result{},
		stream:  stream,
		conns:   make(map[connKey]*Conn),
		badLink: make(map[uint32]bool),
	}
}

func (e *engine) isBrokerPort(p uint16) bool {
	for _, q := range e.ports {
		if q == p {
			return true
		}
	}
	return false
}

func (e *engine) note(c *Conn, format string, args ...any) {
	if len(e.res.Notes) >= MaxNotes {
		e.dropped++
		return
	}
	e.res.Notes = append(e.res.Notes, Note{Packet: e.notePkt(), Conn: c, Message: textfmt.Sprintf(format, args...)})
}

// notePkt is the packet a note is said at: the one being read, or while
// a hole is declared lost the one whose ACK showed it (sayAt).
func (e *engine) notePkt() int {
	if e.sayAt > 0 {
		return e.sayAt
	}
	return e.pkt
}

func (e *engine) packet(data []byte, ts time.Time, lt uint32) {
	e.res.Packets++
	e.pkt = e.res.Packets
	e.now = ts
	for len(e.holds) > 0 && e.holds[0].until < e.pkt {
		x := e.holds[0]
		e.holds[0] = hold{}
		e.holds = e.holds[1:]
		if len(x.h.shown) > 0 && x.h.shown[0].until < e.pkt {
			x.h.expireHold(expireDue)
			e.bound(x.h.c, x.h)
		}
	}
	if len(e.holds) == 0 {
		e.holds = nil
	}
	p := &e.tp
	switch decodePacket(lt, data, p) {
	case kindTCP:
	case kindFragment:
		e.res.Fragments++
		e.res.NonKafka++
		if e.res.Fragments <= 10 {
			e.note(nil, "IP fragment skipped (fragments are not reassembled)")
		}
		return
	case kindMalformed:
		e.res.NonKafka++
		if e.malformed.addPacket(e, int64(len(data))) {
			e.note(nil, "malformed packet skipped")
		}
		return
	case kindUnsupportedLink:
		e.res.NonKafka++
		if !e.badLink[lt] {
			e.badLink[lt] = true
			e.note(nil, "unsupported link type %d: its packets are skipped", int(lt))
		}
		return
	default:
		e.res.NonKafka++
		return
	}
	e.tcp(p)
}

// tcp handles one decoded TCP segment.
func (e *engine) tcp(p *tcpPacket) {
	ts := e.now
	src := Endpoint{p.src, p.sport}
	dst := Endpoint{p.dst, p.dport}
	key := connKey{src, dst}
	dir := 0
	if less(dst, src) {
		key = connKey{dst, src}
		dir = 1
	}
	syn := p.flags&tcpSYN != 0
	c := e.conns[key]
	if c != nil && syn && p.flags&tcpACK == 0 {
		// A new SYN on a known 4-tuple starts a new connection unless it is
		// a retransmission of the one we have.
		h := c.half[dir]
		same := h.started && h.anchored && h.isn == p.seq
		switch {
		case same && c.finished && !c.copied:
			// The same SYN after the connection ended: a copy of it
			// from another interface (dumpcap -i lo -i any writes each
			// interface's packets in chunks), not a new connection. Its
			// packets fall on the finished connection, which skips them.
			c.copied = true
			if !c.nonKafka {
				e.note(c, "the connection seen again from its SYN (the same initial sequence number: a copy from another interface): its packets are skipped")
			}
		case same && c.finished:
		case c.finished || !same:
			e.finishConn(c)
			c = nil
		}
	}
	if c == nil {
		if !syn && len(p.payload) == 0 && p.missing == 0 {
			// stray ACK/FIN of a connection we don't track
			e.res.NonKafka++
			return
		}
		c = e.newConn(key, src, dst, dir, p)
	}
	c.Packets++
	c.LastTime = ts
	if c.finished || c.nonKafka {
		return
	}
	if len(c.early) > 0 {
		e.expireEarly(c)
	}
	h := c.half[dir]
	if p.flags&tcpACK != 0 {
		o := c.half[1-dir]
		if !o.ackValid || int32(p.ack-o.peerAck) > 0 {
			o.peerAck = p.ack
			o.ackValid = true
		}
	}
	if p.flags&tcpACK != 0 {
		// The peer received what it acknowledges before it sent this
		// packet: bytes it acknowledged that the capture has not shown
		// are waited for (a capture from several queues shows some
		// late), this side's frames held meanwhile, so that the other
		// stream's request is framed before this packet's answer is
		// paired. Those that do not come are declared lost.
		c.half[1-dir].ackSeen()
	}
	h.segment(p)
	h.settleHold() // the bytes acknowledged may have come
	if len(c.held) > 0 {
		e.releaseHeld(c) // some of them came
	}
	e.bound(c, h)
	if p.flags&tcpRST != 0 {
		c.Closed = true
		e.finishConn(c)
		return
	}
	if p.flags&tcpFIN != 0 {
		c.Closed = true
	}
	if c.Closed && c.half[0].finDone() && c.half[1].finDone() {
		e.finishConn(c)
	}
}

// ephemeral reports whether a port is in the range systems pick a
// connecting side's port from (Linux from 32768, Windows and the IANA
// range from 49152): brokers listen below it.
func ephemeral(p uint16) bool { return p >= 32768 }

func less(a, b Endpoint) bool {
	if c := a.IP.Compare(b.IP); c != 0 {
		return c < 0
	}
	return a.Port < b.Port
}

func (e *engine) newConn(key connKey, src, dst Endpoint, dir int, p *tcpPacket) *Conn {
	e.nextID++
	c := &Conn{ID: e.nextID, ep: [2]Endpoint{key.a, key.b}, key: key, FirstTime: e.now, outCorr: make(map[int32]int)}
	for i := range c.half {
		c.half[i] = &half{e: e, c: c, idx: i}
	}
	// Role: by port first; the SYN sender (or first sender) is the
	// tentative client otherwise.
	srcB, dstB := e.isBrokerPort(src.Port), e.isBrokerPort(dst.Port)
	switch {
	case dstB && (!srcB || p.flags&(tcpSYN|tcpACK) != tcpSYN|tcpACK):
		c.clientIdx = dir
		c.decided, c.BrokerByPort = true, true
	case srcB:
		c.clientIdx = 1 - dir
		c.decided, c.BrokerByPort = true, true
	default:
		c.clientIdx = dir
		if p.flags&(tcpSYN|tcpACK) == tcpSYN|tcpACK {
			c.clientIdx = 1 - dir
		}
		c.bySYN = p.flags&tcpSYN != 0
	}
	c.setRole()
	e.conns[key] = c
	e.all = append(e.all, c)
	return c
}

func (c *Conn) setRole() {
	c.Client = c.ep[c.clientIdx]
	c.Broker = c.ep[1-c.clientIdx]
}

// finishConn flushes a connection's streams and settles its exchanges.
func (e *engine) finishConn(c *Conn) {
	if c.finished {
		return
	}
	if c.half[0].busy > 0 || c.half[1].busy > 0 {
		// A hold that ended inside the reading of a stream: the
		// connection ends once that is done (half.idle).
		c.finishLater = true
		return
	}
	c.finished = true
	if !c.nonKafka {
		for _, h := range c.half {
			h.expireHold(expireAll)
		}
		e.release(c, true, nil, 0)
		for _, h := range c.half {
			h.flush()
		}
		if !c.decided {
			e.decide(c, true)
		}
	}
	// unanswered requests
	if c.saslWait != nil {
		c.saslWait.ConnClosed = c.Closed
		e.tokenUnanswered(c)
	}
	for c.outHead < len(c.outstanding) {
		x := e.popOutstanding(c)
		x.ConnClosed = c.Closed
		e.done(x)
	}
	c.outstanding, c.outHead, c.outCorr = nil, 0, nil
	e.letGoEarly(c)
	c.pending, c.early = nil, nil
	for _, h := range c.half {
		h.release()
	}
	e.settle(c)
	e.closed = append(e.closed, c)
	if len(e.closed) > maxClosed {
		e.retire(e.closed[0])
		e.closed[0] = nil
		e.closed = e.closed[1:]
	}
}

// settle brings e.buffered up to date with what c holds.
func (e *engine) settle(c *Conn) {
	n := c.pendingBytes + c.earlyBytes
	for _, h := range c.half {
		n += h.mem()
	}
	e.buffered += n - c.counted
	c.counted = n
	e.peakBuffered = max(e.peakBuffered, e.buffered)
	e.trimSpare()
}

// bound holds what all connections hold for frames not yet whole to
// Options.MaxBuffered, once a packet of c (of h's side) is read: past it,
// c gives way, h's side first: its out-of-order bytes are declared lost,
// then the frame it is gathering is skipped (half.cut), then c's frames
// waiting for its broker side to be known are placed.
func (e *engine) bound(c *Conn, h *half) {
	e.settle(c)
	if e.buffered <= e.opts.MaxBuffered {
		return
	}
	// The responses held in case their request came late go first: they
	// are whole, and only their late pairing is given up, no bytes.
	if e.evictEarly(); e.buffered <= e.opts.MaxBuffered {
		return
	}
	for _, x := range [2]*half{h, c.half[1-h.idx]} {
		for x.segs.len() > 0 && !x.released && e.buffered > e.opts.MaxBuffered {
			x.forceGap("out-of-order bytes held over all connections past the limit")
			e.settle(c)
		}
		if e.buffered > e.opts.MaxBuffered {
			x.cut()
			e.settle(c)
		}
	}
	if e.buffered > e.opts.MaxBuffered && len(c.pending) > 0 {
		e.decide(c, true)
		e.settle(c)
	}
}

// chunk returns an empty chunk for a tail: a spare one, or a new one.
func (e *engine) chunk() []byte {
	if n := len(e.spare); n > 0 {
		c := e.spare[n-1]
		e.spare[n-1] = nil
		e.spare = e.spare[:n-1]
		return c
	}
	return make([]byte, 0, tailChunk)
}

// trimSpare keeps the spare chunks and what is held under MaxBuffered.
func (e *engine) trimSpare() {
	for n := len(e.spare); n > 0 && e.buffered+n*tailChunk > e.opts.MaxBuffered; n-- {
		e.spare[n-1] = nil
		e.spare = e.spare[:n-1]
	}
}

// maxClosed is how many finished connections are remembered, so that
// their last ACKs and retransmissions are not mistaken for new
// connections; older ones are retired.
const maxClosed = 1024

// retire accounts for a finished connection and forgets it.
func (e *engine) retire(c *Conn) {
	if c.retired {
		return
	}
	c.retired = true
	if c.nonKafka || !c.decided {
		e.res.NonKafka += c.Packets
	} else {
		e.res.Connections++
		if e.stream == nil {
			e.res.Conns = append(e.res.Conns, c)
		} else if e.opts.ConnDone != nil {
			e.opts.ConnDone(c)
		}
	}
	if e.conns[c.key] == c {
		delete(e.conns, c.key)
	}
	e.retired++
	if e.retired > 64 && e.retired*2 > len(e.all) {
		live := e.all[:0]
		for _, c := range e.all {
			if !c.retired {
				live = append(live, c)
			}
		}
		clear(e.all[len(live):])
		e.all, e.retired = live, 0
	}
}

// maxFolded is how many notes of a kind that may come in every packet
// (folded) are said each with its place: its packet, connection and
// stream offset. The rest are counted, and one note at the end says how
// many, their bytes, and where the last was: a capture taken with a snap
// length of 128 bytes, whose every large frame is cut, is so told in a
// few notes, the last place among them, not in MaxNotes of them, the
// rest of its notes then unsaid.
const maxFolded = 10

// folded is a kind of note said in full maxFolded times, then counted.
type folded struct {
	n      int   // places told so far
	bytes  int64 // the bytes of those past the first maxFolded
	last   Note  // the last of those: its packet and connection
	off    int64 // its stream offset
	stream string
}

// add counts a place of the kind at stream offset off of h, of n bytes:
// true when it is to be said in a note of its own (the caller's), false
// when it is counted for the note at the end.
func (f *folded) add(h *half, off, n int64) bool {
	if f.addPacket(h.e, n) {
		return true
	}
	f.last.Conn, f.off, f.stream = h.c, off, h.stream()
	return false
}

// addPacket is add for a place that is a packet of n bytes, in no
// stream (a packet skipped as malformed).
func (f *folded) addPacket(e *engine, n int64) bool {
	if f.n++; f.n <= maxFolded {
		return true
	}
	f.bytes += n
	f.last, f.stream = Note{Packet: e.notePkt()}, ""
	return false
}

// end says the places counted past the first maxFolded, what they are
// and their bytes' unit, in one note at the last of them; no unit for
// places that have no bytes (a loss of frame sync).
func (f *folded) end(e *engine, what, unit string) {
	more := f.n - maxFolded
	if more <= 0 {
		return
	}
	n := f.last
	n.Message = textfmt.Sprintf("%d more %s after the first %d", more, what, maxFolded)
	if unit != "" {
		n.Message += textfmt.Sprintf(", %d %s in all", f.bytes, unit)
	}
	n.Message += ": the last in this packet"
	if f.stream != "" {
		n.Message += textfmt.Sprintf(", at stream offset %d of %s", f.off, f.stream)
	}
	e.res.Notes = append(e.res.Notes, n)
}

// unframedFold is folded for the Note.Unframed notes: the first maxFolded
// kept whatever the cap on notes, the place of the first of the rest
// kept too, and for refused sizes, the last of them.
type unframedFold struct {
	folded
	first Note
	size  int64
}

// add keeps n, of stream h at offset off, as a note of its own (true),
// or counts it (false).
func (u *unframedFold) add(h *half, n Note, off int64) bool {
	if u.folded.add(h, off, 0) {
		h.e.res.Notes = append(h.e.res.Notes, n)
		return true
	}
	if u.n == maxFolded+1 {
		u.first = Note{Packet: n.Packet, Conn: n.Conn}
	}
	u.size = n.Size
	return false
}

// end says the notes counted past the first maxFolded in one, at the
// last of them, marked as they are, with Folded and First.
func (u *unframedFold) end(e *engine, what string) {
	more := u.n - maxFolded
	if more <= 0 {
		return
	}
	n := u.last
	first := u.first
	n.Unframed, n.Refused, n.Folded, n.First = true, u == &e.refused, more, &first
	if n.Refused {
		n.Size = u.size
	}
	// first.Conn named by its String, not handed to Sprintf: a *Conn in
	// an interface links time's formatter into capture.wasm (its
	// time.Time fields), TestModulesLinkNothingUnused
	n.Message = textfmt.Sprintf("%d more %s after the first %d: the first of them in packet %d, %s; the last in this packet, at stream offset %d of %s",
		more, what, maxFolded, first.Packet, first.Conn.String(), u.off, u.stream)
	e.res.Notes = append(e.res.Notes, n)
}

func (e *engine) finish() {
	for i := 0; i < len(e.all); i++ {
		e.finishConn(e.all[i])
	}
	for _, c := range e.closed {
		e.retire(c)
	}
	e.closed = nil
	cs := e.res.Conns // sorted through functions: see internal/sortfunc
	sortfunc.Slice(len(cs), func(i, j int) bool { return cs[i].ID < cs[j].ID }, func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
	limit := strconv.Itoa(e.opts.MaxBuffered) + " bytes"
	if e.opts.MaxBuffered%(1<<20) == 0 {
		limit = strconv.Itoa(e.opts.MaxBuffered>>20) + " MiB"
	}
	if e.cuts > 0 {
		// Kept whatever the cap on notes: a limit that cut work short.
		n := e.cutNote
		n.Limit = true
		what, their := "a frame skipped, not held, at", "its"
		if e.cuts > 1 {
			what, their = strconv.Itoa(e.cuts)+" frames skipped, not held, the first at", "their"
		}
		n.Message = textfmt.Sprintf("%s %s: what all connections held for frames not yet whole passed %s; %s %d bytes held were dropped, the rest streamed past",
			what, n.Message, limit, their, e.cutBytes)
		e.res.Notes = append(e.res.Notes, n)
	}
	if n := e.letGoNote; e.letGo > 0 {
		// Kept whatever the cap on notes, as the cuts': responses a
		// request framed late would have answered, handed out unpaired.
		n.Message = textfmt.Sprintf("responses held in case their request came late handed out unpaired: %d, the first in this packet; what all connections held passed %s",
			e.letGo, limit)
		e.res.Notes = append(e.res.Notes, n)
	}
	// Kept whatever the cap on notes: the notes that say where the rest
	// of the places of a kind folded are.
	e.snapGaps.end(e, "gaps of bytes not captured (snap length)", "bytes")
	e.damagedDropped.end(e, "frames damaged by a gap and dropped", "bytes")
	e.damagedKept.end(e, "frames damaged by a gap and kept up to it", "bytes missing")
	e.lossGaps.end(e, "gaps of bytes missing (not captured)", "bytes")
	e.malformed.end(e, "malformed packets skipped", "bytes")
	e.ahead.end(e, "segments far ahead of the stream ignored", "bytes")
	e.lostSync.end(e, "losses of frame sync", "")
	e.resynced.end(e, "resynchronisations", "bytes skipped")
	e.implausible.end(e, "implausible frame headers", "")
	e.bySize.end(e, "requests whose header is implausible framed by their size all the same", "bytes")
	e.unframed.end(e, "streams followed from their SYN whose bytes do not read as a frame (not judged)")
	e.refused.end(e, "connections whose first frame declares a size a broker refuses")
	if e.res.Evicted > 0 {
		e.note(nil, "%d requests were given up on while waiting for their response (more than %d requests or %d bytes were waiting)", e.res.Evicted, e.opts.MaxWaiting, e.opts.MaxWaitingBytes)
	}
	if e.dropped > 0 {
		e.res.Notes = append(e.res.Notes, Note{Message: textfmt.Sprintf("%d more notes not shown", e.dropped)})
	}
	// Responses paired late with their request live on in that request's
	// exchange only.
	xs := e.res.Exchanges[:0]
	for _, x := range e.res.Exchanges {
		if !x.merged {
			xs = append(xs, x)
		}
	}
	clear(e.res.Exchanges[len(xs):])
	e.res.Exchanges = xs
}

// ---- frames and pairing ----

func (e *engine) frame(h *half, f *Frame) {
	e.res.Frames++
	e.place(h, f)
}

// place pairs a frame, or holds it while the other side holds for bytes
// its peer acknowledged (see half.holding): until those of them the peer
// had acknowledged when f came have come. Held frames go on in order.
func (e *engine) place(h *half, f *Frame) {
	c := h.c
	// Where f ends in its stream, read before f is placed: a placed frame
	// may complete an exchange, whose reader (ReadFunc's fn) may take the
	// frames' buffers back at once.
	end := f.StreamOffset + int64(len(f.Bytes))
	if o := c.half[1-h.idx]; o.holding() || c.heldN[h.idx] > 0 {
		need := o.next
		if o.holding() {
			need = o.ackEnd()
		}
		c.held = append(c.held, heldFrame{f, need})
		c.heldBytes += len(f.Bytes)
		c.heldN[h.idx]++
		e.unhold(c)
	} else {
		e.placeNow(c, f)
	}
	// f's bytes may be some the peer acknowledged: frames it held for
	// them go on after f (those held for bytes after f wait for them).
	h.settleHold()
	upTo := h.next
	if back := h.off - end; back >= 0 && back < 1<<30 {
		upTo -= uint32(back) // the sequence number after f
	}
	e.release(c, false, h, upTo)
}

func (e *engine) placeNow(c *Conn, f *Frame) {
	if c.nonKafka {
		return
	}
	c.gen++
	if !c.decided {
		c.pending = append(c.pending, f)
		c.pendingBytes += len(f.Bytes)
		e.decide(c, false)
		return
	}
	e.pair(c, f)
}

// heldFrame is a frame held until the other side's stream reaches need.
type heldFrame struct {
	f    *Frame
	need uint32
}

// maxHeld bounds the frames a connection holds while waiting for
// acknowledged bytes (and Options.MaxStreamBuffer their bytes).
const maxHeld = 1024

// overHeld reports whether c holds more frames than maxHeld, or more of
// their bytes than limit (Options.MaxStreamBuffer).
func (c *Conn) overHeld(limit int) bool { return len(c.held) > maxHeld || c.heldBytes > limit }

// unhold brings what c holds back under its limits (overHeld): too much
// waits, so the holes its oldest held frames wait for are declared lost,
// oldest first, as many as that takes (expireOver), the younger ones
// waited for still: their bytes may yet come, and with them the frames
// held for them.
func (e *engine) unhold(c *Conn) {
	for len(c.held) > 0 && c.overHeld(e.opts.MaxStreamBuffer) {
		w := c.half[1-c.held[0].f.dir] // the stream the oldest waits for
		n := len(w.shown)
		w.expireHold(expireOver)
		if w.busy > 0 || len(w.shown) == n {
			return // ends once its reading is done (half.idle), or cannot
		}
	}
}

// releaseHeld hands on, in order, the frames c held whose wait is over:
// the other side's stream has come to what they need (whether the bytes
// came or were declared lost).
func (e *engine) releaseHeld(c *Conn) { e.release(c, false, nil, 0) }

// release is releaseHeld, all of them when all is set (the connection
// ends); the stream of h counts as come up to upTo only.
func (e *engine) release(c *Conn, all bool, h *half, upTo uint32) {
	if c.releasing {
		return
	}
	c.releasing = true
	for len(c.held) > 0 {
		x := c.held[0]
		o := c.half[1-x.f.dir]
		reached := o.next
		if o == h {
			reached = upTo
		}
		if int32(reached-x.need) < 0 && !o.released && !all {
			break
		}
		c.held[0] = heldFrame{}
		c.held = c.held[1:]
		c.heldBytes -= len(x.f.Bytes)
		c.heldN[x.f.dir]--
		e.placeNow(c, x.f)
	}
	if len(c.held) == 0 {
		c.held = nil
	}
	c.releasing = false
}

// looksLikeRequest applies the request-header plausibility test to a
// frame (or the start of a buffer): its size, API key and version,
// correlation id and client id length. The client id's bytes are not
// judged: a client may put anything there, and must not hide its requests
// by it. (Resynchronising takes a printable client id as a sign that a
// frame starts here, never the lack of one as a sign that none does.)
// The one exception is a version past the margin for a newer Kafka,
// which its client id's text must vouch for (farVersion).
func looksLikeRequest(b []byte, maxFrame int) bool {
	if len(b) < 12 {
		return false
	}
	size, ok := frameSize(b, 8, maxFrame)
	if !ok {
		return false
	}
	corr := int32(binary.BigEndian.Uint32(b[8:]))
	if !plausibleAPI(b) || corr < 0 {
		return false
	}
	if size >= 10 && len(b) >= 14 {
		cl := int(int16(binary.BigEndian.Uint16(b[12:])))
		if cl < -1 || cl > int(size)-10 {
			return false
		}
	}
	return true
}

// isRequest reports whether frame f reads as a request: its header
// plausible (looksLikeRequest), or the same client's next request
// vouching for it (Frame.chained).
func isRequest(f *Frame, maxFrame int) bool {
	return f.chained || looksLikeRequest(f.Bytes, maxFrame)
}

// textClientID reports whether the request header at b has a client id of
// at least min bytes, all there and printable: a strong sign that b is a
// request, since other bytes rarely read so.
func textClientID(b []byte, min int) bool {
	if len(b) < 14 || binary.BigEndian.Uint32(b) < 10 {
		return false
	}
	cl := int(int16(binary.BigEndian.Uint16(b[12:])))
	if cl < min || len(b) < 14+cl {
		return false
	}
	for _, ch := range b[14 : 14+cl] {
		if ch < 0x20 || ch == 0x7f {
			return false
		}
	}
	return true
}

// maxBrokerEndpoints bounds engine.brokers: a cluster has a few dozen.
const maxBrokerEndpoints = 4096

// knowBroker notes that ep is surely a broker's.
func (e *engine) knowBroker(ep Endpoint) {
	if e.brokers == nil {
		e.brokers = make(map[Endpoint]bool)
	}
	if len(e.brokers) < maxBrokerEndpoints {
		e.brokers[ep] = true
	}
}

// decide infers the broker side of a connection whose ports are not in
// Options.BrokerPorts from its first frames.
func (e *engine) decide(c *Conn, final bool) {
	if c.decided || c.nonKafka {
		return
	}
	client := -1
	// A request whose correlation id is echoed by a later frame from the
	// other side is conclusive.
	for _, a := range c.pending {
		if !isRequest(a, e.opts.MaxFrame) {
			continue
		}
		corr := binary.BigEndian.Uint32(a.Bytes[8:])
		for _, b := range c.pending {
			if b.dir != a.dir && len(b.Bytes) >= 8 && binary.BigEndian.Uint32(b.Bytes[4:]) == corr {
				client = a.dir
				break
			}
		}
		if client >= 0 {
			break
		}
	}
	if client >= 0 || c.bySYN {
		// Sure of the broker side: the correlation id, or the handshake.
		who := client
		if who < 0 {
			who = c.clientIdx
		}
		e.knowBroker(c.ep[1-who])
	}
	if client < 0 && (final || len(c.pending) >= 32 || c.pendingBytes >= 4<<20) {
		var score, named [2]int
		var any [2]bool
		first := -1
		for _, f := range c.pending {
			if first < 0 {
				first = f.dir
			}
			// Without an echoed correlation id, a side whose frames read
			// as requests with text client ids is the client's. (A
			// response's first bytes pass the other tests too often: 00
			// 00 00 16 00 00 00 01 00 00 00 00 00 00, an InitProducerId
			// response, reads as Produce v1 with an empty client id.)
			// A request its client's next vouches for (Frame.chained)
			// counts whatever its client id.
			if f.chained || looksLikeRequest(f.Bytes, e.opts.MaxFrame) && (textClientID(f.Bytes, 0) || len(f.Bytes) < 14 || int16(binary.BigEndian.Uint16(f.Bytes[12:])) <= 0) {
				score[f.dir]++
				any[f.dir] = true
				if textClientID(f.Bytes, 1) {
					named[f.dir]++
				}
			} else {
				score[f.dir]--
			}
		}
		eph := [2]bool{ephemeral(c.ep[0].Port), ephemeral(c.ep[1].Port)}
		switch {
		case !any[0] && !any[1]:
			c.nonKafka = true
			e.res.Frames -= len(c.pending)
			c.pending = nil
			for _, h := range c.half {
				h.release()
			}
			return
		// Then, in order: requests with a client id from one side only;
		// the handshake; one side a broker's endpoint, as other
		// connections showed surely (a capture begun in the middle of a
		// cluster's traffic on ports past 32768 read responses as
		// requests); one port ephemeral, the other not (a broker listens
		// on a port below the ephemeral range); the scores.
		case (named[0] > 0) != (named[1] > 0):
			client = 0
			if named[1] > 0 {
				client = 1
			}
		case c.bySYN:
			client = c.clientIdx
		case e.brokers[c.ep[0]] != e.brokers[c.ep[1]]:
			client = 0
			if e.brokers[c.ep[0]] {
				client = 1
			}
		case eph[0] != eph[1]:
			client = 0
			if eph[1] {
				client = 1
			}
		case score[0] > score[1]:
			client = 0
		case score[1] > score[0]:
			client = 1
		default:
			client = first
		}
	}
	if client < 0 {
		return
	}
	c.clientIdx = client
	c.decided = true
	c.gen++
	c.setRole()
	p := c.pending
	c.pending, c.pendingBytes = nil, 0
	// Frames can be emitted out of order while a stream resynchronises;
	// replay them in order of their first byte.
	sortfunc.Stable(len(p), func(i, j int) bool { return p[i].firstPkt < p[j].firstPkt }, func(i, j int) { p[i], p[j] = p[j], p[i] })
	for _, f := range p {
		f.FromClient = f.dir == client
		e.pair(c, f)
	}
}

func (e *engine) created(x *Exchange) {
	e.xseq++
	x.seq = e.xseq
	if e.stream == nil {
		e.res.Exchanges = append(e.res.Exchanges, x)
	}
}

func (e *engine) done(x *Exchange) {
	if e.stream != nil {
		e.stream(x)
	}
}

func (e *engine) pair(c *Conn, f *Frame) {
	f.FromClient = f.dir == c.clientIdx
	if f.SASLToken {
		e.token(c, f)
		return
	}
	b := f.Bytes
	if f.FromClient {
		c.Requests++
		e.tokenUnanswered(c) // the tokens have ended
		x := &Exchange{Conn: c, Request: f, APIKey: -1, APIVersion: -1, CorrelationID: -1}
		e.created(x)
		if len(b) < 12 {
			e.done(x)
			return
		}
		x.APIKey = int16(binary.BigEndian.Uint16(b[4:]))
		x.APIVersion = int16(binary.BigEndian.Uint16(b[6:]))
		x.CorrelationID = int32(binary.BigEndian.Uint32(b[8:]))
		if x.APIKey == schema.KeyProduce && produceAcks(b, x.APIVersion) == 0 {
			x.NoResponseExpected = true
			e.done(x)
			return
		}
		if r := c.early[x.CorrelationID]; r != nil && r.Response.firstPkt >= f.firstPkt {
			// The response was framed before its request (the client
			// stream was still resynchronising): pair them after all.
			// ReadFunc held it back (holdEarly), so it hands out the
			// pair as Read keeps it.
			e.unholdEarly(r)
			r.merged = true
			x.Response = r.Response
			x.Latency = latency(f, x.Response)
			e.done(x)
			return
		}
		e.wait(c, x)
		return
	}
	c.Responses++
	corr := int32(-1)
	if len(b) >= 8 {
		corr = int32(binary.BigEndian.Uint32(b[4:]))
	}
	if len(b) >= 8 && c.outCorr[corr] > 0 && c.answerable(corr, f.PacketIndex) {
		e.answer(c, corr, f)
		return
	}
	x := &Exchange{Conn: c, Response: f, APIKey: -1, APIVersion: -1, CorrelationID: corr}
	e.created(x)
	if len(b) < 8 {
		e.done(x)
		return
	}
	e.holdEarly(c, x)
}

// Bounds of the unpaired responses held in case their request is
// framed late (holdEarly): per connection, and over all of them, in
// number and in bytes (Options.MaxWaitingBytes).
const (
	maxEarlyConn = 16
	maxEarly     = 1024
	maxEarlyWait = 256 // packets of its connection
)

// holdEarly remembers the unpaired response x in case its request is
// framed late (a client stream resynchronising frames a request only
// once what follows it vouches for it, by which time its answer may have
// been framed). ReadFunc hands x out only once it is let go: when more
// than maxEarlyConn are held on its connection (all of them are let go,
// as they were forgotten before), when another response with its
// correlation id comes, when more than maxEarly or MaxWaitingBytes of
// their bytes are held in all, or what all connections hold passes
// MaxBuffered (the oldest first: evictEarly), when maxEarlyWait
// packets of its connection came after it, when its request can no
// longer come (a request numbered after it answered, passEarly), or
// when its connection ends.
// Read follows the same rules, so both pair the same frames.
func (e *engine) holdEarly(c *Conn, x *Exchange) {
	if old := c.early[x.CorrelationID]; old != nil {
		e.unholdEarly(old)
		e.done(old)
	}
	if len(c.early) >= maxEarlyConn {
		e.letGoEarly(c)
	}
	if c.early == nil {
		c.early = make(map[int32]*Exchange)
	}
	c.early[x.CorrelationID] = x
	x.early = true
	x.heldAt = c.Packets
	e.earlyQ = append(e.earlyQ, x)
	e.nEarly++
	n := len(x.Response.Bytes)
	e.earlyBytes += n
	// counted toward MaxBuffered as it is held (engine.settle counts
	// c.earlyBytes too), so letting go of one on another connection
	// keeps the count
	c.earlyBytes += n
	c.counted += n
	e.buffered += n
	e.evictEarly()
}

// evictEarly hands out unpaired the responses held longest while more
// than maxEarly, or MaxWaitingBytes of their bytes, are held, or what
// all connections hold is past MaxBuffered (which a note at the end
// says, with the first).
func (e *engine) evictEarly() {
	for e.nEarly > 0 && (e.nEarly > maxEarly || e.earlyBytes > e.opts.MaxWaitingBytes || e.buffered > e.opts.MaxBuffered) {
		y := e.earlyQ[e.earlyHead] // held: unholdEarly moves the head past the rest
		if e.nEarly <= maxEarly && e.earlyBytes <= e.opts.MaxWaitingBytes {
			if e.letGo == 0 {
				e.letGoNote = Note{Packet: e.notePkt(), Conn: y.Conn, Limit: true}
			}
			e.letGo++
		}
		e.unholdEarly(y)
		e.done(y)
	}
}

// unholdEarly takes the held response x out of its connection's map and
// the accounting; the caller hands it out or pairs it.
func (e *engine) unholdEarly(x *Exchange) {
	c := x.Conn
	delete(c.early, x.CorrelationID)
	x.early = false
	e.nEarly--
	n := len(x.Response.Bytes)
	e.earlyBytes -= n
	c.earlyBytes -= n
	c.counted -= n
	e.buffered -= n
	for e.earlyHead < len(e.earlyQ) && !e.earlyQ[e.earlyHead].early {
		e.earlyQ[e.earlyHead] = nil
		e.earlyHead++
	}
	if live := len(e.earlyQ) - e.earlyHead; live == 0 {
		e.earlyQ, e.earlyHead = e.earlyQ[:0], 0
	} else if live > 64 && live > 2*e.nEarly {
		q := e.earlyQ[:0]
		for _, y := range e.earlyQ[e.earlyHead:] {
			if y.early {
				q = append(q, y)
			}
		}
		clear(e.earlyQ[len(q):])
		e.earlyQ, e.earlyHead = q, 0
	}
}

// expireEarly hands out unpaired the responses held on c for more than
// maxEarlyWait of its packets, in the order they came.
func (e *engine) expireEarly(c *Conn) { e.letGoIf(c, math.MinInt32, maxEarlyWait) }

// passEarly hands out unpaired, in the order they came, the responses
// held on c whose correlation id is below corr, which a request of c
// was just answered with: a client numbers its requests in order, so
// their requests came before it in the client stream, which frames in
// order: framed by now, had they come (and paired with these, which
// answered them), they cannot come now.
func (e *engine) passEarly(c *Conn, corr int32) {
	if len(c.early) > 0 && corr > 0 {
		e.letGoIf(c, corr, math.MaxInt)
	}
}

// letGoEarly hands out the responses held on c unpaired, in the order
// they came.
func (e *engine) letGoEarly(c *Conn) { e.letGoIf(c, math.MinInt32, -1) }

// letGoIf hands out unpaired, in the order they came, the responses
// held on c whose correlation id is below below, or which were held for
// more than waited of its packets.
func (e *engine) letGoIf(c *Conn, below int32, waited int) {
	var ys []*Exchange
	for _, y := range c.early {
		if y.CorrelationID < below || c.Packets-y.heldAt > waited {
			ys = append(ys, y)
		}
	}
	// in the order they came (sequence numbers: each was held as it
	// was created)
	sortfunc.Slice(len(ys), func(i, j int) bool { return ys[i].seq < ys[j].seq }, func(i, j int) { ys[i], ys[j] = ys[j], ys[i] })
	for _, y := range ys {
		e.unholdEarly(y)
		e.done(y)
	}
}

// token pairs raw SASL tokens (Frame.SASLToken): a client's waits for
// the broker's next, which answers it; a broker's token that answers none
// is an exchange alone, as is a client's the broker never answered.
func (e *engine) token(c *Conn, f *Frame) {
	if f.FromClient {
		c.Requests++
		e.tokenUnanswered(c)
		x := &Exchange{Conn: c, Request: f, SASLToken: true, APIKey: -1, APIVersion: -1, CorrelationID: -1}
		e.created(x)
		c.saslWait = x
		return
	}
	c.Responses++
	if x := c.saslWait; x != nil {
		c.saslWait = nil
		x.Response, x.Latency = f, latency(x.Request, f)
		e.done(x)
		return
	}
	x := &Exchange{Conn: c, Response: f, SASLToken: true, APIKey: -1, APIVersion: -1, CorrelationID: -1}
	e.created(x)
	e.done(x)
}

// tokenUnanswered hands out the client's raw SASL token waiting on c, if
// there is one, unanswered: the client sent another frame, or the
// connection ended, before the broker's token came.
func (e *engine) tokenUnanswered(c *Conn) {
	if x := c.saslWait; x != nil {
		c.saslWait = nil
		e.done(x)
	}
}

// answerable reports whether the oldest request of c waiting with
// correlation id corr began in a packet before pkt: a response whose bytes
// all came before its request began is not its answer (the bytes are from
// an older response, met while resynchronising).
func (c *Conn) answerable(corr int32, pkt int) bool {
	for _, x := range c.outstanding[c.outHead:] {
		if x.CorrelationID == corr {
			return x.Request.firstPkt < pkt
		}
	}
	return false
}

// latency is the time from a request's completion to its response's,
// never negative: timestamps that go backwards (captures merged from
// several interfaces or queues) make it 0.
func latency(req, resp *Frame) time.Duration {
	return max(resp.Time.Sub(req.Time), 0)
}

// maxOvertaken is how many later requests of its connection may be
// answered before a request is given up on (handed out unanswered).
// Kafka answers a connection's requests in order, so a request passed over
// was most likely answered in bytes the capture lost; a broker that answers
// out of order still has its late answers paired, as long as they come
// within this many.
const maxOvertaken = 4

// answer pairs the response f with the oldest request of c waiting with
// correlation id corr. Kafka answers a connection's requests in order; when
// older requests are still waiting, the response came out of order: they
// are marked overtaken (and wait on, to be paired when their answers come)
// and the exchange says how many it overtook. A request overtaken more than
// maxOvertaken times is given up on.
func (e *engine) answer(c *Conn, corr int32, f *Frame) {
	i := c.outHead
	for c.outstanding[i].CorrelationID != corr {
		i++
	}
	x := c.outstanding[i]
	for _, y := range c.outstanding[c.outHead:i] {
		if y.Overtaken == 0 {
			y.OvertakenBy = corr
		}
		y.Overtaken++
	}
	x.Overtook = i - c.outHead
	if i == c.outHead {
		e.popOutstanding(c)
	} else {
		copy(c.outstanding[i:], c.outstanding[i+1:])
		c.outstanding[len(c.outstanding)-1] = nil
		c.outstanding = c.outstanding[:len(c.outstanding)-1]
		e.unwait(c, x)
	}
	x.Response = f
	x.Latency = latency(x.Request, f)
	e.done(x)
	e.passEarly(c, corr)
	for c.outHead < len(c.outstanding) && c.outstanding[c.outHead].Overtaken > maxOvertaken {
		e.done(e.popOutstanding(c)) // never answered
	}
}

// wait adds a request to its connection's outstanding requests and to the
// window, evicting the requests that have waited longest while the window
// is over its bounds.
func (e *engine) wait(c *Conn, x *Exchange) {
	if c.outCorr[x.CorrelationID] > 0 {
		x.ReusedCorrelation = true
	}
	c.outstanding = append(c.outstanding, x)
	c.outCorr[x.CorrelationID]++
	c.gen++
	x.waiting = true
	e.waiting = append(e.waiting, x)
	e.nWaiting++
	e.waitBytes += len(x.Request.Bytes)
	for e.nWaiting > e.opts.MaxWaiting || e.waitBytes > e.opts.MaxWaitingBytes {
		e.evictOldest()
	}
}

// evictOldest gives up on the request that has waited longest. It is the
// oldest outstanding request of its own connection too, since both lists
// are in order of arrival.
func (e *engine) evictOldest() {
	for e.waitHead < len(e.waiting) && !e.waiting[e.waitHead].waiting {
		e.waiting[e.waitHead] = nil
		e.waitHead++
	}
	if e.waitHead == len(e.waiting) {
		return
	}
	x := e.popOutstanding(e.waiting[e.waitHead].Conn)
	x.Evicted = true
	e.res.Evicted++
	e.done(x)
}

// popOutstanding removes and returns the oldest outstanding request of c,
// and takes it out of the window.
func (e *engine) popOutstanding(c *Conn) *Exchange {
	x := c.outstanding[c.outHead]
	c.outstanding[c.outHead] = nil
	c.outHead++
	e.unwait(c, x)
	if c.outHead > 64 && c.outHead*2 > len(c.outstanding) {
		n := copy(c.outstanding, c.outstanding[c.outHead:])
		clear(c.outstanding[n:])
		c.outstanding = c.outstanding[:n]
		c.outHead = 0
	}
	return x
}

// unwait takes x, no longer waiting on c, out of the window's accounting
// and c's correlation ids.
func (e *engine) unwait(c *Conn, x *Exchange) {
	x.waiting = false
	e.nWaiting--
	e.waitBytes -= len(x.Request.Bytes)
	if live := len(e.waiting) - e.waitHead; live > 64 && live > 2*e.nWaiting {
		// mostly answered requests: keep the waiting ones
		w := e.waiting[:0]
		for _, y := range e.waiting[e.waitHead:] {
			if y.waiting {
				w = append(w, y)
			}
		}
		clear(e.waiting[len(w):])
		e.waiting, e.waitHead = w, 0
	}
	if n := c.outCorr[x.CorrelationID]; n <= 1 {
		delete(c.outCorr, x.CorrelationID)
	} else {
		c.outCorr[x.CorrelationID] = n - 1
	}
}
