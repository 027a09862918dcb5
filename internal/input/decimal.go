package input

import (
	"bytes"
)

// parseDecimal reads src[lo:hi] as a list of byte values in decimal, the
// way programs print a byte array: Go's %v ("[0 0 0 37 0 18]"), Python's
// list(b), Rust's {:?} and JSON ("[0, 0, 0, 37]"), Java's Arrays.toString
// (signed: "[0, -1]"), node's console.log of a Uint8Array ("Uint8Array(37)
// [" and rows of padded values), Erlang's and Elixir's binaries
// ("<<0,0,0,37>>"), Delve's print of a []byte ("[]uint8 len: 37, cap: 48,
// [0,0,0,37,...]"), od -A n -t u1. Without brackets it is
// tried only where hex failed, and only when some value has one or three
// digits, which no hex byte has.
//
// ok is false when the text is no such list (a value with a leading zero,
// such as hex's "00", makes it none). A list its printer cut short (node's
// "... 53 more items") or a bracketed value no byte has is an error.
func parseDecimal(t text, lo, hi int, bracketed bool) (out []byte, ok bool, err error) {
	s := t.src
	inBrackets := true
	if bytes.HasPrefix(s[lo:hi], []byte("[]uint8 len: ")) {
		// Delve's print of a []byte: "[]uint8 len: 41, cap: 48, [0,0,...]".
		if i := bytes.Index(s[lo:hi], []byte(", [")); i >= 0 {
			lo += i + 2
		}
	}
	if a, e, ok := sourceList(s[lo:hi]); ok {
		lo, hi = lo+a, lo+e
	} else if open := bytes.IndexByte(s[lo:hi], '['); open >= 0 && arrayPrefix(s[lo:lo+open]) && s[hi-1] == ']' {
		lo, hi = lo+open+1, hi-1
	} else if !bracketed && s[lo] == '{' && s[hi-1] == '}' {
		lo, hi, inBrackets = lo+1, hi-1, false // braces alone: a C initializer, tried where hex failed
	} else if hi-lo >= 4 && bytes.HasPrefix(s[lo:hi], []byte("<<")) && bytes.HasSuffix(s[lo:hi], []byte(">>")) {
		lo, hi = lo+2, hi-2 // Erlang's and Elixir's binaries
	} else if bracketed {
		return nil, false, nil
	} else {
		inBrackets = false
	}
	notHex := false // a value of one or three digits
	for i := lo; i < hi; {
		c := s[i]
		if isSpace(c) || c == ',' {
			i++
			continue
		}
		if c == '.' && inBrackets && bytes.HasPrefix(s[i:hi], []byte("...")) {
			return nil, false, t.errAt(i, ErrList, "the list is cut short at "+quoteToken(lineAt(s, i, hi))+
				": its printer left values out; print them all (node: util.inspect.defaultOptions.maxArrayLength = null; Elixir: IO.inspect(b, limit: :infinity); Delve: config max-array-values 100000)")
		}
		start := i
		if c == '-' {
			i++
		}
		ds := i
		for i < hi && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		n := i - ds
		if n == 0 || i < hi && !isSpace(s[i]) && s[i] != ',' || n > 1 && s[ds] == '0' || s[start] == '-' && s[ds] == '0' {
			return nil, false, nil // not a decimal value: hex, or another text
		}
		v := 256 // past a byte when it has more than three digits
		if n <= 3 {
			v = 0
			for _, d := range s[ds:i] {
				v = v*10 + int(d-'0')
			}
		}
		if s[start] == '-' {
			v = -v
		}
		if v < -128 || v > 255 {
			if !inBrackets {
				return nil, false, nil
			}
			return nil, false, t.errAt(start, ErrList, quoteToken(s[start:i])+" is no byte: a list of decimal bytes holds 0 to 255 (or -128 to -1, as Java prints signed bytes)")
		}
		notHex = notHex || n != 2
		if out == nil {
			out = make([]byte, 0, (hi-start+1)/2) // made at the first value: most texts are no list
		}
		out = append(out, byte(v))
	}
	if len(out) == 0 || !inBrackets && !notHex {
		return nil, false, nil
	}
	return out, true, nil
}

