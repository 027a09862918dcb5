package proxy

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestListenOnlyWhereTold: the proxy listens where it is told, on that
// host for every broker's listener too; listening on every address needs
// an address to give clients.
func TestListenOnlyWhereTold(t *testing.T) {
	_, err := New(Config{Upstream: "127.0.0.1:9092", Listen: "0.0.0.0:0"})
	require.ErrorContains(t, err, "needs an address to give clients")
	_, err = New(Config{Upstream: "127.0.0.1:9092", Listen: ":0"})
	require.ErrorContains(t, err, "needs an address to give clients")
	_, err = New(Config{Upstream: "broker"})
	require.ErrorContains(t, err, "is not host:port")
	_, err = New(Config{})
	require.ErrorContains(t, err, "no upstream")
	p, err := New(Config{Upstream: "127.0.0.1:9092"})
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", p.Addr().(*net.TCPAddr).IP.String(), "127.0.0.1 by default")
	p.Close()
}

// TestPorts: the listeners opened for brokers take --ports in order, then
// the system's; every one is on the listen host; a broker named twice
// keeps its listener.
func TestPorts(t *testing.T) {
	free := func() int {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port
	}
	ports := []int{free(), free()}
	p, err := New(Config{Upstream: "127.0.0.1:9092", Ports: ports})
	require.NoError(t, err)
	defer p.Close()
	var got []int
	for _, b := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.1"} {
		e, err := p.mapEndpoint(Endpoint{b, 9092})
		require.NoError(t, err)
		require.Equal(t, "127.0.0.1", e.Host)
		got = append(got, e.Port)
	}
	require.Equal(t, ports, got[:2])
	require.NotContains(t, ports, got[2])
	require.Equal(t, got[0], got[3])
	// The seed broker's address is the first listener.
	e, err := p.mapEndpoint(Endpoint{"127.0.0.1", 9092})
	require.NoError(t, err)
	require.Equal(t, p.Addr().(*net.TCPAddr).Port, e.Port)
	ls := p.Listeners()
	require.Len(t, ls, 4)
	for _, l := range ls {
		require.Equal(t, "127.0.0.1", l.Addr.(*net.TCPAddr).IP.String())
	}
	require.Equal(t, "10.0.0.2:9092", ls[2].Upstream)
}

// discardBroker reads everything and answers nothing.
func discardBroker(t *testing.T) string {
	return acceptEach(t, func(c net.Conn) { io.Copy(io.Discard, c); c.Close() })
}

// peakHeap runs fn and returns the largest heap seen above the heap before
// it, sampled every millisecond, with the collector kept tight (GOGC 20)
// so that the peak follows what is live.
func peakHeap(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	return peak.Load()
}

// TestMemoryBounded streams 160 MiB of requests (twenty 8 MiB Produce
// frames) through the proxy: forwarding alone holds no frame, and with a
// sink that is stuck the copies stop at QueueBytes (plus the one frame
// allowed past it when alone).
func TestMemoryBounded(t *testing.T) {
	upstream := discardBroker(t)
	frame := make([]byte, 8<<20)
	binary.BigEndian.PutUint32(frame, uint32(len(frame)-4))
	h, err := codec.Encode(nil, map[string]any{"apiKey": schema.KeyProduce, "apiVersion": 9,
		"header": map[string]any{"correlationId": 1, "clientId": "mem"}, "body": map[string]any{"acks": 1}}, codec.EncodeOptions{})
	require.NoError(t, err)
	copy(frame[4:], h[4:4+14]) // the header: key, version, correlation id, client id
	send := func(p *Proxy) {
		c, err := net.Dial("tcp", p.Addr().String())
		require.NoError(t, err)
		for i := 0; i < 20; i++ {
			binary.BigEndian.PutUint32(frame[8:], uint32(i))
			_, err := c.Write(frame)
			require.NoError(t, err)
		}
		c.Close()
		require.Eventually(t, func() bool { return p.Stats().BytesUp == int64(20*len(frame)) }, 30*time.Second, time.Millisecond)
	}
	fwd := startProxy(t, Config{Upstream: upstream})
	forward := peakHeap(func() { send(fwd) })

	stuck := make(chan struct{})
	defer close(stuck)
	const queue = 16 << 20
	dec := startProxy(t, Config{Upstream: upstream, QueueBytes: queue, Sink: func(*Exchange) { <-stuck }})
	sinking := peakHeap(func() { send(dec) })
	t.Logf("peak heap above the start while 160 MiB went through: forwarding %.1f MiB, with a stuck sink and a 16 MiB queue %.1f MiB",
		float64(forward)/(1<<20), float64(sinking)/(1<<20))
	require.Less(t, forward, uint64(4<<20), "forwarding holds no frame")
	require.Less(t, sinking, uint64(2*(queue+len(frame))), "copies stop at the queue's budget")
	require.Equal(t, int64(queue), dec.used.Load(), "two frames held: the one in the stuck sink and one queued")
}

// TestProduceAcks reads acks from the start of Produce requests of every
// header and transactional-id shape, byte by byte as they arrive.
func TestProduceAcks(t *testing.T) {
	long := string(make([]byte, 300))
	for _, c := range []struct {
		ver  int16
		txn  any
		acks int16
	}{{2, nil, 0}, {3, nil, 0}, {8, "tx", 1}, {8, long, 0}, {9, nil, -1}, {9, long, 0}, {11, "tx", 0}} {
		body := map[string]any{"acks": c.acks, "timeoutMs": 1000}
		if c.ver >= 3 {
			body["transactionalId"] = c.txn
		}
		b, err := codec.Encode(nil, map[string]any{"apiKey": schema.KeyProduce, "apiVersion": c.ver,
			"header": map[string]any{"correlationId": 1, "clientId": "acks"}, "body": body}, codec.EncodeOptions{})
		require.NoError(t, err)
		for n := 0; n < len(b); n++ {
			if _, ok := produceAcks(b[:n]); ok {
				acks, _ := produceAcks(b[:n])
				require.Equal(t, c.acks, acks, "v%d after %d bytes", c.ver, n)
				break
			}
		}
		acks, ok := produceAcks(b)
		require.True(t, ok)
		require.Equal(t, c.acks, acks, "v%d", c.ver)
	}
}

// TestAcksZeroThroughProxy: a producer with acks=0 gets no answers, and
// the proxy pairs the answers to its other requests all the same.
func TestAcksZeroThroughProxy(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "a0"))
	col := &collector{}
	p := startProxy(t, Config{Upstream: c.ListenAddrs()[0], Sink: col.sink})
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr().String()), kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 0; i < 5; i++ {
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: "a0", Value: []byte("fire and forget")}).FirstErr())
		_, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
		require.NoError(t, err)
	}
	cl.Close()
	waitDrained(t, p)
	produces, metadata := 0, 0
	for _, j := range col.all() {
		switch j.api {
		case "Produce":
			produces++
			require.True(t, j.noResponse)
			require.Nil(t, j.exchange.Response)
		case "Metadata":
			metadata++
			require.True(t, j.exchange.Paired())
		}
		require.False(t, j.exchange.Unanswered, j.api)
	}
	require.Equal(t, 5, produces)
	require.GreaterOrEqual(t, metadata, 5)
}
