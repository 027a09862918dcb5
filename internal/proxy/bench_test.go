package proxy

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// benchBroker is a broker that stores nothing: it answers ApiVersions,
// Metadata, InitProducerId and Produce (every partition accepted) as fast
// as kmsg can, so that what a benchmark measures is the path between
// client and broker, not the broker.
type benchBroker struct {
	ln     net.Listener
	offset atomic.Int64
}

func newBenchBroker(b *testing.B) *benchBroker {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	k := &benchBroker{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go k.serve(c)
		}
	}()
	b.Cleanup(func() { ln.Close() })
	return k
}

func (k *benchBroker) serve(c net.Conn) {
	defer c.Close()
	host, port, _ := net.SplitHostPort(k.ln.Addr().String())
	p, _ := strconv.Atoi(port)
	var buf, out []byte
	for {
		frame, err := wire.ReadFrame(c, buf, 64<<20)
		if err != nil {
			return
		}
		buf = frame
		h, err := codec.ParseRequestHeader(frame, codec.Options{})
		if err != nil {
			return
		}
		req := kmsg.RequestForKey(h.APIKey)
		if req == nil {
			return
		}
		req.SetVersion(h.Version)
		if err := req.ReadFrom(frame[4+h.Size:]); err != nil {
			return
		}
		var resp kmsg.Response
		switch r := req.(type) {
		case *kmsg.ApiVersionsRequest:
			a := r.ResponseKind().(*kmsg.ApiVersionsResponse)
			for _, v := range [][3]int16{{18, 0, 3}, {3, 0, 12}, {0, 3, 11}, {22, 0, 4}} {
				a.ApiKeys = append(a.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: v[0], MinVersion: v[1], MaxVersion: v[2]})
			}
			resp = a
		case *kmsg.MetadataRequest:
			m := r.ResponseKind().(*kmsg.MetadataResponse)
			m.Brokers = []kmsg.MetadataResponseBroker{{NodeID: 0, Host: host, Port: int32(p)}}
			for _, t := range r.Topics {
				mt := kmsg.NewMetadataResponseTopic()
				mt.Topic = t.Topic
				for i := int32(0); i < 4; i++ {
					mp := kmsg.NewMetadataResponseTopicPartition()
					mp.Partition, mp.Leader, mp.Replicas, mp.ISR = i, 0, []int32{0}, []int32{0}
					mt.Partitions = append(mt.Partitions, mp)
				}
				m.Topics = append(m.Topics, mt)
			}
			resp = m
		case *kmsg.InitProducerIDRequest:
			ip := r.ResponseKind().(*kmsg.InitProducerIDResponse)
			ip.ProducerID = 1
			resp = ip
		case *kmsg.ProduceRequest:
			pr := r.ResponseKind().(*kmsg.ProduceResponse)
			for _, t := range r.Topics {
				rt := kmsg.NewProduceResponseTopic()
				rt.Topic = t.Topic
				for _, part := range t.Partitions {
					rp := kmsg.NewProduceResponseTopicPartition()
					rp.Partition = part.Partition
					rp.BaseOffset = k.offset.Add(1)
					rt.Partitions = append(rt.Partitions, rp)
				}
				pr.Topics = append(pr.Topics, rt)
			}
			if r.Acks == 0 {
				continue
			}
			resp = pr
		default:
			return
		}
		resp.SetVersion(h.Version)
		// The response header: the correlation id, then an empty tag
		// section where the header is flexible (v1).
		out = binary.BigEndian.AppendUint32(append(out[:0], 0, 0, 0, 0), uint32(h.CorrelationID))
		if schema.ByKey(h.APIKey).Response.HeaderVersion(h.Version) >= 1 {
			out = append(out, 0)
		}
		out = resp.AppendTo(out)
		binary.BigEndian.PutUint32(out, uint32(len(out)-4))
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// benchValue is a record value of about 1 KiB: JSON-like text with
// numbers that differ from record to record, as events are.
func benchValue(i int) []byte {
	v := make([]byte, 0, 1100)
	for len(v) < 1000 {
		v = append(v, `{"order":`...)
		v = strconv.AppendInt(v, int64(i*7919+len(v)), 10)
		v = append(v, `,"customer":"c-`...)
		v = strconv.AppendInt(v, int64((i*31+len(v))%9973), 10)
		v = append(v, `","amount":`...)
		v = strconv.AppendFloat(v, float64(i%1000)*1.17, 'f', 2, 64)
		v = append(v, "},"...)
	}
	return v
}

// BenchmarkDebugLoad is the load of a debugging session, not a stress:
// producers at a steady 20,000 and 60,000 records a second in all (20
// and 60 MB/s of 1 KiB records; 1 and 16 producers) through the proxy
// decoding within DefaultSinkShare. skipped-% says whether the default
// decodes every exchange at such a load; cpu-ns/op what it costs.
//
//	go test -run '^$' -bench DebugLoad -benchtime 120000x ./internal/proxy
func BenchmarkDebugLoad(b *testing.B) {
	for _, rate := range []int{20000, 60000} {
		for _, producers := range []int{1, 16} {
			b.Run("records/s="+strconv.Itoa(rate)+"/producers="+strconv.Itoa(producers), func(b *testing.B) {
				benchPaced(b, "decode-paced", producers, rate)
			})
		}
	}
}

// BenchmarkProduce measures produce throughput (franz-go's kgo with its
// defaults: snappy, 10 ms linger) against a broker that stores nothing:
// directly, through the proxy forwarding only, and through the proxy
// decoding exchanges to value JSON (records decoded, straight from the
// bytes) as kwire proxy does,
// within DefaultSinkShare of a core (decode) or all of them (decode-all);
// with 1 and 16 producers. Each op is one 1 KiB record. Besides
// MB/s it reports the exchanges the decoder skipped (skipped-%), the
// process's CPU time per record (cpu-ns/op: clients, broker and proxy) and
// its peak heap (peak-heap-MB).
//
//	go test -run '^$' -bench Produce -benchtime 20000x -count 5 ./internal/proxy
func BenchmarkProduce(b *testing.B) {
	for _, producers := range []int{1, 16} {
		for _, mode := range []string{"direct", "forward", "decode", "decode-all"} {
			b.Run(mode+"/producers="+strconv.Itoa(producers), func(b *testing.B) {
				benchProduce(b, mode, producers)
			})
		}
	}
}

func benchProduce(b *testing.B, mode string, producers int) { benchPaced(b, mode, producers, 0) }

// benchPaced is benchProduce with the producers held to rate records a
// second in all (0: as fast as they go) and mode "decode-paced".
func benchPaced(b *testing.B, mode string, producers, rate int) {
	broker := newBenchBroker(b)
	addr := broker.ln.Addr().String()
	var p *Proxy
	var decoded, sinkTime atomic.Int64 // request bytes decoded, time decoding
	if mode != "direct" {
		cfg := Config{Listen: "127.0.0.1:0", Upstream: addr}
		if mode == "decode" || mode == "decode-paced" {
			cfg.SinkShare = DefaultSinkShare
		}
		if mode != "forward" {
			var d Decoder
			var line []byte
			cfg.Sink = func(x *Exchange) {
				start := time.Now()
				got := d.DecodeJSON(x) // as kwire proxy writes NDJSON: no tree
				line = append(append(line[:0], got.Request.JSON...), got.Response.JSON...)
				sinkTime.Add(int64(time.Since(start)))
				decoded.Add(int64(x.RequestSize))
			}
		}
		var err error
		if p, err = New(cfg); err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { p.Serve(ctx); close(done) }()
		defer func() { cancel(); <-done }()
		addr = p.Addr().String()
	}
	clients := make([]*kgo.Client, producers)
	for i := range clients {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.DefaultProduceTopic("bench"))
		if err != nil {
			b.Fatal(err)
		}
		defer cl.Close()
		// Warm up: connections, metadata, producer id.
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Value: benchValue(0)}).FirstErr(); err != nil {
			b.Fatal(err)
		}
		clients[i] = cl
	}
	values := make([][]byte, 256)
	for i := range values {
		values[i] = benchValue(i)
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	var before Stats
	if p != nil {
		before = p.Stats()
	}
	b.SetBytes(int64(len(values[0])))
	cpu0 := processCPU()
	b.ResetTimer()
	var wg sync.WaitGroup
	for w, cl := range clients {
		n := b.N / producers
		if w < b.N%producers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			start := time.Now()
			for i := 0; i < n; i++ {
				if rate > 0 && i%100 == 0 {
					// Each producer's share of the rate.
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second * time.Duration(producers) / time.Duration(rate))))
				}
				cl.Produce(ctx, &kgo.Record{Value: values[i%len(values)]}, func(_ *kgo.Record, err error) {
					if err != nil {
						b.Error(err)
					}
				})
			}
			if err := cl.Flush(ctx); err != nil {
				b.Error(err)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	// CPU time of the whole process (clients, broker, proxy, decoder) per
	// record: steadier than the rate on a shared machine.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	close(stop)
	<-sampled
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
	if p != nil {
		after := p.Stats()
		ex := after.Exchanges - before.Exchanges
		if mode != "forward" && ex > 0 {
			b.ReportMetric(100*float64(after.Skipped-before.Skipped)/float64(ex), "skipped-%")
			// The sink's wall time per MB of Produce requests it
			// decoded (with their small responses), in the thick of
			// the traffic: what a share of a core buys.
			b.ReportMetric(float64(sinkTime.Load())/1e6/(float64(decoded.Load())/1e6), "sink-ms/MB")
		}
	}
}

