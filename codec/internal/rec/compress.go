package rec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression codecs, as in the low three attribute bits.
const (
	CodecNone   = 0
	CodecGzip   = 1
	CodecSnappy = 2
	CodecLZ4    = 3
	CodecZstd   = 4
)

var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// CodecName is the JSON name of a codec: "none", "gzip", "snappy", "lz4",
// "zstd", or "" for the unassigned values 5-7.
func CodecName(c int) string {
	if c >= 0 && c < len(codecNames) {
		return codecNames[c]
	}
	return ""
}

var errLimit = errors.New("decompressed size exceeds Options.MaxDecompressed")

// errLimitAhead is errLimit known before the bytes were made (a size the
// data says, or its raw and RLE zstd blocks): the work is what was made
// before it, not the limit. inflateInto returns it as errLimit.
var errLimitAhead = errors.New("decompressed size would exceed Options.MaxDecompressed")

// xerialMagic starts the framed snappy stream the Java client (xerial
// snappy-java) writes: the magic, then int32 version and int32 compatible
// version, then [int32 length][snappy block] chunks.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// inflate decompresses src with codec, producing at most limit bytes.
// Memory grows with the bytes actually produced: sizes the compressed
// data declares (gzip's ISIZE, lz4's content size, snappy's decoded
// length, zstd's frame content size) are never trusted for an allocation
// beyond what that many compressed bytes could really hold. warn is set
// for accepted quirks (the old Kafka lz4 header checksum). The last
// argument is unused (it sized decoder pools once).
func inflate(codec int, src []byte, limit, _ int) (out []byte, warn string, err error) {
	out, warn, _, err = inflateInto(nil, codec, src, limit)
	if err != nil {
		out = nil
	}
	return out, warn, err
}

// inflateInto is inflate writing into dst's memory when it is big enough
// (the tree-less path reuses one buffer per nesting depth). done is the
// work it counts for, the same whatever dst was: the bytes it made, or
// limit when they would be more, or the bytes made before a failure. On
// failure out is an empty buffer to reuse (dst's, or a bigger one the
// attempt made), so that a flood of decompressions that fail does not
// allocate anew each time.
func inflateInto(dst []byte, codec int, src []byte, limit int) (out []byte, warn string, done int, err error) {
	if limit < 0 {
		limit = 0
	}
	// On failure the decompressors return the buffer they were filling,
	// holding what they made before the failure.
	switch codec {
	case CodecGzip:
		out, err = gunzip(dst, src, limit)
	case CodecSnappy:
		out, err = unsnappy(dst, src, limit)
	case CodecLZ4:
		out, warn, err = unlz4(dst, src, limit)
	case CodecZstd:
		out, err = unzstd(dst, src, limit)
	default:
		err = errors.New("unknown compression codec " + itoa(codec))
	}
	done = len(out)
	if err != nil {
		switch err {
		case errLimit:
			done = limit
		case errLimitAhead:
			err = errLimit
		}
		if cap(out) < cap(dst) {
			out = dst
		}
		out = out[:0]
	}
	return out, warn, done, err
}

// firstCap is the capacity a decompression starts with: a small multiple
// of the compressed size (work already done), never a declared size.
func firstCap(src []byte, limit int) int {
	return min(limit+1, max(512, 4*len(src)))
}

// readLimited reads r to EOF into a buffer (dst's memory, or one that
// starts at firstCap) that doubles, failing with errLimit once more than
// limit bytes come out.
func readLimited(dst []byte, r io.Reader, src []byte, limit int) ([]byte, error) {
	buf := dst[:0]
	if cap(buf) == 0 {
		buf = make([]byte, 0, firstCap(src, limit))
	}
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return buf, errLimit
			}
			n := min(cap(buf)*2, limit+1)
			if n <= len(buf) {
				n = len(buf) + 1
			}
			nb := make([]byte, len(buf), n)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			return buf, errLimit
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

var gzipPool sync.Pool

func gunzip(dst, src []byte, limit int) ([]byte, error) {
	br := bytes.NewReader(src)
	var zr *gzip.Reader
	if p, _ := gzipPool.Get().(*gzip.Reader); p != nil {
		if err := p.Reset(br); err != nil {
			gzipPool.Put(p)
			return dst[:0], err
		}
		zr = p
	} else {
		var err error
		if zr, err = gzip.NewReader(br); err != nil {
			return dst[:0], err
		}
	}
	out, err := readLimited(dst, zr, src, limit)
	gzipPool.Put(zr)
	return out, err
}

