package capture

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/kwire/kwire/internal/textfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func hasNote(r *Result, substr string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n.Message, substr) {
			return true
		}
	}
	return false
}

// simple builds a handshake and n ApiVersions request/response pairs.
func simple(b *tb, n int) *cv {
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	for i := 1; i <= n; i++ {
		v.req(apiVersionsReq(int32(i)))
		v.resp(apiVersionsResp(int32(i)))
	}
	v.fin()
	return v
}

func TestInOrder(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 3)
	r := b.read(Options{})
	require.Len(t, r.Conns, 1)
	c := r.Conns[0]
	assert.Equal(t, netip.MustParseAddrPort("10.0.0.1:40000"), netip.AddrPortFrom(c.Client.IP, c.Client.Port))
	assert.Equal(t, uint16(9092), c.Broker.Port)
	assert.True(t, c.BrokerByPort)
	assert.True(t, c.SYN)
	assert.True(t, c.Closed)
	assert.Equal(t, 3, c.Requests)
	assert.Equal(t, 3, c.Responses)
	require.Len(t, r.Exchanges, 3)
	var off int64
	for i, x := range r.Exchanges {
		require.True(t, x.Paired())
		assert.Equal(t, int16(18), x.APIKey)
		assert.Equal(t, int16(3), x.APIVersion)
		assert.Equal(t, int32(i+1), x.CorrelationID)
		assert.Equal(t, apiVersionsReq(int32(i+1)), x.Request.Bytes)
		assert.Equal(t, apiVersionsResp(int32(i+1)), x.Response.Bytes)
		assert.True(t, x.Request.FromClient)
		assert.False(t, x.Response.FromClient)
		assert.Equal(t, off, x.Request.StreamOffset)
		off += int64(len(x.Request.Bytes))
		assert.Equal(t, x.Response.Time.Sub(x.Request.Time), x.Latency)
		assert.Positive(t, x.Latency)
		assert.Equal(t, 4+2*i, x.Request.PacketIndex)
		assert.Equal(t, 5+2*i, x.Response.PacketIndex)
		assert.Same(t, c, x.Conn)
	}
	assert.Equal(t, 6, r.Frames)
	assert.Empty(t, r.Notes)
	assert.Zero(t, r.NonKafka)
	assert.Equal(t, len(b.pkts), r.Packets)
}

func TestOutOfOrder(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	req := kreq(3, 12, 7, "client", bytes.Repeat([]byte("m"), 500))
	segs := v.split(true, req, 60)
	rng := rand.New(rand.NewSource(1))
	rng.Shuffle(len(segs), func(i, j int) { segs[i], segs[j] = segs[j], segs[i] })
	v.sendAll(segs)
	resp := kresp(7, bytes.Repeat([]byte("r"), 300))
	rs := v.split(false, resp, 100)
	v.sendAll([]tseg{rs[2], rs[0], rs[3], rs[1]})
	r := b.read(Options{})
	dump(t, r)
	require.Len(t, r.Exchanges, 1)
	x := r.Exchanges[0]
	require.True(t, x.Paired())
	assert.Equal(t, req, x.Request.Bytes)
	assert.Equal(t, resp, x.Response.Bytes)
	assert.Equal(t, int16(3), x.APIKey)
	assert.Zero(t, r.SkippedBytes)
	assert.Empty(t, r.Notes)
}

func TestRetransmissionsAndOverlap(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	req := apiVersionsReq(1)
	base := v.cs
	segs := v.split(true, req, 10)
	v.send(segs[0])
	v.send(segs[0]) // identical retransmission
	v.send(segs[1])
	// overlapping: bytes 5..25 re-sent in one segment
	v.send(tseg{true, base + 5, req[5:25]})
	v.send(segs[2])
	// overlapping out-of-order segment reaching beyond what we have
	v.send(tseg{true, base + 28, req[28:]})
	v.send(tseg{true, base + 22, req[22:35]})
	v.send(segs[0]) // late old retransmission
	v.resp(apiVersionsResp(1))
	v.req(apiVersionsReq(2))
	v.resp(apiVersionsResp(2))
	r := b.read(Options{})
	assert.Equal(t, []int32{1, 2}, pairedCorrs(r))
	require.Len(t, r.Exchanges, 2)
	assert.Equal(t, req, r.Exchanges[0].Request.Bytes)
	assert.Zero(t, r.SkippedBytes)
}

func TestFrameSplitOverManySegments(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	body := make([]byte, 100000)
	for i := range body {
		body[i] = byte(i)
	}
	req := kreq(0, 9, 42, "p", append([]byte{0, 0xff, 0xff}, body...)) // not parsed as acks=0
	segs := v.split(true, req, 1000)
	first := len(b.pkts) + 1
	v.sendAll(segs)
	v.resp(kresp(42, []byte{1, 2, 3}))
	r := b.read(Options{})
	require.Len(t, r.Exchanges, 1)
	x := r.Exchanges[0]
	require.True(t, x.Paired())
	assert.Equal(t, req, x.Request.Bytes)
	assert.Equal(t, b.times[first-1], x.Request.FirstTime)
	assert.Equal(t, b.times[first-1+len(segs)-1], x.Request.Time)
	assert.Equal(t, first+len(segs)-1, x.Request.PacketIndex)
}

