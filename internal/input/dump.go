package input

import (
	"strconv"
	"unicode/utf8"
)

// dumpKind is a hex dump layout.
type dumpKind int

const (
	dumpXXD       dumpKind = iota + 1 // "00000000: 0000 0025 ...  ...%"
	dumpHexdumpC                      // "00000000  00 00 00 25 ...  |...%|"
	dumpOD                            // "000000 00 00 00 25 ...  >...%<"
	dumpWireshark                     // "0000   00 00 00 25 ...   ...%"
	dumpTcpdump                       // "\t0x0000:  0000 0025 ...  ...%"
)

func (k dumpKind) format() Format {
	switch k {
	case dumpXXD:
		return FormatXXD
	case dumpHexdumpC:
		return FormatHexdumpC
	case dumpOD:
		return FormatOD
	case dumpWireshark:
		return FormatWireshark
	case dumpTcpdump:
		return FormatTcpdump
	}
	return FormatHex
}

// what names the dump in error messages.
func (k dumpKind) what() string {
	switch k {
	case dumpXXD:
		return "xxd dump"
	case dumpHexdumpC:
		return "hexdump -C dump"
	case dumpOD:
		return "od dump"
	case dumpWireshark:
		return "Wireshark hex dump"
	case dumpTcpdump:
		return "tcpdump dump"
	}
	return "hex dump"
}

// hexRun returns the end of the run of hex digits starting at b[i].
func hexRun(b []byte, i, end int) int {
	for i < end && isHexDigit(b[i]) {
		i++
	}
	return i
}

// detectDump looks at the first non-blank line of b and says which dump
// layout it has, if any.
func detectDump(b []byte) (dumpKind, bool) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	end := i
	for end < len(b) && b[end] != '\n' {
		end++
	}
	for end > i && isSpace(b[end-1]) {
		end--
	}
	line := b[i:end]
	prefixed := len(line) > 2 && line[0] == '0' && (line[1] == 'x' || line[1] == 'X')
	j := 0
	if prefixed {
		j = 2
	}
	d := hexRun(line, j, len(line)) - j
	j += d
	if d < 4 || d > 16 || j >= len(line) {
		return 0, false
	}
	// Is a hex token of exactly n digits (0 = any even count) at line[k]?
	token := func(k, n int) bool {
		e := hexRun(line, k, len(line))
		if e == k || (e < len(line) && line[e] != ' ' && line[e] != '\t') {
			return false
		}
		if n == 0 {
			return (e-k)%2 == 0
		}
		return e-k == n
	}
	if line[j] == ':' {
		k := j + 1
		for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
			k++
		}
		if k == j+1 || !token(k, 0) {
			return 0, false
		}
		if prefixed {
			return dumpTcpdump, true
		}
		return dumpXXD, true
	}
	if prefixed || (line[j] != ' ' && line[j] != '\t') {
		return 0, false
	}
	k := j
	for k < len(line) && line[k] == ' ' {
		k++
	}
	sp := k - j
	if !token(k, 2) {
		return 0, false
	}
	switch {
	case d >= 7 && sp == 2:
		return dumpHexdumpC, true
	case d >= 6 && sp == 1:
		return dumpOD, true
	case d <= 8 && sp >= 2:
		return dumpWireshark, true
	}
	return 0, false
}

// parseDump parses the hex dump in src[lo:hi]. Offsets must follow on from
// one line to the next; a '*' line repeats the previous line's bytes up to
// the next line's offset, adding at most repeatLimit bytes in all. An
// offset-only line (as hexdump and od print last) ends the dump and must
// equal the end of the data.
//
// validated reports whether the text is certainly a dump rather than hex
// that happens to start like one: it has colon offsets (xxd, tcpdump), an
// ASCII column, a final offset line, more than one data line, or
// Wireshark's three spaces after the offset.
func parseDump(t text, lo, hi int, kind dumpKind, repeatLimit int) (out []byte, validated bool, err error) {
	p := &dumpParser{t: t, kind: kind, what: kind.what(), repeatLimit: repeatLimit, star: -1, ended: -1}
	p.out = make([]byte, 0, (hi-lo)/3+1)
	p.validated = kind == dumpXXD || kind == dumpTcpdump
	s := t.src
	for ls := lo; ls < hi; {
		le := ls
		for le < hi && s[le] != '\n' {
			le++
		}
		next := le + 1
		for le > ls && isSpace(s[le-1]) {
			le--
		}
		i := ls
		for i < le && isSpace(s[i]) {
			i++
		}
		if i < le {
			if err := p.line(i, le); err != nil {
				return nil, false, err
			}
		}
		ls = next
	}
	if p.star >= 0 {
		return nil, false, t.errAt(p.star, ErrDump, "'*' repeat line without a following offset line in "+p.what)
	}
	if !p.started {
		return nil, false, t.errAt(lo, ErrDump, "no data in "+p.what)
	}
	return p.out, p.validated || p.dataLines > 1, nil
}

