package input

// TCPPayload returns the TCP payload of b if b is a whole IPv4 or IPv6
// packet carrying TCP, as tcpdump -X and Wireshark's whole-packet dumps
// show, optionally behind an Ethernet II header (with at most one VLAN tag)
// as tcpdump -XX shows. ok is false if b is not such a packet; IPv6
// extension headers and IPv4 fragments are not supported.
//
// Parse does not call it: a caller that finds no Kafka frame in what Parse
// returned (see HasSizePrefix) may try it.
func TCPPayload(b []byte) (payload []byte, ok bool) {
	if p, ok := ipTCPPayload(b); ok {
		return p, true
	}
	if len(b) < 14 {
		return nil, false
	}
	typ, at := be16(b[12:]), 14
	if typ == 0x8100 && len(b) >= 18 {
		typ, at = be16(b[16:]), 18
	}
	if typ != 0x0800 && typ != 0x86dd {
		return nil, false
	}
	return ipTCPPayload(b[at:])
}

func be16(b []byte) int { return int(b[0])<<8 | int(b[1]) }

// ipTCPPayload returns the TCP payload of the IP packet b.
func ipTCPPayload(b []byte) ([]byte, bool) {
	if len(b) < 20 {
		return nil, false
	}
	var seg []byte
	switch b[0] >> 4 {
	case 4:
		ihl := int(b[0]&0x0f) * 4
		total := be16(b[2:])
		if ihl < 20 || total < ihl || total > len(b) || b[9] != 6 || be16(b[6:])&0x3fff != 0 {
			return nil, false
		}
		seg = b[ihl:total] // total drops any Ethernet padding
	case 6:
		if len(b) < 40 || b[6] != 6 {
			return nil, false
		}
		end := 40 + be16(b[4:])
		if end == 40 || end > len(b) {
			return nil, false
		}
		seg = b[40:end]
	default:
		return nil, false
	}
	if len(seg) < 20 {
		return nil, false
	}
	doff := int(seg[12]>>4) * 4
	if doff < 20 || doff > len(seg) {
		return nil, false
	}
	return seg[doff:], true
}
