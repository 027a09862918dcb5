package rec

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/wire"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// recConn records every byte a client writes and reads on a connection.
type recConn struct {
	net.Conn
	mu      *sync.Mutex
	out, in bytes.Buffer
}

func (c *recConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.mu.Lock()
	c.out.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.in.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

type recorder struct {
	mu    sync.Mutex
	conns []*recConn
}

func (r *recorder) dial(ctx context.Context, network, host string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	rc := &recConn{Conn: c, mu: &r.mu}
	r.mu.Lock()
	r.conns = append(r.conns, rc)
	r.mu.Unlock()
	return rc, nil
}

// frames splits a byte stream into size-prefixed Kafka frames (without the size).
func frames(b []byte) [][]byte {
	var out [][]byte
	for {
		f, rest, ok := wire.SplitFrame(b, 0)
		if !ok {
			break
		}
		out, b = append(out, f[4:]), rest
	}
	return out
}

func skipTags(b []byte) []byte {
	n, l, _ := wire.Uvarint(b)
	b = b[l:]
	for i := 0; i < int(n); i++ {
		_, l, _ = wire.Uvarint(b) // tag
		b = b[l:]
		sz, l2, _ := wire.Uvarint(b)
		b = b[l2+int(sz):]
	}
	return b
}

type payload struct {
	api  string
	data []byte
}

// recordsFields parses the recorded frames with kmsg and returns the
// records field bytes of Produce requests and Fetch responses.
func (r *recorder) recordsFields(t *testing.T) []payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []payload
	for _, c := range r.conns {
		type pending struct{ key, ver int16 }
		byCorr := map[int32]pending{}
		for _, f := range frames(c.out.Bytes()) {
			key, ver := int16(binary.BigEndian.Uint16(f)), int16(binary.BigEndian.Uint16(f[2:]))
			corr := int32(binary.BigEndian.Uint32(f[4:]))
			byCorr[corr] = pending{key, ver}
			if key != 0 {
				continue
			}
			req := kmsg.NewPtrProduceRequest()
			req.SetVersion(ver)
			body := f[8:]
			cl := int(int16(binary.BigEndian.Uint16(body)))
			body = body[2+max(cl, 0):]
			if req.IsFlexible() {
				body = skipTags(body)
			}
			if err := req.ReadFrom(body); err != nil {
				t.Fatalf("produce request: %v", err)
			}
			for _, tp := range req.Topics {
				for _, p := range tp.Partitions {
					out = append(out, payload{"produce v" + itoa(int(ver)) + " " + tp.Topic, p.Records})
				}
			}
		}
		for _, f := range frames(c.in.Bytes()) {
			corr := int32(binary.BigEndian.Uint32(f))
			p, ok := byCorr[corr]
			if !ok || p.key != 1 {
				continue
			}
			resp := kmsg.NewPtrFetchResponse()
			resp.SetVersion(p.ver)
			body := f[4:]
			if resp.IsFlexible() {
				body = skipTags(body)
			}
			if err := resp.ReadFrom(body); err != nil {
				t.Fatalf("fetch response: %v", err)
			}
			for _, tp := range resp.Topics {
				for _, pp := range tp.Partitions {
					if len(pp.RecordBatches) > 0 {
						out = append(out, payload{"fetch v" + itoa(int(p.ver)) + " " + tp.Topic, pp.RecordBatches})
					}
				}
			}
		}
	}
	return out
}

func TestKfakeFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an in-process cluster")
	}
	codecs := []struct {
		topic string
		codec kgo.CompressionCodec
		want  int
	}{
		{"t-none", kgo.NoCompression(), CodecNone},
		{"t-gzip", kgo.GzipCompression(), CodecGzip},
		{"t-snappy", kgo.SnappyCompression(), CodecSnappy},
		{"t-lz4", kgo.Lz4Compression(), CodecLZ4},
		{"t-zstd", kgo.ZstdCompression(), CodecZstd},
	}
	topics := []string{"t-txn"}
	for _, c := range codecs {
		topics = append(topics, c.topic)
	}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topics...))
	if err != nil {
		t.Fatal(err)
	}
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	rec := &recorder{}
	type sent struct{ topic, key, value string }
	var produced []sent
	mkRec := func(topic string, i int) *kgo.Record {
		r := &kgo.Record{Topic: topic, Key: []byte("key-" + itoa(i)), Value: bytes.Repeat([]byte("value "+itoa(i)+" "), 20),
			Headers: []kgo.RecordHeader{{Key: "h", Value: []byte("hv" + itoa(i))}, {Key: "bin", Value: []byte{0, 0xff, byte(i)}}}}
		if i%5 == 4 {
			r.Key = nil
		}
		return r
	}
	for _, c := range codecs {
		cl, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.Dialer(rec.dial), kgo.ProducerBatchCompression(c.codec), kgo.ProducerLinger(50*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		var rs []*kgo.Record
		for i := 0; i < 20; i++ {
			r := mkRec(c.topic, i)
			rs = append(rs, r)
			produced = append(produced, sent{CodecName(c.want), string(r.Key), string(r.Value)})
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		cl.Close()
	}
	// Transactions: one committed, one aborted.
	txn, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.Dialer(rec.dial), kgo.TransactionalID("tx-1"), kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	if err != nil {
		t.Fatal(err)
	}
	for round, commit := range []kgo.TransactionEndTry{kgo.TryCommit, kgo.TryAbort} {
		if err := txn.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		var rs []*kgo.Record
		for i := 0; i < 3; i++ {
			rs = append(rs, mkRec("t-txn", 100*round+i))
		}
		if err := txn.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatal(err)
		}
		if err := txn.EndTransaction(ctx, commit); err != nil {
			t.Fatal(err)
		}
	}
	txn.Close()
	// Consume everything back (read uncommitted, so aborted data is fetched too).
	cons, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.Dialer(rec.dial), kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for got < len(produced)+6 && ctx.Err() == nil {
		fs := cons.PollFetches(ctx)
		got += fs.NumRecords()
	}
	cons.Close()
	if got < len(produced)+6 {
		t.Fatalf("consumed %d records", got)
	}

	fields := rec.recordsFields(t)
	seen := map[sent]bool{}
	codecSeen := map[string]int{}
	markers := map[string]int{}
	nProduce, nFetch := 0, 0
	for _, p := range fields {
		if bytes.HasPrefix([]byte(p.api), []byte("produce")) {
			nProduce++
		} else {
			nFetch++
		}
		res, _ := roundTrip(t, p.data, true)
		compareKgo(t, res, p.data)
		derivedAsFranz(t, p)
		for _, b := range res.Nodes {
			codecSeen[p.api[:5]+" "+CodecName(int(b.Get("attributes").Int&7))]++
		}
		for _, ri := range res.Records {
			k, v := ri.Node.Get("key"), ri.Node.Get("value")
			b := res.Nodes[0]
			for _, n := range res.Nodes {
				if n.Start <= ri.Node.Start && ri.Node.End <= n.End && ri.Node.Buf == 0 || n.Get("records").Children != nil && n.Get("records").Children[0].Buf == ri.Node.Buf {
					b = n
				}
			}
			seen[sent{CodecName(int(b.Get("attributes").Int & 7)), string(k.Raw), string(v.Raw)}] = true
			if kk := k.Children; len(kk) == 2 {
				markers[ControlTypeName(int(kk[1].Int))]++
			}
		}
	}
	for _, s := range produced {
		if !seen[s] {
			t.Fatalf("produced record %+v not found in decoded frames", s)
		}
	}
	for _, c := range codecs {
		if codecSeen["produ "+CodecName(c.want)] == 0 || codecSeen["fetch "+CodecName(c.want)] == 0 {
			t.Fatalf("no %s batches seen: %v", CodecName(c.want), codecSeen)
		}
	}
	if markers["COMMIT"] == 0 || markers["ABORT"] == 0 {
		t.Fatalf("control markers seen: %v", markers)
	}
	t.Logf("%d produce and %d fetch records fields decoded and re-encoded; batches %v; markers %v", nProduce, nFetch, codecSeen, markers)
}

// derivedAsFranz checks that the fields Encode derives when they are left
// out (a batch's lastOffsetDelta and maxTimestamp, a record's offsetDelta)
// are what franz-go's producer wrote: the JSON without them encodes to the
// same bytes.
func derivedAsFranz(t *testing.T, p payload) {
	t.Helper()
	var s slab.Slab
	res, err := Decode(&s, p.data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := parseJSON(t, treeJSON(nil, res, p.data, Decoded)).([]any)
	for _, e := range v {
		b := e.(map[string]any)
		delete(b, "lastOffsetDelta")
		delete(b, "maxTimestamp")
		for _, r := range b["records"].([]any) {
			delete(r.(map[string]any), "offsetDelta")
			delete(r.(map[string]any), "offset")
		}
	}
	out, err := Encode(nil, v)
	if err != nil || !bytes.Equal(out, p.data) {
		t.Fatalf("%s: without the derived fields: %v (%d bytes, not the %d franz-go wrote)", p.api, err, len(out), len(p.data))
	}
}
