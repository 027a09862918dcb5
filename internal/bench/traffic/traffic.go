// Package traffic makes realistic Kafka traffic for benchmarks and memory
// tests: Metadata v9, Produce v7 and Fetch v11 exchanges (versions tshark
// 4.0 decodes too) with record batches of keyed records, built with
// franz-go's kmsg, as frames, NDJSON lines for kwire batch, or a pcap file
// of TCP conversations. Everything is deterministic: the same arguments
// give the same bytes.
package traffic

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Frame is one frame with its size prefix, and how to read it.
type Frame struct {
	Bytes    []byte
	Response bool
	Key      int16
	Version  int16
}

// corrAt is where a frame's correlation id lies.
func (f *Frame) corrAt() int {
	if f.Response {
		return 4
	}
	return 8
}

// Pair is a request and its response (correlation id 0, set when written).
type Pair struct{ Request, Response Frame }

// variants is how many different pairs of each API the mix cycles through.
const variants = 8

// Mix returns the pairs the traffic cycles through: Metadata v9, Produce
// v7, Fetch v11 in turn, each in several variants.
func Mix() []Pair {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []Pair
	for i := 0; i < variants; i++ {
		out = append(out, metadata(rng), produce(rng), fetch(rng))
	}
	return out
}

const clientID = "bench-client-1"

func request(r kmsg.Request, v int16) Frame {
	r.SetVersion(v)
	b := kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID)).AppendRequest(nil, r, 0)
	return Frame{Bytes: b, Key: r.Key(), Version: v}
}

func response(r kmsg.Response, v int16) Frame {
	r.SetVersion(v)
	b := make([]byte, 8)
	if r.IsFlexible() {
		b = append(b, 0) // response header v1: no tagged fields
	}
	b = r.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return Frame{Bytes: b, Response: true, Key: r.Key(), Version: v}
}

var topics = []string{"orders", "payments", "inventory-updates", "clickstream.events", "audit-log"}

func metadata(rng *rand.Rand) Pair {
	req := kmsg.NewPtrMetadataRequest()
	for _, t := range topics[:3] {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	req.AllowAutoTopicCreation = true
	rsp := kmsg.NewPtrMetadataResponse()
	for id := int32(1); id <= 3; id++ {
		b := kmsg.NewMetadataResponseBroker()
		b.NodeID, b.Host, b.Port = id, "broker-"+strconv.Itoa(int(id))+".kafka.internal", 9092
		b.Rack = kmsg.StringPtr("eu-west-1" + string(rune('a'+id-1)))
		rsp.Brokers = append(rsp.Brokers, b)
	}
	rsp.ClusterID = kmsg.StringPtr("Wt8bXyOQRfiTXPs6zBS4Vw")
	rsp.ControllerID = 2
	for _, t := range topics[:3] {
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic = kmsg.StringPtr(t)
		for p := int32(0); p < 6; p++ {
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition = p
			mp.Leader = 1 + (p+rng.Int32N(3))%3
			mp.LeaderEpoch = rng.Int32N(20)
			mp.Replicas = []int32{1, 2, 3}
			mp.ISR = []int32{1, 2, 3}
			mt.Partitions = append(mt.Partitions, mp)
		}
		rsp.Topics = append(rsp.Topics, mt)
	}
	return Pair{request(req, 9), response(rsp, 9)}
}

// batch is a record batch (magic 2, uncompressed) of n records with keys,
// JSON-ish values of about 120 bytes and one header each.
func batch(rng *rand.Rand, baseOffset int64, n int) []byte {
	ts := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC).UnixMilli() + rng.Int64N(1e6)
	var recs []byte
	for i := 0; i < n; i++ {
		r := kmsg.NewRecord()
		r.TimestampDelta64 = int64(i)
		r.OffsetDelta = int32(i)
		r.Key = []byte("customer-" + strconv.Itoa(rng.IntN(100000)))
		r.Value = []byte(`{"order":` + strconv.Itoa(rng.IntN(1e9)) + `,"sku":"SKU-` + strconv.Itoa(rng.IntN(1e5)) +
			`","qty":` + strconv.Itoa(1+rng.IntN(9)) + `,"price":` + strconv.Itoa(rng.IntN(100000)) + `,"currency":"EUR","note":"express delivery"}`)
		r.Headers = []kmsg.Header{{Key: "trace-id", Value: []byte(strconv.FormatUint(rng.Uint64(), 16))}}
		body := r.AppendTo(nil)
		r.Length = int32(len(body) - 1) // everything after the (1-byte) length 0
		recs = r.AppendTo(recs)
	}
	b := kmsg.RecordBatch{
		FirstOffset: baseOffset, Magic: 2, LastOffsetDelta: int32(n - 1),
		FirstTimestamp: ts, MaxTimestamp: ts + int64(n-1), ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: int32(n), Records: recs,
	}
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	crc := crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli))
	binary.BigEndian.PutUint32(out[17:], crc)
	return out
}

