package input

import (
	"bytes"
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
	dumpWords                         // "0000000 0000 2500 ..." (hexdump, od -x: little-endian 16-bit words)
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
	case dumpWords:
		return FormatWords
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
	case dumpWords:
		return "dump of 16-bit words (hexdump, od -x)"
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
	end := len(b)
	if nl := bytes.IndexByte(b[i:], '\n'); nl >= 0 {
		end = i + nl
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
	d := hexRun(line, j, min(len(line), j+17)) - j // an offset has 16 digits at most
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
	if d >= 6 && (sp == 1 || sp == 4 && d == 7) && token(k, 4) {
		// hexdump without -C (and -x, its words 4 spaces apart), od
		// -x: 16-bit words in the host's (little-endian) order.
		return dumpWords, true
	}
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
	out, validated, atStar, err := parseDumpRadix(t, lo, hi, kind, repeatLimit, 0)
	if err != nil && atStar != 0 {
		// The radix was chosen at a '*' line that more than one radix
		// could continue, and a later line says it was the wrong one:
		// the others, in turn.
		for _, r := range [...]uint64{8, 10, 16} {
			if r != atStar {
				if o, v, _, e := parseDumpRadix(t, lo, hi, kind, repeatLimit, r); e == nil {
					return o, v, nil
				}
			}
		}
	}
	return out, validated, err
}

// parseDumpRadix is parseDump with od's and the word dumps' offsets read
// in radix (8, 10 or 16), or, with 0, in the radix in which the second
// offset follows the first (see dumpParser.radix). atStar is the radix
// chosen at a '*' line that another radix could have continued too.
func parseDumpRadix(t text, lo, hi int, kind dumpKind, repeatLimit int, radix uint64) (out []byte, validated bool, atStar uint64, err error) {
	p := &dumpParser{t: t, kind: kind, what: kind.what(), repeatLimit: repeatLimit, star: -1, ended: -1, radix: radix}
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
				return nil, false, p.atStar, err
			}
		}
		ls = next
	}
	if p.star >= 0 {
		return nil, false, p.atStar, t.errAt(p.star, ErrDump, "'*' repeat line without a following offset line in "+p.what)
	}
	if !p.started {
		return nil, false, p.atStar, t.errAt(lo, ErrDump, "no data in "+p.what)
	}
	return p.out, p.validated || p.dataLines > 1, p.atStar, nil
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

	// radix is the base od's and the word dumps' offsets are in (od
	// prints octal by default, decimal with -A d, hex with -A x;
	// hexdump hex); every other dump's are hex. 0 while not known: the
	// first line's offset is kept (first, firstEnd) and pos counts the
	// bytes after it, until a line's offset follows in one radix
	// (tried hex, octal, decimal), which is then the dump's. Lines of
	// 16 bytes step by 0000020 in octal, 0000016 in decimal and
	// 0000010 in hex; the digits of a step below 10 read the same in
	// two or three (the same number then, so the bytes are the same in
	// each), and the next offsets tell them apart. A '*' line's repeats
	// may fill the gap to an offset read in more than one, and one is
	// chosen (atStar: the radix so chosen, which parseDump tries again
	// without when a later line says it was wrong).
	radix           uint64
	cands           uint8 // the radices still possible while radix is 0 (chooseRadix)
	first, firstEnd int
	atStar          uint64
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
	offAt, offEnd, j, err := p.offset(i, le)
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
	if p.kind == dumpXXD && xxdPushedGroup(s, j, a, le) {
		return p.littleEndian(a)
	}
	if err := p.follow(offAt, offEnd, a == le); err != nil {
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
	if p.kind == dumpXXD && xxdReversedGroups(s, a, areaEnd, le, p.out[len(p.out)-n:]) {
		return p.littleEndian(a)
	}
	if p.pos+uint64(n) < p.pos {
		return t.errAt(offAt, ErrDump, "offset overflows in "+what)
	}
	p.pos += uint64(n)
	p.dataLines++
	return nil
}

