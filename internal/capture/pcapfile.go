package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"time"
)

// The file formats are read here rather than with gopacket's pcapgo: pcapgo
// imports gopacket/layers and net, which tripled the size of the browser's
// WebAssembly module (2.7 MB raw of 5.6), and it needed guards against
// hostile files (allocations from declared snap lengths, a divide by zero
// on some pcapng resolutions). The formats are small: a classic pcap file
// is a 24-byte header then records; a pcapng file is a sequence of blocks.

var errCorrupt = errors.New("capture: corrupt block")

// fileReader yields packets from a pcap or pcapng stream: through the
// one of its two readers that is set. A struct, not an interface: an
// interface's method types count as used in an interface, and next's
// time.Time would keep time.Time.String linked, and with it time's
// layout formatter, some 20 KB gzip of capture.wasm (see
// internal/sortfunc).
type fileReader struct {
	pcap *pcapReader
	ng   *ngReader
}

// next is the next packet's bytes, time and link type.
func (f fileReader) next() (data []byte, ts time.Time, link uint32, err error) {
	if f.ng != nil {
		return f.ng.next()
	}
	return f.pcap.next()
}

// openFile detects the format from the first bytes: classic pcap (either
// byte order, micro- or nanosecond), pcapng, or either of them gzipped.
func openFile(br *bufio.Reader) (fileReader, error) {
	return openLayer(br, true)
}

// openLayer opens the capture in br, unwrapping one gzip layer when
// gunzip is true. Only one: a gzip file that inflates to itself exists,
// and would otherwise recurse without end.
func openLayer(br *bufio.Reader, gunzip bool) (fileReader, error) {
	magic, err := br.Peek(4)
	if err != nil {
		return fileReader{}, errors.New("too short for a capture file")
	}
	if magic[0] == 0x1f && magic[1] == 0x8b {
		if !gunzip {
			return fileReader{}, errors.New("gzip inside gzip")
		}
		zr, err := newGunzip(br)
		if err != nil {
			return fileReader{}, err
		}
		return openLayer(bufio.NewReaderSize(zr, 64<<10), false)
	}
	switch binary.LittleEndian.Uint32(magic) {
	case 0x0A0D0D0A:
		g := &ngReader{r: br}
		if err := g.section(); err != nil {
			return fileReader{}, err
		}
		return fileReader{ng: g}, nil
	case 0xa1b2c3d4, 0xd4c3b2a1, 0xa1b23c4d, 0x4d3cb2a1:
		p, err := newPcapReader(br)
		return fileReader{pcap: p}, err
	}
	return fileReader{}, errors.New("it starts " + spacedHex(magic) + ", no capture file's magic")
}

type pcapReader struct {
	r     *bufio.Reader
	order binary.ByteOrder
	nano  bool
	link  uint32
	hdr   [16]byte
	buf   []byte
}

func newPcapReader(br *bufio.Reader) (*pcapReader, error) {
	var h [24]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return nil, errors.New("truncated pcap header")
	}
	p := &pcapReader{r: br}
	switch binary.LittleEndian.Uint32(h[:4]) {
	case 0xa1b2c3d4:
		p.order = binary.LittleEndian
	case 0xa1b23c4d:
		p.order, p.nano = binary.LittleEndian, true
	case 0xd4c3b2a1:
		p.order = binary.BigEndian
	case 0x4d3cb2a1:
		p.order, p.nano = binary.BigEndian, true
	}
	// The link type is the low 28 bits (the top bits may carry FCS flags);
	// the snap length is ignored: packets are bounded by maxPacket.
	p.link = p.order.Uint32(h[20:]) & 0x0fffffff
	return p, nil
}

func (p *pcapReader) next() ([]byte, time.Time, uint32, error) {
	if _, err := io.ReadFull(p.r, p.hdr[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return nil, time.Time{}, 0, errors.New("truncated packet header")
		}
		return nil, time.Time{}, 0, err
	}
	sec, frac := p.order.Uint32(p.hdr[0:]), p.order.Uint32(p.hdr[4:])
	incl := p.order.Uint32(p.hdr[8:])
	if incl > maxPacket {
		return nil, time.Time{}, 0, errors.New("packet of " + strconv.FormatUint(uint64(incl), 10) + " bytes is larger than the limit")
	}
	data, err := readGrowing(p.r, &p.buf, int(incl))
	if err != nil {
		return nil, time.Time{}, 0, errors.New("truncated packet")
	}
	ns := int64(frac) * 1000
	if p.nano {
		ns = int64(frac)
	}
	return data, time.Unix(int64(sec), ns).UTC(), p.link, nil
}

