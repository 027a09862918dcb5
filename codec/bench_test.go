package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"runtime"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/internal/rec"
)

// benchFrame is a representative frame: its bytes, and what kmsg needs to
// read the same body.
type benchFrame struct {
	name     string
	frame    []byte // with size prefix
	bodyAt   int    // where the body starts
	response bool
	key, ver int16
	kmsg     func() kmsgMsg
}

func frameOf(msg interface {
	AppendTo([]byte) []byte
}, key, ver int16, response bool, flexibleHeader bool) ([]byte, int) {
	var hdr []byte
	if response {
		hdr = []byte{0, 0, 0, 7}
		if flexibleHeader {
			hdr = append(hdr, 0)
		}
	} else {
		hdr = []byte{byte(key >> 8), byte(key), byte(ver >> 8), byte(ver), 0, 0, 0, 7, 0, 5, 'k', 'w', 'i', 'r', 'e'}
		if flexibleHeader {
			hdr = append(hdr, 0)
		}
	}
	body := msg.AppendTo(nil)
	n := len(hdr) + len(body)
	b := append([]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, hdr...)
	return append(b, body...), 4 + len(hdr)
}

// fakeRecords is an uncompressed record batch of about n bytes: 100-byte
// values with short keys.
func fakeRecords(n int) []byte {
	var recs []any
	for i := 0; i*110 < n; i++ {
		v := make([]byte, 100)
		for j := range v {
			v[j] = 'a' + byte((i+j)%26)
		}
		recs = append(recs, map[string]any{"attributes": json.Number("0"), "timestampDelta": json.Number(itoa(i)), "offsetDelta": json.Number(itoa(i)),
			"key": map[string]any{"text": "key-" + itoa(i)}, "value": map[string]any{"text": string(v)}, "headers": []any{}})
	}
	batch := []any{map[string]any{"baseOffset": json.Number("0"), "partitionLeaderEpoch": json.Number("0"), "magic": json.Number("2"),
		"attributes":      map[string]any{"compression": "none", "timestampType": "CreateTime", "transactional": false, "control": false},
		"lastOffsetDelta": json.Number(itoa(len(recs) - 1)), "baseTimestamp": json.Number("1737156468928"), "maxTimestamp": json.Number("1737156468928"),
		"producerId": json.Number("-1"), "producerEpoch": json.Number("-1"), "baseSequence": json.Number("-1"), "records": recs}}
	b, err := rec.Encode(nil, batch)
	if err != nil {
		panic(err)
	}
	return b
}

