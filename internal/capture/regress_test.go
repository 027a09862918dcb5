package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"slices"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRegressionShortRequestResync: a 106-byte pcap (issue 11) panicked
// with an index out of range in reqCandidate. Its one TCP segment, seen
// without a SYN, so the stream starts by resynchronising, carries a
// 12-byte request of size 8 (ApiVersions v3, correlation id 1): a header
// without a client id, and nothing after it, where reqCandidate read the
// client id length at b[12:]. Made with tb (helpers_test.go):
//
//	conv("10.0.0.1:40000", "10.0.0.2:9092").req(000000080012000300000001)
func TestRegressionShortRequestResync(t *testing.T) {
	const file = "4d3cb2a10200040000000000000000000000010001000000c02e326640420f00420000004200000002000000000202000000000108004500003400000000400666c20a0000010a0000029c402384000003e80007a1205018ffff36cc0000000000080012000300000001"
	data, err := hex.DecodeString(file)
	require.NoError(t, err)
	require.Len(t, data, 106)
	r, err := Read(bytes.NewReader(data), Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, r.Packets)
	// The frame is taken at the end of the stream, where nothing follows
	// it to contradict it: one request, never answered.
	require.Len(t, r.Exchanges, 1)
	x := r.Exchanges[0]
	require.NotNil(t, x.Request)
	assert.Nil(t, x.Response)
	assert.Equal(t, int16(18), x.APIKey)
	assert.Equal(t, int32(1), x.CorrelationID)

	n := 0
	_, err = ReadFunc(bytes.NewReader(data), Options{}, func(*Exchange) { n++ })
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// TestGzipInsideGzip: only one gzip layer is unwrapped (a gzip quine
// would otherwise recurse until the stack runs out).
func TestGzipInsideGzip(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 1)
	once := gzipped(t, b.pcap())
	r, err := Read(bytes.NewReader(once), Options{})
	require.NoError(t, err)
	assert.Equal(t, []int32{1}, pairedCorrs(r))
	_, err = Read(bytes.NewReader(gzipped(t, once)), Options{})
	require.ErrorIs(t, err, ErrFormat)
	assert.ErrorContains(t, err, "gzip inside gzip")
}

func gzipped(t *testing.T, b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	_, err := w.Write(b)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return z.Bytes()
}

// TestPcapngOptionsPadding: an option whose value fits its block but whose
// padding does not ends the option list instead of slicing past it.
func TestPcapngOptionsPadding(t *testing.T) {
	g := &ngReader{order: binary.LittleEndian}
	var got [][]byte
	collect := func(code uint16, v []byte) { got = append(got, bytes.Clone(v)) }
	// code 9, length 1, value 6, no padding: the value is read, then the list ends
	g.options([]byte{9, 0, 1, 0, 6}, collect)
	assert.Equal(t, [][]byte{{6}}, got)
	got = nil
	// a length past the end: nothing
	g.options([]byte{9, 0, 9, 0, 6, 0, 0, 0}, collect)
	assert.Empty(t, got)
	got = nil
	// two padded options, then the end-of-options marker
	g.options([]byte{9, 0, 1, 0, 6, 0, 0, 0, 2, 0, 2, 0, 'h', 'i', 0, 0, 0, 0, 0, 0}, collect)
	assert.Equal(t, [][]byte{{6}, []byte("hi")}, got)
}

// TestPcapngInterfaceFlood: interface descriptions are capped per section,
// so a stream of them cannot grow memory without end.
func TestPcapngInterfaceFlood(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 1)
	data := b.pcapng()
	shb := int(binary.LittleEndian.Uint32(data[4:]))
	idb := binary.LittleEndian.AppendUint32(nil, 1)
	idb = binary.LittleEndian.AppendUint32(idb, 20)
	idb = binary.LittleEndian.AppendUint32(idb, 1)
	idb = binary.LittleEndian.AppendUint32(idb, 65536)
	idb = binary.LittleEndian.AppendUint32(idb, 20)
	flood := bytes.Clone(data[:shb])
	for i := 0; i <= maxInterfaces; i++ {
		flood = append(flood, idb...)
	}
	flood = append(flood, data[shb:]...)
	r, err := Read(bytes.NewReader(flood), Options{})
	require.NoError(t, err)
	assert.True(t, r.Truncated())
	assert.True(t, hasNote(r, "interfaces in one section"), "%v", r.Notes)
	assert.Zero(t, r.Packets)
}

// hiddenID is a client id a client could pick to hide from a capture
// reader that wants client ids printable: an escape sequence, a bell, a
// NUL and a DEL.
const hiddenID = "\x1b]0;x\x07\x00\x7f"

