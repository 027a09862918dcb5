package capture

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/textfmt"
)

// TestLateSegmentFillsAcknowledgedHole: a capture from several queues
// shows a request's last segment after the broker's answer, whose ACK
// covers it. The bytes are in the file: the request is reassembled and
// paired with its answer, nothing is declared lost, and the latency is
// not negative.
func TestLateSegmentFillsAcknowledgedHole(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	segs := v.split(true, apiVersionsReq(2), 20)
	require.Len(t, segs, 2)
	v.send(segs[0])
	v.resp(apiVersionsResp(2)) // acknowledges both segments
	v.send(segs[1])            // captured late
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	v.fin()
	check := func(r *Result, xs []*Exchange) {
		t.Helper()
		for _, n := range r.Notes {
			t.Errorf("note: %s", n)
		}
		var paired []int32
		for _, x := range xs {
			if x.Paired() {
				paired = append(paired, x.CorrelationID)
				assert.Equal(t, apiVersionsResp(x.CorrelationID), x.Response.Bytes)
				assert.GreaterOrEqual(t, x.Latency, time.Duration(0))
			}
		}
		assert.ElementsMatch(t, []int32{1, 2, 3}, paired)
		assert.Zero(t, r.SkippedBytes)
	}
	r := b.read(Options{})
	check(r, r.Exchanges)
	assert.Equal(t, 0, r.Conns[0].Gaps)
	var got []*Exchange
	r, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	check(r, got)
}

// TestAcknowledgedHoleBounded: bytes acknowledged but never captured are
// waited for a bounded while: the frames of the other side held meanwhile
// are handed on, and the loss declared, within ackHoldPackets packets, or
// sooner when more than maxHeld frames wait; not at the end of the
// capture.
func TestAcknowledgedHoleBounded(t *testing.T) {
	for _, many := range []bool{false, true} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.handshake()
		segs := v.split(true, apiVersionsReq(1), 20)
		v.send(segs[0]) // the second is never captured
		v.resp(apiVersionsResp(1))
		if many {
			// more frames than maxHeld in one packet
			var all []byte
			for i := 2; i < maxHeld+10; i++ {
				all = append(all, apiVersionsResp(int32(i))...)
			}
			v.resp(all)
		} else {
			for i := 2; i < ackHoldPackets+50; i++ {
				v.resp(apiVersionsResp(int32(i))) // unpaired: frames held
			}
		}
		lastPkt := len(b.pkts)
		for i := 0; i < ackHoldPackets+10; i++ {
			w := b.conv("10.0.0.3:40000", "10.0.0.2:9092") // other traffic
			w.b.tcp(w.c, w.s, 1, 1, fACK, nil)
		}
		var handed []int // packets at which exchanges came out
		e := newEngine(Options{}, func(x *Exchange) {})
		e.stream = func(x *Exchange) { handed = append(handed, e.pkt) }
		maxHeldSeen := 0
		e.onPacket = func() {
			for _, c := range e.all {
				maxHeldSeen = max(maxHeldSeen, len(c.held))
			}
		}
		require.NoError(t, e.run(bytes.NewReader(b.pcap())))
		require.NotEmpty(t, handed)
		assert.Less(t, handed[0], lastPkt+ackHoldPackets, "many %v: handed out before the end", many)
		assert.LessOrEqual(t, maxHeldSeen, maxHeld+1)
		said := false
		for _, note := range e.res.Notes {
			said = said || strings.Contains(note.Message, "acknowledged by peer but not captured")
		}
		assert.True(t, said, "the loss is said")
	}
}

