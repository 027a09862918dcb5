package render

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestPrefixCellsSayWhatTheyHold(t *testing.T) {
	b, _ := hex.DecodeString(apiVersionsV3)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	got := map[string]string{}
	for _, c := range Cells(f, 0) {
		got[c.Label+"@"+itoa(c.Start)] = c.Type + " " + c.Value
	}
	require.Equal(t, "int16 5", got["clientId length@12"], "a classic string's INT16 length")
	require.Equal(t, "uvarint 6 = 5 + 1", got["clientSoftwareName length@20"], "a compact length is the length + 1")
	require.Equal(t, "uvarint 0", got["tagged fields@19"])
	require.Equal(t, "int32 27", got["size@0"])

	for _, tc := range []struct {
		b       []byte
		kind    string
		compact bool
		typ     string
		want    string
	}{
		{[]byte{0xff, 0xff}, KindPrefix, false, "int16", "-1 (null)"},
		{[]byte{0, 0, 0, 3}, KindPrefix, false, "int32", "3"},
		{[]byte{0xff, 0xff, 0xff, 0xff}, KindPrefix, false, "int32", "-1 (null)"},
		{[]byte{0}, KindPrefix, true, "uvarint", "0 (null)"},
		{[]byte{0x81, 0x01}, KindPrefix, true, "uvarint", "129 = 128 + 1"},
		{[]byte{0x01}, KindPrefix, false, "varint", "-1 (null)"}, // zig-zag, inside records
		{[]byte{0x0a}, KindPrefix, false, "varint", "5"},         // zig-zag 10 -> 5
		{[]byte{0xc8, 0x01}, KindPrefix, false, "varint", "100"}, // a record value of 100 bytes, not int16 -14335
		{[]byte{0x80, 0x80, 0x80, 0x01}, KindPrefix, false, "varint", "1048576"},
		{[]byte{0xff, 0xff}, KindPrefix, false, "int16", "-1 (null)"},
		{[]byte{0x00, 0x80}, KindPrefix, false, "int16", "128"},
		{[]byte{0x00, 0x00, 0x01, 0x00}, KindPrefix, false, "int32", "256"},
		{[]byte{0xff}, KindMarker, false, "int8", "-1 (null)"},         // a null struct
		{[]byte{0x01}, KindMarker, false, "int8", "1 (present)"},       //
		{[]byte{0x03}, KindTag, false, "uvarint", "3"},                 //
		{[]byte{0x80}, KindTags, true, "", ""},                         // a varint cut short says nothing
		{[]byte{0x80, 0x80, 0x00}, KindTagSize, false, "uvarint", "0"}, // non-minimal, still read
	} {
		typ, v := prefixValue(tc.b, 0, len(tc.b), tc.kind, tc.compact)
		require.Equal(t, tc.typ+" "+tc.want, typ+" "+v, "% x as %s", tc.b, tc.kind)
	}
	typ, v := prefixValue([]byte{0, 5}, 0, 4, KindPrefix, false)
	require.Equal(t, "", typ+v, "bytes past the end of a truncated buffer")
}

