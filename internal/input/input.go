// Package input turns whatever a user pastes (or pipes) into the raw bytes
// of Kafka frames.
//
// It recognises plain hex in its many spellings (spaced, 0x-prefixed,
// colon/comma/dash separated, C and Go array literals), C/Go/Python string
// escapes, the dumps printed by xxd, hexdump -C, od -t x1 (its addresses in
// any radix), hexdump and od -x (little-endian 16-bit words), Wireshark's
// "Copy as Hex Dump" and tcpdump -X, base64 (standard or URL alphabet, with
// or without padding), and raw binary.
//
// Parse returns the bytes; HasSizePrefix and SplitFrames then find the
// size-prefixed Kafka frames in them, and StripPacket strips the link, IP
// and TCP headers when a whole captured packet was pasted (tcpdump -X,
// tshark -x): the CLI, the API and the playground call it after Parse.
// ParsePackets reads a text of several packets' dumps (tshark -x of a
// capture, tcpdump -X), each packet's bytes with its time, for a capture
// reader to take.
//
// The package is used both natively and compiled to WebAssembly, so it uses
// only the standard library, avoids fmt and reflection, never panics, and
// allocates memory proportional to its input (see ParseLimit for the one
// exception, the '*' repeat lines of hexdump and od).
package input

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Mode selects how Parse interprets its input.
type Mode int

const (
	// Auto detects the shape of the input.
	Auto Mode = iota
	// Hex accepts every textual hex shape: plain hex, byte lists, array
	// literals, string escapes and hex dumps.
	Hex
	// Base64 accepts standard or URL-alphabet base64, padded or not, with
	// whitespace anywhere.
	Base64
	// Binary returns the input unchanged.
	Binary
)

// String returns the mode's name as accepted by ParseMode.
func (m Mode) String() string {
	switch m {
	case Auto:
		return "auto"
	case Hex:
		return "hex"
	case Base64:
		return "base64"
	case Binary:
		return "binary"
	}
	return "mode(" + strconv.Itoa(int(m)) + ")"
}

// ParseMode parses a mode name: "auto" (or ""), "hex", "base64" (or "b64")
// and "binary" (or "bin", "raw"). Case and surrounding space are ignored.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return Auto, nil
	case "hex":
		return Hex, nil
	case "base64", "b64":
		return Base64, nil
	case "binary", "bin", "raw":
		return Binary, nil
	}
	return Auto, &Error{Offset: -1, Err: ErrMode,
		Msg: "unknown mode " + strconv.Quote(s) + " (want auto, hex, base64 or binary)"}
}

// Format names the input shape Parse found.
type Format string

// The formats Parse reports.
const (
	FormatBinary    Format = "binary"                             // raw bytes, returned unchanged
	FormatHex       Format = "hex"                                // plain hex, byte lists, array literals
	FormatCEscapes  Format = "c-escapes"                          // "\x00\x00..." string escapes
	FormatXXD       Format = "hex-dump-xxd"                       // xxd
	FormatHexdumpC  Format = "hexdump-C"                          // hexdump -C
	FormatOD        Format = "od"                                 // od -t x1 (addresses octal, decimal or hex)
	FormatWords     Format = "hex-words"                          // hexdump, od -x: little-endian 16-bit words
	FormatWireshark Format = "wireshark"                          // Wireshark "Copy as Hex Dump"
	FormatTcpdump   Format = "tcpdump"                            // tcpdump -X / -x
	FormatBase64    Format = "base64"                             // base64, standard or URL alphabet
	FormatDecimal   Format = "decimal"                            // a byte array printed in decimal: Go's %v, Python's list, Java, Rust, node
	FormatHexJSON   Format = "hex, the JSON after it passed over" // kwire example's output: a line of hex, then JSON
)

// maxHeaderLines is how many lines before a hex dump Parse skips: a shell
// prompt with the command, or the packet line tcpdump prints before the
// dump.
const maxHeaderLines = 2

// DefaultRepeatLimit is the number of bytes that '*' lines of hexdump, od
// and xxd -a dumps may add to the output in Parse.
const DefaultRepeatLimit = 16 << 20

// Parse turns data (text or raw bytes) into bytes. In Auto mode it detects
// the shape of the input and reports it as the Format. Errors are *Error.
//
// Except for Binary input, which is returned as is, the result is a new
// slice. Apart from '*' repeat lines in dumps, the result is never longer
// than data.
func Parse(data []byte, mode Mode) ([]byte, Format, error) {
	return ParseLimit(data, mode, DefaultRepeatLimit)
}