func TestManyFramesInOneSegment(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	var reqs, resps []byte
	for i := int32(1); i <= 50; i++ {
		reqs = append(reqs, kreq(1, 11, i, "consumer", []byte{0, 0, 0, 0})...)
		resps = append(resps, kresp(i, []byte{0, 0, 0, 0, 0, 0})...)
	}
	v.req(reqs)
	// responses in segments that cut frames at odd places
	v.sendAll(v.split(false, resps, 7))
	r := b.read(Options{})
	assert.Equal(t, seqCorrs(1, 50), pairedCorrs(r))
	assert.Equal(t, 100, r.Frames)
}

func TestMidStreamResync(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	// no handshake: the capture starts in the middle of request 1 and
	// response 1.
	r1 := kreq(1, 11, 1, "consumer", bytes.Repeat([]byte{0}, 40))
	v.req(r1[17:])
	v.resp(kresp(1, bytes.Repeat([]byte{9}, 20))[6:])
	for i := int32(2); i <= 4; i++ {
		v.req(kreq(1, 11, i, "consumer", bytes.Repeat([]byte{0}, 40)))
		v.resp(kresp(i, bytes.Repeat([]byte{9}, 20)))
	}
	r := b.read(Options{})
	require.Len(t, r.Conns, 1)
	assert.False(t, r.Conns[0].SYN)
	assert.Equal(t, []int32{2, 3, 4}, pairedCorrs(r))
	assert.Equal(t, int64(len(r1)-17+28-6), r.SkippedBytes)
	assert.True(t, hasNote(r, "skipped"), "%v", r.Notes)
}

func TestMidStreamAtBoundary(t *testing.T) {
	// capture starts without SYN but exactly at frame boundaries: nothing
	// is skipped.
	b := newTB(t, layers.LinkTypeRaw)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	for i := int32(5); i <= 7; i++ {
		v.req(apiVersionsReq(i))
		v.resp(apiVersionsResp(i))
	}
	r := b.read(Options{})
	assert.Equal(t, []int32{5, 6, 7}, pairedCorrs(r))
	assert.Zero(t, r.SkippedBytes)
}

func TestGapInsideFrame(t *testing.T) {
	// The middle segment of request 2 is lost; the peer's ACK shows it was
	// sent. Request 2 is dropped, the stream stays in sync.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	segs := v.split(true, kreq(1, 11, 2, "consumer", bytes.Repeat([]byte{0}, 100)), 40)
	v.send(segs[0])
	v.send(segs[2])
	v.send(segs[3])
	v.b.tcp(v.s, v.c, v.ss, v.cs, fACK, nil) // broker acks everything
	v.resp(kresp(2, []byte{0, 0}))
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	r := b.read(Options{})
	assert.Equal(t, []int32{1, 3}, pairedCorrs(r))
	assert.Equal(t, 1, r.Conns[0].Gaps)
	assert.True(t, hasNote(r, "damaged by a gap"), "%v", r.Notes)
	assert.True(t, hasNote(r, "acknowledged by peer"), "%v", r.Notes)
	// the response to the lost request is kept, unpaired
	var unpaired []*Exchange
	for _, x := range r.Exchanges {
		if !x.Paired() {
			unpaired = append(unpaired, x)
		}
	}
	require.Len(t, unpaired, 1)
	assert.Nil(t, unpaired[0].Request)
	assert.Equal(t, int32(2), unpaired[0].CorrelationID)
}

// tailLost sends request 2 of v in 40-byte segments but for its last,
// which the capture lost: nothing in the client's stream shows the hole,
// only the broker's ACK of the bytes after it.
func tailLost(v *cv) {
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	segs := v.split(true, kreq(1, 11, 2, "consumer", bytes.Repeat([]byte{0}, 100)), 40)
	v.sendAll(segs[:len(segs)-1])
}

// unpairedAfterGap returns the correlation ids of the unpaired exchanges,
// and whether their connection had counted a gap when each was handed
// out.
func unpairedAfterGap(t *testing.T, b *tb) ([]int32, []bool) {
	var corrs []int32
	var gapped []bool
	_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) {
		if !x.Paired() {
			corrs = append(corrs, x.CorrelationID)
			gapped = append(gapped, x.Conn.Gaps > 0)
		}
	})
	require.NoError(t, err)
	return corrs, gapped
}

func TestGapAtFrameTail(t *testing.T) {
	// The last segment of request 2 is lost, and request 3 starts where
	// it ended. The broker's answer to 2 acknowledges the lost bytes: the
	// gap is known then, before the answer is paired, so request 2 is
	// dropped as in TestGapInsideFrame and 3 pairs with its answer.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	tailLost(v)
	v.resp(kresp(2, []byte{0, 0}))
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	v.fin()
	r := b.read(Options{})
	dump(t, r)
	assert.Equal(t, []int32{1, 3}, pairedCorrs(r))
	assert.Equal(t, 1, r.Conns[0].Gaps)
	assert.True(t, hasNote(r, "damaged by a gap"), "%v", r.Notes)
	assert.True(t, hasNote(r, "acknowledged by peer"), "%v", r.Notes)
	assert.False(t, hasNote(r, "incomplete frame"), "%v", r.Notes)
	corrs, gapped := unpairedAfterGap(t, b)
	assert.Equal(t, []int32{2}, corrs, "only the answer to the lost request is unpaired")
	assert.Equal(t, []bool{true}, gapped, "the gap is counted before the answer is handed out")
}