// TestConnectionOnTwoInterfacesCountedOnce: dumpcap -i lo -i any writes
// each interface's packets in chunks, so a short connection's copy from
// the second interface (the same SYN, the same initial sequence numbers)
// comes after the first copy ended with its FINs. It is that connection
// seen again, said once and skipped, not a second connection with the
// same exchanges.
func TestConnectionOnTwoInterfacesCountedOnce(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 3)
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&out, pcapgo.NgInterface{LinkType: b.link, SnapLength: 65536}, pcapgo.DefaultNgWriterOptions)
	require.NoError(t, err)
	_, err = w.AddInterface(pcapgo.NgInterface{LinkType: b.link, SnapLength: 65536})
	require.NoError(t, err)
	for ifc := 0; ifc < 2; ifc++ {
		for i, p := range b.pkts {
			ci := gopacket.CaptureInfo{Timestamp: b.times[i], CaptureLength: len(p), Length: len(p), InterfaceIndex: ifc}
			require.NoError(t, w.WritePacket(ci, p))
		}
	}
	require.NoError(t, w.Flush())
	r, err := Read(bytes.NewReader(out.Bytes()), Options{})
	require.NoError(t, err)
	assert.Equal(t, 2*len(b.pkts), r.Packets)
	assert.Equal(t, 1, r.Connections)
	assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
	require.Len(t, r.Notes, 1)
	assert.Contains(t, r.Notes[0].Message, "a copy from another interface")
}

// TestHeldRequestsKnownWhenResynchronising: the answer to request 1 is
// lost; the client's request 2, sent after it acknowledged that answer,
// is held while the hole may still fill. When the hole is declared lost,
// request 2 goes on before the broker's stream resynchronises after the
// gap, so the resynchronisation knows correlation id 2 and finds its
// answer, rather than taking bytes inside it that read as an answer to
// request 1 (00 00 00 04 00 00 00 01).
func TestHeldRequestsKnownWhenResynchronising(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.split(false, apiVersionsResp(1), 1<<20) // sent, never captured
	v.req(apiVersionsReq(2))                  // acknowledges it
	v.resp(kresp(2, []byte{0, 0, 0, 4, 0, 0, 0, 1, 0, 0}))
	v.fin()
	for _, stream := range []bool{false, true} {
		var xs []*Exchange
		var err error
		if stream {
			_, err = ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { xs = append(xs, x) })
		} else {
			var r *Result
			r, err = Read(bytes.NewReader(b.pcap()), Options{})
			if r != nil {
				xs = r.Exchanges
			}
		}
		require.NoError(t, err)
		var paired []int32
		for _, x := range xs {
			if x.Paired() {
				paired = append(paired, x.CorrelationID)
			}
		}
		assert.Equal(t, []int32{2}, paired, "stream %v", stream)
	}
}

// TestSnapLengthInTCPOptions: a snap length that cuts a segment inside
// its TCP options (60 bytes on Ethernet with timestamps) leaves the fixed
// header whole: the segment is read as one whose payload was not
// captured (said as the snap length), not skipped as malformed.
func TestSnapLengthInTCPOptions(t *testing.T) {
	eth := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 8, 0}
	seg := func(seq uint32, flags uint8, payload []byte) []byte {
		tcp := &layers.TCP{SrcPort: 40000, DstPort: 9092, Seq: seq, Ack: 1, Window: 65535, ACK: true, PSH: flags&fPSH != 0,
			Options: []layers.TCPOption{{OptionType: layers.TCPOptionKindNop}, {OptionType: layers.TCPOptionKindNop},
				{OptionType: layers.TCPOptionKindTimestamps, OptionLength: 10, OptionData: make([]byte, 8)}}}
		ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: []byte{10, 0, 0, 1}, DstIP: []byte{10, 0, 0, 2}}
		require.NoError(t, tcp.SetNetworkLayerForChecksum(ip))
		buf := gopacket.NewSerializeBuffer()
		require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, tcp, gopacket.Payload(payload)))
		return append(bytes.Clone(eth), buf.Bytes()...)
	}
	var out bytes.Buffer
	w := pcapgo.NewWriterNanos(&out)
	require.NoError(t, w.WriteFileHeader(60, layers.LinkTypeEthernet))
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, p := range [][]byte{seg(1, fPSH, apiVersionsReq(1)), seg(1+36, fPSH, apiVersionsReq(2))} {
		require.Greater(t, len(p), 60)
		require.NoError(t, w.WritePacket(gopacket.CaptureInfo{Timestamp: at.Add(time.Duration(i) * time.Millisecond), CaptureLength: 60, Length: len(p)}, p[:60]))
	}
	r, err := Read(bytes.NewReader(out.Bytes()), Options{})
	require.NoError(t, err)
	require.NotEmpty(t, r.Notes)
	for _, n := range r.Notes {
		assert.NotContains(t, n.Message, "malformed")
	}
	assert.Contains(t, r.Notes[0].Message, "36 bytes not captured (snap length)")
	assert.Equal(t, 2, r.Gaps)
}

