package input

import (
	"bytes"
	"errors"
	"strconv"
	"time"
)

// ErrNoPackets is the error ParsePackets returns (wrapped in an *Error)
// for a text that holds no hex dump of a whole TCP/IP packet.
var ErrNoPackets = errors.New("no packet dumps")

// TimeForm says how a dump of packets gives their times.
type TimeForm int

const (
	// NoTimes: no line before the packets' dumps gives a time (tshark -x,
	// Wireshark's "Copy as Hex Dump", tcpdump -t), or not every one does.
	NoTimes TimeForm = iota
	// TimeOfDay: times of day without a date ("10:00:00.000001",
	// tcpdump's default, tshark -t a); ParsePackets dates them
	// 1970-01-01, the next day after a time that goes back by more than
	// twelve hours (midnight).
	TimeOfDay
	// DateTime: a date and a time of day ("2024-05-01 10:00:00.000001",
	// tcpdump -tttt, tshark -t ad).
	DateTime
	// Seconds: seconds with a fraction ("1714557600.000001"), since the
	// epoch (tcpdump -tt, tshark -t e) or since the first packet (the
	// default of tshark -P).
	Seconds
	// Deltas: each packet's time since the packet before (tcpdump -ttt,
	// tshark -t d), in either of the forms above: the first is zero and
	// a later one is smaller than the one before it, which neither a
	// clock nor a time since the first packet can be. ParsePackets adds
	// them up from 1970-01-01. Deltas that never go down (a capture that
	// keeps one pace) cannot be told from times since the first packet,
	// and are read as those.
	Deltas
)

// DumpPacket is one packet of a text dump of packets.
type DumpPacket struct {
	// Data is the packet's bytes as the dump shows them, from its first
	// header (a link header, or its IP header).
	Data []byte
	// Time is when it was captured, as written before its dump (in no
	// time zone: taken as UTC); zero unless every packet has one
	// (PacketDump.Times).
	Time time.Time
	// LinkType is the pcap LINKTYPE_ value of its first header, as
	// StripPacket finds it (Packet.LinkType); a packet StripPacket does
	// not read (not TCP, not IP) takes that of the first packet it does,
	// as a dump holds the packets of one capture.
	LinkType int
}

// PacketDump is what ParsePackets found in a text.
type PacketDump struct {
	// Packets are the packets in the order of their dumps.
	Packets []DumpPacket
	// Format is the shape of the dumps (FormatWireshark for tshark -x,
	// FormatTcpdump for tcpdump -X, ...): the first dump's.
	Format Format
	// Times says how the packets' times were given.
	Times TimeForm
	// Other counts the dumps of other data sources left out: tshark -x
	// prints a packet's reassembled or decompressed data after it, under
	// a heading such as "Reassembled TCP (36 bytes):".
	Other int
}

// Name names the dump for a person: "a text dump of 23 packets (tshark
// -x or Wireshark's Copy as Hex Dump)".
func (d *PacketDump) Name() string { return dumpName(len(d.Packets), d.Format) }

// dumpName names a text dump of n packets (n < 0: not yet counted) in
// format f.
func dumpName(n int, f Format) string {
	s := "a text dump of " + strconv.Itoa(n) + " packets"
	switch {
	case n == 1:
		s = "a text dump of 1 packet"
	case n < 0:
		s = "a text dump of packets"
	}
	switch f {
	case FormatWireshark:
		return s + " (tshark -x or Wireshark's Copy as Hex Dump)"
	case FormatTcpdump:
		return s + " (tcpdump -X)"
	case FormatXXD:
		return s + " (xxd)"
	case FormatHexdumpC:
		return s + " (hexdump -C)"
	case FormatOD:
		return s + " (od)"
	case FormatFollow:
		return "a followed TCP stream (tshark -z follow, Wireshark's Follow TCP Stream), made " + strconv.Itoa(n) + " packets"
	}
	return s
}