// offset reads the offset at the start of a line: where its digits start
// and end, and where what follows it starts (after xxd's and tcpdump's ':').
func (p *dumpParser) offset(i, le int) (offAt, offEnd, j int, err error) {
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
	offEnd = j
	if p.kind == dumpXXD || p.kind == dumpTcpdump {
		if j == le || s[j] != ':' {
			return 0, 0, 0, t.errAt(j, ErrDump, "expected ':' after the offset in "+what+", found "+t.charAt(j))
		}
		j++
	} else if j < le && s[j] != ' ' && s[j] != '\t' {
		return 0, 0, 0, t.badChar(j, what+" offset")
	}
	return i, offEnd, j, nil
}

// radixOf says whether the digits s[i:e] are a number in radix, and its
// value.
func radixOf(s []byte, i, e int, radix uint64) (uint64, bool) {
	var v uint64
	for k := i; k < e; k++ {
		d := uint64(hexVal(s[k]))
		if d >= radix || v > (1<<64-1-d)/radix {
			return 0, false
		}
		v = v*radix + d
	}
	return v, true
}

// formatOffset writes an offset as the dump's radix writes it.
func (p *dumpParser) formatOffset(v uint64) string {
	switch p.radix {
	case 8:
		return "0" + strconv.FormatUint(v, 8) + " (octal)"
	case 10:
		return strconv.FormatUint(v, 10) + " (decimal)"
	}
	return "0x" + strconv.FormatUint(v, 16)
}

