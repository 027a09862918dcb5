package input

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// seeds returns the golden texts in testdata and some malformed inputs.
func seeds(f *testing.F) [][]byte {
	var out [][]byte
	entries, err := os.ReadDir(dumps)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || e.Name() == "gen.sh" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dumps, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	for _, s := range shapes(f) {
		out = append(out, []byte(s.text))
	}
	for _, s := range []string{
		"", " ", "0", "0x", "00 0 0a", "00:0g", `\x0`, `"\x00`, "AAAA=AAA", "AAAAA",
		"00000000  00 00  |..|\n*\n", "00000000  00 00  |..|\n*\nffffffffffffffff\n",
		"ffffffffffffffff: 0000 0025  ...%\n", "\t0x0000:  00", "0000   00", "000000 00 >.<",
		"{", "[]byte{0x0", "/* x", `"\u12`, `"\U0011ffff"`, `\777`,
	} {
		out = append(out, []byte(s))
	}
	return out
}

// FuzzParse checks that Parse never panics, returns *Error with a sane
// position, returns binary input unchanged, and never returns more bytes
// than it was given (with '*' repeats forbidden or bounded).
func FuzzParse(f *testing.F) {
	for _, s := range seeds(f) {
		for m := uint8(0); m < 4; m++ {
			f.Add(s, m)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		m := Mode(mode % 5) // 4 is an invalid mode
		out, format, err := ParseLimit(data, m, 0)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			if e.Offset < -1 || e.Offset > len(data) || e.Line < 0 || (e.Line > 0) != (e.Column > 0) {
				t.Fatalf("bad error position %+v", e)
			}
			if e.Error() == "" || e.Msg == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if format == FormatBinary {
			if !bytes.Equal(out, data) {
				t.Fatal("binary input changed")
			}
			return
		}
		if len(out) > len(data) {
			t.Fatalf("%s output of %d bytes from %d bytes of input", format, len(out), len(data))
		}
		const limit = 1 << 10
		out2, _, err := ParseLimit(data, m, limit)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("raising the repeat limit changed the result: %v", err)
		}
	})
}

// FuzzParseRepeat checks the bound on '*' expansion.
func FuzzParseRepeat(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 1 << 12
		out, _, err := ParseLimit(data, Hex, limit)
		if err == nil && len(out) > len(data)+limit {
			t.Fatalf("output %d bytes from %d bytes of input with limit %d", len(out), len(data), limit)
		}
	})
}

// FuzzRoundTrip checks Parse(hex(x), Hex) == x, and the same for every
// other shape the test emulators can print.
func FuzzRoundTrip(f *testing.F) {
	f.Add(frame)
	f.Add([]byte("\x00\x00\x00\x04cafe"))
	f.Add([]byte{0})
	f.Add(bytes.Repeat([]byte{0}, 100))
	f.Fuzz(func(t *testing.T, x []byte) {
		if len(x) == 0 {
			return
		}
		got, _, err := Parse([]byte(hex.EncodeToString(x)), Hex)
		if err != nil || !bytes.Equal(got, x) {
			t.Fatalf("Parse(hex(%x), Hex) = %x, %v", x, got, err)
		}
		checkDumpRoundTrips(t, x)
	})
}