func TestGapAtStreamTail(t *testing.T) {
	// As TestGapAtFrameTail, with no request after the lost bytes: the
	// ACK in the answer is the only sign of the loss.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	tailLost(v)
	v.resp(kresp(2, []byte{0, 0}))
	v.fin()
	r := b.read(Options{})
	dump(t, r)
	assert.Equal(t, []int32{1}, pairedCorrs(r))
	assert.Equal(t, 1, r.Conns[0].Gaps)
	assert.True(t, hasNote(r, "damaged by a gap"), "%v", r.Notes)
	corrs, gapped := unpairedAfterGap(t, b)
	assert.Equal(t, []int32{2}, corrs)
	assert.Equal(t, []bool{true}, gapped)
}

func TestAckOfFinIsNoGap(t *testing.T) {
	// A FIN takes a sequence number: its ACK is one past the last byte,
	// and no byte is lost.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	v.fin()
	r := b.read(Options{})
	assert.Equal(t, []int32{1}, pairedCorrs(r))
	assert.Zero(t, r.Conns[0].Gaps, "%v", r.Notes)
	assert.Empty(t, r.Notes)
}

func TestGapAcrossFrames(t *testing.T) {
	// A lost segment covers the end of one frame and the start of the
	// next: the stream must resynchronise. No ACKs: the gap is found at
	// the end of the capture.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	var stream []byte
	for i := int32(1); i <= 6; i++ {
		stream = append(stream, kreq(1, 11, i, "consumer", bytes.Repeat([]byte{0}, 30))...)
	}
	segs := v.split(true, stream, 50)
	for i, s := range segs {
		if i == 2 {
			continue
		}
		v.send(s)
	}
	for i := int32(1); i <= 6; i++ {
		v.resp(kresp(i, []byte{0, 0}))
	}
	r := b.read(Options{})
	// frame 2 spans bytes 52..103 and frame 3 104..155: segment 2 (100..149) loses both
	paired := pairedCorrs(r)
	assert.Equal(t, []int32{1, 4, 5, 6}, paired)
	assert.Positive(t, r.SkippedBytes)
	assert.True(t, hasNote(r, "gap"), "%v", r.Notes)
}

func TestGapBufferCap(t *testing.T) {
	// With a tiny MaxStreamBuffer, a hole is declared lost as soon as the
	// buffered data exceeds it (no ACKs, no end of capture needed).
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.split(true, apiVersionsReq(1), 1000) // request 1 is never sent: a hole
	for i := int32(2); i <= 40; i++ {
		v.req(apiVersionsReq(i))
	}
	r := b.read(Options{MaxStreamBuffer: 500})
	assert.True(t, hasNote(r, "buffer full"), "%v", r.Notes)
	assert.Equal(t, 39, r.Conns[0].Requests)
}

func TestLinkTypes(t *testing.T) {
	cases := []struct {
		name string
		link layers.LinkType
		big  bool
		v6   bool
		vlan bool
	}{
		{"null-le", layers.LinkTypeNull, false, false, false},
		{"null-be", layers.LinkTypeNull, true, false, false},
		{"null-v6", layers.LinkTypeNull, false, true, false},
		{"loop", layers.LinkTypeLoop, true, false, false},
		{"sll", layers.LinkTypeLinuxSLL, false, false, false},
		{"sll-v6", layers.LinkTypeLinuxSLL, false, true, false},
		{"sll2", linkSLL2 & 0xff, false, false, false},
		{"sll2-v6", linkSLL2 & 0xff, false, true, false},
		{"raw", layers.LinkTypeRaw, false, false, false},
		{"raw-v6", layers.LinkTypeRaw, false, true, false},
		{"ethernet-v6", layers.LinkTypeEthernet, false, true, false},
		{"ethernet-vlan", layers.LinkTypeEthernet, false, false, true},
		{"ethernet-vlan-v6", layers.LinkTypeEthernet, false, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newTB(t, tc.link)
			b.big, b.vlan = tc.big, tc.vlan
			v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
			if tc.v6 {
				v = b.conv("[fd00::1]:40000", "[fd00::2]:9092")
			}
			v.handshake()
			for i := int32(1); i <= 3; i++ {
				v.req(apiVersionsReq(i))
				v.resp(apiVersionsResp(i))
			}
			for _, data := range [][]byte{b.pcap(), b.pcapng()} {
				r, err := Read(bytes.NewReader(data), Options{})
				require.NoError(t, err)
				assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
				require.Len(t, r.Conns, 1)
				assert.Equal(t, v.s.Addr(), r.Conns[0].Broker.IP)
				assert.Empty(t, r.Notes)
			}
		})
	}
}

func TestPcapngMixedInterfaces(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 2)
	sll := newTB(t, layers.LinkTypeLinuxSLL)
	v := sll.conv("10.0.0.3:40001", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(9))
	v.resp(apiVersionsResp(9))
	data := mixedNg(t, b, sll)
	r, err := Read(bytes.NewReader(data), Options{})
	require.NoError(t, err)
	assert.Len(t, r.Conns, 2)
	assert.ElementsMatch(t, []int32{1, 2, 9}, pairedCorrs(r))
}

