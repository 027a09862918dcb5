package capture

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sort"
	"time"
	"unsafe"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/textfmt"
)

// half is one direction of a TCP connection: sequence-number reassembly
// feeding a Kafka framer.
type half struct {
	e   *engine
	c   *Conn
	idx int

	// gaps counts this direction's gaps so far (Frame.Gaps).
	gaps int

	// reassembly
	started  bool
	anchored bool // SYN seen: stream offset 0 is a frame boundary
	// clean: followed from the SYN, in step, nothing lost: every boundary
	// so far is a frame's (byItsSize)
	clean    bool
	isn      uint32
	next     uint32  // next expected sequence number
	segs     pending // out-of-order segments, all after next
	buffered int
	fin      bool
	finSeq   uint32 // sequence number of the FIN, once fin
	peerAck  uint32 // highest ACK sent by the other side
	ackValid bool
	// shown: the peer acknowledged bytes the capture has not shown
	// (yet): they may be lost, or come late (captures from several
	// queues or interfaces are not in sending order). While it holds
	// any (holding), the other side's frames are held (Conn.held), so
	// that its answer is paired once the bytes come. Each hole is waited
	// for ackHoldPackets packets from the ACK that showed it, and said
	// lost at that packet: shown holds those ACKs, in order, each with
	// the sequence number it acknowledged bytes up to (the holes that
	// start before it, and after the one before's, are the ones it
	// showed). An ACK is one a packet, and each lives ackHoldPackets
	// packets, so it holds at most ackHoldPackets+1. shownTo is where
	// ackSeen last looked for holes up to.
	shown   []shownAck
	shownTo uint32
	// busy counts the readings of this direction's stream under way
	// (segment, expireHold, flush): a hold that ends meanwhile, as a
	// frame of either side is placed, ends once they are done
	// (expireLater), not inside them, where the bytes it declares lost
	// would be taken from under the framing of the bytes before them.
	busy        int
	expireLater expiry // how much of the hold ended meanwhile

	// framing
	buf    []byte // undelivered stream bytes starting at bufOff
	bufOff int64
	// want is the size of the frame h.buf begins when scan last stopped
	// waiting for its bytes, its header accepted (0 otherwise). A frame
	// of more than bigFrame bytes is gathered in tail past its first
	// bytes (gather).
	want   int
	tail   tail
	off    int64 // stream offset of the next byte to arrive
	marks  []mark
	mcur   int
	synced bool
	// tentative: in sync since a resynchronisation, and not borne out
	// since by a frame that answers a waiting request: the frame being
	// gathered may be made of another frame's bytes (records that read as
	// a header), so a segment that starts as the answer to a waiting
	// request is taken for one (preempt)
	tentative bool
	// recEnd: where a record batch respCandidate met while resynchronising
	// ends (no frame starts inside it)
	recEnd   int64
	skipTo   int64 // bytes before this offset are discarded (rest of a damaged frame)
	skipped  int64 // bytes skipped since sync was lost
	final    bool
	released bool

	tl *tlsHalf // the TLS layer, when the stream is decrypted (tls.go)

	// inside is what answerInside learnt of the frame that would begin
	// at stream offset at: no segment begun before upTo answers a
	// request, as long as the connection's gen is the same.
	inside struct {
		at, upTo int64
		gen      uint32
	}
	insideLooks int // the segments' starts answerInside looked at, for tests that bound the work

	last lastReq // the request framed last (follows)
	// chained is 1 past the stream offset of the request header farChained
	// took last, which follows takes too (0: none)
	chained int64
}

// shownAck is an ACK that showed bytes acknowledged but not captured:
// the holes before seq not shown before were shown at packet pkt, and
// are waited for until packet until.
type shownAck struct {
	seq        uint32
	pkt, until int
}

type seg struct {
	seq     uint32
	data    []byte
	missing int
	t       time.Time
	pkt     int
}

// mark records which packet delivered the stream bytes starting at off.
// ord is where they belong in the conversation's order: pkt, or for bytes
// that came late, after the peer acknowledged them, just before that ACK.
type mark struct {
	off int64
	t   time.Time
	pkt int
	ord int
}

const segOverhead = 64

func (h *half) segment(p *tcpPacket) {
	h.busy++
	defer h.idle()
	seq := p.seq
	if p.flags&tcpSYN != 0 {
		if !h.started || (!h.anchored && h.off == 0 && h.segs.len() == 0 && len(h.buf) == 0) {
			h.started, h.anchored = true, true
			h.isn, h.next = seq, seq+1
			h.synced, h.clean = true, true
			h.c.SYN = true
		}
		seq++
	}
	if !h.started {
		// mid-stream start: the first byte seen is not known to begin a
		// frame, so start by resynchronising (which accepts offset 0 if it
		// looks like a frame).
		h.started = true
		h.next = seq
		h.synced = false
	}
	if len(p.payload) > 0 || p.missing > 0 {
		h.data(seq, p.payload, p.missing)
	}
	if p.flags&tcpFIN != 0 && !h.fin {
		h.fin = true
		h.finSeq = seq + uint32(len(p.payload)+p.missing)
	}
}

// finDone reports whether the direction ended (a FIN) with nothing left
// to wait for: no bytes out of order, and no hole the peer acknowledged
// whose bytes may still come late (holding).
func (h *half) finDone() bool {
	return h.fin && h.segs.len() == 0 && (!h.holding() || int32(h.finSeq-h.next) <= 0)
}

func (h *half) data(seq uint32, payload []byte, missing int) {
	if h.released {
		return
	}
	d := int32(seq - h.next)
	if d <= 0 {
		h.deliverSeg(seg{seq: seq, data: payload, missing: missing, t: h.e.now, pkt: h.e.pkt})
		h.drain()
		return
	}
	if d > 1<<30 {
		if h.e.ahead.add(h, h.off, int64(len(payload))) {
			h.e.note(h.c, "segment %d bytes ahead of the stream ignored", d)
		}
		return
	}
	// out of order: keep a copy
	if h.segs.covered(seq, len(payload)+missing) {
		return // retransmission of a buffered segment
	}
	h.segs.push(seg{seq: seq, data: bytes.Clone(payload), missing: missing, t: h.e.now, pkt: h.e.pkt})
	h.buffered += len(payload) + segOverhead
	for h.buffered > h.e.opts.MaxStreamBuffer && h.segs.len() > 0 {
		h.forceGap("out-of-order buffer full")
	}
}

// deliverSeg passes the part of s at or after next to the framer.
func (h *half) deliverSeg(s seg) {
	over := int64(uint32(h.next - s.seq)) // s.seq <= next
	if over >= int64(len(s.data)+s.missing) {
		return // retransmission
	}
	if over < int64(len(s.data)) {
		d := s.data[over:]
		if len(h.c.held) > 0 {
			// The peer's frames held for the bytes before these came
			// before these: they go first, so that a resynchronisation
			// here knows their correlation ids.
			h.e.releaseHeld(h.c)
		}
		h.next += uint32(len(d))
		h.deliver(d, s.t, s.pkt)
		over = 0
	} else {
		over -= int64(len(s.data))
	}
	if m := int64(s.missing) - over; m > 0 {
		h.c.Gaps++
		h.gaps++
		h.e.res.Gaps++
		h.e.res.LostBytes += m
		h.e.res.SnapBytes += m
		if h.e.snapGaps.add(h, h.off, m) {
			h.e.note(h.c, "%d bytes not captured (snap length) at stream offset %d", m, h.off)
		}
		h.next += uint32(m)
		h.gap(m)
	}
}

func (h *half) drain() {
	for h.segs.len() > 0 && !h.released && int32(h.segs.first().seq-h.next) <= 0 {
		s := h.segs.pop()
		h.buffered -= len(s.data) + segOverhead
		h.deliverSeg(s)
	}
}