func produce(rng *rand.Rand) Pair {
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = -1, 30000
	rsp := kmsg.NewPtrProduceResponse()
	t := topics[rng.IntN(2)]
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = t
	st := kmsg.NewProduceResponseTopic()
	st.Topic = t
	for p := int32(0); p < 3; p++ {
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition = p
		rp.Records = batch(rng, 0, 20)
		rt.Partitions = append(rt.Partitions, rp)
		sp := kmsg.NewProduceResponseTopicPartition()
		sp.Partition, sp.BaseOffset, sp.LogStartOffset = p, rng.Int64N(1e7), 0
		st.Partitions = append(st.Partitions, sp)
	}
	req.Topics = append(req.Topics, rt)
	rsp.Topics = append(rsp.Topics, st)
	return Pair{request(req, 7), response(rsp, 7)}
}

func fetch(rng *rand.Rand) Pair {
	req := kmsg.NewPtrFetchRequest()
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.IsolationLevel = 500, 1, 52428800, 1
	req.SessionID, req.SessionEpoch = rng.Int32N(1<<30), 1+rng.Int32N(100)
	rsp := kmsg.NewPtrFetchResponse()
	rsp.SessionID = req.SessionID
	t := topics[rng.IntN(2)]
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic = t
	st := kmsg.NewFetchResponseTopic()
	st.Topic = t
	for p := int32(0); p < 3; p++ {
		off := rng.Int64N(1e7)
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.CurrentLeaderEpoch, rp.FetchOffset, rp.LogStartOffset, rp.PartitionMaxBytes = p, 5, off, -1, 1048576
		rt.Partitions = append(rt.Partitions, rp)
		sp := kmsg.NewFetchResponseTopicPartition()
		sp.Partition, sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = p, off+20, off+20, 0
		sp.RecordBatches = batch(rng, off, 20)
		st.Partitions = append(st.Partitions, sp)
	}
	req.Topics = append(req.Topics, rt)
	rsp.Topics = append(rsp.Topics, st)
	return Pair{request(req, 11), response(rsp, 11)}
}

// withCorr returns a copy of f's bytes with correlation id corr.
func withCorr(dst []byte, f *Frame, corr int32) []byte {
	dst = append(dst[:0], f.Bytes...)
	binary.BigEndian.PutUint32(dst[f.corrAt():], uint32(corr))
	return dst
}

// Stats says what was written.
type Stats struct {
	Frames int
	Bytes  int64 // Kafka frame bytes, size prefixes included
}

// WriteNDJSON writes n frames, requests and responses of the mix in turn,
// as kwire batch lines: {"hex","direction","apiKey","apiVersion"}.
func WriteNDJSON(w io.Writer, n int) (Stats, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	mix := Mix()
	var st Stats
	var line []byte
	for i := 0; i < n; i++ {
		p := &mix[(i/2)%len(mix)]
		f := &p.Request
		dir := "request"
		if i%2 == 1 {
			f, dir = &p.Response, "response"
		}
		line = append(line[:0], `{"hex":"`...)
		line = hex.AppendEncode(line, f.Bytes)
		line = append(line, `","direction":"`+dir+`","apiKey":`...)
		line = strconv.AppendInt(line, int64(f.Key), 10)
		line = append(line, `,"apiVersion":`...)
		line = strconv.AppendInt(line, int64(f.Version), 10)
		line = append(line, "}\n"...)
		bw.Write(line)
		st.Frames++
		st.Bytes += int64(len(f.Bytes))
	}
	return st, bw.Flush()
}