func TestTruncatedFile(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 5)
	for _, data := range [][]byte{b.pcap(), b.pcapng()} {
		cut := data[:len(data)*2/3]
		r, err := Read(bytes.NewReader(cut), Options{})
		require.NoError(t, err)
		dump(t, r)
		assert.True(t, r.Truncated())
		assert.True(t, hasNote(r, "truncated"), "%v", r.Notes)
		require.NotNil(t, r.Truncation)
		assert.Contains(t, r.Truncation.Message, "file truncated or corrupt after packet "+strconv.Itoa(r.Packets))
		assert.NotEmpty(t, pairedCorrs(r))
		assert.Less(t, r.Packets, len(b.pkts))
	}
	r, err := Read(bytes.NewReader(b.pcap()), Options{})
	require.NoError(t, err)
	assert.False(t, r.Truncated())
	assert.Nil(t, r.Truncation)
}

// TestTruncationNotedPastTheCap: a file cut after more notes than
// MaxNotes still says, among its notes, that it is cut.
func TestTruncationNotedPastTheCap(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	for i := 0; i < MaxNotes+5; i++ {
		b.pkts = append(b.pkts, []byte{1, 2, 3}) // too short for Ethernet: a note each
		b.times = append(b.times, b.tick())
	}
	data := b.pcap()
	r, err := Read(bytes.NewReader(data[:len(data)-2]), Options{})
	require.NoError(t, err)
	require.True(t, r.Truncated())
	require.NotNil(t, r.Truncation)
	assert.True(t, hasNote(r, "file truncated or corrupt after packet"), "%v", r.Notes[len(r.Notes)-3:])
}

func TestBadMagic(t *testing.T) {
	for _, data := range [][]byte{nil, []byte("hi"), []byte("GET / HTTP/1.1\r\n\r\n")} {
		r, err := Read(bytes.NewReader(data), Options{})
		assert.ErrorIs(t, err, ErrFormat)
		assert.Nil(t, r)
	}
}

func TestBrokerPortInference(t *testing.T) {
	for _, syn := range []bool{true, false} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:19999")
		if syn {
			v.handshake()
		}
		for i := int32(1); i <= 3; i++ {
			v.req(apiVersionsReq(i))
			v.resp(apiVersionsResp(i))
		}
		r := b.read(Options{})
		dump(t, r)
		require.Len(t, r.Conns, 1)
		c := r.Conns[0]
		assert.False(t, c.BrokerByPort)
		assert.Equal(t, uint16(19999), c.Broker.Port)
		assert.Equal(t, uint16(40000), c.Client.Port)
		assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
	}
	// responses seen first in the file must not fool the inference
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:19999")
	v.resp(apiVersionsResp(0))
	for i := int32(1); i <= 3; i++ {
		v.req(apiVersionsReq(i))
		v.resp(apiVersionsResp(i))
	}
	r := b.read(Options{})
	dump(t, r)
	require.Len(t, r.Conns, 1)
	assert.Equal(t, uint16(19999), r.Conns[0].Broker.Port)
	assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
}

func TestCustomBrokerPorts(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9094")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	w := b.conv("10.0.0.1:40001", "10.0.0.3:29092")
	w.handshake()
	w.req(apiVersionsReq(1))
	w.resp(apiVersionsResp(1))
	r := b.read(Options{BrokerPorts: []uint16{9093, 9094, 29092}})
	require.Len(t, r.Conns, 2)
	for _, c := range r.Conns {
		assert.True(t, c.BrokerByPort)
	}
	assert.Equal(t, []int32{1, 1}, pairedCorrs(r))
}