// TimesNote says what the packets' times are, read as a capture, where
// the dump gave none or no date ("" where it gave them whole): "it gives
// no times, so each packet is given one a millisecond after the last:
// times and latencies mean nothing".
func (d *PacketDump) TimesNote() string {
	switch d.Times {
	case NoTimes:
		return "it gives no times, so each packet is given one a millisecond after the last: times and latencies mean nothing"
	case TimeOfDay:
		return "its times are times of day, dated 1970-01-01"
	case Deltas:
		return "its times are each packet's time since the one before (tcpdump -ttt, tshark -t d), added up from 1970-01-01"
	}
	return ""
}

// ParsePackets reads a text holding the hex dumps of one or more whole
// captured packets, one after another, as text2pcap would: tshark -x (its
// "Frame (N bytes):" headings followed, the dumps under other headings
// left out), tcpdump -X and -XX (each dump after its packet line), several
// packets copied from Wireshark "as Hex Dump", or any of the dump shapes
// Parse reads (xxd, hexdump -C, od). A packet's dump starts at offset 0,
// and ends where the next starts again at 0 or at a line that is no dump
// line (a blank line does not end it). Lines between the dumps are skipped;
// the first of them that starts with a time (tcpdump's packet line:
// "10:00:00.000001 IP ...", with -tttt a date before it, with -tt
// seconds; tshark -P's summary line, its frame number first; tshark -V's
// "Epoch Time:") gives the time of the packet after it.
//
// It returns an *Error wrapping ErrNoPackets when no dump in the text is
// a whole TCP/IP packet (StripPacket), and another *Error, with its
// position, for a dump that is malformed. UTF-16 text (with its byte
// order mark) is read as Parse reads it.
//
// Memory follows the text, never a size it declares: the packets' bytes
// are at most half of it ('*' repeat lines may add no more than its own
// length), and each packet needs a line of its own (a text of one-byte
// packets, the worst case, costs some 12 bytes a byte of text).
func ParsePackets(data []byte) (*PacketDump, error) {
	if t, ok := fromUTF16(data); ok && !looksBinary(t) {
		data = t
	}
	if followStart(data) {
		return parseFollow(data)
	}
	s := newPacketScanner(data)
	if err := s.scan(); err != nil {
		return nil, err
	}
	return s.result()
}

func newPacketScanner(data []byte) *packetScanner {
	return &packetScanner{t: text{src: data}, lastTime: -1, form: -1, badStart: -1, repeatLimit: len(data)}
}

// scan reads every line of the text, the dumps' packets into s.out.
func (s *packetScanner) scan() error {
	// Lines that are not dumps may hold anything (tshark -V prints
	// control bytes that a packet holds), so the text is not refused
	// for them.
	data := s.t.src
	for ls := BOMLen(data); ls < len(data); {
		le := ls
		for le < len(data) && data[le] != '\n' {
			le++
		}
		next := le + 1
		for le > ls && isSpace(data[le-1]) {
			le--
		}
		i := ls
		for i < le && isSpace(data[i]) {
			i++
		}
		if i < le {
			if err := s.line(i, le); err != nil {
				return err
			}
		}
		ls = next
	}
	return s.endBlock()
}

// packetScanner is ParsePackets' state from line to line.
type packetScanner struct {
	t           text
	repeatLimit int
	out         []byte // every packet's bytes, one after another

	p        dumpParser // the dump being read, when in is set
	in       bool
	from     int  // where its bytes start in out
	other    bool // it is a dump of another data source (a heading said so)
	badStart int  // where a dump started past offset 0, or -1

	// Since the last dump ended: the time of the first line that gave
	// one, and whether the last text line was a heading of tshark -x.
	gapTime  time.Time
	gapForm  TimeForm
	lastTime int // line offset of gapTime's line, or -1
	heading  int // 0 none, 1 "Frame (N bytes):", 2 another data source

	ends   []int       // where each packet's bytes end in out (each starts where the last ended)
	times  []time.Time // each packet's, while every one has one of the same form
	format Format
	nOther int
	form   TimeForm // the first packet's, -1 before it
	mixed  bool     // a packet without a time, or with another form
	// each is every packet's own time and its form (NoTimes: none), kept
	// with keepEach for a PacketStream, which judges the times packet by
	// packet.
	each     []stamp
	keepEach bool
	// carry starts a dump of carryKind at the first line, when it is no
	// dump of its own layout (PacketStream: a chunk that goes on in the
	// layout of the chunk before).
	carry     bool
	carryKind dumpKind
}

