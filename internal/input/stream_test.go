package input

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// streamAll reads text through a PacketStream, a byte at a time, with no
// pause: every packet, or the first error.
func streamAll(text string) (*PacketStream, []DumpPacket, error) {
	s := NewPacketStream(iotest.OneByteReader(strings.NewReader(text)), 0)
	defer s.Close()
	var got []DumpPacket
	for {
		p, err := s.Next()
		if err == io.EOF {
			return s, got, nil
		}
		if err != nil {
			return s, got, err
		}
		got = append(got, p)
	}
}

// checkStream holds a PacketStream of text to d, what ParsePackets read
// in it (every text checkPackets checks): the same packets, link types,
// format and times, but where a packet gave no time, or one of another
// form, after packets that did, which the stream cannot take back (it
// and those after it are a millisecond after the one before), and where
// the text gave none (a millisecond a packet, as a capture of d is
// written).
func checkStream(t *testing.T, name, text string, d *PacketDump) {
	t.Helper()
	s, got, err := streamAll(text)
	if err != nil {
		t.Fatalf("%s, streamed: %v", name, err)
	}
	if len(got) != len(d.Packets) || s.Count() != len(got) {
		t.Fatalf("%s, streamed: %d packets (Count %d), want %d", name, len(got), s.Count(), len(d.Packets))
	}
	if s.Format() != d.Format {
		t.Errorf("%s, streamed: format %s, want %s", name, s.Format(), d.Format)
	}
	mixed := s.Mixed()
	if mixed > 0 && d.Times != NoTimes {
		t.Errorf("%s, streamed: packet %d gave no time, but ParsePackets read %s", name, mixed, d.Times)
	}
	if mixed == 0 && s.Times() != d.Times {
		t.Errorf("%s, streamed: %s, want %s", name, s.Times(), d.Times)
	}
	for i, p := range got {
		w := d.Packets[i]
		if string(p.Data) != string(w.Data) || p.LinkType != w.LinkType {
			t.Errorf("%s, streamed: packet %d = %x (link %d), want %x (link %d)", name, i+1, p.Data, p.LinkType, w.Data, w.LinkType)
		}
		want := w.Time
		switch {
		case mixed > 0 && i+1 < mixed:
			want = p.Time // the text's own: ParsePackets dropped them
		case mixed > 0:
			want = got[i-1].Time.Add(time.Millisecond)
		case d.Times == NoTimes:
			want = time.Unix(0, int64(i+1)*int64(time.Millisecond)).UTC()
		}
		if !p.Time.Equal(want) {
			t.Errorf("%s, streamed: packet %d time %v, want %v", name, i+1, p.Time, want)
		}
	}
}

// A packet is given while the text goes on: at the line after its dump,
// or, when the text pauses, as soon as its dump holds a whole packet (the
// last packet of a burst, tcpdump -l -X in a quiet moment).
func TestPacketStreamAsItComes(t *testing.T) {
	eth, ip := testPackets()
	line := func(tm string) string {
		return tm + " IP 127.0.0.1.50000 > 127.0.0.1.9092: Flags [P.], seq 1:42, ack 1, win 512, length 41\n"
	}
	for _, c := range []struct {
		name  string
		parts []string // written in turn, each packet waited for before the next
		want  [][]byte
	}{
		{"tcpdump -l -X", []string{
			line("10:00:00.000001") + dumpTcpdumpText(ip[0]),
			line("10:00:00.000002") + dumpTcpdumpText(ip[1]),
		}, ip[:2]},
		{"tshark -l -x", []string{dumpTsharkText(eth[0]), dumpTsharkText(eth[1])}, eth[:2]},
		// A dump that goes on after its packet was given (a frame's
		// padding printed after a pause): the rest is dropped.
		{"tshark -l -x, a dump going on after a pause", []string{
			dumpTsharkText(eth[0]),
			"0ff0  00 00 00 00\n\n" + dumpTsharkText(eth[1]),
		}, [][]byte{eth[0], eth[1]}},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			s := NewPacketStream(pr, 20*time.Millisecond)
			defer s.Close()
			type result struct {
				p   DumpPacket
				err error
			}
			next := make(chan result, 1)
			get := func() result {
				go func() {
					p, err := s.Next()
					next <- result{p, err}
				}()
				select {
				case r := <-next:
					return r
				case <-time.After(10 * time.Second):
					t.Fatalf("%s: no packet within 10 s", c.name)
				}
				return result{}
			}
			for i, part := range c.parts {
				// The next packet's text is not written yet: only the
				// pause gives this one.
				go io.WriteString(pw, part)
				r := get()
				if r.err != nil || string(r.p.Data) != string(c.want[i]) {
					t.Fatalf("packet %d = %x, %v; want %x", i+1, r.p.Data, r.err, c.want[i])
				}
			}
			pw.Close()
			if r := get(); r.err != io.EOF {
				t.Fatalf("after the last packet: %x, %v; want io.EOF", r.p.Data, r.err)
			}
		})
	}
}

