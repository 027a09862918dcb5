package input

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/kwire/kwire/internal/sortfunc"
)

// FormatFollow is a followed TCP stream: tshark -z follow,tcp,hex or
// follow,tcp,yaml, Wireshark's Follow → TCP Stream shown as a hex dump or
// YAML.
const FormatFollow Format = "follow"

// followSegment is the most payload a made segment carries, so that an
// IPv4 packet's length fits its 16 bits.
const followSegment = 32 << 10

// followStart reports whether b, a text's first lines, starts a followed
// TCP stream as tshark prints one: a "Follow: tcp,hex" heading, or YAML's
// "peers:".
func followStart(b []byte) bool {
	for n, ls := 0, 0; n < 3 && ls < len(b); n++ {
		var l []byte
		l, ls = followNext(b, ls)
		l = bytes.TrimSpace(l)
		if bytes.HasPrefix(l, []byte("Follow: tcp,hex")) || bytes.Equal(l, []byte("peers:")) {
			return true
		}
		if len(l) > 0 && l[0] != '=' {
			return false
		}
	}
	return false
}

// flow is one followed stream: its two peers (0 opened it) and the bytes
// each sent, in the order they were sent.
type flow struct {
	peer   [2]hostPort
	chunks []flowChunk
}

type flowChunk struct {
	peer int
	data []byte
	time time.Time // YAML's; zero in a hex dump, which gives none
}

