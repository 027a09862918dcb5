package rec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// bothWays decodes payload through the tree (Decode, then AppendJSON) and
// without it (WriteJSON), with the same options, and fails unless the two
// agree on the JSON, the warnings (paths, offsets, order), the nodes
// counted, the derived buffers numbered and the error.
func bothWays(tb testing.TB, payload []byte, opts Options) []byte {
	tb.Helper()
	run := func(stream bool) (js []byte, ws []budget.Warning, b budget.Budget, nbuf int, err error) {
		o := opts
		o.Budget = &budget.Budget{MaxNodes: max(opts.MaxNodes, 1<<20), NestedNodes: max(opts.MaxNodes, 1<<20), MaxDecompressed: max(opts.MaxDecompressed, 1<<20), MaxWork: 1 << 40}
		if opts.MaxNodes > 0 {
			o.Budget.MaxNodes, o.Budget.NestedNodes = opts.MaxNodes, opts.MaxNodes
		}
		if opts.MaxDecompressed > 0 {
			o.Budget.MaxDecompressed = opts.MaxDecompressed
		}
		o.Warnings, o.Path = &budget.Warnings{}, func() string { return "records" }
		if stream {
			flushes := 0
			nbuf, err = WriteJSON(&js, payload, o, func() { flushes++ })
		} else {
			var s slab.Slab
			var res *Result
			res, err = Decode(&s, payload, o)
			js = treeJSON(nil, res, payload, Decoded)
			nbuf = len(res.Derived)
			checkWarningsOnNodes(tb, res, o.Warnings.List)
		}
		return js, o.Warnings.List, *o.Budget, nbuf, err
	}
	tjs, tws, tb2, tn, terr := run(false)
	sjs, sws, sb, sn, serr := run(true)
	if !bytes.Equal(tjs, sjs) {
		tb.Fatalf("JSON differs\ntree   %s\nstream %s", tjs, sjs)
	}
	if fmt.Sprint(tws) != fmt.Sprint(sws) {
		tb.Fatalf("warnings differ\ntree   %v\nstream %v", tws, sws)
	}
	if tb2 != sb {
		tb.Fatalf("budgets differ\ntree   %+v\nstream %+v", tb2, sb)
	}
	if tn != sn || fmt.Sprint(terr) != fmt.Sprint(serr) {
		tb.Fatalf("derived %d/%d, errors %v / %v", tn, sn, terr, serr)
	}
	return tjs
}

// checkWarningsOnNodes requires the listed warnings to be exactly the
// nodes' warnings, in a depth-first walk.
func checkWarningsOnNodes(tb testing.TB, res *Result, list []budget.Warning) {
	tb.Helper()
	var walked []string
	for _, n := range res.Nodes {
		tree.Walk(n, func(x *tree.Node) bool {
			walked = append(walked, x.Warnings...)
			return true
		})
	}
	var listed []string
	for _, w := range list {
		listed = append(listed, w.Message)
	}
	if strings.Join(walked, "\n") != strings.Join(listed, "\n") {
		tb.Fatalf("listed warnings are not the nodes' in document order\nnodes  %q\nlisted %q", walked, listed)
	}
}

// fuzzInputs reads the first []byte of every entry of the fuzz corpus dir.
func fuzzInputs(tb testing.TB, dir string) [][]byte {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Split(string(raw), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
			continue
		}
		v, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		out = append(out, []byte(v))
	}
	return out
}

// The tree and the tree-less writer agree on every fuzz corpus entry,
// under generous and under tight limits.
func TestWriteJSONMatchesTree(t *testing.T) {
	var inputs [][]byte
	for _, name := range []string{"FuzzBatch", "FuzzMessageSet"} {
		inputs = append(inputs, fuzzInputs(t, filepath.Join("testdata", "fuzz", name))...)
	}
	for codec, name := range map[int]string{CodecGzip: "FuzzGzip", CodecSnappy: "FuzzSnappy", CodecLZ4: "FuzzLZ4", CodecZstd: "FuzzZstd"} {
		for _, p := range fuzzInputs(t, filepath.Join("testdata", "fuzz", name)) {
			inputs = append(inputs, codecBatch(codec, 4, p))
		}
	}
	for codec := CodecNone; codec <= CodecZstd; codec++ {
		inputs = append(inputs, buildBatch(t, codec, 0, 0, sampleRecs(3)), benchPayload(t, codec)[:1<<16])
	}
	inputs = append(inputs, controlBatch(t, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 7}),
		controlBatch(t, []byte{0, 0, 0, 2}, []byte{0, 0, 0, 0, 0, 1, 0xAB}))
	for _, h := range []string{gzipWrappedV0, gzipWrappedV1} {
		p, _ := hexDecode(h)
		inputs = append(inputs, p, append(p, p[:30]...))
	}
	m := withOffset(msgV1, 0)
	for i := 0; i < 6; i++ {
		m = wrapMessages(t, 1, CodecGzip, int64(i), 1, m)
	}
	inputs = append(inputs, m)
	for i, in := range inputs {
		for _, o := range []Options{{}, {MaxNodes: 64, MaxDepth: 2}, {MaxDecompressed: 100}} {
			o.DecodeData, o.DataJSON = fakeData, fakeDataJSON
			t.Run(strconv.Itoa(i), func(t *testing.T) { bothWays(t, in, o) })
		}
	}
}

