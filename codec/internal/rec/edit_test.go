//go:build !js

package rec

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/internal/slab"
)

// perlGzipWrapper is the message set of the gzip ProduceRequest in the Perl
// Kafka module's tests (TrackingSoft/Kafka, t/06_decode_encode.t, "A
// ProduceRequest (GZIP)"): one magic 0 wrapper, gzip, holding "Hello 1!"
// and "Hello 2!". Its CRC (a5c2da7f) is not the CRC-32 of its bytes, so it
// decodes with a warning and its JSON carries "_raw".
const perlGzipWrapper = "0000000000000000" + "00000045" + "a5c2da7f" + "00" + "01" + "ffffffff" + "00000037" +
	"1f8b0800d7054f5300036360800331b99d0d171918fe030190c7e1919a9393af60a8c880a4c274ca65217415468a002d91792a44000000"

func decodeJSON(t *testing.T, payload []byte) (*Result, []any) {
	t.Helper()
	var s slab.Slab
	res, err := Decode(&s, payload, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := parseJSON(t, treeJSON(nil, res, payload, Decoded)).([]any)
	if !ok {
		t.Fatal("not an array")
	}
	return res, v
}

// leafValues lists the values of the records a consumer sees, in order.
func leafValues(res *Result) []string {
	var out []string
	for _, ri := range res.Records {
		if ri.Node.Name == "message" {
			if a := ri.Node.Get("attributes"); a != nil && a.Int&7 != 0 {
				continue
			}
		}
		out = append(out, string(ri.Node.Get("value").Raw))
	}
	return out
}

// innerList is the list an edit goes into: a batch's records or a
// wrapper's messages.
func innerList(t *testing.T, entry any) []any {
	t.Helper()
	obj := entry.(map[string]any)
	for _, k := range []string{"records", "messages"} {
		if l, ok := obj[k].([]any); ok {
			return l
		}
	}
	t.Fatalf("no records or messages in %v", obj)
	return nil
}

// TestEditInsideEveryWrapper changes a value inside a compressed batch
// (magic 2) or wrapper message (magic 0 and 1) of every codec: the encoder
// must compress the new content afresh with the same codec, recompute
// lengths and CRCs, and the bytes must decode (here and in franz-go) to the
// edited value. Unchanged JSON gives back the original bytes.
func TestEditInsideEveryWrapper(t *testing.T) {
	inner0 := append(withOffset(msgV0, 0), withOffset(msgV0, 1)...)
	inner1 := append(withOffset(msgV1, 0), withOffset(msgV1, 1)...)
	for _, magic := range []int8{0, 1, 2} {
		for _, codec := range []int{CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
			if magic < 2 && codec == CodecZstd {
				continue // zstd came with magic 2 (KIP-110)
			}
			name := CodecName(codec) + " magic " + itoa(int(magic))
			var payload []byte
			switch magic {
			case 0:
				payload = wrapMessages(t, 0, codec, 1, 0, inner0)
			case 1:
				payload = wrapMessages(t, 1, codec, 41, 1700000000005, inner1)
			default:
				payload = buildBatch(t, codec, 40, 0, sampleRecs(3))
			}
			res, v := decodeJSON(t, payload) // lz4 at magic 0 with Kafka's checksum for it: no warning
			if w := warnings(res); len(w) > 0 {
				t.Fatalf("%s: warnings %q", name, w)
			}
			out, err := Encode(nil, v)
			if err != nil || !bytes.Equal(out, payload) {
				t.Fatalf("%s: unchanged JSON encodes to other bytes (%v)", name, err)
			}
			before := leafValues(res)

			list := innerList(t, v[0])
			list[1].(map[string]any)["value"] = map[string]any{"text": "edited " + name}
			out, err = Encode(nil, v)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			res2, v2 := decodeJSON(t, out)
			if w := warnings(res2); len(w) > 0 {
				t.Fatalf("%s: the edited bytes decode with warnings %q", name, w)
			}
			after := leafValues(res2)
			want := append([]string(nil), before...)
			want[1] = "edited " + name
			if strings.Join(after, "|") != strings.Join(want, "|") {
				t.Fatalf("%s: values after the edit %q, want %q", name, after, want)
			}
			if c := v2[0].(map[string]any)["attributes"].(map[string]any)["compression"]; c != CodecName(codec) {
				t.Fatalf("%s: compression is now %v", name, c)
			}
			if magic != 0 || codec != CodecLZ4 { // franz-go refuses the header checksum Kafka writes for magic 0
				compareKgo(t, res2, out)
			}
		}
	}
}

// TestEditEntriesWithRaw: entries that decoded with warnings carry "_raw"
// (their bytes as they came). Unchanged, they come back byte for byte, the
// quirk included; edited, they are encoded from their fields, with the
// edit and with right CRCs.
func TestEditEntriesWithRaw(t *testing.T) {
	perl, err := hex.DecodeString(perlGzipWrapper)
	if err != nil {
		t.Fatal(err)
	}
	badCRC := buildBatch(t, CodecGzip, 0, 0, sampleRecs(3))
	badCRC[20] ^= 0xff
	nonMinimal := rawBatch(CodecNone, 1, []byte{0x0e, 0, 0, 0x80, 0x00, 0x01, 0x01, 0x00})
	inner0 := append(withOffset(msgV0, 7), withOffset(msgV0, 8)...)
	badInner := append([]byte(nil), inner0...)
	badInner[12] ^= 0xff // the first inner message's CRC
	nested := wrapMessages(t, 0, CodecGzip, 8, 0, badInner)
	for _, tc := range []struct {
		name    string
		payload []byte
		warn    string
		edit    func(v []any) // changes the second value the consumer sees
	}{
		{"Perl Kafka module gzip wrapper (bad wrapper CRC)", perl, "CRC-32 mismatch", nil},
		{"magic 1 lz4 wrapper, magic 0's header checksum", oldLZ4Checksum(t, wrapMessages(t, 1, CodecLZ4, 41, 1700000000005, append(withOffset(msgV1, 0), withOffset(msgV1, 1)...))), "lz4 frame header checksum", nil},
		{"gzip batch, bad CRC-32C", badCRC, "CRC-32C mismatch", nil},
		{"gzip wrapper around a message with a bad CRC", nested, "CRC-32 mismatch", func(v []any) {
			innerList(t, v[0])[0].(map[string]any)["value"] = map[string]any{"text": "set"}
		}},
		{"non-minimal varint", nonMinimal, "non-minimal", func(v []any) {
			innerList(t, v[0])[0].(map[string]any)["value"] = map[string]any{"text": "set"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, v := decodeJSON(t, tc.payload)
			if w := strings.Join(warnings(res), ";"); !strings.Contains(w, tc.warn) {
				t.Fatalf("warnings %q", w)
			}
			// With int64 values as strings (Int64Strings), the entry is as
			// unchanged: it comes back as it came too.
			var js []byte
			WriteJSON(&js, tc.payload, Options{Int64Strings: true}, nil)
			if out, err := Encode(nil, parseJSON(t, js)); err != nil || !bytes.Equal(out, tc.payload) {
				t.Fatalf("unchanged, int64s as strings: %v\n got %x\nwant %x", err, out, tc.payload)
			}
			if _, ok := v[0].(map[string]any)["_raw"]; !ok {
				t.Fatal("no _raw")
			}
			out, err := Encode(nil, v)
			if err != nil || !bytes.Equal(out, tc.payload) {
				t.Fatalf("unchanged: %v\n got %x\nwant %x", err, out, tc.payload)
			}
			// What a payload reader adds beside a value's bytes (kwire
			// decode writes "format" and "decoded" for JSON values) is
			// no edit: the entry still comes back as it came.
			for _, rec := range allRecords(v) {
				if val, ok := rec["value"].(map[string]any); ok {
					val["format"], val["decoded"] = "json", map[string]any{"order": json.Number("1")}
				}
			}
			out, err = Encode(nil, v)
			if err != nil || !bytes.Equal(out, tc.payload) {
				t.Fatalf("unchanged but for a payload reader's members: %v\n got %x\nwant %x", err, out, tc.payload)
			}
			edit := tc.edit
			if edit == nil {
				edit = func(v []any) { innerList(t, v[0])[1].(map[string]any)["value"] = map[string]any{"text": "edited"} }
			}
			edit(v)
			out, err = Encode(nil, v)
			if err != nil {
				t.Fatal(err)
			}
			res2, _ := decodeJSON(t, out)
			vals := leafValues(res2)
			if tc.edit != nil {
				if vals[0] != "set" {
					t.Fatalf("values %q", vals)
				}
			} else if len(vals) < 2 || vals[1] != "edited" {
				t.Fatalf("values %q: the edit was dropped", vals)
			}
			for _, w := range warnings(res2) {
				if strings.Contains(w, "CRC") || strings.Contains(w, "non-minimal") {
					t.Fatalf("the edited entry still has %q", w)
				}
			}
		})
	}
	// The Perl wrapper, edited at its first message. (Both inner messages
	// have offset 0, as a producer writes them, so franz-go, reading them
	// as fetched data, keeps one: no comparison with it here.)
	_, v := decodeJSON(t, perl)
	innerList(t, v[0])[0].(map[string]any)["value"] = map[string]any{"text": "Hello 3!"}
	out, err := Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := decodeJSON(t, out)
	if got := strings.Join(leafValues(res), ","); got != "Hello 3!,Hello 2!" || len(warnings(res)) > 0 {
		t.Fatalf("values %s, warnings %q", got, warnings(res))
	}
}

// A batch whose records could not be decompressed shows "records": null.
// An edit of its own fields keeps the compressed bytes and the record count
// and recomputes the CRC.
func TestEditBatchWithUndecodableRecords(t *testing.T) {
	p := rawBatch(CodecGzip, 3, []byte("this is not gzip"))
	_, v := decodeJSON(t, p)
	b := v[0].(map[string]any)
	if b["records"] != nil {
		t.Fatalf("records %v", b["records"])
	}
	out, err := Encode(nil, v)
	if err != nil || !bytes.Equal(out, p) {
		t.Fatalf("unchanged: %v", err)
	}
	b["baseOffset"] = 500
	out, err = Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(p) || binary.BigEndian.Uint64(out) != 500 || !bytes.Equal(out[57:], p[57:]) {
		t.Fatalf("got %x\nfrom %x", out, p)
	}
	if crc32.Checksum(out[21:], castagnoli) != binary.BigEndian.Uint32(out[17:]) {
		t.Fatal("CRC not recomputed")
	}
	delete(b, "_raw")
	if _, err := Encode(nil, v); err == nil || !strings.Contains(err.Error(), "[0].records: missing") {
		t.Fatalf("err %v", err)
	}
}

// Go values work as JSON's do: integers of any width, []byte keys and
// values, []map[string]any lists.
func TestEncodeGoValues(t *testing.T) {
	recs := []map[string]any{
		{"key": []byte("k"), "value": []byte(nil), "headers": []map[string]any{{"key": "h", "value": []byte{1}}}},
		{"offsetDelta": int32(1), "key": nil, "value": map[string]any{"text": "v"}},
	}
	v := []map[string]any{{"baseOffset": int64(5), "partitionLeaderEpoch": int32(0), "magic": int8(2), "lastOffsetDelta": uint8(1),
		"baseTimestamp": 0, "maxTimestamp": 0, "producerId": int64(-1), "producerEpoch": int16(-1), "baseSequence": -1,
		"attributes": map[string]any{"compression": "gzip"}, "records": recs}}
	out, err := Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := decodeJSON(t, out)
	if len(warnings(res)) > 0 || len(res.Records) != 2 || !res.Records[0].Node.Get("value").Null {
		t.Fatalf("warnings %q", warnings(res))
	}
	compareKgo(t, res, out)
}

// A small _raw that inflates to far more than the JSON beside it holds
// cannot be that JSON unchanged: the encoder stops inflating it early
// (memory bounded by the JSON's size, from 1 MiB), and encodes the fields.
func TestRawBombIsNotInflated(t *testing.T) {
	bomb := buildBatch(t, CodecGzip, 0, 0, []tRec{{val: make([]byte, 32<<20)}})
	if len(bomb) > 1<<17 {
		t.Fatalf("bomb of %d bytes", len(bomb))
	}
	entry := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "lastOffsetDelta": 0, "baseTimestamp": 0,
		"maxTimestamp": 0, "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "attributes": map[string]any{"compression": "gzip"},
		"records": []any{map[string]any{"value": map[string]any{"text": "x"}}}, "_raw": base64.StdEncoding.EncodeToString(bomb)}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := Encode(nil, []any{entry})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
		t.Fatalf("encoding allocated %d bytes", got)
	}
	res, _ := decodeJSON(t, out)
	if vals := leafValues(res); len(vals) != 1 || vals[0] != "x" {
		t.Fatalf("values %q", vals)
	}
}