// stamp is the time a line gave before a packet's dump, and its form.
type stamp struct {
	tm   time.Time
	form TimeForm
}

// line reads the non-blank line s[i:le] (trimmed).
func (s *packetScanner) line(i, le int) error {
	src := s.t.src
	if s.in {
		off, ok := dumpLineStart(src, i, le, s.p.kind, false)
		if !ok && s.p.started {
			// An offset of fewer than 4 digits goes on with the dump
			// only where it follows it (as Parse reads it): tshark -P's
			// summary lines start with a frame number.
			off, ok = dumpLineStart(src, i, le, s.p.kind, true)
			ok = ok && off == s.p.pos && s.p.ended < 0
		}
		if ok {
			// Nor is a line that starts with a time, as tshark -P's
			// summary line does after its frame number, a dump's, even
			// where that number is the offset the dump's next line
			// would have (78 after a line of 8 bytes at 0x70), or has
			// 4 digits: no dump line reads as a time.
			_, _, isTime := lineTime(src[i:le])
			ok = !isTime
		}
		if ok {
			if off == 0 && src[i] != '*' && s.p.started && (s.p.pos > 0 || s.p.ended >= 0) {
				// A dump that starts again at 0: the next packet's,
				// in its own layout, else in this one's.
				kind, ok := detectDump(src[i:le])
				if !ok {
					kind = s.p.kind
				}
				if err := s.endBlock(); err != nil {
					return err
				}
				return s.startBlock(i, le, kind)
			}
			return s.p.line(i, le)
		}
		if err := s.endBlock(); err != nil {
			return err
		}
	}
	kind, ok := detectDump(src[i:le])
	if !ok && s.carry {
		// A PacketStream's text that starts again at offset 0 in the
		// layout of the dump before it, as the next dump does here.
		kind, ok = s.carryKind, true
	}
	s.carry = false
	if ok {
		if off, _ := dumpLineStart(src, i, le, kind, false); off != 0 && s.badStart < 0 {
			s.badStart = i
		}
		return s.startBlock(i, le, kind)
	}
	// A line between dumps.
	line := src[i:le]
	switch h := headingOf(line); {
	case h == "Frame":
		s.heading = 1
	case h != "":
		s.heading = 2
	default:
		s.heading = 0
	}
	if s.lastTime < 0 {
		if tm, form, ok := lineTime(line); ok {
			s.gapTime, s.gapForm, s.lastTime = tm, form, i
		}
	}
	return nil
}

// startBlock starts a dump at the line s[i:le], of layout kind.
func (s *packetScanner) startBlock(i, le int, kind dumpKind) error {
	if s.out == nil {
		s.out = make([]byte, 0, len(s.t.src)/3+1)
	}
	s.p = dumpParser{t: s.t, kind: kind, what: kind.what(), repeatLimit: s.repeatLimit, star: -1, ended: -1,
		out: s.out, repeated: s.p.repeated}
	s.in, s.from, s.other = true, len(s.out), s.heading == 2
	if s.format == "" {
		s.format = kind.format()
	}
	return s.p.line(i, le)
}