// ParseLimit is Parse with a bound on how many bytes the '*' lines of a dump
// (which mean "the previous line repeats until the next offset") may add to
// the output. A limit <= 0 forbids any expansion.
func ParseLimit(data []byte, mode Mode, repeatLimit int) ([]byte, Format, error) {
	if repeatLimit < 0 {
		repeatLimit = 0
	}
	if len(data) == 0 {
		return nil, "", &Error{Offset: -1, Err: ErrEmpty, Msg: "empty input"}
	}
	if mode != Binary {
		// Text saved as UTF-16 (PowerShell's > and Out-File, Notepad's
		// "Unicode") is read as the text it holds; in Auto mode only
		// when that is text, not bytes that happen to begin FF FE.
		if t, ok := fromUTF16(data); ok && len(t) > 0 && (mode != Auto || !looksBinary(t)) {
			data = t
		}
	}
	switch mode {
	case Binary:
		return data, FormatBinary, nil
	case Auto:
		if looksBinary(data) {
			return data, FormatBinary, nil
		}
		return parseText(data, repeatLimit, true, true)
	case Hex:
		return parseText(data, repeatLimit, true, false)
	case Base64:
		return parseText(data, repeatLimit, false, true)
	}
	return nil, "", &Error{Offset: -1, Err: ErrMode, Msg: "unknown mode " + strconv.Itoa(int(mode))}
}

// looksBinary reports whether b is not plain text: invalid UTF-8, or a
// control byte other than whitespace.
func looksBinary(b []byte) bool {
	if !utf8.Valid(b) {
		return true
	}
	for _, c := range b {
		if (c < 0x20 && !isSpace(c)) || c == 0x7f {
			return true
		}
	}
	return false
}

// fromUTF16 converts text in UTF-16 with a byte order mark (FF FE, little
// endian; FE FF, big endian) to UTF-8, the mark left out. It reports false
// when data is not such text: no mark, an odd length, or a surrogate
// without its pair. Positions in errors are then the UTF-8 text's.
func fromUTF16(data []byte) ([]byte, bool) {
	if len(data) < 2 || len(data)%2 != 0 {
		return nil, false
	}
	var le bool
	switch {
	case data[0] == 0xFF && data[1] == 0xFE:
		le = true
	case data[0] == 0xFE && data[1] == 0xFF:
	default:
		return nil, false
	}
	out := make([]byte, 0, len(data)/2)
	for i := 2; i < len(data); i += 2 {
		u := rune(data[i])<<8 | rune(data[i+1])
		if le {
			u = rune(data[i+1])<<8 | rune(data[i])
		}
		if utf16.IsSurrogate(u) {
			if u >= 0xDC00 || i+3 >= len(data) {
				return nil, false
			}
			v := rune(data[i+2])<<8 | rune(data[i+3])
			if le {
				v = rune(data[i+3])<<8 | rune(data[i+2])
			}
			if u = utf16.DecodeRune(u, v); u == utf8.RuneError {
				return nil, false
			}
			i += 2
		}
		out = utf8.AppendRune(out, u)
	}
	return out, true
}

// BOMLen is how many bytes at the start of b are a UTF-8 byte order mark,
// which editors on Windows write before text and JSON does not hold: 3
// or 0. Readers of text skip them; positions they report still count
// them, as the user's file holds them.
func BOMLen(b []byte) int {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return 3
	}
	return 0
}

