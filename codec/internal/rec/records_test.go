package rec

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/decompress"
)

func sampleRecs(n int) []tRec {
	recs := make([]tRec, n)
	for i := range recs {
		r := tRec{val: []byte(strings.Repeat("value-", i%7+1) + itoa(i)), tsDelta: int64(i)}
		switch i % 4 {
		case 0:
			r.key = []byte("key-" + itoa(i))
		case 1:
			r.key = []byte{0, 1, 2, 0xff, byte(i)}
		case 2:
			r.key = []byte{}
			r.hdrs = []kmsg.Header{{Key: "h1", Value: []byte("v1")}, {Key: "nullv", Value: nil}, {Key: "bin", Value: []byte{0x80, 0}}}
		case 3:
			r.val = nil
			r.hdrs = []kmsg.Header{{Key: "ü", Value: []byte("tab\tquote\"")}}
		}
		recs[i] = r
	}
	return recs
}

func TestBatchCodecs(t *testing.T) {
	for codec := CodecNone; codec <= CodecZstd; codec++ {
		t.Run(CodecName(codec), func(t *testing.T) {
			var payload []byte
			payload = append(payload, buildBatch(t, codec, 0, 0, sampleRecs(9))...)
			payload = append(payload, buildBatch(t, codec, 9, 0x10, sampleRecs(1))...)  // transactional
			payload = append(payload, buildBatch(t, codec, 10, 0x08, sampleRecs(5))...) // LogAppendTime
			res, js := roundTrip(t, payload, true)
			compareKgo(t, res, payload)
			if codec != CodecNone && len(res.Derived) != 3 {
				t.Fatalf("%d derived buffers", len(res.Derived))
			}
			if !bytes.Contains(js, []byte(`"compression":"`+CodecName(codec)+`"`)) {
				t.Fatalf("json lacks codec: %s", js)
			}
			// The records node says which input range was inflated.
			recs := res.Nodes[0].Get("records")
			if codec != CodecNone {
				inf := recs.Children[0]
				if inf.Name != "inflated" || inf.Buf != 1 || recs.Start != 3+61 || recs.End != res.Nodes[0].End {
					t.Fatalf("inflated node %+v in %+v", inf, recs)
				}
				if inf.Children[0].Buf != 1 {
					t.Fatal("record not in derived buffer")
				}
			}
		})
	}
}

func TestBatchFieldsAndJSON(t *testing.T) {
	recs := []tRec{{key: []byte("k"), val: []byte("v"), hdrs: []kmsg.Header{{Key: "h", Value: []byte("hv")}}}}
	payload := buildBatch(t, CodecNone, 100, 0, recs)
	res, js := roundTrip(t, payload, true)
	b := res.Nodes[0]
	names := []string{"baseOffset", "batchLength", "partitionLeaderEpoch", "magic", "crc", "attributes", "lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence", "recordCount", "records"}
	for i, c := range b.Children {
		if c.Name != names[i] {
			t.Fatalf("child %d is %s, want %s", i, c.Name, names[i])
		}
	}
	a := b.Get("attributes")
	if len(a.Children) != 5 || a.Children[0].Type != "bits 0-2" || a.Children[0].Start != a.Start || a.Children[4].Name != "deleteHorizon" {
		t.Fatalf("attribute bits: %+v", a.Children)
	}
	r := b.Get("records").Children[0]
	if r.Int != 100 || r.PrefixEnd != r.Start+1 || r.Get("timestampDelta").Flags&tree.Varint == 0 {
		t.Fatalf("record node %+v", r)
	}
	want := `[{"baseOffset":100,"partitionLeaderEpoch":3,"magic":2,"crc":` + itoa(int(b.Get("crc").Int)) +
		`,"attributes":{"compression":"none","timestampType":"CreateTime","transactional":false,"control":false,"deleteHorizon":false},` +
		`"lastOffsetDelta":0,"baseTimestamp":1700000000000,"maxTimestamp":1700000000001,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,` +
		`"records":[{"attributes":0,"timestampDelta":0,"offsetDelta":0,"offset":100,"timestamp":1700000000000,"key":{"text":"k"},"value":{"text":"v"},"headers":[{"key":"h","value":{"text":"hv"}}]}],"_sizeInBytes":75}]`
	if string(js) != want {
		t.Fatalf("json\n got %s\nwant %s", js, want)
	}
	if got := string(treeJSON(nil, res, payload, Size)); got != `{"sizeInBytes":`+itoa(len(payload))+`}` {
		t.Fatal(got)
	}
	if got := string(treeJSON(nil, res, []byte{1, 2, 3}, Base64)); got != `"AQID"` {
		t.Fatal(got)
	}
}

