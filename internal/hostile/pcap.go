package hostile

import (
	"bytes"
	"encoding/binary"

	"github.com/klauspost/compress/gzip"
)

// Captures, written by hand: classic pcap (little-endian, microseconds) and
// pcapng, Ethernet, IPv4 and TCP.

const brokerPort = 9092

// pcapFile is a classic pcap file with the given header snap length.
func pcapFile(snaplen uint32, packets ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0xa1b2c3d4)
	b = binary.LittleEndian.AppendUint16(b, 2)
	b = binary.LittleEndian.AppendUint16(b, 4)
	b = binary.LittleEndian.AppendUint32(b, 0) // thiszone
	b = binary.LittleEndian.AppendUint32(b, 0) // sigfigs
	b = binary.LittleEndian.AppendUint32(b, snaplen)
	b = binary.LittleEndian.AppendUint32(b, 1) // Ethernet
	for i, p := range packets {
		b = pcapRecord(b, uint32(i), uint32(len(p)), uint32(len(p)))
		b = append(b, p...)
	}
	return b
}

// pcapRecord appends a record header: time, captured and original length.
func pcapRecord(b []byte, sec, incl, orig uint32) []byte {
	b = binary.LittleEndian.AppendUint32(b, 1700000000+sec)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, incl)
	return binary.LittleEndian.AppendUint32(b, orig)
}

// tcp is an Ethernet frame holding an IPv4 packet holding a TCP segment
// from 10.0.0.1:50000 to 10.0.0.2:9092 (or back when toClient).
func tcp(toClient bool, seq uint32, flags byte, payload []byte) []byte {
	return tcpOf(50000, toClient, seq, 1, flags, payload)
}

// tcpOf is tcp from client port port, acknowledging ack.
func tcpOf(port uint16, toClient bool, seq, ack uint32, flags byte, payload []byte) []byte {
	src, dst := [4]byte{10, 0, 0, 1}, [4]byte{10, 0, 0, 2}
	sport, dport := port, uint16(brokerPort)
	if toClient {
		src, dst, sport, dport = dst, src, dport, sport
	}
	b := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00} // Ethernet, IPv4
	ip := []byte{0x45, 0}
	ip = binary.BigEndian.AppendUint16(ip, uint16(20+20+len(payload)))
	ip = append(ip, 0, 1, 0x40, 0, 64, 6, 0, 0) // id, DF, TTL, TCP, checksum
	ip = append(ip, src[:]...)
	ip = append(ip, dst[:]...)
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip))
	t := binary.BigEndian.AppendUint16(nil, sport)
	t = binary.BigEndian.AppendUint16(t, dport)
	t = binary.BigEndian.AppendUint32(t, seq)
	t = binary.BigEndian.AppendUint32(t, ack)
	t = append(t, 5<<4, flags)
	t = binary.BigEndian.AppendUint16(t, 65535) // window
	t = append(t, 0, 0, 0, 0)                   // checksum (not checked by capture readers), urgent
	b = append(b, ip...)
	b = append(b, t...)
	return append(b, payload...)
}

const (
	tcpPSHACK = 0x18
	tcpSYN    = 0x02
	tcpACK    = 0x10
)

func ipChecksum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(h[i])<<8 | uint32(h[i+1])
	}
	for s > 0xffff {
		s = s>>16 + s&0xffff
	}
	return ^uint16(s)
}

// pcapng blocks.

func ngBlock(typ uint32, body []byte) []byte {
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	n := uint32(12 + len(body))
	b := binary.LittleEndian.AppendUint32(nil, typ)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, n)
}

// ngSection is a section header block with the given section length.
func ngSection(length int64) []byte {
	body := binary.LittleEndian.AppendUint32(nil, 0x1A2B3C4D)
	body = binary.LittleEndian.AppendUint16(body, 1)
	body = binary.LittleEndian.AppendUint16(body, 0)
	body = binary.LittleEndian.AppendUint64(body, uint64(length))
	return ngBlock(0x0A0D0D0A, body)
}

// ngInterface is an interface description block: Ethernet, snaplen.
func ngInterface(snaplen uint32) []byte {
	body := binary.LittleEndian.AppendUint16(nil, 1)
	body = binary.LittleEndian.AppendUint16(body, 0)
	body = binary.LittleEndian.AppendUint32(body, snaplen)
	return ngBlock(1, body)
}

