package capture

import (
	"encoding/binary"
	"math"
	"time"
)

// lastNano is the last time UnixNano gives (in 2262).
var lastNano = time.Unix(0, math.MaxInt64)

// Packet is a packet to write into a capture file (PcapngWriter): its
// bytes from its link header on, when it was captured, and its link type
// (a pcap LINKTYPE_ value: 1 Ethernet, 113 and 276 Linux cooked v1 and
// v2, 0 BSD loopback, 101 raw IP).
type Packet struct {
	Data []byte
	Time time.Time
	Link uint32
}

// PcapngWriter writes packets from elsewhere (a text dump of them) as a
// pcapng file, so that Read and ReadFunc, as any tool, read them as a
// capture: a section header, an interface description for each link type
// in the order of its first packet (nanosecond times), and an enhanced
// packet block for each packet. A packet longer than Read takes (1 MiB)
// is written cut to it, its length kept, as a snap length cuts one; a
// time before 1970 is written as 1970, one after 2262 as 2262. The zero
// value is ready to use.
type PcapngWriter struct {
	ifaces map[uint32]uint32 // link type to interface id
}

// Append appends p to b, the file written so far: the section header
// first (on the first call), an interface description the first time
// its link type comes, then its packet.
func (w *PcapngWriter) Append(b []byte, p Packet) []byte {
	le := binary.LittleEndian
	if w.ifaces == nil {
		w.ifaces = map[uint32]uint32{}
		// Section header: byte order magic, version 1.0, length unknown.
		b = le.AppendUint32(b, 0x0A0D0D0A)
		b = le.AppendUint32(b, 28)
		b = le.AppendUint32(b, 0x1A2B3C4D)
		b = le.AppendUint16(b, 1)
		b = le.AppendUint16(b, 0)
		b = le.AppendUint64(b, ^uint64(0))
		b = le.AppendUint32(b, 28)
	}
	id, ok := w.ifaces[p.Link]
	if !ok {
		id = uint32(len(w.ifaces))
		w.ifaces[p.Link] = id
		// Interface description: link type, no snap length, if_tsresol
		// 9 (nanoseconds), end of options.
		b = le.AppendUint32(b, 1)
		b = le.AppendUint32(b, 32)
		b = le.AppendUint16(b, uint16(p.Link))
		b = le.AppendUint16(b, 0)
		b = le.AppendUint32(b, 0)
		b = append(b, 9, 0, 1, 0, 9, 0, 0, 0)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, 32)
	}
	data := p.Data
	if len(data) > maxPacket {
		data = data[:maxPacket]
	}
	padded := (len(data) + 3) &^ 3
	n := uint32(32 + padded)
	var ns uint64
	switch {
	case p.Time.After(lastNano):
		ns = math.MaxInt64
	case !p.Time.Before(time.Unix(0, 0)):
		ns = uint64(p.Time.UnixNano())
	}
	b = le.AppendUint32(b, 6)
	b = le.AppendUint32(b, n)
	b = le.AppendUint32(b, id)
	b = le.AppendUint32(b, uint32(ns>>32))
	b = le.AppendUint32(b, uint32(ns))
	b = le.AppendUint32(b, uint32(len(data)))
	b = le.AppendUint32(b, uint32(len(p.Data)))
	b = append(b, data...)
	b = append(b, make([]byte, padded-len(data))...)
	return le.AppendUint32(b, n)
}
