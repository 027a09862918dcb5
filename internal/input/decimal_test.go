package input

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"
)

// A byte array printed by a program (Go's fmt.Println, Python's list,
// Java's Arrays.toString, Rust's {:?}, node's console.log, Erlang's and
// Elixir's binaries, Delve's print, od -t u1) is read as the bytes it was
// printed from.
// Python's print of binascii.hexlify(b) (b'0000...') is hex, where it was
// read as a string of hex digits; its print of a bytearray and node's
// JSON.stringify of a Buffer, refused before, are read too. The texts are
// the real programs' output (testdata/dumps/gen.sh); all.bin holds every
// byte value, so Java's are signed.
func TestByteListsAsProgramsPrintThem(t *testing.T) {
	for _, base := range []string{"frame", "all"} {
		want := readTestdata(t, base+".bin")
		for _, ext := range []string{"go-v", "python-list", "java", "rust", "node-u8", "od-u1", "node-buffer", "python-hexlify", "python-bytearray", "node-json", "erlang", "elixir", "delve"} {
			name := base + "." + ext
			if base == "all" && (ext == "node-u8" || ext == "node-buffer" || ext == "elixir" || ext == "delve") {
				continue // cut by their printer (TestByteListsCutByTheirPrinter)
			}
			got, format, err := Parse(readTestdata(t, name), Auto)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			wantFormat := FormatDecimal
			switch ext {
			case "node-buffer", "python-hexlify":
				wantFormat = FormatHex
			case "python-bytearray":
				wantFormat = FormatCEscapes
			}
			if !bytes.Equal(got, want) || format != wantFormat {
				t.Errorf("%s: got %d bytes as %q, want the %d of %s.bin as %q", name, len(got), format, len(want), base, wantFormat)
			}
		}
	}
}

// node prints 100 of an array's values and 50 of a Buffer's bytes, then
// how many it left out, Elixir 50 of a binary's, then "...", and Delve 64
// of a slice's: the bytes are not all there, which is said where
// the cut is, never decoded as a shorter frame.
func TestByteListsCutByTheirPrinter(t *testing.T) {
	for _, tc := range []struct {
		file      string
		line, col int
		says      string
	}{
		{"all.node-u8", 11, 3, `"... 156 more items"`},
		{"all.node-buffer", 1, 159, `"... 206 more bytes"`},
		{"all.elixir", 3, 39, `"..."`},
		{"all.delve", 1, 212, `"...+192 more"`},
	} {
		_, _, err := Parse(readTestdata(t, tc.file), Auto)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrList) || e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.Msg, tc.says) {
			t.Errorf("%s: got %v, want a list error at line %d, column %d naming %s", tc.file, err, tc.line, tc.col, tc.says)
		}
	}
}

// What a decimal list is not: hex keeps its readings, and a list of
// decimal values is read as one only where no hex reading is meant.
func TestDecimalListOrHex(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		mode       Mode
		want       string // hex of the bytes, or the error's kind
		format     Format
	}{
		{"go's %v", "[0 0 0 37 0 18]", Auto, "000000250012", FormatDecimal},
		{"two digits each, in brackets: decimal", "[10 20 30 40]", Auto, "0a141e28", FormatDecimal},
		{"two digits each, --input hex", "[10 20 30 40]", Hex, "10203040", FormatHex},
		{"two digits each, no brackets: hex", "10 20 30 40", Auto, "10203040", FormatHex},
		{"leading zeros are hex's", "[00 01 02 10]", Auto, "00010210", FormatHex},
		{"0x in brackets", "[0x00, 0x25]", Auto, "0025", FormatHex},
		{"a hex letter", "[0a 14 1e]", Auto, "0a141e", FormatHex},
		{"no brackets, one-digit values", "0,0,0,37,255", Auto, "00000025ff", FormatDecimal},
		{"od -A n -t u1", "   0   0   0  37 255\n 128\n", Auto, "00000025ff80", FormatDecimal},
		{"java's signed bytes", "[0, -1, -128, 127]", Auto, "00ff807f", FormatDecimal},
		{"a type and a count before it", "Uint8Array(3) [ 0, 1, 200 ]", Auto, "0001c8", FormatDecimal},
		{"no byte", "[0, 256]", Auto, "list", ""},
		{"no byte, unbracketed: hex's error", "0 0 256", Auto, "odd", ""},
		{"hex with a typo stays a hex error", "0012 34 5", Auto, "odd", ""},
		{"a short buffer", "<Buffer 00 00 00 25>", Auto, "00000025", FormatHex},
		{"value JSON", "{\n  \"direction\": \"request\"\n}", Auto, "json", ""},
		{"value JSON, --input hex", `{"apiKey":3}`, Hex, "json", ""},
		{"NDJSON of line objects", `[{"hex":"00"}]`, Auto, "json", ""},
		{"kwire example's output", "00000025001200\n{\n  \"direction\": \"request\"\n}\n", Auto, "00000025001200", FormatHexJSON},
		{"a C array stays one", "{0x00, 0x25}", Auto, "0025", FormatHex},
		{"node's JSON of a Buffer, spaced", "{ \"type\": \"Buffer\", \"data\": [ 0, 37 ] }", Auto, "0025", FormatDecimal},
		{"node's JSON of a Buffer, no byte", `{"type":"Buffer","data":[0,256]}`, Auto, "list", ""},
		{"another object with data", `{"type":"Other","data":[0,37]}`, Auto, "json", ""},
		{"a binary cut by Elixir", "<<0, 0, 0, 37, ...>>", Auto, "list", ""},
	} {
		got, format, err := Parse([]byte(tc.text), tc.mode)
		var kind error
		switch tc.want {
		case "list":
			kind = ErrList
		case "odd":
			kind = ErrOddDigits
		case "json":
			kind = ErrJSON
		}
		if kind != nil {
			if !errors.Is(err, kind) {
				t.Errorf("%s: got %x, %v; want a %v error", tc.name, got, err, kind)
			}
			continue
		}
		if err != nil || hex.EncodeToString(got) != tc.want || format != tc.format {
			t.Errorf("%s: got %s as %q (%v), want %s as %q", tc.name, hex.EncodeToString(got), format, err, tc.want, tc.format)
		}
	}
}