// snappyRatio bounds what one byte of a snappy block can decode to: the
// longest copy (64 bytes) takes a 3-byte element. A decoded length beyond
// it is a lie, refused before anything is allocated for it.
const snappyRatio = 22

func unsnappy(dst, src []byte, limit int) ([]byte, error) {
	if isXerial(src) {
		out := dst[:0]
		p := 16
		for p < len(src) {
			if len(src)-p < 4 {
				return out, errors.New("xerial snappy: truncated chunk length")
			}
			n := int(binary.BigEndian.Uint32(src[p:]))
			p += 4
			if n < 0 || n > len(src)-p {
				return out, errors.New("xerial snappy: chunk runs past the end")
			}
			chunk := src[p : p+n]
			p += n
			dl, err := snappyLen(chunk)
			if err != nil {
				return out, err
			}
			if dl > limit-len(out) {
				return out, errLimitAhead
			}
			if cap(out)-len(out) < dl {
				nb := make([]byte, len(out), min(limit, 2*cap(out)+dl))
				copy(nb, out)
				out = nb
			}
			d, err := s2.Decode(out[len(out):len(out)+dl], chunk)
			if err != nil {
				return out, err
			}
			out = out[:len(out)+len(d)]
		}
		if out == nil {
			out = []byte{}
		}
		return out, nil
	}
	dl, err := snappyLen(src)
	if err != nil {
		return dst[:0], err
	}
	if dl > limit {
		return dst[:0], errLimitAhead
	}
	if cap(dst) < dl {
		dst = make([]byte, dl)
	}
	out, err := s2.Decode(dst[:dl], src)
	if err != nil {
		return dst[:0], err
	}
	return out, nil
}

// snappyLen is a block's decoded length, when the block could hold it.
func snappyLen(block []byte) (int, error) {
	dl, err := s2.DecodedLen(block)
	if err != nil {
		return 0, err
	}
	if dl > snappyRatio*len(block) {
		return 0, errors.New("snappy: a decoded length of " + itoa(dl) + " bytes is impossible for " + itoa(len(block)) + " compressed bytes")
	}
	return dl, nil
}

// isXerial reports whether src is the framed (xerial) snappy form.
func isXerial(src []byte) bool { return len(src) >= 16 && bytes.Equal(src[:8], xerialMagic) }

const lz4Magic = 0x184D2204

// lz4HeaderEnd returns the offset of the header checksum byte of an lz4
// frame, or -1.
func lz4HeaderEnd(src []byte) int {
	if len(src) < 7 || binary.LittleEndian.Uint32(src) != lz4Magic {
		return -1
	}
	flg := src[4]
	hc := 6
	if flg&0x08 != 0 {
		hc += 8
	}
	if flg&0x01 != 0 {
		hc += 4
	}
	if hc >= len(src) {
		return -1
	}
	return hc
}

var lz4Pool sync.Pool

// lz4OldChecksum is the lz4 warning for a frame whose header checksum
// covers the magic number too, and the checksum byte's offset and the
// right checksum; "" when the header is as the format says.
func lz4OldChecksum(src []byte) (warn string, hc int, good byte) {
	if hc = lz4HeaderEnd(src); hc > 0 {
		good = byte(xxh32(src[4:hc]) >> 8)
		old := byte(xxh32(src[:hc]) >> 8)
		if src[hc] != good && src[hc] == old {
			// Kafka before KIP-57 (magic 0 messages) hashed the frame
			// descriptor together with the magic number.
			return "lz4 frame header checksum computed over the magic number too (old Kafka clients, magic 0): accepted", hc, good
		}
	}
	return "", 0, 0
}

// inflateWarning is the warning a decompression of src that worked gave,
// without decompressing again.
func inflateWarning(codec int, src []byte) string {
	if codec == CodecLZ4 {
		w, _, _ := lz4OldChecksum(src)
		return w
	}
	return ""
}

