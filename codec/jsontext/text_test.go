package jsontext

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"
	"unicode"
	"unicode/utf8"
)

// AppendTextOrBase64's one pass writes what checking printable and then
// writing the text (or base64) writes: on random bytes, text of every
// kind, and each byte class.
func TestAppendTextOrBase64OnePass(t *testing.T) {
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
	// Each kind of byte at each place of the words and 16-byte blocks read
	// at once (and in the bytes after the last whole one), and runes
	// across a word's or a block's end.
	for n := 1; n <= 50; n++ {
		for p := 0; p < n; p++ {
			for _, c := range []string{`"`, `\`, "\t", "\x01", "\x7f", "\x80", "\xff", "é", "😀", "\u2028", "\xe2\x82"} {
				b := bytes.Repeat([]byte{'a'}, n)
				inputs = append(inputs, append(append(b[:p:p], c...), b[p:]...))
			}
		}
	}
	for _, in := range inputs {
		checkTextOrBase64(t, in, wantTextOrBase64)
	}
}

// Words with several bytes to escape are written 4 bytes at a time from
// a table (escapeShifts): every mix of quotes, backslashes and plain bytes
// in a word, at the start of a value and after a word of each kind,
// and before a tail of bytes.
func TestAppendTextOrBase64EscapesInWords(t *testing.T) {
	kinds := []byte{'a', '"', '\\'}
	word := make([]byte, 8)
	for m := 0; m < 6561; m++ { // 3^8
		for i, x := 0, m; i < 8; i, x = i+1, x/3 {
			word[i] = kinds[x%3]
		}
		for _, in := range [][]byte{
			word,
			append(append([]byte{}, word...), "xyz"...),
			append([]byte(`"quoted"`), word...),
			append([]byte("plainabc"), append(word, `{"k":1}`...)...),
		} {
			checkTextOrBase64(t, in, wantText)
		}
	}
}

// On amd64 printable ASCII goes 16 bytes a step (escapeBlocks), each half
// shuffled by its mask of bytes to escape: every mask of both halves, the
// block at a value's start and after a block, before a tail, and before
// bytes that are not printable (the text taken back) or UTF-8 (the rest
// a byte at a time, then blocks again).
func TestAppendTextOrBase64EscapesInBlocks(t *testing.T) {
	block := make([]byte, 16)
	for m := 0; m < 1<<16; m++ {
		for i := range block {
			switch {
			case m>>i&1 == 0:
				block[i] = 'a' + byte(i)
			case (m>>(i+1)^i)&1 == 0:
				block[i] = '"'
			default:
				block[i] = '\\'
			}
		}
		checkTextOrBase64(t, block, wantText)
		if m%7 != 0 {
			continue // the contexts on a seventh of the masks
		}
		after := append([]byte(`plain text here!`), block...)
		checkTextOrBase64(t, after, wantText)
		checkTextOrBase64(t, append(append([]byte{}, block...), "tail"...), wantText)
		checkTextOrBase64(t, append(append([]byte{}, after...), 0x01), wantBase64)
		utf := append(append([]byte{}, block...), "é, then \"more\" text"...)
		checkTextOrBase64(t, append(utf, block...), wantText)
	}
}

// wantText and wantBase64 are what AppendTextOrBase64 writes for raw that
// is printable text, or not: the string writer's text, or base64;
// wantTextOrBase64 picks by the rule (printable).
func wantText(raw []byte) []byte {
	return append(AppendString([]byte(`{"text":`), raw), '}')
}

func wantBase64(raw []byte) []byte {
	return append(AppendBase64([]byte(`{"base64":`), raw), '}')
}

func wantTextOrBase64(raw []byte) []byte {
	if printable(raw) {
		return wantText(raw)
	}
	return wantBase64(raw)
}

// checkTextOrBase64 checks AppendTextOrBase64(in) against ref, alone and after
// other output: with room to spare, none, and exactly the room it asks
// for (its word stores come nearest the end there).
func checkTextOrBase64(t *testing.T, in []byte, ref func([]byte) []byte) {
	t.Helper()
	if got, want := AppendTextOrBase64(nil, in), ref(in); !bytes.Equal(got, want) {
		t.Fatalf("%q: %s, want %s", in, got, want)
	}
	exact := append(make([]byte, 0, 2+len(`{"text":""}`)+2*len(in)), "x,"...)
	for _, dst := range [][]byte{[]byte("x,"), append(make([]byte, 0, 4096), "x,"...), exact} {
		if got, want := AppendTextOrBase64(dst, in), append([]byte("x,"), ref(in)...); !bytes.Equal(got, want) {
			t.Fatalf("%q after output: %s, want %s", in, got, want)
		}
	}
}

// FuzzTextOrBase64: AppendTextOrBase64 writes what checking printable and
// then writing the text (jsontext) or base64 writes.
func FuzzTextOrBase64(f *testing.F) {
	for _, s := range []string{"", `{"order":1,"note":"a\\b"}`, "tab\there\n", "é😀\u2028", "bad\xff utf-8", "\x7f"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkTextOrBase64(t, in, wantTextOrBase64) })
}

// printable is the rule AppendTextOrBase64 follows: text of printable
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

// BenchmarkTextOrBase64: AppendTextOrBase64 on the kinds of value records
// carry: JSON documents (a quote every few bytes), plain text, keys, and
// binary bytes (base64). Each kind cycles through 4,096 values, as a
// segment's records do, so that branch predictors cannot learn one
// value's bytes.
func BenchmarkTextOrBase64(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	words := []string{"the", "order", "ships", "from", "eu-west", "warehouse", "today", "paid", "customer", "note:", "a", "42"}
	kinds := []struct {
		name string
		make func(n int) []byte
	}{
		{"json", func(n int) []byte {
			return []byte(fmt.Sprintf(`{"order":%d,"customer":"c-%05d","items":[{"sku":"sku-%04d","qty":%d,"price":%d.%02d},{"sku":"sku-%04d","qty":1,"price":9.99}],"total":%d.%02d,"currency":"EUR","status":"%s","created":"2023-11-14T22:%02d:%02dZ"}`,
				n, n%9973, n%811, 1+n%4, 5+n%50, n%100, (n*7)%811, 20+n%90, n%100, []string{"placed", "paid", "shipped"}[n%3], n/60%60, n%60))
		}},
		{"text", func(int) []byte {
			var v []byte
			for len(v) < 100+rng.Intn(100) {
				v = append(append(v, words[rng.Intn(len(words))]...), ' ')
			}
			return v
		}},
		{"key", func(n int) []byte { return []byte(fmt.Sprintf("c-%05d", n%9973)) }},
		{"binary", func(int) []byte {
			v := make([]byte, 100+rng.Intn(100))
			rng.Read(v)
			return v
		}},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			vals := make([][]byte, 4096)
			size := 0
			for i := range vals {
				vals[i] = k.make(i * 7919)
				size += len(vals[i])
			}
			b.SetBytes(int64(size / len(vals)))
			var out []byte
			i := 0
			for b.Loop() {
				out = AppendTextOrBase64(out[:0], vals[i&4095])
				i++
			}
		})
	}
}