// TestReadFuncFramesTakenBackElsewhere: fn may hand an exchange to
// another goroutine that takes its frames' buffers back at once, as kwire
// pcap and kwire check do (Options.Buffer): the engine reads nothing of an
// exchange once fn has it. It read a placed frame's length afterwards,
// racing with that goroutine (make test runs this under -race).
func TestReadFuncFramesTakenBackElsewhere(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 20)
	xs := make(chan *Exchange)
	done := make(chan int)
	go func() {
		n := 0
		for x := range xs {
			for _, f := range []*Frame{x.Request, x.Response} {
				if f != nil {
					n += len(f.Bytes)
					f.Bytes = nil // back to the pool
				}
			}
		}
		done <- n
	}()
	_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { xs <- x })
	close(xs)
	require.NoError(t, err)
	want := 0
	for i := int32(1); i <= 20; i++ {
		want += len(apiVersionsReq(i)) + len(apiVersionsResp(i))
	}
	require.Equal(t, want, <-done)
}

// TestLossSaidWhereItsAckShowedIt: a client whose every request loses
// its second half, which the broker's answer acknowledges. The first hole
// starts the hold; each later answer's ACK shows another while it is on.
// Each loss is said at the packet whose ACK showed that hole, and so is
// the frame it damaged, not all at the packet that showed the first (the
// hold's start).
func TestLossSaidWhereItsAckShowedIt(t *testing.T) {
	const lost = 4
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	var shown []int // the packet of each answer, whose ACK shows a hole
	for i := int32(1); i <= lost; i++ {
		q := kreq(1, 11, i, "consumer", bytes.Repeat([]byte{0}, 200))
		segs := v.split(true, q, len(q)/2+1)
		v.send(segs[0]) // the second half is never captured
		v.resp(kresp(i, []byte{0, 0}))
		shown = append(shown, len(b.pkts))
	}
	for _, keep := range []bool{false, true} {
		r := b.read(Options{KeepDamaged: keep})
		var gaps, damaged []int
		for _, n := range r.Notes {
			switch {
			case strings.HasPrefix(n.Message, "gap: "):
				gaps = append(gaps, n.Packet)
			case strings.Contains(n.Message, "damaged by a gap"):
				damaged = append(damaged, n.Packet)
			}
		}
		assert.Equal(t, shown, gaps, "keep %v: the gaps' packets: %v", keep, r.Notes)
		assert.Equal(t, shown, damaged, "keep %v: the damaged frames' packets: %v", keep, r.Notes)
		assert.Equal(t, lost, r.Gaps)
	}
}

// TestEachHoleWaitsItsOwnWhile: a hole shown while another is waited for
// waits its own ackHoldPackets packets, not what is left of the first's:
// request 1's second half is lost; request 2's, acknowledged a few
// packets before request 1's wait ends, comes a few packets after it (a
// capture from several queues), and request 2 is read whole and paired
// with its answer, its bytes not declared lost with request 1's.
func TestEachHoleWaitsItsOwnWhile(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	other := func(n int) {
		for range n {
			w := b.conv("10.0.0.3:40000", "10.0.0.2:9092")
			w.b.tcp(w.c, w.s, 1, 1, fACK, nil)
		}
	}
	q1 := kreq(1, 11, 1, "consumer", bytes.Repeat([]byte{0}, 200))
	segs := v.split(true, q1, len(q1)/2+1)
	v.send(segs[0]) // the second half is never captured
	v.resp(kresp(1, []byte{0, 0}))
	first := len(b.pkts)
	other(ackHoldPackets - 10)
	q2 := kreq(1, 11, 2, "consumer", bytes.Repeat([]byte{0}, 200))
	segs = v.split(true, q2, len(q2)/2+1)
	v.send(segs[0])
	v.resp(kresp(2, []byte{0, 0})) // acknowledges segs[1] before it comes
	other(20)                      // past request 1's wait
	require.Greater(t, len(b.pkts), first+ackHoldPackets)
	v.send(segs[1]) // late, within its own wait
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	v.fin()
	r := b.read(Options{})
	assert.Equal(t, []int32{2, 3}, pairedCorrs(r), "%v", r.Notes)
	assert.Equal(t, 1, r.Gaps, "request 1's half only: %v", r.Notes)
	assert.Equal(t, int64(len(q1)-len(q1)/2-1), r.LostBytes)
	for _, n := range r.Notes {
		if strings.HasPrefix(n.Message, "gap: ") {
			assert.Equal(t, first, n.Packet, "%v", n)
		}
	}
}

