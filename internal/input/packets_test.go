package input

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// dumpTsharkText is one packet's dump as tshark -x prints it, with the
// blank line it ends with.
func dumpTsharkText(b []byte) string {
	var sb strings.Builder
	for off := 0; off < len(b); off += 16 {
		l := b[off:min(off+16, len(b))]
		hx := make([]string, len(l))
		asc := make([]byte, len(l))
		for i, c := range l {
			hx[i], asc[i] = hex.EncodeToString([]byte{c}), printable(c)
		}
		sb.WriteString(hexOff(off, 4) + "  " + pad(strings.Join(hx, " "), 47, false) + "   " + string(asc) + "\n")
	}
	return sb.String() + "\n"
}

// The tshark -x emulator prints what tshark printed (testdata/packets).
func TestTsharkEmulator(t *testing.T) {
	for _, name := range []string{"kafka-5.tshark-x", "kfake-6.tshark-x", "p8.tshark-x", "ipv6-null-4.tshark-x"} {
		text, err := os.ReadFile(filepath.Join("testdata", "packets", name))
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := Parse(text, Auto)
		if err != nil {
			t.Fatal(err)
		}
		if got := dumpTsharkText(b); got != string(text) {
			t.Errorf("%s: emulated\n%s\nwant\n%s", name, got, text)
		}
	}
}

func ethHeader(typ uint16) []byte {
	return []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, byte(typ >> 8), byte(typ)}
}

// testPackets are a capture's worth of packets behind Ethernet: a request
// carrying frame, an ACK padded to Ethernet's smallest frame, an ARP
// request (no IP: it takes the others' link type) and a segment over
// IPv6; and the same IP packets without their link header, as tcpdump -X
// prints them, where a UDP datagram stands for the ARP request.
func testPackets() (eth, ip [][]byte) {
	v4 := withChecksum(ipv4TCP(frame, 6))
	ack := ipv4TCP(nil, 6)[:40]
	ack[3], ack[32] = 40, 5<<4
	ack = withChecksum(ack)
	arp := append(ethHeader(0x0806), 0, 1, 8, 0, 6, 4, 0, 1, 2, 0, 0, 0, 0, 1, 10, 0, 0, 1, 0, 0, 0, 0, 0, 0, 10, 0, 0, 2)
	arp = append(arp, make([]byte, 60-len(arp))...)
	v6 := ipv6TCP(frame)
	udp := withChecksum(ipv4TCP(frame, 17))
	eth = [][]byte{append(ethHeader(0x0800), v4...), append(append(ethHeader(0x0800), ack...), make([]byte, 6)...), arp, append(ethHeader(0x86dd), v6...)}
	ip = [][]byte{v4, ack, udp, v6}
	return eth, ip
}

func checkPackets(t *testing.T, name, text string, want [][]byte, link int, times []time.Time) *PacketDump {
	t.Helper()
	d, err := ParsePackets([]byte(text))
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, text)
	}
	if len(d.Packets) != len(want) {
		t.Fatalf("%s: %d packets, want %d", name, len(d.Packets), len(want))
	}
	if MaybePackets([]byte(text)) != (len(want) > 1) {
		t.Errorf("%s: MaybePackets says %v of %d packets' dumps", name, !(len(want) > 1), len(want))
	}
	for i, p := range d.Packets {
		if !bytes.Equal(p.Data, want[i]) {
			t.Errorf("%s: packet %d = %x, want %x", name, i+1, p.Data, want[i])
		}
		if p.LinkType != link {
			t.Errorf("%s: packet %d link type %d, want %d", name, i+1, p.LinkType, link)
		}
		var tm time.Time
		if times != nil {
			tm = times[i]
		}
		if !p.Time.Equal(tm) {
			t.Errorf("%s: packet %d time %v, want %v", name, i+1, p.Time, tm)
		}
	}
	checkStream(t, name, text, d)
	return d
}

