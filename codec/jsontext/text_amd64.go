//go:build amd64 && !purego

package jsontext

import "golang.org/x/sys/cpu"

// haveEscapeBlocks says escapeBlocks runs here: it needs SSSE3's byte
// shuffle, which amd64's baseline (SSE2) lacks and every amd64 made since
// 2006 has.
var haveEscapeBlocks = cpu.X86.HasSSSE3

// escapeBlocks writes src's text into dst, 16 bytes a step, each quote
// and backslash after a backslash, for as long as a step's 16 bytes are
// printable ASCII (0x20 to 0x7e), 16 of src are left and dst has room for
// 32; it returns the bytes read and written. In SSSE3 (text_amd64.s): a
// JSON value has a quote every few bytes, and AppendTextOrBase64's word
// loop, spreading each half word by a table in general registers, was a
// sixth of kwire batch's time on realistic traffic.
//
//go:noescape
func escapeBlocks(dst, src []byte) (read, written int)

// escapeShuffles[m] places 8 bytes, those whose bit is set in m after a
// backslash: index 8 of the shuffled register holds a backslash, 0x80
// writes a zero past the 8+escapeCounts[m] bytes placed.
var escapeShuffles, escapeCounts = func() (s [256][16]byte, c [256]byte) {
	for m := range 256 {
		p := 0
		for k := range 8 {
			if m>>k&1 != 0 {
				s[m][p] = 8
				p++
			}
			s[m][p] = byte(k)
			p++
		}
		c[m] = byte(p - 8)
		for ; p < 16; p++ {
			s[m][p] = 0x80
		}
	}
	return
}()
