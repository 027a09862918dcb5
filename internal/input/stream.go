package input

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"time"
)

// PacketStream reads a text dump of packets as it comes, as ParsePackets
// reads one whole: tcpdump -l -X piped into kwire pcap - shows each
// exchange while tcpdump runs. A packet is given as soon as its dump has
// ended: at the next line that is no line of it (the next packet's line
// or dump), or, when the text pauses with a dump open (the last packet of
// a burst), as soon as that dump holds a whole packet (StripPacket, no
// byte missing). Memory follows one packet's text, not the whole text.
//
// Times are judged packet by packet, where ParsePackets judges them
// across every packet, so two cases read differently:
//   - A first time of zero starts both times since the first packet
//     (tshark -P's default) and times since the one before (tcpdump -ttt,
//     tshark -t d), which only a later time that goes down tells apart:
//     the stream holds its first packets back until one does (times since
//     the one before, added up) or holdMax have not (times since the
//     first), or the text ends. A time that goes down after that is said
//     (WentDown), and read as the times before it were.
//   - A packet with no time, or one of another form, after packets with
//     times cannot take their times back: it and those after it are given
//     a millisecond after the packet before (Mixed says from which).
//
// A packet StripPacket does not read takes the link type of the last one
// it did, and is left out before there is one: no capture reader would
// read it.
type PacketStream struct {
	// Waiting, when set, is called once, with why, when the stream starts
	// reading the text to its end before it gives a packet (UTF-16 text).
	Waiting func(why string)

	lines chan []byte   // the text's lines, from the reading goroutine
	done  chan struct{} // closed by Close: the reading stops
	rerr  error         // the reading's error, set before lines closes
	idle  time.Duration

	chunk     []byte // the text since the last cut: lines between dumps, then a dump
	chunkOff  int    // where chunk starts in the text
	chunkLine int    // the number of its first line
	off, line int    // where the next line starts in the text, and its number
	kind      dumpKind
	inDump    bool // chunk's last line that is not blank is one of its dump's
	again     bool // chunk starts at offset 0 in the layout of the dump before it
	unsure    bool // a line of chunk's dump went on with it only by a short offset
	early     bool // that dump's packet is given already: the rest of the dump is dropped

	all    []byte // the text so far, until a packet is given (Text)
	judged bool
	ready  []DumpPacket
	ended  bool

	format Format
	form   TimeForm // how the text gives times: the first packet's form
	times  TimeForm // how they are read: form, or Deltas
	mixed  int      // the number (from 1) of the first packet given a time of its own, or 0
	// held are the first packets, and their times, while a first time of
	// zero leaves open whether they are deltas; wentDown is the number of
	// the first packet whose time went down after they were read as times
	// since the first.
	zeroFirst bool
	holding   bool
	held      []DumpPacket
	heldAt    []stamp
	wentDown  int
	other     int
	prev      time.Time
	day       time.Duration
	link      int
	n         int
}

// NewPacketStream reads the text dump r as it comes. idle is how long
// the text must pause before an open dump that holds a whole packet is
// given (0: never; the next line gives it).
func NewPacketStream(r io.Reader, idle time.Duration) *PacketStream {
	s := &PacketStream{lines: make(chan []byte, 256), done: make(chan struct{}), idle: idle,
		line: 1, chunkLine: 1, link: -1, prev: time.Unix(0, 0).UTC()}
	go s.read(r)
	return s
}

// read sends r's lines, each with its newline, until r ends or Close.
func (s *PacketStream) read(r io.Reader) {
	defer close(s.lines)
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		l, err := br.ReadBytes('\n')
		if len(l) > 0 {
			select {
			case s.lines <- l:
			case <-s.done:
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				s.rerr = err
			}
			return
		}
	}
}

// Close stops reading the text. The reader given to NewPacketStream is
// not closed: a read that blocks in it goes on until it returns.
func (s *PacketStream) Close() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
}