// Several packets' dumps, as each tool prints them, give the packets, their
// link type and their times when the dump has them.
func TestParsePackets(t *testing.T) {
	eth, ip := testPackets()
	join := func(pkts [][]byte, each func(i int, b []byte) string) string {
		var sb strings.Builder
		for i, b := range pkts {
			sb.WriteString(each(i, b))
		}
		return sb.String()
	}
	day := func(h, m, s, ns int) time.Time { return time.Date(1970, 1, 1, h, m, s, ns, time.UTC) }
	clock := []time.Time{day(10, 0, 0, 1000), day(10, 0, 0, 2000), day(10, 0, 1, 0), day(10, 0, 1, 500000)}
	packetLine := func(tm string) string {
		return tm + " IP 127.0.0.1.50000 > 127.0.0.1.9092: Flags [P.], seq 1:42, ack 1, win 512, length 41\n"
	}
	tcpdumpTimes := []string{"10:00:00.000001", "10:00:00.000002", "10:00:01.000000", "10:00:01.000500"}

	for _, c := range []struct {
		name   string
		text   string
		link   int
		times  []time.Time
		format Format
		form   TimeForm
	}{
		{"tshark -x", join(eth, func(_ int, b []byte) string { return dumpTsharkText(b) }), 1, nil, FormatWireshark, NoTimes},
		{"wireshark, back to back", join(eth, func(_ int, b []byte) string { return dumpWiresharkText(b, true) }), 1, nil, FormatWireshark, NoTimes},
		{"wireshark without ascii, blank lines", join(eth, func(_ int, b []byte) string { return "\n\n" + dumpWiresharkText(b, false) }), 1, nil, FormatWireshark, NoTimes},
		{"xxd", join(eth, func(_ int, b []byte) string { return dumpXXDText(b, 2) }), 1, nil, FormatXXD, NoTimes},
		{"hexdump -C, its final offset lines", join(eth, func(_ int, b []byte) string { return dumpHexdumpCText(b) }), 1, nil, FormatHexdumpC, NoTimes},
		{"od", join(eth, func(_ int, b []byte) string { return dumpODText(b) }), 1, nil, FormatOD, NoTimes},
		{"tcpdump -X", join(ip, func(i int, b []byte) string { return packetLine(tcpdumpTimes[i]) + dumpTcpdumpText(b) }), 101, clock, FormatTcpdump, TimeOfDay},
		{"tcpdump -XX", join(eth, func(i int, b []byte) string { return packetLine(tcpdumpTimes[i]) + dumpTcpdumpText(b) }), 1, clock, FormatTcpdump, TimeOfDay},
		{"tcpdump -t -X", join(ip, func(i int, b []byte) string { return packetLine("") + dumpTcpdumpText(b) }), 101, nil, FormatTcpdump, NoTimes},
		{"tcpdump -tttt -X", join(ip, func(i int, b []byte) string {
			return packetLine("2024-05-01 "+tcpdumpTimes[i]) + dumpTcpdumpText(b)
		}), 101, []time.Time{
			time.Date(2024, 5, 1, 10, 0, 0, 1000, time.UTC), time.Date(2024, 5, 1, 10, 0, 0, 2000, time.UTC),
			time.Date(2024, 5, 1, 10, 0, 1, 0, time.UTC), time.Date(2024, 5, 1, 10, 0, 1, 500000, time.UTC),
		}, FormatTcpdump, DateTime},
		{"tcpdump -tt -X", join(ip, func(i int, b []byte) string {
			return packetLine("1714557600.00000"+strconv.Itoa(i)) + dumpTcpdumpText(b)
		}), 101, []time.Time{time.Unix(1714557600, 0).UTC(), time.Unix(1714557600, 1000).UTC(), time.Unix(1714557600, 2000).UTC(), time.Unix(1714557600, 3000).UTC()}, FormatTcpdump, Seconds},
		{"tcpdump -v -X, past midnight", join(ip, func(i int, b []byte) string {
			tm := []string{"23:59:59.9", "23:59:59.999999999", "00:00:00.000001", "00:00:01"}[i]
			return tm + " IP (tos 0x0, ttl 64, id 1, offset 0, flags [DF], proto TCP (6), length 93)\n    127.0.0.1.50000 > 127.0.0.1.9092: Flags [P.], length 41\n" + dumpTcpdumpText(b)
		}), 101, []time.Time{day(23, 59, 59, 900000000), day(23, 59, 59, 999999999), day(24, 0, 0, 1000), day(24, 0, 1, 0)}, FormatTcpdump, TimeOfDay},
		{"tshark -P -x", join(eth, func(i int, b []byte) string {
			return "    " + strconv.Itoa(i+1) + " 0.00" + strconv.Itoa(i) + "000000 192.168.1.10 → 192.168.1.20 TCP 54 51000 → 9092 [SYN]\n\n" + dumpTsharkText(b)
		}), 1, []time.Time{time.Unix(0, 0).UTC(), time.Unix(0, 1e6).UTC(), time.Unix(0, 2e6).UTC(), time.Unix(0, 3e6).UTC()}, FormatWireshark, Seconds},
		// Deltas: the first zero, a later one smaller than the one
		// before it. They are added up.
		{"tcpdump -ttt -X", join(ip, func(i int, b []byte) string {
			return packetLine([]string{"00:00:00.000000", "00:00:00.002000", "00:00:00.000500", "00:00:01.000000"}[i]) + dumpTcpdumpText(b)
		}), 101, []time.Time{time.Unix(0, 0).UTC(), time.Unix(0, 2e6).UTC(), time.Unix(0, 2.5e6).UTC(), time.Unix(1, 2.5e6).UTC()}, FormatTcpdump, Deltas},
		{"tshark -t d -P -x", join(eth, func(i int, b []byte) string {
			return "    " + strconv.Itoa(i+1) + " " + []string{"0.000000000", "0.300000000", "0.000001000", "0.000001000"}[i] + " 192.168.1.10 → 192.168.1.20 TCP 54 51000 → 9092 [SYN]\n\n" + dumpTsharkText(b)
		}), 1, []time.Time{time.Unix(0, 0).UTC(), time.Unix(0, 3e8).UTC(), time.Unix(0, 300001000).UTC(), time.Unix(0, 300002000).UTC()}, FormatWireshark, Deltas},
		// Times that never go down are times since the first packet
		// (tcpdump -ttttt, tshark -t r), however they were printed; a
		// first time that is not zero is a clock's.
		{"tcpdump -ttttt -X", join(ip, func(i int, b []byte) string {
			return packetLine([]string{"00:00:00.000000", "00:00:00.001000", "00:00:00.001000", "00:00:00.002000"}[i]) + dumpTcpdumpText(b)
		}), 101, []time.Time{time.Unix(0, 0).UTC(), time.Unix(0, 1e6).UTC(), time.Unix(0, 1e6).UTC(), time.Unix(0, 2e6).UTC()}, FormatTcpdump, TimeOfDay},
		{"tcpdump -X, a clock going back", join(ip, func(i int, b []byte) string {
			return packetLine([]string{"10:00:00.000000", "10:00:00.002000", "10:00:00.000500", "10:00:01.000000"}[i]) + dumpTcpdumpText(b)
		}), 101, []time.Time{day(10, 0, 0, 0), day(10, 0, 0, 2e6), day(10, 0, 0, 5e5), day(10, 0, 1, 0)}, FormatTcpdump, TimeOfDay},
		{"tshark -t ad -P -x", join(eth, func(i int, b []byte) string {
			return "    " + strconv.Itoa(i+1) + " 2024-05-01 12:00:00.00" + strconv.Itoa(i) + "000000 192.168.1.10 → 192.168.1.20 TCP\n\n" + dumpTsharkText(b)
		}), 1, []time.Time{
			time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC), time.Date(2024, 5, 1, 12, 0, 0, 1e6, time.UTC),
			time.Date(2024, 5, 1, 12, 0, 0, 2e6, time.UTC), time.Date(2024, 5, 1, 12, 0, 0, 3e6, time.UTC),
		}, FormatWireshark, DateTime},
		{"tshark -V -x", join(eth, func(i int, b []byte) string {
			return "Frame " + strconv.Itoa(i+1) + ": 54 bytes on wire (432 bits)\n    Encapsulation type: Ethernet (1)\n    Arrival Time: May  1, 2024 12:00:00.001000000 UTC\n" +
				"    [Time shift for this packet: 0.000000000 seconds]\n    Epoch Time: 1714564800.00" + strconv.Itoa(i) + "000000 seconds\n    0100 .... = Version: 4\n" +
				"    0000 00.. = Differentiated Services Codepoint: Default (0)\n\n" + dumpTsharkText(b)
		}), 1, []time.Time{time.Unix(1714564800, 0).UTC(), time.Unix(1714564800, 1e6).UTC(), time.Unix(1714564800, 2e6).UTC(), time.Unix(1714564800, 3e6).UTC()}, FormatWireshark, Seconds},
		{"tshark -x, other data sources", join(eth, func(i int, b []byte) string {
			if i != 1 {
				return dumpTsharkText(b)
			}
			return "Frame (" + strconv.Itoa(len(b)) + " bytes):\n" + strings.TrimSuffix(dumpTsharkText(b), "\n") +
				"Reassembled TCP (41 bytes):\n" + dumpTsharkText(frame)
		}), 1, nil, FormatWireshark, NoTimes},
		{"CRLF", strings.ReplaceAll(join(eth, func(_ int, b []byte) string { return dumpTsharkText(b) }), "\n", "\r\n"), 1, nil, FormatWireshark, NoTimes},
		{"a prompt and a trailing line", "$ tshark -r x.pcap -x\n" + join(eth, func(_ int, b []byte) string { return dumpTsharkText(b) }) + "$ \n", 1, nil, FormatWireshark, NoTimes},
	} {
		want := eth
		if c.link == 101 {
			want = ip
		}
		d := checkPackets(t, c.name, c.text, want, c.link, c.times)
		if d.Format != c.format || d.Times != c.form {
			t.Errorf("%s: %s with %s, want %s with %s", c.name, d.Format, d.Times, c.format, c.form)
		}
		if want := strings.Count(c.text, "Reassembled TCP"); d.Other != want {
			t.Errorf("%s: %d dumps of other data sources, want %d", c.name, d.Other, want)
		}
	}

	// Every link header StripPacket reads gives its link type, and a
	// packet it does not read takes the others'.
	sll := []byte{0, 0, 3, 4, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0}
	sll2 := []byte{8, 0, 0, 0, 0, 0, 0, 1, 3, 4, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0}
	null := []byte{2, 0, 0, 0}
	for _, c := range []struct {
		hdr  []byte
		link int
	}{{sll, 113}, {sll2, 276}, {null, 0}} {
		pkts := [][]byte{append(bytes.Clone(c.hdr), ip[0]...), append(bytes.Clone(c.hdr), ip[2]...), append(bytes.Clone(c.hdr), ip[1]...)}
		checkPackets(t, "link "+strconv.Itoa(c.link), join(pkts, func(_ int, b []byte) string { return dumpTsharkText(b) }), pkts, c.link, nil)
	}

	// UTF-16, as PowerShell's > saves tshark's output.
	text := join(eth, func(_ int, b []byte) string { return dumpTsharkText(b) })
	u := []byte{0xff, 0xfe}
	for _, r := range utf16.Encode([]rune(text)) {
		u = append(u, byte(r), byte(r>>8))
	}
	checkPackets(t, "utf-16", string(u), eth, 1, nil)

	// A time on some packets only: none is used.
	mixed := packetLine("10:00:00.000001") + dumpTcpdumpText(ip[0]) + packetLine("") + dumpTcpdumpText(ip[1])
	checkPackets(t, "some times", mixed, ip[:2], 101, nil)
	// Two forms of time: none is used.
	mixed = packetLine("10:00:00.000001") + dumpTcpdumpText(ip[0]) + packetLine("2024-05-01 10:00:00.000001") + dumpTcpdumpText(ip[1])
	checkPackets(t, "two forms", mixed, ip[:2], 101, nil)
	// Times that are no times.
	for _, bad := range []string{"25:00:00.000001", "10:61:00.1", "10:00:00.", "10:00:00.0000000001", "2024-13-01 10:00:00.1", "2024-05-01 10:00", "1.", ".5", "10:00:00.1x"} {
		mixed = packetLine(bad) + dumpTcpdumpText(ip[0]) + packetLine(bad) + dumpTcpdumpText(ip[1])
		checkPackets(t, "time "+bad, mixed, ip[:2], 101, nil)
	}
}

