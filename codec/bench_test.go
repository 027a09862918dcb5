package codec

import (
	"encoding/json"
	"testing"

	"github.com/kwire/kwire/codec/records"
	"github.com/twmb/franz-go/pkg/kmsg"
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
	b, err := records.Encode(nil, batch)
	if err != nil {
		panic(err)
	}
	return b
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
	}
}

// BenchmarkDecode measures kwire decoding to the spanned tree and to value
// JSON, beside kmsg ReadFrom + encoding/json.Marshal of the same bytes.
func BenchmarkDecode(b *testing.B) {
	for _, bf := range benchFrames() {
		// Records stay raw here, as kmsg leaves them; the records package
		// has its own benchmarks beside franz-go's batch processing.
		opts := Options{Response: bf.response, APIKey: bf.key, Version: bf.ver, RawRecords: true}
		b.Run(bf.name+"/kwire-tree", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Decode(bf.frame, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bf.name+"/kwire-tree-reused", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			var dec Decoder
			for i := 0; i < b.N; i++ {
				if _, err := dec.Decode(bf.frame, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bf.name+"/kwire-json", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			var buf []byte
			var dec Decoder
			for i := 0; i < b.N; i++ {
				f, err := dec.Decode(bf.frame, opts)
				if err != nil {
					b.Fatal(err)
				}
				buf = f.AppendJSON(buf[:0], JSONOptions{})
			}
		})
		b.Run(bf.name+"/kmsg-json", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				m := bf.kmsg()
				if err := m.ReadFrom(bf.frame[bf.bodyAt:]); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
