// Package wire holds the primitives of Kafka's wire format: an
// offset-tracking Reader with a sticky error, and Append writers that pair
// with it. It knows no schema.
//
// Every fixed-width value is big-endian, as Kafka writes them: int8 (1
// byte), int16 (2), int32 (4), int64 (8), float64 (8, IEEE 754 bits). A
// varint is little-endian groups of 7 bits, the high bit set on every byte
// but the last (protobuf's form, which Kafka adopted for flexible versions
// and the record format); a signed one is zig-zag encoded first (0, -1, 1,
// -2 ... become 0, 1, 2, 3 ...).
//
// A Reader never panics and never reads past its bytes: a read that does
// not fit records an *Error at the value's offset (its cause ErrShort, or
// ErrVarint for a varint longer than its form allows), leaves Off where
// the value began, and returns zero; every later read returns zero too.
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

// ErrLimit is the cause when a decoding limit (nodes, nesting, work),
// not the bytes, stopped decoding: the input may be valid, and a larger
// limit would read it.
var ErrLimit = errors.New("wire: a decoding limit is reached")

// Error is the first failure a Reader met: where, what was wanted, what was there.
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

// Reader reads primitives from B starting at Off, advancing Off past each
// value read. After the first failure every read returns zero and leaves
// Off alone, and Err holds the failure, with its offset. A zero Reader
// with B set is ready.
type Reader struct {
	B   []byte // the bytes read; never modified
	Off int    // offset of the next value
	Err *Error // the first failure, or nil
}

// NewReader returns a Reader of b from offset 0.
func NewReader(b []byte) *Reader { return &Reader{B: b} }

// Remaining is the number of bytes from Off to the end of B.
func (r *Reader) Remaining() int { return len(r.B) - r.Off }

// Fail records a failure at off unless one is already recorded: what was
// expected, what was found, and the cause (nil when the bytes are there but
// wrong). A caller's own checks use it so that the first failure, wherever
// it came from, is the one Err reports.
func (r *Reader) Fail(off int, expected, found string, cause error) {
	if r.Err == nil {
		r.Err = &Error{Offset: off, Expected: expected, Found: found, Err: cause}
	}
}

func (r *Reader) need(n int, what string) bool {
	if r.Err != nil {
		return false
	}
	if n > len(r.B)-r.Off {
		r.Fail(r.Off, itoa(n)+" bytes for "+what, itoa(len(r.B)-r.Off)+" bytes left", ErrShort)
		return false
	}
	return true
}

// Bool reads one byte: false for 0, true for any other value (Kafka
// writes 0 or 1; a caller that must tell other values apart reads Uint8).
// Short input fails with ErrShort.
func (r *Reader) Bool() bool { return r.Uint8() != 0 }

// Uint8 reads one byte. Short input fails with ErrShort.
func (r *Reader) Uint8() uint8 {
	if !r.need(1, "int8") {
		return 0
	}
	v := r.B[r.Off]
	r.Off++
	return v
}

// Int8 reads one byte as a signed int8. Short input fails with ErrShort.
func (r *Reader) Int8() int8 { return int8(r.Uint8()) }

// Uint16 reads 2 bytes, big-endian. Short input fails with ErrShort.
func (r *Reader) Uint16() uint16 {
	if !r.need(2, "int16") {
		return 0
	}
	v := binary.BigEndian.Uint16(r.B[r.Off:])
	r.Off += 2
	return v
}

// Int16 reads 2 bytes, big-endian, two's complement. Short input fails
// with ErrShort.
func (r *Reader) Int16() int16 { return int16(r.Uint16()) }

// Uint32 reads 4 bytes, big-endian. Short input fails with ErrShort.
func (r *Reader) Uint32() uint32 {
	if !r.need(4, "int32") {
		return 0
	}
	v := binary.BigEndian.Uint32(r.B[r.Off:])
	r.Off += 4
	return v
}

// Int32 reads 4 bytes, big-endian, two's complement. Short input fails
// with ErrShort.
func (r *Reader) Int32() int32 { return int32(r.Uint32()) }

// Uint64 reads 8 bytes, big-endian. Short input fails with ErrShort.
func (r *Reader) Uint64() uint64 {
	if !r.need(8, "int64") {
		return 0
	}
	v := binary.BigEndian.Uint64(r.B[r.Off:])
	r.Off += 8
	return v
}

// Int64 reads 8 bytes, big-endian, two's complement. Short input fails
// with ErrShort.
func (r *Reader) Int64() int64 { return int64(r.Uint64()) }

// Float64 reads 8 bytes, big-endian, as the bits of an IEEE 754 double
// (NaNs keep their bits). Short input fails with ErrShort.
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// Span returns the next n bytes as a sub-slice of B (no copy, its capacity
// cut to n so appending to it cannot overwrite B) and advances; what names
// the value in the error. A negative n returns nil and records nothing
// (the caller checks lengths); more bytes than are left fail with ErrShort.
func (r *Reader) Span(n int, what string) []byte {
	if n < 0 || !r.need(n, what) {
		return nil
	}
	v := r.B[r.Off : r.Off+n : r.Off+n]
	r.Off += n
	return v
}