// One packet's dump is one packet, the bytes Parse gives for it.
func TestParsePacketsOne(t *testing.T) {
	dir := filepath.Join("testdata", "packets")
	names, err := filepath.Glob(filepath.Join(dir, "*-*"))
	if err != nil || len(names) < 5 {
		t.Fatal(names, err)
	}
	for _, name := range names {
		text, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := Parse(text, Auto)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ParsePackets(text)
		if err != nil || len(d.Packets) != 1 || !bytes.Equal(d.Packets[0].Data, want) {
			t.Errorf("%s: ParsePackets = %+v, %v", name, d, err)
		}
	}
}

// What is not a dump of packets is refused, a malformed one with where it
// is wrong, and none costs memory beyond its size.
func TestParsePacketsErrors(t *testing.T) {
	eth, _ := testPackets()
	two := dumpTsharkText(eth[0]) + dumpTsharkText(eth[1])
	n := strings.Count(two, "\n") // the lines before the wrong one
	for _, c := range []struct {
		name, text string
		kind       error
		line       int
		msg        string
	}{
		{"empty", "", ErrNoPackets, 0, "no hex dump of a whole TCP/IP packet"},
		{"binary", "\x00\x01\x02\xff\xfe", ErrNoPackets, 0, ""},
		{"plain hex", hex.EncodeToString(eth[0]), ErrNoPackets, 0, ""},
		{"prose", "no dumps here\n10:00:00.000001 IP a > b\n", ErrNoPackets, 0, ""},
		{"frames, not packets", dumpXXDText(frame, 2) + dumpXXDText(frame, 2), ErrNoPackets, 0, ""},
		{"a packet cut short", dumpTsharkText(eth[0][:50]) + dumpTsharkText(eth[0][:45]), ErrNoPackets, 0, ""},
		{"a dump from offset 0x10", two + "Frame (4 bytes):\n0010  00 01 02 03\n", ErrDump, n + 2, "a packet's dump starts at offset 0"},
		{"a dump that goes on past its packet", two + "0010  00 01 02 03\n", ErrDump, n + 1, "offset 0x10 does not follow the previous line (expected 0x3c)"},
		{"offsets that skip", two + "0000  00 01\n0020  00\n", ErrDump, n + 2, "offset 0x20 does not follow the previous line (expected 0x2)"},
		{"an odd digit", two + "0000  00 01\n0002  0\n", ErrOddDigits, n + 2, "odd number of hex digits"},
		{"a bad character", two + "0000  00 01\n0002  0g 00\n", ErrChar, n + 2, "unexpected character 'g'"},
		{"a repeat line last", two + "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|\n*\n", ErrDump, n + 2, "'*' repeat line without a following offset line"},
		{"a repeat past the text's size", two + "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|\n*\n7ffffff0  00\n", ErrTooLarge, n + 2, "'*' repeat line would add"},
	} {
		_, err := ParsePackets([]byte(c.text))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Line != c.line || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: err = %#v, want %v at line %d: %q", c.name, err, c.kind, c.line, c.msg)
		}
		// A PacketStream says the same, at the same line.
		_, _, err = streamAll(c.text)
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Line != c.line || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s, streamed: err = %#v, want %v at line %d: %q", c.name, err, c.kind, c.line, c.msg)
		}
	}

	// Memory follows the text, whatever it declares: many tiny dumps
	// (each a packet of one byte, but the first: the worst case, a
	// DumpPacket and its end for every 9 bytes of text, the text's copy
	// counted too), long lines of text between them, '*' repeats (which
	// add at most the text's size).
	var sb strings.Builder
	sb.WriteString(dumpTsharkText(eth[0]))
	for sb.Len() < 4<<20 {
		sb.WriteString("0000  00\n")
	}
	many := sb.String()
	long := dumpTsharkText(eth[0]) + strings.Repeat("x", 4<<20) + "\n" + dumpTsharkText(eth[1])
	var stars strings.Builder
	stars.WriteString(dumpTsharkText(eth[0]))
	for stars.Len() < 1<<20 {
		stars.WriteString("00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|\n*\n00000100\n")
	}
	for _, c := range []struct {
		name string
		text string
		n    int
	}{{"many dumps", many, 1 + (len(many)-len(dumpTsharkText(eth[0])))/9}, {"long text", long, 2}, {"repeats", stars.String(), -1}} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, err := ParsePackets([]byte(c.text))
		runtime.ReadMemStats(&after)
		switch {
		case c.n < 0:
			// The repeats stop at the text's own size.
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s: %v, want a repeat refused", c.name, err)
			}
		case err != nil:
			t.Fatalf("%s: %v", c.name, err)
		case len(d.Packets) != c.n:
			t.Errorf("%s: %d packets, want %d", c.name, len(d.Packets), c.n)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		if alloc > uint64(16*len(c.text)) {
			t.Errorf("%s: %d bytes allocated for %d bytes of text", c.name, alloc, len(c.text))
		}
		t.Logf("%s: %.1f bytes allocated a byte of text", c.name, float64(alloc)/float64(len(c.text)))
	}
}