// ngPacket is an enhanced packet block on interface 0.
func ngPacket(i uint32, data []byte) []byte {
	return ngPacketLen(i, uint32(len(data)), data)
}

// ngPacketLen is an enhanced packet block whose captured length field says
// caplen, whatever data holds.
func ngPacketLen(i, caplen uint32, data []byte) []byte {
	ts := uint64(1700000000+i) * 1000000
	body := binary.LittleEndian.AppendUint32(nil, 0)
	body = binary.LittleEndian.AppendUint32(body, uint32(ts>>32))
	body = binary.LittleEndian.AppendUint32(body, uint32(ts))
	body = binary.LittleEndian.AppendUint32(body, caplen)
	body = binary.LittleEndian.AppendUint32(body, uint32(len(data)))
	body = append(body, data...)
	return ngBlock(6, body)
}

// kafkaExchange is a well-formed ApiVersions v0 request and its response,
// as the two TCP segments that carry them: captures that must still decode.
func kafkaExchange() (req, resp []byte) {
	req = sized(header1(18, 0, clientID))
	r := be32(nil, 7) // correlation id
	r = be16(r, 0)    // errorCode
	r = be32(r, 1)
	r = be16(r, 18)
	r = be16(r, 0)
	r = be16(r, 3)
	resp = sized(r)
	return tcp(false, 1, tcpPSHACK, req), tcp(true, 1, tcpPSHACK, resp)
}

// holdReentry is a connection whose broker frames, held while the
// client holds for bytes the broker acknowledged, end that hold on the
// 1,025th held; the client's request after the lost bytes, framed then
// and held in its turn, ends the broker's hold for bytes the client
// acknowledged, while the broker's frames are being read.
func holdReentry() []byte {
	const cisn, bisn = 1000, 500000
	r1 := sized(header1(18, 0, clientID)) // never captured
	r2 := sized(header1(18, 0, clientID))
	binary.BigEndian.PutUint32(r2[8:], 2)
	fb := sized(append(be32(nil, 7), make([]byte, 300)...)) // answers r1
	var many []byte
	for i := range 1100 {
		many = append(many, sized(be32(nil, int32(100+i)))...)
	}
	fb2 := sized(append(be32(nil, 2), make([]byte, 50)...))
	c := func(off int) uint32 { return cisn + 1 + uint32(off) }
	b := func(off int) uint32 { return bisn + 1 + uint32(off) }
	return pcapFile(65535,
		tcpOf(50000, false, cisn, 0, tcpSYN, nil),
		tcpOf(50000, true, bisn, c(0), tcpSYN|tcpACK, nil),
		tcpOf(50000, false, c(0), b(0), tcpACK, nil),
		tcpOf(50000, true, b(0), c(0), tcpACK, fb[:10]),
		// the client acknowledges 10 broker bytes never captured
		tcpOf(50000, false, c(len(r1)), b(len(fb)+len(many)+len(fb2)+10), tcpACK, r2),
		// the broker acknowledges the client's first request, never captured
		tcpOf(50000, true, b(10), c(len(r1)+len(r2)), tcpACK, concat(fb[10:], many, fb2[:20])))
}

// heldFrames is a gzipped pcap of conns connections to port 9092, each
// from its SYN a Produce request header declaring 99,000,000 bytes, then
// mib MiB of zeros in 60,000-byte segments, and neither the frame's end
// nor a FIN: frames being gathered to the end of the capture.
func heldFrames(conns, mib int) []byte {
	var out bytes.Buffer
	w, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	w.Write(pcapFile(65535))
	zeros := make([]byte, 60000)
	k := uint32(0)
	for i := range conns {
		port := uint16(50000 + i)
		head := append(be32(nil, 99_000_000), header1(0, 3, clientID)...)
		pkts := [][]byte{tcpOf(port, false, 999, 0, tcpSYN, nil), tcpOf(port, false, 1000, 0, tcpPSHACK, head)}
		seq := uint32(1000 + len(head))
		for left := mib << 20; left > 0; left -= len(zeros) {
			n := min(left, len(zeros))
			pkts = append(pkts, tcpOf(port, false, seq, 0, tcpPSHACK, zeros[:n]))
			seq += uint32(n)
		}
		for _, p := range pkts {
			w.Write(pcapRecord(nil, k, uint32(len(p)), uint32(len(p))))
			w.Write(p)
			k++
		}
	}
	w.Close()
	return out.Bytes()
}
