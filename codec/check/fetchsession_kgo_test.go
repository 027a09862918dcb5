package check

import (
	"context"
	"encoding/binary"
	"net"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// recorder keeps the frames a client's connections carry, each stamped
// with the order in which it was whole (a capture's packet number), so
// they pair into exchanges as a capture's would.
type recorder struct {
	mu    sync.Mutex
	seq   int
	conns []*recConn
}

// recConn is one connection: what the client wrote and read, and the
// frames cut from each.
type recConn struct {
	net.Conn
	r        *recorder
	conn     *Conn
	out, in  []byte
	requests []stamped
	answers  []stamped
}

type stamped struct {
	b   []byte
	pos int
}

func (r *recorder) dial(ctx context.Context, network, host string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, host)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	rc := &recConn{Conn: c, r: r, conn: &Conn{ID: len(r.conns) + 1, Client: c.LocalAddr().String(), Broker: c.RemoteAddr().String(), FromStart: true}}
	r.conns = append(r.conns, rc)
	return rc, nil
}

// cut moves the whole frames at the start of *buf to *frames.
func (r *recorder) cut(buf *[]byte, frames *[]stamped) {
	for len(*buf) >= 4 {
		n := 4 + int(binary.BigEndian.Uint32(*buf))
		if len(*buf) < n {
			return
		}
		r.seq++
		*frames = append(*frames, stamped{append([]byte(nil), (*buf)[:n]...), r.seq})
		*buf = (*buf)[n:]
	}
}

func (c *recConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.r.mu.Lock()
	c.out = append(c.out, b[:n]...)
	c.r.cut(&c.out, &c.requests)
	c.r.mu.Unlock()
	return n, err
}

func (c *recConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.r.mu.Lock()
	c.in = append(c.in, b[:n]...)
	c.r.cut(&c.in, &c.answers)
	c.r.mu.Unlock()
	return n, err
}

// exchanges pairs each connection's requests and answers by correlation
// id, in the order they completed (an answer's position; a request never
// answered at the end, its connection closed).
func (r *recorder) exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	var xs []Exchange
	for _, c := range r.conns {
		c.conn.Closed = true
		answers := map[int32]stamped{}
		for _, a := range c.answers {
			answers[int32(binary.BigEndian.Uint32(a.b[4:]))] = a
		}
		for _, q := range c.requests {
			x := Exchange{Conn: c.conn, Request: q.b, RequestPacket: q.pos}
			if a, ok := answers[int32(binary.BigEndian.Uint32(q.b[8:]))]; ok {
				x.Response, x.ResponsePacket = a.b, a.pos
			} else {
				x.ConnClosed = true
			}
			xs = append(xs, x)
		}
	}
	done := func(x *Exchange) int {
		if x.Response == nil {
			return 1 << 30
		}
		return x.ResponsePacket
	}
	sort.SliceStable(xs, func(i, j int) bool { return done(&xs[i]) < done(&xs[j]) })
	return xs
}

// fetchOf reads a Fetch request frame with kmsg, and where its
// sessionEpoch is (nil for another API).
func fetchOf(t *testing.T, b []byte) (*kmsg.FetchRequest, int) {
	if binary.BigEndian.Uint16(b[4:]) != 1 {
		return nil, 0
	}
	v := int16(binary.BigEndian.Uint16(b[6:]))
	off := 14 + int(binary.BigEndian.Uint16(b[12:])) // the client id's end
	if v >= 12 {
		off++ // the header's tagged fields: kgo writes none
	}
	q := kmsg.NewPtrFetchRequest()
	q.SetVersion(v)
	require.NoError(t, q.ReadFrom(b[off:]))
	// maxWaitMs, minBytes, maxBytes, isolationLevel, sessionId, then the
	// epoch; replicaId before them up to v14.
	off += 17
	if v < 15 {
		off += 4
	}
	require.Equal(t, q.SessionEpoch, int32(binary.BigEndian.Uint32(b[off:])))
	return q, off
}

