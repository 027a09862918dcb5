package input

import (
	"errors"
	"io"
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

// A first time of zero is read by both times since the first packet and
// times since the one before: the stream says it reads the text to its
// end, and its packets' times are ParsePackets'.
func TestPacketStreamFirstTimeZero(t *testing.T) {
	_, ip := testPackets()
	line := func(tm string) string {
		return tm + " IP 127.0.0.1.50000 > 127.0.0.1.9092: Flags [P.], seq 1:42, ack 1, win 512, length 41\n"
	}
	var sb strings.Builder
	for i, tm := range []string{"00:00:00.000000", "00:00:00.002000", "00:00:00.000500"} {
		sb.WriteString(line(tm) + dumpTcpdumpText(ip[i]))
	}
	s := NewPacketStream(strings.NewReader(sb.String()), 0)
	defer s.Close()
	var why string
	s.Waiting = func(w string) { why = w }
	var got []time.Time
	for {
		p, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Time)
	}
	if !strings.Contains(why, "its first time is 0") || s.Times() != Deltas {
		t.Fatalf("Waiting said %q, times %s", why, s.Times())
	}
	want := []time.Time{time.Unix(0, 0).UTC(), time.Unix(0, 2e6).UTC(), time.Unix(0, 2.5e6).UTC()}
	if len(got) != 3 || !got[0].Equal(want[0]) || !got[1].Equal(want[1]) || !got[2].Equal(want[2]) {
		t.Fatalf("times %v, want %v", got, want)
	}
}

// A line at offset 0 that no layout is detected in, after a dump, starts
// the next dump in that dump's layout, in a stream as in ParsePackets:
// here a malformed one, which both refuse at the same line
// (FuzzParsePackets found the stream taking it for text between dumps).
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