// forceGap declares the bytes before the first buffered segment lost.
func (h *half) forceGap(why string) {
	if h.segs.len() == 0 || h.released {
		return
	}
	n := int64(uint32(h.segs.first().seq - h.next))
	h.c.Gaps++
	h.gaps++
	h.e.res.Gaps++
	h.e.res.LostBytes += n
	if h.e.lossGaps.add(h, h.off, n) {
		h.e.note(h.c, "gap: %d bytes missing at stream offset %d (%s)", n, h.off, why)
	}
	h.next = h.segs.first().seq
	h.gap(n)
	h.drain()
}

// ord is the place in the conversation's order of bytes delivered by
// packet pkt: while holding, they are what the peer acknowledged in
// the packet that showed the first hole waited for, so they belong
// before it.
func (h *half) ord(pkt int) int {
	if len(h.shown) > 0 {
		return min(pkt, h.shown[0].pkt-1)
	}
	return pkt
}

// holding reports whether the peer acknowledged bytes the capture has not
// shown, which are waited for (see shown).
func (h *half) holding() bool { return len(h.shown) > 0 }

// ackHole reports whether the peer acknowledged bytes of this direction
// the capture has not delivered.
func (h *half) ackHole() bool {
	if !h.ackValid || h.released || !h.started {
		return false
	}
	d := int32(h.ackEnd() - h.next)
	return d > 0 && d <= 1<<30
}

// ackEnd is the sequence number up to which the peer acknowledged bytes
// (a FIN takes a sequence number, which is no byte).
func (h *half) ackEnd() uint32 {
	end := h.peerAck
	if h.fin && int32(end-h.finSeq) > 0 {
		end = h.finSeq
	}
	return end
}

// ackSeen is called when the peer sent an ACK: a hole it acknowledged
// that no ACK before showed is waited for (see shown); a hold whose
// bytes came ends.
func (h *half) ackSeen() {
	if !h.ackHole() {
		h.endHold()
		return
	}
	end := h.ackEnd()
	from := h.shownTo
	if len(h.shown) == 0 || int32(from-h.next) < 0 {
		from = h.next
	}
	if int32(end-from) <= 0 {
		return
	}
	hole, reach := h.holeIn(from, end)
	h.shownTo = reach
	if !hole {
		return // bytes the capture holds, past a hole an ACK before showed
	}
	x := shownAck{seq: end, pkt: h.e.pkt, until: h.e.pkt + ackHoldPackets}
	h.shown = append(h.shown, x)
	h.e.holds = append(h.e.holds, hold{h, x.until})
}

// holeIn reports whether a byte from from up to end is not captured: from
// is next (not captured, or it would have been delivered), or a byte the
// segments held out of order, in a chain each starting where the one
// before ends, do not reach; and where the chain reached, end or past it
// when there is none, which is where the next look starts (shownTo), so
// each segment is looked at once. Segments that overlap otherwise may
// make it see a hole where there is none, which costs an entry in shown,
// no more.
func (h *half) holeIn(from, end uint32) (bool, uint32) {
	x := from
	for int32(end-x) > 0 {
		if x == h.next {
			return true, end
		}
		n, ok := h.segs.longest[x]
		if !ok {
			return true, end
		}
		x += uint32(n)
	}
	return false, x
}

// ackHoldPackets is how many packets of the capture an acknowledged hole
// waits for its bytes, from the ACK that showed it, before they are
// declared lost.
const ackHoldPackets = 256

// settleHold drops from shown the ACKs whose holes are all filled or
// declared lost (the stream came past them), all of them once nothing
// acknowledged is missing.
func (h *half) settleHold() {
	if !h.ackHole() {
		h.shown = nil
		return
	}
	i := 0
	for i < len(h.shown) && int32(h.shown[i].seq-h.next) <= 0 {
		i++
	}
	if h.shown = h.shown[i:]; len(h.shown) == 0 {
		h.shown = nil
	}
}

// endHold settles a hold some of whose bytes came, and hands the frames
// held for them on.
func (h *half) endHold() {
	was := len(h.shown)
	h.settleHold()
	if len(h.shown) < was {
		h.e.releaseHeld(h.c)
	}
}

// expiry is how much of a hold expireHold ends.
type expiry uint8

const (
	expireNone expiry = iota
	// expireDue: the waits that ended by this packet.
	expireDue
	// expireOver: those, and oldest first the waits of the holes the
	// connection's oldest held frames wait for, while it holds more of
	// them than maxHeld, or more of their bytes than
	// Options.MaxStreamBuffer: so many frames wait no longer, though
	// the younger holes may still fill.
	expireOver
	// expireAll: every wait (the connection ends).
	expireAll
)

// expireHold ends the waits m says: the holes they were for whose
// bytes did not come are declared lost, each at the packet whose ACK
// showed it, as if declared there at once; then the frames held for
// them are handed on.
func (h *half) expireHold(m expiry) {
	if !h.holding() {
		return
	}
	if h.busy > 0 {
		h.expireLater = max(h.expireLater, m)
		return
	}
	h.busy++
	defer h.idle()
	// The packet being read stays e.pkt (ReadFunc's fn, called as held
	// frames are placed, runs at it); the notes of a loss are said where
	// its ACK showed it (sayAt), as if it was declared there at once.
	pkt, at := h.e.pkt, h.e.sayAt
	c := h.c
	for len(h.shown) > 0 && !h.released {
		why, ends := h.ends(m, pkt)
		if !ends {
			break
		}
		x := h.shown[0]
		h.shown = h.shown[1:]
		h.e.sayAt = x.pkt
		h.checkAckGap(x.seq, why)
		if len(h.shown) == 0 && h.ackHole() {
			// acknowledged by ACKs that showed no hole of their own
			// (ackSeen), now that the holes before are declared
			h.checkAckGap(h.ackEnd(), why)
		}
		if m == expireOver {
			// the frames the hole held go on, so that what is
			// held is counted again for the next
			h.e.sayAt = at
			h.e.releaseHeld(c)
		}
	}
	h.e.sayAt = at
	h.settleHold()
	h.e.releaseHeld(h.c)
	if c := h.c; c.Closed && c.half[0].finDone() && c.half[1].finDone() {
		h.e.finishConn(c) // it waited for these bytes to end
	}
}

// ends reports whether the wait for the oldest hole shown ends, as m
// says, at packet pkt, and why the hole is then declared lost.
func (h *half) ends(m expiry, pkt int) (why string, ok bool) {
	why = "acknowledged by peer but not captured"
	c, limit := h.c, h.e.opts.MaxStreamBuffer
	switch {
	case m == expireAll, h.shown[0].until < pkt:
		return why, true
	case m != expireOver || len(c.held) == 0 || c.held[0].f.dir == h.idx:
		// (the oldest held frame waits for the other stream)
		return "", false
	case len(c.held) > maxHeld:
		return why + textfmt.Sprintf(", and waited for no longer: %d frames of the other side were held, past %d", len(c.held), maxHeld), true
	case c.heldBytes > limit:
		return why + textfmt.Sprintf(", and waited for no longer: %d bytes of the other side's frames were held, past %d", c.heldBytes, limit), true
	}
	return "", false
}

// idle ends a reading of the stream (busy), and then a hold that ended
// meanwhile, or the connection.
func (h *half) idle() {
	h.busy--
	if h.busy > 0 {
		return
	}
	if m := h.expireLater; m != expireNone {
		h.expireLater = expireNone
		h.expireHold(m)
	}
	if c := h.c; c.finishLater && c.half[0].busy == 0 && c.half[1].busy == 0 {
		c.finishLater = false
		h.e.finishConn(c)
	}
}