// TestHoldsOfEveryExchangeBounded: a long capture whose every request
// loses its second half keeps holding for one hole after another. Each
// answer, held for its request's hole, is handed on when that hole's
// own wait ends (ackHoldPackets packets after its ACK), not at the first
// hole's nor at the end; and what is remembered of the holes' ACKs stays
// within one a packet of the wait.
func TestHoldsOfEveryExchangeBounded(t *testing.T) {
	const lost = 400
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	shown := map[int32]int{} // correlation id: the packet whose ACK showed its hole
	for i := int32(1); i <= lost; i++ {
		q := kreq(18, 3, i, "consumer", bytes.Repeat([]byte{0}, 100))
		segs := v.split(true, q, len(q)/2+1)
		v.send(segs[0]) // the second half is never captured
		v.resp(kresp(i, []byte{0, 0}))
		shown[i] = len(b.pkts)
	}
	v.fin()
	e := newEngine(Options{KeepDamaged: true}, func(x *Exchange) {})
	handed := map[int32]int{}
	e.stream = func(x *Exchange) {
		if x.Paired() {
			handed[x.CorrelationID] = e.pkt
		}
	}
	maxShown, maxHolds := 0, 0
	e.onPacket = func() {
		for _, c := range e.all {
			for _, h := range c.half {
				maxShown = max(maxShown, len(h.shown))
			}
		}
		maxHolds = max(maxHolds, len(e.holds))
	}
	require.NoError(t, e.run(bytes.NewReader(b.pcap())))
	require.Len(t, handed, lost)
	for i := int32(1); i <= lost; i++ {
		if shown[i]+ackHoldPackets < len(b.pkts)-3 {
			// handed on the packet after its wait ended
			assert.Equal(t, shown[i]+ackHoldPackets+1, handed[i], "exchange %d", i)
		}
	}
	t.Logf("at most %d ACKs remembered by a half, %d holds in all", maxShown, maxHolds)
	assert.LessOrEqual(t, maxShown, ackHoldPackets+1)
	assert.LessOrEqual(t, maxHolds, ackHoldPackets+1)
	assert.Equal(t, lost, e.res.Gaps)
}

