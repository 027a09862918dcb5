package recjson

import (
	"bytes"
	"encoding/base64"
	"math/rand"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/jsontext"
)

// AppendBytes's one pass writes what checking printable and then
// writing the text (or base64) writes: on random bytes, text of every
// kind, and each byte class.
func TestAppendBytesOnePass(t *testing.T) {
	ref := func(raw []byte) []byte {
		if printable(raw) {
			return append(jsontext.AppendString([]byte(`{"text":`), raw), '}')
		}
		return append(base64.StdEncoding.AppendEncode([]byte(`{"base64":"`), raw), '"', '}')
	}
	inputs := [][]byte{nil, []byte(`{"a":"b\\c"}`), []byte("tab\tnl\ncr\r"), []byte("é😀 ok"), []byte("\u2028"), []byte("bad\xff"), []byte{0x7f}, []byte{1}}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 4000; i++ {
		b := make([]byte, rnd.Intn(20+i%2*200))
		for j := range b {
			b[j] = byte(rnd.Intn(256))
			if rnd.Intn(3) > 0 {
				b[j] = byte(0x20 + rnd.Intn(0x60))
			}
		}
		inputs = append(inputs, b)
	}
	for c := 0; c < 256; c++ {
		inputs = append(inputs, []byte{'a', byte(c), 'b'})
	}
	for _, in := range inputs {
		if got, want := AppendBytes(nil, in), ref(in); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, want %s", in, got, want)
		}
		// After other output, with room to spare or none.
		for _, dst := range [][]byte{[]byte("x,"), append(make([]byte, 0, 4096), "x,"...)} {
			if got, want := AppendBytes(dst, in), append([]byte("x,"), ref(in)...); !bytes.Equal(got, want) {
				t.Fatalf("%q after output: %s, want %s", in, got, want)
			}
		}
	}
}

// printable is the rule recjson.AppendBytes follows: text of printable
// characters, tab, CR and LF.
func printable(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x80 {
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return false
		}
		if !unicode.IsPrint(r) {
			return false
		}
		i += n
	}
	return true
}
