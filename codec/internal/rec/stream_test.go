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

// A big entry left undecoded is written as base64 in pieces, flushed
// between them (jsonSink.b64): the pieces join into the one string the
// tree's JSON holds, for a length of whole pieces and one with a part
// piece after them.
func TestBigBase64InPieces(t *testing.T) {
	for _, n := range []int{3 << 19, 3<<19 + 5} {
		p := make([]byte, n)
		binary.BigEndian.PutUint32(p[8:], 1<<30) // a batchLength past the end: a truncated entry
		p[16] = 2
		want := append(jsontext.AppendBase64([]byte(`[{"_truncated":`), p), `}]`...)
		if js := bothWays(t, p, Options{}); !bytes.Equal(js, want) {
			t.Fatalf("%d bytes: %.80s...", n, js)
		}
	}
}