// fakeData decodes a KRaft value as one int32 "leaderId" field, or fails
// when it is shorter.
func fakeData(s *slab.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error) {
	if end-start < 4 {
		return nil, fmt.Errorf("%s too short", name)
	}
	n := s.New()
	n.Name, n.Kind, n.Role, n.Buf, n.Start, n.PrefixEnd, n.End = name, schema.Struct, tree.RoleBody, bufIdx, start, start, end
	c := s.New()
	c.Name, c.Kind, c.Role, c.Buf, c.Start, c.PrefixEnd, c.End, c.Int = "leaderId", schema.Int32, tree.RoleField, bufIdx, start, start, start+4, int64(binary.BigEndian.Uint32(buf[start:]))
	n.Children = []*tree.Node{c}
	return n, nil
}

// fakeDataJSON writes what fakeData reads: {"leaderId":N}.
func fakeDataJSON(dst []byte, _ string, _ int16, buf []byte, start, _ int) []byte {
	return fmt.Appendf(dst, `{"leaderId":%d}`, int32(binary.BigEndian.Uint32(buf[start:])))
}

func hexDecode(s string) ([]byte, error) {
	b := make([]byte, len(s)/2)
	for i := range b {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		b[i] = byte(v)
	}
	return b, nil
}

// appendBytesValue's one pass writes what checking printable and then
// writing the text (or base64) writes: on random bytes, text of every
// kind, and each byte class.
func TestAppendBytesValueOnePass(t *testing.T) {
	ref := func(raw []byte) []byte {
		if printable(raw) {
			return append(jsontext.AppendString([]byte(`{"text":`), raw), '}')
		}
		return append(jsontext.AppendBase64([]byte(`{"base64":`), raw), '}')
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
	// Each kind of byte at each place of the words read at once (and in
	// the bytes after the last whole word), and runes across a word's end.
	for n := 1; n <= 26; n++ {
		for p := 0; p < n; p++ {
			for _, c := range []string{`"`, `\`, "\t", "\x01", "\x7f", "\x80", "\xff", "é", "😀", "\u2028", "\xe2\x82"} {
				b := bytes.Repeat([]byte{'a'}, n)
				inputs = append(inputs, append(append(b[:p:p], c...), b[p:]...))
			}
		}
	}
	for _, in := range inputs {
		checkBytesValue(t, in, ref)
	}
}

// Words with several bytes to escape are written 4 bytes at a time from
// a table (escapeShifts): every mix of quotes, backslashes and plain bytes
// in a word, at the start of a value and after a word of each kind,
// and before a tail of bytes.
func TestAppendBytesValueEscapesInWords(t *testing.T) {
	ref := func(raw []byte) []byte {
		return append(jsontext.AppendString([]byte(`{"text":`), raw), '}')
	}
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
			checkBytesValue(t, in, ref)
		}
	}
}

// checkBytesValue checks appendBytesValue(in) against ref, alone and after
// other output: with room to spare, none, and exactly the room it asks
// for (its word stores come nearest the end there).
func checkBytesValue(t *testing.T, in []byte, ref func([]byte) []byte) {
	t.Helper()
	if got, want := appendBytesValue(nil, in), ref(in); !bytes.Equal(got, want) {
		t.Fatalf("%q: %s, want %s", in, got, want)
	}
	exact := append(make([]byte, 0, 2+len(`{"text":""}`)+2*len(in)), "x,"...)
	for _, dst := range [][]byte{[]byte("x,"), append(make([]byte, 0, 4096), "x,"...), exact} {
		if got, want := appendBytesValue(dst, in), append([]byte("x,"), ref(in)...); !bytes.Equal(got, want) {
			t.Fatalf("%q after output: %s, want %s", in, got, want)
		}
	}
}

// FuzzBytesValue: appendBytesValue writes what checking printable and
// then writing the text (jsontext) or base64 writes.
func FuzzBytesValue(f *testing.F) {
	for _, s := range []string{"", `{"order":1,"note":"a\\b"}`, "tab\there\n", "é😀\u2028", "bad\xff utf-8", "\x7f"} {
		f.Add([]byte(s))
	}
	ref := func(raw []byte) []byte {
		if printable(raw) {
			return append(jsontext.AppendString([]byte(`{"text":`), raw), '}')
		}
		return append(jsontext.AppendBase64([]byte(`{"base64":`), raw), '}')
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkBytesValue(t, in, ref) })
}

// printable is the rule appendBytesValue follows: text of printable
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

// varint and varlong read what wire.Varint and wire.Varlong read: every
// varint of one and two bytes, each cut short, and random bytes.
func TestVarintFast(t *testing.T) {
	var ins [][]byte
	for c := 0; c < 256; c++ {
		ins = append(ins, []byte{byte(c)})
		for d := 0; d < 256; d++ {
			ins = append(ins, []byte{byte(c), byte(d)}, []byte{byte(c), byte(d), 0x80, 1})
		}
	}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 20000; i++ {
		b := make([]byte, rnd.Intn(12))
		for j := range b {
			b[j] = byte(rnd.Intn(256)) | byte(rnd.Intn(2))<<7
		}
		ins = append(ins, b)
	}
	for _, in := range ins {
		b := append([]byte{9, 9}, in...)
		b = append(b, 7, 7)
		for end := 2; end <= 2+len(in); end++ {
			v, n, m := varint(b, 2, end)
			wv, wn, wm := wire.Varint(b[2:end])
			if v != wv || n != wn || m != wm {
				t.Fatalf("varint(% x) = %d %d %v, want %d %d %v", b[2:end], v, n, m, wv, wn, wm)
			}
			lv, ln, lm := varlong(b, 2, end)
			wlv, wln, wlm := wire.Varlong(b[2:end])
			if lv != wlv || ln != wln || lm != wlm {
				t.Fatalf("varlong(% x) = %d %d %v, want %d %d %v", b[2:end], lv, ln, lm, wlv, wln, wlm)
			}
		}
	}
}

// appendHeaderKey writes a valid UTF-8 key as jsontext.AppendString does
// (plain keys by a shorter way), any other as base64.
func TestAppendHeaderKey(t *testing.T) {
	ins := [][]byte{nil, []byte("trace-id"), []byte("a\"b"), []byte(`back\slash`), []byte("tab\t"), []byte("del\x7f"), []byte("é"), []byte("\u2028"), []byte("bad\xff"), []byte("a-long-plain-header-key-0123456789")}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 4000; i++ {
		b := make([]byte, rnd.Intn(40))
		for j := range b {
			b[j] = byte(0x20 + rnd.Intn(0x60))
			if rnd.Intn(20) == 0 {
				b[j] = byte(rnd.Intn(256))
			}
		}
		ins = append(ins, b)
	}
	for _, in := range ins {
		want := jsontext.AppendString([]byte("x"), in)
		if !utf8.Valid(in) {
			want = append(jsontext.AppendBase64([]byte(`x{"base64":`), in), '}')
		}
		if got := appendHeaderKey([]byte("x"), in, false); !bytes.Equal(got, want) {
			t.Fatalf("%q: %s, want %s", in, got, want)
		}
	}
}

// WriteJSON with a Scratch, warm, allocates nothing however many batches
// and records it writes: no decoder, budget, result or batch state per
// call or per batch, no memory per record.
func TestWriteJSONAllocs(t *testing.T) {
	for _, c := range benchCodecs {
		p := benchPayload(t, c.codec)
		var sc Scratch
		out := make([]byte, 0, 8<<20)
		run := func() {
			out = out[:0]
			if _, err := WriteJSON(&out, p, Options{Scratch: &sc}, nil); err != nil {
				t.Fatal(err)
			}
		}
		run()
		if n := testing.AllocsPerRun(5, run); n != 0 {
			t.Errorf("%s: %v allocations per call of 10 batches, want 0", c.name, n)
		}
	}
}
