// Package wire holds the primitives of Kafka's wire format: an
// offset-tracking Reader with a sticky error, and Append writers that pair
// with it. It knows no schema.
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

// Error is the first failure a Reader met: where, what was wanted, what was there.
type Error struct {
	Offset   int    // byte offset of the value that failed
	Expected string // e.g. "4 bytes for int32"
	Found    string // e.g. "2 bytes left"
	Err      error  // ErrShort, ErrVarint, or nil
}

func (e *Error) Error() string {
	return "wire: at byte " + Itoa(e.Offset) + ": expected " + e.Expected + ", found " + e.Found
}

func (e *Error) Unwrap() error { return e.Err }

// Reader reads primitives from B starting at Off. After the first failure
// every read returns zero and Err holds the failure, with its offset.
type Reader struct {
	B   []byte
	Off int
	Err *Error
}

// NewReader reads b from offset 0.
func NewReader(b []byte) *Reader { return &Reader{B: b} }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.B) - r.Off }

// Fail records a failure at off unless one is already recorded.
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
		r.Fail(r.Off, Itoa(n)+" bytes for "+what, Itoa(len(r.B)-r.Off)+" bytes left", ErrShort)
		return false
	}
	return true
}

func (r *Reader) Bool() bool { return r.Uint8() != 0 }

func (r *Reader) Uint8() uint8 {
	if !r.need(1, "int8") {
		return 0
	}
	v := r.B[r.Off]
	r.Off++
	return v
}

func (r *Reader) Int8() int8 { return int8(r.Uint8()) }

func (r *Reader) Uint16() uint16 {
	if !r.need(2, "int16") {
		return 0
	}
	v := binary.BigEndian.Uint16(r.B[r.Off:])
	r.Off += 2
	return v
}

func (r *Reader) Int16() int16 { return int16(r.Uint16()) }

func (r *Reader) Uint32() uint32 {
	if !r.need(4, "int32") {
		return 0
	}
	v := binary.BigEndian.Uint32(r.B[r.Off:])
	r.Off += 4
	return v
}

func (r *Reader) Int32() int32 { return int32(r.Uint32()) }

func (r *Reader) Uint64() uint64 {
	if !r.need(8, "int64") {
		return 0
	}
	v := binary.BigEndian.Uint64(r.B[r.Off:])
	r.Off += 8
	return v
}

func (r *Reader) Int64() int64 { return int64(r.Uint64()) }

func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// Span returns the next n bytes as a sub-slice of B (no copy) and advances.
func (r *Reader) Span(n int, what string) []byte {
	if n < 0 || !r.need(n, what) {
		return nil
	}
	v := r.B[r.Off : r.Off+n : r.Off+n]
	r.Off += n
	return v
}

// Uvarint reads an unsigned varint of at most 5 bytes (Kafka's 32-bit form).
func (r *Reader) Uvarint() uint32 {
	v, _, _ := r.uvarint(5)
	return uint32(v)
}

// UvarintMinimal reads an unsigned 32-bit varint and reports whether it was
// written in the fewest bytes that hold its value (with no bits beyond 32):
// a non-minimal varint decodes, but re-encodes to other bytes.
func (r *Reader) UvarintMinimal() (uint32, bool) {
	v, ok, minimal := r.uvarint(5)
	return uint32(v), minimal || !ok
}

// Varint reads a zig-zag varint of at most 5 bytes.
func (r *Reader) Varint() int32 {
	v, _, _ := r.uvarint(5)
	return unzigzag32(uint32(v))
}

// Varlong reads a zig-zag varint of at most 10 bytes.
func (r *Reader) Varlong() int64 {
	v, _, _ := r.uvarint(10)
	return unzigzag64(v)
}

// Uvarlong reads an unsigned varint of at most 10 bytes.
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
			found = "the input ends after " + Itoa(i) + " bytes of it"
		}
		r.Fail(r.Off, "a varint", found, ErrShort)
		return 0, false, false
	}
	r.Fail(r.Off, "a varint of at most "+Itoa(max)+" bytes", "a longer one", ErrVarint)
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

// AppendBool appends a bool.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

func AppendInt8(dst []byte, v int8) []byte     { return append(dst, byte(v)) }
func AppendInt16(dst []byte, v int16) []byte   { return binary.BigEndian.AppendUint16(dst, uint16(v)) }
func AppendUint16(dst []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(dst, v) }
func AppendInt32(dst []byte, v int32) []byte   { return binary.BigEndian.AppendUint32(dst, uint32(v)) }
func AppendUint32(dst []byte, v uint32) []byte { return binary.BigEndian.AppendUint32(dst, v) }
func AppendInt64(dst []byte, v int64) []byte   { return binary.BigEndian.AppendUint64(dst, uint64(v)) }
func AppendFloat64(dst []byte, v float64) []byte {
	return binary.BigEndian.AppendUint64(dst, math.Float64bits(v))
}

// AppendUvarint appends an unsigned varint.
func AppendUvarint(dst []byte, v uint32) []byte { return AppendUvarlong(dst, uint64(v)) }

// AppendUvarlong appends an unsigned 64-bit varint.
func AppendUvarlong(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// AppendVarint appends a zig-zag varint.
func AppendVarint(dst []byte, v int32) []byte {
	return AppendUvarlong(dst, uint64(uint32(v<<1)^uint32(v>>31)))
}

// AppendVarlong appends a zig-zag varlong.
func AppendVarlong(dst []byte, v int64) []byte {
	return AppendUvarlong(dst, uint64(v<<1)^uint64(v>>63))
}

// UvarintLen is the encoded size of v.
func UvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Itoa formats an int without fmt or strconv, for error texts. Those are
// cold, and its loop inlined at each of the hundreds of messages' call
// sites made the wasm build 10 KB (gzip) bigger: it is not inlined.
//
//go:noinline
func Itoa(i int) string {
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
