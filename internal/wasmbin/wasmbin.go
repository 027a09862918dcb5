// Package wasmbin reads the parts of a WebAssembly binary that the build
// tools need (internal/wasmprep, which rewrites kwire's modules after go
// build, and internal/bench/wasmsize, which says where their bytes go):
// bytes, LEB128 numbers and length-prefixed runs.
package wasmbin

import (
	"encoding/binary"
	"errors"
)

// ErrShort is a module that ends, or a number that runs on, where more
// bytes should be.
var ErrShort = errors.New("unexpected end of the module")

// Reader reads from B; its first failure stays in Err (later reads give
// zeros), so a caller checks once after a run of reads.
type Reader struct {
	B   []byte
	Err error
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.B) == 0 {
		r.Err = ErrShort
		return 0
	}
	c := r.B[0]
	r.B = r.B[1:]
	return c
}

// Uleb reads an unsigned LEB128 number.
func (r *Reader) Uleb() uint64 {
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.Err, r.B = ErrShort, nil
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Sleb reads a signed LEB128 number.
func (r *Reader) Sleb() int64 {
	var v int64
	var s uint
	for {
		c := r.Byte()
		if r.Err != nil || s > 63 {
			r.Err = ErrShort
			return 0
		}
		v |= int64(c&0x7f) << s
		s += 7
		if c&0x80 == 0 {
			if s < 64 && c&0x40 != 0 {
				v |= -1 << s
			}
			return v
		}
	}
}

// Bytes reads the next n bytes (not copied).
func (r *Reader) Bytes(n int) []byte {
	if n < 0 || n > len(r.B) {
		r.Err, r.B = ErrShort, nil
		return nil
	}
	s := r.B[:n]
	r.B = r.B[n:]
	return s
}