// realisticBatch is a record batch of n records as a producer writes them:
// a short key, a ~90-byte JSON-ish value, one header, compressed with
// franz-go's own compressor.
func realisticBatch(base int64, n int, codec kgo.CompressionCodec) []byte {
	words := []string{"alpha", "beta", "gamma", "order", "user", "amount", "status", "shipped", "pending", "eu-west"}
	var raw []byte
	for i := 0; i < n; i++ {
		v := []byte(`{"`)
		for j := 0; len(v) < 80; j++ {
			v = append(v, words[(i+j)%len(words)]...)
			v = append(v, `":`...)
			v = append(v, itoa((i*7919+j*104729)%100000)...)
			v = append(v, `,"`...)
		}
		v = append(v, `x":0}`...)
		r := kmsg.Record{TimestampDelta64: int64(i), OffsetDelta: int32(i), Key: []byte("user-" + itoa(i*31%10007)), Value: v,
			Headers: []kmsg.Header{{Key: "trace", Value: []byte(itoa(i * 2654435761 % 1000000007))}}}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		raw = r.AppendTo(raw)
	}
	attrs := int16(0)
	if c, err := kgo.DefaultCompressor(codec); err == nil && c != nil {
		var buf bytes.Buffer
		out, ct := c.Compress(&buf, raw)
		raw, attrs = append([]byte(nil), out...), int16(ct)
	}
	rb := kmsg.RecordBatch{FirstOffset: base, Magic: 2, Attributes: attrs, LastOffsetDelta: int32(n - 1), FirstTimestamp: 1737156468928,
		MaxTimestamp: 1737156468928 + int64(n), ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(n), Records: raw}
	out := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

func benchFrames() []benchFrame {
	var out []benchFrame

	md := kmsg.NewMetadataResponse()
	md.SetVersion(12)
	for b := int32(0); b < 3; b++ {
		br := kmsg.NewMetadataResponseBroker()
		br.NodeID, br.Host, br.Port = b, "broker-"+itoa(int(b))+".kafka.internal", 9092
		md.Brokers = append(md.Brokers, br)
	}
	cluster := "kwire-cluster"
	md.ClusterID = &cluster
	for t := 0; t < 10; t++ {
		tp := kmsg.NewMetadataResponseTopic()
		name := "topic-" + itoa(t)
		tp.Topic = &name
		for p := int32(0); p < 100; p++ {
			pp := kmsg.NewMetadataResponseTopicPartition()
			pp.Partition, pp.Leader, pp.LeaderEpoch = p, p%3, 5
			pp.Replicas, pp.ISR = []int32{0, 1, 2}, []int32{0, 1, 2}
			tp.Partitions = append(tp.Partitions, pp)
		}
		md.Topics = append(md.Topics, tp)
	}
	b, at := frameOf(&md, 3, 12, true, true)
	out = append(out, benchFrame{"MetadataV12Response1000Partitions", b, at, true, 3, 12, func() kmsgMsg { m := kmsg.NewPtrMetadataResponse(); m.SetVersion(12); return m }})

	pr := kmsg.NewProduceRequest()
	pr.SetVersion(9)
	pr.Acks, pr.TimeoutMillis = -1, 30000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "orders"
	for p := int32(0); p < 4; p++ {
		pp := kmsg.NewProduceRequestTopicPartition()
		pp.Partition, pp.Records = p, fakeRecords(4096)
		pt.Partitions = append(pt.Partitions, pp)
	}
	pr.Topics = append(pr.Topics, pt)
	b, at = frameOf(&pr, 0, 9, false, true)
	out = append(out, benchFrame{"ProduceV9Request", b, at, false, 0, 9, func() kmsgMsg { m := kmsg.NewPtrProduceRequest(); m.SetVersion(9); return m }})

	fr := kmsg.NewFetchResponse()
	fr.SetVersion(13)
	for t := 0; t < 2; t++ {
		ft := kmsg.NewFetchResponseTopic()
		ft.TopicID = [16]byte{byte(t + 1), 2, 3}
		for p := int32(0); p < 8; p++ {
			fp := kmsg.NewFetchResponseTopicPartition()
			fp.Partition, fp.HighWatermark, fp.LastStableOffset, fp.LogStartOffset = p, 100000, 100000, 0
			fp.RecordBatches = fakeRecords(16384)
			ft.Partitions = append(ft.Partitions, fp)
		}
		fr.Topics = append(fr.Topics, ft)
	}
	b, at = frameOf(&fr, 1, 13, true, true)
	out = append(out, benchFrame{"FetchV13Response", b, at, true, 1, 13, func() kmsgMsg { m := kmsg.NewPtrFetchResponse(); m.SetVersion(13); return m }})

	// A consumer's fetch at the default max.partition.fetch.bytes: four
	// partitions of 1 MiB of records each, the leader moved (currentLeader,
	// a tagged field declared before the records: the walk reads ahead to
	// it, and a JSON writer must not hold the records to put it first).
	fr = kmsg.NewFetchResponse()
	fr.SetVersion(13)
	ft := kmsg.NewFetchResponseTopic()
	ft.TopicID = [16]byte{9, 2, 3}
	for p := int32(0); p < 4; p++ {
		fp := kmsg.NewFetchResponseTopicPartition()
		fp.Partition, fp.HighWatermark, fp.LastStableOffset, fp.LogStartOffset = p, 100000, 100000, 0
		fp.ErrorCode = 74 // FENCED_LEADER_EPOCH, the error a moved leader comes with
		fp.CurrentLeader.LeaderID, fp.CurrentLeader.LeaderEpoch = (p+1)%3, 6
		fp.RecordBatches = realisticBatch(int64(p)*8500, 8500, kgo.NoCompression())
		ft.Partitions = append(ft.Partitions, fp)
	}
	fr.Topics = append(fr.Topics, ft)
	b, at = frameOf(&fr, 1, 13, true, true)
	out = append(out, benchFrame{"FetchV13Response4MiBPartitionsLeader", b, at, true, 1, 13, func() kmsgMsg { m := kmsg.NewPtrFetchResponse(); m.SetVersion(13); return m }})

	for _, c := range []struct {
		name  string
		codec kgo.CompressionCodec
	}{{"None", kgo.NoCompression()}, {"LZ4", kgo.Lz4Compression()}, {"Zstd", kgo.ZstdCompression()}} {
		fr := kmsg.NewFetchResponse()
		fr.SetVersion(11)
		ft := kmsg.NewFetchResponseTopic()
		ft.Topic = "orders"
		for p := int32(0); p < 10; p++ {
			fp := kmsg.NewFetchResponseTopicPartition()
			fp.Partition, fp.HighWatermark, fp.LastStableOffset = p, 100000, 100000
			fp.RecordBatches = realisticBatch(int64(p)*1000, 1000, c.codec)
			ft.Partitions = append(ft.Partitions, fp)
		}
		fr.Topics = append(fr.Topics, ft)
		b, at := frameOf(&fr, 1, 11, true, false)
		out = append(out, benchFrame{"FetchV11Response10000Records" + c.name, b, at, true, 1, 11, func() kmsgMsg { m := kmsg.NewPtrFetchResponse(); m.SetVersion(11); return m }})
	}

	av := kmsg.NewApiVersionsResponse()
	av.SetVersion(3)
	for k := int16(0); k < 95; k++ {
		x := kmsg.NewApiVersionsResponseApiKey()
		x.ApiKey, x.MinVersion, x.MaxVersion = k, 0, k%17
		av.ApiKeys = append(av.ApiKeys, x)
	}
	b, at = frameOf(&av, 18, 3, true, false)
	out = append(out, benchFrame{"ApiVersionsV3Response", b, at, true, 18, 3, func() kmsgMsg { m := kmsg.NewPtrApiVersionsResponse(); m.SetVersion(3); return m }})
	return out
}

func TestBenchFramesDecode(t *testing.T) {
	for _, bf := range benchFrames() {
		f, err := Decode(bf.frame, Options{Response: bf.response, APIKey: bf.key, Version: bf.ver})
		if err != nil {
			t.Fatalf("%s: %v", bf.name, err)
		}
		noWarnings(t, f.Root)
		m := bf.kmsg()
		if err := m.ReadFrom(bf.frame[bf.bodyAt:]); err != nil {
			t.Fatalf("%s: kmsg: %v", bf.name, err)
		}
		for _, m := range jsonModes {
			bothPaths(t, bf.frame, inMode(Options{Response: bf.response, APIKey: bf.key, Version: bf.ver}, m))
		}
	}
}

// BenchmarkDecode measures kwire decoding to value JSON without a tree
// (the fast path, records decoded or left as base64), to the spanned tree,
// and through the tree to value JSON, beside kmsg ReadFrom +
// encoding/json.Marshal of the same bytes, with records left as bytes
// (kmsg's own form) or parsed by kmsg too (batches decompressed, every
// record read), as a consumer does. Besides ns/op, MB/s and allocs/op
// (with decoders and buffers reused, as a long-running caller keeps
// them), peak-B is what one decode allocates from cold (a fresh decoder
// and buffers): an upper bound of the heap it needs.
func BenchmarkDecode(b *testing.B) {
	for _, bf := range benchFrames() {
		opts := Options{Response: bf.response, APIKey: bf.key, Version: bf.ver}
		// Each op is made by mk, so a fresh one measures a cold decode.
		run := func(name string, mk func() func()) {
			b.Run(bf.name+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(bf.frame)))
				b.ReportAllocs()
				peak := coldBytes(mk())
				op := mk()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					op()
				}
				b.ReportMetric(float64(peak), "peak-B")
			})
		}
		fast := func(records RecordsMode) func() func() {
			opts := opts
			opts.Records = records
			return func() func() {
				var dec Decoder
				var buf []byte
				return func() {
					var err error
					if buf, _, err = dec.AppendJSON(buf[:0], bf.frame, opts); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
		run("kwire-fast", fast(RecordsDecoded))
		run("kwire-fast-records-base64", fast(RecordsBase64))
		run("kwire-tree", func() func() {
			var dec Decoder
			return func() {
				if _, err := dec.Decode(bf.frame, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		run("kwire-tree-json", func() func() {
			var dec Decoder
			var buf []byte
			return func() {
				f, err := dec.Decode(bf.frame, opts)
				if err != nil {
					b.Fatal(err)
				}
				buf = f.AppendJSON(buf[:0])
			}
		})
		run("kmsg-json", func() func() {
			return func() {
				m := bf.kmsg()
				if err := m.ReadFrom(bf.frame[bf.bodyAt:]); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(m); err != nil {
					b.Fatal(err)
				}
			}
		})
		if kmsgHasRecords(bf.kmsg()) {
			run("kmsg-json-records", func() func() {
				dec := kgo.DefaultDecompressor()
				return func() {
					m := bf.kmsg()
					if err := m.ReadFrom(bf.frame[bf.bodyAt:]); err != nil {
						b.Fatal(err)
					}
					out := struct {
						Msg     any
						Records [][]kmsg.Record
					}{Msg: m, Records: kmsgRecords(b, m, dec)}
					if _, err := json.Marshal(out); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// coldBytes is what op allocates the first time it runs.
func coldBytes(op func()) uint64 {
	runtime.GC()
	var a, c runtime.MemStats
	runtime.ReadMemStats(&a)
	op()
	runtime.ReadMemStats(&c)
	return c.TotalAlloc - a.TotalAlloc
}

func kmsgHasRecords(m kmsgMsg) bool {
	switch m.(type) {
	case *kmsg.FetchResponse, *kmsg.ProduceRequest:
		return true
	}
	return false
}

// kmsgRecords parses every record of a Fetch response or Produce request
// with kmsg, as a consumer (or broker) does: batch headers, decompression,
// records.
func kmsgRecords(b *testing.B, m kmsgMsg, dec kgo.Decompressor) [][]kmsg.Record {
	var sets [][]byte
	switch x := m.(type) {
	case *kmsg.FetchResponse:
		for _, t := range x.Topics {
			for _, p := range t.Partitions {
				sets = append(sets, p.RecordBatches)
			}
		}
	case *kmsg.ProduceRequest:
		for _, t := range x.Topics {
			for _, p := range t.Partitions {
				sets = append(sets, p.Records)
			}
		}
	}
	var out [][]kmsg.Record
	for _, set := range sets {
		var recs []kmsg.Record
		for off := 0; off+12 <= len(set); {
			l := int(binary.BigEndian.Uint32(set[off+8:]))
			var rb kmsg.RecordBatch
			if err := rb.ReadFrom(set[off : off+12+l]); err != nil {
				b.Fatal(err)
			}
			off += 12 + l
			raw := rb.Records
			if c := rb.Attributes & 7; c != 0 {
				var err error
				if raw, err = dec.Decompress(raw, kgo.CompressionCodecType(c)); err != nil {
					b.Fatal(err)
				}
			}
			for j := 0; j < int(rb.NumRecords); j++ {
				v, n := binary.Varint(raw)
				var r kmsg.Record
				if err := r.ReadFrom(raw[:n+int(v)]); err != nil {
					b.Fatal(err)
				}
				raw = raw[n+int(v):]
				recs = append(recs, r)
			}
		}
		out = append(out, recs)
	}
	return out
}