// readGrowing reads n bytes from r into *buf, which it keeps for the next
// read. The n a record's header declares (up to maxPacket, 1 MiB) is not
// allocated up front: *buf grows with the bytes read, doubling from what
// bufio holds, so a file that declares a 1 MiB packet and ends after a few
// bytes costs those bytes, not the megabyte (and a fuzzer's 40-byte input
// not a 1 MiB allocation each).
func readGrowing(r *bufio.Reader, buf *[]byte, n int) ([]byte, error) {
	b := *buf
	if cap(b) >= n {
		b = b[:n]
		_, err := io.ReadFull(r, b)
		return b, err
	}
	b = b[:0]
	for len(b) < n {
		// At least what is buffered (read at once), else double.
		want := min(n, max(len(b)+r.Buffered(), 2*len(b), 512))
		b = slices.Grow(b, want-len(b))
		k, err := io.ReadFull(r, b[len(b):want])
		b = b[:len(b)+k]
		if err != nil {
			*buf = b
			return nil, err
		}
	}
	*buf = b
	return b, nil
}

// ngReader reads pcapng: section headers (either byte order), interface
// descriptions (link type, timestamp resolution), enhanced, simple and
// obsolete packet blocks; other blocks are skipped.
type ngReader struct {
	r     *bufio.Reader
	order binary.ByteOrder
	ifs   []ngIface
	block []byte
	// secrets, when set, takes the TLS key log of each decryption
	// secrets block.
	secrets func([]byte)
}

// maxInterfaces bounds the interface descriptions of one pcapng section,
// so a stream of them cannot grow memory without end (dumpcap writes one
// per captured interface).
const maxInterfaces = 1 << 12

type ngIface struct {
	link uint32
	// timestamp units per second, and the offset in seconds (if_tsoffset)
	perSec uint64
	offset int64
}

func (g *ngReader) next() ([]byte, time.Time, uint32, error) {
	for {
		var h [8]byte
		if _, err := io.ReadFull(g.r, h[:]); err != nil {
			if err == io.ErrUnexpectedEOF {
				return nil, time.Time{}, 0, errors.New("truncated block header")
			}
			return nil, time.Time{}, 0, err
		}
		typ := binary.LittleEndian.Uint32(h[:4])
		if typ == 0x0A0D0D0A { // a new section fixes the byte order anew
			if err := g.sectionRest(h); err != nil {
				return nil, time.Time{}, 0, err
			}
			continue
		}
		if g.order == nil {
			return nil, time.Time{}, 0, errCorrupt
		}
		typ = g.order.Uint32(h[:4])
		blen := g.order.Uint32(h[4:])
		if blen < 12 || blen%4 != 0 || blen > maxPacket+1<<16 {
			return nil, time.Time{}, 0, errCorrupt
		}
		body := int(blen) - 12 // without the type, length and trailing length
		b, err := readGrowing(g.r, &g.block, body+4)
		if err != nil {
			return nil, time.Time{}, 0, errors.New("truncated block")
		}
		b = b[:body]
		switch typ {
		case 1: // interface description
			if len(b) < 8 {
				return nil, time.Time{}, 0, errCorrupt
			}
			ifc := ngIface{link: uint32(g.order.Uint16(b[0:])), perSec: 1e6}
			g.options(b[8:], func(code uint16, v []byte) {
				switch {
				case code == 9 && len(v) >= 1: // if_tsresol
					r := v[0]
					var per float64
					if r&0x80 != 0 {
						per = math.Pow(2, float64(r&0x7f))
					} else {
						per = math.Pow(10, float64(r))
					}
					if per >= 1 && per <= 1e18 {
						ifc.perSec = uint64(per)
					}
				case code == 14 && len(v) >= 8: // if_tsoffset
					ifc.offset = int64(g.order.Uint64(v))
				}
			})
			if len(g.ifs) >= maxInterfaces {
				return nil, time.Time{}, 0, errors.New("more than " + strconv.Itoa(maxInterfaces) + " interfaces in one section")
			}
			g.ifs = append(g.ifs, ifc)
		case 6, 2: // enhanced packet, obsolete packet
			if len(b) < 20 {
				return nil, time.Time{}, 0, errCorrupt
			}
			id := g.order.Uint32(b[0:])
			if typ == 2 {
				id = uint32(g.order.Uint16(b[0:]))
			}
			if int(id) >= len(g.ifs) {
				return nil, time.Time{}, 0, errors.New("packet for undeclared interface " + strconv.FormatUint(uint64(id), 10))
			}
			ts := uint64(g.order.Uint32(b[4:]))<<32 | uint64(g.order.Uint32(b[8:]))
			capLen := g.order.Uint32(b[12:])
			if uint64(capLen) > uint64(len(b)-20) {
				return nil, time.Time{}, 0, errCorrupt
			}
			ifc := g.ifs[id]
			sec, ns := ngTime(ts, ifc.perSec)
			return b[20 : 20+capLen], time.Unix(int64(sec)+ifc.offset, int64(ns)).UTC(), ifc.link, nil
		case 10: // decryption secrets: type, length, data
			if len(b) >= 8 && g.order.Uint32(b) == 0x544c534b && g.secrets != nil { // "TLSK", a TLS key log
				g.secrets(b[8 : 8+min(int(g.order.Uint32(b[4:])), len(b)-8)])
			}
		case 3: // simple packet: interface 0, no timestamp
			if len(b) < 4 || len(g.ifs) == 0 {
				return nil, time.Time{}, 0, errCorrupt
			}
			orig := g.order.Uint32(b[0:])
			data := b[4:]
			if uint32(len(data)) > orig {
				data = data[:orig]
			}
			return data, time.Time{}, g.ifs[0].link, nil
		}
	}
}