// TestControlBytesClientID: a request whose client id holds control bytes
// is read and paired like any other, in sync (after a handshake), when the
// stream starts with it (no handshake seen, so the reader resynchronises
// on it), and on a port that is not known as a broker's: a client cannot
// hide its requests from kwire pcap by its client id. (It was skipped as
// an "implausible frame header".)
func TestControlBytesClientID(t *testing.T) {
	hidden := func(corr int32) []byte {
		return kreq(18, 3, corr, hiddenID, []byte{0, 6, 'k', 'w', 'i', 'r', 'e', 4, '1', '.', '0', 0})
	}
	for _, c := range []struct {
		name      string
		handshake bool
		server    string
	}{
		{"in sync", true, "10.0.0.2:9092"},
		{"first frame, no handshake", false, "10.0.0.2:9092"},
		{"unknown broker port", true, "10.0.0.2:7777"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newTB(t, layers.LinkTypeEthernet)
			v := b.conv("10.0.0.1:40000", c.server)
			if c.handshake {
				v.handshake()
			}
			for i := int32(1); i <= 4; i++ {
				if i%2 == 1 {
					v.req(hidden(i))
				} else {
					v.req(apiVersionsReq(i))
				}
				v.resp(apiVersionsResp(i))
			}
			v.fin()
			r := b.read(Options{})
			assert.Equal(t, []int32{1, 2, 3, 4}, pairedCorrs(r), "%v", r.Notes)
			assert.False(t, hasNote(r, "implausible frame header"), "%v", r.Notes)
			for _, x := range r.Exchanges {
				if x.CorrelationID%2 == 1 {
					assert.Contains(t, string(x.Request.Bytes), hiddenID)
				}
			}
		})
	}
}

// TestResponseNeverBeforeItsRequest: a capture that starts in the middle
// of a response leaves its tail to resynchronise over, and a spot in that
// tail whose bytes 4-8 equal the correlation id of the request sent next
// waits there for more bytes to judge it by. Once that request is framed,
// the spot must not be taken for its answer: its bytes came before the
// request. The real answer is paired, and no latency is negative.
func TestResponseNeverBeforeItsRequest(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	// No handshake: the tail of an older response, with what reads as a
	// whole 16-byte frame with correlation id 2 in it, which only the
	// size prefix after it could confirm: two bytes of it are there.
	ff := bytes.Repeat([]byte{0xff}, 8)
	tail := slices.Concat(ff, []byte{0, 0, 0, 12, 0, 0, 0, 2}, ff, []byte{0, 0})
	v.resp(tail)
	v.req(apiVersionsReq(2))
	v.resp(apiVersionsResp(2))
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	check := func(xs []*Exchange) {
		t.Helper()
		var paired []int32
		for _, x := range xs {
			assert.GreaterOrEqual(t, x.Latency, time.Duration(0), "correlation %d", x.CorrelationID)
			if x.Paired() {
				paired = append(paired, x.CorrelationID)
				assert.Equal(t, apiVersionsResp(x.CorrelationID), x.Response.Bytes, "correlation %d", x.CorrelationID)
				assert.Greater(t, x.Response.PacketIndex, x.Request.PacketIndex)
			}
		}
		assert.Equal(t, []int32{2, 3}, paired)
	}
	r := b.read(Options{})
	dump(t, r)
	check(r.Exchanges)
	var got []*Exchange
	_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	check(got)
}

// TestBinaryResolutionTimestampsExact: pcapng timestamps in binary units
// (if_tsresol 2^-30, 2^-32, as some capture hardware writes) are read
// exactly, to the nanosecond, as tshark reads them. Dividing the fraction
// by perSec/1e9 in integers was off by up to 7% of a second.
func TestBinaryResolutionTimestampsExact(t *testing.T) {
	for _, pow := range []uint{30, 32, 20} {
		b := newTB(t, layers.LinkTypeEthernet)
		b.now = b.now.Add(123456789 * time.Nanosecond)
		simple(b, 2)
		data := withBinaryResolution(t, b.pcapng(), pow)
		r, err := Read(bytes.NewReader(data), Options{})
		require.NoError(t, err)
		require.Equal(t, []int32{1, 2}, pairedCorrs(r))
		for _, x := range r.Exchanges {
			for _, f := range []*Frame{x.Request, x.Response} {
				want := b.times[f.PacketIndex-1]
				// the file holds the time truncated to 2^-pow s; read
				// back, it is short by less than that unit and a
				// nanosecond
				d := want.Sub(f.Time)
				assert.True(t, d >= 0 && d <= time.Second>>pow+time.Nanosecond, "2^-%d: packet %d read as %v, written %v", pow, f.PacketIndex, f.Time, want)
			}
		}
	}
}

// withBinaryResolution rewrites a little-endian pcapng written by pcapgo
// (nanosecond resolution, one interface) to if_tsresol 2^-pow, every
// packet's timestamp converted (truncated).
func withBinaryResolution(t *testing.T, data []byte, pow uint) []byte {
	data = bytes.Clone(data)
	le := binary.LittleEndian
	for off := 0; off+12 <= len(data); {
		typ, blen := le.Uint32(data[off:]), int(le.Uint32(data[off+4:]))
		body := data[off+8 : off+blen-4]
		switch typ {
		case 1: // interface description: options from byte 8 of the body
			o := body[8:]
			for len(o) >= 4 && le.Uint16(o) != 0 {
				n := int(le.Uint16(o[2:]))
				if le.Uint16(o) == 9 {
					o[4] = 0x80 | byte(pow)
				}
				o = o[4+(n+3)&^3:]
			}
		case 6:
			ns := uint64(le.Uint32(body[4:]))<<32 | uint64(le.Uint32(body[8:]))
			hi, lo := bits.Mul64(ns%1e9, 1<<pow)
			frac, _ := bits.Div64(hi, lo, 1e9)
			ts := ns/1e9<<pow | frac
			le.PutUint32(body[4:], uint32(ts>>32))
			le.PutUint32(body[8:], uint32(ts))
		}
		off += blen
	}
	return data
}

