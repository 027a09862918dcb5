//go:build !(js && wasm && kwire_hostinflate)

package decompress

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// decode runs the codec's decompressor (see Into).
func decode(dst []byte, codec int, src []byte, limit int) (out []byte, warn string, err error) {
	switch codec {
	case CodecGzip:
		out, err = gunzip(dst, src, limit)
	case CodecSnappy:
		out, err = unsnappy(dst, src, limit)
	case CodecLZ4:
		out, err = unlz4(dst, src, limit)
	case CodecZstd:
		out, err = unzstd(dst, src, limit)
	default:
		err = errors.New("unknown compression codec " + itoa(codec))
	}
	return out, warn, err
}

// firstCap is the capacity a decompression starts with: a small multiple
// of the compressed size (work already done), never a declared size.
func firstCap(src []byte, limit int) int {
	return min(limit+1, max(512, 4*len(src)))
}

// readLimited reads r to EOF into a buffer (dst's memory, or one that
// starts at firstCap) that doubles, failing with ErrLimit once more than
// limit bytes come out.
func readLimited(dst []byte, r io.Reader, src []byte, limit int) ([]byte, error) {
	buf := dst[:0]
	if cap(buf) == 0 {
		buf = make([]byte, 0, firstCap(src, limit))
	}
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				return buf, ErrLimit
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
			return buf, ErrLimit
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// gzip streams are read by klauspost/compress's gunzip, about 1.5 times as
// fast as the standard library's on record batches, from a pool, reset
// for each stream. A reader of its, reset, keeps the Huffman tables of
// the stream before (its huffmanDecoder.init keeps the chunks array), so
// a corrupt stream read after another says different error offsets than
// read first (FuzzGzip: the tree and JSON walks of one batch disagreed;
// corpus entries 068f2b31c0ae82ee and f39cecfd2c71b1c0). A stream it
// reads whole is the stream (gzip's CRC-32 and length check the bytes);
// one it refuses, for any reason, is read again by the standard
// library's reader, which clears its tables on each use, so what a
// corrupt stream says does not depend on what came before. A fresh
// reader per stream would allocate its 32 KiB window and tables each
// time: 7 bytes for each byte of a gzip segment, whose collection took a
// third of kwire log's time.
var fastGzipPool, gzipPool sync.Pool

func gunzip(dst, src []byte, limit int) ([]byte, error) {
	out, err := readGzip(&fastGzipPool, kgzip.NewReader, dst, src, limit)
	if err == nil {
		return out, nil
	}
	return readGzip(&gzipPool, gzip.NewReader, out[:0], src, limit)
}

// gzipReader is what readGzip needs of either package's reader.
type gzipReader interface {
	io.Reader
	Reset(io.Reader) error
}

// readGzip reads the gzip stream src into dst with a reader from pool
// (made by open when the pool has none), put back after.
func readGzip[R gzipReader](pool *sync.Pool, open func(io.Reader) (R, error), dst, src []byte, limit int) ([]byte, error) {
	zr, pooled := pool.Get().(R)
	var err error
	if pooled {
		err = zr.Reset(bytes.NewReader(src))
	} else {
		zr, err = open(bytes.NewReader(src))
	}
	if err != nil {
		if pooled {
			pool.Put(zr)
		}
		return dst[:0], err
	}
	out, err := readLimited(dst, zr, src, limit)
	pool.Put(zr)
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
				return out, ErrLimitAhead
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
		return dst[:0], ErrLimitAhead
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

var lz4Pool sync.Pool

// unlz4 decodes the frame's blocks straight into the output buffer
// (lz4Blocks), and reads with pierrec/lz4's streaming reader whatever
// that does not take: a frame of another shape, or one that fails there.
// The streaming reader decodes each block into a buffer of the frame's
// declared block size (4 MiB as the clients write them), then copies it
// out: a quarter of kwire log's time on an lz4 segment, and its largest
// buffers. Either header checksum is taken, the format's or Kafka's over
// the magic number too; which one is right for the entry it compresses
// is LZ4ChecksumWarning's to say.
func unlz4(dst, src []byte, limit int) ([]byte, error) {
	hc, good, old := lz4OldChecksum(src)
	if out, ok := lz4Blocks(dst, src, limit, old); ok {
		return out, nil
	} else if cap(out) > cap(dst) {
		dst = out[:0] // the bigger buffer it made, for the reader
	}
	var r io.Reader = bytes.NewReader(src)
	if old {
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
	return out, err
}

// lz4Ratio bounds what one byte of an lz4 block decodes to: a match
// length grows by 255 for each byte that says so.
const lz4Ratio = 255

// lz4Blocks decodes src when it is one lz4 frame as Kafka's clients write
// it (independent blocks, no dictionary id or content size) with every
// checksum right and within limit, each block straight into the output
// buffer (lz4.UncompressBlock): ok is false otherwise, and the streaming
// reader decodes it instead, saying what is wrong as it always has. The
// buffer grows from the compressed size and what each block can make at
// most (its size times lz4Ratio, the frame's block size, limit), never
// from a size the frame declares alone. oldSum accepts a header checksum
// over the magic number too (lz4OldChecksum).
func lz4Blocks(dst, src []byte, limit int, oldSum bool) (out []byte, ok bool) {
	out = dst[:0]
	hc := LZ4HeaderEnd(src)
	if hc < 0 {
		return out, false
	}
	flg, bd := src[4], src[5]
	if flg&0x20 == 0 || flg&0x09 != 0 || hc != 6 {
		return out, false // dependent blocks, a content size or a dictionary id
	}
	if src[hc] != byte(XXH32(src[4:hc])>>8) && !oldSum {
		return out, false
	}
	blockMax := 0
	switch bd >> 4 & 7 {
	case 4:
		blockMax = 64 << 10
	case 5:
		blockMax = 256 << 10
	case 6:
		blockMax = 1 << 20
	case 7:
		blockMax = 4 << 20
	default:
		return out, false
	}
	blockSum, contentSum := flg&0x10 != 0, flg&0x04 != 0
	p := hc + 1
	for {
		if len(src)-p < 4 {
			return out, false
		}
		x := binary.LittleEndian.Uint32(src[p:])
		p += 4
		if x == 0 {
			break // the end mark
		}
		n := int(x & 0x7fffffff)
		if n > blockMax || n > len(src)-p {
			return out, false
		}
		block := src[p : p+n]
		p += n
		if blockSum {
			if len(src)-p < 4 || XXH32(block) != binary.LittleEndian.Uint32(src[p:]) {
				return out, false
			}
			p += 4
		}
		left := limit + 1 - len(out) // past it the output is over the limit
		if x&0x80000000 != 0 {
			if n >= left {
				return out, false
			}
			out = append(out, block...)
			continue
		}
		most := min(blockMax, lz4Ratio*n+lz4Ratio, left)
		room := min(most, max(cap(out)-len(out), 8*n))
		for {
			out = slices.Grow(out, room)
			d, err := lz4.UncompressBlock(block, out[len(out):len(out)+room])
			if err == nil {
				out = out[:len(out)+d]
				break
			}
			if room == most {
				return out, false // corrupt, or past the limit
			}
			room = most
		}
		if len(out) > limit {
			return out, false
		}
	}
	if contentSum {
		if len(src)-p < 4 || XXH32(out) != binary.LittleEndian.Uint32(src[p:]) {
			return out, false
		}
		p += 4
	}
	return out, p == len(src)
}

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
// limit (ErrLimit).
func unzstd(dst, src []byte, limit int) ([]byte, error) {
	last := limit + 1 + zstdBlockMax
	lo, hi, bounded := ZstdBounds(src)
	if bounded {
		if lo > limit {
			return dst[:0], ErrLimitAhead
		}
		last = min(last, hi)
	}
	size := max(firstCap(src, limit), lo)
	if fcs, ok := ZstdContentSize(src); ok {
		switch {
		case fcs > uint64(zstdRatio)*uint64(len(src)):
			return dst[:0], errors.New("zstd: a frame content size of " + strconv.FormatUint(fcs, 10) + " bytes is impossible for " + itoa(len(src)) + " compressed bytes")
		case fcs > uint64(limit):
			return dst[:0], ErrLimitAhead
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
			return dst[:0], ErrLimit
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
			return dst[:0], ErrLimit
		}
		size = min(last, 4*size)
	}
}

// Decode runs the codec's decompressor on its own, as Into does but with
// no buffer to reuse and ErrLimitAhead kept apart from ErrLimit: what
// inflate.wasm answers kwire.wasm with (host_js.go is the other end).
func Decode(codec int, src []byte, limit int) ([]byte, string, error) {
	return decode(nil, codec, src, max(limit, 0))
}
