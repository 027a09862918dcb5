package jsontext

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth bounds the nesting Parse accepts.
const MaxDepth = 1000

// SyntaxError is JSON text Parse cannot read: where, and what is wrong.
type SyntaxError struct {
	Offset int // byte offset of the problem
	Msg    string

	// in, for a string's content refused (invalid UTF-8, a lone
	// surrogate), is the path to the string, its steps gathered as the
	// parse unwinds (the innermost first), written into Msg at the top.
	in   []string
	text bool
}

// Error says where the JSON is invalid and why: "invalid JSON at byte N: ...".
func (e *SyntaxError) Error() string {
	return "invalid JSON at byte " + strconv.Itoa(e.Offset) + ": " + e.Msg
}

// Parse reads one JSON value into generic form: objects as map[string]any,
// arrays as []any, numbers as json.Number (their exact text), strings,
// bools and nil. It is a small parser of its own rather than
// encoding/json's Decoder, whose reflection would add a third of a
// megabyte to the WebAssembly build. Nesting deeper than MaxDepth is
// refused, and so is an object with a key twice (except within the value
// of a member named "decoded", where kwire's payload readers write what a
// record payload holds, which no encoder reads: there keys twice are
// taken, the last winning, and strings read as Unquote reads them).
//
// A string must be what JSON text is (RFC 8259 8.1): invalid UTF-8, and a
// \u escape of half a UTF-16 surrogate pair without its other half
// ("\ud800"), which stands for no character, are refused, where
// encoding/json would read U+FFFD in their place: what the text is read
// for (values to encode) would otherwise hold characters it does not
// show. The error gives the byte and, in its message, the path to the
// string ("topics[0].name").
func Parse(js []byte) (any, error) {
	p := jsonParser{b: js, strict: true}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, finish(err)
	}
	p.ws()
	if p.i < len(p.b) {
		return nil, p.fail("more than one value")
	}
	return v, nil
}

// finish writes the path a string's refused content was found at into
// the error's message.
func finish(err error) error {
	se, ok := err.(*SyntaxError)
	if !ok || !se.text || len(se.in) == 0 {
		return err
	}
	var path []byte
	for i := len(se.in) - 1; i >= 0; i-- {
		path = append(path, se.in[i]...)
	}
	if len(path) > 0 && path[0] == '.' {
		path = path[1:]
	}
	se.Msg += " at " + string(path)
	se.in = nil
	return se
}

// ParseNext reads the first JSON value of js, after any white space, as
// Parse reads one, for a stream of values (NDJSON, or documents one after
// another): n is how many bytes the white space and the value took, and
// what follows is left for the next call. A SyntaxError's Offset counts
// from the start of js.
//
// A number, true, false or null must be followed by white space, the
// end or a byte of JSON's structure ('{', '[', '"', ',', ':', ']', '}'):
// in "00" or "1c" (a line of hex) the value does not end where the
// stream's next one could start, and that byte is the error.
func ParseNext(js []byte) (v any, n int, err error) {
	p := jsonParser{b: js, strict: true}
	p.ws()
	start := p.i
	v, err = p.value(0)
	if err != nil {
		return v, p.i, finish(err)
	}
	if p.i == len(p.b) {
		return v, p.i, nil
	}
	switch c := js[start]; c {
	case '{', '[', '"':
	default:
		switch js[p.i] {
		case ' ', '\t', '\n', '\r', '{', '[', '"', ',', ':', ']', '}':
		default:
			what := "a number"
			if c == 't' || c == 'f' || c == 'n' {
				what = string(js[start:p.i])
			}
			return nil, p.i, p.fail(p.unexpected() + " after " + what)
		}
	}
	return v, p.i, nil
}

// Unquote reads one JSON string, q with its quotes, as a reader of JSON
// it did not write must (escapes decoded, and, where Parse refuses them,
// invalid UTF-8 and lone surrogates read as U+FFFD, as encoding/json
// reads them): a record payload's JSON is shown, never refused.
func Unquote(q []byte) (string, error) {
	p := jsonParser{b: q}
	if len(q) == 0 || q[0] != '"' {
		return "", p.fail("expected a string")
	}
	s, err := p.str()
	if err == nil && p.i < len(q) {
		err = p.fail("more than one value")
	}
	return s, err
}

type jsonParser struct {
	b      []byte
	i      int
	strict bool // refuse invalid UTF-8 and lone surrogates in strings (Parse)
	// payload is set inside the value of a member named "decoded": what
	// kwire's record payload readers write there is a payload as read
	// (a JSON payload's own text, its keys twice and its lone surrogates
	// too), which no encoder reads, so that the JSON kwire decode writes
	// parses back (kwire encode). Keys twice are taken (the last wins)
	// and strings read as Unquote reads them.
	payload bool
}

// textError refuses a string's content at byte at: the path to the string
// is added as the parse unwinds.
func textError(at int, msg string) *SyntaxError {
	return &SyntaxError{Offset: at, Msg: msg, text: true}
}