// checkAckGap: the peer acknowledged data beyond a hole that starts
// before upTo, so the hole's bytes were sent but are not in the capture.
// The hole may be at the tail, with no later segment captured (the last
// segments of a request lost): the ACK is then the only sign of it, and
// the frame they belonged to is closed as lost now, before the peer's
// answer is framed, rather than left waiting for bytes that will not
// come.
func (h *half) checkAckGap(upTo uint32, why string) {
	if !h.ackValid || h.released || !h.started {
		return
	}
	for h.segs.len() > 0 && !h.released && int32(h.next-upTo) < 0 && int32(h.peerAck-h.segs.first().seq) >= 0 {
		h.forceGap(why)
	}
	end := h.ackEnd()
	d := int32(end - h.next)
	if h.released || int32(h.next-upTo) >= 0 || d <= 0 || d > 1<<30 {
		return
	}
	h.c.Gaps++
	h.gaps++
	h.e.res.Gaps++
	h.e.res.LostBytes += int64(d)
	if h.e.lossGaps.add(h, h.off, int64(d)) {
		h.e.note(h.c, "gap: %d bytes missing at stream offset %d (%s)", d, h.off, why)
	}
	h.next = end
	h.gap(int64(d))
	h.drain()
}

func (h *half) flush() {
	if h.released {
		return
	}
	h.busy++
	defer h.idle()
	if x := h.tl; x != nil && x.s.wait && !h.tlsKeys(true) {
		return // dropped: the secrets never came
	}
	switch x := h.tl; {
	case x == nil || x.dead:
	case x.hunt > 0:
		h.tlsFailLost(x.hunt, "no record found in the %d bytes after %d lost", len(x.rec), x.hunt)
	case len(x.rec) > 0:
		h.e.note(h.c, "TLS: %s ends inside a record (%d bytes of it captured)", h.stream(), len(x.rec))
	}
	if h.released {
		return
	}
	for h.segs.len() > 0 && !h.released {
		h.forceGap("never filled")
	}
	if h.released {
		return
	}
	if !h.synced && len(h.buf) > 0 {
		h.final = true
		h.process()
	}
	if h.released || len(h.buf) == 0 {
		h.endSkip()
		return
	}
	if h.synced {
		if len(h.buf) >= 4 {
			size := binary.BigEndian.Uint32(h.buf)
			h.e.note(h.c, "incomplete frame at stream offset %d: %d of %d bytes captured", h.bufOff, h.held(), int64(size)+4)
		} else {
			h.e.note(h.c, "incomplete frame header at stream offset %d: %d bytes captured", h.bufOff, len(h.buf))
		}
		h.skip(int64(h.held()))
	} else {
		h.skip(int64(len(h.buf)))
		h.skipped += int64(len(h.buf))
		h.endSkip()
	}
	h.clearBuf()
	h.buf = nil
}

func (h *half) release() {
	h.released = true
	h.shown = nil
	h.buffered = 0
	h.buf, h.marks = nil, nil
	h.tail.reset(h.e)
	h.segs.reset()
}

// ---- framing ----

// skip counts discarded stream bytes.
func (h *half) skip(n int64) {
	h.c.SkippedBytes += n
	h.e.res.SkippedBytes += n
}

// endSkip reports bytes skipped while out of sync.
func (h *half) endSkip() { h.resynced(h.bufOff) }

// resynced says the bytes skipped while out of sync, the stream in sync
// again (or ended) at offset at: the first maxFolded times in a note
// each, the rest folded (engine.resynced).
func (h *half) resynced(at int64) {
	if h.skipped <= 0 {
		return
	}
	if h.e.resynced.add(h, at, h.skipped) {
		h.e.note(h.c, "skipped %d bytes of %s to resynchronise at offset %d", h.skipped, h.stream(), at)
	}
	h.skipped = 0
}

// name is who sends the half's bytes: "the client", "the broker", or
// while the sides are not known yet, its endpoint ("127.0.0.1:39092").
func (h *half) name() string {
	if !h.c.decided {
		return h.c.ep[h.idx].String()
	}
	if h.idx == h.c.clientIdx {
		return "the client"
	}
	return "the broker"
}

// stream names the half's stream in notes, one way wherever it is said:
// "the client stream", "the broker stream", or while the sides are not
// known yet "the stream from 127.0.0.1:39092".
func (h *half) stream() string {
	if !h.c.decided {
		return "the stream from " + h.c.ep[h.idx].String()
	}
	if h.idx == h.c.clientIdx {
		return "the client stream"
	}
	return "the broker stream"
}

func (h *half) deliver(data []byte, t time.Time, pkt int) {
	if h.released {
		return
	}
	if h.tl != nil {
		h.tlsData(data, t, pkt)
		return
	}
	if h.off == 0 && len(h.buf) == 0 && h.skipTo == 0 && h.tls(data, t, pkt) {
		return
	}
	h.frameData(data, t, pkt)
}

// frameData hands stream bytes (a TLS connection's decrypted ones) to the
// framer.
func (h *half) frameData(data []byte, t time.Time, pkt int) {
	if h.skipTo > h.off {
		n := h.skipTo - h.off
		if n >= int64(len(data)) {
			h.off += int64(len(data))
			h.skip(int64(len(data)))
			return
		}
		h.skip(n)
		data = data[n:]
		h.off += n
	}
	if len(h.buf) > 0 && h.tentative && h.synced {
		h.preempt(data, pkt)
	}
	if len(h.buf) == 0 {
		h.bufOff = h.off
		h.marks = h.marks[:0]
		h.mcur = 0
		if cap(h.buf) > 1<<20 {
			h.buf = nil
		}
		h.marks = append(h.marks, mark{h.off, t, pkt, h.ord(pkt)})
		h.off += int64(len(data))
		// Frames wholly inside the segment are cut from it directly; only
		// what is left is kept.
		p := h.scan(data)
		if !h.released {
			h.buf = append(h.buf, data[p:]...)
			h.consumed(p)
		}
		return
	}
	h.marks = append(h.marks, mark{h.off, t, pkt, h.ord(pkt)})
	if h.want > bigFrame {
		if h.synced && len(h.buf) >= 14 && h.headerOK(h.buf, h.bufOff) == vYes {
			h.gather(data)
			return
		}
		// The header is judged otherwise now (the connection's client
		// is known): scan reads the bytes whole, as they came.
		h.buf = h.tail.appendTo(h.buf)
		h.tail.reset(h.e)
	}
	h.buf = append(h.buf, data...)
	h.off += int64(len(data))
	h.process()
}

// bigFrame is the size past which a frame is gathered in chunks (tail):
// past any raw SASL token's, which scan judges by more than its header.
const bigFrame = 4 + maxSASLToken

// gather takes the next bytes of the large frame h.buf begins, whose
// header scan accepted, as scan would: while the frame is incomplete
// scan only reads its header (headerOK, judged again by the caller: a
// frame of this size is no SASL token), so the bytes go to h.tail, never
// copied again; the bytes that complete it are copied with the rest into
// a buffer of the frame's size, handed on as the frame's own, and what
// follows them is scanned as scan would have gone on.
func (h *half) gather(data []byte) {
	need := h.want - len(h.buf) - h.tail.n
	h.off += int64(len(data))
	if len(data) < need {
		h.tail.write(h.e, data)
		return
	}
	b := append(h.own(h.want), h.buf...)
	b = h.tail.appendTo(b)
	b = append(b, data[:need]...)
	h.clearBuf()
	h.emitOwn(b, h.bufOff, 0, false)
	if h.released {
		return
	}
	h.consumed(len(b))
	rest := data[need:]
	p := h.scan(rest)
	if !h.released {
		h.buf = append(h.buf, rest[p:]...)
		h.consumed(p)
	}
}

// mem is what h holds of what Options.MaxBuffered bounds: the buffer
// being framed (its capacity), the chunks of a frame gathered in h.tail,
// and the out-of-order segments with their bookkeeping.
func (h *half) mem() int {
	return cap(h.buf) + h.tail.size() + h.buffered + h.segs.len()*segSize
}

// segSize is what a segment out of order costs beside its bytes and
// segOverhead: its place in the heap (pending.h).
const segSize = int(unsafe.Sizeof(seg{}))

// cut gives way to Options.MaxBuffered (engine.bound): the frame being
// gathered is skipped, not held: its bytes so far are dropped, and the
// rest is streamed past as it comes (skipTo), the stream in step after
// it. Bytes held while resynchronising are skipped the same way.
func (h *half) cut() {
	n := h.held()
	if h.released || h.synced && len(h.buf) < 4 {
		return
	}
	if n == 0 {
		h.buf = nil
		return
	}
	e := h.e
	if e.cuts == 0 {
		e.cutNote = Note{Packet: e.notePkt(), Conn: h.c, Message: textfmt.Sprintf("stream offset %d of %s", h.bufOff, h.stream())}
	}
	e.cuts++
	e.cutBytes += int64(n)
	h.c.Gaps++
	h.gaps++
	e.res.Gaps++
	h.clean = false
	h.skip(int64(n))
	if h.synced {
		h.skipTo = h.bufOff + 4 + int64(binary.BigEndian.Uint32(h.buf))
	} else {
		h.skipped += int64(n)
	}
	h.clearBuf()
	h.buf = nil
	h.marks = h.marks[:0]
	h.mcur = 0
	h.bufOff = h.off
}

// held is how many stream bytes the framer holds (h.buf and h.tail).
func (h *half) held() int { return len(h.buf) + h.tail.n }

// clearBuf empties the buffer being framed, its tail too.
func (h *half) clearBuf() {
	h.buf = h.buf[:0]
	h.tail.reset(h.e)
	h.want = 0
}

// whole is the bytes the framer holds, in one slice: h.buf, or for a
// frame gathered in h.tail a copy of both into a buffer of its own.
func (h *half) whole() (b []byte, own bool) {
	if h.tail.n == 0 {
		return h.buf, false
	}
	b = append(h.own(h.held()), h.buf...)
	return h.tail.appendTo(b), true
}

// tail holds a large frame's bytes past h.buf while it is gathered, in
// chunks: appending never copies what is there, so a frame costs its
// size once while it is gathered, and is copied once, into its own
// buffer, when it is whole. (h.buf grown by append held up to 1.25 times
// the bytes, and left each smaller copy to the collector: a 98 MB frame
// that never ended took 400 MB.)
type tail struct {
	chunks [][]byte
	n      int
}

const tailChunk = 256 << 10

func (t *tail) write(e *engine, b []byte) {
	for len(b) > 0 {
		k := len(t.chunks) - 1
		if k < 0 || len(t.chunks[k]) == cap(t.chunks[k]) {
			if k < 0 {
				e.tails++
			}
			t.chunks = append(t.chunks, e.chunk())
			k++
		}
		c := t.chunks[k]
		m := min(len(b), cap(c)-len(c))
		t.chunks[k] = append(c, b[:m]...)
		t.n += m
		b = b[m:]
	}
}

func (t *tail) appendTo(b []byte) []byte {
	for _, c := range t.chunks {
		b = append(b, c...)
	}
	return b
}

// size is the memory the chunks take.
func (t *tail) size() int { return len(t.chunks) * tailChunk }

// reset empties t, its chunks kept for the next tail while others are
// gathered (engine.spare, trimmed as the engine counts what is held:
// engine.settle).
func (t *tail) reset(e *engine) {
	if len(t.chunks) == 0 {
		return
	}
	if e.tails--; e.tails == 0 {
		e.spare = nil // no frame is gathered in chunks: none kept
	} else {
		for _, c := range t.chunks {
			e.spare = append(e.spare, c[:0])
		}
	}
	t.chunks, t.n = nil, 0
}

// tlsRecord reports whether b starts with a TLS record header (content
// type 20-23, version 3.x, a length a record may have) and returns the
// record's length with its header.
func tlsRecord(b []byte) (int, bool) {
	if len(b) < 5 || b[0] < 20 || b[0] > 23 || b[1] != 3 || b[2] > 4 {
		return 0, false
	}
	n := int(binary.BigEndian.Uint16(b[3:]))
	return 5 + n, n > 0 && n <= 1<<14+2048
}

// startsClientHello reports whether b starts with a record holding a
// ClientHello whose length agrees with the record's.
func startsClientHello(b []byte) bool {
	if len(b) < 9 || b[0] != 22 || b[5] != 1 {
		return false
	}
	n, m := int(binary.BigEndian.Uint16(b[3:])), int(b[6])<<16|int(b[7])<<8|int(b[8])
	return m+4 == n || m+4 > n && n == 1<<14
}

// tls recognises a stream that starts with TLS, given its first bytes:
// at a known start (the SYN seen), a handshake record; in a stream seen
// from its middle, two records back to back, or a ClientHello. Such a connection is
// decrypted when a key log is given and its ClientHello is there
// (tls.go); else it is said once, not framed, and dropped as non-Kafka.
// (No Kafka frame starts so: a size of 0x14000000 or more is past
// MaxFrame's default.)
func (h *half) tls(b []byte, t time.Time, pkt int) bool {
	if h.c.tls != nil {
		return h.tlsStart(b, t, pkt)
	}
	n, ok := tlsRecord(b)
	if !ok || uint64(binary.BigEndian.Uint32(b)) < uint64(h.e.opts.MaxFrame) {
		return false
	}
	if h.anchored {
		if b[0] != 22 {
			return false
		}
	} else if _, ok := tlsRecord(b[min(n, len(b)):]); !ok && !startsClientHello(b) {
		return false
	}
	c := h.c
	if !c.decided && b[0] == 22 && len(b) > 5 {
		// A ClientHello (handshake type 1) names the client.
		if b[5] == 1 {
			c.clientIdx = h.idx
		} else {
			c.clientIdx = 1 - h.idx
		}
		c.setRole()
	}
	switch {
	case h.tlsStart(b, t, pkt):
	case h.e.decrypts():
		h.tlsDrop("TLS (record header % x), seen from its middle: its ClientHello is not in the capture, so no secret is known for it: encrypted, not decoded", b[:3])
	default:
		h.tlsDrop("TLS (record header % x): encrypted, not decoded", b[:3])
	}
	return true
}

// gap says that n stream bytes are missing: to the TLS layer, when it
// reads the stream, else to the framer.
func (h *half) gap(n int64) {
	if h.tl != nil {
		h.tlsLost(n)
		return
	}
	h.frameGap(n)
}

// frameGap tells the framer that n stream bytes are missing.
func (h *half) frameGap(n int64) {
	h.clean = false
	start, end := h.off, h.off+n
	h.off = end
	if h.skipTo > start {
		if h.skipTo >= end {
			h.skip(n)
			return
		}
		h.loseSync(end)
		return
	}
	if h.synced && len(h.buf) >= 4 {
		fend := h.bufOff + 4 + int64(binary.BigEndian.Uint32(h.buf))
		kept := h.damaged(fend)
		if h.released {
			return
		}
		if fend >= end {
			// The gap lies within the current frame: drop it (unless
			// kept) and continue in sync after it.
			if !kept && h.e.damagedDropped.add(h, h.bufOff, fend-h.bufOff) {
				h.e.note(h.c, "frame at stream offset %d (%d bytes) damaged by a gap, dropped", h.bufOff, fend-h.bufOff)
			}
			h.skip(int64(h.held()) + n)
			h.clearBuf()
			h.marks = h.marks[:0]
			h.bufOff = end
			h.skipTo = fend
			return
		}
	}
	h.loseSync(end)
}