// FuzzSplitFrames checks that SplitFrames never panics, loses or invents
// bytes, and stops only where it must.
func FuzzSplitFrames(f *testing.F) {
	f.Add(frame, 0)
	f.Add(append(append([]byte{}, frame...), frame[:7]...), 0)
	f.Add([]byte{0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, 0)
	f.Add(append(append([]byte{}, frame...), frame...), 10)
	for _, name := range []string{"frame.bin", "zeros.bin"} {
		b, err := os.ReadFile(filepath.Join(dumps, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, 0)
	}
	f.Fuzz(func(t *testing.T, b []byte, maxFrame int) {
		frames, rest := SplitFrames(b, maxFrame)
		var joined []byte
		for i, fr := range frames {
			if !HasSizePrefix(fr) {
				t.Fatalf("frame %d has no size prefix", i)
			}
			if maxFrame > 0 && len(fr)-4 > maxFrame {
				t.Fatalf("frame %d larger than %d", i, maxFrame)
			}
			joined = append(joined, fr...)
		}
		joined = append(joined, rest...)
		if p, _, ok := StripPacket(b); ok && !bytes.HasSuffix(b, p) && len(p) > 0 {
			// The payload is a piece of b (Ethernet padding may follow it).
			if !bytes.Contains(b, p) {
				t.Fatal("StripPacket returned bytes not in its input")
			}
		}
		if !bytes.Equal(joined, b) {
			t.Fatal("frames + rest != input")
		}
		if len(rest) >= 4 {
			n := int64(int32(binary.BigEndian.Uint32(rest)))
			if n >= 0 && n <= int64(len(rest)-4) && (maxFrame <= 0 || n <= int64(maxFrame)) {
				t.Fatalf("split stopped before a whole frame of %d bytes", n)
			}
		}
	})
}

// FuzzParsePackets checks that ParsePackets never panics, returns *Error
// with a sane position, never returns more bytes than the text allows,
// keeps its promises (a whole TCP/IP packet among the packets, a link
// type for each, times on all of them or none), and reads a text of one
// packet as Parse does.
func FuzzParsePackets(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	names, err := filepath.Glob(filepath.Join("testdata", "packets", "*-*"))
	if err != nil {
		f.Fatal(err)
	}
	names = append(names, filepath.Join("testdata", "summaries", "tshark-Px-77-79.txt"))
	follows, err := filepath.Glob(filepath.Join("testdata", "follow", "*.*"))
	if err != nil || len(follows) == 0 {
		f.Fatal(follows, err)
	}
	names = append(names, follows...)
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	eth, ip := testPackets()
	var tshark, wireshark, tcpdump, xxd string
	for i := range eth {
		tshark += "    " + strconv.Itoa(i+1) + " 0.00" + strconv.Itoa(i) + " 10.0.0.1 → 10.0.0.2 TCP\n\n" + dumpTsharkText(eth[i])
		wireshark += dumpWiresharkText(eth[i], true)
		tcpdump += "10:00:0" + strconv.Itoa(i) + ".000001 IP 127.0.0.1.50000 > 127.0.0.1.9092: Flags [P.], length 41\n" + dumpTcpdumpText(ip[i])
		xxd += dumpXXDText(eth[i], 2)
	}
	f.Add([]byte(tshark))
	f.Add([]byte(wireshark))
	f.Add([]byte(tcpdump))
	f.Add([]byte(xxd))
	f.Add([]byte("Frame (60 bytes):\n" + dumpTsharkText(eth[1]) + "Reassembled TCP (41 bytes):\n" + dumpTsharkText(frame)))
	f.Add([]byte("2024-05-01 23:59:59.999999 IP x\n" + dumpTcpdumpText(ip[0]) + "2024-05-02 00:00:00 IP x\n" + dumpTcpdumpText(ip[1])))
	f.Add([]byte(dumpHexdumpCText(append(eth[0], make([]byte, 64)...)) + dumpODText(eth[1])))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParsePackets(data)
		checkStreamFuzz(t, data, d, err)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not *Error", err)
			}
			if e.Offset < -1 || e.Offset > len(data) || e.Line < 0 || (e.Line > 0) != (e.Column > 0) || e.Msg == "" {
				t.Fatalf("bad error %+v", e)
			}
			if errors.Is(err, ErrNoPackets) && e.Offset != -1 {
				t.Fatalf("ErrNoPackets at an offset: %+v", e)
			}
			return
		}
		if len(d.Packets) == 0 {
			t.Fatal("no packets and no error")
		}
		total, whole := 0, false
		for i, p := range d.Packets {
			total += len(p.Data)
			if _, _, ok := StripPacket(p.Data); ok {
				whole = true
			}
			switch p.LinkType {
			case 0, 1, 101, 113, 276:
			default:
				t.Fatalf("packet %d: link type %d", i, p.LinkType)
			}
			if p.Time.IsZero() != (d.Times == NoTimes) {
				t.Fatalf("packet %d: time %v in a dump with %s", i, p.Time, d.Times)
			}
			if d.Times == TimeOfDay && i > 0 && p.Time.Before(d.Packets[i-1].Time.Add(-12*time.Hour)) {
				t.Fatalf("packet %d: a time of day %v more than 12 hours before the last, %v", i, p.Time, d.Packets[i-1].Time)
			}
		}
		if !whole {
			t.Fatal("no whole packet among the packets")
		}
		if total > len(data)/2+len(data) {
			t.Fatalf("%d bytes of packets from %d bytes of text", total, len(data))
		}
		if len(d.Packets) == 1 && d.Other == 0 {
			b, format, err := Parse(data, Hex)
			dump := format != FormatHex && format != FormatCEscapes && format != FormatBase64
			if err == nil && dump && !bytes.Equal(b, d.Packets[0].Data) {
				t.Fatalf("one packet: %x, Parse (%s) gives %x", d.Packets[0].Data, format, b)
			}
		}
	})
}

// checkStreamFuzz holds a PacketStream of data to what ParsePackets said
// of it (d, err): where it read packets, the stream gives the same bytes,
// from the first packet StripPacket reads on (none before it can have a
// link type); where it failed, the stream fails too, with an *Error.
func checkStreamFuzz(t *testing.T, data []byte, d *PacketDump, err error) {
	_, got, serr := streamAll(string(data))
	if err != nil {
		var e *Error
		if serr == nil || !errors.As(serr, &e) {
			t.Fatalf("ParsePackets: %v; the stream: %v after %d packets", err, serr, len(got))
		}
		return
	}
	if serr != nil {
		t.Fatalf("the stream: %v; ParsePackets read %d packets", serr, len(d.Packets))
	}
	k := 0
	for k < len(d.Packets) {
		if _, _, ok := StripPacket(d.Packets[k].Data); ok {
			break
		}
		k++
	}
	want := d.Packets[k:]
	if len(got) != len(want) {
		t.Fatalf("the stream gave %d packets, ParsePackets %d from its first TCP/IP one", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].Data, want[i].Data) {
			t.Fatalf("packet %d: the stream %x, ParsePackets %x", i+1, got[i].Data, want[i].Data)
		}
	}
}