// ngTime splits a timestamp of perSec units a second into seconds and
// nanoseconds, exactly (truncated to the nanosecond) whatever the
// resolution, binary ones (2^-30, 2^-32) included: the fraction times 1e9
// is computed in 128 bits before it is divided.
func ngTime(ts, perSec uint64) (sec, ns uint64) {
	hi, lo := bits.Mul64(ts%perSec, 1e9)
	ns, _ = bits.Div64(hi, lo, perSec) // hi < perSec, as ts%perSec < perSec
	return ts / perSec, ns
}

// section reads the section header block that starts the file.
func (g *ngReader) section() error {
	var h [8]byte
	if _, err := io.ReadFull(g.r, h[:]); err != nil {
		return errors.New("truncated section header")
	}
	return g.sectionRest(h)
}

func (g *ngReader) sectionRest(h [8]byte) error {
	var bom [4]byte
	if _, err := io.ReadFull(g.r, bom[:]); err != nil {
		return errors.New("truncated section header")
	}
	switch binary.LittleEndian.Uint32(bom[:]) {
	case 0x1A2B3C4D:
		g.order = binary.LittleEndian
	case 0x4D3C2B1A:
		g.order = binary.BigEndian
	default:
		return errCorrupt
	}
	g.ifs = g.ifs[:0]
	blen := g.order.Uint32(h[4:])
	if blen < 28 || blen%4 != 0 || blen > maxPacket+1<<16 {
		return errCorrupt
	}
	if _, err := g.r.Discard(int(blen) - 12); err != nil {
		return errors.New("truncated section header")
	}
	return nil
}

// options calls fn for each option of a block: code, length, value padded
// to 4 bytes. An option whose value or padding runs past the block ends
// the list (its value is still given when it fits).
func (g *ngReader) options(b []byte, fn func(code uint16, v []byte)) {
	for len(b) >= 4 {
		code, n := g.order.Uint16(b), int(g.order.Uint16(b[2:]))
		if code == 0 || n > len(b)-4 {
			return
		}
		fn(code, b[4:4+n])
		padded := 4 + (n+3)&^3
		if padded > len(b) {
			return
		}
		b = b[padded:]
	}
}

// spacedHex is b as hex bytes in their order, spaced: "00 00 00 c5".
func spacedHex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 3*len(b))
	for i, c := range b {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}