// parseText parses textual input, trying the hex family if hex is set and
// base64 if b64 is set.
func parseText(data []byte, repeatLimit int, hex, b64 bool) ([]byte, Format, error) {
	start := BOMLen(data)
	t := text{src: data}
	lo, hi := start, len(data)
	for lo < hi && isSpace(data[lo]) {
		lo++
	}
	for hi > lo && isSpace(data[hi-1]) {
		hi--
	}
	if lo == hi {
		return nil, "", t.errAt(-1, ErrEmpty, "empty input")
	}
	if !hex {
		lo, hi = unquote(data, lo, hi)
		out, err := parseBase64(t, lo, hi, false)
		if err != nil {
			return nil, "", err
		}
		return out, FormatBase64, nil
	}

	// Dumps: detected from the first line's shape. Up to maxHeaderLines
	// lines before it (a shell prompt, tcpdump's packet line) are skipped.
	// A dump that is not certainly one (a single line of offset and bytes)
	// is taken as a dump only if it is not plain hex.
	var (
		dumpOut    []byte
		dumpFormat Format
	)
	for dlo, skipped := lo, 0; dlo < hi && skipped <= maxHeaderLines; skipped++ {
		if charDump(data, start, dlo, hi) {
			return nil, "", t.errAt(dlo, ErrDump, "a dump of characters (od -c, hexdump -c) is not read: "+
				"its bytes are characters, escapes and octal; use od -A x -t x1 or hexdump -C")
		}
		if kind, ok := detectDump(data[dlo:hi]); ok {
			out, validated, err := parseDump(t, dlo, hi, kind, repeatLimit)
			switch {
			case err != nil:
				// Its error (a bad offset, say) says more than one about
				// the offsets and ASCII column not being hex.
				return nil, "", err
			case validated:
				return out, kind.format(), nil
			case skipped == 0:
				dumpOut, dumpFormat = out, kind.format()
			}
			break
		}
		nl := bytes.IndexByte(data[dlo:hi], '\n')
		if nl < 0 {
			break
		}
		dlo += nl + 1
	}
	// Python's print of a bytearray: bytearray(b'\x00...'), the bytes
	// literal inside read as one.
	if bytes.HasPrefix(data[lo:hi], []byte("bytearray(b")) && data[hi-1] == ')' {
		lo, hi = lo+len("bytearray("), hi-1
	}
	body := data[lo:hi]
	// A byte array as programs print it, in decimal: "[0 0 0 37 ...]", or
	// node's JSON of a Buffer, {"type":"Buffer","data":[0,0,0,37,...]}.
	if hex && b64 {
		dlo, dhi := lo, hi
		if a, e, ok := nodeBufferJSON(body); ok {
			dlo, dhi = lo+a, lo+e
		}
		if out, ok, err := parseDecimal(t, dlo, dhi, true); err != nil {
			return nil, "", err
		} else if ok {
			return out, FormatDecimal, nil
		}
	}
	// kwire example's output: a line of hex, then the frame's JSON.
	if n, ok := hexThenJSON(body); ok {
		if out, err := parseHex(t, lo, lo+n); err == nil {
			return out, FormatHexJSON, nil
		}
	}
	// Python's print of binascii.hexlify(b): hex in a bytes literal,
	// b'00000025...', which is no string of those characters.
	if n := len(body); n > 3 && body[0] == 'b' && (body[1] == '\'' || body[1] == '"') && body[n-1] == body[1] && onlyHexDigits(body[2:n-1]) {
		if out, err := parseHex(t, lo+2, hi-1); err == nil {
			return out, FormatHex, nil
		}
	}
	// String escapes: "\x00\x00..." with or without quotes.
	var firstErr error
	if isEscapes(body) && bytes.IndexByte(body, '\\') >= 0 {
		out, err := parseEscapes(t, lo, hi)
		if err == nil {
			return out, FormatCEscapes, nil
		}
		firstErr = err
	}
	// Plain hex and its relatives (quotes around it are ignored).
	out, err := parseHex(t, lo, hi)
	if err == nil {
		return out, FormatHex, nil
	}
	if dumpOut != nil {
		return dumpOut, dumpFormat, nil
	}
	if hex && b64 {
		if out, ok, _ := parseDecimal(t, lo, hi, false); ok {
			return out, FormatDecimal, nil
		}
	}
	if jsonStart(body) {
		return nil, "", t.errAt(lo, ErrJSON, "this is JSON, not a frame's bytes: value JSON becomes a frame by encoding it")
	}
	if e, ok := err.(*Error); ok && e.Err == ErrChar && starLine(data, e.Offset) {
		// od -A n: a '*' line says lines repeat, and no address says
		// how many times.
		return nil, "", t.errAt(e.Offset, ErrDump, "a '*' repeat line in hex without addresses (od -A n?) leaves how many lines it repeats unknown: use od -t x1 or hexdump -C (or od -v, which repeats no line)")
	}
	if n := wideWords(data[lo:hi]); n > 0 {
		return nil, "", t.errAt(lo, ErrDump, "a dump of "+strconv.Itoa(n*4)+"-bit words (od -t x"+strconv.Itoa(n/2)+
			") is not read: its words are in the host's byte order; use od -A x -t x1 or hexdump -C")
	}
	if firstErr == nil {
		firstErr = err
	}
	// Base64: only when the text is clearly base64 (see clearlyBase64);
	// text that is almost hex is hex, with the error at its bad character.
	blo, bhi := unquote(data, lo, hi)
	bbody := data[blo:bhi]
	if b64 && clearlyBase64(bbody) {
		out, berr := parseBase64(t, blo, bhi, true)
		if berr == nil {
			return out, FormatBase64, nil
		}
		if hasBase64Only(bbody) && !mostlyHex(bbody) {
			firstErr = berr
		}
	}
	// A quoted string without escapes is taken literally.
	if isEscapes(body) && bytes.IndexByte(body, '\\') < 0 {
		if out, err := parseEscapes(t, lo, hi); err == nil {
			return out, FormatCEscapes, nil
		}
	}
	return nil, "", firstErr
}