// BenchmarkSink measures what kwire proxy's sink costs per exchange on
// one core, without the traffic around it: the Produce exchanges of
// BenchmarkProduce (kgo's defaults, 1 KiB records, snappy), recorded
// through the proxy, then decoded to value JSON with DecodeJSON over and
// over (json), and, for comparison, as trees and then their JSON (tree,
// what the proxy did before). MB/s counts the frames' bytes as they
// travel (compressed); a share s of a core decodes every exchange of
// such traffic up to s times that.
func BenchmarkSink(b *testing.B) {
	xs := recordExchanges(b, 64)
	var size int64
	for _, x := range xs {
		size += int64(x.RequestSize + x.ResponseSize)
	}
	run := func(b *testing.B, sink func(d *Decoder, x *Exchange, line []byte) ([]byte, error)) {
		var d Decoder
		var line []byte
		b.SetBytes(size / int64(len(xs)))
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			x := xs[i%len(xs)]
			var err error
			if line, err = sink(&d, &x, line[:0]); err != nil {
				b.Fatal(err)
			}
			i++
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "exchanges/s")
	}
	// What kwire proxy does: value JSON straight from the bytes.
	b.Run("json", func(b *testing.B) {
		run(b, func(d *Decoder, x *Exchange, line []byte) ([]byte, error) {
			got := d.DecodeJSON(x)
			return append(append(line, got.Request.JSON...), got.Response.JSON...), errors.Join(got.Request.Err, got.Response.Err)
		})
	})
	// What it did before: trees, then their JSON.
	b.Run("tree", func(b *testing.B) {
		run(b, func(d *Decoder, x *Exchange, line []byte) ([]byte, error) {
			got := d.Decode(x)
			if got.Request != nil {
				line = got.Request.AppendJSON(line)
			}
			if got.Response != nil {
				line = got.Response.AppendJSON(line)
			}
			return line, errors.Join(got.RequestErr, got.ResponseErr)
		})
	})
}

// recordExchanges records n Produce exchanges of kgo producing through
// the proxy to the bench broker.
func recordExchanges(b *testing.B, n int) []Exchange {
	broker := newBenchBroker(b)
	var mu sync.Mutex
	var xs []Exchange
	p, err := New(Config{Listen: "127.0.0.1:0", Upstream: broker.ln.Addr().String(), Sink: func(x *Exchange) {
		mu.Lock()
		defer mu.Unlock()
		if x.APIKey == 0 && x.Request != nil && x.Response != nil && len(xs) < n {
			c := *x
			c.Request, c.Response = append([]byte(nil), x.Request...), append([]byte(nil), x.Response...)
			xs = append(xs, c)
		}
	}})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Serve(ctx); close(done) }()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr().String()), kgo.DefaultProduceTopic("bench"))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; ; i++ {
		mu.Lock()
		enough := len(xs) >= n
		mu.Unlock()
		if enough {
			break
		}
		cl.Produce(ctx, &kgo.Record{Value: benchValue(i)}, nil)
		if i%1000 == 999 {
			cl.Flush(ctx)
		}
	}
	cl.Close()
	cancel()
	<-done
	return xs
}

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