func unlz4(dst, src []byte, limit int) ([]byte, string, error) {
	var r io.Reader = bytes.NewReader(src)
	warn, hc, good := lz4OldChecksum(src)
	if warn != "" {
		fixed := make([]byte, hc+1)
		copy(fixed, src[:hc])
		fixed[hc] = good
		r = io.MultiReader(bytes.NewReader(fixed), bytes.NewReader(src[hc+1:]))
	}
	zr, _ := lz4Pool.Get().(*lz4.Reader)
	if zr == nil {
		zr = lz4.NewReader(r)
	} else {
		zr.Reset(r)
	}
	out, err := readLimited(dst, zr, src, limit)
	zr.Reset(nil)
	lz4Pool.Put(zr)
	return out, warn, err
}

const defaultMaxDecompressed = 64 << 20

// zstdRatio bounds what one byte of a zstd frame can decode to: a
// 4-byte RLE block stands for at most 128 KiB.
const zstdRatio = 1 << 15

// zstdBlockMax is the most one zstd block decodes to (RFC 8878 3.1.1.2.4).
const zstdBlockMax = 128 << 10

// zstdPool holds decoders that decode into the caller's buffer and never
// past its capacity (WithDecodeAllCapLimit), so the output buffer is ours
// to size: from the compressed size up, never from a declared size alone.
var zstdPool sync.Pool

// unzstd decodes src into a buffer that starts at firstCap (or what src
// must decode to at least) and grows by 4 while the output does not fit,
// up to what its blocks can make, or one block past limit.
//
// The block headers are read first (zstdBounds): raw and RLE blocks say
// their size, so a bomb of them is refused before anything is decoded or
// allocated, and the buffer never grows past what the frames can make.
//
// A full buffer is not always reported as zstd.ErrDecoderSizeExceeded:
// a compressed block whose sequences run out of room fails with "output
// bigger than max block size" (klauspost/compress v1.18, decodeSync), the
// error a corrupt block gives. So a failure within a block's reach of the
// buffer's end (the output holds the blocks decoded before it) is taken
// for a full buffer and tried again bigger; the last try has room for a
// whole block past limit, or for all the frames can make, so there a
// failure is the stream's own (a corrupt frame) or the output passed
// limit (errLimit).
func unzstd(dst, src []byte, limit int) ([]byte, error) {
	last := limit + 1 + zstdBlockMax
	lo, hi, bounded := zstdBounds(src)
	if bounded {
		if lo > limit {
			return dst[:0], errLimitAhead
		}
		last = min(last, hi)
	}
	size := max(firstCap(src, limit), lo)
	if fcs, ok := zstdContentSize(src); ok {
		switch {
		case fcs > uint64(zstdRatio)*uint64(len(src)):
			return dst[:0], errors.New("zstd: a frame content size of " + strconv.FormatUint(fcs, 10) + " bytes is impossible for " + itoa(len(src)) + " compressed bytes")
		case fcs > uint64(limit):
			return dst[:0], errLimitAhead
		}
		size = max(size, int(fcs))
	}
	// Capacity already there costs nothing: use it.
	size = min(max(size, cap(dst)), last)
	d, _ := zstdPool.Get().(*zstd.Decoder)
	if d == nil {
		var err error
		d, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecodeAllCapLimit(true), zstd.WithDecoderMaxMemory(1<<40), zstd.WithDecoderMaxWindow(1<<31))
		if err != nil {
			return dst[:0], err
		}
	}
	defer zstdPool.Put(d)
	for {
		if cap(dst) < size {
			// A reused buffer grows by at least doubling, so batches of
			// slightly different sizes do not each allocate.
			dst = make([]byte, 0, max(size, min(2*cap(dst), last)))
		}
		out, err := d.DecodeAll(src, dst[:0:size])
		if cap(out) > cap(dst) {
			// A raw or RLE block is appended past the capacity before
			// the limit is seen: the bigger buffer is the one to keep.
			dst = out[:0]
		}
		if len(out) > limit {
			return dst[:0], errLimit
		}
		if err == nil {
			// (Within dst, which it never outgrows: keep dst's whole
			// capacity for the next use.)
			return dst[:len(out)], nil
		}
		full := errors.Is(err, zstd.ErrDecoderSizeExceeded) || len(out)+zstdBlockMax > size
		switch {
		case !full || bounded && size >= hi:
			return dst[:len(out)], err
		case size >= last:
			return dst[:0], errLimit
		}
		size = min(last, 4*size)
	}
}