// parseFollow reads a followed TCP stream (or several, one after another)
// as the packets of a capture: each stream opened by a handshake, then a
// segment (of at most 32 KiB) for each piece of data in the order the
// follow gives them, with the peers' addresses and ports, as raw IP
// packets. A hex dump gives no times (NoTimes); YAML gives each piece's.
func parseFollow(data []byte) (*PacketDump, error) {
	t := text{src: data}
	var flows []*flow
	var err error
	if !bytes.Contains(data, []byte("Follow: tcp,hex")) { // followStart saw "peers:"
		flows, err = followYAML(t)
	} else {
		flows, err = followHex(t)
	}
	if err != nil {
		return nil, err
	}
	d := &PacketDump{Format: FormatFollow, Times: NoTimes}
	pieces, timed := 0, 0
	var first time.Time // a stream without data opens at the first time of all
	for _, f := range flows {
		for _, c := range f.chunks {
			pieces++
			if !c.time.IsZero() {
				timed++
				if first.IsZero() || c.time.Before(first) {
					first = c.time
				}
			}
		}
	}
	if pieces > 0 && timed == pieces {
		d.Times = Seconds // every piece has its time (YAML's)
	}
	for _, f := range flows {
		f.packets(d, first)
	}
	if d.Times != NoTimes {
		// The streams' packets as they came: each stream's are in order.
		// Through functions, not slices.SortStableFunc: see internal/sortfunc.
		ps := d.Packets
		sortfunc.Stable(len(ps), func(i, j int) bool { return ps[i].Time.Before(ps[j].Time) }, func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	}
	if len(d.Packets) == 0 {
		return nil, t.errAt(-1, ErrNoPackets, "the followed stream holds no data")
	}
	return d, nil
}

// packets appends f's packets to d.
func (f *flow) packets(d *PacketDump, first time.Time) {
	var at time.Time // the handshake's: the stream's first time, or the first of all
	if d.Times != NoTimes {
		at = first
		if len(f.chunks) > 0 {
			at = f.chunks[0].time
		}
	}
	seq := [2]uint32{1000, 5000}
	add := func(from int, flags byte, payload []byte, ts time.Time) {
		p := tcpPacket(f.peer[from], f.peer[1-from], seq[from], seq[1-from], flags, payload)
		d.Packets = append(d.Packets, DumpPacket{Data: p, Time: ts, LinkType: 101})
		seq[from] += uint32(len(payload))
		if flags&0x02 != 0 {
			seq[from]++
		}
	}
	if !f.peer[0].whole() || !f.peer[1].whole() {
		return // a heading without its nodes, and no data
	}
	add(0, 0x02, nil, at) // SYN: a stream without data is a connection too
	add(1, 0x12, nil, at) // SYN/ACK
	add(0, 0x10, nil, at) // ACK
	for _, c := range f.chunks {
		ts := c.time
		if d.Times == NoTimes {
			ts = time.Time{}
		}
		for b := c.data; len(b) > 0; {
			n := min(len(b), followSegment)
			add(c.peer, 0x18, b[:n], ts)
			b = b[n:]
		}
	}
}

// tcpPacket makes a raw IP packet (IPv4 or IPv6, as the addresses are)
// carrying a TCP segment from src to dst.
func tcpPacket(src, dst hostPort, seq, ack uint32, flags byte, payload []byte) []byte {
	tcp := make([]byte, 20, 20+len(payload))
	put16(tcp[0:], src.port)
	put16(tcp[2:], dst.port)
	put32(tcp[4:], seq)
	if flags&0x10 != 0 {
		put32(tcp[8:], ack)
	}
	tcp[12] = 5 << 4
	tcp[13] = flags
	put16(tcp[14:], 65535)
	tcp = append(tcp, payload...)
	if src.v4 {
		ip := make([]byte, 20, 20+len(tcp))
		ip[0] = 0x45
		put16(ip[2:], uint16(20+len(tcp)))
		ip[6] = 0x40 // don't fragment
		ip[8], ip[9] = 64, 6
		copy(ip[12:], src.ip[12:])
		copy(ip[16:], dst.ip[12:])
		put16(ip[10:], ^uint16(ipv4Checksum(ip)))
		return append(ip, tcp...)
	}
	ip := make([]byte, 40, 40+len(tcp))
	ip[0] = 0x60
	put16(ip[4:], uint16(len(tcp)))
	ip[6], ip[7] = 6, 64
	copy(ip[8:], src.ip[:])
	copy(ip[24:], dst.ip[:])
	return append(ip, tcp...)
}

func put16(b []byte, v uint16) { b[0], b[1] = byte(v>>8), byte(v) }
func put32(b []byte, v uint32) { put16(b, uint16(v>>16)); put16(b[2:], uint16(v)) }

// followHex reads tshark -z follow,tcp,hex: under each "Follow: tcp,hex"
// heading, "Node 0: addr:port" and "Node 1: ...", then a dump line for
// each 16 bytes, the second node's indented, each offset the count of the
// bytes its node sent before.
func followHex(t text) ([]*flow, error) {
	var flows []*flow
	var f *flow
	var sent [2]int
	nodes := 0
	for ls := 0; ls < len(t.src); {
		at := ls
		var line []byte
		line, ls = followNext(t.src, ls)
		body := bytes.TrimLeft(line, " \t")
		switch {
		case len(body) == 0 || body[0] == '=' || bytes.HasPrefix(body, []byte("Filter:")):
			continue
		case bytes.HasPrefix(body, []byte("Follow: tcp,hex")):
			f = &flow{}
			flows = append(flows, f)
			sent, nodes = [2]int{}, 0
			continue
		case f == nil:
			return nil, t.errAt(at, ErrDump, "a followed stream starts with its \"Follow: tcp,hex\" heading")
		case bytes.HasPrefix(body, []byte("Node ")):
			n := 0
			if bytes.HasPrefix(body, []byte("Node 1: ")) {
				n = 1
			} else if !bytes.HasPrefix(body, []byte("Node 0: ")) {
				return nil, t.errAt(at, ErrDump, "a follow's node is Node 0 or Node 1")
			}
			ap, ok := parseHostPort(string(body[len("Node 0: "):]))
			if !ok {
				return nil, t.errAt(at+len(line)-len(body)+len("Node 0: "), ErrDump, "a follow's node is an address and a port")
			}
			f.peer[n] = ap
			nodes |= 1 << n
			continue
		}
		if nodes != 3 {
			return nil, t.errAt(at, ErrDump, "a followed stream names Node 0 and Node 1 before its data")
		}
		peer := 0
		if len(body) < len(line) {
			peer = 1 // the second node's lines are indented
		}
		indent := len(line) - len(body)
		off, b, err := followLine(t, at+indent, body)
		if err != nil {
			return nil, err
		}
		if off != sent[peer] {
			return nil, t.errAt(at+indent, ErrDump, "offset "+strconv.Itoa(off)+" after "+strconv.Itoa(sent[peer])+" bytes from node "+strconv.Itoa(peer)+": a line is missing")
		}
		sent[peer] += len(b)
		if n := len(f.chunks); n > 0 && f.chunks[n-1].peer == peer {
			f.chunks[n-1].data = append(f.chunks[n-1].data, b...)
		} else {
			f.chunks = append(f.chunks, flowChunk{peer: peer, data: b})
		}
	}
	return flows, nil
}

// followNext is the line of src at ls, without its blanks at the end,
// and where the next starts.
func followNext(src []byte, ls int) ([]byte, int) {
	le := len(src)
	if nl := bytes.IndexByte(src[ls:], '\n'); nl >= 0 {
		le = ls + nl
	}
	return bytes.TrimRight(src[ls:le], " \t\r"), le + 1
}

// followLine reads one line of a follow's hex dump: its offset, then up
// to 16 bytes at their columns (eight, a blank, eight), then the text.
func followLine(t text, at int, l []byte) (int, []byte, error) {
	if len(l) < 12 || !onlyHexDigits(l[:8]) || l[8] != ' ' || l[9] != ' ' {
		return 0, nil, t.errAt(at, ErrDump, "a follow's dump line is an offset of 8 hex digits, two blanks and the bytes")
	}
	off, _ := strconv.ParseUint(string(l[:8]), 16, 32)
	var b []byte
	for k := 0; k < 16; k++ {
		c := 10 + 3*k
		if k >= 8 {
			c++
		}
		if c+2 > len(l) || !isHexDigit(l[c]) || !isHexDigit(l[c+1]) || c+2 < len(l) && l[c+2] != ' ' {
			break
		}
		b = append(b, hexVal(l[c])<<4|hexVal(l[c+1]))
	}
	if len(b) == 0 {
		return 0, nil, t.errAt(at+10, ErrDump, "a follow's dump line without bytes")
	}
	return int(off), b, nil
}

// followYAML reads tshark -z follow,tcp,yaml: "peers:" with each peer's
// host and port, then "packets:", each with its peer, timestamp and
// base64 data.
func followYAML(t text) ([]*flow, error) {
	var flows []*flow
	var f *flow
	var c *flowChunk
	peer, inData, dataIndent := -1, false, 0
	var b64 []byte
	end := func(at int) error {
		if c == nil {
			return nil
		}
		out := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
		n, err := base64.StdEncoding.Decode(out, b64)
		if err != nil {
			return t.errAt(at, ErrBase64, "a followed packet's data is no base64")
		}
		c.data = out[:n]
		f.chunks = append(f.chunks, *c)
		c, b64 = nil, b64[:0]
		return nil
	}
	for ls := 0; ls < len(t.src); {
		at := ls
		var line []byte
		line, ls = followNext(t.src, ls)
		body := bytes.TrimLeft(line, " ")
		indent := len(line) - len(body)
		if inData {
			if indent > dataIndent && len(body) > 0 {
				b64 = append(b64, body...)
				continue
			}
			inData = false
			if err := end(at); err != nil {
				return nil, err
			}
		}
		key, val, _ := bytes.Cut(bytes.TrimPrefix(body, []byte("- ")), []byte(":"))
		val = bytes.TrimSpace(val)
		switch string(key) {
		case "":
			continue
		case "peers":
			f = &flow{}
			flows = append(flows, f)
			peer = -1
		case "packets":
		case "peer":
			n, err := strconv.Atoi(string(val))
			if err != nil || n < 0 || n > 1 || f == nil {
				return nil, t.errAt(at, ErrDump, "a followed stream's peer is 0 or 1, after \"peers:\"")
			}
			if bytes.HasPrefix(body, []byte("- peer:")) {
				peer = n
			} else if c != nil {
				c.peer = n
			}
		case "host", "port":
			if f == nil || peer < 0 {
				return nil, t.errAt(at, ErrDump, "a followed stream's host and port come under its peers")
			}
			a := &f.peer[peer]
			if key[0] == 'h' {
				ip, v4, ok := parseIP(string(val))
				if !ok {
					return nil, t.errAt(at, ErrDump, "a followed stream's host is an IPv4 or IPv6 address")
				}
				a.ip, a.v4, a.host = ip, v4, true
			} else {
				p, err := strconv.ParseUint(string(val), 10, 16)
				if err != nil {
					return nil, t.errAt(at, ErrDump, "a followed stream's port is 0 to 65535")
				}
				a.port, a.hasPort = uint16(p), true
			}
		case "packet":
			if f == nil {
				return nil, t.errAt(at, ErrDump, "a followed stream's packets come after its peers")
			}
			c = &flowChunk{}
		case "timestamp":
			if c != nil {
				ts, ok := epochTime(val)
				if !ok {
					return nil, t.errAt(at, ErrDump, "a followed packet's timestamp is seconds since 1970")
				}
				c.time = ts
			}
		case "data":
			if c == nil {
				return nil, t.errAt(at, ErrDump, "a followed packet's data comes under its packet")
			}
			inData, dataIndent = true, indent
		}
	}
	if err := end(len(t.src)); err != nil {
		return nil, err
	}
	for _, f := range flows {
		if !f.peer[0].whole() || !f.peer[1].whole() || f.peer[0].v4 != f.peer[1].v4 {
			return nil, t.errAt(-1, ErrDump, "a followed stream names both its peers' hosts and ports")
		}
	}
	return flows, nil
}

// epochTime reads "1796164271.163269520": seconds and a fraction.
func epochTime(b []byte) (time.Time, bool) {
	s, frac, _ := bytes.Cut(b, []byte("."))
	sec, err := strconv.ParseInt(string(s), 10, 64)
	if err != nil || len(frac) > 9 {
		return time.Time{}, false
	}
	ns := 0
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			if frac[i] < '0' || frac[i] > '9' {
				return time.Time{}, false
			}
			ns += int(frac[i] - '0')
		}
	}
	return time.Unix(sec, int64(ns)).UTC(), true
}

