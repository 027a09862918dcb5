package traffic

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/codec/wire"
)

// Recorder keeps what real clients send and get: its Dial (for kgo.Dialer)
// records each connection's bytes both ways, and Pairs pairs them into
// exchanges, to be decoded or written as a capture (PcapOptions.Mix).
type Recorder struct {
	mu    sync.Mutex
	conns []*recConn
}

type recConn struct {
	net.Conn
	mu      *sync.Mutex
	out, in bytes.Buffer
}

func (c *recConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	c.out.Write(b)
	c.mu.Unlock()
	return c.Conn.Write(b)
}

func (c *recConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.mu.Lock()
	c.in.Write(b[:n])
	c.mu.Unlock()
	return n, err
}

// Dial dials as net.Dialer does and records the connection.
func (r *Recorder) Dial(ctx context.Context, network, host string) (net.Conn, error) {
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

// Pairs are the exchanges recorded so far whose response came, each
// connection's in the order their responses came, connection after
// connection.
func (r *Recorder) Pairs() []Pair {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Pair
	for _, c := range r.conns {
		byCorr := map[int32]Frame{}
		for _, f := range frames(c.out.Bytes()) {
			if len(f) >= 12 {
				byCorr[int32(binary.BigEndian.Uint32(f[8:]))] = Frame{Bytes: f, Key: int16(binary.BigEndian.Uint16(f[4:])), Version: int16(binary.BigEndian.Uint16(f[6:]))}
			}
		}
		for _, f := range frames(c.in.Bytes()) {
			if len(f) < 8 {
				continue
			}
			if req, ok := byCorr[int32(binary.BigEndian.Uint32(f[4:]))]; ok {
				out = append(out, Pair{req, Frame{Bytes: f, Response: true, Key: req.Key, Version: req.Version}})
			}
		}
	}
	return out
}

// frames splits a stream into whole frames, size prefixes included.
func frames(b []byte) [][]byte {
	var out [][]byte
	for {
		f, rest, ok := wire.SplitFrame(b, 0)
		if !ok {
			return out
		}
		out, b = append(out, f), rest
	}
}

// ProduceAndFetch is real traffic of one record: franz-go's kgo produces
// key and value into topic on an in-process kfake cluster (loopback, a
// port the OS picks), then consumes it back from the start. It returns
// every exchange both clients had (Metadata, Produce, Fetch...), recorded.
func ProduceAndFetch(ctx context.Context, topic string, key, value []byte) ([]Pair, error) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, topic))
	if err != nil {
		return nil, err
	}
	defer cluster.Close()
	var rec Recorder
	prod, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.Dialer(rec.Dial))
	if err != nil {
		return nil, err
	}
	err = prod.ProduceSync(ctx, &kgo.Record{Topic: topic, Key: key, Value: value}).FirstErr()
	prod.Close()
	if err != nil {
		return nil, err
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.Dialer(rec.Dial), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return nil, err
	}
	for got := 0; got < 1 && ctx.Err() == nil; {
		got += cons.PollFetches(ctx).NumRecords()
	}
	cons.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rec.Pairs(), nil
}
