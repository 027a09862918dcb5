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

type tcpPacket struct {
	src, dst     netip.Addr
	sport, dport uint16
	seq, ack     uint32
	flags        uint8
	payload      []byte
	missing      int // payload bytes on the wire but not captured (snap length)
}

func decodePacket(lt uint32, b []byte, p *tcpPacket) pktKind {
	var et uint16
	switch lt {
	case linkEthernet:
		if len(b) < 14 {
			return kindMalformed
		}
		et = binary.BigEndian.Uint16(b[12:])
		b = b[14:]
	case linkSLL:
		if len(b) < 16 {
			return kindMalformed
		}
		et = binary.BigEndian.Uint16(b[14:])
		b = b[16:]
	case linkSLL2:
		if len(b) < 20 {
			return kindMalformed
		}
		et = binary.BigEndian.Uint16(b[0:])
		b = b[20:]
	case linkNull, linkLoop:
		// 4-byte address family: host byte order of the capturing machine
		// for DLT_NULL, network order for DLT_LOOP; accept either.
		if len(b) < 4 {
			return kindMalformed
		}
		fam := binary.LittleEndian.Uint32(b)
		if fam > 0xffff {
			fam = binary.BigEndian.Uint32(b)
		}
		b = b[4:]
		switch fam {
		case 2:
			et = 0x0800
		case 10, 24, 28, 30: // AF_INET6 on Linux, NetBSD/OpenBSD, FreeBSD, Darwin
			et = 0x86dd
		default:
			return kindOther
		}
	case linkRaw, linkRawOld, linkRawOBSD, linkIPv4, linkIPv6:
		if len(b) < 1 {
			return kindMalformed
		}
		switch b[0] >> 4 {
		case 4:
			et = 0x0800
		case 6:
			et = 0x86dd
		default:
			return kindOther
		}
	default:
		return kindUnsupportedLink
	}
	// VLAN tags (802.1Q, 802.1ad, old QinQ)
	for i := 0; i < 4 && (et == 0x8100 || et == 0x88a8 || et == 0x9100); i++ {
		if len(b) < 4 {
			return kindMalformed
		}
		et = binary.BigEndian.Uint16(b[2:])
		b = b[4:]
	}
	var proto uint8
	switch et {
	case 0x0800:
		if len(b) < 20 || b[0]>>4 != 4 {
			return kindMalformed
		}
		ihl := int(b[0]&0x0f) * 4
		if ihl < 20 || ihl > len(b) {
			return kindMalformed
		}
		total := int(binary.BigEndian.Uint16(b[2:]))
		fo := binary.BigEndian.Uint16(b[6:])
		proto = b[9]
		p.src = netip.AddrFrom4([4]byte(b[12:16]))
		p.dst = netip.AddrFrom4([4]byte(b[16:20]))
		if fo&0x3fff != 0 { // MF set or fragment offset
			return kindFragment
		}
		p.missing = 0
		if total >= ihl {
			if total <= len(b) {
				b = b[:total] // drop link-layer padding
			} else {
				p.missing = total - len(b)
			}
		} // total 0: TSO/GRO, use what was captured
		b = b[ihl:]
	case 0x86dd:
		if len(b) < 40 || b[0]>>4 != 6 {
			return kindMalformed
		}
		plen := int(binary.BigEndian.Uint16(b[4:]))
		proto = b[6]
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
		for i := 0; i < 8; i++ {
			switch proto {
			case 0, 43, 60: // hop-by-hop, routing, destination options
				if len(b) < 8 {
					return kindMalformed
				}
				n := (int(b[1]) + 1) * 8
				if n > len(b) {
					return kindMalformed
				}
				proto = b[0]
				b = b[n:]
				continue
			case 51: // AH
				if len(b) < 8 {
					return kindMalformed
				}
				n := (int(b[1]) + 2) * 4
				if n > len(b) {
					return kindMalformed
				}
				proto = b[0]
				b = b[n:]
				continue
			case 44: // fragment
				if len(b) < 8 {
					return kindMalformed
				}
				if binary.BigEndian.Uint16(b[2:])&0xfff9 != 0 { // offset or M flag
					return kindFragment
				}
				proto = b[0] // atomic fragment
				b = b[8:]
				continue
			}
			break
		}
	default:
		return kindOther
	}
	if proto != 6 {
		return kindOther
	}
	if len(b) < 20 {
		return kindMalformed
	}
	off := int(b[12]>>4) * 4
	if off < 20 || off > len(b) {
		return kindMalformed
	}
	p.sport = binary.BigEndian.Uint16(b[0:])
	p.dport = binary.BigEndian.Uint16(b[2:])
	p.seq = binary.BigEndian.Uint32(b[4:])
	p.ack = binary.BigEndian.Uint32(b[8:])
	p.flags = b[13]
	p.payload = b[off:]
	return kindTCP
}
