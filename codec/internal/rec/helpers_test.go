package rec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"testing"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/tree"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// tRec is a record to build into a batch.
type tRec struct {
	key, val []byte
	hdrs     []kmsg.Header
	tsDelta  int64
}

var kgoCodecs = map[int]kgo.CompressionCodec{
	CodecGzip:   kgo.GzipCompression(),
	CodecSnappy: kgo.SnappyCompression(),
	CodecLZ4:    kgo.Lz4Compression(),
	CodecZstd:   kgo.ZstdCompression(),
}

// buildBatch builds a magic 2 batch with kmsg types, compressing the records
// with franz-go's own compressor.
func buildBatch(tb testing.TB, codec int, base int64, attrs int16, recs []tRec) []byte {
	tb.Helper()
	var raw []byte
	for i, r := range recs {
		kr := kmsg.Record{TimestampDelta64: r.tsDelta, OffsetDelta: int32(i), Key: r.key, Value: r.val, Headers: r.hdrs}
		body := kr.AppendTo(nil)
		kr.Length = int32(len(body) - 1)
		raw = kr.AppendTo(raw)
	}
	if codec != CodecNone {
		c, err := kgo.DefaultCompressor(kgoCodecs[codec])
		if err != nil {
			tb.Fatal(err)
		}
		var buf bytes.Buffer
		out, ct := c.Compress(&buf, raw)
		if int(ct) != codec {
			tb.Fatalf("compressor used codec %d, want %d", ct, codec)
		}
		raw = append([]byte(nil), out...)
	}
	b := kmsg.RecordBatch{
		FirstOffset: base, PartitionLeaderEpoch: 3, Magic: 2, Attributes: attrs | int16(codec),
		LastOffsetDelta: int32(len(recs) - 1), FirstTimestamp: 1700000000000, MaxTimestamp: 1700000000000 + int64(len(recs)),
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(len(recs)), Records: raw,
	}
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], castagnoli))
	return out
}

// checkTree verifies node spans: children of the same buffer tile their
// parent (after its prefix), derived buffers are fully spanned, and the
// top-level nodes tile [start, end).
func checkTree(tb testing.TB, res *Result, start, end int) {
	tb.Helper()
	pos := start
	for _, n := range res.Nodes {
		if n.Start != pos {
			tb.Fatalf("top-level node %s starts at %d, want %d", n.Name, n.Start, pos)
		}
		pos = n.End
		checkNode(tb, res, n)
	}
	if pos != end {
		tb.Fatalf("top-level nodes end at %d, want %d", pos, end)
	}
}

func checkNode(tb testing.TB, res *Result, n *tree.Node) {
	tb.Helper()
	if n.Start > n.PrefixEnd || n.PrefixEnd > n.End {
		tb.Fatalf("node %s: bad span %d/%d/%d", n.Name, n.Start, n.PrefixEnd, n.End)
	}
	if n.Role != tree.RoleRecord && n.Role != tree.RoleRaw {
		return // nodes from DecodeData
	}
	pos := n.Start
	var prev *tree.Node
	same := 0
	for _, c := range n.Children {
		if c.Buf != n.Buf {
			if c.Name != "inflated" || c.Start != 0 || c.End != len(res.Derived[c.Buf-res.Base]) {
				tb.Fatalf("node %s: child %s in buffer %d does not span it", n.Name, c.Name, c.Buf)
			}
			checkNode(tb, res, c)
			continue
		}
		same++
		switch {
		case prev != nil && c.Start == prev.Start && c.End == prev.End:
		case c.Start == pos:
			pos = c.End
		case pos == n.Start && c.Start == n.PrefixEnd:
			pos = c.End
		default:
			tb.Fatalf("node %s [%d,%d): child %s starts at %d, want %d", n.Name, n.Start, n.End, c.Name, c.Start, pos)
		}
		prev = c
		checkNode(tb, res, c)
	}
	if same > 0 && pos != n.End {
		tb.Fatalf("node %s [%d,%d): children end at %d", n.Name, n.Start, n.End, pos)
	}
}

func warnings(res *Result) []string {
	var w []string
	for _, n := range res.Nodes {
		tree.Walk(n, func(x *tree.Node) bool {
			for _, s := range x.Warnings {
				w = append(w, x.Name+": "+s)
			}
			return true
		})
	}
	return w
}

