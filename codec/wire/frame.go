package wire

import (
	"encoding/binary"
	"errors"
	"io"
)

// ErrFrameTooLarge is returned by ReadFrame for a size prefix above the limit.
var ErrFrameTooLarge = errors.New("wire: frame larger than the limit")

// ErrNegativeSize is returned by ReadFrame for a negative size prefix.
var ErrNegativeSize = errors.New("wire: negative frame size")

// ReadFrame reads one size-prefixed frame from r into buf (grown as needed)
// and returns it, size prefix included. A size above max is refused before
// anything is allocated for it. At a clean end of stream it returns io.EOF.
func ReadFrame(r io.Reader, buf []byte, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	size := int32(binary.BigEndian.Uint32(hdr[:]))
	switch {
	case size < 0:
		return nil, ErrNegativeSize
	case int(size) > max:
		return nil, ErrFrameTooLarge
	}
	n := 4 + int(size)
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	copy(buf, hdr[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return buf, nil
}

// WriteFrame writes payload (header and body, without a size) to w with its
// 4-byte size prefix, in one Write.
func WriteFrame(w io.Writer, payload []byte) error {
	b := make([]byte, 4, 4+len(payload))
	binary.BigEndian.PutUint32(b, uint32(len(payload)))
	_, err := w.Write(append(b, payload...))
	return err
}