// sourceList finds the values of a byte array as source code spells it,
// in the trimmed text b: Go's []byte{...}, Java's new byte[]{...} (or
// byte[] b = {...}), C's unsigned char b[] = {...}, Rust's vec![...] or
// &[...], Python's b = [...], with an assignment before it and a ';'
// after it or not. It says where the values start and end, and false
// for any other text. Between braces it wants an array type before them
// (a '[' and a ']', a count or nothing between): braces alone are C's
// hex arrays ({0x00, 0x25}) as often.
func sourceList(b []byte) (int, int, bool) {
	e := len(b)
	if e > 0 && b[e-1] == ';' {
		for e--; e > 0 && isSpace(b[e-1]); e-- {
		}
	}
	if e < 2 {
		return 0, 0, false
	}
	if b[e-1] == '}' {
		open := bytes.IndexByte(b[:e], '{')
		if open < 0 || !arrayType(b[:open]) {
			return 0, 0, false
		}
		return open + 1, e - 1, true
	}
	if b[e-1] != ']' {
		return 0, 0, false
	}
	v := 0 // where the value starts: after an assignment
	if eq := bytes.LastIndexByte(b[:e], '='); eq >= 0 && assignee(b[:eq]) {
		v = eq + 1
	} else if e == len(b) {
		return 0, 0, false // a list alone: parseDecimal's own case
	}
	open := bytes.IndexByte(b[v:e], '[')
	if open < 0 || !arrayPrefix(b[v:v+open]) {
		return 0, 0, false
	}
	return v + open + 1, e - 1, true
}

// arrayType reports whether b, the text before an initializer's '{', names
// an array type: "[]byte", "new byte[]", "unsigned char x[16] =", words
// with a '[' and ']' holding a count or nothing.
func arrayType(b []byte) bool {
	dims := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '[':
			j := i + 1
			for j < len(b) && ('0' <= b[j] && b[j] <= '9' || b[j] == ' ') {
				j++
			}
			if j == len(b) || b[j] != ']' {
				return false
			}
			dims, i = true, j
		case c == '_' || c == ' ' || c == '\t' || c == '=' || c == ':' || c == '*' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
		default:
			return false
		}
	}
	return dims
}

// assignee reports whether b, the text before an assignment's '=', is a
// variable with what declares it: "b", "let b: Vec<u8>", "b :", "var b".
func assignee(b []byte) bool {
	b = bytes.TrimRight(b, " \t:")
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c == '_' || c == ' ' || c == '\t' || c == ':' || c == '<' || c == '>' || c == '[' || c == ']' || c == ';' || c == '&' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// arrayPrefix reports whether b, the text before a list's '[', is nothing
// or a type name with an optional count, as node prints "Uint8Array(37) ".
func arrayPrefix(b []byte) bool {
	b = bytes.TrimRight(bytes.TrimLeft(b, " \t"), " \t")
	if len(b) > 0 && b[0] == '&' {
		b = b[1:] // Rust's slice, &[0, 1]
	}
	if len(b) > 1 && b[len(b)-1] == '!' {
		b = b[:len(b)-1] // Rust's vec![0, 1]
	}
	if len(b) == 0 {
		return true
	}
	if b[len(b)-1] == ')' {
		p := bytes.IndexByte(b, '(')
		if p <= 0 || len(b)-p < 3 {
			return false
		}
		for _, c := range b[p+1 : len(b)-1] {
			if c < '0' || c > '9' {
				return false
			}
		}
		b = b[:p]
	}
	for i, c := range b {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// lineAt is the rest of the line at i in s[:hi], without its line break.
func lineAt(s []byte, i, hi int) []byte {
	if nl := bytes.IndexByte(s[i:hi], '\n'); nl >= 0 {
		hi = i + nl
	}
	return bytes.TrimRight(s[i:hi], " \t\r")
}