// dumpParser is parseDump's state from line to line.
type dumpParser struct {
	t           text
	kind        dumpKind
	what        string // the dump's name, for errors
	repeatLimit int

	out       []byte
	validated bool
	dataLines int
	started   bool
	pos       uint64 // offset the next line should have
	prevFrom  int    // out[prevFrom:] holds the previous line's bytes
	star      int    // offset of a pending '*' line, or -1
	ended     int    // offset of the final offset-only line, or -1
	repeated  int    // bytes added for '*' lines
	trailer   bool   // a trailing line was skipped
}

// line reads the non-blank line s[i:le] (trimmed): a '*' repeat line, an
// offset-only final line, or an offset and its bytes.
func (p *dumpParser) line(i, le int) error {
	s, t, what := p.t.src, p.t, p.what
	if p.ended >= 0 {
		// One trailing line that is not dump data (a shell prompt)
		// is ignored.
		if !isHexDigit(s[i]) && !p.trailer {
			p.trailer = true
			return nil
		}
		return t.errAt(i, ErrDump, "data after the final offset line of the "+what)
	}
	if s[i] == '*' && i+1 == le {
		if !p.started {
			return t.errAt(i, ErrDump, "'*' repeat line before any data in "+what)
		}
		if p.star >= 0 {
			return t.errAt(i, ErrDump, "two '*' repeat lines in a row in "+what)
		}
		p.star = i
		return nil
	}
	off, offAt, j, err := p.offset(i, le)
	if err != nil {
		return err
	}

	// Bytes on this line: count them first, to check the offset.
	a := j
	for a < le && (s[a] == ' ' || s[a] == '\t') {
		a++
	}
	if a == le && !p.started {
		// An offset-only line ends the data; there must be some.
		return t.errAt(offAt, ErrDump, "offset line without data in "+what)
	}
	areaEnd := dumpAreaEnd(s, a, le, p.kind)
	if areaEnd < le {
		p.validated = true // an ASCII column
	}
	if !p.started && p.kind == dumpWireshark && a-j >= 3 {
		p.validated = true // Wireshark's three spaces after the offset
	}
	if err := p.follow(off, offAt); err != nil {
		return err
	}
	if a == le {
		p.ended = offAt
		p.validated = true
		return nil
	}
	n, err := p.bytes(a, areaEnd, le)
	if err != nil {
		return err
	}
	if p.pos+uint64(n) < p.pos {
		return t.errAt(offAt, ErrDump, "offset overflows in "+what)
	}
	p.pos += uint64(n)
	p.dataLines++
	return nil
}

// offset reads the offset at the start of a line: its value, where it
// starts, and where what follows it starts (after xxd's and tcpdump's ':').
func (p *dumpParser) offset(i, le int) (off uint64, offAt, j int, err error) {
	s, t, what := p.t.src, p.t, p.what
	if p.kind == dumpTcpdump {
		if !(i+1 < le && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X')) {
			return 0, 0, 0, t.errAt(i, ErrDump, "expected a 0x offset at the start of a "+what+" line")
		}
		i += 2
	}
	j = hexRun(s, i, le)
	if j == i {
		return 0, 0, 0, t.errAt(i, ErrDump, "expected an offset at the start of a "+what+" line, found "+t.charAt(i))
	}
	if j-i > 16 {
		return 0, 0, 0, t.errAt(i, ErrDump, "offset "+quoteToken(s[i:j])+" is too large")
	}
	for k := i; k < j; k++ {
		off = off<<4 | uint64(hexVal(s[k]))
	}
	if p.kind == dumpXXD || p.kind == dumpTcpdump {
		if j == le || s[j] != ':' {
			return 0, 0, 0, t.errAt(j, ErrDump, "expected ':' after the offset in "+what+", found "+t.charAt(j))
		}
		j++
	} else if j < le && s[j] != ' ' && s[j] != '\t' {
		return 0, 0, 0, t.badChar(j, what+" offset")
	}
	return off, i, j, nil
}