func isSpace(c byte) bool { return charClass[c]&classSpace != 0 }

// charClass holds what each byte is to the parsers' scans: one load where
// the ranges took a compare each, in loops over megabytes of text.
var charClass = func() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r\f\v") {
		t[c] |= classSpace
	}
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=") {
		t[c] |= classBase64
	}
	return t
}()

const (
	classSpace = 1 << iota
	classBase64
)

// hexDigits is each byte's value as a hex digit, or 0xff for none: one
// load where the ranges took three compares each, in the loops that read
// megabytes of hex.
var hexDigits = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for i := byte(0); i < 10; i++ {
		t['0'+i] = i
	}
	for i := byte(0); i < 6; i++ {
		t['a'+i], t['A'+i] = 10+i, 10+i
	}
	return t
}()

func isHexDigit(c byte) bool { return hexDigits[c] != 0xff }

// hexVal is c's value as a hex digit, 0 for none.
func hexVal(c byte) byte { return hexDigits[c] & 0x0f }

func onlyHexDigits(b []byte) bool {
	for _, c := range b {
		if !isHexDigit(c) && !isSpace(c) {
			return false
		}
	}
	return true
}

// clearlyBase64 reports whether text that failed as hex is base64 rather
// than hex with a mistake in it. It must have only base64 characters, but
// for at most two (a typo, or a stray character copied with it, which the
// base64 error then names, where the hex one named the first letter past
// f; a backslash says string escapes, whose error says more), and no
// blanks inside a line (base64 tools never print those, hex byte lists
// always do), and more than hex digits: a mark only base64 has ('+' or '/'
// anywhere, '=' padding at the end, '_' of the URL alphabet), or more
// letters outside the hex digits than a typo makes (more than two, and more
// than one in sixteen characters). So one mistyped digit in a hex frame
// ("...0g07...") is a hex error at the 'g', while the base64 of a frame
// (whose zero bytes are all 'A's, hex digits too) has a letter outside
// them in about every third character.
func clearlyBase64(b []byte) bool {
	if onlyHexDigits(b) || hasInnerBlanks(b) || strayChars(b) > 2 || bytes.IndexByte(b, '\\') >= 0 {
		return false
	}
	n, other := 0, 0
	for i, c := range b {
		switch {
		case isSpace(c):
			continue
		case c == '+' || c == '/' || c == '_':
			return true
		case c == '=':
			if len(bytes.TrimRight(b[i:], "= \t\r\n")) == 0 {
				return true // padding at the end
			}
		case !isHexDigit(c):
			other++
		}
		n++
	}
	return other > 2 && other*16 > n
}

// hasBase64Only reports whether b has a character of the base64 alphabet
// that cannot appear in hex text (anything but hex digits and the x of 0x).
func hasBase64Only(b []byte) bool {
	for _, c := range b {
		if isBase64Char(c) && !isHexDigit(c) && c != 'x' && c != 'X' {
			return true
		}
	}
	return false
}

// mostlyHex reports whether at most a few non-space characters of b are
// outside the hex digits, in which case a hex error is more useful than a
// base64 one.
func mostlyHex(b []byte) bool {
	n, bad := 0, 0
	for _, c := range b {
		if isSpace(c) {
			continue
		}
		n++
		if !isHexDigit(c) {
			bad++
		}
	}
	return bad*10 < n
}

// hasInnerBlanks reports whether some line of b has a space or tab between
// two non-space characters.
func hasInnerBlanks(b []byte) bool {
	for i := 1; i+1 < len(b); i++ {
		if (b[i] == ' ' || b[i] == '\t') && !isSpace(b[i-1]) {
			j := i
			for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
				j++
			}
			if j < len(b) && b[j] != '\n' && b[j] != '\r' {
				return true
			}
		}
	}
	return false
}

