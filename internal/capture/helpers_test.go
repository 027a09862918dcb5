package capture

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/stretchr/testify/require"
)

// kreq builds a Kafka request frame: size, apiKey, apiVersion,
// correlationId, clientId, body.
func kreq(key, ver int16, corr int32, clientID string, body []byte) []byte {
	b := make([]byte, 4, 64+len(body))
	b = binary.BigEndian.AppendUint16(b, uint16(key))
	b = binary.BigEndian.AppendUint16(b, uint16(ver))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = binary.BigEndian.AppendUint16(b, uint16(len(clientID)))
	b = append(b, clientID...)
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// kresp builds a response frame: size, correlationId, body.
func kresp(corr int32, body []byte) []byte {
	b := make([]byte, 4, 8+len(body))
	b = binary.BigEndian.AppendUint32(b, uint32(corr))
	b = append(b, body...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// apiVersionsReq is an ApiVersions v3 request (key 18).
func apiVersionsReq(corr int32) []byte {
	// v3 uses the flexible header v2: clientId then tagged fields (0),
	// body: compact strings client_software_name/version + tagged fields.
	return kreq(18, 3, corr, "kwire-test", []byte{0, 6, 'k', 'w', 'i', 'r', 'e', 4, '1', '.', '0', 0})
}

func apiVersionsResp(corr int32) []byte {
	return kresp(corr, []byte{0, 0, 2, 0, 18, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0})
}

// tb builds a capture packet by packet.
type tb struct {
	t     testing.TB
	link  layers.LinkType
	big   bool // big-endian family for null/loop
	vlan  bool
	pkts  [][]byte
	times []time.Time
	now   time.Time
}

func newTB(t testing.TB, link layers.LinkType) *tb {
	return &tb{t: t, link: link, now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
}

func (b *tb) tick() time.Time {
	b.now = b.now.Add(time.Millisecond)
	return b.now
}

const (
	fSYN = tcpSYN
	fACK = tcpACK
	fFIN = tcpFIN
	fRST = tcpRST
	fPSH = 0x08
)

func (b *tb) tcp(src, dst netip.AddrPort, seq, ack uint32, flags uint8, payload []byte) {
	b.raw(b.buildTCP(src, dst, seq, ack, flags, payload))
}

func (b *tb) raw(pkt []byte) {
	b.pkts = append(b.pkts, pkt)
	b.times = append(b.times, b.tick())
}

func (b *tb) buildTCP(src, dst netip.AddrPort, seq, ack uint32, flags uint8, payload []byte) []byte {
	tcp := &layers.TCP{
		SrcPort: layers.TCPPort(src.Port()), DstPort: layers.TCPPort(dst.Port()),
		Seq: seq, Ack: ack, Window: 65535,
		SYN: flags&fSYN != 0, ACK: flags&fACK != 0, FIN: flags&fFIN != 0, RST: flags&fRST != 0, PSH: flags&fPSH != 0,
	}
	var ip gopacket.SerializableLayer
	v6 := src.Addr().Is6()
	if v6 {
		l := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolTCP, SrcIP: net.IP(src.Addr().AsSlice()), DstIP: net.IP(dst.Addr().AsSlice())}
		require.NoError(b.t, tcp.SetNetworkLayerForChecksum(l))
		ip = l
	} else {
		l := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: net.IP(src.Addr().AsSlice()), DstIP: net.IP(dst.Addr().AsSlice())}
		require.NoError(b.t, tcp.SetNetworkLayerForChecksum(l))
		ip = l
	}
	buf := gopacket.NewSerializeBuffer()
	require.NoError(b.t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ip, tcp, gopacket.Payload(payload)))
	return b.link2(bytes.Clone(buf.Bytes()), v6)
}

// link2 prepends the link-layer header.
func (b *tb) link2(ippkt []byte, v6 bool) []byte {
	et := uint16(0x0800)
	if v6 {
		et = 0x86dd
	}
	var h []byte
	switch b.link {
	case layers.LinkTypeEthernet:
		h = []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1}
		if b.vlan {
			h = binary.BigEndian.AppendUint16(h, 0x8100)
			h = binary.BigEndian.AppendUint16(h, 42)
		}
		h = binary.BigEndian.AppendUint16(h, et)
	case layers.LinkTypeNull, layers.LinkTypeLoop:
		fam := uint32(2)
		if v6 {
			fam = 30
		}
		if b.big {
			h = binary.BigEndian.AppendUint32(nil, fam)
		} else {
			h = binary.LittleEndian.AppendUint32(nil, fam)
		}
	case layers.LinkTypeLinuxSLL:
		h = []byte{0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0}
		h = binary.BigEndian.AppendUint16(h, et)
	case linkSLL2 & 0xff:
		h = binary.BigEndian.AppendUint16(nil, et)
		h = append(h, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0)
	case layers.LinkTypeRaw:
	default:
		b.t.Fatalf("link %d", b.link)
	}
	return append(h, ippkt...)
}

func (b *tb) pcap() []byte {
	var out bytes.Buffer
	w := pcapgo.NewWriterNanos(&out)
	require.NoError(b.t, w.WriteFileHeader(65536, b.link))
	for i, p := range b.pkts {
		require.NoError(b.t, w.WritePacket(gopacket.CaptureInfo{Timestamp: b.times[i], CaptureLength: len(p), Length: len(p)}, p))
	}
	data := out.Bytes()
	if b.link == linkSLL2&0xff {
		binary.LittleEndian.PutUint32(data[20:], linkSLL2)
	}
	return data
}