// TestTLSConnectionsSaid: a connection that starts with a TLS record (a
// ClientHello after the SYN; application data records back to back in a
// capture that starts mid-connection) is encrypted. It is said once per
// connection, in a note marked TLS, counted in Result.TLS, and neither
// framed (no "implausible frame header", no frame of 369 MB waited for)
// nor counted as a Kafka connection, even on a broker port.
func TestTLSConnectionsSaid(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9093")
	v.handshake()
	hello := append([]byte{22, 3, 1, 0, 8, 1, 0, 0, 4, 3, 3}, bytes.Repeat([]byte{7}, 2)...)
	v.req(hello)
	v.resp([]byte{22, 3, 3, 0, 4, 2, 0, 0, 0})
	v.req(append([]byte{23, 3, 3, 0, 3}, 1, 2, 3))
	v.fin()
	w := b.conv("10.0.0.1:40001", "10.0.0.2:9093") // no handshake seen
	w.req(slices.Concat([]byte{23, 3, 3, 0, 3, 1, 2, 3}, []byte{23, 3, 3, 0, 2, 4, 5}))
	w.resp(slices.Concat([]byte{23, 3, 3, 0, 3, 1, 2, 3}, []byte{23, 3, 3, 0, 2, 4, 5}))
	k := b.conv("10.0.0.1:40002", "10.0.0.2:9093")
	k.handshake()
	k.req(apiVersionsReq(1))
	k.resp(apiVersionsResp(1))
	k.fin()
	for _, ports := range [][]uint16{{9093}, nil} {
		r := b.read(Options{BrokerPorts: ports})
		dump(t, r)
		assert.Equal(t, 2, r.TLS, "ports %v", ports)
		assert.Equal(t, 1, r.Connections)
		assert.Equal(t, []int32{1}, pairedCorrs(r))
		var said []string
		for _, n := range r.Notes {
			require.True(t, n.TLS, "only TLS is said: %s", n)
			said = append(said, n.String())
		}
		assert.Equal(t, []string{
			"packet 4: conn 1 10.0.0.1:40000->10.0.0.2:9093: TLS (record header 16 03 01): encrypted, not decoded",
			"packet 10: conn 2 10.0.0.1:40001->10.0.0.2:9093: TLS (record header 17 03 03): encrypted, not decoded",
		}, said, "ports %v", ports)
	}
}

// TestRolesWhenFirstFrameIsAResponse: without a broker port to go by, a
// connection whose only captured frame is a response that also reads as a
// request (an InitProducerId v2 response: 00 00 00 16 00 00 00 01 00 00
// 00 00 00 00 reads as Produce v1, correlation id 0, empty client id) is
// not turned round: the side on an ephemeral port is the client's.
func TestRolesWhenFirstFrameIsAResponse(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("127.0.0.1:45732", "127.0.0.1:29095") // no handshake seen
	v.resp(kresp(1, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0}))
	v.fin()
	r := b.read(Options{})
	dump(t, r)
	require.Len(t, r.Conns, 1)
	assert.Equal(t, "127.0.0.1:29095", r.Conns[0].Broker.String())
	require.Len(t, r.Exchanges, 1)
	x := r.Exchanges[0]
	assert.Nil(t, x.Request)
	require.NotNil(t, x.Response)
	assert.Equal(t, int32(1), x.CorrelationID)
}

// TestRolesFromOtherConnections: a broker listening on a port in the
// ephemeral range (39092, as a test cluster's), in a capture begun in the
// middle of its connections: one whose only frames are responses that
// also read as requests (InitProducerId answers read as Produce v1 with
// an empty client id) takes the broker side another connection showed
// surely (a request's correlation id echoed). It was turned round, its
// responses decoded as requests: kwire check said acks 74 and Produce v1
// outside what the broker advertised, 4 false errors in a probe's capture.
func TestRolesFromOtherConnections(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	sure := b.conv("127.0.0.1:45000", "127.0.0.1:39092")
	sure.req(apiVersionsReq(5))
	sure.resp(apiVersionsResp(5))
	v := b.conv("127.0.0.1:45732", "127.0.0.1:39092") // no handshake seen
	for corr := int32(1); corr <= 3; corr++ {
		v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0}))
	}
	v.fin()
	sure.fin()
	r := b.read(Options{})
	dump(t, r)
	require.Len(t, r.Conns, 2)
	for _, c := range r.Conns {
		assert.Equal(t, "127.0.0.1:39092", c.Broker.String(), "conn %d", c.ID)
	}
	for _, x := range r.Exchanges {
		if x.Conn.Client.Port == 45732 {
			assert.Nil(t, x.Request, "a response read as a request")
			assert.NotNil(t, x.Response)
		}
	}
}