// Next returns the next packet, its Time set (a millisecond after the one
// before where the text gives none), or io.EOF after the last. An *Error
// says where the text is no dump; one wrapping ErrNoPackets, at the end,
// that it held no dump of a whole TCP/IP packet.
func (s *PacketStream) Next() (DumpPacket, error) {
	for len(s.ready) == 0 {
		if s.ended {
			return DumpPacket{}, io.EOF
		}
		if err := s.step(); err != nil {
			s.ended = true
			return DumpPacket{}, err
		}
	}
	p := s.ready[0]
	s.ready = s.ready[1:]
	return p, nil
}

// Format is the shape of the first dump (FormatTcpdump for tcpdump -X,
// ...), once a packet is given.
func (s *PacketStream) Format() Format { return s.format }

// Times says how the packets' times are read: as the first packet's was
// given, or Deltas, where a first time of zero was followed by one that
// went down.
func (s *PacketStream) Times() TimeForm { return s.times }

// Mixed is the number, from 1, of the first packet given a time a
// millisecond after the one before because its dump gave none, or one of
// another form, after packets with times; 0 when there is none.
func (s *PacketStream) Mixed() int { return s.mixed }

// Count is how many packets were given so far.
func (s *PacketStream) Count() int { return s.n }

// step takes the next line, or, when none comes for idle with a dump
// open, gives that dump's packet if it is whole.
func (s *PacketStream) step() error {
	var l []byte
	var ok bool
	select {
	case l, ok = <-s.lines:
	default:
		var tick <-chan time.Time
		if s.inDump && !s.early && s.idle > 0 {
			t := time.NewTimer(s.idle)
			defer t.Stop()
			tick = t.C
		}
		select {
		case l, ok = <-s.lines:
		case <-tick:
			return s.pause()
		}
	}
	if !ok {
		return s.end()
	}
	return s.take(l)
}

// take reads one line of the text.
func (s *PacketStream) take(l []byte) error {
	if !s.judged {
		s.all = append(s.all, l...)
		if s.off == 0 && len(l) >= 2 && (l[0] == 0xff && l[1] == 0xfe || l[0] == 0xfe && l[1] == 0xff) {
			return s.readWhole("the text is UTF-16, which is read whole")
		}
		if s.line <= 3 && followStart(s.all) {
			return s.readWhole("a followed TCP stream is read whole")
		}
	}
	start := s.off
	s.off += len(l)
	s.line++
	i, le := 0, len(l)
	if start == 0 {
		i = BOMLen(l)
	}
	for le > i && isSpace(l[le-1]) {
		le--
	}
	for i < le && isSpace(l[i]) {
		i++
	}
	if i == le { // blank: ends no dump
		s.chunk = append(s.chunk, l...)
		return nil
	}
	again := false // a line of the open dump's layout at offset 0: the next packet's
	if s.inDump {
		cont, restart, short := s.continues(l, i, le)
		if _, ok := detectDump(l[i:le]); restart && s.unsure && !ok {
			// Since a line of a short offset, which the scanner reads as
			// the dump's or not by the offset it expects, only it knows
			// whether a dump is open for this one to start the next of:
			// no cut here.
			cont = true
		}
		if cont {
			s.unsure = s.unsure || short
			if !s.early {
				s.chunk = append(s.chunk, l...)
			}
			return nil
		}
		if err := s.cut(start); err != nil {
			return err
		}
		again = restart
	}
	if kind, ok := detectDump(l[i:le]); ok {
		s.kind, s.inDump = kind, true
	} else if again {
		s.inDump, s.again = true, true // in the layout of the dump before, as ParsePackets reads it
	}
	s.chunk = append(s.chunk, l...)
	return nil
}

// continues reports whether the line l[i:le] may go on with the open
// dump: a line of its layout at an offset past 0 (or one of fewer digits,
// which only the dump's reader can judge), or a '*' repeat line, and not
// a line that starts with a time, as ParsePackets reads them; restart,
// when it is a line of that layout at offset 0, which starts the next;
// short, when it goes on only by an offset of fewer digits.
func (s *PacketStream) continues(l []byte, i, le int) (cont, restart, short bool) {
	off, ok := dumpLineStart(l, i, le, s.kind, false)
	if !ok {
		if _, ok = dumpLineStart(l, i, le, s.kind, true); !ok {
			return false, false, false
		}
		off, short = 1, true
	}
	if _, _, isTime := lineTime(l[i:le]); isTime {
		return false, false, false
	}
	if off == 0 && l[i] != '*' {
		return false, true, false
	}
	return true, false, short
}

