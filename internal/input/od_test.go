package input

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// od's dumps read in every address radix (octal by default, -A d
// decimal, -A x hex, -A n none), and the dumps of 16-bit words (hexdump
// without -C, od -x) as the little-endian words they are, an odd
// length's padding byte dropped (testdata/od, by gen.sh from
// testdata/dumps). od's octal and decimal addresses were read as hex
// ("offset 0x20 does not follow the previous line (expected 0x10) in od
// dump"), the word dumps refused ("odd number of hex digits") or, with
// od -A x -x, read as big-endian words.
func TestParseODRadixAndWords(t *testing.T) {
	for _, name := range []string{"frame", "zeros"} {
		want := readTestdata(t, name+".bin")
		for _, c := range []struct {
			suffix string
			format Format
		}{
			{"od-t-x1", FormatOD},
			{"od-Ad-t-x1", FormatOD},
			{"od-Ax-t-x1", FormatOD},
			{"od-t-x1z", FormatOD},
			{"od-An-t-x1", FormatHex},
			{"od-x", FormatWords},
			{"od-Ad-x", FormatWords},
			{"od-Ax-x", FormatWords},
			{"hexdump", FormatWords},
			{"hexdump-x", FormatWords},
			{"od-Ad-t-x1-w8", FormatOD},
			{"od-t-x1-w8", FormatOD},
		} {
			if name == "zeros" && c.suffix == "od-An-t-x1" {
				continue // a '*' line without addresses: see below
			}
			text, err := os.ReadFile(filepath.Join("testdata", "od", name+"."+c.suffix))
			if err != nil {
				t.Fatal(err)
			}
			got, format, err := Parse(text, Auto)
			if err != nil || !bytes.Equal(got, want) || format != c.format {
				t.Errorf("%s.%s: Parse = %x, %s, %v; want %x, %s", name, c.suffix, got, format, err, want, c.format)
			}
		}
	}

	for _, c := range []struct{ name, text, want string }{
		// One line: its address alone says nothing of its radix, and
		// the bytes are the same in any.
		{"one line, octal end address", "0000000 00 00 00 04 61 62 63 64\n0000010\n", "0000000461626364"},
		{"one line, decimal end address", "0000000 00 00 00 04 61 62 63 64\n0000008\n", "0000000461626364"},
		{"one line, hex end address of 16 bytes", "0000000 00 00 00 0c 61 62 63 64 65 66 67 68 69 6a 6b 6c\n0000010\n", "0000000c6162636465666768696a6b6c"},
		{"one line, octal end address of 16 bytes", "0000000 00 00 00 0c 61 62 63 64 65 66 67 68 69 6a 6b 6c\n0000020\n", "0000000c6162636465666768696a6b6c"},
		{"one line, no end address", "0000000 00 00 00 02 61 62\n", "0000000261 62"},
		{"one word line, odd length", "0000000 0000 0300 6261 0063\n0000007\n", "00000003616263"},
		// od -j skips: the first address is not 0.
		{"octal from 020", "0000020 00 00 00 04 61 62 63 64 65 66 67 68 69 6a 6b 6c\n0000040 6d\n0000041\n", "00000004616263646566676869 6a6b6c6d"},
	} {
		got, _, err := Parse([]byte(c.text), Auto)
		want := decodeHexForTest(t, c.want)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: Parse = %x, %v; want %x", c.name, got, err, want)
		}
	}

	// Wrong addresses are still refused, in the radix the dump has.
	for _, c := range []struct{ name, text, msg string }{
		{"octal, a line missing", "0000000 00 00 00 25 00 12 00 03 00 00 00 01 00 09 6b 61\n0000020 66 6b 61 2d 63 6c 69 00 0a 6b 61 66 6b 61 2d 63\n0000060 6c 69\n",
			"offset 060 (octal) does not follow the previous line (expected 040 (octal))"},
		{"no radix fits", "0000000 00 00 00 25 00 12 00 03 00 00 00 01 00 09 6b 61\n0000021 66\n",
			"does not follow the previous line in od dump (expected 16 bytes after the first line's offset"},
		{"a '*' line without addresses", "00 00 00 44 00 00 00 00 00 00 00 00 00 00 00 00\n00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n*\n00 00 00 00 6b 61\n",
			"a '*' repeat line in hex without addresses (od -A n?)"},
		{"od -t x4", "0000000 25000000 03001200 01000000 616b0900\n0000020 2d616b66\n0000024\n", "a dump of 32-bit words (od -t x4) is not read"},
		{"od -t x8", "0000000 0300120025000000 616b090001000000\n", "a dump of 64-bit words (od -t x8) is not read"},
		{"a word dump's padding that is not zero", "0000000 0000 0300 6261 0163\n0000007\n", "offset 0x7 does not follow"},
	} {
		_, _, err := Parse([]byte(c.text), Auto)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.msg)) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.msg)
		}
	}
}

func decodeHexForTest(t *testing.T, s string) []byte {
	t.Helper()
	b, _, err := Parse([]byte(s), Hex)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return b
}

// dumpODOctalText is od -t x1 of b: octal addresses of 7 digits, the
// end address last.
func dumpODOctalText(b []byte) string {
	addr := func(n int) string {
		s := strconv.FormatInt(int64(n), 8)
		return strings.Repeat("0", 7-len(s)) + s
	}
	var sb strings.Builder
	for off := 0; off < len(b); off += 16 {
		sb.WriteString(addr(off))
		for _, c := range b[off:min(off+16, len(b))] {
			sb.WriteString(" " + hex.EncodeToString([]byte{c}))
		}
		sb.WriteString("\n")
	}
	return sb.String() + addr(len(b)) + "\n"
}

// Several packets' dumps by od with its default octal addresses read as
// a capture.
func TestParsePacketsODOctal(t *testing.T) {
	eth, _ := testPackets()
	var text string
	for _, b := range eth {
		text += dumpODOctalText(b)
	}
	checkPackets(t, "od -t x1", text, eth, 1, nil)
}
