package wire

import (
	"encoding/binary"
	"io"
	"slices"
)

// ReadFrame reads one size-prefixed frame from r into buf (grown as needed)
// and returns it, size prefix included. A size that is negative or above
// max is refused, as an *Error at offset 0, before anything is allocated
// for it; below max, buf grows with the bytes that arrive (readChunk at
// first, then at most doubling), not with the size a peer declares, so a
// peer that sends a large size and then nothing costs a few KiB, not max.
// At a clean end of stream (before a frame's first byte) it returns
// io.EOF; a stream that ends inside a frame or its size prefix,
// io.ErrUnexpectedEOF; any other error of r, as r gave it.
func ReadFrame(r io.Reader, buf []byte, max int) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	size, _ := SizePrefix(hdr[:])
	if size < 0 || int(size) > max {
		return nil, &Error{Expected: "a frame size from 0 to " + itoa(max), Found: itoa(int(size))}
	}
	n := 4 + int(size)
	buf = append(buf[:0], hdr[:]...)
	for len(buf) < n {
		// Room for what is known to come: a buffer that holds the
		// frame already is used whole; else it grows by readChunk, or
		// by what it holds, whichever is more.
		if cap(buf) == len(buf) {
			more := readChunk
			if len(buf) > more {
				more = len(buf)
			}
			buf = slices.Grow(buf, min(n-len(buf), more))
		}
		end := min(n, cap(buf))
		got, err := io.ReadFull(r, buf[len(buf):end])
		buf = buf[:len(buf)+got]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return buf, nil
}

// readChunk is how much ReadFrame grows a buffer by at first.
const readChunk = 64 << 10

// SizePrefix reads the 4-byte big-endian size prefix at the start of b:
// the number of bytes of the frame that follow it. ok is false when b is
// shorter than 4 bytes.
func SizePrefix(b []byte) (size int32, ok bool) {
	if len(b) < 4 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(b)), true
}

// SplitFrame cuts the first size-prefixed frame off b, as ReadFrame reads
// one from a stream: frame is the prefix and the bytes it counts (its
// capacity capped at its length, so appending to it cannot overwrite what
// follows), rest is what follows. ok is false, with b returned as rest,
// when b holds no whole frame: fewer than 4 bytes, a negative size, a size
// past the bytes b holds, or one above max (max <= 0: no limit).
func SplitFrame(b []byte, max int) (frame, rest []byte, ok bool) {
	size, ok := SizePrefix(b)
	if !ok || size < 0 || max > 0 && int(size) > max || int(size) > len(b)-4 {
		return nil, b, false
	}
	end := 4 + int(size)
	return b[:end:end], b[end:], true
}

// WriteFrame writes payload (header and body, without a size) to w with its
// 4-byte size prefix, in one Write.
func WriteFrame(w io.Writer, payload []byte) error {
	b := make([]byte, 4, 4+len(payload))
	binary.BigEndian.PutUint32(b, uint32(len(payload)))
	_, err := w.Write(append(b, payload...))
	return err
}
