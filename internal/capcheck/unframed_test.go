package capcheck

import (
	"bytes"
	"encoding/binary"
	"net"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/kwire/kwire/internal/capture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pcapBuilder writes a capture of TCP connections, each from its SYN.
type pcapBuilder struct {
	t   *testing.T
	out bytes.Buffer
	w   *pcapgo.Writer
	now time.Time
}

func newPcap(t *testing.T) *pcapBuilder {
	b := &pcapBuilder{t: t, now: time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)}
	b.w = pcapgo.NewWriter(&b.out)
	require.NoError(t, b.w.WriteFileHeader(65536, layers.LinkTypeEthernet))
	return b
}

func (b *pcapBuilder) pkt(src, dst net.IP, sport, dport uint16, seq, ack uint32, syn, fin bool, payload []byte) {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, IHL: 5, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src, DstIP: dst}
	tcp := &layers.TCP{SrcPort: layers.TCPPort(sport), DstPort: layers.TCPPort(dport), Seq: seq, Ack: ack, Window: 65535, SYN: syn, FIN: fin, ACK: ack != 0, PSH: len(payload) > 0}
	require.NoError(b.t, tcp.SetNetworkLayerForChecksum(ip))
	buf := gopacket.NewSerializeBuffer()
	require.NoError(b.t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(payload)))
	b.now = b.now.Add(time.Millisecond)
	require.NoError(b.t, b.w.WritePacket(gopacket.CaptureInfo{Timestamp: b.now, CaptureLength: len(buf.Bytes()), Length: len(buf.Bytes())}, buf.Bytes()))
}

// conn writes a connection from client to port 9092: its handshake, then
// each of msgs in turn, the client's (even) and the broker's (odd), then
// its close.
func (b *pcapBuilder) conn(client net.IP, msgs ...[]byte) {
	broker := net.IPv4(10, 0, 0, 2)
	cs, ss := uint32(1000), uint32(500000)
	b.pkt(client, broker, 40000, 9092, cs, 0, true, false, nil)
	b.pkt(broker, client, 9092, 40000, ss, cs+1, true, false, nil)
	cs, ss = cs+1, ss+1
	b.pkt(client, broker, 40000, 9092, cs, ss, false, false, nil)
	for i, m := range msgs {
		if i%2 == 0 {
			b.pkt(client, broker, 40000, 9092, cs, ss, false, false, m)
			cs += uint32(len(m))
		} else {
			b.pkt(broker, client, 9092, 40000, ss, cs, false, false, m)
			ss += uint32(len(m))
		}
	}
	b.pkt(client, broker, 40000, 9092, cs, ss, false, true, nil)
	b.pkt(broker, client, 9092, 40000, ss, cs+1, false, true, nil)
	b.pkt(client, broker, 40000, 9092, cs+1, ss+1, false, false, nil)
}

// kafkaConn writes a Kafka connection: ApiVersions v0 asked twice and
// answered, a response to no request between them.
func (b *pcapBuilder) kafkaConn() {
	req := func(corr uint32) []byte {
		q := []byte{0, 0, 0, 0, 0, 18, 0, 0}
		q = binary.BigEndian.AppendUint32(q, corr)
		q = append(q, 0, 3, 'c', 'l', 'i')
		binary.BigEndian.PutUint32(q, uint32(len(q)-4))
		return q
	}
	resp := func(corr uint32) []byte {
		r := binary.BigEndian.AppendUint32([]byte{0, 0, 0, 0}, corr)
		r = append(r, 0, 0, 0, 0, 0, 1, 0, 18, 0, 0, 0, 3)
		binary.BigEndian.PutUint32(r, uint32(len(r)-4))
		return r
	}
	b.conn(net.IPv4(10, 0, 0, 1), req(1), resp(1), req(2), append(resp(7), resp(2)...))
}