// damaged hands on the frame h.buf begins, which ends at stream offset
// fend, a gap having begun inside it (Options.KeepDamaged): what was
// captured before the gap (Frame.Missing says how much was not), when it
// holds the frame's header, so that a request is paired with its answer,
// which then decodes as the API and version the request names, and the
// request is shown, damaged, rather than lost. It reports whether it
// did; the caller drops the frame otherwise.
func (h *half) damaged(fend int64) bool {
	have := int64(h.held())
	missing := fend - h.bufOff - have
	need := 12 // a request's API key, version and correlation id
	if h.role() == roleBroker {
		need = 8 // a response's correlation id
	}
	if !h.e.opts.KeepDamaged || have < int64(need) || h.role() == roleClient && !looksLikeRequest(h.buf, h.e.opts.MaxFrame) && h.follows(h.buf, h.bufOff) != vYes {
		// (a request the same client's one before vouches for, follows,
		// is one: its client id all there)
		return false
	}
	if h.e.damagedKept.add(h, h.bufOff, missing) {
		h.e.note(h.c, "frame at stream offset %d (%d bytes) damaged by a gap: only its first %d bytes are kept, %d are missing", h.bufOff, fend-h.bufOff, have, missing)
	}
	if b, own := h.whole(); own {
		h.emitOwn(b, h.bufOff, missing, false)
	} else {
		h.emit(b, h.bufOff, missing, false)
	}
	h.clearBuf()
	return true
}

func (h *half) loseSync(at int64) {
	h.clean = false
	if h.synced && h.e.lostSync.add(h, at, 0) {
		h.e.note(h.c, "lost frame sync in %s at offset %d", h.stream(), at)
	}
	h.skip(int64(h.held()))
	h.clearBuf()
	h.marks = h.marks[:0]
	h.mcur = 0
	h.bufOff = at
	h.synced = false
}

type verdict int

const (
	vNo verdict = iota
	vYes
	vMore
)

const (
	roleUnknown = iota
	roleClient
	roleBroker
)

func (h *half) role() int {
	if !h.c.decided {
		return roleUnknown
	}
	if h.idx == h.c.clientIdx {
		return roleClient
	}
	return roleBroker
}

// candidate decides whether a frame plausibly starts at b[0] while
// resynchronising. Before the broker side of a connection is known, both
// the request and the response tests are tried.
func (h *half) candidate(b []byte, off int64) verdict {
	switch h.role() {
	case roleClient:
		return h.reqCandidate(b, off)
	case roleBroker:
		return h.respCandidate(b, off)
	}
	v := h.reqCandidate(b, off)
	if v == vYes {
		return v
	}
	if w := h.respCandidate(b, off); w != vNo {
		return w
	}
	return v
}

func (h *half) reqCandidate(b []byte, off int64) verdict {
	max := h.e.opts.MaxFrame
	size, v := candidateSize(b, 8, max)
	if v != vYes {
		return v
	}
	need := 12
	if size >= 10 {
		need = 14
	}
	if len(b) < need {
		// reject early on what we have
		if !plausibleAPI(b) {
			return vNo
		}
		return vMore
	}
	if size >= 10 && isFarVersion(b) && !farVersion(b, int16(binary.BigEndian.Uint16(b[4:])), int16(binary.BigEndian.Uint16(b[6:])), false) {
		return h.farChained(b, off)
	}
	if !looksLikeRequest(b, max) {
		return vNo
	}
	// Header fields of all-zero-ish data look like requests too often.
	// A client id of 3+ printable characters is convincing; otherwise, for
	// frames up to 1 MiB, also require the next frame's header to be
	// plausible (or the stream to end right after the frame). A larger
	// frame is taken on its client id alone: its end is too far to wait
	// for, and a size prefix of a few MiB is just what record data (04 76
	// 31 00, from a header value "v1") reads as.
	// A request of 8 or 9 bytes (header v0) has no client id: b[12:] may
	// already be the next frame, or nothing.
	// A version past the margin for a newer Kafka (farVersion) needs
	// both: its text client id (looksLikeRequest asked for it) and the
	// next frame's header, or the stream's end.
	if textClientID(b, 3) && !isFarVersion(b) {
		return vYes
	}
	if size > 1<<20 {
		return vNo
	}
	end := 4 + int(size)
	if len(b) < end+8 {
		if h.final && len(b) >= end {
			if len(b) == end || reqPrefixOK(b[end:], max) {
				return vYes
			}
			return vNo
		}
		return vMore
	}
	switch nextReq(b[end:], max) {
	case vYes:
		return vYes
	case vMore:
		if !h.final {
			return vMore
		}
	}
	return vNo
}

// nextReq is reqPrefixOK for the next frame's header, b (8 bytes or
// more), vouching for the frame before it, while more bytes may come:
// vMore while a version past the margin for a newer Kafka is plausible
// as far as b goes but its client id is not all there.
func nextReq(b []byte, max int) verdict {
	if reqPrefixOK(b, max) {
		return vYes
	}
	if _, ok := frameSize(b, 8, max); ok && isFarVersion(b) && plausibleAPI(b) {
		return vMore // its client id to come (at most 32 KiB)
	}
	return vNo
}

// frameSize reads the size prefix b starts with (b holds 4 bytes or more)
// and whether a frame can declare it: at least least (8 for a request,
// whose header has 8 bytes; 4 for a response) and under max.
func frameSize(b []byte, least uint32, max int) (uint32, bool) {
	size := binary.BigEndian.Uint32(b)
	return size, size >= least && uint64(size) < uint64(max)
}

// candidateSize is frameSize for a frame b may start: vMore while b holds
// less than a size prefix, vNo for a size no frame declares, else vYes.
func candidateSize(b []byte, least uint32, max int) (uint32, verdict) {
	if len(b) < 4 {
		return 0, vMore
	}
	if size, ok := frameSize(b, least, max); ok {
		return size, vYes
	}
	return 0, vNo
}

// reqPrefixOK checks the size, apiKey and apiVersion of a request header
// (as far as b goes), the next frame's, which vouches for the frame
// before it: a version past the margin for a newer Kafka vouches only
// with its evidence all there (farVersion).
func reqPrefixOK(b []byte, max int) bool {
	if len(b) < 4 {
		return true
	}
	if _, ok := frameSize(b, 8, max); !ok {
		return false
	}
	if len(b) >= 8 && isFarVersion(b) {
		return farVersion(b, int16(binary.BigEndian.Uint16(b[4:])), int16(binary.BigEndian.Uint16(b[6:])), true)
	}
	return plausibleAPI(b)
}