func TestNonKafka(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 1)
	kafkaPkts := len(b.pkts)
	// HTTP on port 80
	h := b.conv("10.0.0.1:40002", "10.0.0.9:80")
	h.handshake()
	h.req([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	h.resp([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
	// UDP, ARP
	b.raw(append([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00},
		0x45, 0, 0, 28, 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2, 0, 53, 0, 53, 0, 8, 0, 0))
	b.raw(append([]byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x06}, make([]byte, 28)...))
	// garbage ethernet frame
	b.raw([]byte{1, 2, 3})
	r := b.read(Options{})
	require.Len(t, r.Conns, 1)
	assert.Equal(t, len(b.pkts)-kafkaPkts, r.NonKafka)
	assert.Equal(t, []int32{1}, pairedCorrs(r))
}

func TestFragmentsSkipped(t *testing.T) {
	b := newTB(t, layers.LinkTypeRaw)
	simple(b, 1)
	frag := []byte{0x45, 0, 0, 40, 0, 1, 0x20, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2}
	b.raw(append(frag, make([]byte, 20)...))
	r := b.read(Options{})
	assert.Equal(t, 1, r.Fragments)
	assert.True(t, hasNote(r, "fragment"))
	assert.Equal(t, []int32{1}, pairedCorrs(r))
}

func produceReq(corr int32, ver int16, acks int16) []byte {
	var body []byte
	if ver >= 3 {
		body = append(body, 0xff, 0xff) // null transactional id
	}
	body = binary.BigEndian.AppendUint16(body, uint16(acks))
	body = append(body, 0, 0, 0x75, 0x30, 0, 0, 0, 0)
	return kreq(0, ver, corr, "producer", body)
}

func TestAcksZeroAndUnpaired(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(produceReq(1, 7, 0)) // acks=0: no response
	v.req(produceReq(2, 3, 1))
	v.resp(kresp(2, []byte{0, 0, 0, 0}))
	v.req(apiVersionsReq(3)) // never answered
	v.req(apiVersionsReq(4))
	v.resp(kresp(99, []byte{0})) // answer to nothing we saw
	v.resp(apiVersionsResp(4))
	r := b.read(Options{})
	require.Len(t, r.Exchanges, 5)
	x := r.Exchanges
	assert.True(t, x[0].NoResponseExpected)
	assert.Nil(t, x[0].Response)
	assert.Equal(t, int32(1), x[0].CorrelationID)
	assert.True(t, x[1].Paired())
	assert.False(t, x[1].NoResponseExpected)
	assert.Nil(t, x[2].Response)
	assert.Equal(t, int32(3), x[2].CorrelationID)
	assert.Equal(t, int32(4), x[3].CorrelationID)
	assert.True(t, x[3].Paired())
	assert.Nil(t, x[4].Request)
	assert.Equal(t, int32(99), x[4].CorrelationID)
	assert.Equal(t, int16(-1), x[4].APIKey)
}

func TestProduceAcksFlexible(t *testing.T) {
	// v9+: flexible header with tagged fields, compact transactional id
	body := []byte{0, 0x00}       // tagged fields: none... header tag count then txn id
	body = []byte{0, 3, 'a', 'b'} // tag count 0, compact string "ab"
	body = append(body, 0, 0)     // acks 0
	req := kreq(0, 9, 5, "p", body)
	assert.Equal(t, 0, produceAcks(req, 9))
	req = kreq(0, 9, 5, "p", []byte{1, 7, 2, 0xaa, 0xbb, 0, 0xff, 0xff})
	assert.Equal(t, -1, produceAcks(req, 9))
	assert.Equal(t, -2, produceAcks(req[:10], 9))
}

func TestReadFuncStreaming(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.req(apiVersionsReq(2))
	v.resp(apiVersionsResp(2)) // 1 is overtaken: it waits on for its answer
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	v.req(apiVersionsReq(4)) // pending at EOF
	var got []*Exchange
	r, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	assert.Nil(t, r.Exchanges)
	require.Len(t, got, 4)
	assert.True(t, got[0].Paired())
	assert.Equal(t, int32(2), got[0].CorrelationID)
	assert.Equal(t, 1, got[0].Overtook)
	assert.True(t, got[1].Paired())
	assert.Equal(t, int32(1), got[2].CorrelationID, "never answered: handed out when the capture ends")
	assert.False(t, got[2].Paired())
	assert.Equal(t, 2, got[2].Overtaken)
	assert.Equal(t, int32(2), got[2].OvertakenBy)
	assert.Equal(t, int32(4), got[3].CorrelationID)
	assert.False(t, got[3].Paired())
	full := b.read(Options{})
	assert.Len(t, full.Exchanges, 4)
}

func TestPortReuseNewConn(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	b.tcp(v.c, v.s, v.cs, v.ss, fRST, nil)
	w := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	w.cs, w.ss = 77777, 88888
	w.handshake()
	w.req(apiVersionsReq(1))
	w.resp(apiVersionsResp(1))
	r := b.read(Options{})
	require.Len(t, r.Conns, 2)
	assert.NotSame(t, r.Exchanges[0].Conn, r.Exchanges[1].Conn)
	assert.Equal(t, []int32{1, 1}, pairedCorrs(r))
}

func TestSnapLengthTruncatedPackets(t *testing.T) {
	// Packets cut by a small snap length: the missing bytes are a known
	// gap; frames that fit stay intact.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	big := kreq(1, 11, 2, "consumer", bytes.Repeat([]byte{0}, 400))
	v.req(big)
	b.pkts[len(b.pkts)-1] = b.pkts[len(b.pkts)-1][:200] // cut
	v.resp(kresp(2, []byte{0, 0}))
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	r := b.read(Options{})
	assert.Equal(t, []int32{1, 3}, pairedCorrs(r))
	assert.True(t, hasNote(r, "snap length"), "%v", r.Notes)
}

func TestLateRequestPairedWithEarlyResponse(t *testing.T) {
	// Mid-stream capture where the client id is too short to trust a
	// request header on its own: the first request is only accepted once
	// the next one confirms it, after its response was already framed.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	resp2 := kresp(2, []byte{0, 0})
	v.req(kreq(1, 11, 1, "c", []byte{0, 0, 0, 0}))
	v.resp(append(kresp(1, []byte{0, 0}), resp2[:4]...)) // response 1 can be framed now
	v.req(kreq(1, 11, 2, "c", []byte{0, 0, 0, 0}))       // request 1 only now
	v.resp(resp2[4:])
	v.req(kreq(1, 11, 3, "c", []byte{0, 0, 0, 0}))
	v.resp(kresp(3, []byte{0, 0}))
	r := b.read(Options{})
	dump(t, r)
	assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
	assert.Len(t, r.Exchanges, 3)
	for _, x := range r.Exchanges {
		assert.Positive(t, x.Latency)
	}
}

// A reader that gives buffers back (Options.Buffer) has each frame copied
// into the buffer it gave, whole, and so can reuse a frame's memory once
// done with its exchange.
func TestReadFuncBuffer(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 3)
	var given [][]byte
	buffer := func(n int) []byte {
		s := make([]byte, 0, n+5)
		given = append(given, s)
		return s
	}
	var got []*Exchange
	_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{Buffer: buffer}, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	require.Len(t, got, 3)
	require.Len(t, given, 6, "a buffer per frame")
	for i, x := range got {
		assert.Equal(t, apiVersionsReq(int32(i+1)), x.Request.Bytes)
		assert.Equal(t, apiVersionsResp(int32(i+1)), x.Response.Bytes)
		for _, f := range []*Frame{x.Request, x.Response} {
			assert.True(t, slices.ContainsFunc(given, func(s []byte) bool { return &s[:1][0] == &f.Bytes[0] }), "frame %d copied into a buffer given", i)
		}
	}
}

// TestSnapLengthGapsFolded: a capture whose snap length cut 1,200 of its
// packets, each request's frame longer than what was captured of it.
// Each cut was a note of its own, and so was each frame it damaged, so
// the first 500 packets' filled the notes and everything after (the last
// cuts, and the malformed packet at the capture's end) was one count,
// "more notes not shown", with no place. Now the first maxFolded cuts
// and damaged frames are said each with its packet and stream offset,
// and one note of each kind says the rest: how many, their bytes, and
// the last's packet and offset; the notes past them are kept.
func TestSnapLengthGapsFolded(t *testing.T) {
	const cuts, snap = 1200, 200
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	body := bytes.Repeat([]byte{0}, 400)
	var frame, lastPkt int
	for i := int32(1); i <= cuts; i++ {
		q := kreq(1, 11, i, "consumer", body)
		frame = len(q)
		v.req(q)
		b.pkts[len(b.pkts)-1] = b.pkts[len(b.pkts)-1][:snap]
		lastPkt = len(b.pkts)
		v.resp(kresp(i, []byte{0, 0}))
	}
	b.raw([]byte{1, 2, 3})               // too short for an Ethernet header
	const captured = snap - 14 - 20 - 20 // Ethernet, IPv4, TCP headers
	missing := frame - captured
	const more = cuts - maxFolded
	for _, keep := range []bool{false, true} {
		r := b.read(Options{KeepDamaged: keep})
		assert.Equal(t, int64(cuts*missing), r.SnapBytes)
		var gaps, frames []Note
		folded := map[string]Note{}
		for _, n := range r.Notes {
			switch {
			case strings.Contains(n.Message, " more "):
				folded[n.Message] = n
			case strings.Contains(n.Message, "bytes not captured (snap length) at stream offset"):
				gaps = append(gaps, n)
			case strings.Contains(n.Message, "damaged by a gap"):
				frames = append(frames, n)
			}
		}
		require.Len(t, gaps, maxFolded, "%v", r.Notes)
		require.Len(t, frames, maxFolded, "%v", r.Notes)
		for i, n := range gaps {
			assert.Equal(t, textfmt.Sprintf("%d bytes not captured (snap length) at stream offset %d", missing, i*frame+captured), n.Message)
			assert.Equal(t, 4+2*i, n.Packet) // after the handshake, every other packet
			assert.NotNil(t, n.Conn)
		}
		wantFrames := textfmt.Sprintf("%d more frames damaged by a gap and dropped after the first %d, %d bytes in all: the last in this packet, at stream offset %d of the client stream",
			more, maxFolded, more*frame, (cuts-1)*frame)
		if keep {
			wantFrames = textfmt.Sprintf("%d more frames damaged by a gap and kept up to it after the first %d, %d bytes missing in all: the last in this packet, at stream offset %d of the client stream",
				more, maxFolded, more*missing, (cuts-1)*frame)
		}
		wantGaps := textfmt.Sprintf("%d more gaps of bytes not captured (snap length) after the first %d, %d bytes in all: the last in this packet, at stream offset %d of the client stream",
			more, maxFolded, more*missing, (cuts-1)*frame+captured)
		for _, want := range []string{wantGaps, wantFrames} {
			n, ok := folded[want]
			if assert.True(t, ok, "no note %q in %v", want, r.Notes) {
				assert.Equal(t, lastPkt, n.Packet)
				assert.NotNil(t, n.Conn)
			}
		}
		assert.Len(t, folded, 2, "%v", r.Notes)
		assert.True(t, hasNote(r, "malformed packet skipped"), "%v", r.Notes)
		assert.False(t, hasNote(r, "more notes not shown"), "%v", r.Notes)
	}
}

// TestLossGapsAndMalformedFolded: a capture that dropped packets has a
// gap in many exchanges, and a damaged one many malformed packets; like
// a snap length's gaps (TestSnapLengthGapsFolded), the first maxFolded
// of each are said with their place, the rest counted in one note at the
// last of them, so neither fills the notes' cap (MaxNotes) and leaves
// what follows it unsaid and unplaced.
func TestLossGapsAndMalformedFolded(t *testing.T) {
	const lost, bad = 30, 40
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	var half int
	var lastOff, lastShown int
	for i := int32(1); i <= lost; i++ {
		q := kreq(1, 11, i, "consumer", bytes.Repeat([]byte{0}, 200))
		segs := v.split(true, q, len(q)/2+1)
		half = len(segs[1].data)
		lastOff = int(segs[1].seq - 1001) // the stream's offset of the segment lost
		v.send(segs[0])                   // the second half is never captured
		v.resp(kresp(i, []byte{0, 0}))    // its ack says the bytes were sent
		lastShown = len(b.pkts)
	}
	for range bad {
		b.raw([]byte{1, 2, 3}) // too short for an Ethernet header
	}
	r := b.read(Options{})
	var gaps, malformed int
	folded := map[string]Note{}
	for _, n := range r.Notes {
		switch {
		case strings.Contains(n.Message, " more "):
			folded[n.Message] = n
		case strings.HasPrefix(n.Message, "gap: "):
			gaps++
			assert.Regexp(t, textfmt.Sprintf(`^gap: %d bytes missing at stream offset \d+ \(acknowledged by peer but not captured\)$`, half), n.Message)
			assert.NotNil(t, n.Conn)
		case n.Message == "malformed packet skipped":
			malformed++
		}
	}
	assert.Equal(t, maxFolded, gaps, "%v", r.Notes)
	assert.Equal(t, maxFolded, malformed, "%v", r.Notes)
	wantGaps := textfmt.Sprintf("%d more gaps of bytes missing (not captured) after the first %d, %d bytes in all: the last in this packet, at stream offset %d of the client stream",
		lost-maxFolded, maxFolded, (lost-maxFolded)*half, lastOff)
	wantBad := textfmt.Sprintf("%d more malformed packets skipped after the first %d, %d bytes in all: the last in this packet", bad-maxFolded, maxFolded, (bad-maxFolded)*3)
	if n, ok := folded[wantGaps]; assert.True(t, ok, "no note %q in %v", wantGaps, r.Notes) {
		// Said where the last gap is: a loss an ACK shows is said at the
		// packet whose ACK showed it (expireHold), the last answer's.
		assert.Equal(t, lastShown, n.Packet)
		assert.NotNil(t, n.Conn)
	}
	if n, ok := folded[wantBad]; assert.True(t, ok, "no note %q in %v", wantBad, r.Notes) {
		assert.Equal(t, len(b.pkts), n.Packet)
		assert.Nil(t, n.Conn)
	}
	assert.Equal(t, int64(lost*half), r.LostBytes)
}

// TestSegmentsFarAheadFolded: segments whose sequence number lies more
// than 1 GiB past the stream are ignored, each with a note; a capture
// may hold one in every packet (an attacker's surely), so like the gaps
// (TestLossGapsAndMalformedFolded) the first maxFolded are said with
// their place, the rest counted in one note at the last of them.
func TestSegmentsFarAheadFolded(t *testing.T) {
	const far = 40
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	q := kreq(18, 3, 1, "consumer", nil)
	v.req(q)
	for i := range far {
		b.tcp(v.c, v.s, v.cs+1<<30+1000+uint32(i), v.ss, fACK|fPSH, []byte("abc"))
	}
	v.resp(kresp(1, []byte{0, 0}))
	r := b.read(Options{})
	said := 0
	var folded []Note
	for _, n := range r.Notes {
		switch {
		case strings.Contains(n.Message, " more "):
			folded = append(folded, n)
		case strings.HasSuffix(n.Message, "bytes ahead of the stream ignored"):
			said++
			assert.NotNil(t, n.Conn)
		}
	}
	assert.Equal(t, maxFolded, said, "%v", r.Notes)
	want := textfmt.Sprintf("%d more segments far ahead of the stream ignored after the first %d, %d bytes in all: the last in this packet, at stream offset %d of the client stream",
		far-maxFolded, maxFolded, (far-maxFolded)*3, len(q))
	if assert.Len(t, folded, 1, "%v", r.Notes) {
		assert.Equal(t, want, folded[0].Message)
		assert.Equal(t, 3+1+far, folded[0].Packet) // after the handshake and the request, the last of them
	}
	assert.Equal(t, []int32{1}, pairedCorrs(r), "the exchange around them is read")
}

// TestLostSyncAndResyncFolded: each loss that takes a frame's start
// loses the stream's frame sync and skips the rest of that frame to find
// the next: two notes a loss, said one by one, so a lossy capture's
// filled the notes' cap (MaxNotes) and left what followed unsaid. Like
// the gaps (TestLossGapsAndMalformedFolded), the first maxFolded of each
// kind are said with their place, the rest counted in one note at the
// last of them.
func TestLostSyncAndResyncFolded(t *testing.T) {
	const losses, lostPart = 30, 30
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	var skipped, lastSync, lastResync, lastShown int
	for i := int32(1); i <= losses; i++ {
		v.req(kreq(1, 11, 2*i-1, "consumer", bytes.Repeat([]byte{0}, 100)))
		r := kreq(1, 11, 2*i, "consumer", bytes.Repeat([]byte{0}, 200))
		segs := v.split(true, r, lostPart)
		lastSync = int(segs[1].seq - 1001) // the stream offset the loss ends at
		skipped = len(r) - lostPart
		lastResync = lastSync + skipped
		for _, s := range segs[1:] { // its first bytes are never captured
			v.send(s)
		}
		v.resp(kresp(2*i-1, []byte{0, 0})) // its ack says they were sent
		lastShown = len(b.pkts)
	}
	v.req(kreq(1, 11, 2*losses+1, "consumer", nil))
	v.fin()
	r := b.read(Options{})
	var sync, resync []Note
	folded := map[string]Note{}
	for _, n := range r.Notes {
		switch {
		case strings.Contains(n.Message, " more "):
			folded[n.Message] = n
		case strings.HasPrefix(n.Message, "lost frame sync"):
			sync = append(sync, n)
		case strings.HasPrefix(n.Message, "skipped "):
			resync = append(resync, n)
		}
	}
	require.Len(t, sync, maxFolded, "%v", r.Notes)
	require.Len(t, resync, maxFolded, "%v", r.Notes)
	for i := range maxFolded {
		assert.Regexp(t, `^lost frame sync in the client stream at offset \d+$`, sync[i].Message)
		assert.Regexp(t, textfmt.Sprintf(`^skipped %d bytes of the client stream to resynchronise at offset \d+$`, skipped), resync[i].Message)
		assert.Equal(t, sync[i].Packet, resync[i].Packet, "the loss and the skip after it are said where the ACK showed it")
		assert.NotNil(t, sync[i].Conn)
	}
	wantSync := textfmt.Sprintf("%d more losses of frame sync after the first %d: the last in this packet, at stream offset %d of the client stream",
		losses-maxFolded, maxFolded, lastSync)
	wantResync := textfmt.Sprintf("%d more resynchronisations after the first %d, %d bytes skipped in all: the last in this packet, at stream offset %d of the client stream",
		losses-maxFolded, maxFolded, (losses-maxFolded)*skipped, lastResync)
	for _, want := range []string{wantSync, wantResync} {
		if n, ok := folded[want]; assert.True(t, ok, "no note %q in %v", want, r.Notes) {
			assert.Equal(t, lastShown, n.Packet)
			assert.NotNil(t, n.Conn)
		}
	}
	assert.Len(t, folded, 3, "and the gaps': %v", r.Notes)
	assert.Equal(t, int64(losses*skipped), r.SkippedBytes)
	var odd []int32
	for i := int32(1); i <= losses; i++ {
		odd = append(odd, 2*i-1)
	}
	assert.Equal(t, odd, pairedCorrs(r), "the requests around the losses are read")
}

// TestImplausibleHeadersFolded: a frame header found implausible in sync,
// and a request whose implausible header its size frames all the same
// (in a stream followed from its SYN), were said each in a note of its
// own: bytes that are no Kafka, or a hostile capture, may hold one in
// every frame, which filled the notes' cap (MaxNotes) and left what
// followed unsaid. Like the losses of sync (TestLostSyncAndResyncFolded),
// the first maxFolded of each kind are said with their place, the rest
// counted in one note at the last of them; the first implausible header
// of a stream followed from its SYN, which kwire check judges
// (Note.Unframed), is said whatever the count, and not counted.
func TestImplausibleHeadersFolded(t *testing.T) {
	const bySize, rounds = 30, 31
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	off := 0
	var lastSized, sizedBytes, lastSizedPkt int
	for i := 1; i <= bySize; i++ {
		q := kreq(3, 12, int32(-i), "consumer", []byte{0, 0, 0, 0}) // a negative correlation id
		if i > maxFolded {
			sizedBytes += len(q)
		}
		lastSized = off
		v.req(q)
		lastSizedPkt = len(b.pkts)
		off += len(q)
	}
	garbage := bytes.Repeat([]byte{0xff}, 6)
	var firstBad, lastBad, lastBadPkt int
	for i := int32(1); i <= rounds; i++ {
		q := kreq(3, 12, i, "consumer", []byte{0, 0, 0, 0})
		v.req(append(q, garbage...))
		lastBadPkt = len(b.pkts)
		lastBad = off + len(q)
		if i == 1 {
			firstBad = lastBad
		}
		off += len(q) + len(garbage)
		v.resp(kresp(i, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
	}
	v.fin()
	r := b.read(Options{})
	var sized, bad, unframed []Note
	folded := map[string]Note{}
	for _, n := range r.Notes {
		switch {
		case strings.Contains(n.Message, " more "):
			folded[n.Message] = n
		case n.Unframed:
			unframed = append(unframed, n)
		case strings.HasSuffix(n.Message, "framed by its size all the same (the stream is followed from its SYN)"):
			sized = append(sized, n)
		case strings.HasPrefix(n.Message, "implausible frame header"):
			bad = append(bad, n)
		}
	}
	require.Len(t, sized, maxFolded, "%v", r.Notes)
	require.Len(t, bad, maxFolded, "%v", r.Notes)
	for i := range maxFolded {
		assert.Regexp(t, `^implausible frame header 00 00 00 16 00 03 00 0c ff ff ff \w\w at offset \d+ of the client stream, framed`, sized[i].Message)
		assert.Regexp(t, `^implausible frame header ff ff ff ff ff ff at offset \d+ of the client stream$`, bad[i].Message)
		assert.NotNil(t, sized[i].Conn)
		assert.NotNil(t, bad[i].Conn)
	}
	if assert.Len(t, unframed, 1, "%v", r.Notes) {
		assert.Equal(t, textfmt.Sprintf("implausible frame header ff ff ff ff ff ff at offset %d of the client stream", firstBad), unframed[0].Message)
	}
	wantSized := textfmt.Sprintf("%d more requests whose header is implausible framed by their size all the same after the first %d, %d bytes in all: the last in this packet, at stream offset %d of the client stream",
		bySize-maxFolded, maxFolded, sizedBytes, lastSized)
	wantBad := textfmt.Sprintf("%d more implausible frame headers after the first %d: the last in this packet, at stream offset %d of the client stream",
		rounds-1-maxFolded, maxFolded, lastBad)
	if n, ok := folded[wantSized]; assert.True(t, ok, "no note %q in %v", wantSized, r.Notes) {
		assert.Equal(t, lastSizedPkt, n.Packet)
		assert.NotNil(t, n.Conn)
	}
	if n, ok := folded[wantBad]; assert.True(t, ok, "no note %q in %v", wantBad, r.Notes) {
		assert.Equal(t, lastBadPkt, n.Packet)
		assert.NotNil(t, n.Conn)
	}
	assert.Len(t, folded, 3, "and the resynchronisations': %v", r.Notes)
	assert.Len(t, r.Notes, 10+10+1+10+3, "%v", r.Notes)
	assert.Equal(t, seqCorrs(1, rounds), pairedCorrs(r), "the requests around them are read")
}