// text is the input being parsed; it turns byte offsets into line and
// column numbers for errors.
type text struct {
	src []byte
}

// errAt returns an *Error at byte offset off (-1 for none).
func (t text) errAt(off int, kind error, msg string) *Error {
	e := &Error{Offset: off, Err: kind, Msg: msg}
	if off >= 0 && off <= len(t.src) {
		e.Line = 1
		ls := 0
		for i := 0; i < off; i++ {
			if t.src[i] == '\n' {
				e.Line++
				ls = i + 1
			}
		}
		e.Column = utf8.RuneCount(t.src[ls:off]) + 1
	}
	return e
}

// charAt describes the character at off for an error message.
func (t text) charAt(off int) string {
	if off < 0 || off >= len(t.src) {
		return "end of input"
	}
	r, size := utf8.DecodeRune(t.src[off:])
	if r == utf8.RuneError && size <= 1 {
		return "byte 0x" + hex2(t.src[off])
	}
	return strconv.QuoteRune(r)
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// badChar returns the "unexpected character" error at off.
func (t text) badChar(off int, what string) *Error {
	return t.errAt(off, ErrChar, "unexpected character "+t.charAt(off)+" in "+what)
}

// unquote strips one pair of matching quotes around src[lo:hi].
func unquote(src []byte, lo, hi int) (int, int) {
	if hi-lo >= 2 && (src[lo] == '"' || src[lo] == '\'') && src[hi-1] == src[lo] {
		lo, hi = lo+1, hi-1
		for lo < hi && isSpace(src[lo]) {
			lo++
		}
		for hi > lo && isSpace(src[hi-1]) {
			hi--
		}
	}
	return lo, hi
}

// starLine says whether b[i] is a '*' alone on its line (blanks aside).
func starLine(b []byte, i int) bool {
	if i < 0 || i >= len(b) || b[i] != '*' {
		return false
	}
	for k := i - 1; k >= 0 && b[k] != '\n'; k-- {
		if !isSpace(b[k]) {
			return false
		}
	}
	for k := i + 1; k < len(b) && b[k] != '\n'; k++ {
		if !isSpace(b[k]) {
			return false
		}
	}
	return true
}

// wideWords says whether line, the text's first, is a dump line of 32-
// or 64-bit words ("0000000 25000000 03001200", od -t x4 or x8): the
// words' hex digits (8 or 16), 0 for no such line.
func wideWords(b []byte) int {
	if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
		b = b[:nl]
	}
	j := hexRun(b, 0, len(b))
	if j < 6 || j > 16 || j+1 >= len(b) || b[j] != ' ' {
		return 0
	}
	e := hexRun(b, j+1, len(b))
	if n := e - j - 1; (n == 8 || n == 16) && (e == len(b) || isSpace(b[e])) {
		return n
	}
	return 0
}

// hexThenJSON reports whether b is a line of hex with a JSON object after
// it, as kwire example prints a frame, and where that line ends.
func hexThenJSON(b []byte) (int, bool) {
	nl := bytes.IndexByte(b, '\n')
	if nl <= 0 || !onlyHexDigits(b[:nl]) || !jsonStart(bytes.TrimLeft(b[nl:], " \t\r\n")) {
		return 0, false
	}
	return nl, true
}

// jsonStart reports whether b starts as a JSON object or an array of
// them does: '{' and a key, or an empty object.
func jsonStart(b []byte) bool {
	if len(b) > 0 && b[0] == '[' {
		b = bytes.TrimLeft(b[1:], " \t\r\n")
	}
	if len(b) == 0 || b[0] != '{' {
		return false
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	return len(b) > 0 && (b[0] == '"' || b[0] == '}')
}

// nodeBufferJSON finds the array in node's JSON of a Buffer,
// {"type":"Buffer","data":[...]}: where it starts and ends in b, a
// trimmed text.
func nodeBufferJSON(b []byte) (int, int, bool) {
	i := 0
	for _, tok := range []string{"{", `"type"`, ":", `"Buffer"`, ",", `"data"`, ":"} {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if !bytes.HasPrefix(b[i:], []byte(tok)) {
			return 0, 0, false
		}
		i += len(tok)
	}
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := len(b) - 1
	if b[j] != '}' {
		return 0, 0, false
	}
	for j--; j > i && isSpace(b[j]); j-- {
	}
	if i >= j || b[i] != '[' || b[j] != ']' {
		return 0, 0, false
	}
	return i, j + 1, true
}
