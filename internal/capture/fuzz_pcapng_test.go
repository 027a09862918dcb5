package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/gopacket/layers"
)

// ngSection is a little-endian section header block of 28 bytes (no
// options, section length unknown), the start FuzzPcapng puts before the
// fuzzed blocks so mutations land on the blocks that follow.
func ngSection() []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0x0A0D0D0A)
	b = binary.LittleEndian.AppendUint32(b, 28)
	b = binary.LittleEndian.AppendUint32(b, 0x1A2B3C4D)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint64(b, ^uint64(0))
	return binary.LittleEndian.AppendUint32(b, 28)
}

// ngBlock is one pcapng block of type typ around body (padded to 4 bytes).
func ngBlock(order binary.AppendByteOrder, typ uint32, body []byte) []byte {
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	n := uint32(12 + len(body))
	b := order.AppendUint32(nil, typ)
	b = order.AppendUint32(b, n)
	b = append(b, body...)
	return order.AppendUint32(b, n)
}

// FuzzPcapng reads the blocks after a section header: interface
// descriptions with options, enhanced, simple and obsolete packet blocks,
// new sections in either byte order, unknown blocks. Whatever the blocks
// say, reading never panics, every packet lies within the bytes given,
// and the block buffer never grows past the largest block allowed.
func FuzzPcapng(f *testing.F) {
	le := binary.LittleEndian
	idb := ngBlock(le, 1, append(le.AppendUint32(nil, 1), le.AppendUint32(nil, 65536)...))
	idbOpts := ngBlock(le, 1, append(le.AppendUint32(nil, 1), 0, 0, 1, 0, 9, 0, 1, 0, 9, 0, 0, 0, 14, 0, 8, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
	b := newTB(f, layers.LinkTypeEthernet)
	simple(b, 1)
	pkt := b.pkts[3]
	epb := le.AppendUint32(nil, 0)
	epb = le.AppendUint32(epb, 1)
	epb = le.AppendUint32(epb, 2)
	epb = le.AppendUint32(epb, uint32(len(pkt)))
	epb = le.AppendUint32(epb, uint32(len(pkt)))
	epb = ngBlock(le, 6, append(epb, pkt...))
	spb := ngBlock(le, 3, append(le.AppendUint32(nil, uint32(len(pkt))), pkt...))
	opb := ngBlock(le, 2, append(bytes.Clone(epb[8:28]), pkt...))
	f.Add(idb)
	f.Add(append(bytes.Clone(idb), epb...))
	f.Add(append(bytes.Clone(idbOpts), epb...))
	f.Add(append(append(bytes.Clone(idb), spb...), opb...))
	f.Add(append(append(bytes.Clone(idb), ngBlock(le, 0xbad, []byte("skip me"))...), epb...))
	ng := b.pcapng()
	f.Add(ng[int(le.Uint32(ng[4:])):])
	f.Fuzz(func(t *testing.T, blocks []byte) {
		data := append(ngSection(), blocks...)
		g := &ngReader{r: bufio.NewReader(bytes.NewReader(data))}
		if err := g.section(); err != nil {
			t.Fatal(err)
		}
		for {
			pkt, _, _, err := g.next()
			if err != nil {
				break
			}
			if len(pkt) > len(data) {
				t.Fatalf("a packet of %d bytes from %d bytes", len(pkt), len(data))
			}
		}
		if cap(g.block) > maxPacket+1<<16 {
			t.Fatalf("block buffer of %d bytes", cap(g.block))
		}
		if len(g.ifs) > maxInterfaces {
			t.Fatalf("%d interfaces", len(g.ifs))
		}
		r, err := Read(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, r)
	})
}
