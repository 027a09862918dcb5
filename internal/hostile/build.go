package hostile

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/kwire/kwire/internal/decompress"
)

// The builders below write Kafka's wire forms by hand, from the protocol's
// definition rather than through the codec: the corpus must not change when
// the codec does, and it must be able to say things the encoder refuses to.

func be16(b []byte, v int16) []byte { return binary.BigEndian.AppendUint16(b, uint16(v)) }
func be32(b []byte, v int32) []byte { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func be64(b []byte, v int64) []byte { return binary.BigEndian.AppendUint64(b, uint64(v)) }

// str16 appends an int16-length string.
func str16(b []byte, s string) []byte { return append(be16(b, int16(len(s))), s...) }

// bytes32 appends int32-length bytes; nil is null (-1).
func bytes32(b, v []byte) []byte {
	if v == nil {
		return be32(b, -1)
	}
	return append(be32(b, int32(len(v))), v...)
}

// uvar appends an unsigned varint.
func uvar(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// zz appends a zig-zag varint.
func zz(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

// cstr appends a compact string (uvarint length+1).
func cstr(b []byte, s string) []byte { return append(uvar(b, uint64(len(s))+1), s...) }

// sized puts the 4-byte size prefix in front of a frame.
func sized(b []byte) []byte { return append(be32(nil, int32(len(b))), b...) }

// header1 is a request header v1: api key, version, correlation id, client id.
func header1(key, version int16, clientID string) []byte {
	b := be16(nil, key)
	b = be16(b, version)
	b = be32(b, 7)
	return str16(b, clientID)
}

// clientIDDeclaring is an ApiVersions v0 request whose header's client id
// declares n bytes and holds none.
func clientIDDeclaring(n int16) []byte {
	b := be16(nil, 18)
	b = be16(b, 0)
	b = be32(b, 7)
	return sized(be16(b, n))
}

const clientID = "hostile"

// request is a size-prefixed request: header v1 (or v2 when flex) and body.
func request(key, version int16, flex bool, body []byte) []byte {
	h := header1(key, version, clientID)
	if flex {
		h = append(h, 0)
	}
	return sized(append(h, body...))
}

// produce is a Produce request of one topic whose partitions hold recs, at
// version 0-2 (no transactional id) or 3-8.
func produce(version int16, recs ...[]byte) []byte { return produceTo(version, "t", recs...) }

// produceTo is produce to topic.
func produceTo(version int16, topic string, recs ...[]byte) []byte {
	var b []byte
	if version >= 3 {
		b = be16(b, -1) // transactionalId: null
	}
	b = be16(b, -1)    // acks
	b = be32(b, 30000) // timeoutMs
	b = be32(b, 1)
	b = str16(b, topic)
	b = be32(b, int32(len(recs)))
	for i, r := range recs {
		b = be32(b, int32(i))
		b = bytes32(b, r)
	}
	return request(0, version, false, b)
}

// fetchResponse7 is a Fetch response v7 (header v0) of one topic whose
// partitions hold recs.
func fetchResponse7(recs ...[]byte) []byte {
	b := be32(nil, 7) // correlation id
	b = be32(b, 0)    // throttleTimeMs
	b = be16(b, 0)    // errorCode
	b = be32(b, 0)    // sessionId
	b = be32(b, 1)
	b = str16(b, "t")
	b = be32(b, int32(len(recs)))
	for i, r := range recs {
		b = be32(b, int32(i)) // partitionIndex
		b = be16(b, 0)        // errorCode
		b = be64(b, 1<<20)    // highWatermark
		b = be64(b, 1<<20)    // lastStableOffset
		b = be64(b, 0)        // logStartOffset
		b = be32(b, -1)       // abortedTransactions: null
		b = bytes32(b, r)
	}
	return sized(b)
}

// Record batches (magic 2).

const (
	codecNone   = 0
	codecGzip   = 1
	codecSnappy = 2
	codecLZ4    = 3
	codecZstd   = 4
	attrControl = 0x20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// batch is a record batch whose records section (after recordCount) is
// records, as given (compressed or not).
func batch(attrs int16, lastOffsetDelta, count int32, records []byte) []byte {
	body := be16(nil, attrs)
	body = be32(body, lastOffsetDelta)
	body = be64(body, 1700000000000) // baseTimestamp
	body = be64(body, 1700000000000) // maxTimestamp
	body = be64(body, -1)            // producerId
	body = be16(body, -1)            // producerEpoch
	body = be32(body, -1)            // baseSequence
	body = be32(body, count)
	body = append(body, records...)
	b := be64(nil, 0)                   // baseOffset
	b = be32(b, int32(4+1+4+len(body))) // batchLength
	b = be32(b, 0)                      // partitionLeaderEpoch
	b = append(b, 2)                    // magic
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(body, castagnoli))
	return append(b, body...)
}

// record is one record; a nil key or value is null.
func record(tsDelta int64, offsetDelta int32, key, value []byte) []byte {
	in := []byte{0} // attributes
	in = zz(in, tsDelta)
	in = zz(in, int64(offsetDelta))
	in = varbytes(in, key)
	in = varbytes(in, value)
	in = zz(in, 0) // headers
	return append(zz(nil, int64(len(in))), in...)
}

func varbytes(b, v []byte) []byte {
	if v == nil {
		return zz(b, -1)
	}
	return append(zz(b, int64(len(v))), v...)
}

// tinyRecord is the smallest record there is: 7 bytes, key and value null.
var tinyRecord = record(0, 0, nil, nil)

// Legacy messages (magic 0 and 1).

// message is a magic 0 or 1 message; a nil key or value is null.
func message(magic int8, offset int64, attrs int8, key, value []byte) []byte {
	body := []byte{byte(magic), byte(attrs)}
	if magic == 1 {
		body = be64(body, 1700000000000)
	}
	body = bytes32(body, key)
	body = bytes32(body, value)
	b := be64(nil, offset)
	b = be32(b, int32(4+len(body)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(body))
	return append(b, body...)
}

// repeat returns n copies of p.
func repeat(p []byte, n int) []byte { return bytes.Repeat(p, n) }

// Compression. Every compressor here is deterministic for a given input:
// the pinned klauspost/compress version at fixed levels, one goroutine, or
// streams written by hand.

// gz compresses b with gzip (no name, no time) at the best compression.
func gz(b []byte) []byte { return gzLevel(b, gzip.BestCompression) }

func gzLevel(b []byte, level int) []byte {
	var out bytes.Buffer
	w, _ := gzip.NewWriterLevel(&out, level)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// gzZeros is a gzip stream of n MiB of zero bytes: n members of one MiB
// each (readers read concatenated members as one stream, as Kafka's do).
// A deflate stream cannot beat ~1032:1, so n MiB costs about n KiB.
func gzZeros(n int) []byte { return gzRepeat(make([]byte, 1<<20), n) }

// gzRepeat is a gzip stream of n copies of chunk: n members of gzip(chunk),
// which is quick to make and inflates as the whole.
func gzRepeat(chunk []byte, n int) []byte { return repeat(gz(chunk), n) }

// zst compresses b as one zstd frame without a declared content size
// (written as a stream, whose length the encoder does not know).
// zstdControlBatch is Produce v3 of a zstd control batch of n copies of
// the record rec.
func zstdControlBatch(n int32, rec []byte) []byte {
	return produce(3, batch(attrControl|codecZstd, n-1, n, zst(bytes.Repeat(rec, int(n)))))
}

func zst(b []byte) []byte { return zstLevel(b, zstd.SpeedDefault) }

// zstBest is zst at the best compression: slower, for small inputs.
func zstBest(b []byte) []byte { return zstLevel(b, zstd.SpeedBestCompression) }

func zstLevel(b []byte, level zstd.EncoderLevel) []byte {
	var out bytes.Buffer
	w, _ := zstd.NewWriter(&out, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(level),
		zstd.WithWindowSize(1<<20), zstd.WithEncoderCRC(false))
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// zstdRLE is a zstd frame of n RLE blocks of 128 KiB of byte c each; when
// declared >= 0 the frame header declares that content size (whatever the
// blocks hold), else it declares none.
func zstdRLE(c byte, n int, declared int64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0xFD2FB528)
	if declared >= 0 {
		// Frame_Header_Descriptor: FCS field 8 bytes, no single segment,
		// then the window descriptor (2^17 = 128 KiB) and the size.
		b = append(b, 3<<6, 7<<3)
		b = binary.LittleEndian.AppendUint64(b, uint64(declared))
	} else {
		b = append(b, 0, 7<<3)
	}
	const blockSize = 128 << 10
	for i := 0; i < n; i++ {
		hdr := uint32(blockSize)<<3 | 1<<1 // RLE block
		if i == n-1 {
			hdr |= 1 // last block
		}
		b = append(b, byte(hdr), byte(hdr>>8), byte(hdr>>16), c)
	}
	return b
}

// snappyRaw is a raw snappy block holding b as one literal.
func snappyRaw(b []byte) []byte {
	out := uvar(nil, uint64(len(b)))
	return append(snappyLiteral(out, b), b...)
}

// snappyLiteral appends the tag of a literal of len(b) bytes.
func snappyLiteral(out, b []byte) []byte {
	n := len(b) - 1
	switch {
	case n < 60:
		return append(out, byte(n<<2))
	case n < 1<<8:
		return append(out, 60<<2, byte(n))
	case n < 1<<16:
		return append(out, 61<<2, byte(n), byte(n>>8))
	case n < 1<<24:
		return append(out, 62<<2, byte(n), byte(n>>8), byte(n>>16))
	}
	return append(out, 63<<2, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
}

// snappyDeclared is a raw snappy block that declares n decoded bytes and
// holds a two-byte literal.
func snappyDeclared(n uint64) []byte {
	return append(uvar(nil, n), 1<<2, 0, 0)
}

var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// xerial frames snappy blocks as the Java client does.
func xerial(chunks ...[]byte) []byte {
	b := append([]byte(nil), xerialMagic...)
	b = be32(b, 1)
	b = be32(b, 1)
	for _, c := range chunks {
		b = be32(b, int32(len(c)))
		b = append(b, c...)
	}
	return b
}

// lz4Zeros is an lz4 frame of n blocks of 4 MiB of zero bytes each,
// written by hand: each block is one literal byte, one match of offset 1
// running to 5 bytes before the block's end, and five literals. oldHC
// computes the header checksum as Kafka did before KIP-57 (over the magic
// number too). contentSize >= 0 declares that content size.
func lz4Zeros(n int, oldHC bool, contentSize int64) []byte {
	const blockSize = 4 << 20
	flg := byte(1<<6 | 1<<5) // version 01, blocks independent
	if contentSize >= 0 {
		flg |= 1 << 3
	}
	b := binary.LittleEndian.AppendUint32(nil, 0x184D2204)
	b = append(b, flg, 7<<4) // block maximum size 4 MiB
	if contentSize >= 0 {
		b = binary.LittleEndian.AppendUint64(b, uint64(contentSize))
	}
	hc := byte(decompress.XXH32(b[4:]) >> 8)
	if oldHC {
		hc = byte(decompress.XXH32(b) >> 8)
	}
	b = append(b, hc)
	// One block: token (1 literal, match length 15+), the literal, offset
	// 1, match length bytes, then the last token with 5 literals.
	var blk []byte
	matchLen := blockSize - 1 - 5
	blk = append(blk, 1<<4|15, 0, 1, 0)
	for rest := matchLen - 4 - 15; ; rest -= 255 {
		if rest < 255 {
			blk = append(blk, byte(rest))
			break
		}
		blk = append(blk, 255)
	}
	blk = append(blk, 5<<4, 0, 0, 0, 0, 0)
	for i := 0; i < n; i++ {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(blk)))
		b = append(b, blk...)
	}
	return binary.LittleEndian.AppendUint32(b, 0) // end mark
}

// lz4Literal is an lz4 frame of one block holding b as literals, whose
// header declares a content size of declared bytes (whatever it holds).
func lz4Literal(b []byte, declared int64) []byte {
	out := binary.LittleEndian.AppendUint32(nil, 0x184D2204)
	out = append(out, 1<<6|1<<5|1<<3, 7<<4)
	out = binary.LittleEndian.AppendUint64(out, uint64(declared))
	out = append(out, byte(decompress.XXH32(out[4:])>>8))
	blk := []byte{15 << 4}
	for rest := len(b) - 15; ; rest -= 255 {
		if rest < 255 {
			blk = append(blk, byte(rest))
			break
		}
		blk = append(blk, 255)
	}
	blk = append(blk, b...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(blk)))
	out = append(out, blk...)
	return binary.LittleEndian.AppendUint32(out, 0)
}
