// Package decompress holds the decompressors of Kafka's record batches
// and message sets (gzip, snappy in both framings, lz4, zstd), bounded by
// a limit on what they produce, and what the encoder shares with them
// (the lz4 header checksum). codec/internal/rec decompresses through
// Into, and says what is wrong with an lz4 frame's header checksum for
// its entry's magic through LZ4ChecksumWarning (Into cannot: it does not
// know the magic, and its warnings are the decompressors' own).
//
// The browser's kwire.wasm is built with the tag kwire_hostinflate: Into
// then asks the page for the bytes (host_js.go), and the page runs these
// same decompressors in a module of their own (wasm/inflate,
// inflate.wasm), loaded the first time a compressed batch is met. They
// and what they alone import (fmt, reflect, log, time's formatting,
// crypto/rand's inits) are some 390 KB of kwire.wasm's gzip size
// otherwise. Every other build links them here (native.go).
package decompress

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
)

// Compression codecs, as in the low three attribute bits.
const (
	CodecNone   = 0
	CodecGzip   = 1
	CodecSnappy = 2
	CodecLZ4    = 3
	CodecZstd   = 4
)

// ErrLimit is returned when the output would pass the limit.
var ErrLimit = errors.New("decompressed size exceeds Options.MaxDecompressed")

// ErrLimitAhead is ErrLimit known before the bytes were made (a size the
// data says, or its raw and RLE zstd blocks): the work is what was made
// before it, not the limit. Into returns it as ErrLimit.
var ErrLimitAhead = errors.New("decompressed size would exceed Options.MaxDecompressed")

// XerialMagic starts the framed snappy stream the Java client (xerial
// snappy-java) writes: the magic, then int32 version and int32 compatible
// version, then [int32 length][snappy block] chunks.
var XerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// Into decompresses src with codec into dst's memory when it is big enough
// (the tree-less path reuses one buffer per nesting depth). done is the
// work it counts for, the same whatever dst was: the bytes it made, or
// limit when they would be more, or the bytes made before a failure. On
// failure out is an empty buffer to reuse (dst's, or a bigger one the
// attempt made), so that a flood of decompressions that fail does not
// allocate anew each time.
func Into(dst []byte, codec int, src []byte, limit int) (out []byte, warn string, done int, err error) {
	if limit < 0 {
		limit = 0
	}
	// On failure the decompressors return the buffer they were filling,
	// holding what they made before the failure.
	out, warn, err = decode(dst, codec, src, limit)
	done = len(out)
	if err != nil {
		switch err {
		case ErrLimit:
			done = limit
		case ErrLimitAhead:
			err = ErrLimit
		}
		if cap(out) < cap(dst) {
			out = dst
		}
		out = out[:0]
	}
	return out, warn, done, err
}

// isXerial reports whether src is the framed (xerial) snappy form.
func isXerial(src []byte) bool { return len(src) >= 16 && bytes.Equal(src[:8], XerialMagic) }

const lz4Magic = 0x184D2204

// LZ4HeaderEnd returns the offset of the header checksum byte of an lz4
// frame, or -1.
func LZ4HeaderEnd(src []byte) int {
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

// lz4OldChecksum reads the header checksum of an lz4 frame: hc is the
// checksum byte's offset and good the checksum the format defines (over
// the frame descriptor); old says the byte is instead the checksum over
// the magic number too, which Kafka's KafkaLZ4BlockOutputStream writes
// for magic 0 (useBrokenFlagDescriptorChecksum). hc is 0 when src is no
// lz4 frame.
func lz4OldChecksum(src []byte) (hc int, good byte, old bool) {
	if hc = LZ4HeaderEnd(src); hc > 0 {
		good = byte(XXH32(src[4:hc]) >> 8)
		return hc, good, src[hc] != good && src[hc] == byte(XXH32(src[:hc])>>8)
	}
	return 0, 0, false
}

// LZ4ChecksumWarning is the warning, "" when there is none, for the lz4
// frame src compressing an entry of magic (0 and 1: a wrapper message, 2:
// a record batch). Both header checksums decode (lz4 and Kafka's readers
// of old accepted either), but only one is right for each magic: Kafka
// writes magic 0 frames with the checksum over the magic number too and
// its reader ignores their checksum (KafkaLZ4BlockInputStream's
// ignoreFlagDescriptorChecksum), so at magic 0 neither form is worth a
// warning; at magic 1 and 2 it writes the checksum the format defines
// and its reader refuses any other, so the old one there is a warning.
func LZ4ChecksumWarning(src []byte, magic int8) string {
	if magic == 0 {
		return ""
	}
	if _, _, old := lz4OldChecksum(src); old {
		return "lz4 frame header checksum computed over the magic number too, which Kafka writes only for magic 0 (its reader refuses it at magic " + itoa(int(magic)) + "): accepted"
	}
	return ""
}

// zstdRatio bounds what one byte of a zstd frame can decode to: a
// 4-byte RLE block stands for at most 128 KiB.
const zstdRatio = 1 << 15

// zstdBlockMax is the most one zstd block decodes to (RFC 8878 3.1.1.2.4).
const zstdBlockMax = 128 << 10

// ZstdBounds reads the frames of src, their headers and block headers
// only, and returns bounds of what they decode to: a raw or RLE block
// says its size, a compressed block makes at most 128 KiB (RFC 8878
// 3.1.1.2.4). ok is false when src does not read as frames; decoding
// then says why.
func ZstdBounds(src []byte) (lo, hi int, ok bool) {
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

// ZstdContentSize reads the Frame_Content_Size of the first zstd frame.
func ZstdContentSize(src []byte) (uint64, bool) {
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

// XXH32 is XXH32 with seed 0 (the lz4 frame header checksum).
func XXH32(b []byte) uint32 {
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

func itoa(n int) string { return strconv.Itoa(n) }