// follow checks that a line's offset continues the data (the first sets
// it), expanding a pending '*' line into copies of the previous line.
func (p *dumpParser) follow(off uint64, offAt int) error {
	t, what := p.t, p.what
	switch {
	case !p.started:
		p.started = true
		p.pos = off
	case p.star >= 0:
		L := uint64(len(p.out) - p.prevFrom)
		if off < p.pos || L == 0 || (off-p.pos)%L != 0 {
			return t.errAt(offAt, ErrDump, "offset 0x"+strconv.FormatUint(off, 16)+
				" does not continue the '*' repeat of the line at 0x"+strconv.FormatUint(p.pos-L, 16)+" in "+what)
		}
		gap := off - p.pos
		if gap > uint64(p.repeatLimit-p.repeated) {
			return t.errAt(p.star, ErrTooLarge, "'*' repeat line would add "+strconv.FormatUint(gap, 10)+
				" bytes, more than the limit of "+strconv.Itoa(p.repeatLimit))
		}
		line := p.out[p.prevFrom:]
		for k := uint64(0); k < gap/L; k++ {
			p.out = append(p.out, line...)
		}
		p.repeated += int(gap)
		p.pos = off
		p.star = -1
	case off != p.pos:
		return t.errAt(offAt, ErrDump, "offset 0x"+strconv.FormatUint(off, 16)+
			" does not follow the previous line (expected 0x"+strconv.FormatUint(p.pos, 16)+") in "+what)
	}
	return nil
}

// bytes appends the hex bytes of s[a:areaEnd] and returns how many there
// were, checking that the ASCII column after them (to le) is no longer
// than they are.
func (p *dumpParser) bytes(a, areaEnd, le int) (int, error) {
	s, t, what, kind := p.t.src, p.t, p.what, p.kind
	from := len(p.out)
	for k := a; k < areaEnd; {
		if s[k] == ' ' || s[k] == '\t' {
			k++
			continue
		}
		e := hexRun(s, k, areaEnd)
		if e < areaEnd && s[e] != ' ' && s[e] != '\t' {
			return 0, t.badChar(e, what)
		}
		n := e - k
		if n%2 != 0 || (n != 2 && (kind == dumpHexdumpC || kind == dumpOD || kind == dumpWireshark)) {
			msg := "odd number of hex digits"
			if n%2 == 0 {
				msg = "expected 2 hex digits per byte"
			}
			return 0, t.errAt(k, ErrOddDigits, msg+" in "+quoteToken(s[k:e])+" in "+what)
		}
		for ; k < e; k += 2 {
			p.out = append(p.out, hexVal(s[k])<<4|hexVal(s[k+1]))
		}
	}
	n := len(p.out) - from
	if n == 0 {
		return 0, t.errAt(a, ErrDump, "no hex bytes after the offset in "+what)
	}
	// The ASCII column, when it is not delimited, can be no longer
	// than the bytes (plus a space every 8, as some viewers print);
	// if it is, part of the hex was taken for ASCII.
	if kind == dumpXXD || kind == dumpTcpdump || kind == dumpWireshark {
		c := areaEnd
		for c < le && (s[c] == ' ' || s[c] == '\t') {
			c++
		}
		if utf8.RuneCount(s[c:le]) > n+n/8 { // allow a mid-line space
			return 0, t.errAt(c, ErrDump, "ASCII column is longer than the "+strconv.Itoa(n)+
				" bytes on the line in "+what)
		}
	}
	p.prevFrom = from
	return n, nil
}

// dumpAreaEnd returns the end of the hex area of a dump line whose hex
// starts at s[a] and whose line ends at le: where the ASCII column starts.
func dumpAreaEnd(s []byte, a, le int, kind dumpKind) int {
	switch kind {
	case dumpHexdumpC, dumpOD:
		delim := byte('|')
		if kind == dumpOD {
			delim = '>'
		}
		for k := a; k < le; k++ {
			if s[k] == delim {
				return k
			}
		}
		return le
	}
	// Undelimited ASCII: it starts after a gap of two (xxd, tcpdump) or
	// three (Wireshark, which may have a two-space gap mid-line) spaces.
	gap := 2
	if kind == dumpWireshark {
		gap = 3
	}
	for k := a; k < le; k++ {
		if s[k] == '\t' {
			return k
		}
		if s[k] == ' ' {
			e := k
			for e < le && s[e] == ' ' {
				e++
			}
			if e-k >= gap {
				return k
			}
			k = e - 1
		}
	}
	return le
}