// zstdBounds reads the frames of src, their headers and block headers
// only, and returns bounds of what they decode to: a raw or RLE block
// says its size, a compressed block makes at most 128 KiB (RFC 8878
// 3.1.1.2.4). ok is false when src does not read as frames; decoding
// then says why.
func zstdBounds(src []byte) (lo, hi int, ok bool) {
	p := 0
	for p < len(src) {
		if len(src)-p < 8 {
			return 0, 0, false
		}
		magic := binary.LittleEndian.Uint32(src[p:])
		if magic&0xFFFFFFF0 == 0x184D2A50 { // a skippable frame
			n := int(binary.LittleEndian.Uint32(src[p+4:]))
			if n > len(src)-p-8 {
				return 0, 0, false
			}
			p += 8 + n
			continue
		}
		if magic != 0xFD2FB528 {
			return 0, 0, false
		}
		fhd := src[p+4]
		single := fhd>>5&1 == 1
		q := p + 5
		if !single {
			q++ // window descriptor
		}
		q += [4]int{0, 1, 2, 4}[fhd&3] // dictionary ID
		q += [4]int{0, 2, 4, 8}[fhd>>6]
		if single && fhd>>6 == 0 {
			q++ // a 1-byte content size
		}
		for {
			if len(src)-q < 3 {
				return 0, 0, false
			}
			h := int(src[q]) | int(src[q+1])<<8 | int(src[q+2])<<16
			q += 3
			size := h >> 3
			switch h >> 1 & 3 {
			case 0: // raw
				lo, hi, q = lo+size, hi+size, q+size
			case 1: // RLE
				lo, hi, q = lo+size, hi+size, q+1
			case 2: // compressed
				hi, q = hi+zstdBlockMax, q+size
			default:
				return 0, 0, false
			}
			if q > len(src) {
				return 0, 0, false
			}
			if h&1 == 1 {
				break
			}
		}
		if fhd>>2&1 == 1 {
			q += 4 // content checksum
		}
		if q > len(src) {
			return 0, 0, false
		}
		p = q
	}
	return lo, hi, true
}

// zstdContentSize reads the Frame_Content_Size of the first zstd frame.
func zstdContentSize(src []byte) (uint64, bool) {
	if len(src) < 5 || binary.LittleEndian.Uint32(src) != 0xFD2FB528 {
		return 0, false
	}
	fhd := src[4]
	single := fhd>>5&1 == 1
	p := 5
	if !single {
		p++ // window descriptor
	}
	p += [4]int{0, 1, 2, 4}[fhd&3] // dictionary ID
	var n int
	switch fhd >> 6 {
	case 0:
		if single {
			n = 1
		}
	case 1:
		n = 2
	case 2:
		n = 4
	case 3:
		n = 8
	}
	if n == 0 || p+n > len(src) {
		return 0, false
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(src[p+i])
	}
	if n == 2 {
		v += 256
	}
	return v, true
}

// xxh32 is XXH32 with seed 0 (the lz4 frame header checksum).
func xxh32(b []byte) uint32 {
	const (
		p1 = 2654435761
		p2 = 2246822519
		p3 = 3266489917
		p4 = 668265263
		p5 = 374761393
	)
	rotl := func(x uint32, r uint) uint32 { return x<<r | x>>(32-r) }
	n := len(b)
	var h uint32
	if n >= 16 {
		var prime1, prime2 uint32 = p1, p2
		v1 := prime1 + prime2
		v2 := prime2
		v3 := uint32(0)
		v4 := -prime1
		for len(b) >= 16 {
			v1 = rotl(v1+binary.LittleEndian.Uint32(b)*p2, 13) * p1
			v2 = rotl(v2+binary.LittleEndian.Uint32(b[4:])*p2, 13) * p1
			v3 = rotl(v3+binary.LittleEndian.Uint32(b[8:])*p2, 13) * p1
			v4 = rotl(v4+binary.LittleEndian.Uint32(b[12:])*p2, 13) * p1
			b = b[16:]
		}
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)
	} else {
		h = p5
	}
	h += uint32(n)
	for len(b) >= 4 {
		h = rotl(h+binary.LittleEndian.Uint32(b)*p3, 17) * p4
		b = b[4:]
	}
	for _, c := range b {
		h = rotl(h+uint32(c)*p5, 11) * p1
	}
	h ^= h >> 15
	h *= p2
	h ^= h >> 13
	h *= p3
	h ^= h >> 16
	return h
}