// cut ends the chunk before the line at next: its dump's packets are
// given, unless given already.
func (s *PacketStream) cut(next int) error {
	if s.inDump && !s.early {
		if _, err := s.parse(false); err != nil {
			return err
		}
	}
	s.chunk = s.chunk[:0]
	s.chunkOff, s.chunkLine = next, s.line-1
	s.inDump, s.early, s.again, s.unsure = false, false, false, false
	return nil
}

// pause gives the open dump's packet when the text paused and the dump
// holds a whole packet.
func (s *PacketStream) pause() error {
	given, err := s.parse(true)
	if given && err == nil {
		s.early = true
	}
	return err
}

// end reads the last chunk at the end of the text.
func (s *PacketStream) end() error {
	if s.rerr != nil {
		return s.rerr
	}
	if err := s.cut(s.off); err != nil {
		return err
	}
	if s.holding { // no time went down: times since the first, as ParsePackets reads them
		s.release(false)
	}
	s.ended = true
	if s.n == 0 {
		return text{}.errAt(-1, ErrNoPackets, "no hex dump of a whole TCP/IP packet")
	}
	return nil
}

// parse reads the chunk's dumps and gives their packets; pausing, only
// when the last holds a whole packet, and with no error (more text may
// mend it).
func (s *PacketStream) parse(pausing bool) (bool, error) {
	sc := newPacketScanner(s.chunk)
	sc.keepEach, sc.carry, sc.carryKind = true, s.again, s.kind
	err := sc.scan()
	if err == nil {
		err = sc.startErr()
	}
	if err != nil {
		if pausing {
			return false, nil
		}
		var e *Error
		if errors.As(err, &e) {
			moved := *e
			if moved.Offset >= 0 {
				moved.Offset += s.chunkOff
			}
			if moved.Line > 0 {
				moved.Line += s.chunkLine - 1
			}
			return false, &moved
		}
		return false, err
	}
	ps, _ := sc.packets()
	if pausing {
		if len(ps) == 0 {
			return false, nil
		}
		if _, p, ok := StripPacket(ps[len(ps)-1].Data); !ok || p.Missing > 0 {
			return false, nil
		}
	}
	if s.format == "" {
		s.format = sc.format
	}
	s.other += sc.nOther
	for k := range ps {
		s.give(ps[k], sc.each[k])
	}
	return true, nil
}

// give queues packet p, whose dump gave time st.
func (s *PacketStream) give(p DumpPacket, st stamp) {
	switch {
	case p.LinkType >= 0:
		s.link = p.LinkType
	case s.link < 0:
		return
	default:
		p.LinkType = s.link
	}
	if !s.judged {
		// The first packet's time says how the text gives them; the text
		// kept so far (Text) is dropped.
		s.judged, s.form, s.times, s.all = true, st.form, st.form, nil
		s.zeroFirst = (st.form == TimeOfDay || st.form == Seconds) && st.tm.Equal(time.Unix(0, 0))
		s.holding = s.zeroFirst
	}
	if s.holding {
		s.hold(p, st)
	} else {
		s.stamp(p, st)
	}
}

// holdMax is how many packets whose first time is zero are held back at
// most, waiting for a time that goes down, before they are read as times
// since the first packet: deltas of real traffic go down within a few.
const holdMax = 8

// hold keeps p back while the first packets' times may be deltas, and
// lets them go once they are told.
func (s *PacketStream) hold(p DumpPacket, st stamp) {
	n := len(s.held)
	if st.form != s.form { // no time, or another form: the held ones are what they read
		s.release(false)
		s.stamp(p, st)
		return
	}
	s.held, s.heldAt = append(s.held, p), append(s.heldAt, st)
	switch {
	case n > 0 && st.tm.Before(s.heldAt[n-1].tm):
		s.release(true)
	case n+1 == holdMax:
		s.release(false)
	}
}