// hostPort is a peer of a followed stream. The address is parsed here,
// not with net/netip, whose package variables alone cost kwire.wasm,
// which links this package, 23 KB gzip.
type hostPort struct {
	ip            [16]byte // IPv4 in its last 4 bytes
	v4            bool
	port          uint16
	host, hasPort bool // YAML gives them on lines of their own
}

func (h hostPort) whole() bool { return h.host && h.hasPort }

// parseHostPort reads "10.0.0.1:9092" or "[2001:db8::1]:9092".
func parseHostPort(s string) (hostPort, bool) {
	var h hostPort
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return h, false
	}
	host, port := s[:i], s[i+1:]
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	p, err := strconv.ParseUint(port, 10, 16)
	ip, v4, ok := parseIP(host)
	if err != nil || !ok {
		return h, false
	}
	return hostPort{ip: ip, v4: v4, port: uint16(p), host: true, hasPort: true}, true
}

// parseIP reads an IPv4 address or an IPv6 one (with "::", an IPv4 tail
// and a zone, which is dropped).
func parseIP(s string) (ip [16]byte, v4, ok bool) {
	if a, ok := parseIPv4(s); ok {
		copy(ip[12:], a[:])
		return ip, true, true
	}
	if z := strings.IndexByte(s, '%'); z >= 0 {
		s = s[:z]
	}
	var g []uint16
	gap := -1 // where "::" stands, in groups
	if strings.HasPrefix(s, "::") {
		gap, s = 0, s[2:]
	}
	for s != "" && len(g) <= 8 {
		if !strings.Contains(s, ":") && strings.Contains(s, ".") {
			a, ok := parseIPv4(s)
			if !ok {
				return ip, false, false
			}
			g = append(g, uint16(a[0])<<8|uint16(a[1]), uint16(a[2])<<8|uint16(a[3]))
			break
		}
		part, rest, more := strings.Cut(s, ":")
		v, err := strconv.ParseUint(part, 16, 16)
		if err != nil || len(part) > 4 || more && rest == "" {
			return ip, false, false
		}
		g = append(g, uint16(v))
		if strings.HasPrefix(rest, ":") {
			if gap >= 0 {
				return ip, false, false
			}
			gap, rest = len(g), rest[1:]
		}
		s = rest
	}
	if gap < 0 && len(g) != 8 || gap >= 0 && len(g) > 7 {
		return ip, false, false
	}
	tail := 0
	if gap >= 0 {
		tail = len(g) - gap
	} else {
		gap = len(g)
	}
	for i, v := range g[:gap] {
		ip[2*i], ip[2*i+1] = byte(v>>8), byte(v)
	}
	for i, v := range g[gap:] {
		k := 8 - tail + i
		ip[2*k], ip[2*k+1] = byte(v>>8), byte(v)
	}
	return ip, false, true
}

func parseIPv4(s string) (a [4]byte, ok bool) {
	for i := range 4 {
		part, rest, more := strings.Cut(s, ".")
		if more != (i < 3) || part == "" || len(part) > 3 || len(part) > 1 && part[0] == '0' {
			return a, false
		}
		v, err := strconv.ParseUint(part, 10, 8)
		if err != nil {
			return a, false
		}
		a[i], s = byte(v), rest
	}
	return a, true
}