// A byte array as source code spells it, in decimal: Go's []byte{...},
// Java's new byte[]{...} (signed), C's initializer, Rust's vec![...] and
// &[...], an assignment before it and a ';' after it or not. Go's and
// Java's were read as hex in braces ("odd number of hex digits"), Rust's
// refused at the 'v'. 0x values are hex as before.
func TestByteArraysAsSourceSpellsThem(t *testing.T) {
	for _, base := range []string{"frame", "all"} {
		want := readTestdata(t, base+".bin")
		unsigned, signed := make([]string, len(want)), make([]string, len(want))
		for i, b := range want {
			unsigned[i], signed[i] = strconv.Itoa(int(b)), strconv.Itoa(int(int8(b)))
		}
		for _, text := range []string{
			"[]byte{" + strings.Join(unsigned, ", ") + "}",
			"b := []byte{\n\t" + strings.Join(unsigned, ",\n\t") + ",\n}",
			"new byte[]{" + strings.Join(signed, ", ") + "}",
			"byte[] b = new byte[] { " + strings.Join(signed, ", ") + " };",
			"vec![" + strings.Join(unsigned, ", ") + "]",
			"let b = vec![" + strings.Join(unsigned, ", ") + "];",
			"unsigned char b[] = {" + strings.Join(unsigned, ", ") + "};",
		} {
			got, format, err := Parse([]byte(text), Auto)
			if err != nil || !bytes.Equal(got, want) || format != FormatDecimal {
				t.Errorf("%s: %.30q...: got %d bytes as %q (%v), want the %d of %s.bin as %q", base, text, len(got), format, err, len(want), base, FormatDecimal)
			}
		}
	}
	for _, tc := range []struct {
		name, text string
		want       string // hex of the bytes, or "list" for a list error
		format     Format
	}{
		{"go", "[]byte{0, 0, 0, 105, 0, 11}", "00000069000b", FormatDecimal},
		{"go, uint8", "[]uint8{0, 37}", "0025", FormatDecimal},
		{"go, two digits each: decimal, as Go reads them", "[]byte{10, 20}", "0a14", FormatDecimal},
		{"java", "new byte[]{0, 0, -81, -56}", "0000afc8", FormatDecimal},
		{"java, an initializer", "byte[] b = {0, -1};", "00ff", FormatDecimal},
		{"c", "uint8_t b[4] = { 0, 0, 0, 37 };", "00000025", FormatDecimal},
		{"rust", "vec![0, 0, 0, 105]", "00000069", FormatDecimal},
		{"rust, a slice", "&[0, 37]", "0025", FormatDecimal},
		{"rust, a typed array", "let b: [u8; 2] = [0, 37];", "0025", FormatDecimal},
		{"python, assigned", "b = [0, 0, 0, 37]", "00000025", FormatDecimal},
		{"braces alone, one-digit values", "{0, 0, 0, 105}", "00000069", FormatDecimal},
		{"braces alone, hex", "{00, 25}", "0025", FormatHex},
		{"go's %#v", "[]byte{0x0, 0x25}", "0025", FormatHex},
		{"a c array in hex", "unsigned char x[] = { 0x00, 0x25 };", "0025", FormatHex},
		{"no byte", "[]byte{0, 256}", "list", ""},
		{"no java byte", "new byte[]{0, -129}", "list", ""},
	} {
		got, format, err := Parse([]byte(tc.text), Auto)
		if tc.want == "list" {
			if !errors.Is(err, ErrList) {
				t.Errorf("%s: got %x, %v; want a list error", tc.name, got, err)
			}
			continue
		}
		if err != nil || hex.EncodeToString(got) != tc.want || format != tc.format {
			t.Errorf("%s: got %s as %q (%v), want %s as %q", tc.name, hex.EncodeToString(got), format, err, tc.want, tc.format)
		}
	}
}

// Bytes of one hex digit each ("0 0 0 69 0 b", as JavaScript's
// toString(16) leaves them): the error says a byte takes two, and that
// decimal bytes need their brackets, where it said only "odd number of
// hex digits".
func TestOneDigitBytesSaySo(t *testing.T) {
	for _, text := range []string{"0 0 0 69 0 b 0 5", "0,0,0,6f,0,1"} {
		_, _, err := Parse([]byte(text), Auto)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrOddDigits) || e.Column != 1 ||
			!strings.Contains(e.Msg, `a byte takes two hex digits, "00" for "0"`) || !strings.Contains(e.Msg, "decimal bytes need their brackets") {
			t.Errorf("%q: %v; want an odd-digits error at column 1 saying a byte takes two hex digits", text, err)
		}
	}
	// A digit short in a stream of them is no such list.
	if _, _, err := Parse([]byte("0000000a001"), Auto); err == nil || strings.Contains(err.Error(), "two hex digits") {
		t.Errorf("a stream a digit short: %v", err)
	}
}