// endOf reads capture b as kwire check does and returns the findings of
// every exchange and those at the end.
func endOf(t *testing.T, b []byte) (per, end []string) {
	res, err := capture.Read(bytes.NewReader(b), capture.Options{KeepDamaged: true})
	require.NoError(t, err)
	p, e, _ := run(res)
	for _, fs := range p {
		per = append(per, texts(fs)...)
	}
	return per, texts(e)
}

// TestUnframedConnsAllCounted: a capture of 2,000 connections followed
// from their SYN whose clients send bytes that frame no way (half an
// HTTP request, whose first size a broker refuses), then one Kafka
// connection. The capture's notes of them (Note.Unframed) were one a
// connection under the cap on notes, so kwire check said 1,000 findings
// and nothing of the other 1,000, nor of the notes after them. The first
// 10 of each kind are a finding each, the rest one that counts them and
// says from which connection to which: every connection is accounted for,
// and the Kafka connection is judged as it is alone.
func TestUnframedConnsAllCounted(t *testing.T) {
	const conns = 2000
	alone := newPcap(t)
	alone.kafkaConn()
	wantPer, wantEnd := endOf(t, alone.out.Bytes())
	require.NotEmpty(t, wantPer, "the response to no request")

	b := newPcap(t)
	for i := range conns {
		ip := net.IPv4(10, 1, byte(i/250), byte(i%250+1))
		if i%2 == 1 {
			b.conn(ip, []byte("GET / HTTP/1.1\r\nHost: kafka\r\n\r\n"))
		} else {
			b.conn(ip, append([]byte{0, 0, 0, 16}, bytes.Repeat([]byte{0xff}, 32)...))
		}
	}
	b.kafkaConn()
	per, end := endOf(t, b.out.Bytes())
	kafka := strconv.Itoa(conns + 1)
	re, pk := regexp.MustCompile(`\bconn 1\b`), regexp.MustCompile(`\(packet (\d+)\)`)
	for i := range wantPer { // 7 packets a connection before it
		wantPer[i] = re.ReplaceAllString(wantPer[i], "conn "+kafka)
		wantPer[i] = pk.ReplaceAllStringFunc(wantPer[i], func(s string) string {
			n, _ := strconv.Atoi(pk.FindStringSubmatch(s)[1])
			return "(packet " + strconv.Itoa(n+7*conns) + ")"
		})
	}
	assert.Equal(t, wantPer, per)

	single := regexp.MustCompile(`^frame\.size skipped conn (\d+) \(packet \d+\): bytes of a connection captured from its start do not read as a frame \(implausible frame header 00 00 00 10 ff ff`)
	refused := regexp.MustCompile(`^frame\.size error conn (\d+) \(packet \d+\): the connection's first frame declares a size a broker refuses .*found 1195725856$`)
	var singles, refusals []string
	var rest []string
	for _, f := range end {
		switch {
		case single.MatchString(f):
			singles = append(singles, single.FindStringSubmatch(f)[1])
		case refused.MatchString(f):
			refusals = append(refusals, refused.FindStringSubmatch(f)[1])
		default:
			rest = append(rest, f)
		}
	}
	assert.Equal(t, []string{"1", "3", "5", "7", "9", "11", "13", "15", "17", "19"}, singles)
	assert.Equal(t, []string{"2", "4", "6", "8", "10", "12", "14", "16", "18", "20"}, refusals)
	// 7 packets a connection: its first data the 4th
	assert.Equal(t, append(wantEnd,
		"frame.size skipped conn 1999 (packet 13990): bytes of 990 more streams of connections captured from their start, past those said each above, from conn 21 (packet 144) to this one, do not read as a frame: the capture skipped them to resynchronise, and what they hold is not judged",
		"frame.size error conn 2000 (packet 13997): 990 more connections, past those said each above, from conn 22 (packet 151) to this one, have a first frame that declares a size a broker refuses (a negative one, or one over socket.request.max.bytes, 100 MiB by default); it closes each, the last here, expected a size from 8 to 104857599, found 1195725856"), rest)
	// all accounted for: 10 + 990 + 10 + 990
	assert.Equal(t, conns, len(singles)+len(refusals)+2*990)
}
