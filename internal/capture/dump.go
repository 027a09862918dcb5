package capture

import (
	"time"

	"github.com/kwire/kwire/internal/input"
)

// DumpPcapng writes the packets of a text dump (input.ParsePackets) as a
// pcapng that Read reads as the capture the dump was printed from: each
// packet with its link type and its time, or, where the dump gives no
// times (input.NoTimes), one a millisecond after the last, from the
// epoch on. kwire pcap, kwire check and the playground's capture module
// read such a text so.
func DumpPcapng(d *input.PacketDump) []byte {
	size := 28
	for _, p := range d.Packets {
		size += 64 + len(p.Data)
	}
	var w PcapngWriter
	out := make([]byte, 0, size)
	for i, p := range d.Packets {
		tm := p.Time
		if d.Times == input.NoTimes {
			tm = time.Unix(0, int64(i+1)*int64(time.Millisecond)).UTC()
		}
		out = w.Append(out, Packet{Data: p.Data, Time: tm, Link: uint32(p.LinkType)})
	}
	return out
}