// TestHeldLimitEndsOldestHoleOnly: when a connection holds more frames
// than maxHeld for the acknowledged bytes the other side's stream lacks,
// the holes they wait for are declared lost oldest first, only as many
// as bring what is held back under the limit: a younger hole, whose
// bytes come later, still delivers its request, which its held answer
// then pairs with. (Every waiting hole was declared lost at once, so the
// younger request's late bytes were a retransmission of lost ones, and
// its answer went unpaired.)
func TestHeldLimitEndsOldestHoleOnly(t *testing.T) {
	const early = maxHeld - 4 // the answers held for the first hole
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	frames := func(client bool, from, to int32) []byte {
		var all []byte
		for i := from; i <= to; i++ {
			if client {
				all = append(all, kreq(3, 12, i, "consumer", nil)...)
			} else {
				all = append(all, kresp(i, []byte{0, 0})...)
			}
		}
		return all
	}
	v.sendAll(v.split(true, frames(true, 1, maxHeld), 1400))
	r1 := kreq(3, 12, 5001, "consumer", bytes.Repeat([]byte{0}, 50))
	lost := v.split(true, r1, len(r1)) // never captured: the first hole
	v.req(kreq(3, 12, 5002, "consumer", nil))
	shown := len(b.pkts) + 1
	v.sendAll(v.split(false, frames(false, 1, early), 1400)) // held for it
	r2 := kreq(3, 12, 5003, "consumer", nil)
	late := v.split(true, r2, len(r2)) // the second hole: its bytes come late
	// The answers after r2 ACK it: held for the second hole, and the
	// last of them one past maxHeld held.
	v.sendAll(v.split(false, append(frames(false, early+1, maxHeld), kresp(5003, []byte{0, 0})...), 1400))
	v.sendAll(late)
	v.fin()
	for _, stream := range []bool{false, true} {
		var r *Result
		var xs []*Exchange
		if stream {
			var err error
			r, err = ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { xs = append(xs, x) })
			require.NoError(t, err)
		} else {
			r = b.read(Options{})
			xs = r.Exchanges
		}
		paired := map[int32]bool{}
		for _, x := range xs {
			if x.Paired() {
				paired[x.CorrelationID] = true
			}
		}
		assert.Len(t, paired, maxHeld+1, "%v", r.Notes)
		assert.True(t, paired[5003], "the younger hole's request, come late, answered: %v", r.Notes)
		assert.Equal(t, 1, r.Gaps, "%v", r.Notes)
		assert.Equal(t, int64(len(lost[0].data)), r.LostBytes)
		var gaps []Note
		for _, n := range r.Notes {
			if strings.HasPrefix(n.Message, "gap: ") {
				gaps = append(gaps, n)
			}
		}
		if assert.Len(t, gaps, 1, "%v", r.Notes) {
			assert.Equal(t, textfmt.Sprintf("gap: %d bytes missing at stream offset %d (acknowledged by peer but not captured, and waited for no longer: %d frames of the other side were held, past %d)",
				len(r1), lost[0].seq-1001, maxHeld+1, maxHeld), gaps[0].Message)
			assert.Equal(t, shown, gaps[0].Packet, "said where its ACK showed it")
		}
	}
}

// TestHandedOutAtThePacketBeingRead: an exchange a hole held, handed out
// when the hole's wait ends, is handed out while the packet that ended
// it is read, and the engine's packet (e.pkt) says so, whatever reads it
// then (ReadFunc's fn, the frames framed); only the notes of the loss
// are said at the packet whose ACK showed it, as if declared there. (The
// engine's packet was the ACK's while the hole was declared, so fn,
// called as the request after the hole was framed and let the answer
// held for it go, ran at a packet read long before.)
func TestHandedOutAtThePacketBeingRead(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	segs := v.split(true, apiVersionsReq(1), 20)
	v.send(segs[0]) // the rest is never captured
	v.req(apiVersionsReq(2))
	v.resp(apiVersionsResp(1))
	shown := len(b.pkts)
	for range ackHoldPackets + 10 {
		w := b.conv("10.0.0.3:40000", "10.0.0.2:9092") // other traffic
		w.b.tcp(w.c, w.s, 1, 1, fACK, nil)
	}
	type seen struct{ pkt, read int }
	var at []seen
	e := newEngine(Options{KeepDamaged: true}, nil)
	e.stream = func(x *Exchange) {
		if x.Paired() {
			at = append(at, seen{e.pkt, e.res.Packets})
		}
	}
	require.NoError(t, e.run(bytes.NewReader(b.pcap())))
	ended := shown + ackHoldPackets + 1 // the first packet past the wait
	assert.Equal(t, []seen{{ended, ended}}, at, "handed out at the packet being read")
	var said []int
	for _, n := range e.res.Notes {
		said = append(said, n.Packet)
		assert.Contains(t, n.Message, "gap", "%v", n)
	}
	assert.Equal(t, []int{shown, shown}, said, "the gap and the frame it damaged said where the ACK showed it: %v", e.res.Notes)
}
