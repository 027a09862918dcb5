package input

import "strconv"

// Packet says what StripPacket took off a whole captured packet: its link
// header (if any), its IP version and TCP ports, and how many bytes of
// headers there were.
type Packet struct {
	// Link names the link-layer header: "Ethernet", "Linux cooked (SLL)",
	// "Linux cooked v2 (SLL2)", "loopback (null)", or "" when the packet
	// starts at its IP header (tcpdump -X).
	Link string
	// IP is 4 or 6.
	IP int
	// SrcPort and DstPort are the TCP segment's ports.
	SrcPort, DstPort int
	// Headers is how many bytes of headers were stripped, link, IP and
	// TCP together.
	Headers int
	// Payload is the TCP payload's length.
	Payload int
	// Missing is how many bytes of the packet its IPv4 total length says
	// follow but the dump does not hold (a capture's snap length cut it);
	// 0 for a whole packet.
	Missing int
}

// String says what was done, in the words the CLI, the API and the
// playground use: "a whole packet (Ethernet, IPv4, TCP port 39920 to
// 19092): its 66 bytes of headers are stripped, its TCP payload of 29
// bytes decoded".
func (p Packet) String() string {
	s := "a whole packet ("
	if p.Link != "" {
		s += p.Link + ", "
	}
	s += "IPv" + strconv.Itoa(p.IP) + ", TCP port " + strconv.Itoa(p.SrcPort) + " to " + strconv.Itoa(p.DstPort) + ")"
	if p.Payload == 0 {
		return s + " with no TCP payload: no Kafka bytes to decode"
	}
	s += ": its " + strconv.Itoa(p.Headers) + " bytes of headers are stripped, its TCP payload of " + strconv.Itoa(p.Payload) + " bytes decoded"
	if p.Missing > 0 {
		s += " (the capture cut the packet " + strconv.Itoa(p.Missing) + " bytes short)"
	}
	return s
}

// StripPacket recognises one whole captured packet, as tcpdump -X and -XX,
// tshark -x and Wireshark's "Copy as Hex Dump" print it, and returns its
// TCP payload: an IPv4 or IPv6 packet carrying TCP, from its IP header or
// behind a link header (Ethernet II with at most one VLAN tag, Linux
// cooked capture v1 or v2, BSD loopback). ok is false when b is no such
// packet.
//
// The headers must agree with the bytes, so that a Kafka frame is never
// taken for a packet: b is no whole size-prefixed frame (HasSizePrefix);
// the IP version and header length are valid, the IP length accounts for
// every byte after the link header (but Ethernet padding or a frame check
// sequence), the protocol is TCP (no IPv6 extension headers, no IPv4
// fragment), an IPv4 header's checksum is right (or zero, as with checksum
// offload), both ports are set and the TCP data offset lies within the
// segment. A packet a snap length cut short (its IPv4 length past the
// bytes, Missing) is taken only when its checksum is right.
//
// The payload is a piece of b, empty for a segment without data.
func StripPacket(b []byte) (payload []byte, p Packet, ok bool) {
	if len(b) < 40 || HasSizePrefix(b) {
		return nil, Packet{}, false
	}
	if payload, p, ok = ipPacket(b, 0, ""); ok {
		return payload, p, true
	}
	// Ethernet II, with at most one 802.1Q tag.
	typ, at := be16(b[12:]), 14
	if typ == 0x8100 {
		typ, at = be16(b[16:]), 18
	}
	if typ == 0x0800 || typ == 0x86dd {
		if payload, p, ok = ipPacket(b, at, "Ethernet"); ok && ipType(p) == typ {
			return payload, p, true
		}
	}
	// Linux cooked capture v1: packet type, ARPHRD type, address length,
	// 8 bytes of address, protocol.
	if be16(b) <= 4 && be16(b[4:]) <= 8 {
		if typ := be16(b[14:]); typ == 0x0800 || typ == 0x86dd {
			if payload, p, ok = ipPacket(b, 16, "Linux cooked (SLL)"); ok && ipType(p) == typ {
				return payload, p, true
			}
		}
	}
	// Linux cooked capture v2: protocol, reserved, interface index, ARPHRD
	// type, packet type, address length, 8 bytes of address.
	if typ := be16(b); (typ == 0x0800 || typ == 0x86dd) && be16(b[2:]) == 0 && b[10] <= 4 && b[11] <= 8 {
		if payload, p, ok = ipPacket(b, 20, "Linux cooked v2 (SLL2)"); ok && ipType(p) == typ {
			return payload, p, true
		}
	}
	// BSD loopback: the address family, in the capturing host's byte
	// order: AF_INET 2, AF_INET6 24, 28 or 30 (by the BSD).
	le := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	be := uint32(b[3]) | uint32(b[2])<<8 | uint32(b[1])<<16 | uint32(b[0])<<24
	for _, fam := range []uint32{le, be} {
		v := 0
		switch fam {
		case 2:
			v = 4
		case 24, 28, 30:
			v = 6
		}
		if v == 0 {
			continue
		}
		if payload, p, ok = ipPacket(b, 4, "loopback (null)"); ok && p.IP == v {
			return payload, p, true
		}
		break
	}
	return nil, Packet{}, false
}

// ipType is the EtherType of p's IP version.
func ipType(p Packet) int {
	if p.IP == 6 {
		return 0x86dd
	}
	return 0x0800
}

func be16(b []byte) int { return int(b[0])<<8 | int(b[1]) }

// ipPacket reads the IP packet that starts at b[at:] behind a link header
// named link ("" for none) and returns its TCP payload.
func ipPacket(b []byte, at int, link string) ([]byte, Packet, bool) {
	p := Packet{Link: link}
	ip := b[at:]
	if len(ip) < 40 {
		return nil, p, false
	}
	var seg []byte
	var end, hdr int // where the packet ends in ip, by its own length; its IP header's length
	switch ip[0] >> 4 {
	case 4:
		p.IP = 4
		ihl := int(ip[0]&0x0f) * 4
		end = be16(ip[2:])
		if ihl < 20 || ihl > len(ip) || end < ihl+20 || ip[9] != 6 || be16(ip[6:])&0x3fff != 0 {
			return nil, p, false // not TCP, or a fragment, or a header past the bytes
		}
		sum := ipv4Checksum(ip[:ihl])
		if be16(ip[10:]) != 0 && sum != 0xffff {
			return nil, p, false
		}
		if end > len(ip) {
			// Cut short by a snap length: only with a checksum that
			// says this is an IPv4 header.
			if be16(ip[10:]) == 0 || len(ip) < ihl+20 {
				return nil, p, false
			}
			p.Missing = end - len(ip)
			end = len(ip)
		}
		seg, hdr = ip[ihl:end], ihl
	case 6:
		p.IP = 6
		end = 40 + be16(ip[4:])
		if ip[6] != 6 || end < 60 || end > len(ip) {
			return nil, p, false // not TCP (or behind extension headers)
		}
		seg, hdr = ip[40:end], 40
	default:
		return nil, p, false
	}
	if !tailOK(len(ip)-end, at+end, link) {
		return nil, p, false
	}
	p.SrcPort, p.DstPort = be16(seg), be16(seg[2:])
	doff := int(seg[12]>>4) * 4
	if p.SrcPort == 0 || p.DstPort == 0 || doff < 20 || doff > len(seg) {
		return nil, p, false
	}
	p.Headers, p.Payload = at+hdr+doff, len(seg)-doff
	return seg[doff:], p, true
}

// tailOK says whether tail bytes after an IP packet that ends at byte end
// of the dump may be what a link adds: none, or on Ethernet (or what
// tcpdump -X shows of it, the IP packet alone) padding to the smallest
// frame (60 bytes, 46 after the header) or a 4-byte frame check sequence.
func tailOK(tail, end int, link string) bool {
	switch {
	case tail == 0:
		return true
	case link == "Ethernet" || link == "Linux cooked (SLL)" || link == "Linux cooked v2 (SLL2)":
		return tail == 4 || end+tail <= 60
	case link == "":
		return end+tail <= 46
	}
	return false
}

// ipv4Checksum is the ones' complement sum of an IPv4 header's 16-bit
// words: 0xffff when its checksum field is right.
func ipv4Checksum(h []byte) int {
	sum := 0
	for i := 0; i+1 < len(h); i += 2 {
		sum += be16(h[i:])
	}
	for sum > 0xffff {
		sum = sum&0xffff + sum>>16
	}
	return sum
}
