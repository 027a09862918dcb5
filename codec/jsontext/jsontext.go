// Package jsontext writes JSON text by hand, for the codec's JSON writers,
// the render layouts and the playground's glue (which run in the browser's
// WebAssembly too, where reflection-driven encoding/json is too heavy).
package jsontext

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD
// (the decoder warns about such strings).
func AppendString(dst []byte, s []byte) []byte { return appendString(dst, s, false) }

// AppendHTMLSafe is AppendString that also escapes <, > and &, so the text
// can stand inside an HTML script block or be handed to a page as data.
func AppendHTMLSafe(dst []byte, s string) []byte { return appendString(dst, []byte(s), true) }

func appendString(dst []byte, s []byte, html bool) []byte {
	dst = append(dst, '"')
	start, i := 0, 0
	if !html {
		i = plainPrefix(s) // most strings: names, ids, hosts
	}
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf && !(html && (c == '<' || c == '>' || c == '&')) {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Plain reports whether b is printable ASCII with no quote, backslash or
// DEL: text a JSON string holds as it is.
func Plain(b []byte) bool {
	for _, c := range b[plainPrefix(b):] {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// plainPrefix is how many of b's first bytes, whole 8-byte words, are
// printable ASCII with no quote, backslash or DEL.
func plainPrefix(b []byte) int {
	i := 0
	for len(b)-i >= 8 && special(binary.LittleEndian.Uint64(b[i:])) == 0 {
		i += 8
	}
	return i
}

// Bytes of a word, and their high bits.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// special is not zero when a byte of w (8 bytes) is not plain printable
// ASCII: below 0x20, the quote, the backslash, DEL, or 0x80 and up. Each
// test is the classic "has a byte less than n", (x - n*lsb) &^ x, on w
// or on w xor the byte sought (zero where they are equal); it may mark
// more bytes than those (a borrow carries up) but never misses one, and
// marks nothing in a word of plain bytes.
func special(w uint64) uint64 {
	q := w ^ ('"' * lsb)
	s := w ^ ('\\' * lsb)
	d := w ^ (0x7f * lsb)
	return ((w-0x20*lsb)&^w | (q-lsb)&^q | (s-lsb)&^s | (d-lsb)&^d | w) & msb
}

// DecodeBase64 reads base64 text as Kafka's JSON reads a bytes field
// (java.util.Base64's basic decoder): the standard alphabet, its padding
// optional ("AQ" is the byte 0x01, as "AQ==" is).
func DecodeBase64(s string) ([]byte, error) {
	if len(s)%4 != 0 && !strings.HasSuffix(s, "=") {
		return base64.RawStdEncoding.DecodeString(s)
	}
	return base64.StdEncoding.DecodeString(s)
}
