package input

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// parseHex parses plain hex and its relatives in src[lo:hi]: a digit stream
// ("0000000a0012"), spaced, colon, dash or comma separated bytes, 0x-prefixed
// bytes ("0x00 0x0a", Go's "0x0" included) or one 0x-prefixed string, and
// array literals such as `[]byte{0x00, 0x01}`, `{0x00,0x01}`, `[0x00]` or a
// C declaration `unsigned char x[] = { 0x00, ... };` with /* */, // and #
// comments inside.
//
// Each whitespace- or punctuation-separated group of digits must have an
// even length, except that a 0x-prefixed single digit is one byte.
func parseHex(t text, lo, hi int) ([]byte, error) {
	s := t.src
	// node's console.log of a Buffer: "<Buffer 00 00 00 25 ...>", whose
	// first 50 bytes alone it prints ("... 11 more bytes>").
	if bytes.HasPrefix(s[lo:hi], []byte("<Buffer")) && s[hi-1] == '>' {
		if i := bytes.Index(s[lo:hi], []byte("...")); i >= 0 {
			return nil, t.errAt(lo+i, ErrList, "the Buffer is cut short at "+quoteToken(lineAt(s, lo+i, hi-1))+
				": node prints a Buffer's first 50 bytes; print buf.toString('hex') instead")
		}
		lo, hi = lo+len("<Buffer"), hi-1
	}
	// Array literal wrappers: keep what is between the braces or brackets.
	if i := bytes.IndexByte(s[lo:hi], '{'); i >= 0 {
		j := bytes.LastIndexByte(s[lo:hi], '}')
		if j < i {
			return nil, t.errAt(lo+i, ErrChar, "unclosed '{' in hex array")
		}
		lo, hi = lo+i+1, lo+j
	} else if i := bytes.IndexByte(s[lo:hi], '['); i >= 0 && isPrefixWord(s[lo:lo+i]) {
		j := bytes.LastIndexByte(s[lo:hi], ']')
		if j < i {
			return nil, t.errAt(lo+i, ErrChar, "unclosed '[' in hex array")
		}
		lo, hi = lo+i+1, lo+j
	}

	var out []byte // made at the first token, so text that is no hex (base64) fails without it
	// A group with an odd number of digits may pair its last digit with
	// the next group if only whitespace with a line break is between them
	// (a hex stream wrapped at an odd column); pending holds that digit.
	var (
		newline  bool // a line break since the last group
		pending  bool
		pendVal  byte
		oddStart int // start of the group that left the digit pending
		oddEnd   int
	)
	oddErr := func() error {
		tok := s[oddStart:oddEnd]
		msg := "odd number of hex digits: " + quoteToken(tok) + " leaves a digit unpaired"
		if len(tok) == 1 {
			// A byte written as one digit ("0 0 0 69 0 b"), or a list
			// of decimal bytes without its brackets.
			msg += " (a byte takes two hex digits, " + strconv.Quote("0"+string(tok)) +
				" for " + strconv.Quote(string(tok)) + "; decimal bytes need their brackets, \"[0 0 0 105 ...]\")"
		}
		return t.errAt(oddStart, ErrOddDigits, msg)
	}
	i := lo
	for i < hi {
		c := s[i]
		switch {
		case isSpace(c):
			if c == '\n' || c == '\r' {
				newline = true
			}
			i++
			continue
		case c == ',' || c == ':' || c == ';' || c == '-' || c == '[' || c == ']' || c == '"' || c == '\'':
			if pending {
				return nil, oddErr()
			}
			i++
			continue
		case c == '/' && i+1 < hi && s[i+1] == '*':
			if pending {
				return nil, oddErr()
			}
			end := bytes.Index(s[i+2:hi], []byte("*/"))
			if end < 0 {
				return nil, t.errAt(i, ErrChar, "unterminated /* comment")
			}
			i += 2 + end + 2
			continue
		case (c == '/' && i+1 < hi && s[i+1] == '/') || c == '#':
			if pending {
				return nil, oddErr()
			}
			for i < hi && s[i] != '\n' {
				i++
			}
			continue
		}
		// A token: optional 0x prefix, then hex digits.
		start := i
		prefixed := false
		if c == '0' && i+1 < hi && (s[i+1] == 'x' || s[i+1] == 'X') {
			prefixed = true
			i += 2
		}
		ds := i
		for i < hi && isHexDigit(s[i]) {
			i++
		}
		n := i - ds
		if i < hi && !isSep(s[i]) {
			return nil, t.badChar(i, "hex")
		}
		if n == 0 {
			if prefixed {
				return nil, t.errAt(start, ErrChar, "'0x' without hex digits")
			}
			return nil, t.badChar(i, "hex")
		}
		if pending && (prefixed || !newline) {
			return nil, oddErr()
		}
		if out == nil {
			out = make([]byte, 0, (hi-ds+1)/2)
		}
		newline = false
		if prefixed {
			if n == 1 {
				out = append(out, hexVal(s[ds]))
				continue
			}
			if n%2 != 0 {
				return nil, t.errAt(start, ErrOddDigits,
					"odd number of hex digits ("+strconv.Itoa(n)+") in "+quoteToken(s[start:i]))
			}
		}
		if n%2 != 0 && !pending {
			oddStart, oddEnd = start, i
		}
		k := ds
		if !pending {
			for ; k+1 < i; k += 2 {
				out = append(out, hexDigits[s[k]]<<4|hexDigits[s[k+1]])
			}
		}
		for ; k < i; k++ {
			v := hexVal(s[k])
			if pending {
				out = append(out, pendVal<<4|v)
				pending = false
			} else {
				pendVal, pending = v, true
			}
		}
	}
	if pending {
		return nil, oddErr()
	}
	if len(out) == 0 {
		return nil, t.errAt(lo, ErrEmpty, "no hex digits found")
	}
	return out, nil
}

