package jsontext

import (
	"encoding/binary"
	"slices"
	"unicode"
	"unicode/utf8"
)

// AppendTextOrBase64 appends raw to dst in the form kwire gives a record's
// key, value or header value that is not null: {"text":"..."} when raw is
// printable UTF-8 text (tab, CR and LF included), else {"base64":"..."}.
func AppendTextOrBase64(dst []byte, raw []byte) []byte {
	// One pass: the text is written as it is checked, and taken back when
	// a byte is not printable. Text at most doubles (each byte escaped), so
	// room for that is made first and bytes are written in place.
	//
	// The text goes 8 bytes a step. A word of printable ASCII is stored
	// whole when it has nothing to escape (keys, ids, hex, prose), else each
	// half is spread by a table (escapeShifts), with no branch on the bytes
	// (JSON values: a quote every few bytes). A word with other bytes
	// (control bytes, UTF-8) goes a byte at a time, as do the last 1 to 7
	// bytes. A word's step stores at most 20 bytes from j, and
	// j <= at+9+2*i: while 8 bytes of raw are left, the room
	// (at+15+2*len(raw)) holds them.
	at := len(dst)
	if n := len(`{"text":""}`) + 2*len(raw) + 4; cap(dst)-at < n {
		dst = slices.Grow(dst, n)
	}
	buf := dst[:cap(dst)]
	j := at + copy(buf[at:], `{"text":"`)
	i := 0
	for {
		if haveEscapeBlocks && len(raw)-i >= 16 {
			r, w := escapeBlocks(buf[j:], raw[i:])
			i, j = i+r, j+w
		}
		for len(raw)-i >= 8 {
			w := binary.LittleEndian.Uint64(raw[i : i+8])
			lo := w &^ msb
			if (w|^(lo+0x60*lsb)|(lo+lsb))&msb != 0 {
				break // a byte with the high bit, below 0x20, or DEL
			}
			// Printable ASCII: only quotes and backslashes to escape,
			// exactly marked.
			q, s := lo^('"'*lsb), lo^('\\'*lsb)
			esc := ^((q + 0x7f*lsb) & (s + 0x7f*lsb)) & msb
			if esc == 0 {
				binary.LittleEndian.PutUint64(buf[j:j+8], w)
				i, j = i+8, j+8
				continue
			}
			bits := (esc >> 7) * 0x0102040810204080 >> 56
			lo4, hi4 := &escapeShifts[bits&15], &escapeShifts[bits>>4]
			o := buf[j : j+20 : j+20] // one bounds check for both stores
			binary.LittleEndian.PutUint64(o, lo4.spread(w))
			n := 4 + int(lo4.added&7)
			binary.LittleEndian.PutUint64(o[n:], hi4.spread(w>>32))
			i, j = i+8, j+n+4+int(hi4.added)
		}
		// The last 1 to 7 bytes, or a word with bytes of other kinds: a
		// byte at a time, to the word's end (or past it, to a rune's).
		for stop := min(i+8, len(raw)); i < stop; {
			c := raw[i]
			switch textClass[c] {
			case textPlain:
				buf[j] = c
				j++
				i++
				continue
			case textEscape:
				buf[j], buf[j+1] = '\\', textEscapes[c]
				j += 2
				i++
				continue
			case textMulti:
				r, n := utf8.DecodeRune(raw[i:])
				if !(r == utf8.RuneError && n <= 1) && unicode.IsPrint(r) {
					j += copy(buf[j:], raw[i:i+n])
					i += n
					continue
				}
			}
			// Not printable: base64 instead.
			dst = append(dst[:at], `{"base64":`...)
			dst = AppendBase64(dst, raw)
			return append(dst, '}')
		}
		if i >= len(raw) {
			break
		}
	}
	buf[j], buf[j+1] = '"', '}'
	return buf[:j+2]
}

// spread returns h's low 4 bytes, each whose bit is set in the table's
// index (bit i for byte i) after a backslash: 4 to 8 bytes, the count
// 4+added.
func (t *escapeShift) spread(h uint64) uint64 {
	return h&t.keep[0] | (h&t.keep[1])<<8 | (h&t.keep[2])<<16 | (h&t.keep[3])<<24 | (h&t.keep[4])<<32 | t.slashes
}

// escapeShift says where 4 bytes go when some are escaped: keep[c] marks
// the bytes with c escapes at or before them (moved up c bytes), slashes
// holds the backslashes in their places, added counts them.
type escapeShift struct {
	keep    [5]uint64
	slashes uint64
	added   uint64
	_       uint64 // 64 bytes: an index is a shift
}

// escapeShifts holds an escapeShift for each set of the 4 bytes escaped.
var escapeShifts = func() (t [16]escapeShift) {
	for esc := range t {
		c := 0
		for i := 0; i < 4; i++ {
			if esc>>i&1 != 0 {
				t[esc].slashes |= '\\' << (8 * (i + c))
				c++
			}
			t[esc].keep[c] |= 0xff << (8 * i)
		}
		t[esc].added = uint64(c)
	}
	return
}()

// How AppendTextOrBase64 treats each byte: printable ASCII as it is; the
// quote, backslash, tab, CR and LF escaped; other control bytes (and DEL)
// not printable; bytes of multi-byte UTF-8 checked as runes.
const (
	textPlain = iota
	textEscape
	textControl
	textMulti
)

var textClass, textEscapes = func() (cls, esc [256]byte) {
	for c := 0; c < 256; c++ {
		switch {
		case c == '"' || c == '\\':
			cls[c], esc[c] = textEscape, byte(c)
		case c == '\t':
			cls[c], esc[c] = textEscape, 't'
		case c == '\n':
			cls[c], esc[c] = textEscape, 'n'
		case c == '\r':
			cls[c], esc[c] = textEscape, 'r'
		case c < 0x20 || c == 0x7f:
			cls[c] = textControl
		case c >= 0x80:
			cls[c] = textMulti
		}
	}
	return
}()
