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
// each value lies: it checks the text first (jsonScan), and then, when it
// is JSON, writes it compacted and makes a node per value (jsonValue).
// encoding/json would check it too, but tells no spans. Without a tree, a
// value is checked and counted by a loop of its own (scanCompact), and
// written as it is or, with white space inside, compacted.

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
	ok, _ := checkJSON(p, maxDepth)
	return ok
}

// checkJSON is validJSON, and when p is not JSON because the text nests
// deeper than maxDepth before anything shows it is not JSON, deep is
// where it does (-1 otherwise): a limit, which is said.
func checkJSON(p []byte, maxDepth int) (ok bool, deep int) {
	s := jsonScan{b: p, maxDepth: maxDepth}
	s.ws()
	if !s.value(0) {
		if s.deep {
			return false, s.p
		}
		return false, -1
	}
	s.ws()
	return s.p == len(p), -1
}

// jsonScan checks JSON text; on failure p is where, why says what. It
// counts what the walk's nodes for the text would be (commas between
// members, non-empty containers, the deepest nesting); with emit it also
// writes the text compacted to out.
type jsonScan struct {
	b        []byte
	p        int
	maxDepth int
	why      string
	deep     bool // it failed where values nest deeper than maxDepth

	emit                      bool
	out                       []byte
	commas, nonEmpty, deepest int
}

func (s *jsonScan) ws() { s.p = skipSpace(s.b, s.p) }

