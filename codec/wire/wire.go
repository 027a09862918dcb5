// Package wire holds the primitives of Kafka's wire format: Append
// writers for every fixed-width and varint type, varints decoded from a
// slice, size-prefixed framing over a connection, and the errors bytes
// fail with. It knows no schema; codec reads frames with it.
//
// Every fixed-width value is big-endian, as Kafka writes them: int8 (1
// byte), int16 (2), int32 (4), int64 (8), float64 (8, IEEE 754 bits). A
// varint is little-endian groups of 7 bits, the high bit set on every byte
// but the last (protobuf's form, which Kafka adopted for flexible versions
// and the record format); a signed one is zig-zag encoded first (0, -1, 1,
// -2 ... become 0, 1, 2, 3 ...).
//
// Reading never panics and never reads past its bytes. Uvarint, Varint
// and Varlong report a varint the bytes end inside (n 0) or one longer
// than its form allows (n -1) by their results, SizePrefix and SplitFrame
// bytes that hold no size or frame by ok, ReadFrame a size it refuses by
// an *Error at offset 0. Package codec reads whole frames with a reader
// of its own over these: a value that does not fit is a
// *codec.DecodeError whose cause is ErrShort (errors.Is finds it, through
// an *Error at the value's offset), or ErrVarint for a varint longer than
// its form allows. Each varint writer's pair is the reader of that name;
// a fixed-width writer's is encoding/binary's big-endian reader
// (binary.BigEndian.Uint32 and the like).
package wire

import (
	"encoding/binary"
	"errors"
	"math"
)

// ErrShort is the cause when the input ends before a value does.
var ErrShort = errors.New("wire: unexpected end of input")

// ErrVarint is the cause when a varint runs past its maximum length.
var ErrVarint = errors.New("wire: varint too long")

// Error is a value the bytes could not give: where, what was wanted, what
// was there.
type Error struct {
	Offset   int    // byte offset of the value that failed
	Expected string // e.g. "4 bytes for int32"
	Found    string // e.g. "2 bytes left"
	Err      error  // ErrShort, ErrVarint, or nil
}

// Error formats the failure as "wire: at byte N: expected X, found Y".
func (e *Error) Error() string {
	return "wire: at byte " + itoa(e.Offset) + ": expected " + e.Expected + ", found " + e.Found
}

// Unwrap returns the cause (ErrShort, ErrVarint), for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// uvarint decodes an unsigned varint of at most max bytes from the start
// of b, as encoding/binary.Uvarint does: n is the bytes read, 0 when b ends
// first, -1 when the varint runs past max bytes. minimal is false for more
// bytes than the value needs; bits beyond the form's 32 or 64 are for the
// caller to check (small enough to inline into the records parser's loop).
func uvarint(b []byte, max int) (v uint64, n int, minimal bool) {
	var shift uint
	for i := 0; i < max; i++ {
		if i >= len(b) {
			return 0, 0, false
		}
		c := b[i]
		v |= uint64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			return v, i + 1, i == 0 || c != 0
		}
	}
	return 0, -1, false
}

// Uvarint decodes an unsigned 32-bit varint (at most 5 bytes) from the
// start of b, for loops that track their own offsets (the records
// parser). n is the bytes read, 0 when b ends first, -1 when the
// varint is longer than 5 bytes; minimal is false for a varint written in
// more bytes than its value needs or with bits beyond 32, which decodes but
// does not re-encode to the same bytes.
func Uvarint(b []byte) (v uint32, n int, minimal bool) {
	u, n, minimal := uvarint(b, 5)
	return uint32(u), n, minimal && u <= math.MaxUint32
}

// Varint decodes a zig-zag 32-bit varint from the start of b, as Uvarint.
func Varint(b []byte) (v int32, n int, minimal bool) {
	u, n, minimal := uvarint(b, 5)
	return unzigzag32(uint32(u)), n, minimal && u <= math.MaxUint32
}

// Varlong decodes a zig-zag 64-bit varint (at most 10 bytes) from the
// start of b, as Uvarint.
func Varlong(b []byte) (v int64, n int, minimal bool) {
	u, n, minimal := uvarint(b, 10)
	return unzigzag64(u), n, minimal && (n < 10 || b[9] <= 1)
}

func unzigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
func unzigzag64(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// AppendBool appends a bool as one byte, 1 or 0.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendInt8 appends v as one byte.
func AppendInt8(dst []byte, v int8) []byte { return append(dst, byte(v)) }

// AppendInt16 appends v as 2 bytes, big-endian.
func AppendInt16(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }

// AppendUint16 appends v as 2 bytes, big-endian.
func AppendUint16(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }

// AppendInt32 appends v as 4 bytes, big-endian.
func AppendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// AppendUint32 appends v as 4 bytes, big-endian.
func AppendUint32(dst []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(dst, v) }

// AppendInt64 appends v as 8 bytes, big-endian.
func AppendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// AppendFloat64 appends v's IEEE 754 bits as 8 bytes, big-endian
// (math.Float64frombits of binary.BigEndian.Uint64 reads it back).
func AppendFloat64(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendUvarint appends v as an unsigned varint in the fewest bytes (1 to
// 5), the pair of Uvarint.
func AppendUvarint(dst []byte, v uint32) []byte { return AppendUvarlong(dst, uint64(v)) }

// AppendUvarlong appends v as an unsigned varint in the fewest bytes (1 to
// 10), as Kafka writes an unsigned varlong (binary.Uvarint reads it back).
func AppendUvarlong(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendVarint appends v zig-zag encoded as a varint (1 to 5 bytes), the
// pair of Varint.
func AppendVarint(dst []byte, v int32) []byte {
	return AppendUvarlong(dst, uint64(uint32(v<<1)^uint32(v>>31)))
}

// AppendVarlong appends v zig-zag encoded as a varint (1 to 10 bytes),
// the pair of Varlong.
func AppendVarlong(dst []byte, v int64) []byte {
	return AppendUvarlong(dst, uint64(v<<1)^uint64(v>>63))
}

// UvarintLen is how many bytes AppendUvarlong writes for v (1 to 10).
func UvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// itoa formats an int without fmt or strconv, for error texts. Those are
// cold, and its loop inlined at each of the hundreds of messages' call
// sites made the wasm build 10 KB (gzip) bigger: it is not inlined.
//
//go:noinline
func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	u := uint64(i)
	if i < 0 {
		u = uint64(-i)
	}
	for u > 0 {
		p--
		b[p] = byte('0' + u%10)
		u /= 10
	}
	if i < 0 {
		p--
		b[p] = '-'
	}
	return string(b[p:])
}
