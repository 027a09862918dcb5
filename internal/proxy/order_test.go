package proxy

import (
	"net"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// scriptedBroker reads n requests on each connection that sends any, then
// answers those at the indexes in order (Metadata naming itself, any other
// API an empty body), and closes the connection.
func scriptedBroker(t *testing.T, n int, order []int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	_, ps, _ := net.SplitHostPort(ln.Addr().String())
	port, _ := strconv.Atoi(ps)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				var resps [][]byte
				for range n {
					frame, err := wire.ReadFrame(c, nil, 1<<20)
					if err != nil {
						return // the proxy's spare connection, or a test that gave up
					}
					h, err := codec.ParseRequestHeader(frame, codec.Options{})
					if err != nil {
						panic(err)
					}
					body := map[string]any{}
					if h.APIKey == schema.KeyMetadata {
						body = map[string]any{"brokers": []map[string]any{{"nodeId": 1, "host": "127.0.0.1", "port": port}}, "controllerId": 1, "topics": []any{}}
					}
					r, err := codec.EncodeResponse(nil, h, h.Version, body, codec.EncodeOptions{})
					if err != nil {
						panic(err)
					}
					resps = append(resps, r)
				}
				for _, i := range order {
					c.Write(resps[i])
				}
				time.Sleep(100 * time.Millisecond)
			}()
		}
	}()
	return ln.Addr().String()
}

// pipelined sends reqs on one connection through p at once, each with
// its correlation id, and reads k responses.
func pipelined(t *testing.T, p *Proxy, k int, reqs []kmsg.Request, corrs []int32) [][]byte {
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	var b []byte
	for i, r := range reqs {
		// AppendRequest writes its size prefix at dst[0]: one frame each
		b = append(b, kmsg.NewRequestFormatter(kmsg.FormatterClientID("kwire-order")).AppendRequest(nil, r, corrs[i])...)
	}
	_, err = c.Write(b)
	require.NoError(t, err)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var got [][]byte
	for range k {
		f, err := wire.ReadFrame(c, nil, 1<<20)
		require.NoError(t, err)
		got = append(got, f)
	}
	return got
}

func listGroups() kmsg.Request {
	r := kmsg.NewPtrListGroupsRequest()
	r.SetVersion(4)
	return r
}

func metadata() kmsg.Request {
	r := kmsg.NewPtrMetadataRequest()
	r.SetVersion(9)
	return r
}

// byCorrelation is the collected exchanges by correlation id, in the
// order delivered.
func byCorrelation(t *testing.T, p *Proxy, col *collector, n int) map[int32][]*Exchange {
	waitDrained(t, p)
	m := map[int32][]*Exchange{}
	all := col.all()
	require.Len(t, all, n)
	for _, j := range all {
		m[j.exchange.CorrelationID] = append(m[j.exchange.CorrelationID], j.exchange)
	}
	return m
}

// TestOutOfOrderResponses: a broker that answers a connection's requests
// out of order has its late answer paired all the same, as kwire check
// pairs a capture's: the exchange says it was overtaken, and by which
// correlation id, the one that overtook it how many it passed, and the
// late Metadata answer is still rewritten (it was taken for a response
// to no request and reached the client naming the broker itself).
func TestOutOfOrderResponses(t *testing.T) {
	col := &collector{}
	lg := &logs{}
	p := startProxy(t, Config{Upstream: scriptedBroker(t, 3, []int{1, 0, 2}), Sink: col.sink, Log: lg.log})
	got := pipelined(t, p, 3, []kmsg.Request{metadata(), listGroups(), listGroups()}, []int32{1, 2, 3})
	m := kmsg.NewPtrMetadataResponse()
	m.SetVersion(9)
	require.NoError(t, m.ReadFrom(got[1][4+4+1:])) // size, correlation id, empty tags
	_, ps, _ := net.SplitHostPort(p.Addr().String())
	port, _ := strconv.Atoi(ps)
	require.Len(t, m.Brokers, 1)
	require.Equal(t, int32(port), m.Brokers[0].Port, "the late Metadata answer names the proxy")

	xs := byCorrelation(t, p, col, 3)
	first, second, third := xs[1][0], xs[2][0], xs[3][0]
	require.NotNil(t, first.Response)
	require.False(t, first.Unanswered)
	require.Equal(t, 1, first.Overtaken)
	require.Equal(t, int32(2), first.OvertakenBy)
	require.Equal(t, 0, first.Overtook)
	require.Equal(t, 1, first.Rewritten)
	require.Equal(t, 1, second.Overtook)
	require.Zero(t, second.Overtaken)
	require.Zero(t, third.Overtook+third.Overtaken)
	require.False(t, lg.has("answers no request in flight"), lg.String())
}

// TestReusedCorrelation: a request sent with the correlation id of one
// still in flight is marked; the responses go to the requests in order.
func TestReusedCorrelation(t *testing.T) {
	col := &collector{}
	p := startProxy(t, Config{Upstream: scriptedBroker(t, 3, []int{0, 1, 2}), Sink: col.sink, Log: func(string) {}})
	pipelined(t, p, 3, []kmsg.Request{listGroups(), listGroups(), listGroups()}, []int32{7, 7, 8})
	xs := byCorrelation(t, p, col, 3)
	require.Len(t, xs[7], 2)
	require.False(t, xs[7][0].ReusedCorrelation)
	require.True(t, xs[7][1].ReusedCorrelation)
	require.False(t, xs[8][0].ReusedCorrelation)
	for _, x := range append(xs[7], xs[8]...) {
		require.NotNil(t, x.Response)
		require.Zero(t, x.Overtook+x.Overtaken)
	}
}

// TestOvertakenGivenUp: a request passed over by more than maxOvertaken
// later answers is given up on (Unanswered), naming the first that
// overtook it; the others are paired.
func TestOvertakenGivenUp(t *testing.T) {
	col := &collector{}
	n := maxOvertaken + 2
	var order []int
	var reqs []kmsg.Request
	var corrs []int32
	for i := range n {
		if i > 0 {
			order = append(order, i)
		}
		reqs = append(reqs, listGroups())
		corrs = append(corrs, int32(i+1))
	}
	p := startProxy(t, Config{Upstream: scriptedBroker(t, n, order), Sink: col.sink, Log: func(string) {}})
	pipelined(t, p, n-1, reqs, corrs)
	xs := byCorrelation(t, p, col, n)
	x := xs[1][0]
	require.True(t, x.Unanswered)
	require.Nil(t, x.Response)
	require.Equal(t, maxOvertaken+1, x.Overtaken)
	require.Equal(t, int32(2), x.OvertakenBy)
	var paired []int
	for c, x := range xs {
		if x[0].Response != nil {
			paired = append(paired, int(c))
			require.Equal(t, 1, x[0].Overtook)
		}
	}
	sort.Ints(paired)
	require.Equal(t, []int{2, 3, 4, 5, 6}, paired)
}