// A first time of zero starts both times since the first packet and
// times since the one before: the stream holds its first packets back
// until a time goes down (deltas, added up, as ParsePackets reads them),
// or holdMax have not (times since the first: given while the text goes
// on), and says when a time goes down after that.
func TestPacketStreamFirstTimeZero(t *testing.T) {
	_, ip := testPackets()
	line := func(tm string) string {
		return tm + " IP 127.0.0.1.50000 > 127.0.0.1.9092: Flags [P.], seq 1:42, ack 1, win 512, length 41\n"
	}
	ms := func(n int) string { return "00:00:00." + strconv.Itoa(1000000 + n*1000)[1:] }
	text := func(times ...int) string {
		var sb strings.Builder
		for i, n := range times {
			sb.WriteString(line(ms(n)) + dumpTcpdumpText(ip[i%2]))
		}
		return sb.String()
	}
	at := func(n float64) time.Time { return time.Unix(0, int64(n*1e6)).UTC() }
	for _, c := range []struct {
		name     string
		times    []int // ms, as the text gives them
		want     []time.Time
		form     TimeForm
		wentDown int
	}{
		{"deltas", []int{0, 2, 1}, []time.Time{at(0), at(2), at(3)}, Deltas, 0},
		{"since the first", []int{0, 1, 1, 2}, []time.Time{at(0), at(1), at(1), at(2)}, TimeOfDay, 0},
		{"going down after the hold", []int{0, 1, 2, 3, 4, 5, 6, 7, 3}, []time.Time{at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(3)}, TimeOfDay, 9},
		{"deltas going down within the hold", []int{0, 1, 2, 3, 4, 5, 6, 5}, []time.Time{at(0), at(1), at(3), at(6), at(10), at(15), at(21), at(26)}, Deltas, 0},
	} {
		s, got, err := streamAll(text(c.times...))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s.Times() != c.form || s.WentDown() != c.wentDown || len(got) != len(c.want) {
			t.Fatalf("%s: %s, went down at %d, %d packets; want %s, %d, %d", c.name, s.Times(), s.WentDown(), len(got), c.form, c.wentDown, len(c.want))
		}
		for i, p := range got {
			if !p.Time.Equal(c.want[i]) {
				t.Errorf("%s: packet %d at %v, want %v", c.name, i+1, p.Time, c.want[i])
			}
		}
		if c.wentDown > 0 && !strings.Contains(s.TimesNote(), "but packet 9's is before the one before it") {
			t.Errorf("%s: the note %q does not say so", c.name, s.TimesNote())
		}
		if d, err := ParsePackets([]byte(text(c.times...))); c.wentDown == 0 && (err != nil || d.Times != c.form) {
			t.Errorf("%s: ParsePackets read %v, %v", c.name, d, err)
		}
	}

	// Times since the first come out while the text goes on, once
	// holdMax packets have not gone down.
	pr, pw := io.Pipe()
	defer pw.Close()
	s := NewPacketStream(pr, 0)
	defer s.Close()
	go io.WriteString(pw, text(0, 1, 2, 3, 4, 5, 6, 7, 8))
	done := make(chan error, 1)
	go func() {
		for i := 0; i < holdMax; i++ {
			if _, err := s.Next(); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the first %d packets were not given before the text ended", holdMax)
	}
}

// A line at offset 0 that no layout is detected in, after a dump, starts
// the next dump in that dump's layout, in a stream as in ParsePackets:
// here a malformed one, which both refuse at the same line
// (FuzzParsePackets found the stream taking it for text between dumps,
// then one that is text between dumps taken for a restart).
func TestPacketStreamRestartInTheLayoutBefore(t *testing.T) {
	text := "0000  00 00 00 00 00 00 00 00 00 00 00 00 08 00 45 00\n0010 00 5d 00 01 40 00 40 06 3C 98 7f 00 00 01 7f 00\n" +
		"0020 00 01 00 10 00 01 00 00 00 00 00 00 00 00 70 00\n0030 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n" +
		"0000000000000000 0000000000000000000000000000000000000000"
	_, err := ParsePackets([]byte(text))
	var whole, streamed *Error
	if !errors.As(err, &whole) || whole.Line != 5 {
		t.Fatalf("ParsePackets: %v, want an error at line 5", err)
	}
	_, _, err = streamAll(text)
	if !errors.As(err, &streamed) || *streamed != *whole {
		t.Fatalf("streamed: %#v, want %#v", err, whole)
	}

	// After a line of a short offset that is not the one the dump
	// expects (text between dumps, to ParsePackets), an offset line at 0
	// starts no dump: one packet, no error, in both.
	text = strings.Join(strings.Split(text, "\n")[:4], "\n") + "\n00 " + strings.Repeat("0", 40) + "\n0000"
	d, err := ParsePackets([]byte(text))
	if err != nil || len(d.Packets) != 1 {
		t.Fatalf("ParsePackets: %v, %v", d, err)
	}
	if _, got, err := streamAll(text); err != nil || len(got) != 1 || string(got[0].Data) != string(d.Packets[0].Data) {
		t.Fatalf("streamed: %d packets, %v; want ParsePackets' one", len(got), err)
	}
	// Nor one after it, however many.
	text = strings.Join(strings.Split(text, "\n")[:4], "\n") + "\n0\n0000\n0000\n"
	if d, err = ParsePackets([]byte(text)); err != nil || len(d.Packets) != 1 {
		t.Fatalf("ParsePackets: %v, %v", d, err)
	}
	if _, got, err := streamAll(text); err != nil || len(got) != 1 {
		t.Fatalf("streamed: %d packets, %v; want ParsePackets' one", len(got), err)
	}
}

// A text that gives no packet is kept whole for a reader that then reads
// it otherwise (kwire check, as frames): one with no dump of a packet,
// one whose first dump is malformed. Once a packet is given, none is
// kept.
func TestPacketStreamText(t *testing.T) {
	eth, _ := testPackets()
	for _, text := range []string{
		dumpXXDText(frame, 2) + "and a line after it\n",
		"0000  00 01\n0002  0g\n" + dumpTsharkText(eth[0]),
	} {
		s := NewPacketStream(iotest.HalfReader(strings.NewReader(text)), 0)
		_, err := s.Next()
		if err == nil || string(s.Text()) != text {
			t.Errorf("Next: %v; Text %q, want the text whole", err, s.Text())
		}
		s.Close()
	}
	s := NewPacketStream(strings.NewReader(dumpTsharkText(eth[0])+dumpTsharkText(eth[1])), 0)
	defer s.Close()
	if _, err := s.Next(); err != nil || s.Text() != nil {
		t.Errorf("Next: %v; Text %q after a packet, want nil", err, s.Text())
	}
}