// TestFetchSessionsOfARealConsumer: franz-go's kgo consumer against kfake
// (three brokers, so three sessions at once) uses fetch sessions as
// KIP-227 has them: a full fetch asking for one, then incremental
// fetches at epochs 1, 2, 3..., closed (epoch -1) when it leaves. The
// fetch session rules find nothing in what it sends, and judge all of it
// (none is said not judged). The same conversation with one incremental
// fetch's epoch one too far is one conv.fetch-session error, there.
func TestFetchSessionsOfARealConsumer(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(6, "orders"))
	require.NoError(t, err)
	defer cluster.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	producer, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.DefaultProduceTopic("orders"))
	require.NoError(t, err)
	defer producer.Close()
	produce := func(n int) {
		for i := range n {
			require.NoError(t, producer.ProduceSync(ctx, &kgo.Record{Key: []byte("k" + strconv.Itoa(i)), Value: []byte("v")}).FirstErr())
		}
	}
	produce(30)

	var rec recorder
	consumer, err := kgo.NewClient(kgo.SeedBrokers(cluster.ListenAddrs()...), kgo.Dialer(rec.dial), kgo.ConsumeTopics("orders"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(50*time.Millisecond))
	require.NoError(t, err)
	got := 0
	for round := 0; round < 4; round++ {
		end := time.Now().Add(400 * time.Millisecond)
		for time.Now().Before(end) {
			pctx, pcancel := context.WithTimeout(ctx, 100*time.Millisecond)
			fs := consumer.PollFetches(pctx)
			pcancel()
			got += fs.NumRecords()
		}
		produce(10)
	}
	consumer.Close()
	require.GreaterOrEqual(t, got, 30)

	xs := rec.exchanges()
	incremental, closed, inFlight := 0, 0, 0
	var patch *Exchange
	var patchAt int
	for i := range xs {
		x := &xs[i]
		q, at := fetchOf(t, x.Request)
		if q == nil || q.Version < 7 {
			continue
		}
		switch e := q.SessionEpoch; {
		case e >= 1:
			incremental++
			if x.Response == nil {
				inFlight++ // handed out when its connection closed, after the close
			}
			if e == 3 && patch == nil && x.Response != nil {
				patch, patchAt = x, at
			}
		case e == -1 && q.SessionID != 0:
			closed++
		}
	}
	t.Logf("%d exchanges over %d connections: %d incremental fetches (%d in flight when the client left), %d sessions closed", len(xs), len(rec.conns), incremental, inFlight, closed)
	require.Greater(t, incremental, 10, "kgo's incremental fetches")
	require.Positive(t, closed, "kgo closes its sessions when it leaves")
	require.NotNil(t, patch)

	fs := Check(xs)
	for _, id := range []string{"conv.fetch-session", "conv.fetch-session-topic-ids", "conv.fetch-session-answer", "frame.fetch-session", "frame.fetch-forgotten", "conn.fetch-session-unused"} {
		require.Empty(t, judged(fs, id), findingLines(fs))
	}
	require.NotContains(t, skippedIDs(fs), "conv.fetch-session", findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-session-topic-ids", findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conn.fetch-session-unused", findingLines(fs))

	// Each session's last incremental fetch before its close in flight
	// when the client left, as kgo's sometimes is: never answered,
	// handed out at the end, after the close. Judged as the fetch
	// before it left the session (its epoch, its side of v13), it is
	// found right, and nothing is said not judged.
	late := append([]Exchange(nil), xs...)
	made := 0
	for i := range late {
		c, _ := fetchOf(t, late[i].Request)
		if c == nil || c.Version < 7 || c.SessionEpoch != -1 || c.SessionID == 0 {
			continue
		}
		last := -1
		for j := range late {
			q, _ := fetchOf(t, late[j].Request)
			if q != nil && q.Version >= 7 && q.SessionID == c.SessionID && q.SessionEpoch > 0 && late[j].Conn.Broker == late[i].Conn.Broker &&
				late[j].RequestPacket < late[i].RequestPacket && (last < 0 || late[j].RequestPacket > late[last].RequestPacket) {
				last = j
			}
		}
		if last >= 0 && late[last].Response != nil {
			late[last].Response, late[last].ResponsePacket, late[last].ConnClosed = nil, 0, true
			made++
		}
	}
	require.Positive(t, made)
	sort.SliceStable(late, func(i, j int) bool { return late[i].Response != nil && late[j].Response == nil })
	fs = Check(late)
	for _, id := range []string{"conv.fetch-session", "conv.fetch-session-topic-ids", "conv.fetch-session-answer"} {
		require.Empty(t, judged(fs, id), findingLines(fs))
		require.NotContains(t, skippedIDs(fs), id, findingLines(fs))
	}

	// Epoch 3 sent as 4.
	b := append([]byte(nil), patch.Request...)
	binary.BigEndian.PutUint32(b[patchAt:], 4)
	patch.Request = b
	fs = Check(xs)
	bad := judged(fs, "conv.fetch-session")
	require.Len(t, bad, 1, findingLines(fs))
	require.Equal(t, patch.Conn.ID, bad[0].Where.Conn)
	require.Equal(t, patch.RequestPacket, bad[0].Where.Packet)
	require.Contains(t, bad[0].String(), "expected epoch 3, found epoch 4")
}
