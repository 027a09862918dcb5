package input

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// xxd -e prints little-endian words: each group's bytes reversed, while
// its ASCII column keeps them in order, and a last group short of the
// group size pushed right. Those dumps were read as xxd's, each group's
// bytes in the wrong order (a frame of 0x1c bytes read as one of
// 469762048), or failed on the pushed group ("ASCII column is longer than
// the 8 bytes on the line"); they are refused, as od -t x4 is, at the
// first line that shows it (testdata/xxd, by its gen.sh). xxd's own
// groups of 4 and 8 bytes (-g4, -g8) are big-endian and read as before.
func TestXXDLittleEndianRefused(t *testing.T) {
	for _, name := range []string{"frame", "all", "zeros", "tail"} {
		want, err := os.ReadFile(filepath.Join("testdata", "xxd", name+".bin"))
		if os.IsNotExist(err) {
			want = readTestdata(t, name+".bin")
		}
		for _, suffix := range []string{"xxd", "xxd-g1", "xxd-g4", "xxd-g8", "xxd-c32-g4"} {
			got, format, err := Parse(readXXDTestdata(t, name+"."+suffix), Auto)
			if err != nil || !bytes.Equal(got, want) || format != FormatXXD {
				t.Errorf("%s.%s: Parse = %x, %s, %v; want %x, %s", name, suffix, got, format, err, want, FormatXXD)
			}
		}
		for suffix, line := range map[string]int{"xxd-e": 1, "xxd-e-g8": 1, "xxd-e-g2": 1, "xxd-e-c8": 1} {
			switch {
			case name == "all" && suffix == "xxd-e-c8":
				line = 6 // the first printable bytes, 0x20 on
			case name == "all":
				line = 4
			case name == "tail" && suffix == "xxd-e-c8":
				line = 3 // "ab  "
			case name == "tail":
				line = 2
			}
			checkDumpRefused(t, name+"."+suffix, readXXDTestdata(t, name+"."+suffix), line, "a dump of little-endian words (xxd -e) is not read")
		}
	}

	for _, c := range []struct {
		name, text string
		line       int
	}{
		// Its ASCII column all dots: only the pushed group shows it
		// (printf '\0\0\0\7\0\0\0\0\0\17' | xxd -e).
		{"the pushed group", "00000000: 07000000 00000000     0f00           ..........\n", 1},
		{"the pushed group alone", "00000000: 07000000 00000000\n00000008:     0f00           ..\n", 2},
		// The space byte that starts its ASCII column is in the gap
		// before it (head -c 41 all.bin | xxd -e).
		{"a space byte after the pushed group", "00000020: 23222120 27262524       28            !\"#$%&'(\n", 1},
		// The probe's: xxd -e and xxd -e -g 8 of a 32-byte frame.
		{"the probe's xxd -e", "00000000: 1c000000 00000300 01000000 62610300  ..............ab\n00000010: 00000063 74090001 74747474 74747474  c......ttttttttt\n", 1},
		{"the probe's xxd -e -g8", "00000000: 000003001c000000 6261030001000000  ..............ab\n00000010: 7409000100000063 7474747474747474  c......ttttttttt\n", 1},
	} {
		checkDumpRefused(t, c.name, []byte(c.text), c.line, "(xxd -e)")
	}

	// xxd's own layouts whose ASCII column starts with what reads as
	// hex, after the gap a short last line leaves: not xxd -e's.
	for _, c := range []struct{ name, text, want string }{
		{"hex in the ASCII column", "00000000: 6162 2020 6364 6566 67                 ab  cdefg\n", "616220206364656667"},
		{"a group's worth", "00000000: 6162 6364                                abcd\n", "61626364"},
		{"spaces after it", "00000000: 6162 2020 2020                           ab    \n", "616220202020"},
	} {
		got, _, err := Parse([]byte(c.text), Auto)
		if err != nil || !bytes.Equal(got, decodeHexForTest(t, c.want)) {
			t.Errorf("%s: Parse = %x, %v; want %s", c.name, got, err, c.want)
		}
	}
}

// od -c and hexdump -c print each byte as a character, an escape or
// three octal digits: such a dump was read as string escapes (od -c of a
// 109-byte frame gave 446 bytes, the offsets and spaces among them); it
// is refused, saying what prints bytes kwire reads.
func TestCharDumpRefused(t *testing.T) {
	for _, name := range []string{"frame", "all", "zeros", "tail"} {
		for _, suffix := range []string{"od-c", "od-An-c", "od-Ax-t-cz", "hexdump-c"} {
			checkDumpRefused(t, name+"."+suffix, readXXDTestdata(t, name+"."+suffix), 1,
				"a dump of characters (od -c, hexdump -c) is not read: its bytes are characters, escapes and octal; use od -A x -t x1 or hexdump -C")
		}
	}
	// What is no such dump: C escapes, od -b's octal, od -t x1.
	for _, c := range []struct{ name, text, want string }{
		{"escapes", `\0\0\0\x25`, "00000025"},
		{"od -t x1 of a space", "0000000 20 20 20 20\n0000004\n", "20202020"},
	} {
		got, _, err := Parse([]byte(c.text), Auto)
		if err != nil || !bytes.Equal(got, decodeHexForTest(t, c.want)) {
			t.Errorf("%s: Parse = %x, %v; want %s", c.name, got, err, c.want)
		}
	}
	if _, _, err := Parse([]byte("0000000 000 000 000 045\n0000004\n"), Auto); err != nil && strings.Contains(err.Error(), "od -c") {
		t.Errorf("od -b: %v, said to be od -c", err)
	}
}

func readXXDTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "xxd", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkDumpRefused wants text refused as a dump kwire does not read, at
// the start of a line, saying msg.
func checkDumpRefused(t *testing.T, name string, text []byte, line int, msg string) {
	t.Helper()
	got, format, err := Parse(text, Auto)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrDump) || e.Line != line || !strings.Contains(e.Msg, msg) {
		t.Errorf("%s: Parse = %d bytes, %s, %v; want a dump error at line %d saying %q", name, len(got), format, err, line, msg)
	}
}