// endBlock ends the dump being read, if any: a packet, or another data
// source's bytes, dropped.
func (s *packetScanner) endBlock() error {
	if !s.in {
		return nil
	}
	s.in = false
	s.out = s.p.out
	if s.p.star >= 0 {
		return s.t.errAt(s.p.star, ErrDump, "'*' repeat line without a following offset line in "+s.p.what)
	}
	if s.other {
		s.out = s.out[:s.from]
		s.nOther++
	} else {
		s.ends = append(s.ends, len(s.out))
		if s.keepEach {
			st := stamp{}
			if s.lastTime >= 0 {
				st = stamp{s.gapTime, s.gapForm}
			}
			s.each = append(s.each, st)
		}
		switch {
		case s.mixed:
		case s.lastTime < 0 || (s.form >= 0 && s.gapForm != s.form):
			s.mixed, s.times = true, nil
		default:
			s.form = s.gapForm
			s.times = append(s.times, s.gapTime)
		}
	}
	s.lastTime, s.heading = -1, 0
	return nil
}

// packets are the packets read, each with the link type StripPacket
// finds (-1: not a TCP/IP packet it reads), and the first such link
// type (-1: none).
func (s *packetScanner) packets() ([]DumpPacket, int) {
	ps := make([]DumpPacket, len(s.ends))
	link, from := -1, 0
	for k, end := range s.ends {
		b := s.out[from:end:end]
		from = end
		ps[k] = DumpPacket{Data: b, LinkType: -1}
		if _, p, ok := StripPacket(b); ok {
			ps[k].LinkType = p.LinkType()
			if link < 0 {
				link = p.LinkType()
			}
		}
	}
	return ps, link
}

// startErr is the error of a dump that did not start at offset 0, or nil.
func (s *packetScanner) startErr() error {
	if s.badStart < 0 {
		return nil
	}
	return s.t.errAt(s.badStart, ErrDump, "a packet's dump starts at offset 0, and this one does not")
}

// result makes the PacketDump of the packets read.
func (s *packetScanner) result() (*PacketDump, error) {
	d := &PacketDump{Format: s.format, Other: s.nOther}
	var link int
	d.Packets, link = s.packets()
	if link < 0 {
		return nil, s.t.errAt(-1, ErrNoPackets, "no hex dump of a whole TCP/IP packet")
	}
	if err := s.startErr(); err != nil {
		return nil, err
	}
	for k := range d.Packets {
		if d.Packets[k].LinkType < 0 {
			d.Packets[k].LinkType = link
		}
	}
	if !s.mixed && s.form != NoTimes {
		d.Times = s.form
		if s.form != DateTime && areDeltas(s.times) {
			d.Times = Deltas
		}
		day := time.Duration(0)
		var prev time.Time
		for k, tm := range s.times {
			switch {
			case d.Times == Deltas && k > 0:
				tm = prev.Add(tm.Sub(time.Unix(0, 0)))
			case d.Times == TimeOfDay:
				// Past midnight, the time of day starts again.
				if k > 0 && tm.Add(day).Before(prev.Add(-12*time.Hour)) {
					day += 24 * time.Hour
				}
				tm = tm.Add(day)
			}
			d.Packets[k].Time, prev = tm, tm
		}
	}
	return d, nil
}

// areDeltas reports whether times, read as times of day or as seconds,
// are each packet's time since the one before (Deltas): the first is
// zero (1970-01-01 00:00:00 as read) and a later one is smaller than the
// one before it.
func areDeltas(times []time.Time) bool {
	if len(times) == 0 || !times[0].Equal(time.Unix(0, 0)) {
		return false
	}
	for k := 1; k < len(times); k++ {
		if times[k].Before(times[k-1]) {
			return true
		}
	}
	return false
}

// dumpLineStart reports whether the line s[i:le] starts as a line of a
// dump of layout kind does (its offset, or a '*' repeat line), and the
// offset: of 4 to 16 digits, or of 1 to 16 with short set.
func dumpLineStart(s []byte, i, le int, kind dumpKind, short bool) (uint64, bool) {
	if s[i] == '*' {
		return 0, i+1 == le
	}
	if kind == dumpTcpdump {
		if !(i+1 < le && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X')) {
			return 0, false
		}
		i += 2
	}
	j := hexRun(s, i, le)
	if j-i < 4 && !(short && j > i) || j-i > 16 {
		return 0, false
	}
	switch kind {
	case dumpXXD, dumpTcpdump:
		if j == le || s[j] != ':' {
			return 0, false
		}
	default:
		if j < le && s[j] != ' ' && s[j] != '\t' {
			return 0, false
		}
	}
	var off uint64
	for k := i; k < j; k++ {
		off = off<<4 | uint64(hexVal(s[k]))
	}
	return off, true
}