// allRecords are the records and legacy messages of decoded JSON v, at
// any depth of wrapping.
func allRecords(v []any) []map[string]any {
	var out []map[string]any
	for _, e := range v {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["value"]; ok {
			out = append(out, m)
		}
		for _, k := range []string{"records", "messages"} {
			if l, ok := m[k].([]any); ok {
				out = append(out, allRecords(l)...)
			}
		}
	}
	return out
}

// A legacy message's compression says what it holds: a compressed wrapper
// holds "messages", any other message a "value". A wrapper set to
// compression none would drop its messages, and a message with a value
// and compression bits is a frame no reader takes: both are refused with
// the path and what to do, at magic 0 and 1, with every codec.
func TestLegacyCompressionMustFitContent(t *testing.T) {
	inner0 := append(withOffset(msgV0, 0), withOffset(msgV0, 1)...)
	inner1 := append(withOffset(msgV1, 0), withOffset(msgV1, 1)...)
	for _, magic := range []int8{0, 1} {
		inner, plain := inner0, withOffset(msgV0, 3)
		if magic == 1 {
			inner, plain = inner1, withOffset(msgV1, 3)
		}
		for _, codec := range []int{CodecGzip, CodecSnappy, CodecLZ4} {
			name := CodecName(codec) + " magic " + itoa(int(magic))
			for _, none := range []any{"none", 0} {
				_, v := decodeJSON(t, wrapMessages(t, magic, codec, 1, 1000, inner))
				w := v[0].(map[string]any)
				if none == 0 {
					w["attributes"] = 0
				} else {
					w["attributes"].(map[string]any)["compression"] = none
				}
				out, err := Encode(nil, v)
				if err == nil {
					t.Fatalf("%s: a wrapper set to compression %v encodes to %x, its messages gone", name, none, out)
				}
				if !strings.HasPrefix(err.Error(), `[0].messages: expected a "value" in a message whose compression is none, found "messages"`) ||
					!strings.Contains(err.Error(), "list them in place of this wrapper") {
					t.Fatalf("%s: %v", name, err)
				}
			}
			_, v := decodeJSON(t, plain)
			v[0].(map[string]any)["attributes"].(map[string]any)["compression"] = CodecName(codec)
			out, err := Encode(nil, v)
			if err == nil {
				t.Fatalf("%s: a message with a value and compression bits encodes to %x", name, out)
			}
			if !strings.HasPrefix(err.Error(), `[0].value: expected "messages" in a message whose compression is `+CodecName(codec)+`, found a "value"`) {
				t.Fatalf("%s: %v", name, err)
			}
			// Both: what would the message hold?
			_, v = decodeJSON(t, wrapMessages(t, magic, codec, 1, 1000, inner))
			v[0].(map[string]any)["value"] = map[string]any{"text": "v"}
			if _, err := Encode(nil, v); err == nil || !strings.HasPrefix(err.Error(), `[0].value: expected "value" or "messages", found both`) {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
	// A wrapper whose value is null (a quirk the decoder warns of) keeps
	// it when another field is edited: nothing is dropped.
	nullWrapper := wrapMessages(t, 1, CodecGzip, 0, 1000, inner1)
	nullWrapper = append(nullWrapper[:30:30], 0xff, 0xff, 0xff, 0xff) // the key is null too
	binary.BigEndian.PutUint32(nullWrapper[8:], uint32(len(nullWrapper)-12))
	binary.BigEndian.PutUint32(nullWrapper[12:], crc32.ChecksumIEEE(nullWrapper[16:]))
	res, v := decodeJSON(t, nullWrapper)
	if w := strings.Join(warnings(res), ";"); !strings.Contains(w, "null value") {
		t.Fatalf("warnings %q, JSON %v", w, v)
	}
	v[0].(map[string]any)["offset"] = json.Number("9")
	out, err := Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte(nil), nullWrapper...)
	want[7] = 9
	binary.BigEndian.PutUint32(want[12:], crc32.ChecksumIEEE(want[16:]))
	if !bytes.Equal(out, want) {
		t.Fatalf("got %x\nwant %x", out, want)
	}
}

// Kafka takes zstd only with magic 2: a magic 0 or 1 wrapper is not
// compressed with it. One that came in bytes still comes back byte for
// byte while its content is unchanged; an edit inside it, a wrapper
// switched to zstd and one written from scratch are refused.
func TestNoNewZstdWrapperBelowMagic2(t *testing.T) {
	for _, magic := range []int8{0, 1} {
		inner := append(withOffset(msgV0, 0), withOffset(msgV0, 1)...)
		if magic == 1 {
			inner = append(withOffset(msgV1, 0), withOffset(msgV1, 1)...)
		}
		want := `[0].attributes.compression: expected gzip, snappy or lz4 in a magic ` + itoa(int(magic)) + ` wrapper, found "zstd"`
		zw := wrapMessages(t, magic, CodecZstd, 1, 1000, inner)
		res, v := decodeJSON(t, zw)
		// Decoding says so, on the wrapper's attributes.
		if w := res.Nodes[0].Get("attributes").Warnings; len(w) != 1 || w[0] != "zstd needs magic 2: Kafka refuses a magic "+itoa(int(magic))+" message compressed with it" {
			t.Fatalf("magic %d: zstd wrapper warnings %q", magic, w)
		}
		if out, err := Encode(nil, v); err != nil || !bytes.Equal(out, zw) {
			t.Fatalf("magic %d: unchanged zstd wrapper: %v", magic, err)
		}
		innerList(t, v[0])[0].(map[string]any)["value"] = map[string]any{"text": "edited"}
		if _, err := Encode(nil, v); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("magic %d: edited zstd wrapper: %v", magic, err)
		}
		_, v = decodeJSON(t, wrapMessages(t, magic, CodecGzip, 1, 1000, inner))
		v[0].(map[string]any)["attributes"].(map[string]any)["compression"] = "zstd"
		if _, err := Encode(nil, v); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("magic %d: gzip wrapper switched to zstd: %v", magic, err)
		}
		delete(v[0].(map[string]any), "_compressed")
		v[0].(map[string]any)["attributes"] = 4
		if _, err := Encode(nil, v); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Fatalf("magic %d: a zstd wrapper from scratch: %v", magic, err)
		}
	}
}