// Every JSON line maps to a node, and the nodes of a compressed batch's
// records land on their own lines.
func TestNodePathsMeetTheJSONLines(t *testing.T) {
	for _, name := range []string{"Produce", "Fetch", "JoinGroup", "Metadata"} {
		api := schema.ByName(name)
		for _, resp := range []bool{false, true} {
			v := api.Request.Valid.Hi
			b, err := codec.ExampleFrame(api, v, resp)
			require.NoError(t, err)
			f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
			require.NoError(t, err)
			js := jsontext.Indent(nil, f.AppendJSON(nil))
			var ps Paths
			lines := ScanJSONLines(js, &ps)
			require.Equal(t, strings.Count(string(js), "\n")+1, len(lines.Paths))
			paths := NodePaths(f.Root, &ps)
			// Each value cell has its own line, except the fields Kafka's
			// JSON leaves out because they follow from the rest (a batch's
			// length and record count, a record's length): those find
			// the line of what holds them.
			derived := map[string]bool{"batchLength": true, "recordCount": true, "length": true, "messageSize": true}
			for _, c := range Cells(f, 0) {
				if c.Kind != KindValue && c.Kind != KindVarint {
					continue
				}
				p := paths[c.Node]
				if derived[c.Label] {
					require.NotEqual(t, int32(Root), ps.Resolve(p, lines.Has), "%s: %s", name, ps.String(p))
					continue
				}
				require.True(t, lines.Has(p), "%s v%d response=%v: no JSON line for %q (%s)", name, v, resp, ps.String(p), c.Path)
			}
		}
	}
	// "key" of the second record inside a batch.
	b, _ := hex.DecodeString(apiVersionsV3)
	f, _ := codec.Decode(b, codec.Options{})
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	var ps Paths
	lines := ScanJSONLines(js, &ps)
	id := ps.child(ps.child(Root, "header", -1), "clientId", -1)
	sp := lines.Span(id)
	require.True(t, lines.Has(id))
	require.Equal(t, "header.clientId", ps.String(id))
	require.Contains(t, strings.Split(string(js), "\n")[sp[0]], `"clientId": "kwire"`)
	deep := ps.child(ps.child(ps.child(Root, "header", -1), "nothing", -1), "", 3)
	require.Equal(t, "header.nothing[3]", ps.String(deep))
	require.Equal(t, "header", ps.String(ps.Resolve(deep, lines.Has)))
}

// BenchmarkJSONLinks: what the playground does to link a decoded frame's
// tree and its value JSON's lines, on the benchmark traffic's biggest
// Fetch response.
func BenchmarkJSONLinks(b *testing.B) {
	var frame traffic.Frame
	for _, p := range traffic.Mix() {
		if len(p.Response.Bytes) > len(frame.Bytes) {
			frame = p.Response
		}
	}
	f, err := codec.Decode(frame.Bytes, codec.Options{Response: true, APIKey: frame.Key, Version: frame.Version})
	require.NoError(b, err)
	js := jsontext.Indent(nil, f.AppendJSON(nil))
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var ps Paths
		lines := ScanJSONLines(js, &ps)
		for _, p := range NodePaths(f.Root, &ps) {
			lines.Span(ps.Resolve(p, lines.Has))
		}
	}
}

// rawBatch is a records blob of one batch: a record with key "k", value
// "v0" and a header h=hv, then a record of value "v1".
func rawBatch(t *testing.T) []byte {
	t.Helper()
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{
			{"key": []byte("k"), "value": []byte("v0"), "headers": []map[string]any{{"key": "h", "value": []byte("hv")}}},
			{"key": nil, "value": []byte("v1")},
		}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	require.NoError(t, err)
	return b
}

// withValues is rawBatch with the records' values v0 and v1.
func withValues(t *testing.T, v0, v1 []byte) []byte {
	t.Helper()
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{{"key": nil, "value": v0}, {"key": nil, "value": v1}}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	require.NoError(t, err)
	return b
}

// fetchOf is a Fetch v12 response frame for one partition of topic
// holding batches.
func fetchOf(topic string, batches []byte) []byte {
	r := kmsg.NewPtrFetchResponse()
	r.Version = 12
	tp := kmsg.NewFetchResponseTopic()
	tp.Topic = topic
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = 10, 10, batches
	tp.Partitions = append(tp.Partitions, p)
	r.Topics = append(r.Topics, tp)
	body := r.AppendTo(nil)
	n := 5 + len(body)
	b := []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n), 0, 0, 0, 7, 0}
	return append(b, body...)
}