// within adds a step of the path to err, a string's content refused
// inside the value it unwinds through.
func within(err error, step string) error {
	if se, ok := err.(*SyntaxError); ok && se.text {
		se.in = append(se.in, step)
	}
	return err
}

func (p *jsonParser) fail(msg string) error {
	return &SyntaxError{Offset: p.i, Msg: msg}
}

func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, p.fail("nested too deeply")
	}
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		obj := map[string]any{}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return obj, nil
		}
		for {
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != '"' {
				return nil, p.fail("expected a string key")
			}
			at := p.i
			k, err := p.str()
			if err != nil {
				if se, ok := err.(*SyntaxError); ok && se.text {
					se.Msg = strings.Replace(se.Msg, " in a string", " in a key", 1)
				}
				return nil, err
			}
			if _, dup := obj[k]; dup && !p.payload {
				// Which one was meant is not known: taking the last, as
				// encoding/json does, hides an edit's slip.
				return nil, &SyntaxError{Offset: at, Msg: "duplicate key " + strconv.Quote(k) + " in an object"}
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, p.fail("expected ':' after a key")
			}
			p.i++
			p.ws()
			var v any
			if k == "decoded" && !p.payload {
				strict := p.strict
				p.payload, p.strict = true, false
				v, err = p.value(depth + 1)
				p.payload, p.strict = false, strict
			} else {
				v, err = p.value(depth + 1)
			}
			if err != nil {
				return nil, within(err, "."+k)
			}
			obj[k] = v
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return obj, nil
			}
			return nil, p.fail("expected ',' or '}' in an object")
		}
	case c == '[':
		p.i++
		arr := []any{}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return arr, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, within(err, "["+strconv.Itoa(len(arr))+"]")
			}
			arr = append(arr, v)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				return arr, nil
			}
			return nil, p.fail("expected ',' or ']' in an array")
		}
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.word("true")
	case c == 'f':
		return false, p.word("false")
	case c == 'n':
		return nil, p.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, p.fail(p.unexpected())
}

// unexpected names the character at p.i, read as UTF-8 (a byte that is
// not UTF-8 by its value).
func (p *jsonParser) unexpected() string {
	r, size := utf8.DecodeRune(p.b[p.i:])
	switch {
	case r == utf8.RuneError && size <= 1:
		return "unexpected byte 0x" + strconv.FormatUint(uint64(p.b[p.i]), 16)
	case r == '\uFEFF':
		return "unexpected byte order mark (U+FEFF)"
	}
	return "unexpected character " + strconv.QuoteRune(r)
}

func (p *jsonParser) word(w string) error {
	if len(p.b)-p.i < len(w) || string(p.b[p.i:p.i+len(w)]) != w {
		return p.fail("expected " + w)
	}
	p.i += len(w)
	return nil
}

func (p *jsonParser) number() (any, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.b) && p.b[p.i] == '0' {
		if p.i+1 < len(p.b) && p.b[p.i+1] >= '0' && p.b[p.i+1] <= '9' {
			return nil, p.fail("a number with a leading zero")
		}
		p.i++
	} else if digits() == 0 {
		return nil, p.fail("expected a digit")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.fail("expected a digit after '.'")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.fail("expected a digit in the exponent")
		}
	}
	return json.Number(p.b[start:p.i]), nil
}

func (p *jsonParser) str() (string, error) {
	p.i++ // the opening quote
	start := p.i
	// Fast path: no escapes.
	for p.i < len(p.b) {
		c := p.b[p.i]
		if c == '"' {
			s := p.b[start:p.i]
			p.i++
			if utf8.Valid(s) {
				return string(s), nil
			}
			if p.strict {
				return "", invalidUTF8(p.b, start)
			}
			return string([]rune(string(s))), nil // invalid bytes become U+FFFD
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(out) {
				if p.strict {
					return "", invalidUTF8(p.b, start)
				}
				return string([]rune(string(out))), nil
			}
			return string(out), nil
		case c < 0x20:
			return "", p.fail("control character in a string")
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.b) {
			break
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			esc := p.i - 2
			r, ok := p.hex4()
			if !ok {
				return "", p.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(utf8.RuneError)
				if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if x, ok := p.hex4(); ok {
						if d := utf16.DecodeRune(r, x); d != utf8.RuneError {
							r2 = d
						} else {
							p.i = save
						}
					} else {
						p.i = save
					}
				}
				if r2 == utf8.RuneError && p.strict {
					return "", textError(esc, "a lone surrogate "+string(p.b[esc:esc+6])+" in a string (half of a UTF-16 pair without its other half: no character)")
				}
				r = r2
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", p.fail("bad escape \\" + string(rune(e)))
		}
	}
	return "", p.fail("unterminated string")
}

// invalidUTF8 refuses the string whose content starts at start: at its
// first byte that is not UTF-8.
func invalidUTF8(b []byte, start int) *SyntaxError {
	i := start
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return textError(i, "invalid UTF-8 (byte 0x"+strconv.FormatUint(uint64(b[i]), 16)+") in a string")
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