// endOr is why, or that the text ends inside an object when it does
// (cut short, rather than malformed: {"n":1, said "expected a member
// name").
func (s *jsonScan) endOr(why string) string {
	if s.p >= len(s.b) {
		return "the text ends inside an object or array"
	}
	return why
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
			s.deep = true
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
						return s.bad(s.endOr("expected a member name"))
					}
				}
				if !s.str() {
					return false
				}
				if !s.at(':') {
					s.ws()
					if !s.at(':') {
						return s.bad(s.endOr("expected ':'"))
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
	if !isWord(s.b, s.p, w) {
		return s.bad("expected " + w)
	}
	s.p += len(w)
	if s.emit {
		s.out = append(s.out, w...)
	}
	return true
}

func (s *jsonScan) number() bool {
	p, why := numberEnd(s.b, s.p)
	s.p = p
	if why != "" {
		return s.bad(why)
	}
	return true
}

// isWord reports whether b[p:] starts with w.
func isWord(b []byte, p int, w string) bool {
	return len(b)-p >= len(w) && string(b[p:p+len(w)]) == w
}

// numberEnd returns where the number at b[p:] ends, or, when it is not
// one, where it goes wrong and why.
func numberEnd(b []byte, p int) (int, string) {
	if p < len(b) && b[p] == '-' {
		p++
	}
	if p < len(b) && b[p] == '0' {
		p++
	} else if q := digits(b, p); q == p {
		return p, "expected a digit"
	} else {
		p = q
	}
	if p < len(b) && b[p] == '.' {
		q := digits(b, p+1)
		if q == p+1 {
			return q, "expected a digit after '.'"
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
			return p, "expected a digit in the exponent"
		}
		p = q
	}
	return p, ""
}

// digits returns where the run of decimal digits at b[p:] ends. It reads
// them 8 at a time as plainEnd reads a string's bytes, then a byte at a
// time.
func digits(b []byte, p int) int {
	for ; p <= len(b)-8; p += 8 {
		if m := nonDigits(load64(b, p)); m != 0 {
			return p + bits.TrailingZeros64(m)>>3
		}
	}
	for p < len(b) && b[p]-'0' <= 9 {
		p++
	}
	return p
}

// nonDigits marks (its high bit set) each byte of w, 8 bytes little
// endian, that is no decimal digit: below '0', borrowing in w - '0'*lsb;
// above '9', carrying into the high bit in w + (0x80-'9'-1)*lsb; 0x80 and
// up, in one or the other. A borrow or a carry may mark bytes above a
// marked one, never below it: the lowest mark is exact.
func nonDigits(w uint64) uint64 {
	return ((w - '0'*lsb) | (w + (0x80-'9'-1)*lsb)) & msb
}

// str checks a string at s.p (its opening quote).
func (s *jsonScan) str() bool {
	p, why := strRest(s.b, s.p+1)
	if why != "" {
		s.p = p
		return s.bad(why)
	}
	if s.emit {
		s.out = append(s.out, s.b[s.p:p]...)
	}
	s.p = p
	return true
}

// strRest returns where the string whose text goes on at b[p:] ends, past
// its closing quote, or, when it is not one, where it goes wrong and why.
func strRest(b []byte, p int) (int, string) {
	for {
		p = plainEnd(b, p)
		if p >= len(b) {
			return p, "the text ends inside a string"
		}
		switch c := b[p]; {
		case strPlain[c]: // in the last 7 bytes
			p++
		case c == '"':
			return p + 1, ""
		case c == '\\':
			if p+1 >= len(b) {
				return p, "the text ends inside an escape"
			}
			switch b[p+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p += 2
			case 'u':
				if len(b)-p < 6 || !isHex4(b[p+2:p+6]) {
					return p, `expected four hex digits after \u`
				}
				p += 6
			default:
				return p, "unknown escape"
			}
		case c < 0x20:
			return p, "a control character inside a string"
		default:
			r, n := utf8.DecodeRune(b[p:])
			if r == utf8.RuneError && n <= 1 {
				return p, "invalid UTF-8 inside a string"
			}
			p += n
		}
	}
}

// plainEnd returns where the run of plain bytes (strPlain) at b[p:] ends,
// or, when the run goes on into the last 7 bytes of b, where a word's
// bytes are no longer left: it reads 8 bytes at a time, the first word
// holding another byte saying where that byte is, so a short run costs
// one step, a long one a step per word.
func plainEnd(b []byte, p int) int {
	for ; p <= len(b)-8; p += 8 {
		if m := strSpecial(load64(b, p)); m != 0 {
			return p + bits.TrailingZeros64(m)>>3
		}
	}
	return p
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
// n", x - n*lsb, which marks bytes below n (borrowing) and 0x80 and up
// (w's own high bits being marks, no &^ x is needed): on w xor 0x02,
// which is below 0x21 where w is below 0x20 or is the quote, 0x22; and
// on w xor the backslash, which is 0 where w is one. A borrow may mark
// bytes above a marked one, never below it: the lowest mark is exact,
// and a word of plain bytes has none.
func strSpecial(w uint64) uint64 {
	t := w ^ 0x02*lsb // below 0x21: below 0x20, or the quote
	s := w ^ '\\'*lsb // 0: the backslash
	return ((t - 0x21*lsb) | (s - lsb) | w) & msb
}

// lsb and msb are the low and the high bit of each byte of a word.
const lsb, msb = 0x0101010101010101, 0x8080808080808080

// load64 returns the 8 bytes at b[p:], little endian.
func load64(b []byte, p int) uint64 {
	return binary.LittleEndian.Uint64(b[p : p+8 : p+8])
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// jsonValue writes the member "decoded" with the JSON text in [start,
// end) (already checked) compacted as its value, and makes the text's
// nodes: a top-level node named name, its members and elements below it.
// The nodes tile the text: a member's node starts where the one before it
// ended, the white space, comma, key and colon before its value being its
// prefix, and a container's closing bracket (with the white space before
// it) is a node "end" after its last member, of role tree.RoleFraming:
// no member, its path the container's, so a member named "end" keeps its
// own. A limit that cuts the value short takes the member out whole, its
// key too (the limit's warning says where it stopped): a key left without
// its value made the key's or value's object invalid JSON.
func (w *walker) jsonValue(start, end int, name string) {
	mark := len(w.out)
	w.decoded()
	if w.s == nil && w.jsonCompact(start, end) {
		w.topEnd = end
		return
	}
	if !w.takeData(start, 1) {
		w.rollback(mark)
		return
	}
	s := jsonScan{b: w.in.B[:end], p: start, maxDepth: w.maxDepth}
	s.ws()
	root := w.leaf(name, "", schema.Invalid, start, start)
	w.jsonNode(&s, root, start)
	root.End, w.topEnd = end, end
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

// checkCompact checks p and appends it to dst compacted, and charges b
// the nodes jsonValue would make for it (the value, one per member or
// element, one per non-empty container's "end": 1 + commas + 2 per
// non-empty container). It reports false, with dst as it was, when p is
// not one JSON value nesting at most maxDepth deep (the caller shows it
// otherwise), and when the nodes do not all fit or it nests deeper than
// room (jsonValue's walk then stops where the limit is met, and says so).
func checkCompact(dst, p []byte, maxDepth, room int, b *budget.Budget) ([]byte, bool) {
	limit := min(maxDepth, room)
	nodes, spaced, full := scanCompact(p, limit)
	if full && limit > stackDepth {
		return checkCompactSlow(dst, p, maxDepth, room, b)
	}
	if nodes == 0 || !b.Fits(nodes) {
		return dst, false
	}
	b.Nodes += nodes
	start, end := trimSpace(p)
	if !spaced {
		return append(dst, p[start:end]...), true // compact as it is
	}
	return appendCompact(dst, p[start:end]), true
}

// checkCompactSlow is checkCompact by jsonScan, for text nesting deeper
// than scanCompact's stack holds.
func checkCompactSlow(dst, p []byte, maxDepth, room int, b *budget.Budget) ([]byte, bool) {
	s := jsonScan{b: p, maxDepth: maxDepth}
	s.ws()
	start := s.p
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
	return appendCompact(dst, p[start:end]), true
}

// stackDepth is the nesting scanCompact's stack of containers holds: a bit
// each in a word, and a bit to mark its bottom.
const stackDepth = 63

// scanCompact checks p, one JSON value with white space around it nesting
// at most limit deep, for checkCompact: it returns the nodes jsonValue
// would make for it, 0 when it is not JSON or nests deeper, and whether
// there is white space inside the value. full says it nests deeper than
// min(limit, stackDepth): when limit is more, jsonScan is to check it.
//
// It is jsonScan with a loop for the recursion and no word of why the
// text is not JSON: each record's key and value is checked, most are
// compact JSON, and a failure only makes the caller walk the text (and
// say why then). What the loop keeps fits in registers, and it calls a
// function only to read a string with an escape or a rune past ASCII, or
// a number but an integer (str, num): Go saves every register live
// across a call, so the calls are at the side, off the common paths.
func scanCompact(p []byte, limit int) (nodes int, spaced, full bool) {
	if limit < 0 {
		return 0, false, true // even a number nests deeper, 0 deep
	}
	p = p[:len(p):len(p)] // its cap then takes no register of its own
	var (
		i = skipSpace(p, 0)
		// The open containers, innermost lowest, a bit each: 1 for an
		// object, 0 for an array; above them a 1 marks the bottom.
		stack = uint64(1)
		// The stack at the deepest nesting allowed: one more is too deep.
		top = uint64(1) << min(limit, stackDepth)
		key bool // a member's name is being read (str)
		why string
	)
	nodes = 1 // the value's; then one per comma, two per non-empty container

	// Each label is where the grammar is: what may come next at i. White
	// space is looked for only where the byte met is not the one expected,
	// so compact text costs one test per token. (Indexes are compared
	// as uint: the compiler then knows they are not negative, and does
	// not test them again to read p[i].)
value: // a value
	if uint(i) >= uint(len(p)) {
		return 0, false, false
	}
	switch c := p[i]; {
	case c == '"':
		// Most strings are plain bytes to the quote; str reads the others.
		if i = plainEnd(p, i+1); uint(i) >= uint(len(p)) || p[i] != '"' {
			key = false
			goto str
		}
		i++
	case c-'1' <= 8:
		// Most numbers are integers with no sign; num reads the others.
		j := digits(p, i+1)
		if uint(j) < uint(len(p)) && (p[j] == '.' || p[j]|0x20 == 'e') {
			goto num
		}
		i = j
	case c == '-' || c == '0':
		goto num
	case c == '{' || c == '[':
		if stack >= top {
			return 0, false, true
		}
		stack <<= 1
		if c == '{' {
			stack |= 1
		}
		i++
		if uint(i) < uint(len(p)) && isSpace(p[i]) {
			i, spaced = skipSpace(p, i), true
		}
		if uint(i) < uint(len(p)) && p[i] == c+2 { // '{'+2 is '}', '['+2 is ']'
			i++
			stack >>= 1
			goto more
		}
		nodes += 2
		if c == '{' {
			goto member
		}
		goto value
	case c == 't':
		if !isWord(p, i, "true") {
			return 0, false, false
		}
		i += len("true")
	case c == 'f':
		if !isWord(p, i, "false") {
			return 0, false, false
		}
		i += len("false")
	case c == 'n':
		if !isWord(p, i, "null") {
			return 0, false, false
		}
		i += len("null")
	case isSpace(c):
		i, spaced = skipSpace(p, i), true
		goto value
	default:
		return 0, false, false
	}

more: // after a value: the text's end, a comma or the container's end
	if stack == 1 {
		if skipSpace(p, i) != len(p) {
			return 0, false, false
		}
		return nodes, spaced, false
	}
	if uint(i) >= uint(len(p)) {
		return 0, false, false
	}
	switch c := p[i]; {
	case c == ',':
		nodes++
		i++
		if stack&1 != 0 {
			goto member
		}
		goto value
	case c == ']'+byte(stack&1)*('}'-']'): // the innermost's closing bracket
		i++
		stack >>= 1
		goto more
	case isSpace(c):
		i, spaced = skipSpace(p, i), true
		goto more
	}
	return 0, false, false

member: // an object's member: its name, ':'
	if uint(i) >= uint(len(p)) {
		return 0, false, false
	}
	if p[i] != '"' {
		if !isSpace(p[i]) {
			return 0, false, false
		}
		i, spaced = skipSpace(p, i), true
		goto member
	}
	if i = plainEnd(p, i+1); uint(i) >= uint(len(p)) || p[i] != '"' {
		key = true
		goto str
	}
	i++
colon:
	if uint(i) >= uint(len(p)) || p[i] != ':' {
		if i, spaced = skipSpace(p, i), true; uint(i) >= uint(len(p)) || p[i] != ':' {
			return 0, false, false
		}
	}
	i++
	goto value

str: // the rest of a string, past its plain bytes
	if i, why = strRest(p, i); why != "" {
		return 0, false, false
	}
	if key {
		goto colon
	}
	goto more

num: // a number at i
	if i, why = numberEnd(p, i); why != "" {
		return 0, false, false
	}
	goto more
}

// appendCompact appends the JSON text v, checked, without the white space
// outside its strings.
func appendCompact(dst, v []byte) []byte {
	from := 0 // where the text not yet appended starts
	for i := 0; i < len(v); {
		switch c := v[i]; {
		case c == '"':
			i = strSkip(v, i+1)
		case c > ' ':
			i++
		default: // white space: no other byte below '!' is outside strings
			dst = append(dst, v[from:i]...)
			i = skipSpace(v, i)
			from = i
		}
	}
	return append(dst, v[from:]...)
}

// strSkip returns where the string whose text goes on at v[i:], checked,
// ends, past its closing quote: only the quote and the backslash of an
// escape need a look.
func strSkip(v []byte, i int) int {
	for {
		switch i = plainEnd(v, i); v[i] {
		case '"':
			return i + 1
		case '\\':
			i += 2
		default: // a byte of a rune past ASCII, or a plain byte in the last 7
			i++
		}
	}
}

// trimSpace returns where the text of p starts and ends, white space
// around it left out.
func trimSpace(p []byte) (start, end int) {
	start, end = skipSpace(p, 0), len(p)
	for end > start && isSpace(p[end-1]) {
		end--
	}
	return start, end
}

// isSpace reports whether c is JSON's white space.
func isSpace(c byte) bool {
	return c <= ' ' && uint64(1<<' '|1<<'\t'|1<<'\r'|1<<'\n')>>c&1 != 0
}

// skipSpace returns where the white space at p[i:] ends.
func skipSpace(p []byte, i int) int {
	for i < len(p) && isSpace(p[i]) {
		i++
	}
	return i
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
			// A member's node starts at from (the white space and comma
			// before it its prefix): a limit that cuts it is said there,
			// on the member's path (its key is read first, the text being
			// checked already), as its other warnings are.
			var key []byte
			var kname string
			if obj {
				ks := s.p
				s.str()
				key = b[ks:s.p]
				kname = jsonUnquote(key)
				w.push(kname, -1)
			} else {
				w.push("", idx)
			}
			if !w.takeAt(from, 1) {
				w.pop()
				return
			}
			var e *tree.Node
			if obj {
				w.out = append(w.out, key...)
				w.out = append(w.out, ':')
				s.ws()
				s.p++ // ':'
				s.ws()
				e = w.node(kname, "", schema.Invalid, from, s.p)
			} else {
				e = w.node(n.Name, "", schema.Invalid, from, s.p)
				e.Role, e.Index = tree.RoleElement, idx
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
			if !w.takeAt(from, 1) {
				return
			}
			e := w.node("end", "json "+string(b[s.p-1]), schema.Invalid, from, s.p)
			e.Role = tree.RoleFraming // the container's path, not a member "end"'s
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
