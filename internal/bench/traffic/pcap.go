package traffic

import (
	"bufio"
	"encoding/binary"
	"io"
	"time"
)

// MSS is the TCP payload per packet: Ethernet's 1500-byte MTU less the IP
// and TCP headers and the timestamp option, as on a real network.
const MSS = 1448

// PcapOptions shape a capture.
type PcapOptions struct {
	Pairs int // exchanges
	Conns int // TCP connections (default 1)
	// InFlight is how many requests, on consecutive connections, are sent
	// before their responses, which then come in reverse order: exchanges
	// complete in another order than their requests were sent. Default 1;
	// at most Conns (a broker answers one connection's requests in order).
	InFlight int
	// Mix is the pairs cycled through (default: Mix()); their correlation
	// ids are rewritten as for the mix's.
	Mix []Pair
}

// WritePcap writes a classic pcap file (Ethernet, microseconds) of
// exchanges of the mix over TCP connections to a broker on port 9092: each
// connection opens with a handshake and closes with FINs, frames are cut
// into MSS-sized segments, and correlation ids count up per connection.
func WritePcap(w io.Writer, o PcapOptions) (Stats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	pw := pcapWriter{w: bw, now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	pw.header()
	mix := o.Mix
	if len(mix) == 0 {
		mix = Mix()
	}
	cs := make([]conn, max(o.Conns, 1))
	for i := range cs {
		cs[i] = conn{client: [4]byte{10, 1, byte(i >> 8), byte(i)}, cport: uint16(40000 + i%20000), cseq: 1000, bseq: 900000}
		pw.handshake(&cs[i])
	}
	type sent struct {
		c    *conn
		p    *Pair
		corr int32
	}
	var st Stats
	var buf []byte
	var flight []sent
	for i := 0; i < o.Pairs; i++ {
		c := &cs[i%len(cs)]
		p := &mix[i%len(mix)]
		c.corr++
		buf = withCorr(buf, &p.Request, c.corr)
		pw.send(c, true, buf)
		flight = append(flight, sent{c, p, c.corr})
		st.Frames += 2
		st.Bytes += int64(len(p.Request.Bytes) + len(p.Response.Bytes))
		if len(flight) < min(max(o.InFlight, 1), len(cs)) && i < o.Pairs-1 {
			continue
		}
		pw.tick(200 * time.Microsecond)
		for j := len(flight) - 1; j >= 0; j-- {
			f := flight[j]
			buf = withCorr(buf, &f.p.Response, f.corr)
			pw.send(f.c, false, buf)
		}
		flight = flight[:0]
	}
	for i := range cs {
		pw.close(&cs[i])
	}
	return st, bw.Flush()
}

// conn is one client connection's addresses and sequence numbers.
type conn struct {
	client     [4]byte
	cport      uint16
	cseq, bseq uint32
	corr       int32
}

var broker = [4]byte{10, 0, 0, 1}

type pcapWriter struct {
	w   *bufio.Writer
	now time.Time
	pkt []byte
}

func (p *pcapWriter) header() {
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], 0xa1b2c3d4)
	binary.LittleEndian.PutUint16(h[4:], 2)
	binary.LittleEndian.PutUint16(h[6:], 4)
	binary.LittleEndian.PutUint32(h[16:], 262144)
	binary.LittleEndian.PutUint32(h[20:], 1) // Ethernet
	p.w.Write(h[:])
}

func (p *pcapWriter) tick(d time.Duration) { p.now = p.now.Add(d) }

const (
	fin = 0x01
	syn = 0x02
	psh = 0x08
	ack = 0x10
)

func (p *pcapWriter) handshake(c *conn) {
	p.segment(c, true, c.cseq, 0, syn, nil)
	p.segment(c, false, c.bseq, c.cseq+1, syn|ack, nil)
	c.cseq++
	c.bseq++
	p.segment(c, true, c.cseq, c.bseq, ack, nil)
}

func (p *pcapWriter) close(c *conn) {
	p.segment(c, true, c.cseq, c.bseq, fin|ack, nil)
	p.segment(c, false, c.bseq, c.cseq+1, fin|ack, nil)
	c.cseq++
	c.bseq++
	p.segment(c, true, c.cseq, c.bseq, ack, nil)
}

// send writes data from one side in MSS-sized segments.
func (p *pcapWriter) send(c *conn, fromClient bool, data []byte) {
	for len(data) > 0 {
		n := min(len(data), MSS)
		if fromClient {
			p.segment(c, true, c.cseq, c.bseq, ack|psh, data[:n])
			c.cseq += uint32(n)
		} else {
			p.segment(c, false, c.bseq, c.cseq, ack|psh, data[:n])
			c.bseq += uint32(n)
		}
		data = data[n:]
	}
}

// segment writes one Ethernet/IPv4/TCP packet with correct checksums.
func (p *pcapWriter) segment(c *conn, fromClient bool, seq, ackNo uint32, flags byte, payload []byte) {
	src, dst, sport, dport := c.client, broker, c.cport, uint16(9092)
	if !fromClient {
		src, dst, sport, dport = dst, src, dport, sport
	}
	b := p.pkt[:0]
	b = append(b, 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00) // Ethernet, IPv4
	ip := len(b)
	b = append(b, 0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, 6, 0, 0)
	b = append(b, src[:]...)
	b = append(b, dst[:]...)
	binary.BigEndian.PutUint16(b[ip+2:], uint16(20+20+len(payload)))
	binary.BigEndian.PutUint16(b[ip+10:], checksum(b[ip:ip+20], 0))
	tcp := len(b)
	b = binary.BigEndian.AppendUint16(b, sport)
	b = binary.BigEndian.AppendUint16(b, dport)
	b = binary.BigEndian.AppendUint32(b, seq)
	b = binary.BigEndian.AppendUint32(b, ackNo)
	b = append(b, 5<<4, flags, 0xff, 0xff, 0, 0, 0, 0)
	b = append(b, payload...)
	var pseudo uint32
	for i := 0; i < 4; i += 2 {
		pseudo += uint32(binary.BigEndian.Uint16(src[i:])) + uint32(binary.BigEndian.Uint16(dst[i:]))
	}
	pseudo += 6 + uint32(len(b)-tcp)
	binary.BigEndian.PutUint16(b[tcp+16:], checksum(b[tcp:], pseudo))
	p.pkt = b

	var h [16]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(p.now.Unix()))
	binary.LittleEndian.PutUint32(h[4:], uint32(p.now.Nanosecond()/1000))
	binary.LittleEndian.PutUint32(h[8:], uint32(len(b)))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(b)))
	p.w.Write(h[:])
	p.w.Write(b)
	p.tick(20 * time.Microsecond)
}

// checksum is the Internet checksum of b, starting from sum.
func checksum(b []byte, sum uint32) uint16 {
	for len(b) >= 2 {
		sum += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}
