package payload

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// JSON payloads are read by a small scanner of RFC 8259 that knows where
// each value lies: it checks the text first (scan), and then, when it is
// JSON, writes it compacted and makes a node per value (jsonValue).
// encoding/json would check it too, but tells no spans.

// isJSONStart reports whether p, after white space, opens an object or
// an array: what a JSON payload looks like (a bare number or string is
// shown as text).
func isJSONStart(p []byte) bool {
	for _, c := range p {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// validJSON reports whether p is one JSON value (with white space around
// it) nesting at most maxDepth deep.
func validJSON(p []byte, maxDepth int) bool {
	s := jsonScan{b: p, maxDepth: maxDepth}
	s.ws()
	if !s.value(0) {
		return false
	}
	s.ws()
	return s.p == len(p)
}

// jsonScan checks JSON text; on failure p is where, why says what. It
// counts what the walk's nodes for the text would be (commas between
// members, non-empty containers, the deepest nesting) and whether it
// passed over white space; with emit it also writes the text compacted
// to out (checkCompact).
type jsonScan struct {
	b        []byte
	p        int
	maxDepth int
	why      string

	emit                      bool
	out                       []byte
	commas, nonEmpty, deepest int
	spaced                    bool
}

func (s *jsonScan) ws() {
	for s.p < len(s.b) && s.b[s.p] <= ' ' { // white space is all at or below ' '
		switch s.b[s.p] {
		case ' ', '\t', '\r', '\n':
			s.p++
			s.spaced = true
		default:
			return
		}
	}
}

func (s *jsonScan) bad(why string) bool {
	s.why = why
	return false
}

// value checks the value at s.p. White space is skipped where the next
// byte is not the one expected (lazily): compact text, the commonest,
// then costs one test per token rather than one more per skip.
func (s *jsonScan) value(depth int) bool {
	if s.p >= len(s.b) {
		return s.bad("the text ends where a value should be")
	}
	switch c := s.b[s.p]; {
	case c == '{' || c == '[':
		if depth >= s.maxDepth {
			return s.bad("values nest deeper than " + strconv.Itoa(s.maxDepth))
		}
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		s.deepest = max(s.deepest, depth+1)
		s.p++
		if !s.at(close) {
			s.ws()
		}
		if s.at(close) {
			s.p++
			if s.emit {
				s.out = append(s.out, c, close)
			}
			return true
		}
		s.nonEmpty++
		if s.emit {
			s.out = append(s.out, c)
		}
		for {
			if close == '}' {
				if !s.at('"') {
					s.ws()
					if !s.at('"') {
						return s.bad("expected a member name")
					}
				}
				if !s.str() {
					return false
				}
				if !s.at(':') {
					s.ws()
					if !s.at(':') {
						return s.bad("expected ':'")
					}
				}
				if s.emit {
					s.out = append(s.out, ':')
				}
				s.p++
			}
			if !s.value(depth + 1) {
				return false
			}
			if !s.at(',') && !s.at(close) {
				s.ws()
				if s.p >= len(s.b) {
					return s.bad("the text ends inside an object or array")
				}
			}
			if s.b[s.p] == close {
				s.p++
				if s.emit {
					s.out = append(s.out, close)
				}
				return true
			}
			if s.b[s.p] != ',' {
				return s.bad("expected ',' or '" + string(close) + "'")
			}
			s.commas++
			if s.emit {
				s.out = append(s.out, ',')
			}
			s.p++
		}
	case c == '"':
		return s.str()
	case c == 't':
		return s.word("true")
	case c == 'f':
		return s.word("false")
	case c == 'n':
		return s.word("null")
	case c == '-' || (c >= '0' && c <= '9'):
		at := s.p
		if !s.number() {
			return false
		}
		if s.emit {
			s.out = append(s.out, s.b[at:s.p]...)
		}
		return true
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		s.ws() // before a value: skipped here, where it is met
		return s.value(depth)
	}
	return s.bad("unexpected " + strconv.QuoteRune(rune(s.b[s.p])))
}

// at reports whether the byte at s.p is c.
func (s *jsonScan) at(c byte) bool { return s.p < len(s.b) && s.b[s.p] == c }

func (s *jsonScan) word(w string) bool {
	if len(s.b)-s.p < len(w) || string(s.b[s.p:s.p+len(w)]) != w {
		return s.bad("expected " + w)
	}
	s.p += len(w)
	if s.emit {
		s.out = append(s.out, w...)
	}
	return true
}

func (s *jsonScan) number() bool {
	b, p := s.b, s.p
	if p < len(b) && b[p] == '-' {
		p++
	}
	if p < len(b) && b[p] == '0' {
		p++
	} else if q := digits(b, p); q == p {
		s.p = p
		return s.bad("expected a digit")
	} else {
		p = q
	}
	if p < len(b) && b[p] == '.' {
		q := digits(b, p+1)
		if q == p+1 {
			s.p = q
			return s.bad("expected a digit after '.'")
		}
		p = q
	}
	if p < len(b) && (b[p] == 'e' || b[p] == 'E') {
		p++
		if p < len(b) && (b[p] == '+' || b[p] == '-') {
			p++
		}
		q := digits(b, p)
		if q == p {
			s.p = p
			return s.bad("expected a digit in the exponent")
		}
		p = q
	}
	s.p = p
	return true
}

// digits returns where the run of decimal digits at b[p:] ends.
func digits(b []byte, p int) int {
	for p < len(b) && b[p]-'0' <= 9 {
		p++
	}
	return p
}

// str checks a string at s.p (its opening quote).
func (s *jsonScan) str() bool {
	b := s.b
	p := s.p + 1
	// Plain bytes 8 at a time: the first word holding another byte says
	// where that byte is, so a short string costs one step, a long one a
	// step per word. Then, with fewer than 8 bytes left, a byte at a time.
	for {
		if len(b)-p < 8 {
			for p < len(b) && strPlain[b[p]] {
				p++
			}
			break
		}
		if m := strSpecial(binary.LittleEndian.Uint64(b[p:])); m != 0 {
			p += bits.TrailingZeros64(m) >> 3
			break
		}
		p += 8
	}
	for p < len(b) {
		c := b[p]
		switch {
		case strPlain[c]:
			p++
		case c == '"':
			if s.emit {
				s.out = append(s.out, b[s.p:p+1]...)
			}
			s.p = p + 1
			return true
		case c == '\\':
			if p+1 >= len(b) {
				s.p = p
				return s.bad("the text ends inside an escape")
			}
			switch b[p+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p += 2
			case 'u':
				if len(b)-p < 6 || !isHex4(b[p+2:p+6]) {
					s.p = p
					return s.bad(`expected four hex digits after \u`)
				}
				p += 6
			default:
				s.p = p
				return s.bad("unknown escape")
			}
		case c < 0x20:
			s.p = p
			return s.bad("a control character inside a string")
		case c < utf8.RuneSelf:
			p++
		default:
			r, n := utf8.DecodeRune(b[p:])
			if r == utf8.RuneError && n <= 1 {
				s.p = p
				return s.bad("invalid UTF-8 inside a string")
			}
			p += n
		}
	}
	s.p = p
	return s.bad("the text ends inside a string")
}

// strPlain marks the bytes a string holds as they are: printable ASCII
// but the quote and the backslash.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// strSpecial marks (its high bit set) each byte of w, 8 bytes little
// endian, that strPlain does not hold: below 0x20, the quote, the
// backslash, 0x80 and up. Each test is the classic "has a byte less than
// n", (x - n*lsb) &^ x, on w or on w xor the byte sought (zero where they
// are equal). A borrow may mark bytes above a marked one, never below it:
// the lowest mark is exact, and a word of plain bytes has none.
func strSpecial(w uint64) uint64 {
	const lsb, msb = 0x0101010101010101, 0x8080808080808080
	q := w ^ ('"' * lsb)
	s := w ^ ('\\' * lsb)
	return ((w-0x20*lsb)&^w | (q-lsb)&^q | (s-lsb)&^s | w) & msb
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// jsonValue writes the JSON text in [start, end) (already checked)
// compacted to the output and makes its nodes: a top-level node named
// name, its members and elements below it. The nodes tile the text: a
// member's node starts where the one before it ended, the white space,
// comma, key and colon before its value being its prefix, and a
// container's closing bracket (with the white space before it) is a node
// "end" after its last member.
func (w *walker) jsonValue(start, end int, name string) {
	if w.s == nil && w.jsonCompact(start, end) {
		return
	}
	if !w.take(1) {
		return
	}
	s := jsonScan{b: w.in.B[:end], p: start, maxDepth: w.maxDepth}
	s.ws()
	root := w.leaf(name, "", schema.Invalid, start, start)
	mark := len(w.out)
	w.jsonNode(&s, root, start)
	root.End = end
	if k := len(root.Children); k > 0 && !w.stopped {
		root.Children[k-1].End = end // white space after the value
	}
	w.finish(root, mark)
}

// jsonCompact is jsonValue without a tree, in one pass (checkCompact),
// from where the walk is.
func (w *walker) jsonCompact(start, end int) bool {
	if w.stopped {
		return false
	}
	out, ok := checkCompact(w.out, w.in.B[start:end], w.maxDepth, w.maxDepth-w.depth, w.b)
	w.out = out
	return ok
}

// checkCompact checks p and appends it to dst compacted, in one pass, and
// charges b the nodes jsonValue would make for it (the value, one per
// member or element, one per non-empty container's "end": 1 + commas + 2
// per non-empty container). It reports false, with dst as it was, when p
// is not one JSON value nesting at most maxDepth deep (the caller shows
// it otherwise), and when the nodes do not all fit or it nests deeper
// than room (jsonValue's walk then stops where the limit is met, and says
// so).
func checkCompact(dst, p []byte, maxDepth, room int, b *budget.Budget) ([]byte, bool) {
	s := jsonScan{b: p, maxDepth: maxDepth}
	s.ws()
	start := s.p
	s.spaced = false
	if !s.value(0) {
		return dst, false
	}
	end := s.p
	s.ws()
	nodes := 1 + s.commas + 2*s.nonEmpty
	if s.p != len(s.b) || s.deepest > room || !b.Fits(nodes) {
		return dst, false
	}
	b.Nodes += nodes
	if !s.spaced {
		return append(dst, p[start:end]...), true // compact as it is
	}
	w := jsonScan{b: p[start:end], maxDepth: maxDepth, emit: true, out: dst}
	w.value(0)
	return w.out, true
}

// jsonNode writes the value at s.p and fills n with it; n starts at start
// (its prefix runs to the value, or past a container's opening bracket).
func (w *walker) jsonNode(s *jsonScan, n *tree.Node, start int) {
	b := s.b
	at := s.p
	n.Start, n.PrefixEnd = start, at
	w.stopAt = at
	switch c := b[at]; {
	case c == '{' || c == '[':
		obj := c == '{'
		n.Kind, n.Type = schema.Struct, "json object"
		if !obj {
			n.Kind, n.Type = schema.Array, "json array"
		}
		if !w.deeper(at) {
			return
		}
		w.out = append(w.out, c)
		s.p++
		s.ws()
		n.PrefixEnd = s.p
		from := s.p // where the next member's node starts
		idx := 0
		for b[s.p] != '}' && b[s.p] != ']' {
			if idx > 0 {
				w.out = append(w.out, ',')
			}
			if !w.take(1) {
				return
			}
			var e *tree.Node
			if obj {
				ks := s.p
				s.str()
				key := b[ks:s.p]
				w.out = append(w.out, key...)
				w.out = append(w.out, ':')
				s.ws()
				s.p++ // ':'
				s.ws()
				kname := jsonUnquote(key)
				e = w.node(kname, "", schema.Invalid, from, s.p)
				w.push(kname, -1)
			} else {
				e = w.node(n.Name, "", schema.Invalid, from, s.p)
				e.Role, e.Index = tree.RoleElement, idx
				w.push("", idx)
			}
			w.jsonNode(s, e, from)
			w.pop()
			w.add(n, e)
			if w.stopped {
				return
			}
			idx++
			from = s.p
			s.ws()
			if b[s.p] == ',' {
				s.p++
				s.ws()
			}
		}
		w.out = append(w.out, b[s.p])
		s.p++
		if idx > 0 {
			if !w.take(1) {
				return
			}
			e := w.node("end", "json "+string(b[s.p-1]), schema.Invalid, from, s.p)
			w.add(n, e)
		}
		n.Int = int64(idx)
		w.depth--
	case c == '"':
		s.str()
		w.out = append(w.out, b[at:s.p]...)
		n.Kind, n.Type = schema.String, "json string"
		if w.s != nil {
			n.Raw = []byte(jsonUnquote(b[at:s.p]))
		}
	case c == 't' || c == 'f':
		if c == 't' {
			s.p += 4
		} else {
			s.p += 5
		}
		w.out = append(w.out, b[at:s.p]...)
		n.Kind, n.Type = schema.Bool, "json boolean"
		if c == 't' {
			n.Int = 1
		}
	case c == 'n':
		s.p += 4
		w.out = append(w.out, "null"...)
		n.Null, n.Type = true, "json null"
	default:
		s.number()
		num := b[at:s.p]
		w.out = append(w.out, num...)
		n.Type = "json number"
		if v, err := strconv.ParseInt(string(num), 10, 64); err == nil {
			n.Kind, n.Int = schema.Int64, v
		} else {
			f, _ := strconv.ParseFloat(string(num), 64)
			n.Kind, n.Float = schema.Float64, f
		}
	}
	n.End = s.p
}

// jsonUnquote reads a checked JSON string (with its quotes).
func jsonUnquote(q []byte) string {
	s, _ := jsontext.Unquote(q) // checked already: no error
	return s
}