func (b *tb) pcapng() []byte {
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriter(&out, b.link)
	require.NoError(b.t, err)
	for i, p := range b.pkts {
		require.NoError(b.t, w.WritePacket(gopacket.CaptureInfo{Timestamp: b.times[i], CaptureLength: len(p), Length: len(p)}, p))
	}
	require.NoError(b.t, w.Flush())
	data := out.Bytes()
	if b.link == linkSLL2&0xff {
		// the first interface description block follows the section header
		shb := binary.LittleEndian.Uint32(data[4:])
		binary.LittleEndian.PutUint16(data[shb+8:], linkSLL2)
	}
	return data
}

func (b *tb) read(opts Options) *Result {
	b.t.Helper()
	r, err := Read(bytes.NewReader(b.pcap()), opts)
	require.NoError(b.t, err)
	return r
}

// cv is one TCP conversation between a client and a broker.
type cv struct {
	b      *tb
	c, s   netip.AddrPort
	cs, ss uint32 // next sequence numbers
}

func (b *tb) conv(client, server string) *cv {
	return &cv{b: b, c: netip.MustParseAddrPort(client), s: netip.MustParseAddrPort(server), cs: 1000, ss: 500000}
}

func (v *cv) handshake() {
	v.b.tcp(v.c, v.s, v.cs, 0, fSYN, nil)
	v.b.tcp(v.s, v.c, v.ss, v.cs+1, fSYN|fACK, nil)
	v.cs++
	v.ss++
	v.b.tcp(v.c, v.s, v.cs, v.ss, fACK, nil)
}

type tseg struct {
	client bool
	seq    uint32
	data   []byte
}

// split cuts data into segments of at most n bytes from one side,
// advancing that side's sequence number; nothing is sent yet.
func (v *cv) split(client bool, data []byte, n int) []tseg {
	var out []tseg
	for len(data) > 0 {
		k := min(n, len(data))
		if client {
			out = append(out, tseg{true, v.cs, data[:k]})
			v.cs += uint32(k)
		} else {
			out = append(out, tseg{false, v.ss, data[:k]})
			v.ss += uint32(k)
		}
		data = data[k:]
	}
	return out
}

func (v *cv) send(s tseg) {
	if s.client {
		v.b.tcp(v.c, v.s, s.seq, v.ss, fACK|fPSH, s.data)
	} else {
		v.b.tcp(v.s, v.c, s.seq, v.cs, fACK|fPSH, s.data)
	}
}

func (v *cv) sendAll(ss []tseg) {
	for _, s := range ss {
		v.send(s)
	}
}

func (v *cv) req(data []byte)  { v.sendAll(v.split(true, data, 1<<20)) }
func (v *cv) resp(data []byte) { v.sendAll(v.split(false, data, 1<<20)) }

func (v *cv) fin() {
	v.b.tcp(v.c, v.s, v.cs, v.ss, fFIN|fACK, nil)
	v.b.tcp(v.s, v.c, v.ss, v.cs+1, fFIN|fACK, nil)
	v.cs++
	v.ss++
	v.b.tcp(v.c, v.s, v.cs, v.ss, fACK, nil)
}

// exchanges returns the paired exchanges' correlation ids in order.
func pairedCorrs(r *Result) []int32 {
	var out []int32
	for _, x := range r.Exchanges {
		if x.Paired() {
			out = append(out, x.CorrelationID)
		}
	}
	return out
}

func seqCorrs(from, to int32) []int32 {
	var out []int32
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// mixedNg writes a pcapng with one interface per builder, packets merged
// by time.
func mixedNg(t testing.TB, bs ...*tb) []byte {
	var out bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&out, pcapgo.NgInterface{LinkType: bs[0].link, SnapLength: 65536}, pcapgo.DefaultNgWriterOptions)
	require.NoError(t, err)
	for _, b := range bs[1:] {
		_, err := w.AddInterface(pcapgo.NgInterface{LinkType: b.link, SnapLength: 65536})
		require.NoError(t, err)
	}
	idx := make([]int, len(bs))
	for {
		best := -1
		for i, b := range bs {
			if idx[i] < len(b.pkts) && (best < 0 || b.times[idx[i]].Before(bs[best].times[idx[best]])) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		p := bs[best].pkts[idx[best]]
		ci := gopacket.CaptureInfo{Timestamp: bs[best].times[idx[best]], CaptureLength: len(p), Length: len(p), InterfaceIndex: best}
		require.NoError(t, w.WritePacket(ci, p))
		idx[best]++
	}
	require.NoError(t, w.Flush())
	return out.Bytes()
}

// dump logs a result (shown on failure or with -v).
func dump(t *testing.T, r *Result) {
	for _, n := range r.Notes {
		t.Log(n)
	}
	for _, x := range r.Exchanges {
		s := fmt.Sprintf("key=%d corr=%d", x.APIKey, x.CorrelationID)
		if x.Request != nil {
			s += fmt.Sprintf(" req@%d len=%d", x.Request.StreamOffset, len(x.Request.Bytes))
		}
		if x.Response != nil {
			s += fmt.Sprintf(" resp@%d len=%d", x.Response.StreamOffset, len(x.Response.Bytes))
		}
		t.Log(s)
	}
}