func parseJSON(tb testing.TB, js []byte) any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatalf("bad JSON %s: %v", js, err)
	}
	return v
}

// roundTrip decodes payload, checks the tree, writes JSON, re-encodes it
// and requires identical bytes. It returns the result and the JSON.
func roundTrip(tb testing.TB, payload []byte, wantClean bool) (*Result, []byte) {
	tb.Helper()
	var s slab.Slab
	buf := append([]byte{0xEE, 0xEE, 0xEE}, payload...) // non-zero start
	res, err := Decode(&s, buf, Options{Start: 3})
	if err != nil {
		tb.Fatalf("decode: %v", err)
	}
	checkTree(tb, res, 3, len(buf))
	if w := warnings(res); wantClean && len(w) > 0 {
		tb.Fatalf("warnings: %q", w)
	}
	js := treeJSON(nil, res, payload, Decoded)
	v := parseJSON(tb, js)
	out, err := Encode(nil, v)
	if err != nil {
		tb.Fatalf("encode: %v\n%s", err, js)
	}
	if !bytes.Equal(out, payload) {
		tb.Fatalf("re-encoded bytes differ (%d vs %d bytes)\njson: %.2000s", len(out), len(payload), js)
	}
	return res, js
}

// kgoRecords processes a payload the way a franz-go consumer does.
func kgoRecords(tb testing.TB, payload []byte) []*kgo.Record {
	tb.Helper()
	fp, _ := kgo.ProcessFetchPartition(kgo.ProcessFetchPartitionOpts{KeepControlRecords: true, Topic: "t"},
		&kmsg.FetchResponseTopicPartition{RecordBatches: payload, HighWatermark: 1 << 40, LastStableOffset: 1 << 40},
		kgo.DefaultDecompressor(), nil)
	if fp.Err != nil {
		tb.Fatalf("franz-go: %v", fp.Err)
	}
	return fp.Records
}

// compareKgo requires the decoded records to match franz-go's view.
func compareKgo(tb testing.TB, res *Result, payload []byte) {
	tb.Helper()
	want := kgoRecords(tb, payload)
	var got []RecordInfo
	for _, ri := range res.Records {
		if ri.Node.Name == "message" {
			if a := ri.Node.Get("attributes"); a != nil && a.Int&7 != 0 {
				continue // wrappers are not records to a consumer
			}
		}
		got = append(got, ri)
	}
	if len(got) != len(want) {
		tb.Fatalf("decoded %d records, franz-go %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		k, v := g.Node.Get("key"), g.Node.Get("value")
		if g.Offset != w.Offset || (g.Timestamp != -1 && g.Timestamp != w.Timestamp.UnixMilli()) {
			tb.Fatalf("record %d: offset/timestamp %d/%d, franz-go %d/%d", i, g.Offset, g.Timestamp, w.Offset, w.Timestamp.UnixMilli())
		}
		if !bytes.Equal(k.Raw, w.Key) || k.Null != (w.Key == nil) || !bytes.Equal(v.Raw, w.Value) || v.Null != (w.Value == nil) {
			tb.Fatalf("record %d: key/value %q/%q, franz-go %q/%q", i, k.Raw, v.Raw, w.Key, w.Value)
		}
		hs := g.Node.Get("headers")
		nh := 0
		if hs != nil {
			nh = len(hs.Children)
		}
		if nh != len(w.Headers) {
			tb.Fatalf("record %d: %d headers, franz-go %d", i, nh, len(w.Headers))
		}
		for j, h := range w.Headers {
			c := hs.Children[j]
			if string(c.Get("key").Raw) != h.Key || !bytes.Equal(c.Get("value").Raw, h.Value) {
				tb.Fatalf("record %d header %d differs", i, j)
			}
		}
	}
}

// treeJSON is the JSON of a decoded records field written from its tree by
// AppendTreeJSON, a writer of its own: the reference WriteJSON is held to.
func treeJSON(dst []byte, res *Result, raw []byte, mode JSONMode) []byte {
	if res == nil {
		return AppendTreeJSON(dst, nil, nil, raw, mode, nil, fakeDataJSON)
	}
	info := func(n *tree.Node) (int64, int64, bool) {
		ri, ok := res.Info(n)
		return ri.Offset, ri.Timestamp, ok
	}
	return AppendTreeJSON(dst, res.Nodes, info, raw, mode, nil, fakeDataJSON)
}