// respCandidate is candidate's response test for a frame that would start
// at stream offset off.
func (h *half) respCandidate(b []byte, off int64) verdict {
	max := h.e.opts.MaxFrame
	size, v := candidateSize(b, 4, max)
	if v != vYes {
		return v
	}
	if len(b) < 8 {
		return vMore
	}
	corr := int32(binary.BigEndian.Uint32(b[4:]))
	if corr < 0 {
		return vNo
	}
	if h.c.decided && len(h.c.outCorr) > 0 {
		// The correlation id of a waiting request is convincing only
		// where the bytes came after that request began: bytes sent
		// before it (the tail of an older response, waiting here for
		// more to judge them by) cannot be its answer.
		pkt := h.pktAt(off)
		if h.c.outCorr[corr] > 0 && h.c.answerable(corr, pkt) {
			return vYes
		}
		if pkt > h.c.outstanding[h.c.outHead].Request.firstPkt {
			return vNo
		}
		// Bytes from before every waiting request: judged as if none
		// waited.
	}
	if !h.c.decided && h.answers(b, h.pktAt(off)) {
		// the correlation id of a request-like frame of the other side,
		// sent before these bytes (decide takes it for an echo too)
		return vYes
	}
	// No outstanding requests to check against: require the frame to be
	// followed by another plausible response header: a size (of 1 MiB at
	// most, as for this one: a larger one is what record data reads as
	// too often) and a correlation id that is not negative.
	if size > 1<<20 {
		return vNo
	}
	end := 4 + int(size)
	if len(b) < end+8 {
		if h.final && len(b) == end {
			return vYes
		}
		if !h.final || len(b) < end+4 {
			return vMore
		}
	}
	if next, ok := frameSize(b[end:], 4, max); !ok || next > 1<<20 {
		return vNo
	}
	if len(b) >= end+8 && int32(binary.BigEndian.Uint32(b[end+4:])) < 0 {
		return vNo
	}
	if records(b[:end]) {
		h.recEnd = off + int64(end)
		return vNo
	}
	return vYes
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// records reports whether b, read as a frame (a size prefix and what it
// counts), is a record batch or a legacy message met at its length field,
// by its own CRC. In a stream picked up in the middle of a Fetch
// response, the last batch's length reads as a response's size prefix
// that ends just where the response does, its partition leader epoch as
// a correlation id: a response's header never carries a CRC of the bytes
// after it. No frame starts inside the batch either: resynchronising goes
// on after it (half.recEnd), so each byte is summed once.
func records(b []byte) bool {
	if len(b) < 13 {
		return false
	}
	switch b[8] { // the magic byte
	case 2: // batchLength, partitionLeaderEpoch, magic, crc (CRC-32C of the rest)
		return crc32.Checksum(b[13:], castagnoli) == binary.BigEndian.Uint32(b[9:])
	case 0, 1: // messageSize, crc (of magic on), magic
		return crc32.ChecksumIEEE(b[8:]) == binary.BigEndian.Uint32(b[4:])
	}
	return false
}

// answers reports whether b, the start of the bytes delivered by packet
// pkt (in the conversation's order), reads as the answer to a request of
// the other side waiting for it, sent before them: a size prefix and the
// request's correlation id. Before the broker side is known, the requests
// are the other side's frames waiting to decide it.
func (h *half) answers(b []byte, pkt int) bool {
	if len(b) < 8 {
		return false
	}
	if _, ok := frameSize(b, 4, h.e.opts.MaxFrame); !ok {
		return false
	}
	corr := int32(binary.BigEndian.Uint32(b[4:]))
	c := h.c
	if c.decided {
		return h.role() == roleBroker && c.outCorr[corr] > 0 && c.answerable(corr, pkt)
	}
	for _, f := range c.pending {
		if f.dir != h.idx && f.firstPkt < pkt && isRequest(f, h.e.opts.MaxFrame) && int32(binary.BigEndian.Uint32(f.Bytes[8:])) == corr {
			return true
		}
	}
	return false
}

// preempt is called, while the frame h.buf begins is gathered in a
// tentative sync, with the next bytes delivered, by packet pkt: when
// they read as the answer to a waiting request and the frame does not
// (nothing bore out the resynchronisation that began it, or its
// successors), they are taken for that answer and the frame is dropped:
// Kafka answers a request after the bytes before it were sent, and a
// frame whose size claims the answer's bytes was read in bytes that are
// no frame's start (the tail of an older response, from before the
// capture began). So a response is not swallowed by a frame begun in
// bytes from before its request.
func (h *half) preempt(data []byte, pkt int) {
	if h.role() == roleClient || !h.answers(data, h.ord(pkt)) {
		return
	}
	if h.answers(h.buf, h.pktAt(h.bufOff)) {
		h.tentative = false // the frame is an answer itself
		return
	}
	size := int64(-1)
	if len(h.buf) >= 4 {
		size = int64(binary.BigEndian.Uint32(h.buf)) + 4
	}
	h.e.note(h.c, "frame at stream offset %d (%d of %d bytes), found while resynchronising, dropped: the bytes at offset %d answer correlation id %d",
		h.bufOff, h.held(), size, h.off, int32(binary.BigEndian.Uint32(data[4:])))
	h.skip(int64(h.held()))
	h.clearBuf()
	h.marks = h.marks[:0]
	h.mcur = 0
	h.bufOff = h.off
	h.tentative = false
}

// answerInside reports whether a frame that b, at stream offset at,
// would begin, waiting for more bytes to be judged, claims bytes that a
// segment begins as the answer to a waiting request (and is no answer
// itself): it is then no frame, as in preempt, and the resynchronisation
// need not wait for its end to go on to that answer.
func (h *half) answerInside(b []byte, at int64) bool {
	if len(b) < 4 || h.role() == roleClient {
		return false
	}
	// A segment begun in the frame is looked at once its 8 bytes (what
	// answers reads) are there, and once only, until gen changes.
	end := min(at+4+int64(binary.BigEndian.Uint32(b)), at+int64(len(b))-7)
	from := at + 1
	if in := &h.inside; in.at == at && in.gen == h.c.gen {
		from = max(from, in.upTo)
	}
	i := sort.Search(len(h.marks), func(i int) bool { return h.marks[i].off >= from })
	for ; i < len(h.marks) && h.marks[i].off < end; i++ {
		m := h.marks[i]
		h.insideLooks++
		if h.answers(b[m.off-at:], m.ord) {
			return !h.answers(b, h.pktAt(at))
		}
	}
	h.inside.at, h.inside.gen, h.inside.upTo = at, h.c.gen, max(from, end)
	return false
}

// pktAt is the index of the packet that delivered the byte at stream
// offset off of the buffer being framed (0 when unknown).
func (h *half) pktAt(off int64) int {
	i := sort.Search(len(h.marks), func(i int) bool { return h.marks[i].off > off })
	if i == 0 {
		return 0
	}
	return h.marks[i-1].ord
}

// byItsSize judges a frame whose header is implausible as a request's
// (an API key or version past what a newer Kafka could add, a negative
// correlation id, a client id longer than the frame) in a client stream
// followed from its SYN with nothing lost, every boundary so far a
// frame's: it is a frame all the same when its size prefix is borne
// out, the frame ending where the bytes so far end or where a plausible
// request header begins. A client that sends one breaks the protocol,
// and kwire check should see the frame (frame.api), not lose it to
// resynchronising.
func (h *half) byItsSize(b []byte) verdict {
	size, ok := frameSize(b, 8, h.e.opts.MaxFrame)
	if !ok || h.role() != roleClient {
		return vNo
	}
	end := 4 + int(size)
	switch {
	case len(b) < end && h.final:
		return vNo
	case len(b) < end:
		return vMore
	case len(b) == end, reqPrefixOK(b[end:], h.e.opts.MaxFrame):
		return vYes
	}
	return vNo
}

// headerOK checks the header of the next frame, at stream offset at,
// while in sync.
func (h *half) headerOK(b []byte, at int64) verdict {
	size, ok := frameSize(b, 4, h.e.opts.MaxFrame)
	if !ok {
		return vNo
	}
	if h.role() == roleClient {
		if size < 8 {
			return vNo
		}
		if len(b) < 12 {
			return vMore
		}
		if !looksLikeRequest(b, h.e.opts.MaxFrame) {
			return h.follows(b, at)
		}
	}
	return vYes
}

// follows judges, in sync, a request header at stream offset at whose
// version is past the margin for a newer Kafka and whose client id does
// not vouch for it (null, short or binary: farVersion): the request
// framed just before it, ending at at, vouches for it instead when it
// is the same client's next (sameClient's test, against h.last).
func (h *half) follows(b []byte, at int64) verdict {
	if len(b) < 14 || !isFarVersion(b) {
		return vNo
	}
	size := int(binary.BigEndian.Uint32(b))
	corr := int32(binary.BigEndian.Uint32(b[8:]))
	cl := int(int16(binary.BigEndian.Uint16(b[12:])))
	if at+1 == h.chained {
		return vYes // farChained found it so, resynchronising
	}
	l := &h.last
	if !l.ok || l.end != at || cl == 0 || cl != l.idLen || cl > size-10 || !nextCorr(l.corr, corr) {
		return vNo
	}
	if len(b) < 14+max(cl, 0) {
		return vMore // the client id, within the frame, to come
	}
	if clientIDSum(b, cl) != l.idSum {
		return vNo
	}
	return vYes
}

// lastReq is what follows needs of the request a half framed last: where
// it ended, its correlation id, its client id's length and checksum.
type lastReq struct {
	ok    bool
	end   int64
	corr  int32
	idLen int
	idSum uint32
	// f is the frame, while the connection's broker side is not known
	// (emitOwn marks it Frame.chained when the next vouches for it)
	f *Frame
}

// clientIDSum is the checksum of the client id of cl bytes (-1 for
// null) of the request header at b, which holds it.
func clientIDSum(b []byte, cl int) uint32 {
	return crc32.ChecksumIEEE(b[14 : 14+max(cl, 0)])
}

// maxCorrStep is how far past a request's correlation id the next
// request of the same client on its connection may number itself: a
// client numbers its requests in order, one at a time, some (Java's)
// over all its connections at once.
const maxCorrStep = 1 << 12

// nextCorr reports whether next can be the correlation id of the request
// a client sent after one numbered corr.
func nextCorr(corr, next int32) bool {
	return corr >= 0 && next > corr && int64(next)-int64(corr) <= maxCorrStep
}

// sameClient reports whether n, the header of the frame after the request
// header a, at least 14 bytes and a's client id long, is the header of the
// same client's next request: a plausible size and API (at any version
// past the margin too), a correlation id past a's (nextCorr) and the
// same client id, within its frame. A client sends the same client id
// in each request, and numbers them in order, which random bytes, or a
// broker's responses, rarely do.
func sameClient(a, n []byte, max int) bool {
	size, ok := frameSize(n, 10, max)
	if !ok {
		return false
	}
	key, ver := int16(binary.BigEndian.Uint16(n[4:])), int16(binary.BigEndian.Uint16(n[6:]))
	if !plausibleKey(key) || !plausibleVersion(key, ver) && !isFarVersion(n) {
		return false
	}
	if !nextCorr(int32(binary.BigEndian.Uint32(a[8:])), int32(binary.BigEndian.Uint32(n[8:]))) {
		return false
	}
	cl := int(int16(binary.BigEndian.Uint16(a[12:])))
	if int(int16(binary.BigEndian.Uint16(n[12:]))) != cl || cl > int(size)-10 {
		return false
	}
	return cl <= 0 || bytes.Equal(a[14:14+cl], n[14:14+cl])
}

// farChained is reqCandidate's test of a request header at a version past
// the margin for a newer Kafka whose client id does not vouch for it
// (null, short or binary: farVersion): the next frame's header vouches for
// it instead when it is the same client's next request (sameClient), all
// there; the frame, of 1 MiB at most, must end before it.
func (h *half) farChained(b []byte, off int64) verdict {
	limit := h.e.opts.MaxFrame
	if !chainable(b) {
		return vNo
	}
	size := binary.BigEndian.Uint32(b)
	cl := int(int16(binary.BigEndian.Uint16(b[12:])))
	end := 4 + int(size)
	if len(b) < end+14+max(cl, 0) {
		if h.final {
			return vNo
		}
		return vMore
	}
	if sameClient(b, b[end:], limit) {
		h.chained = off + 1 // in sync now, follows takes it
		return vYes
	}
	return vNo
}

// chainable reports whether the request header at b (14 bytes or more)
// is one the next request may vouch for (farChained): a frame of 1 MiB at
// most, a correlation id, a client id null or not empty within it.
func chainable(b []byte) bool {
	size := binary.BigEndian.Uint32(b)
	corr := int32(binary.BigEndian.Uint32(b[8:]))
	cl := int(int16(binary.BigEndian.Uint16(b[12:])))
	// (an empty client id is what zeros read as: nothing vouches)
	return size >= 10 && size <= 1<<20 && corr >= 0 && cl >= -1 && cl != 0 && cl <= int(size)-10
}

const nonKafkaSkip = 256 << 10

// process frames what h.buf holds and keeps the rest.
func (h *half) process() {
	p := h.scan(h.buf)
	if h.released || p == 0 {
		return
	}
	n := copy(h.buf, h.buf[p:])
	h.buf = h.buf[:n]
	h.consumed(p)
}

// consumed moves the buffer's start p bytes on, dropping the marks wholly
// before it.
func (h *half) consumed(p int) {
	h.bufOff += int64(p)
	k := 0
	for k+1 < len(h.marks) && h.marks[k+1].off <= h.bufOff {
		k++
	}
	if k > 0 {
		m := copy(h.marks, h.marks[k:])
		h.marks = h.marks[:m]
	}
	h.mcur = 0
}

// scan emits the frames in buf (the stream from h.bufOff on),
// resynchronising where needed, and returns how many bytes it consumed.
// Frames are copied out, so buf may be borrowed.
func (h *half) scan(buf []byte) int {
	p := 0
	h.want = 0
	for !h.released {
		rest := buf[p:]
		if !h.synced {
			i := 0
			found := false
			for ; i < len(rest); i++ {
				at := h.bufOff + int64(p+i)
				v := h.candidate(rest[i:], at)
				if v == vMore && (h.final || h.answerInside(rest[i:], at)) {
					v = vNo
				}
				if v == vNo && h.recEnd > at {
					// a record batch: go on after it
					i += int(h.recEnd-at) - 1
					continue
				}
				if v == vMore {
					break
				}
				if v == vYes {
					found = true
					break
				}
			}
			p += i
			h.skip(int64(i))
			h.skipped += int64(i)
			if !found {
				c := h.c
				if !c.decided && c.half[0].skipped+c.half[1].skipped > nonKafkaSkip && len(c.pending) == 0 {
					// Nothing here frames as Kafka.
					c.nonKafka = true
					c.half[0].release()
					c.half[1].release()
					return p
				}
				break
			}
			h.synced, h.tentative = true, true
			h.resynced(h.bufOff + int64(p))
			continue
		}
		if len(rest) < 4 {
			break
		}
		if h.c.saslRaw && h.role() != roleUnknown {
			n, more := h.saslToken(rest, h.bufOff+int64(p))
			if more {
				break
			}
			if n > 0 {
				p += n
				continue
			}
		}
		at := h.bufOff + int64(p)
		ok := h.headerOK(rest, at)
		if ok == vNo {
			v := vNo
			if h.clean {
				v = h.byItsSize(rest)
			}
			if v == vMore {
				break
			}
			if v == vNo {
				// The first in a stream followed from its SYN is said
				// apart from the others (Note.Unframed): one a direction.
				switch {
				case h.clean:
					// The capture holds these bytes whole, from the
					// connection's start, and cannot read them as frames:
					// kwire check says they are not judged, or, for the
					// client's first size, that a broker refuses it.
					note := Note{Packet: h.e.notePkt(), Conn: h.c, Unframed: true,
						Message: textfmt.Sprintf("implausible frame header % x at offset %d of %s", rest[:min(len(rest), 12)], at, h.stream())}
					fold := &h.e.unframed
					if size := int64(int32(binary.BigEndian.Uint32(rest))); h.role() == roleClient && at == 0 && (size < 0 || size >= int64(h.e.opts.MaxFrame)) {
						note.Refused, note.Size = true, size
						fold = &h.e.refused
					}
					fold.add(h, note, at)
				case h.e.implausible.add(h, at, 0):
					h.e.note(h.c, "implausible frame header % x at offset %d of %s", rest[:min(len(rest), 12)], at, h.stream())
				}
				h.synced, h.clean = false, false
				p++
				h.skip(1)
				h.skipped++
				continue
			}
			if h.e.bySize.add(h, at, 4+int64(binary.BigEndian.Uint32(rest))) {
				h.e.note(h.c, "implausible frame header % x at offset %d of %s, framed by its size all the same (the stream is followed from its SYN)",
					rest[:min(len(rest), 12)], at, h.stream())
			}
		}
		total := 4 + int(binary.BigEndian.Uint32(rest))
		if len(rest) < total {
			if ok == vYes {
				h.want = total
			}
			break
		}
		h.emit(rest[:total], h.bufOff+int64(p), 0, false)
		p += total
	}
	return p
}

// maxSASLToken bounds a raw SASL token: Kerberos tickets, the largest,
// run to tens of KB.
const maxSASLToken = 1 << 20

// saslToken reads a raw SASL token at the start of b (stream offset at),
// which a side sends after a SaslHandshake v0: a size and the token, no
// Kafka header. It hands the token on as a frame (Frame.SASLToken) and
// returns the bytes it takes, or 0 when b starts a Kafka frame instead (a
// request, which ends the tokens; a response to a request in flight) or a
// size no token has; more when the bytes that decide are not all there.
func (h *half) saslToken(b []byte, at int64) (n int, more bool) {
	size := int(binary.BigEndian.Uint32(b))
	if size > maxSASLToken {
		return 0, false
	}
	if h.role() == roleClient {
		switch h.endsTokens(b, size) {
		case vMore:
			return 0, true
		case vYes:
			h.c.saslRaw = false
			return 0, false
		}
	} else if len(b) >= 8 && h.answers(b, h.pktAt(at)) {
		return 0, false
	}
	if len(b) < 4+size {
		return 0, true
	}
	h.emit(b[:4+size], at, 0, true)
	return 4 + size, false
}

// endsTokens judges whether b, of size bytes past its size prefix (at
// most maxSASLToken), starts the client's next request rather than its
// next raw SASL token: vMore while the bytes that decide are not all
// there (never past the token's end). A token's bytes may read as a
// request header (looksLikeRequest), so more is asked: the client id
// the client sent in its SaslHandshake (its last request, h.last), as
// a client sends one in every request; where that was null or empty (a
// Java client's authenticator sends client.id as configured, empty by
// default, its requests then one it made up), an API and version that
// may follow the tokens (a version within the margin, neither
// SaslHandshake nor SaslAuthenticate, which come before them), the
// request whole.
func (h *half) endsTokens(b []byte, size int) verdict {
	switch {
	case size < 10: // no request header with a client id
		return vNo
	case len(b) < 14:
		return vMore
	case !looksLikeRequest(b, h.e.opts.MaxFrame):
		return vNo
	}
	cl := int(int16(binary.BigEndian.Uint16(b[12:])))
	l := &h.last
	switch key := int16(binary.BigEndian.Uint16(b[4:])); {
	case len(b) < 14+max(cl, 0):
		return vMore // within the token (looksLikeRequest)
	case l.ok && l.idLen > 0:
		if cl != l.idLen || clientIDSum(b, cl) != l.idSum {
			return vNo
		}
	case !plausibleVersion(key, int16(binary.BigEndian.Uint16(b[6:]))) || key == schema.KeySaslHandshake || key == schema.KeySaslAuthenticate:
		return vNo
	case len(b) < 4+size:
		return vMore
	}
	return vYes
}

// emit hands a copy of the frame b, at stream offset off, to the engine;
// missing counts the bytes of it a gap took (Frame.Missing).
func (h *half) emit(b []byte, off int64, missing int64, token bool) {
	h.emitOwn(append(h.own(len(b)), b...), off, missing, token)
}

// own returns an empty buffer for a frame of n bytes: Options.Buffer's,
// or one of its own.
func (h *half) own(n int) []byte {
	if h.e.opts.Buffer != nil {
		return h.e.opts.Buffer(n)[:0]
	}
	return make([]byte, 0, n)
}

// emitOwn is emit of a frame whose bytes b are its own already.
func (h *half) emitOwn(b []byte, off int64, missing int64, token bool) {
	f := &Frame{Conn: h.c, StreamOffset: off, Bytes: b, Missing: missing, SASLToken: token, Gaps: h.gaps, dir: h.idx}
	if !token && len(b) >= 8 && h.role() != roleBroker && binary.BigEndian.Uint32(b[4:]) == uint32(schema.KeySaslHandshake)<<16 {
		// After a SaslHandshake v0 come raw SASL tokens, size-prefixed
		// but no Kafka frames: a boundary is no longer known to be a
		// frame's (byItsSize, Note.Unframed), and each side's tokens are
		// passed over (saslToken) until the client sends a request.
		h.c.half[0].clean, h.c.half[1].clean = false, false
		h.c.saslRaw = true
	}
	f.firstPkt = h.e.pkt
	if !token && len(b) >= 14 && h.role() != roleBroker {
		// A request at a version far past the newest whose client id
		// does not vouch for it counts as one (Frame.chained: decide,
		// answers) when the chain rule took it (farChained, follows),
		// and, while the broker side is not known and headers in sync
		// are not judged, when the chain rule would have: the request
		// before vouches for f (follows), or f for the one before
		// (farChained's test, which that one, found as a response's
		// start, may have been spared).
		limit := h.e.opts.MaxFrame
		f.chained = isFarVersion(b) && !looksLikeRequest(b, limit) && h.follows(b, off) == vYes
		cl := int(int16(binary.BigEndian.Uint16(b[12:])))
		if l := h.last.f; l != nil && !h.c.decided && h.last.end == off && !l.chained && 14+max(cl, 0) <= len(b) && isFarVersion(l.Bytes) && !looksLikeRequest(l.Bytes, limit) && chainable(l.Bytes) && sameClient(l.Bytes, b, limit) {
			l.chained = true
		}
		// what follows needs to take the next request of its client:
		// a frame a gap cut too (Frame.Missing), its client id all there
		if cl >= -1 && 14+max(cl, 0) <= len(b) {
			h.last = lastReq{true, off + int64(len(b)) + missing, int32(binary.BigEndian.Uint32(b[8:])), cl, clientIDSum(b, cl), nil}
			if !h.c.decided {
				h.last.f = f
			}
		}
	}
	if h.tentative && missing == 0 && h.answers(b, h.pktAt(off)) {
		h.tentative = false // borne out
	}
	// marks: find the one covering off, then the latest packet among those
	// contributing to the frame.
	for h.mcur+1 < len(h.marks) && h.marks[h.mcur+1].off <= off {
		h.mcur++
	}
	if h.mcur < len(h.marks) {
		m := h.marks[h.mcur]
		f.FirstTime, f.Time, f.PacketIndex, f.firstPkt = m.t, m.t, m.pkt, m.ord
		end := off + int64(len(b))
		for j := h.mcur + 1; j < len(h.marks) && h.marks[j].off < end; j++ {
			if h.marks[j].pkt > f.PacketIndex {
				f.Time, f.PacketIndex = h.marks[j].t, h.marks[j].pkt
			}
		}
	}
	h.e.frame(h, f)
}