// release gives the held packets, their times deltas or not.
func (s *PacketStream) release(deltas bool) {
	if deltas {
		s.times = Deltas
	}
	s.holding = false
	for i := range s.held {
		s.stamp(s.held[i], s.heldAt[i])
	}
	s.held, s.heldAt = nil, nil
}

// stamp sets p's time from st, as the stream reads the text's times, and
// queues it.
func (s *PacketStream) stamp(p DumpPacket, st stamp) {
	tm := st.tm
	switch {
	case s.mixed > 0 || st.form != s.form || st.form == NoTimes:
		if s.mixed == 0 && s.form != NoTimes {
			s.mixed = s.n + 1
		}
		tm = s.prev.Add(time.Millisecond)
	case s.times == Deltas && s.n > 0:
		tm = s.prev.Add(tm.Sub(time.Unix(0, 0)))
	case s.times == TimeOfDay:
		// Past midnight, the time of day starts again.
		if s.n > 0 && tm.Add(s.day).Before(s.prev.Add(-12*time.Hour)) {
			s.day += 24 * time.Hour
		}
		tm = tm.Add(s.day)
	}
	if s.zeroFirst && s.times != Deltas && s.wentDown == 0 && s.n > 0 && tm.Before(s.prev) {
		s.wentDown = s.n + 1 // read as times since the first all the same
	}
	p.Time, s.prev = tm, tm
	s.n++
	s.ready = append(s.ready, p)
}

// Text is the whole text, read to its end, when Next failed before it
// gave a packet (a text that holds no packet's dump, or a mistake in the
// first): the text is kept until a packet is given, for a reader that
// then reads it otherwise (kwire check, as frames). nil after a packet.
func (s *PacketStream) Text() []byte {
	if s.judged {
		return nil
	}
	for l := range s.lines {
		s.all = append(s.all, l...)
	}
	return s.all
}

// readWhole reads the rest of the text and gives the packets
// ParsePackets finds in all of it.
func (s *PacketStream) readWhole(why string) error {
	if s.Waiting != nil {
		s.Waiting(why)
	}
	for l := range s.lines {
		s.all = append(s.all, l...)
	}
	s.ended, s.ready = true, nil
	if s.rerr != nil {
		return s.rerr
	}
	d, err := ParsePackets(s.all)
	if err != nil {
		return err // the text stays for Text
	}
	s.all = nil
	s.judged, s.format, s.times, s.other = true, d.Format, d.Times, d.Other
	for i, p := range d.Packets {
		if d.Times == NoTimes {
			p.Time = time.Unix(0, int64(i+1)*int64(time.Millisecond)).UTC()
		}
		s.ready = append(s.ready, p)
	}
	s.n = len(s.ready)
	return nil
}

// Name names the dump read so far for a person: "a text dump of 23
// packets (tcpdump -X)".
func (s *PacketStream) Name() string { return dumpName(s.n, s.format) }

// Kind names the dump without its count: "a text dump of packets
// (tcpdump -X)".
func (s *PacketStream) Kind() string { return dumpName(-1, s.format) }

// TimesNote says what the packets' times are, as PacketDump.TimesNote
// does, and from which packet on they are the stream's own.
func (s *PacketStream) TimesNote() string {
	n := (&PacketDump{Times: s.times}).TimesNote()
	if s.mixed > 0 {
		if n != "" {
			n += "; "
		}
		n += "packet " + strconv.Itoa(s.mixed) + " gave no time, or one of another form, so it and those after it are each given one a millisecond after the packet before"
	}
	if s.wentDown > 0 {
		if n != "" {
			n += "; "
		}
		n += "they were read as times since the first packet, as the first " + strconv.Itoa(holdMax) + " did not go down, but packet " + strconv.Itoa(s.wentDown) +
			"'s is before the one before it: if they are each packet's time since the one before (tcpdump -ttt, tshark -t d), read the text from a file, or print times of day (tshark -t a)"
	}
	return n
}

// WentDown is the number, from 1, of the first packet whose time went
// down after the first packets' times, from zero, were read as times
// since the first packet; 0 when none did.
func (s *PacketStream) WentDown() int { return s.wentDown }