// follow checks that a line's offset, the digits s[i:e], continues the
// data (the first sets it), expanding a pending '*' line into copies of
// the previous line. final says it is an offset-only line, which in a
// word dump may end the data a byte before the last word does (its
// padding).
func (p *dumpParser) follow(i, e int, final bool) error {
	t, what, s := p.t, p.what, p.t.src
	if p.radix == 0 && p.kind != dumpOD && p.kind != dumpWords {
		p.radix = 16
	}
	if !p.started {
		p.started = true
		p.first, p.firstEnd = i, e
		if p.radix == 0 && p.kind == dumpOD && e-i == 6 {
			p.radix = 16 // od -A x writes 6 digits, -A o and -A d 7
		}
		if p.radix != 0 {
			off, ok := radixOf(s, i, e, p.radix)
			if !ok {
				return t.errAt(i, ErrDump, "offset "+quoteToken(s[i:e])+" is no number in "+what)
			}
			p.pos = off
		}
		return nil
	}
	if p.radix == 0 {
		if !p.chooseRadix(i, e, final) {
			return t.errAt(i, ErrDump, "offset "+quoteToken(s[i:e])+" does not follow the previous line in "+what+
				" (expected "+strconv.FormatUint(p.pos, 10)+" bytes after the first line's offset "+
				quoteToken(s[p.first:p.firstEnd])+", in octal, decimal or hex)")
		}
		if p.radix == 0 {
			return nil // it follows in every radix still possible
		}
	}
	off, ok := radixOf(s, i, e, p.radix)
	if !ok {
		return t.errAt(i, ErrDump, "offset "+quoteToken(s[i:e])+" is no number in the radix of the offsets before it in "+what)
	}
	switch {
	case p.star >= 0:
		L := uint64(len(p.out) - p.prevFrom)
		if off < p.pos || L == 0 || (off-p.pos)%L != 0 {
			return t.errAt(i, ErrDump, "offset "+p.formatOffset(off)+
				" does not continue the '*' repeat of the line at "+p.formatOffset(p.pos-L)+" in "+what)
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
	case final && p.kind == dumpWords && off+1 == p.pos && len(p.out) > 0 && p.out[len(p.out)-1] == 0:
		// An odd number of bytes: the last word's high byte is padding.
		p.out = p.out[:len(p.out)-1]
		p.pos = off
	case off != p.pos:
		return t.errAt(i, ErrDump, "offset "+p.formatOffset(off)+
			" does not follow the previous line (expected "+p.formatOffset(p.pos)+") in "+what)
	}
	return nil
}

// chooseRadix narrows the radices od's or a word dump's offsets may be
// in (hex, octal, decimal: p.cands, a bit each, none set for all) to
// those in which the offset s[i:e] follows, counting pos bytes from the
// first line's offset (and, after a '*' line, the repeats), and says
// whether one was left. The radix is set when one is left, or at a '*'
// line or the final offset (the first of those left: after a final
// offset nothing is left to tell them apart); until then pos stays
// counted from the first offset, which every radix left reads so that
// the lines follow alike.
func (p *dumpParser) chooseRadix(i, e int, final bool) bool {
	s := p.t.src
	var fits []uint64
	var next uint8
	for k, r := range [...]uint64{16, 8, 10} {
		if p.cands != 0 && p.cands&(1<<k) == 0 {
			continue
		}
		first, ok1 := radixOf(s, p.first, p.firstEnd, r)
		off, ok2 := radixOf(s, i, e, r)
		if !ok1 || !ok2 || first > off || first+p.pos < first {
			continue
		}
		want, L := first+p.pos, uint64(len(p.out)-p.prevFrom)
		switch {
		case off == want,
			p.star >= 0 && off > want && L > 0 && (off-want)%L == 0,
			final && p.kind == dumpWords && off+1 == want:
			fits = append(fits, r)
			next |= 1 << k
		}
	}
	p.cands = next
	if len(fits) == 0 {
		return false
	}
	if len(fits) > 1 && p.star < 0 && !final {
		return true
	}
	p.radix = fits[0]
	first, _ := radixOf(s, p.first, p.firstEnd, p.radix)
	p.pos += first
	if p.star >= 0 && len(fits) > 1 {
		p.atStar = p.radix
	}
	return true
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
		if kind == dumpWords {
			if n != 4 {
				return 0, t.errAt(k, ErrOddDigits, "expected 4 hex digits per 16-bit word in "+quoteToken(s[k:e])+" in "+what)
			}
			// Little-endian: the low byte first.
			p.out = append(p.out, hexVal(s[k+2])<<4|hexVal(s[k+3]), hexVal(s[k])<<4|hexVal(s[k+1]))
			k = e
			continue
		}
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
	case dumpHexdumpC, dumpOD, dumpWords:
		delim := byte('|')
		if kind != dumpHexdumpC {
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

// littleEndian is the error for a dump xxd -e printed, found at s[i].
func (p *dumpParser) littleEndian(i int) error {
	return p.t.errAt(i, ErrDump, "a dump of little-endian words (xxd -e) is not read: each group's bytes are in reverse order; "+
		"use xxd, xxd -g 4 or xxd -p")
}

// lineRest is where the line of s holding le ends: past the trailing
// blanks a line is trimmed of, which xxd's ASCII column may end in (a
// space byte), before the line break.
func lineRest(s []byte, le int) int {
	for le < len(s) && (s[le] == ' ' || s[le] == '\t') {
		le++
	}
	return le
}

// xxdPushedGroup says whether the xxd line whose hex starts at s[a] (the
// offset's colon just before s[j]) has the layout of xxd -e's last line:
// its last group, short of the group size, pushed right (three spaces and
// more before it, where xxd puts one between groups), two spaces and an
// ASCII column of as many characters as the groups have bytes (some of
// them the spaces before it, when it starts with space bytes). xxd
// without -e writes one space after the colon and between groups, and its
// ASCII column after the first gap of two: a column read from after a
// later gap, even with every space before it, is shorter than the bytes
// before it, so no line of it has this layout.
func xxdPushedGroup(s []byte, j, a, le int) bool {
	k, gap, total := a, a-j, 0
	for k < le {
		e := hexRun(s, k, le)
		if e == k || e < le && s[e] != ' ' || (e-k)%2 != 0 {
			return false
		}
		total += (e - k) / 2
		c := e
		for c < le && s[c] == ' ' {
			c++
		}
		if gap >= 3 {
			// The pushed group: the ASCII column is next, the spaces
			// past two before it its own (space bytes) when it is
			// shorter than the bytes.
			n := lineRest(s, le) - c
			return c-e >= 2 && c < le && n <= total && n+c-e-2 >= total
		}
		if c-e == 2 || c == le {
			return false // the ASCII column, after groups laid out as xxd lays them
		}
		gap, k = c-e, c
	}
	return false
}

// xxdReversedGroups says whether the ASCII column of an xxd line (after
// its hex, s[a:areaEnd], to its end) shows each group's bytes reversed:
// it does not match the bytes read in order, out, and matches them with
// each group's bytes in reverse, as xxd -e prints them.
func xxdReversedGroups(s []byte, a, areaEnd, le int, out []byte) bool {
	c := areaEnd
	for c < le && (s[c] == ' ' || s[c] == '\t') {
		c++
	}
	col := s[c:lineRest(s, le)]
	if len(col) != len(out) {
		return false
	}
	shown := func(b, ch byte) bool {
		if b < 0x20 || b > 0x7e {
			return ch == '.'
		}
		return ch == b
	}
	inOrder := true
	for i, b := range out {
		if !shown(b, col[i]) {
			inOrder = false
			break
		}
	}
	if inOrder {
		return false
	}
	o := 0
	for k := a; k < areaEnd; {
		if s[k] == ' ' || s[k] == '\t' {
			k++
			continue
		}
		e := hexRun(s, k, areaEnd)
		m := (e - k) / 2
		for i := range m {
			if !shown(out[o+m-1-i], col[o+i]) {
				return false
			}
		}
		o, k = o+m, e
	}
	return true
}

// charDump says whether the line at b[i] (the text starting at b[start],
// the line ending by hi) is a line of od -c or hexdump -c: an offset, or
// none (od -A n), then a cell of four columns a byte: a character
// right-aligned ("   a", "    " for a space), an escape ("  \\0",
// "  \\n"), three octal digits (" 005") or "  **" (the rest of a
// character's UTF-8 bytes), and od -t cz's ">...<" after them. A cell
// that is a character or an escape must be there: a line of octal alone
// is od -b's.
func charDump(b []byte, start, i, hi int) bool {
	ls := i
	for ls > start && b[ls-1] != '\n' {
		ls--
	}
	le := hi
	if nl := bytes.IndexByte(b[i:hi], '\n'); nl >= 0 {
		le = i + nl
	}
	line := bytes.TrimRight(b[ls:le], " \t\r")
	off := hexRun(line, 0, min(len(line), 17))
	if off > 0 && (off < 6 || off > 16) {
		return false
	}
	k := off
	cells, chars := 0, 0
	for ; k+4 <= len(line); k += 4 {
		c := line[k : k+4]
		switch {
		case c[0] == ' ' && c[1] == ' ' && c[2] == ' ' && (c[3] == ' ' || c[3] > ' ' && c[3] < 0x7f):
			chars++
		case c[0] == ' ' && c[1] == ' ' && c[2] == '\\' && bytes.IndexByte([]byte("0abfnrtv"), c[3]) >= 0:
			chars++
		case c[0] == ' ' && c[1] == ' ' && c[2] == '*' && c[3] == '*':
		case c[0] == ' ' && isOctal(c[1]) && isOctal(c[2]) && isOctal(c[3]):
		case c[0] == ' ' && c[1] == ' ' && c[2] == '>':
			return (cells >= 2 || off > 0 && cells == 1) && chars > 0 && line[len(line)-1] == '<' // od -t cz
		default:
			return false
		}
		cells++
	}
	return (cells >= 2 || off > 0 && cells == 1) && chars > 0 && k == len(line)
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }
