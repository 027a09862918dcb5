package input

import (
	"bytes"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readFollow(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "follow", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A followed stream (tshark -z follow, testdata/follow/gen.sh) is read as
// packets: a handshake, then a segment for each run of one peer's bytes,
// from the Node lines' (or YAML peers') addresses, IPv6 too, whose TCP
// payloads are, side by side, the bytes the follow shows. MaybePackets
// says the playground's capture module should read it.
func TestParsePacketsFollow(t *testing.T) {
	peersOnly := "peers:\n  - peer: 0\n    host: 10.0.0.1\n    port: 50000\n  - peer: 1\n    host: 10.0.0.2\n    port: 9092\npackets:\n"
	if d, err := ParsePackets([]byte(peersOnly)); err != nil || len(d.Packets) != 3 || d.Times != NoTimes {
		t.Errorf("a YAML stream without data: %v, %+v; want its handshake, with no times", err, d)
	}
	for _, tc := range []struct {
		file    string
		packets int
		times   TimeForm
		ipv6    bool
	}{
		{"ipv6-null.hex", 11, NoTimes, true},
		{"ipv6-null.yaml", 14, Seconds, true}, // a packet for each of YAML's, with its time
		{"kafkajs-1-2.hex", 38, NoTimes, false},
		{"kafkajs-1.yaml", 11, Seconds, false},
	} {
		txt := readFollow(t, tc.file)
		if !MaybePackets(txt) {
			t.Errorf("%s: MaybePackets says no", tc.file)
		}
		d, err := ParsePackets(txt)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(d.Packets) != tc.packets || d.Times != tc.times || d.Format != FormatFollow {
			t.Errorf("%s: %d packets, times %d, %q; want %d, %d", tc.file, len(d.Packets), d.Times, d.Format, tc.packets, tc.times)
		}
		var sent [2][]byte
		srcPort := func(b []byte) []byte {
			if b[0]>>4 == 6 {
				return b[40:42]
			}
			return b[20:22]
		}
		for i, p := range d.Packets {
			payload, _, ok := StripPacket(p.Data)
			if !ok || p.LinkType != 101 || (p.Data[0]>>4 == 6) != tc.ipv6 {
				t.Fatalf("%s: packet %d: %v %d", tc.file, i, ok, p.LinkType)
			}
			side := 1 // the node whose port is the first packet's (the SYN's) is node 0
			if bytes.Equal(srcPort(p.Data), srcPort(d.Packets[0].Data)) {
				side = 0
			}
			sent[side] = append(sent[side], payload...)
		}
		if tc.file == "ipv6-null.hex" {
			// The follow's bytes, line by line, of each node.
			var want [2][]byte
			for _, l := range strings.Split(string(txt), "\n") {
				body := strings.TrimLeft(l, " \t")
				if len(body) < 12 || !onlyHexDigits([]byte(body[:8])) {
					continue
				}
				_, b, err := followLine(text{}, 0, []byte(body))
				if err != nil {
					t.Fatal(err)
				}
				side := 0
				if len(body) < len(l) {
					side = 1
				}
				want[side] = append(want[side], b...)
			}
			if !bytes.Equal(sent[0], want[0]) || !bytes.Equal(sent[1], want[1]) {
				t.Errorf("%s: payloads %d and %d bytes, want %d and %d", tc.file, len(sent[0]), len(sent[1]), len(want[0]), len(want[1]))
			}
		}
	}
}

// A follow edited or cut wrong says where: a line missing from a node's
// dump, data before the Node lines, YAML's data that is no base64, peers
// of two address families.
func TestParsePacketsFollowErrors(t *testing.T) {
	hexText := string(readFollow(t, "ipv6-null.hex"))
	lines := strings.Split(hexText, "\n")
	missing := strings.Join(append(append([]string{}, lines[:7]...), lines[8:]...), "\n")
	noNodes := strings.Replace(strings.Replace(hexText, "Node 0:", "Nod 0:", 1), "Node 1:", "Nod 1:", 1)
	yaml := string(readFollow(t, "ipv6-null.yaml"))
	badData := strings.Replace(yaml, "data: !!binary |\n      ", "data: !!binary |\n      *", 1)
	mixed := strings.Replace(yaml, "host: 2001:db8::2", "host: 10.0.0.2", 1)
	for _, tc := range []struct {
		name, text string
		kind       error
		line       int
		says       string
	}{
		{"a line missing", missing, ErrDump, 8, "offset 32 after 16 bytes from node 0: a line is missing"},
		{"no Node lines", noNodes, ErrDump, 5, "a followed stream names Node 0 and Node 1 before its data"},
		{"YAML data no base64", badData, ErrBase64, 0, "a followed packet's data is no base64"},
		{"peers of IPv4 and IPv6", mixed, ErrDump, 0, "a followed stream names both its peers' hosts and ports"},
	} {
		_, err := ParsePackets([]byte(tc.text))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, tc.kind) || !strings.Contains(e.Msg, tc.says) || tc.line > 0 && e.Line != tc.line {
			t.Errorf("%s: got %v, want %v at line %d: %s", tc.name, err, tc.kind, tc.line, tc.says)
		}
	}
}

// parseIP (written here: net/netip costs kwire.wasm 23 KB) reads what
// net/netip reads, the oracle, and refuses what it refuses.
func TestFollowParseIP(t *testing.T) {
	for _, s := range []string{
		"127.0.0.1", "10.0.0.255", "0.0.0.0", "::", "::1", "1::", "2001:db8::1", "2001:db8:0:0:1:0:0:1",
		"fe80::1%lo", "::ffff:192.168.1.20", "64:ff9b::10.0.0.1", "1:2:3:4:5:6:7:8", "ffff:FFFF::",
		"", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1:2:3:4:5:6:7:8:9", "1:::2", "1::2::3", ":1", "1:", "12345::",
		"1:2:3:4:5:6:7::8", "g::1", "::1.2.3", "1.2.3.4::",
	} {
		want, werr := netip.ParseAddr(s)
		ip, v4, ok := parseIP(s)
		if ok != (werr == nil) {
			t.Errorf("%q: ok %v, netip: %v", s, ok, werr)
			continue
		}
		if ok && (ip != want.As16() && !(v4 && want.Is4() && [4]byte(ip[12:]) == want.As4()) || v4 != want.Is4()) {
			t.Errorf("%q: %x (v4 %v), netip: %s", s, ip, v4, want)
		}
	}
}