// Uvarint reads an unsigned varint of at most 5 bytes (Kafka's 32-bit
// form: compact lengths, counts, tag numbers and sizes); bits past 32 are
// dropped. Input that ends inside it fails with ErrShort; a fifth byte
// with its high bit set (a longer varint) fails with ErrVarint.
func (r *Reader) Uvarint() uint32 {
	v, _, _ := r.uvarint(5)
	return uint32(v)
}

// UvarintMinimal reads an unsigned 32-bit varint and reports whether it was
// written in the fewest bytes that hold its value (with no bits beyond 32):
// a non-minimal varint decodes, but re-encodes to other bytes. A failed
// read returns 0, true; it fails as Uvarint does.
func (r *Reader) UvarintMinimal() (uint32, bool) {
	v, ok, minimal := r.uvarint(5)
	return uint32(v), minimal || !ok
}

// Varint reads a zig-zag varint of at most 5 bytes (the record format's
// lengths, deltas and counts). It fails as Uvarint does.
func (r *Reader) Varint() int32 {
	v, _, _ := r.uvarint(5)
	return unzigzag32(uint32(v))
}

// Varlong reads a zig-zag varint of at most 10 bytes (the record format's
// timestamp and offset deltas). Input that ends inside it fails with
// ErrShort; a tenth byte with its high bit set fails with ErrVarint.
func (r *Reader) Varlong() int64 {
	v, _, _ := r.uvarint(10)
	return unzigzag64(v)
}

// Uvarlong reads an unsigned varint of at most 10 bytes. It fails as
// Varlong does.
func (r *Reader) Uvarlong() uint64 {
	v, _, _ := r.uvarint(10)
	return v
}

func (r *Reader) uvarint(max int) (v uint64, ok, minimal bool) {
	if r.Err != nil {
		return 0, false, false
	}
	v, n, minimal := uvarint(r.B[r.Off:], max)
	if n > 0 {
		r.Off += n
		return v, true, minimal && (max != 5 || v <= math.MaxUint32)
	}
	if n == 0 {
		found := "the end of the input"
		if i := len(r.B) - r.Off; i > 0 {
			found = "the input ends after " + itoa(i) + " bytes of it"
		}
		r.Fail(r.Off, "a varint", found, ErrShort)
		return 0, false, false
	}
	r.Fail(r.Off, "a varint of at most "+itoa(max)+" bytes", "a longer one", ErrVarint)
	return 0, false, false
}

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
// start of b without a Reader, for loops that track their own offsets (the
// records parser). n is the bytes read, 0 when b ends first, -1 when the
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

// AppendInt8 appends v as one byte, the pair of Reader.Int8.
func AppendInt8(dst []byte, v int8) []byte { return append(dst, byte(v)) }

// AppendInt16 appends v as 2 bytes, big-endian, the pair of Reader.Int16.
func AppendInt16(dst []byte, v int16) []byte { return binary.BigEndian.AppendUint16(dst, uint16(v)) }

// AppendUint16 appends v as 2 bytes, big-endian, the pair of Reader.Uint16.
func AppendUint16(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }

// AppendInt32 appends v as 4 bytes, big-endian, the pair of Reader.Int32.
func AppendInt32(dst []byte, v int32) []byte { return binary.BigEndian.AppendUint32(dst, uint32(v)) }

// AppendUint32 appends v as 4 bytes, big-endian, the pair of Reader.Uint32.
func AppendUint32(dst []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(dst, v) }

// AppendInt64 appends v as 8 bytes, big-endian, the pair of Reader.Int64.
func AppendInt64(dst []byte, v int64) []byte { return binary.BigEndian.AppendUint64(dst, uint64(v)) }

// AppendFloat64 appends v's IEEE 754 bits as 8 bytes, big-endian, the pair
// of Reader.Float64.
func AppendFloat64(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendUvarint appends v as an unsigned varint in the fewest bytes (1 to
// 5), the pair of Reader.Uvarint.
func AppendUvarint(dst []byte, v uint32) []byte { return AppendUvarlong(dst, uint64(v)) }

// AppendUvarlong appends v as an unsigned varint in the fewest bytes (1 to
// 10), the pair of Reader.Uvarlong.
func AppendUvarlong(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendVarint appends v zig-zag encoded as a varint (1 to 5 bytes), the
// pair of Reader.Varint.
func AppendVarint(dst []byte, v int32) []byte {
	return AppendUvarlong(dst, uint64(uint32(v<<1)^uint32(v>>31)))
}

// AppendVarlong appends v zig-zag encoded as a varint (1 to 10 bytes),
// the pair of Reader.Varlong.
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
