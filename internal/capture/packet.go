package capture

import (
	"encoding/binary"
	"net/netip"
)

// Link, IP and TCP headers are parsed by hand rather than with
// gopacket/layers' DecodingLayerParser: we need a handful of fields from a
// few fixed header formats, the hand parser does no allocation and no
// interface dispatch per packet, handles SLL2 (which gopacket v1.1.19 does
// not know) and is small and obviously bounds-checked. Together with the
// file reader (pcapfile.go) it keeps gopacket out of the WebAssembly build.

// Link types (pcap LINKTYPE_* values).
const (
	linkNull     = 0
	linkEthernet = 1
	linkRawOld   = 12 // DLT_RAW on some systems
	linkRawOBSD  = 14
	linkRaw      = 101
	linkLoop     = 108
	linkSLL      = 113
	linkIPv4     = 228
	linkIPv6     = 229
	linkSLL2     = 276
)

const (
	tcpFIN = 0x01
	tcpSYN = 0x02
	tcpRST = 0x04
	tcpACK = 0x10
)

type pktKind int

const (
	kindTCP pktKind = iota
	kindOther
	kindFragment
	kindMalformed
	kindUnsupportedLink
)

// kindNext is what a layer below TCP returns when it was read and the
// next one follows.
const kindNext = kindTCP

type tcpPacket struct {
	src, dst     netip.Addr
	sport, dport uint16
	seq, ack     uint32
	flags        uint8
	payload      []byte
	missing      int // payload bytes on the wire but not captured (snap length)
}

// decodePacket reads one captured packet of link type lt into p: the link
// header, VLAN tags, IPv4 or IPv6 (with extension headers), then TCP.
func decodePacket(lt uint32, b []byte, p *tcpPacket) pktKind {
	et, b, k := linkLayer(lt, b)
	if k != kindNext {
		return k
	}
	if et, b, k = vlanTags(et, b); k != kindNext {
		return k
	}
	var proto uint8
	switch et {
	case 0x0800:
		proto, b, k = ipv4(b, p)
	case 0x86dd:
		proto, b, k = ipv6(b, p)
	default:
		return kindOther
	}
	if k != kindNext {
		return k
	}
	if proto != 6 {
		return kindOther
	}
	return tcpHeader(b, p)
}

// linkLayer strips the link-layer header and returns the ethertype of
// what it carries.
func linkLayer(lt uint32, b []byte) (uint16, []byte, pktKind) {
	switch lt {
	case linkEthernet:
		if len(b) < 14 {
			return 0, nil, kindMalformed
		}
		return binary.BigEndian.Uint16(b[12:]), b[14:], kindNext
	case linkSLL:
		if len(b) < 16 {
			return 0, nil, kindMalformed
		}
		return binary.BigEndian.Uint16(b[14:]), b[16:], kindNext
	case linkSLL2:
		if len(b) < 20 {
			return 0, nil, kindMalformed
		}
		return binary.BigEndian.Uint16(b[0:]), b[20:], kindNext
	case linkNull, linkLoop:
		// 4-byte address family: host byte order of the capturing machine
		// for DLT_NULL, network order for DLT_LOOP; accept either.
		if len(b) < 4 {
			return 0, nil, kindMalformed
		}
		fam := binary.LittleEndian.Uint32(b)
		if fam > 0xffff {
			fam = binary.BigEndian.Uint32(b)
		}
		switch fam {
		case 2:
			return 0x0800, b[4:], kindNext
		case 10, 24, 28, 30: // AF_INET6 on Linux, NetBSD/OpenBSD, FreeBSD, Darwin
			return 0x86dd, b[4:], kindNext
		}
		return 0, nil, kindOther
	case linkRaw, linkRawOld, linkRawOBSD, linkIPv4, linkIPv6:
		if len(b) < 1 {
			return 0, nil, kindMalformed
		}
		switch b[0] >> 4 {
		case 4:
			return 0x0800, b, kindNext
		case 6:
			return 0x86dd, b, kindNext
		}
		return 0, nil, kindOther
	}
	return 0, nil, kindUnsupportedLink
}