func TestTruncatedTail(t *testing.T) {
	full := buildBatch(t, CodecNone, 0, 0, sampleRecs(3))
	for cut := 1; cut < len(full); cut += 7 {
		payload := append(append([]byte(nil), full...), full[:cut]...)
		res, _ := roundTrip(t, payload, false)
		last := res.Nodes[len(res.Nodes)-1]
		if last.Flags&tree.Truncated == 0 || len(res.Nodes) != 2 {
			t.Fatalf("cut %d: last node %+v", cut, last)
		}
	}
}

func TestGarbageInTheMiddle(t *testing.T) {
	full := buildBatch(t, CodecNone, 0, 0, sampleRecs(2))
	garbage := make([]byte, 30)
	garbage[16] = 9 // magic 9
	payload := append(append(append([]byte(nil), full...), garbage...), full...)
	var s slab.Slab
	res, err := Decode(&s, payload, Options{})
	var we *wire.Error
	if !errors.As(err, &we) || we.Offset != len(full)+16 {
		t.Fatalf("err %v", err)
	}
	if len(res.Nodes) != 2 || res.Nodes[1].Role != tree.RoleRaw || res.Nodes[1].Start != len(full) || res.Nodes[1].End != len(payload) {
		t.Fatalf("nodes %+v", res.Nodes)
	}
	checkTree(t, res, 0, len(payload))
	// A too-small batchLength is an error too.
	bad := append([]byte(nil), full...)
	binary.BigEndian.PutUint32(bad[8:], 10)
	if _, err := Decode(&s, bad, Options{}); err == nil {
		t.Fatal("no error for batchLength 10")
	}
}

func TestCRCMismatch(t *testing.T) {
	payload := buildBatch(t, CodecNone, 0, 0, sampleRecs(2))
	payload[len(payload)-2] ^= 0xff
	res, js := roundTrip(t, payload, false)
	w := res.Nodes[0].Get("crc").Warnings
	want := crc32.Checksum(payload[21:], castagnoli)
	if len(w) != 1 || !strings.Contains(w[0], hex32(want)) || !strings.Contains(w[0], hex32(binary.BigEndian.Uint32(payload[17:]))) {
		t.Fatalf("warnings %q", w)
	}
	if !bytes.Contains(js, []byte(`"_raw"`)) {
		t.Fatal("no _raw")
	}
}

