// Package read is the codec's reader of wire primitives: an offset-tracking
// Reader with a sticky error, the pair of package wire's Append writers.
package read

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// Reader reads primitives from B starting at Off, advancing Off past each
// value read. After the first failure every read returns zero and leaves
// Off alone, and Err holds the failure, with its offset. A zero Reader
// with B set is ready.
type Reader struct {
	B   []byte      // the bytes read; never modified
	Off int         // offset of the next value
	Err *wire.Error // the first failure, or nil
}

// Remaining is the number of bytes from Off to the end of B.
func (r *Reader) Remaining() int { return len(r.B) - r.Off }

// Fail records a failure at off unless one is already recorded: what was
// expected, what was found, and the cause (nil when the bytes are there but
// wrong). A caller's own checks use it so that the first failure, wherever
// it came from, is the one Err reports.
func (r *Reader) Fail(off int, expected, found string, cause error) {
	if r.Err == nil {
		r.Err = &wire.Error{Offset: off, Expected: expected, Found: found, Err: cause}
	}
}

func (r *Reader) need(n int, what string) bool {
	if r.Err == nil && n <= len(r.B)-r.Off {
		return true
	}
	return r.short(n, what)
}

// short is need's slow path: false, and the error when there is none yet.
func (r *Reader) short(n int, what string) bool {
	if r.Err != nil {
		return false
	}
	if n > len(r.B)-r.Off {
		r.Fail(r.Off, strconv.Itoa(n)+" bytes for "+what, left(len(r.B)-r.Off), wire.ErrShort)
		return false
	}
	return true
}

// Uint8 reads one byte. Short input fails with wire.ErrShort.
func (r *Reader) Uint8() uint8 {
	if !r.need(1, "int8") {
		return 0
	}
	v := r.B[r.Off]
	r.Off++
	return v
}

// Int8 reads one byte as a signed int8. Short input fails with wire.ErrShort.
func (r *Reader) Int8() int8 { return int8(r.Uint8()) }

// Uint16 reads 2 bytes, big-endian. Short input fails with wire.ErrShort.
func (r *Reader) Uint16() uint16 {
	if !r.need(2, "int16") {
		return 0
	}
	v := binary.BigEndian.Uint16(r.B[r.Off:])
	r.Off += 2
	return v
}

// Int16 reads 2 bytes, big-endian, two's complement. Short input fails
// with wire.ErrShort.
func (r *Reader) Int16() int16 { return int16(r.Uint16()) }

// Uint32 reads 4 bytes, big-endian. Short input fails with wire.ErrShort.
func (r *Reader) Uint32() uint32 {
	if !r.need(4, "int32") {
		return 0
	}
	v := binary.BigEndian.Uint32(r.B[r.Off:])
	r.Off += 4
	return v
}

// Int32 reads 4 bytes, big-endian, two's complement. Short input fails
// with wire.ErrShort.
func (r *Reader) Int32() int32 { return int32(r.Uint32()) }

// uint64 reads 8 bytes, big-endian. Short input fails with wire.ErrShort.
func (r *Reader) uint64() uint64 {
	if !r.need(8, "int64") {
		return 0
	}
	v := binary.BigEndian.Uint64(r.B[r.Off:])
	r.Off += 8
	return v
}

// Int64 reads 8 bytes, big-endian, two's complement. Short input fails
// with wire.ErrShort.
func (r *Reader) Int64() int64 { return int64(r.uint64()) }

// Float64 reads 8 bytes, big-endian, as the bits of an IEEE 754 double
// (NaNs keep their bits). Short input fails with wire.ErrShort.
func (r *Reader) Float64() float64 { return math.Float64frombits(r.uint64()) }

// Span returns the next n bytes as a sub-slice of B (no copy, its capacity
// cut to n so appending to it cannot overwrite B) and advances; what names
// the value in the error. A negative n returns nil and records nothing
// (the caller checks lengths); more bytes than are left fail with wire.ErrShort.
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
// dropped. Input that ends inside it fails with wire.ErrShort; a fifth byte
// with its high bit set (a longer varint) fails with wire.ErrVarint.
func (r *Reader) Uvarint() uint32 {
	if r.Err == nil && r.Off < len(r.B) && r.B[r.Off] < 0x80 {
		r.Off++ // one byte: most lengths, counts and tags
		return uint32(r.B[r.Off-1])
	}
	v, _, _ := r.uvarint(5)
	return uint32(v)
}

// UvarintMinimal reads an unsigned 32-bit varint and reports whether it was
// written in the fewest bytes that hold its value (with no bits beyond 32):
// a non-minimal varint decodes, but re-encodes to other bytes. A failed
// read returns 0, true; it fails as Uvarint does.
func (r *Reader) UvarintMinimal() (uint32, bool) {
	if r.Err == nil && r.Off < len(r.B) && r.B[r.Off] < 0x80 {
		r.Off++ // one byte: most lengths, counts and tags
		return uint32(r.B[r.Off-1]), true
	}
	v, ok, minimal := r.uvarint(5)
	return uint32(v), minimal || !ok
}

func (r *Reader) uvarint(max int) (v uint64, ok, minimal bool) {
	if r.Err != nil {
		return 0, false, false
	}
	u, n, minimal := wire.Uvarint(r.B[r.Off:])
	if v = uint64(u); n > 0 {
		r.Off += n
		return v, true, minimal
	}
	if n == 0 {
		found := "the end of the input"
		if i := len(r.B) - r.Off; i > 0 {
			found = "the input ends after " + strconv.Itoa(i) + " bytes of it"
		}
		r.Fail(r.Off, "a varint", found, wire.ErrShort)
		return 0, false, false
	}
	r.Fail(r.Off, "a varint of at most "+strconv.Itoa(max)+" bytes", "a longer one", wire.ErrVarint)
	return 0, false, false
}

// Fixed reads a big-endian integer of kind k (a fixed-width integer kind)
// from the start of b, which holds it.
func Fixed(k schema.Kind, b []byte) int64 {
	switch k {
	case schema.Int8:
		return int64(int8(b[0]))
	case schema.Int16:
		return int64(int16(binary.BigEndian.Uint16(b)))
	case schema.Uint16:
		return int64(binary.BigEndian.Uint16(b))
	case schema.Int32:
		return int64(int32(binary.BigEndian.Uint32(b)))
	case schema.Uint32:
		return int64(binary.BigEndian.Uint32(b))
	}
	return int64(binary.BigEndian.Uint64(b))
}

// left says how many bytes are left: "1 byte left", "3 bytes left".
func left(n int) string {
	if n == 1 {
		return "1 byte left"
	}
	return strconv.Itoa(n) + " bytes left"
}