// A batch's lastOffsetDelta and maxTimestamp, and a record's offsetDelta,
// are kept as given, so a batch can be made inconsistent on purpose; left
// out, they are computed as a producer writes them: the last record's
// offsetDelta, the largest baseTimestamp + timestampDelta, the record's
// index.
func TestDerivedBatchFields(t *testing.T) {
	batchOf := func(out []byte) map[string]any {
		t.Helper()
		res, v := decodeJSON(t, out)
		if w := warnings(res); len(w) > 0 {
			t.Fatalf("warnings %q", w)
		}
		return v[0].(map[string]any)
	}
	num := func(b map[string]any, k string) string { return string(b[k].(json.Number)) }
	// Records added (a copy of the first, its offsetDelta and offset left
	// out) and the derived fields left out.
	_, v := decodeJSON(t, buildBatch(t, CodecGzip, 40, 0, sampleRecs(3)))
	b := v[0].(map[string]any)
	recs := b["records"].([]any)
	cp := map[string]any{}
	for k, x := range recs[0].(map[string]any) {
		cp[k] = x
	}
	delete(cp, "offsetDelta")
	cp["timestampDelta"] = json.Number("50")
	b["records"] = append(recs, cp)
	delete(b, "lastOffsetDelta")
	b["maxTimestamp"] = nil
	out, err := Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	got := batchOf(out)
	if num(got, "lastOffsetDelta") != "3" || num(got, "maxTimestamp") != "1700000000050" {
		t.Fatalf("lastOffsetDelta %v, maxTimestamp %v", got["lastOffsetDelta"], got["maxTimestamp"])
	}
	if od := got["records"].([]any)[3].(map[string]any)["offsetDelta"]; od != json.Number("3") {
		t.Fatalf("the added record's offsetDelta is %v", od)
	}
	// Given, they are kept, inconsistent as they may be.
	b["lastOffsetDelta"], b["maxTimestamp"] = json.Number("7"), json.Number("5")
	out, err = Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if got := batchOf(out); num(got, "lastOffsetDelta") != "7" || num(got, "maxTimestamp") != "5" {
		t.Fatalf("lastOffsetDelta %v, maxTimestamp %v", got["lastOffsetDelta"], got["maxTimestamp"])
	}
	// The largest timestamp need not be the last record's.
	delete(b, "lastOffsetDelta")
	delete(b, "maxTimestamp")
	cp["timestampDelta"] = json.Number("-9")
	recs[1].(map[string]any)["offsetDelta"] = json.Number("6")
	recs[2].(map[string]any)["offsetDelta"] = json.Number("2")
	out, err = Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	// lastOffsetDelta is the last record's offsetDelta, as a producer's
	// is; the record at 6, past it, is warned on.
	res, dv := decodeJSON(t, out)
	if w := warnings(res); len(w) != 1 || w[0] != "offsetDelta: offsetDelta 6 is past the batch's lastOffsetDelta 3" {
		t.Fatalf("warnings %q", w)
	}
	if got := dv[0].(map[string]any); num(got, "lastOffsetDelta") != "3" || num(got, "maxTimestamp") != "1700000000002" {
		t.Fatalf("lastOffsetDelta %v, maxTimestamp %v", got["lastOffsetDelta"], got["maxTimestamp"])
	}
	// No records: -1 and -1, as lastOffsetDelta + 1 is the record count
	// and there is no timestamp.
	b["records"] = []any{}
	out, err = Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if got := batchOf(out); num(got, "lastOffsetDelta") != "-1" || num(got, "maxTimestamp") != "-1" {
		t.Fatalf("lastOffsetDelta %v, maxTimestamp %v", got["lastOffsetDelta"], got["maxTimestamp"])
	}
	// Records that could not be decompressed are as they came, and so are
	// the fields derived from them: the original batch's.
	p := rawBatch(CodecGzip, 3, []byte("this is not gzip"))
	binary.BigEndian.PutUint32(p[23:], 2)
	binary.BigEndian.PutUint64(p[35:], 1234)
	binary.BigEndian.PutUint32(p[17:], crc32.Checksum(p[21:], castagnoli))
	_, v = decodeJSON(t, p)
	delete(v[0].(map[string]any), "lastOffsetDelta")
	delete(v[0].(map[string]any), "maxTimestamp")
	if out, err := Encode(nil, v); err != nil || !bytes.Equal(out, p) {
		t.Fatalf("undecodable records: %v\n got %x\nwant %x", err, out, p)
	}
}