func TestEncodeEditsAndErrors(t *testing.T) {
	payload := buildBatch(t, CodecZstd, 0, 0, sampleRecs(3))
	var s slab.Slab
	res, _ := Decode(&s, payload, Options{})
	v := parseJSON(t, treeJSON(nil, res, payload, Decoded))
	rec := v.([]any)[0].(map[string]any)["records"].([]any)[1].(map[string]any)
	rec["value"] = map[string]any{"text": "changed"}
	out, err := Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	res2, err := Decode(&s, out, Options{})
	if err != nil || len(warnings(res2)) > 0 {
		t.Fatal(err, warnings(res2))
	}
	if got := string(res2.Records[1].Node.Get("value").Raw); got != "changed" {
		t.Fatalf("value %q", got)
	}
	compareKgo(t, res2, out)
	rec["value"] = map[string]any{"base64": "!!"}
	if _, err := Encode(nil, v); err == nil || !strings.HasPrefix(err.Error(), "[0].records[1].value.base64:") {
		t.Fatalf("err %v", err)
	}
	rec["value"] = 5
	if _, err := Encode(nil, v); err == nil || !strings.HasPrefix(err.Error(), "[0].records[1].value:") {
		t.Fatalf("err %v", err)
	}
	// Left out, the producer fields are a batch's of no idempotence, and
	// the baseTimestamp is the first record's timestamp.
	rec["value"] = "v"
	b := v.([]any)[0].(map[string]any)
	for _, k := range []string{"producerId", "producerEpoch", "baseSequence", "partitionLeaderEpoch", "baseOffset", "magic", "baseTimestamp"} {
		delete(b, k)
	}
	recs := b["records"].([]any)
	recs[0].(map[string]any)["timestamp"] = json.Number("1700000000123")
	for _, r := range recs {
		delete(r.(map[string]any), "timestampDelta")
	}
	out, err = Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	res3, err := Decode(&s, out, Options{})
	if err != nil || len(warnings(res3)) > 0 {
		t.Fatal(err, warnings(res3))
	}
	got := res3.Nodes[0]
	for name, want := range map[string]int64{"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "partitionLeaderEpoch": -1, "baseOffset": 0, "magic": 2, "baseTimestamp": 1700000000123} {
		if got.Get(name).Int != want {
			t.Fatalf("%s %d, want %d", name, got.Get(name).Int, want)
		}
	}
	delete(recs[0].(map[string]any), "timestamp")
	if _, err := Encode(nil, v); err == nil || err.Error() != "[0].baseTimestamp: missing: give it, or the first record's timestamp" {
		t.Fatalf("err %v", err)
	}
}

// controlBatch builds a control batch holding one record with key and value.
func controlBatch(t *testing.T, key, val []byte) []byte {
	return buildBatch(t, CodecNone, 50, 0x30, []tRec{{key: key, val: val}})
}

func TestControlRecords(t *testing.T) {
	commit := controlBatch(t, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 7})
	res, js := roundTrip(t, commit, true)
	if !bytes.Contains(js, []byte(`"control":{"keyVersion":0,"type":"COMMIT","valueVersion":0,"coordinatorEpoch":7}`)) {
		t.Fatalf("json %s", js)
	}
	compareKgo(t, res, commit)
	abort := controlBatch(t, []byte{0, 0, 0, 0}, []byte{0, 0, 0, 0, 0, 1})
	_, js = roundTrip(t, abort, true)
	if !bytes.Contains(js, []byte(`"type":"ABORT"`)) {
		t.Fatalf("json %s", js)
	}
	// LEADER_CHANGE: the value is the data message alone, read from its
	// first byte (its own Version field), via DecodeData.
	lc := controlBatch(t, []byte{0, 0, 0, 2}, []byte{0, 0, 0, 1, 0xAB})
	var gotName string
	var gotVer int16
	opts := Options{DecodeData: func(s *slab.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error) {
		gotName, gotVer = name, version
		n := s.New()
		n.Name, n.Kind, n.Role, n.Buf, n.Start, n.PrefixEnd, n.End = name, schema.Struct, tree.RoleBody, bufIdx, start, start, end
		c := s.New()
		c.Name, c.Kind, c.Role, c.Buf, c.Start, c.PrefixEnd, c.End, c.Int = "leaderId", schema.Int32, tree.RoleField, bufIdx, start, start, start+4, be32(buf[start:])
		n.Children = []*tree.Node{c}
		return n, nil
	}}
	var s slab.Slab
	res, err := Decode(&s, lc, opts)
	if err != nil || gotName != "LeaderChangeMessage" || gotVer != 0 {
		t.Fatal(err, gotName, gotVer)
	}
	checkTree(t, res, 0, len(lc))
	js = treeJSON(nil, res, lc, Decoded)
	if !bytes.Contains(js, []byte(`"control":{"keyVersion":0,"type":"LEADER_CHANGE","data":{"leaderId":1}}`)) {
		t.Fatalf("json %s", js)
	}
	// The fake decoder's data is not what the value's bytes encode to (the
	// codec's data-message encoder, linked into this test by
	// encode_back_test.go, says so): the encoder refuses to guess which
	// is meant. Without "control", the key and value come back.
	v := parseJSON(t, js)
	if _, err := Encode(nil, v); err == nil || !strings.Contains(err.Error(), `[0].records[0].control.data: expected what "value" holds`) {
		t.Fatal("leader change with data other than its value:", err)
	}
	delete(v.([]any)[0].(map[string]any)["records"].([]any)[0].(map[string]any), "control")
	if out, err := Encode(nil, v); err != nil || !bytes.Equal(out, lc) {
		t.Fatal("leader change round trip", err)
	}
}