// A line whose offset has fewer than 4 digits goes on with a dump where it
// follows it, as Parse reads it, so one packet's dump gives the bytes
// Parse gives (FuzzParsePackets found them apart); elsewhere such a line
// is text, as tshark -P's summary lines, which start with a frame number.
func TestParsePacketsShortOffset(t *testing.T) {
	eth, _ := testPackets()
	text := dumpWiresharkText(eth[0][:80], false) + "50 " + hex.EncodeToString(eth[0][80:81]) + "\n"
	want, _, err := Parse([]byte(text), Hex)
	if err != nil || !bytes.Equal(want, eth[0][:81]) {
		t.Fatalf("Parse = %x, %v", want, err)
	}
	checkPackets(t, "short offset", text, [][]byte{want}, 1, nil)
	// Not where it does not follow: the next packet's summary line.
	text = dumpTsharkText(eth[0]) + "2 0.001 10.0.0.1 → 10.0.0.2 TCP\n\n" + dumpTsharkText(eth[1])
	d := checkPackets(t, "summary line", text, eth[:2], 1, nil)
	if d.Times != NoTimes {
		t.Errorf("times %s: the first packet has none", d.Times)
	}
}

// MaybePackets, the main module's cheap look at a text that is no frame,
// says a text of several packets' dumps may be one (every shape of
// TestParsePackets, through checkPackets), and one dump is not, in every
// shape Parse reads (testdata/dumps, testdata/packets).
func TestMaybePackets(t *testing.T) {
	for _, dir := range []string{filepath.Join("..", "..", "testdata", "dumps"), filepath.Join("testdata", "packets")} {
		files, err := filepath.Glob(filepath.Join(dir, "*"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if MaybePackets(b) {
				t.Errorf("%s, one dump, may be several packets'", f)
			}
		}
	}
	for _, c := range []struct {
		text string
		want bool
	}{
		{"0000  00 01\n0000  00 02\n", true},
		{"\t0x0000:  4500 0029\n\t0x0000:  4500 0029\n", true},
		{"00000000: 0000 0025\r\n00000000: 0000 0025\r\n", true},
		{"0000000 000000 022400\n0000000 000000 022400\n", true},
		{"0000  00 01\n0010  00 02\n", false},
		{"000  00 01\n000  00 02\n", false},
		{"0000\n0000\n", false},
		{"00000000\n00000000 00\n", false},
	} {
		if got := MaybePackets([]byte(c.text)); got != c.want {
			t.Errorf("MaybePackets(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}
