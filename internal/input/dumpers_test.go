package input

import (
	"bytes"
	"encoding/hex"
	"strconv"
	"strings"
)

// Emulators of the dump tools, checked byte for byte against the golden
// files in testdata (made by testdata/gen.sh) and then used to build inputs
// from arbitrary bytes in tests and fuzzing.

func printable(c byte) byte {
	if c >= 0x20 && c < 0x7f {
		return c
	}
	return '.'
}

func pad(s string, width int, left bool) string {
	for len(s) < width {
		if left {
			s = " " + s
		} else {
			s += " "
		}
	}
	return s
}

func hexOff(off, width int) string {
	s := strconv.FormatInt(int64(off), 16)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// dumpXXDText is `xxd -g group` (16 columns).
func dumpXXDText(b []byte, group int) string {
	var sb strings.Builder
	width := 16*2 + (16/group - 1)
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		var hx, asc strings.Builder
		for i, c := range line {
			hx.WriteString(hex.EncodeToString([]byte{c}))
			if (i+1)%group == 0 && i != 15 {
				hx.WriteByte(' ')
			}
			asc.WriteByte(printable(c))
		}
		sb.WriteString(hexOff(off, 8) + ": " + pad(hx.String(), width, false) + "  " + asc.String() + "\n")
	}
	return sb.String()
}

// squeezed writes lines with '*' for repeated full lines, as hexdump and od
// do, then the final offset line.
func squeezed(b []byte, offWidth int, line func(off int, l []byte) string) string {
	var sb strings.Builder
	var prev []byte
	starred := false
	for off := 0; off < len(b); off += 16 {
		l := b[off:min(off+16, len(b))]
		if prev != nil && len(l) == 16 && bytes.Equal(l, prev) {
			if !starred {
				sb.WriteString("*\n")
				starred = true
			}
			continue
		}
		starred = false
		prev = l
		sb.WriteString(line(off, l))
	}
	sb.WriteString(hexOff(len(b), offWidth) + "\n")
	return sb.String()
}

// dumpHexdumpCText is `hexdump -C`.
func dumpHexdumpCText(b []byte) string {
	return squeezed(b, 8, func(off int, l []byte) string {
		s := hexOff(off, 8) + "  "
		for i := 0; i < 16; i++ {
			if i < len(l) {
				s += hex.EncodeToString(l[i:i+1]) + " "
			} else {
				s += "   "
			}
			if i == 7 {
				s += " "
			}
		}
		asc := make([]byte, len(l))
		for i, c := range l {
			asc[i] = printable(c)
		}
		return s + " |" + string(asc) + "|\n"
	})
}

// dumpODText is `od -A x -t x1z`.
func dumpODText(b []byte) string {
	return squeezed(b, 6, func(off int, l []byte) string {
		s := hexOff(off, 6)
		for i := 0; i < 16; i++ {
			if i < len(l) {
				s += " " + hex.EncodeToString(l[i:i+1])
			} else {
				s += "   "
			}
		}
		asc := make([]byte, len(l))
		for i, c := range l {
			asc[i] = printable(c)
		}
		return s + "  >" + string(asc) + "<\n"
	})
}

// dumpWiresharkText is Wireshark's "Copy as Hex Dump" (with ASCII if
// ascii is set).
func dumpWiresharkText(b []byte, ascii bool) string {
	var sb strings.Builder
	for off := 0; off < len(b); off += 16 {
		l := b[off:min(off+16, len(b))]
		sb.WriteString(hexOff(off, 4) + "  ")
		for _, c := range l {
			sb.WriteString(" " + hex.EncodeToString([]byte{c}))
		}
		if ascii {
			sb.WriteString("   ")
			if off+16 >= len(b) {
				sb.WriteString(strings.Repeat(" ", (16-len(l))*3))
			}
			for _, c := range l {
				sb.WriteByte(printable(c))
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// dumpTcpdumpText is the hex lines of `tcpdump -X`.
func dumpTcpdumpText(b []byte) string {
	var sb strings.Builder
	for off := 0; off < len(b); off += 16 {
		l := b[off:min(off+16, len(b))]
		hx := ""
		for i := 0; i+1 < len(l); i += 2 {
			hx += " " + hex.EncodeToString(l[i:i+2])
		}
		if len(l)%2 == 1 {
			hx += " " + hex.EncodeToString(l[len(l)-1:])
		}
		asc := make([]byte, len(l))
		for i, c := range l {
			asc[i] = printable(c)
			if c == ' ' {
				asc[i] = '.'
			}
		}
		sb.WriteString("\t0x" + hexOff(off, 4) + ": " + pad(hx, 40, false) + "  " + string(asc) + "\n")
	}
	return sb.String()
}

// joinBytes writes each byte as prefix+hex, joined by sep.
func joinBytes(b []byte, prefix, sep string) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = prefix + hex.EncodeToString([]byte{c})
	}
	return strings.Join(parts, sep)
}

// goLiteral is Go's %#v of a []byte: "[]byte{0x0, 0x25, ...}".
func goLiteral(b []byte) string {
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = "0x" + strconv.FormatUint(uint64(c), 16)
	}
	return "[]byte{" + strings.Join(parts, ", ") + "}"
}

// pythonRepr is Python's repr() of a bytes object.
func pythonRepr(b []byte) string {
	var sb strings.Builder
	sb.WriteString("b'")
	for _, c := range b {
		switch {
		case c == '\\' || c == '\'':
			sb.WriteString("\\" + string(rune(c)))
		case c == '\t':
			sb.WriteString(`\t`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		default:
			sb.WriteString(`\x` + hex.EncodeToString([]byte{c}))
		}
	}
	sb.WriteString("'")
	return sb.String()
}

// wiresharkCString is Wireshark's "Copy as C String" (octal escapes).
func wiresharkCString(b []byte) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		switch c {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\a':
			sb.WriteString(`\a`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '\v':
			sb.WriteString(`\v`)
		default:
			if c >= 32 && c <= 126 {
				sb.WriteByte(c)
			} else {
				o := strconv.FormatUint(uint64(c), 8)
				sb.WriteString(`\` + strings.Repeat("0", 3-len(o)) + o)
			}
		}
	}
	sb.WriteByte('"')
	return sb.String()
}