// Legacy message set vectors, laid out by hand from the message format in
// the Kafka protocol guide (section 5.3.3 of the implementation docs:
// offset int64, message_size int32, crc int32, magic int8, attributes int8,
// [timestamp int64,] key bytes, value bytes). The CRC-32 (IEEE) values were
// computed independently with Python's zlib.crc32 over magic..value.
var (
	// offset 5, magic 0, key "k", value "hello".
	msgV0 = []byte{
		0, 0, 0, 0, 0, 0, 0, 5, // offset
		0, 0, 0, 0x14, // message_size 20
		0xa4, 0xcd, 0xab, 0x3a, // crc
		0,          // magic
		0,          // attributes
		0, 0, 0, 1, // key length
		'k',
		0, 0, 0, 5, // value length
		'h', 'e', 'l', 'l', 'o',
	}
	// offset 6, magic 1, timestamp 1700000000000, key null, value "world".
	msgV1 = []byte{
		0, 0, 0, 0, 0, 0, 0, 6, // offset
		0, 0, 0, 0x1b, // message_size 27
		0x82, 0x84, 0xbc, 0x7f, // crc
		1,                                              // magic
		0,                                              // attributes
		0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00, // timestamp 1700000000000
		0xff, 0xff, 0xff, 0xff, // key null
		0, 0, 0, 5, // value length
		'w', 'o', 'r', 'l', 'd',
	}
)