// TestRawNodesLightTheirBytes: bytes left undecoded below other nodes
// (a raw node) have the path of the member of value JSON that shows
// them: an entry of records that is bytes alone, {"_raw": ...}, its
// "_raw"; bytes left inside a batch (its records list, a record) or a
// legacy message, the entry's "_raw"; inside a record's key or value (a
// payload's framing or data, an internal topic's record), the key or
// value, whose "base64" holds them; an entry cut short, {"_truncated":
// ...}, all its nodes there. Each path has lines and locates a value
// that holds the bytes. Bytes a frame left unread have no member: the
// frame's own path, what holds them.
func TestRawNodesLightTheirBytes(t *testing.T) {
	base := rawBatch(t)
	hdr := bytes.Index(base, []byte{0x02, 'h', 0x04, 'h', 'v'}) // header h's key length; its count before it
	require.Positive(t, hdr)
	patch := func(at int, v byte) []byte {
		b := bytes.Clone(base)
		b[at] = v
		return b
	}
	badMagic := make([]byte, 20)
	badMagic[16] = 7
	batchTail := append(bytes.Clone(base), 0xff, 0xff, 0xff)
	binary.BigEndian.PutUint32(batchTail[8:], binary.BigEndian.Uint32(batchTail[8:])+3)
	msg := func(off int, v string) map[string]any {
		return map[string]any{"offset": off, "magic": 1, "timestamp": 0, "key": nil, "value": []byte(v)}
	}
	legacy, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{msg(0, "m0"), msg(1, "m1")}}, codec.EncodeOptions{})
	require.NoError(t, err)
	// A gzip wrapper message whose message set ends in bytes that are no
	// entry.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err = zw.Write(append(bytes.Clone(legacy), badMagic...))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	wrapped := []byte{0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff} // crc, magic 1, gzip, timestamp, null key
	wrapped = append(binary.BigEndian.AppendUint32(wrapped, uint32(gz.Len())), gz.Bytes()...)
	wrapper := append(binary.BigEndian.AppendUint32([]byte{0, 0, 0, 0, 0, 0, 0, 1}, uint32(len(wrapped))), wrapped...)
	legacy[bytes.Index(legacy, []byte{0, 0, 0, 2, 'm', '0'})+3] = 9 // m0's value length: 9, of 2 bytes
	// __consumer_offsets: a key of an unknown record type, then values
	// with bytes left after their message.
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset = 3, 7
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{
			{"key": []byte{0, 99, 0, 1, 'g'}, "value": ov.AppendTo(nil)},
			{"key": (&kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "t"}).AppendTo(nil), "value": append(ov.AppendTo(nil), 1, 2)},
		}}
	offsets, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	require.NoError(t, err)
	offsetsFrame := fetchOf("__consumer_offsets", offsets)
	pb := payload.NewDecoder(schemaMap{2: {ID: 2, Type: payload.TypeProtobuf, Text: protoPathsSchema}}, payload.Config{MaxDepth: 2})
	records := codec.Options{Data: "records", Payload: pb.Decode}
	fetch := codec.Options{Response: true, APIKey: 1, Version: 12}
	rec := "body.responses[0].partitions[0].records[0].records"
	for _, c := range []struct {
		name string
		b    []byte
		o    codec.Options
		want []string // the raw nodes' paths, in order
	}{
		{"an entry that is bytes alone", append(bytes.Clone(base), badMagic...), records, []string{"value[1]._raw"}},
		{"entries the MaxNodes limit cut", base, codec.Options{Data: "records", Limits: codec.Limits{MaxNodes: 30}}, []string{"value[0]._raw"}},
		{"a batch's records with bytes left", batchTail, records, []string{"value[0]._raw"}},
		{"records the MaxNodes limit cut", base, codec.Options{Data: "records", Limits: codec.Limits{MaxNodes: 84}}, []string{"value[0]._raw"}},
		{"a record whose header does not read", patch(hdr+2, 0x7e), records, []string{"value[0]._raw"}},
		{"bytes after a record's headers", patch(hdr-1, 0), records, []string{"value[0]._raw"}},
		{"a legacy message cut short", legacy, records, []string{"value[0]._raw"}},
		{"a wrapper message's messages and bytes", wrapper, records, []string{"value[0].messages[2]._raw"}},
		{"an entry cut short", append(bytes.Clone(base), make([]byte, 14)...), records, // baseOffset, batchLength, partial
			[]string{"value[1]._truncated", "value[1]._truncated", "value[1]._truncated"}},
		{"a payload's message indexes that do not read", withValues(t, []byte{0, 0, 0, 0, 2, 0x7f, 0x7f, 1}, []byte("v1")), records,
			[]string{"value[0].records[0].value"}},
		{"a payload the MaxDepth limit cut", withValues(t, []byte("v0"), []byte{0, 0, 0, 0, 2, 0, 0x22, 4, 0x12, 2, 0x0a, 0}), records,
			[]string{"value[0].records[1].value"}},
		{"internal topics' records", offsetsFrame, fetch, []string{rec + "[0].key", rec + "[0].value", rec + "[1].value"}},
		{"a frame cut short", offsetsFrame[:len(offsetsFrame)-10], fetch, []string{""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, _ := codec.Decode(c.b, c.o)
			require.NotNil(t, f)
			l := link(t, f)
			var got []string
			check := func(n *tree.Node, p int32) {
				got = append(got, l.ps.String(p))
				if p == Root {
					return // the frame's bytes not read: no member
				}
				require.True(t, l.lines.Has(p), "%s: no JSON line for %q", n.Name, l.ps.String(p))
				v, found := l.find(p)
				require.True(t, found, "%q", l.ps.String(p))
				b := f.Buffers[n.Buf][n.Start:n.End]
				require.True(t, holds(v, b), "%q shows %v, not the bytes % x", l.ps.String(p), v, b)
			}
			for i, n := range l.nodes {
				switch {
				case IsEntry(n) && n.Flags&tree.Truncated != 0:
					for _, k := range n.Children {
						check(k, l.of(k))
					}
				case n.Role == tree.RoleRaw:
					check(n, l.paths[i])
				}
			}
			require.Equal(t, c.want, got)
		})
	}
}

