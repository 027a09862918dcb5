package capture

import (
	"bytes"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWindowEvictsOldest: with at most 4 requests waiting, the oldest are
// given up on as more arrive: handed out unanswered with Evicted set,
// counted and noted. A response for an evicted request is unpaired; a
// response for a request still in the window pairs, and the requests
// before it on its connection are overtaken: they wait on, and are handed
// out unanswered (not evicted) when the capture ends.
func TestWindowEvictsOldest(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	for i := int32(1); i <= 10; i++ {
		v.req(apiVersionsReq(i))
	}
	v.resp(apiVersionsResp(1))  // its request was evicted
	v.resp(apiVersionsResp(10)) // pairs; 7, 8 and 9 are overtaken, never answered
	opts := Options{MaxWaiting: 4}

	var got []*Exchange
	rf, err := ReadFunc(bytes.NewReader(b.pcap()), opts, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	assert.Equal(t, 6, rf.Evicted)
	require.Len(t, got, 11)
	for i, x := range got[:6] {
		assert.Equal(t, int32(i+1), x.CorrelationID)
		assert.True(t, x.Evicted, "request %d", i+1)
		assert.Nil(t, x.Response)
	}
	assert.True(t, got[6].Paired())
	assert.Equal(t, int32(10), got[6].CorrelationID)
	assert.Equal(t, 3, got[6].Overtook)
	// The response to evicted request 1 is unpaired: held in case its
	// request were framed late (holdEarly), it is handed out once
	// request 10 is answered, numbered after it (passEarly), before the
	// requests left waiting, which the connection's end hands out.
	assert.Nil(t, got[7].Request, "the response to evicted request 1 is unpaired")
	assert.Equal(t, int32(1), got[7].CorrelationID)
	for i, x := range got[8:11] {
		assert.Equal(t, int32(i+7), x.CorrelationID)
		assert.False(t, x.Evicted)
		assert.Nil(t, x.Response)
		assert.Equal(t, 1, x.Overtaken)
	}
	assert.True(t, hasNote(rf, "6 requests were given up on"), "%v", rf.Notes)

	r, err := Read(bytes.NewReader(b.pcap()), opts)
	require.NoError(t, err)
	assert.Equal(t, 6, r.Evicted)
	assert.Equal(t, []int32{10}, pairedCorrs(r))
	assert.Len(t, r.Exchanges, 11)
}

// TestWindowBytes: the bytes of the waiting requests are bounded too.
func TestWindowBytes(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	req := kreq(1, 11, 1, "consumer", make([]byte, 1000))
	for i := int32(1); i <= 5; i++ {
		q := kreq(1, 11, i, "consumer", make([]byte, 1000))
		v.req(q)
	}
	v.resp(kresp(5, []byte{0, 0}))
	r, err := Read(bytes.NewReader(b.pcap()), Options{MaxWaitingBytes: 2*len(req) + 10})
	require.NoError(t, err)
	assert.Equal(t, 3, r.Evicted)
	assert.Equal(t, []int32{5}, pairedCorrs(r))
	n := 0
	for _, x := range r.Exchanges {
		if x.Evicted {
			n++
			assert.LessOrEqual(t, x.CorrelationID, int32(3))
		}
	}
	assert.Equal(t, 3, n)
}

// TestWindowAcrossConnections: the window is shared: the request that
// waited longest goes first, whichever connection it is on.
func TestWindowAcrossConnections(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	w := b.conv("10.0.0.1:40001", "10.0.0.2:9092")
	v.handshake()
	w.handshake()
	v.req(apiVersionsReq(1)) // a long poll on v
	for i := int32(1); i <= 3; i++ {
		w.req(apiVersionsReq(i))
		w.resp(apiVersionsResp(i))
	}
	w.req(apiVersionsReq(4))
	w.req(apiVersionsReq(5))
	w.resp(apiVersionsResp(4))
	w.resp(apiVersionsResp(5))
	v.resp(apiVersionsResp(1))
	r, err := Read(bytes.NewReader(b.pcap()), Options{MaxWaiting: 2})
	require.NoError(t, err)
	assert.Equal(t, 1, r.Evicted)
	require.Len(t, r.Exchanges, 7)
	assert.True(t, r.Exchanges[0].Evicted)
	assert.Same(t, r.Conns[0], r.Exchanges[0].Conn)
	assert.Equal(t, []int32{1, 2, 3, 4, 5}, pairedCorrs(r))
}

// TestStreamingForgetsClosedConnections: ReadFunc retires connections once
// more than maxClosed have finished after them, so what it holds follows
// the open connections, not the capture; the counts stay those of Read.
func TestStreamingForgetsClosedConnections(t *testing.T) {
	const n = 3 * maxClosed
	b := newTB(t, layers.LinkTypeEthernet)
	for i := 0; i < n; i++ {
		v := b.conv("10.0.0.1:"+itoa(20000+i), "10.0.0.2:9092")
		v.handshake()
		v.req(apiVersionsReq(1))
		v.resp(apiVersionsResp(1))
		v.fin()
	}
	open := b.conv("10.0.0.1:19999", "10.0.0.2:9092")
	open.handshake()
	open.req(apiVersionsReq(1)) // still open at the end
	data := b.pcap()

	paired := 0
	e := newEngine(Options{}, func(x *Exchange) {
		if x.Paired() {
			paired++
		}
	})
	maxConns, maxAll := 0, 0
	e.onPacket = func() {
		maxConns = max(maxConns, len(e.conns))
		maxAll = max(maxAll, len(e.all))
	}
	require.NoError(t, e.run(bytes.NewReader(data)))
	assert.Equal(t, n, paired)
	assert.Equal(t, n+1, e.res.Connections)
	assert.Nil(t, e.res.Conns)
	assert.LessOrEqual(t, maxConns, maxClosed+2)
	assert.Greater(t, maxConns, maxClosed/2, "the hook saw the connections")
	assert.LessOrEqual(t, maxAll, 2*maxClosed+66)

	r, err := Read(bytes.NewReader(data), Options{})
	require.NoError(t, err)
	require.Len(t, r.Conns, n+1)
	assert.Equal(t, n+1, r.Connections)
	for i, c := range r.Conns {
		assert.Equal(t, i+1, c.ID)
	}
	assert.Equal(t, e.res.Packets, r.Packets)
	assert.Equal(t, e.res.NonKafka, r.NonKafka)
	assert.Equal(t, e.res.Frames, r.Frames)
}

// TestConnClosedWithRequestInFlight: a request still waiting when its
// connection closes is marked so (a client leaving its group closes with
// its last heartbeat unanswered); one waiting when the capture ends on an
// open connection is not.
func TestConnClosedWithRequestInFlight(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	w := b.conv("10.0.0.1:40001", "10.0.0.2:9092")
	v.handshake()
	w.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	v.req(apiVersionsReq(2)) // in flight as the client closes
	v.fin()
	w.req(apiVersionsReq(1)) // in flight as the capture ends
	for _, stream := range []bool{false, true} {
		var xs []*Exchange
		if stream {
			_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { xs = append(xs, x) })
			require.NoError(t, err)
		} else {
			xs = b.read(Options{}).Exchanges
		}
		require.Len(t, xs, 3)
		for _, x := range xs {
			switch {
			case x.Paired():
				assert.False(t, x.ConnClosed)
			case x.Conn.Client.Port == 40000:
				assert.Equal(t, int32(2), x.CorrelationID)
				assert.True(t, x.ConnClosed, "closed with a request in flight")
			default:
				assert.False(t, x.ConnClosed, "still open when the capture ended")
			}
		}
	}
}