func TestMessageSetVectors(t *testing.T) {
	var k0 kmsg.MessageV0
	var k1 kmsg.MessageV1
	if err := k0.ReadFrom(msgV0); err != nil || string(k0.Value) != "hello" || uint32(k0.CRC) != crc32.ChecksumIEEE(msgV0[16:]) {
		t.Fatal("v0 vector", err)
	}
	if err := k1.ReadFrom(msgV1); err != nil || k1.Timestamp != 1700000000000 || uint32(k1.CRC) != crc32.ChecksumIEEE(msgV1[16:]) {
		t.Fatal("v1 vector", err)
	}
	payload := append(append([]byte(nil), msgV0...), msgV1...)
	res, js := roundTrip(t, payload, true)
	compareKgo(t, res, payload)
	want := `[{"offset":5,"magic":0,"crc":2764942138,"attributes":{"compression":"none"},"key":{"text":"k"},"value":{"text":"hello"}},` +
		`{"offset":6,"magic":1,"crc":2189737087,"attributes":{"compression":"none","timestampType":"CreateTime"},"timestamp":1700000000000,"key":null,"value":{"text":"world"}}]`
	if string(js) != want {
		t.Fatalf("json\n got %s\nwant %s", js, want)
	}
	m := res.Nodes[1]
	var names []string
	for _, c := range m.Children {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "offset,messageSize,crc,magic,attributes,timestamp,key,value" {
		t.Fatal(names)
	}
}

// wrapMessages builds a compressed wrapper message around inner (a message
// set), the way pre-0.11 producers did: the wrapper's offset is the offset
// of the last inner message (magic 1: inner offsets are relative, 0..n-1).
func wrapMessages(t *testing.T, magic int8, codec int, offset int64, ts int64, inner []byte) []byte {
	comp, err := deflate(codec, inner, magic == 0)
	if err != nil {
		t.Fatal(err)
	}
	var m []byte
	m = wire.AppendInt64(m, offset)
	m = wire.AppendInt32(m, 0)
	m = wire.AppendInt32(m, 0)
	m = append(m, byte(magic), byte(codec))
	if magic == 1 {
		m = wire.AppendInt64(m, ts)
	}
	m = wire.AppendInt32(m, -1)
	m = wire.AppendInt32(m, int32(len(comp)))
	m = append(m, comp...)
	binary.BigEndian.PutUint32(m[8:], uint32(len(m)-12))
	binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
	return m
}

func withOffset(m []byte, off int64) []byte {
	m = append([]byte(nil), m...)
	binary.BigEndian.PutUint64(m, uint64(off))
	return m
}

// TestWrapperOffsetZero: a magic 1 wrapper whose offset is 0, as
// librdkafka's older producers and kafka-python 2.0 write one in a
// Produce request, gives its inner messages no absolute offsets: Kafka
// reads their relative offsets as they are (AbstractLegacyRecordBatch's
// DeepRecordsIterator), and so does kwire, where the last inner offset
// taken from 0 read -2, -1, 0 for three messages.
func TestWrapperOffsetZero(t *testing.T) {
	inner := append(append(withOffset(msgV1, 0), withOffset(msgV1, 1)...), withOffset(msgV1, 2)...)
	p := wrapMessages(t, 1, CodecGzip, 0, 1700000000005, inner)
	res, js := roundTrip(t, p, true)
	var offs []int64
	for _, ri := range res.Records[1:] {
		offs = append(offs, ri.Offset)
	}
	if !slices.Equal(offs, []int64{0, 1, 2}) {
		t.Fatalf("offsets %v, want 0 1 2", offs)
	}
	if bytes.Contains(js, []byte("absoluteOffset")) || !bytes.Contains(js, []byte(`"messages":[{"offset":0,"magic":1,`)) {
		t.Fatalf("json %s", js)
	}
	compareKgo(t, res, p)
}

func TestMessageSetGzipWrapped(t *testing.T) {
	// magic 1: inner relative offsets 0 and 1, wrapper offset 41 = last.
	inner1 := append(withOffset(msgV1, 0), withOffset(msgV1, 1)...)
	w1 := wrapMessages(t, 1, CodecGzip, 41, 1700000000005, inner1)
	// magic 0: inner offsets absolute.
	inner0 := append(withOffset(msgV0, 42), withOffset(msgV0, 43)...)
	w0 := wrapMessages(t, 0, CodecGzip, 43, 0, inner0)
	payload := append(append([]byte(nil), w1...), w0...)
	res, js := roundTrip(t, payload, true)
	compareKgo(t, res, payload)
	var offs []int64
	for _, ri := range res.Records {
		offs = append(offs, ri.Offset)
	}
	if len(offs) != 6 || offs[1] != 40 || offs[2] != 41 || offs[4] != 42 || offs[5] != 43 {
		t.Fatalf("offsets %v", offs)
	}
	if !bytes.Contains(js, []byte(`"messages":[{"offset":0,"absoluteOffset":40,`)) {
		t.Fatalf("json %s", js)
	}
	for _, codec := range []int{CodecSnappy, CodecLZ4} {
		p := wrapMessages(t, 1, codec, 1, 1700000000005, inner1)
		res, _ := roundTrip(t, p, true)
		compareKgo(t, res, p)
	}
	// lz4 in a magic 0 wrapper, written with the header checksum over the
	// magic number too, as Kafka writes magic 0: no warning.
	p := wrapMessages(t, 0, CodecLZ4, 43, 0, inner0)
	if _, _, old := decompressOldSum(p[26:]); !old {
		t.Fatal("a magic 0 lz4 wrapper is not written with Kafka's checksum")
	}
	roundTrip(t, p, true) // (franz-go refuses the checksum Kafka writes for magic 0)
	// The same checksum in a magic 1 wrapper is wrong there (Kafka
	// refuses it): a warning, and the records all the same.
	p = oldLZ4Checksum(t, wrapMessages(t, 1, CodecLZ4, 41, 1700000000005, inner1))
	res, _ = roundTrip(t, p, false)
	if w := warnings(res); len(w) != 1 || !strings.Contains(w[0], "lz4 frame header checksum computed over the magic number too, which Kafka writes only for magic 0 (its reader refuses it at magic 1)") {
		t.Fatalf("warnings %q", w)
	}
	if len(res.Records) != 3 { // the wrapper and its two messages
		t.Fatalf("%d records", len(res.Records))
	}
}

// decompressOldSum reads an lz4 frame's header checksum: its offset, the
// format's checksum, and whether the frame has Kafka's magic-0 one.
func decompressOldSum(frame []byte) (hc int, good byte, old bool) {
	hc = decompress.LZ4HeaderEnd(frame)
	if hc < 0 {
		return -1, 0, false
	}
	good = byte(decompress.XXH32(frame[4:hc]) >> 8)
	return hc, good, frame[hc] != good && frame[hc] == byte(decompress.XXH32(frame[:hc])>>8)
}

// oldLZ4Checksum gives a magic 1 lz4 wrapper (as wrapMessages writes one,
// with a null key) Kafka's magic-0 header checksum, its CRC made anew.
func oldLZ4Checksum(t *testing.T, m []byte) []byte {
	m = append([]byte(nil), m...)
	frame := m[34:] // offset, size, crc, magic, attributes, timestamp, null key, value length
	hc, _, _ := decompressOldSum(frame)
	if hc < 0 {
		t.Fatal("no lz4 frame")
	}
	frame[hc] = byte(decompress.XXH32(frame[:hc]) >> 8)
	binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
	return m
}

func TestMaxDepth(t *testing.T) {
	m := withOffset(msgV1, 0)
	for i := 0; i < 6; i++ {
		m = wrapMessages(t, 1, CodecGzip, 0, 1, m)
	}
	var s slab.Slab
	res, err := Decode(&s, m, Options{MaxDepth: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Derived) != 3 {
		t.Fatalf("%d derived", len(res.Derived))
	}
	if w := warnings(res); len(w) != 1 || !strings.Contains(w[0], "MaxRecordNesting") {
		t.Fatalf("warnings %q", w)
	}
	roundTrip(t, m, false)
}

func TestMaxDecompressed(t *testing.T) {
	big := buildBatch(t, CodecZstd, 0, 0, []tRec{{val: make([]byte, 100000)}})
	for _, codec := range []int{CodecGzip, CodecSnappy, CodecLZ4, CodecZstd} {
		p := buildBatch(t, codec, 0, 0, []tRec{{val: make([]byte, 100000)}})
		var s slab.Slab
		res, err := Decode(&s, p, Options{MaxDecompressed: 50000})
		if err != nil || len(res.Derived) != 0 {
			t.Fatal(err, len(res.Derived))
		}
		if w := warnings(res); len(w) != 1 || !strings.Contains(w[0], "MaxDecompressed") {
			t.Fatalf("%s: warnings %q", CodecName(codec), w)
		}
	}
	_ = big
}

// TestLZ4OldHeaderChecksum: a hand-made lz4 frame (lz4 frame format spec:
// magic 04 22 4D 18, FLG 0x60 = version 01 + independent blocks, BD 0x40 =
// 64 KB blocks, header checksum, one uncompressed block with the high bit
// of its size set, end mark 0). Its correct header checksum is 0x82 (the
// well-known "04 22 4D 18 60 40 82" header); Kafka before KIP-57 hashed the
// magic number too, giving decompress.XXH32(04 22 4D 18 60 40)>>8 & 0xff.
func TestLZ4OldHeaderChecksum(t *testing.T) {
	if decompress.XXH32(nil) != 0x02CC5D05 || decompress.XXH32([]byte("abc")) != 0x32D153FF || byte(decompress.XXH32([]byte{0x60, 0x40})>>8) != 0x82 {
		t.Fatal("decompress.XXH32 does not match its reference values")
	}
	frame := []byte{0x04, 0x22, 0x4D, 0x18, 0x60, 0x40, 0x82, 5, 0, 0, 0x80, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0}
	out, warn, err := inflate(CodecLZ4, frame, 100, 100)
	if err != nil || warn != "" || string(out) != "hello" {
		t.Fatal(string(out), warn, err)
	}
	old := append([]byte(nil), frame...)
	old[6] = byte(decompress.XXH32(frame[:6]) >> 8)
	if old[6] == 0x82 {
		t.Fatal("old and new checksums agree")
	}
	out, warn, err = inflate(CodecLZ4, old, 100, 100)
	if err != nil || warn != "" || string(out) != "hello" {
		t.Fatal(string(out), warn, err) // the magic says whether it is wrong: decompress.LZ4ChecksumWarning
	}
	bad := append([]byte(nil), frame...)
	bad[6] ^= 0x55
	if _, _, err := inflate(CodecLZ4, bad, 100, 100); err == nil {
		t.Fatal("a wrong checksum that is neither form was accepted")
	}
}

// TestSnappyXerial: the framing snappy-java (used by the Java client) writes:
// 0x82 "SNAPPY" 0x00, int32 version 1, int32 compatible version 1, then
// [int32 length][raw snappy block] chunks.
func TestSnappyXerial(t *testing.T) {
	var raw []byte
	for i, r := range sampleRecs(4) {
		kr := kmsg.Record{OffsetDelta: int32(i), Key: r.key, Value: r.val, Headers: r.hdrs}
		kr.Length = int32(len(kr.AppendTo(nil)) - 1)
		raw = kr.AppendTo(raw)
	}
	x := append([]byte(nil), decompress.XerialMagic...)
	x = wire.AppendInt32(x, 1)
	x = wire.AppendInt32(x, 1)
	half := len(raw) / 2
	for _, part := range [][]byte{raw[:half], raw[half:]} {
		blk := s2.EncodeSnappy(nil, part)
		x = wire.AppendInt32(x, int32(len(blk)))
		x = append(x, blk...)
	}
	b := kmsg.RecordBatch{Magic: 2, Attributes: CodecSnappy, LastOffsetDelta: 3, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: 4, Records: x}
	p := b.AppendTo(nil)
	binary.BigEndian.PutUint32(p[8:], uint32(len(p)-12))
	binary.BigEndian.PutUint32(p[17:], crc32.Checksum(p[21:], castagnoli))
	res, _ := roundTrip(t, p, true)
	compareKgo(t, res, p)
}

func TestHostileCounts(t *testing.T) {
	// A batch claiming 2^31-1 records with a record claiming a huge header count.
	p := buildBatch(t, CodecNone, 0, 0, sampleRecs(1))
	binary.BigEndian.PutUint32(p[57:], 0x7fffffff)
	var s slab.Slab
	res, err := Decode(&s, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, res, 0, len(p))
	roundTrip(t, p, false)
}

func TestMaxNodes(t *testing.T) {
	// Many tiny records compress to almost nothing; the node budget stops them.
	recs := make([]tRec, 20000)
	p := buildBatch(t, CodecZstd, 0, 0, recs)
	var s slab.Slab
	res, err := Decode(&s, p, Options{MaxNodes: 10000})
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, res, 0, len(p))
	if len(res.Records) > 10000/8 {
		t.Fatalf("%d records decoded", len(res.Records))
	}
	if w := warnings(res); len(w) == 0 || !strings.Contains(strings.Join(w, ";"), "MaxNodes") {
		t.Fatalf("warnings %q", w)
	}
	roundTrip(t, p, true) // default limits decode it all
}

// TestRegressionPartialRecordJSON: found by FuzzBatch — a record too short
// for its attributes made AppendJSON write `{,` (invalid JSON).
func TestRegressionPartialRecordJSON(t *testing.T) {
	in := []byte("\x00\x00\x00\x000000\x00\x00\x00\x8b\x00000\x020000\x00X\x00\x00\x00\x02\x00\x00\x0100000\x00\x00\x0100000\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff000080000000000000000000000000000$000000000000000000\x0000000000000000000000000000000000000000000")
	fuzzCheck(t, in)
}

func rawBatch(codec int, count int32, records []byte) []byte {
	return codecBatch(codec, count, records)
}

func TestNonMinimalVarint(t *testing.T) {
	// length 7, attributes 0, timestampDelta 0, offsetDelta 0 written as
	// two bytes (80 00), key null, value null, no headers.
	p := rawBatch(CodecNone, 1, []byte{0x0e, 0, 0, 0x80, 0x00, 0x01, 0x01, 0x00})
	res, js := roundTrip(t, p, false)
	if w := warnings(res); len(w) != 1 || !strings.Contains(w[0], "non-minimal") {
		t.Fatalf("warnings %q", w)
	}
	if !bytes.Contains(js, []byte(`"_raw"`)) {
		t.Fatal("no _raw")
	}
	// Without _raw, Encode writes the canonical form.
	v := parseJSON(t, js)
	delete(v.([]any)[0].(map[string]any), "_raw")
	out, err := Encode(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(p)-1 {
		t.Fatalf("canonical re-encoding is %d bytes, want %d", len(out), len(p)-1)
	}
}

func TestUndecodableCompressed(t *testing.T) {
	p := rawBatch(CodecGzip, 3, []byte("this is not gzip"))
	res, js := roundTrip(t, p, false)
	recs := res.Nodes[0].Get("records")
	if len(recs.Children) != 0 || len(recs.Warnings) != 1 || !strings.Contains(recs.Warnings[0], "cannot decompress gzip") {
		t.Fatalf("records node %+v", recs)
	}
	if !bytes.Contains(js, []byte(`"records":null,"_compressed":"dGhpcyBpcyBub3QgZ3ppcA=="`)) {
		t.Fatalf("json %s", js)
	}
}

// Gzip-wrapped message sets built outside Go: Python 3 struct/zlib laid out
// the messages as in section 5.3.3 of the Kafka implementation docs (CRC-32
// via zlib.crc32) and gzip.compress(inner, mtime=0) compressed the inner
// sets.
//
// gzipWrappedV1: wrapper offset 41, magic 1, attributes 1 (gzip), timestamp
// 1700000000001, inner messages with relative offsets 0 ("a"/"first") and 1
// (null/"second"), so absolute offsets 40 and 41.
// gzipWrappedV0: wrapper offset 8, magic 0, inner offsets 7 and 8.
const (
	gzipWrappedV1 = "00000000000000290000005dbbf1a60101010000018bcfe56801ffffffff000000471f8b08000000000002036360800319c998fd898c400663f7f9a7192011c64420c19a9659545c025503929611bc1d6f0657c7f81f08801cb6e2d4e4fcbc14005d69500250000000"
	gzipWrappedV0 = "0000000000000008000000506c5050570001ffffffff000000421f8b08000000000002036360000376201611ef2b5602f3181381046b5a66517109449a810324bfec93c75c0686ff4000e4b115a726e7e7a500009f10beff40000000"
)

func TestGzipWrappedVectors(t *testing.T) {
	for _, tc := range []struct {
		hex  string
		offs []int64
	}{{gzipWrappedV1, []int64{41, 40, 41}}, {gzipWrappedV0, []int64{8, 7, 8}}} {
		p, err := hex.DecodeString(tc.hex)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := roundTrip(t, p, true)
		compareKgo(t, res, p)
		if len(res.Records) != 3 {
			t.Fatalf("%d records", len(res.Records))
		}
		for i, ri := range res.Records {
			if ri.Offset != tc.offs[i] {
				t.Fatalf("record %d offset %d, want %d", i, ri.Offset, tc.offs[i])
			}
		}
		if v := res.Records[2].Node.Get("value"); string(v.Raw) != "second" || res.Records[2].Node.Buf != 1 {
			t.Fatalf("inner value %q", v.Raw)
		}
	}
}

func TestZstdContentSize(t *testing.T) {
	for _, n := range []int{0, 10, 300, 70000, 1 << 20} {
		c, err := deflate(CodecZstd, make([]byte, n), false)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := decompress.ZstdContentSize(c); (!ok && n > 100) || (ok && v != uint64(n)) {
			t.Fatalf("size %d: got %d %v", n, v, ok)
		}
	}
	// A frame claiming a huge size is refused before any allocation.
	c, _ := deflate(CodecZstd, make([]byte, 1000), false)
	if _, _, err := inflate(CodecZstd, c, 999, 1<<20); err != decompress.ErrLimit {
		t.Fatal(err)
	}
}