// headingOf returns NAME of a line "NAME (N bytes):", as tshark -x heads
// each data source's dump when a packet has more than one; "" for any
// other line.
func headingOf(line []byte) string {
	if !bytes.HasSuffix(line, []byte(" bytes):")) {
		return ""
	}
	rest := line[:len(line)-len(" bytes):")]
	open := bytes.LastIndexByte(rest, '(')
	if open < 2 || rest[open-1] != ' ' || open+1 == len(rest) {
		return ""
	}
	for _, c := range rest[open+1:] {
		if c < '0' || c > '9' {
			return ""
		}
	}
	return string(rest[:open-1])
}

// lineTime reads the time a line between dumps starts with: tcpdump's
// packet line ("10:00:00.000001 IP ...", "2024-05-01 10:00:00.000001
// IP ...", "1714557600.000001 IP ..."), tshark -P's summary line (its
// frame number first), or tshark -V's "Epoch Time: N seconds".
func lineTime(line []byte) (time.Time, TimeForm, bool) {
	if rest, ok := bytes.CutPrefix(line, []byte("Epoch Time: ")); ok {
		if tm, form, n := timeAt(rest); n > 0 && form == Seconds {
			return tm, form, true
		}
		return time.Time{}, NoTimes, false
	}
	if tm, form, n := timeAt(line); n > 0 {
		return tm, form, true
	}
	// A frame number first (tshark -P).
	k := 0
	for k < len(line) && k < 10 && '0' <= line[k] && line[k] <= '9' {
		k++
	}
	if k == 0 || k == len(line) || (line[k] != ' ' && line[k] != '\t') {
		return time.Time{}, NoTimes, false
	}
	for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
		k++
	}
	if tm, form, n := timeAt(line[k:]); n > 0 {
		return tm, form, true
	}
	return time.Time{}, NoTimes, false
}