// holds reports whether v, a value of value JSON, shows b: base64 or
// text holding them, or an object whose "base64", "text", "_raw" or
// "_truncated" does.
func holds(v any, b []byte) bool {
	switch v := v.(type) {
	case string:
		if d, err := base64.StdEncoding.DecodeString(v); err == nil && bytes.Contains(d, b) {
			return true
		}
		return strings.Contains(v, string(b))
	case map[string]any:
		for _, k := range []string{"base64", "text", "_raw", "_truncated"} {
			if s, ok := v[k]; ok && holds(s, b) {
				return true
			}
		}
	}
	return false
}

// TestInternalTopicRecordsPaths: the message a record of an internal
// topic holds (__consumer_offsets' OffsetCommitKey and Value) is its
// key's or value's "decoded" in value JSON: each of its nodes has its
// line there, and each field's path locates its value.
func TestInternalTopicRecordsPaths(t *testing.T) {
	key := (&kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "orders", Partition: 2}).AppendTo(nil)
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset, ov.LeaderEpoch, ov.Metadata = 3, 7, 5, "m"
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{{"key": key, "value": ov.AppendTo(nil)}}}
	recs, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(fetchOf("__consumer_offsets", recs), codec.Options{Response: true, APIKey: 1, Version: 12})
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
	l := link(t, f)
	rec := l.path("body", "responses", 0, "partitions", 0, "records", 0, "records", 0)
	checked := 0
	for _, kv := range []string{"key", "value"} {
		var part *tree.Node
		for _, n := range l.nodes {
			if n.Name == kv && l.of(n) == l.ps.child(rec, kv, -1) {
				part = n
			}
		}
		require.NotNil(t, part, kv)
		for _, c := range part.Children {
			if c.Role != tree.RoleField {
				continue
			}
			require.Equal(t, l.ps.child(l.of(part), "decoded", -1), l.of(c), "%s: %s", kv, c.Name)
			tree.Walk(c, func(n *tree.Node) bool {
				id := l.of(n)
				require.True(t, l.lines.Has(id), "%s: no JSON line for %q", n.Name, l.ps.String(id))
				got, ok := l.find(id)
				require.True(t, ok, "%q", l.ps.String(id))
				switch n.Kind {
				case schema.Int64, schema.Int32, schema.Int16:
					require.Equal(t, strconv.FormatInt(n.Int, 10), fmt.Sprint(got), "%q", l.ps.String(id))
				case schema.String:
					require.Equal(t, string(n.Raw), got, "%q", l.ps.String(id))
				}
				checked++
				return true
			})
		}
	}
	require.Greater(t, checked, 6)
}
