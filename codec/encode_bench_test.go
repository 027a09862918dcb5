package codec

import (
	"encoding/json"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataGo is the benchmark's Metadata v12 response (3 brokers, 10
// topics of 100 partitions) as a broker's Go code builds it: native values.
func metadataGo() map[string]any {
	brokers := make([]map[string]any, 3)
	for b := range brokers {
		brokers[b] = map[string]any{"nodeId": int32(b), "host": "broker-" + itoa(b) + ".kafka.internal", "port": int32(9092), "rack": nil}
	}
	topics := make([]map[string]any, 10)
	for t := range topics {
		parts := make([]map[string]any, 100)
		for p := range parts {
			parts[p] = map[string]any{"errorCode": schema.CodeNone, "partitionIndex": int32(p), "leaderId": int32(p % 3), "leaderEpoch": int32(5),
				"replicaNodes": []int32{0, 1, 2}, "isrNodes": []int32{0, 1, 2}, "offlineReplicas": []int32{}}
		}
		topics[t] = map[string]any{"errorCode": schema.CodeNone, "name": "topic-" + itoa(t), "topicId": [16]byte{}, "isInternal": false,
			"partitions": parts, "topicAuthorizedOperations": int32(-2147483648)}
	}
	return map[string]any{"throttleTimeMs": 0, "brokers": brokers, "clusterId": "kwire-cluster", "controllerId": int32(-1), "topics": topics}
}

// BenchmarkEncode measures kwire encoding value JSON (parse and encode),
// generic values already parsed, and Go values, beside kmsg encoding its
// struct and encoding/json + kmsg doing the JSON path.
func BenchmarkEncode(b *testing.B) {
	for _, bf := range benchFrames() {
		f, err := Decode(bf.frame, Options{Response: bf.response, APIKey: bf.key, Version: bf.ver})
		if err != nil {
			b.Fatal(err)
		}
		js := f.AppendJSON(nil)
		body := bf.frame[bf.bodyAt:]
		b.Run(bf.name+"/kwire-json", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Encode(nil, js, EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		v, _ := parseJSON(js)
		b.Run(bf.name+"/kwire-generic", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			var out []byte
			for i := 0; i < b.N; i++ {
				if out, err = Encode(out[:0], v, EncodeOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		m := bf.kmsg()
		if err := m.ReadFrom(body); err != nil {
			b.Fatal(err)
		}
		kjs, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bf.name+"/kmsg-struct", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			var out []byte
			for i := 0; i < b.N; i++ {
				out = m.AppendTo(out[:0])
			}
		})
		b.Run(bf.name+"/kmsg-json", func(b *testing.B) {
			b.SetBytes(int64(len(bf.frame)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				x := bf.kmsg()
				if err := json.Unmarshal(kjs, x); err != nil {
					b.Fatal(err)
				}
				x.AppendTo(nil)
			}
		})
	}
	body := metadataGo()
	h := RequestHeader{APIKey: schema.KeyMetadata, Version: 12, CorrelationID: 7}
	b.Run("MetadataV12Response1000Partitions/kwire-go-values", func(b *testing.B) {
		b.ReportAllocs()
		var out []byte
		var err error
		for i := 0; i < b.N; i++ {
			if out, err = EncodeResponse(out[:0], h, h.Version, body, EncodeOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The Go-values body encodes to the benchmark frame's bytes.
func TestMetadataGoMatchesBenchFrame(t *testing.T) {
	bf := benchFrames()[0]
	got, err := EncodeResponse(nil, RequestHeader{APIKey: schema.KeyMetadata, Version: 12, CorrelationID: 7}, 12, metadataGo(), EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := kmsg.NewPtrMetadataResponse()
	m.SetVersion(12)
	if err := m.ReadFrom(got[bf.bodyAt:]); err != nil {
		t.Fatal(err)
	}
	if len(m.Topics) != 10 || len(m.Topics[9].Partitions) != 100 || m.Topics[9].Partitions[99].Leader != 0 {
		t.Fatalf("%+v", m.Topics[9].Partitions[99])
	}
}