// A control batch that decoded with warnings (a bad CRC) carries "_raw":
// an edit to a record's "control" is no edit "_raw" shows, so the batch is
// encoded from its fields, the key and value built from "control" when
// left out, refused while they say otherwise.
func TestControlEditInEntryWithRaw(t *testing.T) {
	commit := controlBatch(t, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 7})
	commit[20] ^= 0xff
	_, v := decodeJSON(t, commit)
	if _, ok := v[0].(map[string]any)["_raw"]; !ok {
		t.Fatal("no _raw")
	}
	if out, err := Encode(nil, v); err != nil || !bytes.Equal(out, commit) {
		t.Fatalf("unchanged: %v", err)
	}
	r := v[0].(map[string]any)["records"].([]any)[0].(map[string]any)
	r["control"].(map[string]any)["coordinatorEpoch"] = json.Number("9")
	if _, err := Encode(nil, v); err == nil || !strings.HasPrefix(err.Error(), `[0].records[0].control.coordinatorEpoch: expected what "value" holds, 7, found 9`) {
		t.Fatalf("err %v", err)
	}
	delete(r, "value")
	out, err := Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := decodeJSON(t, out)
	if got := res.Records[0].Node.Get("value").Raw; !bytes.Equal(got, []byte{0, 0, 0, 0, 0, 9}) || len(warnings(res)) > 0 {
		t.Fatalf("value %x, warnings %q", got, warnings(res))
	}
}