// isSep reports whether c may end a hex token.
func isSep(c byte) bool {
	return isSpace(c) || c == ',' || c == ':' || c == ';' || c == '-' || c == ']' || c == '[' || c == '/' || c == '#' ||
		c == '"' || c == '\''
}

// isPrefixWord reports whether b, the text before a '[', looks like the
// start of an array literal (nothing, or an identifier / call such as
// "bytes(" or "x = "), rather than hex.
func isPrefixWord(b []byte) bool {
	for _, c := range b {
		if !(c == '_' || c == '(' || c == '=' || c == ' ' || c == '\t' ||
			('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

// quoteToken quotes a token for a message, shortening long ones.
func quoteToken(b []byte) string {
	if len(b) > 24 {
		return strconv.Quote(string(b[:10])+"...") + " (" + strconv.Itoa(len(b)) + " characters)"
	}
	return strconv.Quote(string(b))
}

// isEscapes reports whether b looks like a string with escapes: it starts
// with a quote (optionally b-prefixed, as in Python) or contains a "\x" or
// octal ("\000") escape.
func isEscapes(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '"' || b[0] == '\'' {
		return true
	}
	if len(b) > 1 && (b[0] == 'b' || b[0] == 'B') && (b[1] == '"' || b[1] == '\'') {
		return true
	}
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\\' {
			c := b[i+1]
			if c == 'x' || c == 'X' || ('0' <= c && c <= '7') {
				return true
			}
		}
	}
	return false
}

// parseEscapes parses C/Go/Python string escapes in src[lo:hi]. If the text
// starts with a quote, it is a sequence of quoted literals, which may be
// joined by whitespace, '+' or ','. Otherwise the whole text is the string's
// content; line breaks in it are skipped, and if it has nothing but escapes
// and whitespace, the whitespace is skipped too.
func parseEscapes(t text, lo, hi int) ([]byte, error) {
	s := t.src
	out := make([]byte, 0, hi-lo)
	if s[lo] == '"' || s[lo] == '\'' || s[lo] == 'b' || s[lo] == 'B' {
		i := lo
		for i < hi {
			c := s[i]
			if isSpace(c) || c == '+' || c == ',' {
				i++
				continue
			}
			if (c == 'b' || c == 'B') && i+1 < hi && (s[i+1] == '"' || s[i+1] == '\'') {
				i++
				c = s[i]
			}
			if c != '"' && c != '\'' {
				return nil, t.badChar(i, "quoted string list")
			}
			q := c
			i++
			closed := false
			for i < hi {
				c = s[i]
				if c == q {
					closed = true
					i++
					break
				}
				if c == '\n' || c == '\r' {
					break
				}
				if c == '\\' {
					var err error
					out, i, err = escape(t, out, i, hi)
					if err != nil {
						return nil, err
					}
					continue
				}
				out = append(out, c)
				i++
			}
			if !closed {
				return nil, t.errAt(i, ErrEscape, "unterminated string")
			}
		}
		return out, nil
	}
	skipBlanks := onlyEscapes(s[lo:hi])
	for i := lo; i < hi; {
		c := s[i]
		switch {
		case c == '\\':
			var err error
			out, i, err = escape(t, out, i, hi)
			if err != nil {
				return nil, err
			}
		case c == '\n' || c == '\r' || (skipBlanks && isSpace(c)):
			i++
		default:
			out = append(out, c)
			i++
		}
	}
	return out, nil
}

// onlyEscapes reports whether b has nothing but \x or octal escapes and
// whitespace.
func onlyEscapes(b []byte) bool {
	for i := 0; i < len(b); {
		switch {
		case isSpace(b[i]):
			i++
		case b[i] == '\\' && i+4 <= len(b) && (b[i+1] == 'x' || b[i+1] == 'X'):
			i += 4
		case b[i] == '\\' && i+1 < len(b) && '0' <= b[i+1] && b[i+1] <= '7':
			i += 2
			for i < len(b) && '0' <= b[i] && b[i] <= '7' {
				i++
			}
		default:
			return false
		}
	}
	return true
}

// escape decodes the escape sequence at s[i] (a backslash) and appends it.
func escape(t text, out []byte, i, hi int) ([]byte, int, error) {
	s := t.src
	if i+1 >= hi {
		return nil, i, t.errAt(i, ErrEscape, "backslash at end of input")
	}
	c := s[i+1]
	switch c {
	case 'x', 'X':
		if i+4 <= hi && isHexDigit(s[i+2]) && isHexDigit(s[i+3]) {
			return append(out, hexVal(s[i+2])<<4|hexVal(s[i+3])), i + 4, nil
		}
		bad := i + 2
		if bad < hi && isHexDigit(s[bad]) {
			bad++
		}
		if bad >= hi {
			return nil, i, t.errAt(i, ErrEscape, `\x escape needs two hex digits, found end of input`)
		}
		return nil, i, t.errAt(bad, ErrEscape, `\x escape needs two hex digits, found `+t.charAt(bad))
	case 'u', 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if i+2+n > hi {
			return nil, i, t.errAt(i, ErrEscape, "\\"+string(c)+" escape needs "+strconv.Itoa(n)+" hex digits")
		}
		var r rune
		for k := i + 2; k < i+2+n; k++ {
			if !isHexDigit(s[k]) {
				return nil, i, t.errAt(k, ErrEscape, "\\"+string(c)+" escape needs "+strconv.Itoa(n)+" hex digits, found "+t.charAt(k))
			}
			r = r<<4 | rune(hexVal(s[k]))
		}
		if !utf8.ValidRune(r) {
			return nil, i, t.errAt(i, ErrEscape, "\\"+string(c)+" escape is not a valid code point")
		}
		return utf8.AppendRune(out, r), i + 2 + n, nil
	case 'n':
		return append(out, '\n'), i + 2, nil
	case 'r':
		return append(out, '\r'), i + 2, nil
	case 't':
		return append(out, '\t'), i + 2, nil
	case 'a':
		return append(out, 7), i + 2, nil
	case 'b':
		return append(out, 8), i + 2, nil
	case 'f':
		return append(out, 12), i + 2, nil
	case 'v':
		return append(out, 11), i + 2, nil
	case 'e':
		return append(out, 27), i + 2, nil
	case '\\', '\'', '"', '?', '/':
		return append(out, c), i + 2, nil
	}
	if '0' <= c && c <= '7' {
		v, j := 0, i+1
		for j < hi && j < i+4 && '0' <= s[j] && s[j] <= '7' {
			v = v*8 + int(s[j]-'0')
			j++
		}
		if v > 255 {
			return nil, i, t.errAt(i, ErrEscape, "octal escape out of range")
		}
		return append(out, byte(v)), j, nil
	}
	return nil, i, t.errAt(i, ErrEscape, "unknown escape: backslash followed by "+t.charAt(i+1))
}