// timeAt reads a time at the start of b, followed by a blank or the end:
// "HH:MM:SS[.frac]", "YYYY-MM-DD HH:MM:SS[.frac]" or "S.frac" (up to 12
// digits of seconds, 1 to 9 of fraction). n is how many bytes it took, 0
// for none.
func timeAt(b []byte) (tm time.Time, form TimeForm, n int) {
	digits := func(at, w int) (int, bool) {
		if at+w > len(b) {
			return 0, false
		}
		v := 0
		for _, c := range b[at : at+w] {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	// frac reads ".ddd" at b[at:], returning nanoseconds and the end.
	frac := func(at int, need bool) (int, int, bool) {
		if at >= len(b) || b[at] != '.' {
			return 0, at, !need
		}
		ns, k := 0, at+1
		for k < len(b) && k-at-1 < 9 && '0' <= b[k] && b[k] <= '9' {
			ns = ns*10 + int(b[k]-'0')
			k++
		}
		if k == at+1 || (k < len(b) && '0' <= b[k] && b[k] <= '9') {
			return 0, at, false
		}
		for w := k - at - 1; w < 9; w++ {
			ns *= 10
		}
		return ns, k, true
	}
	ends := func(at int) bool { return at == len(b) || b[at] == ' ' || b[at] == '\t' }
	clock := func(at int) (h, m, s, ns, end int, ok bool) {
		var ok1, ok2, ok3 bool
		h, ok1 = digits(at, 2)
		m, ok2 = digits(at+3, 2)
		s, ok3 = digits(at+6, 2)
		if !ok1 || !ok2 || !ok3 || b[at+2] != ':' || b[at+5] != ':' || h > 23 || m > 59 || s > 60 {
			return 0, 0, 0, 0, 0, false
		}
		ns, end, ok = frac(at+8, false)
		return h, m, s, ns, end, ok && ends(end)
	}
	if y, ok := digits(0, 4); ok && len(b) > 10 && b[4] == '-' && b[7] == '-' && b[10] == ' ' {
		mo, ok1 := digits(5, 2)
		d, ok2 := digits(8, 2)
		if !ok1 || !ok2 || mo < 1 || mo > 12 || d < 1 || d > 31 {
			return time.Time{}, NoTimes, 0
		}
		h, m, s, ns, end, ok := clock(11)
		if !ok {
			return time.Time{}, NoTimes, 0
		}
		return time.Date(y, time.Month(mo), d, h, m, s, ns, time.UTC), DateTime, end
	}
	if len(b) >= 8 && b[2] == ':' {
		h, m, s, ns, end, ok := clock(0)
		if !ok {
			return time.Time{}, NoTimes, 0
		}
		return time.Date(1970, 1, 1, h, m, s, ns, time.UTC), TimeOfDay, end
	}
	k := 0
	var sec int64
	for k < len(b) && k < 12 && '0' <= b[k] && b[k] <= '9' {
		sec = sec*10 + int64(b[k]-'0')
		k++
	}
	if k == 0 {
		return time.Time{}, NoTimes, 0
	}
	ns, end, ok := frac(k, true)
	if !ok || !ends(end) {
		return time.Time{}, NoTimes, 0
	}
	return time.Unix(sec, int64(ns)).UTC(), Seconds, end
}

// LinkType is the pcap LINKTYPE_ value of the link header p.Link names:
// 1 Ethernet, 113 Linux cooked (SLL), 276 Linux cooked v2 (SLL2), 0 BSD
// loopback (null), 101 none (raw IP).
func (p Packet) LinkType() int {
	switch p.Link {
	case "Ethernet":
		return 1
	case "Linux cooked (SLL)":
		return 113
	case "Linux cooked v2 (SLL2)":
		return 276
	case "loopback (null)":
		return 0
	}
	return 101
}

// String names the form, as the CLI says it.
func (f TimeForm) String() string {
	switch f {
	case NoTimes:
		return "no times"
	case TimeOfDay:
		return "times of day"
	case DateTime:
		return "dates and times"
	case Seconds:
		return "seconds"
	case Deltas:
		return "times since the packet before"
	}
	return "TimeForm(" + strconv.Itoa(int(f)) + ")"
}

// MaybePackets says, cheaply and without reading any dump, whether data
// may be a text of several packets' dumps (ParsePackets): two or more of
// its lines start a dump at offset 0 ("0000  02 00", "0x0000:  4500",
// "00000000: 0000"), as no single dump's lines do. Only ParsePackets
// says whether they are dumps of packets; the playground's main module,
// which leaves ParsePackets to the capture module, asks this when a text
// is no frame.
func MaybePackets(data []byte) bool {
	if t, ok := fromUTF16(data); ok {
		data = t
	}
	if followStart(data) {
		return true
	}
	n := 0
	for ls := 0; ls < len(data); {
		le := bytes.IndexByte(data[ls:], '\n')
		if le < 0 {
			le = len(data)
		} else {
			le += ls
		}
		if zeroOffset(data[ls:le]) {
			if n++; n == 2 {
				return true
			}
		}
		ls = le + 1
	}
	return false
}

// zeroOffset says whether line starts as a dump's first line does: an
// offset of at least four zeros (0x before them, a colon after them, or
// neither), then a blank and more.
func zeroOffset(line []byte) bool {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	if len(line) >= i+2 && line[i] == '0' && line[i+1] == 'x' {
		i += 2
	}
	z := i
	for i < len(line) && line[i] == '0' {
		i++
	}
	if i-z < 4 {
		return false
	}
	if i < len(line) && line[i] == ':' {
		i++
	}
	if i >= len(line) || line[i] != ' ' && line[i] != '\t' {
		return false
	}
	return len(bytes.TrimSpace(line[i:])) > 0
}