// vlanTags skips up to four VLAN tags (802.1Q, 802.1ad, old QinQ).
func vlanTags(et uint16, b []byte) (uint16, []byte, pktKind) {
	for i := 0; i < 4 && (et == 0x8100 || et == 0x88a8 || et == 0x9100); i++ {
		if len(b) < 4 {
			return 0, nil, kindMalformed
		}
		et = binary.BigEndian.Uint16(b[2:])
		b = b[4:]
	}
	return et, b, kindNext
}

// ipv4 reads an IPv4 header into p's addresses and returns the protocol
// and the payload, cut to the header's total length (link-layer padding
// dropped; bytes beyond the snap length counted in p.missing).
func ipv4(b []byte, p *tcpPacket) (uint8, []byte, pktKind) {
	if len(b) < 20 || b[0]>>4 != 4 {
		return 0, nil, kindMalformed
	}
	ihl := int(b[0]&0x0f) * 4
	if ihl < 20 || ihl > len(b) {
		return 0, nil, kindMalformed
	}
	total := int(binary.BigEndian.Uint16(b[2:]))
	fo := binary.BigEndian.Uint16(b[6:])
	proto := b[9]
	p.src = netip.AddrFrom4([4]byte(b[12:16]))
	p.dst = netip.AddrFrom4([4]byte(b[16:20]))
	if fo&0x3fff != 0 { // MF set or fragment offset
		return 0, nil, kindFragment
	}
	p.missing = 0
	if total >= ihl { // total 0: TSO/GRO, use what was captured
		if total <= len(b) {
			b = b[:total]
		} else {
			p.missing = total - len(b)
		}
	}
	return proto, b[ihl:], kindNext
}

// ipv6 reads an IPv6 header and its extension headers; like ipv4.
func ipv6(b []byte, p *tcpPacket) (uint8, []byte, pktKind) {
	if len(b) < 40 || b[0]>>4 != 6 {
		return 0, nil, kindMalformed
	}
	plen := int(binary.BigEndian.Uint16(b[4:]))
	proto := b[6]
	p.src = netip.AddrFrom16([16]byte(b[8:24]))
	p.dst = netip.AddrFrom16([16]byte(b[24:40]))
	b = b[40:]
	p.missing = 0
	if plen != 0 {
		if plen <= len(b) {
			b = b[:plen]
		} else {
			p.missing = plen - len(b)
		}
	}
	return ipv6Extensions(proto, b)
}

// ipv6Extensions skips up to eight extension headers.
func ipv6Extensions(proto uint8, b []byte) (uint8, []byte, pktKind) {
	for i := 0; i < 8; i++ {
		var n int
		switch proto {
		case 0, 43, 60: // hop-by-hop, routing, destination options
			if len(b) < 8 {
				return 0, nil, kindMalformed
			}
			n = (int(b[1]) + 1) * 8
		case 51: // AH
			if len(b) < 8 {
				return 0, nil, kindMalformed
			}
			n = (int(b[1]) + 2) * 4
		case 44: // fragment
			if len(b) < 8 {
				return 0, nil, kindMalformed
			}
			if binary.BigEndian.Uint16(b[2:])&0xfff9 != 0 { // offset or M flag
				return 0, nil, kindFragment
			}
			n = 8 // an atomic fragment
		default:
			return proto, b, kindNext
		}
		if n > len(b) {
			return 0, nil, kindMalformed
		}
		proto, b = b[0], b[n:]
	}
	return proto, b, kindNext
}

// tcpHeader reads a TCP header into p; its payload is what follows.
func tcpHeader(b []byte, p *tcpPacket) pktKind {
	if len(b) < 20 {
		return kindMalformed
	}
	off := int(b[12]>>4) * 4
	if off < 20 {
		return kindMalformed
	}
	payload := b[min(off, len(b)):]
	if off > len(b) {
		// The snap length cut the header's options (a 60-byte snap
		// length on Ethernet with TCP timestamps): its fixed part says
		// all that is read of it, and the payload is all missing.
		n := len(b) + p.missing - off
		if p.missing == 0 || n < 0 {
			return kindMalformed
		}
		p.missing = n
	}
	p.sport = binary.BigEndian.Uint16(b[0:])
	p.dport = binary.BigEndian.Uint16(b[2:])
	p.seq = binary.BigEndian.Uint32(b[4:])
	p.ack = binary.BigEndian.Uint32(b[8:])
	p.flags = b[13]
	p.payload = payload
	return kindTCP
}
