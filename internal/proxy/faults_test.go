package proxy

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
	"github.com/stretchr/testify/require"
)

// fakeBroker is a small broker made with the codec: it answers
// ApiVersions, Metadata (naming itself) and ListGroups, and misbehaves on
// request for the fault tests, by client id:
//
//	"half-response"  writes half its response, then closes
//	"huge-response"  answers with a size prefix of 1 GiB
//	"raw-sasl"       after SaslHandshake v0, answers a raw SASL token with an empty one
//	"raw-scram"      after SaslHandshake v0, answers two raw SCRAM tokens (scramServerFirst, scramServerFinal)
//	"bad-metadata"   answers Metadata with bytes that do not decode
//	"evil-host"      answers Metadata naming a broker whose host holds
//	                 terminal escapes (evilHost)
//	"old-broker"     answers ApiVersions above v2 as a broker that knows
//	                 only v0-v2 does (KIP-511): UNSUPPORTED_VERSION, in the
//	                 v0 layout
//	"newer-broker"   answers ApiVersions of a version newer than kwire
//	                 knows in the newest layout kwire knows
//	"no-coordinator" answers FindCoordinator COORDINATOR_NOT_AVAILABLE,
//	                 naming no node: nodeId -1, host "", port -1
type fakeBroker struct {
	ln    net.Listener
	mu    sync.Mutex
	eof   []string // how each connection ended, as the broker saw it
	conns map[net.Conn]bool
	// brokers, when set, is what Metadata answers name (setBrokers).
	brokers []map[string]any
}

// setBrokers makes Metadata answers name these brokers.
func (b *fakeBroker) setBrokers(bs []map[string]any) {
	b.mu.Lock()
	b.brokers = bs
	b.mu.Unlock()
}

func newFakeBroker(t *testing.T) *fakeBroker {
	return newFakeBrokerAt(t, "127.0.0.1:0")
}

// newFakeBrokerAt is a fakeBroker listening on addr.
func newFakeBrokerAt(t *testing.T, addr string) *fakeBroker {
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	b := &fakeBroker{ln: ln, conns: map[net.Conn]bool{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b.mu.Lock()
			b.conns[c] = true
			b.mu.Unlock()
			go b.serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return b
}

func (b *fakeBroker) addr() string { return b.ln.Addr().String() }

// stop takes the broker down: its listener and every connection close.
func (b *fakeBroker) stop() {
	b.ln.Close()
	b.mu.Lock()
	defer b.mu.Unlock()
	for c := range b.conns {
		c.Close()
	}
}

func (b *fakeBroker) ended(why string) {
	b.mu.Lock()
	b.eof = append(b.eof, why)
	b.mu.Unlock()
}

func (b *fakeBroker) endings() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.eof...)
}

func (b *fakeBroker) serve(c net.Conn) {
	defer func() {
		c.Close()
		b.mu.Lock()
		delete(b.conns, c)
		b.mu.Unlock()
	}()
	var raw [][]byte // the raw SASL tokens still to answer with, in order
	for {
		frame, err := wire.ReadFrame(c, nil, 1<<20)
		if err != nil {
			b.ended(err.Error())
			return
		}
		if len(raw) > 0 {
			// A raw SASL token: answer with the next one.
			c.Write(binary.BigEndian.AppendUint32(nil, uint32(len(raw[0]))))
			c.Write(raw[0])
			raw = raw[1:]
			continue
		}
		h, err := codec.ParseRequestHeader(frame, codec.Options{})
		if err != nil || schema.ByKey(h.APIKey) == nil {
			b.ended("not a request")
			return
		}
		if _, err := codec.Decode(frame[4+h.Size:], codec.Options{Body: true, APIKey: h.APIKey, Version: h.Version}); err != nil {
			b.ended("not a request")
			return
		}
		client := ""
		if h.ClientID != nil {
			client = *h.ClientID
		}
		var body map[string]any
		switch h.APIKey {
		case schema.KeyApiVersions:
			body = map[string]any{"apiKeys": []map[string]any{
				{"apiKey": schema.KeyMetadata, "minVersion": 0, "maxVersion": 12},
				{"apiKey": schema.KeyListGroups, "minVersion": 0, "maxVersion": 4},
			}}
		case schema.KeyMetadata:
			_, port, _ := net.SplitHostPort(b.addr())
			p, _ := strconv.Atoi(port)
			body = map[string]any{"brokers": []map[string]any{{"nodeId": 1, "host": "127.0.0.1", "port": p}}, "controllerId": 1, "topics": []any{}}
			if client == "evil-host" {
				body["brokers"] = []map[string]any{{"nodeId": 2, "host": evilHost, "port": 9092}}
			}
			b.mu.Lock()
			if b.brokers != nil {
				body["brokers"] = b.brokers
			}
			b.mu.Unlock()
		case schema.KeyFindCoordinator:
			if client == "no-coordinator" {
				none := map[string]any{"errorCode": schema.CodeCoordinatorNotAvailable, "nodeId": -1, "host": "", "port": -1}
				body = none
				if h.Version >= 4 {
					none["key"] = "group-1"
					body = map[string]any{"coordinators": []map[string]any{none}}
				}
			}
		case schema.KeySaslHandshake:
			body = map[string]any{"mechanisms": []string{"PLAIN"}}
			switch client {
			case "raw-sasl":
				raw = [][]byte{{}}
			case "raw-scram":
				body = map[string]any{"mechanisms": []string{"SCRAM-SHA-256"}}
				raw = [][]byte{[]byte(scramServerFirst), []byte(scramServerFinal)}
			}
		default:
			body = map[string]any{}
		}
		at := h.Version
		if h.APIKey == schema.KeyApiVersions {
			switch {
			case client == "old-broker" && h.Version > 2:
				at, body = 0, map[string]any{"errorCode": schema.CodeUnsupportedVersion,
					"apiKeys": []map[string]any{{"apiKey": schema.KeyApiVersions, "minVersion": 0, "maxVersion": 2}}}
			case client == "newer-broker":
				at = min(at, schema.ByKey(schema.KeyApiVersions).Response.Valid.Hi)
			}
		}
		resp, err := codec.EncodeResponse(nil, h, at, body, codec.EncodeOptions{})
		if err != nil {
			panic(err)
		}
		switch client {
		case "bad-metadata":
			if h.APIKey == schema.KeyMetadata {
				bad := append(resp[:8:8], 0xff, 0xff, 0xff, 0x7f) // a broker count of 2^31-1
				binary.BigEndian.PutUint32(bad, uint32(len(bad)-4))
				c.Write(bad)
				continue
			}
		case "half-response":
			c.Write(resp[:len(resp)/2])
			b.ended("closed mid-response")
			return
		case "huge-response":
			c.Write([]byte{0x40, 0, 0, 0, 0, 0, 0, 1})
			b.ended("sent a huge size")
			return
		}
		if _, err := c.Write(resp); err != nil {
			return
		}
	}
}

// evilHost is a broker host name that would retitle a terminal, ring its
// bell and reverse the text after it, were it printed raw.
const evilHost = "evil\x1b]0;owned\x07\u202e.example"

// request encodes a request frame.
func request(t *testing.T, key, ver int16, corr int32, client string, body map[string]any) []byte {
	b, err := codec.Encode(nil, map[string]any{"apiKey": key, "apiVersion": ver,
		"header": map[string]any{"correlationId": corr, "clientId": client}, "body": body}, codec.EncodeOptions{})
	require.NoError(t, err)
	return b
}

// roundTrip sends a request over c and reads its response frame.
func roundTrip(c net.Conn, req []byte) ([]byte, error) {
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(req); err != nil {
		return nil, err
	}
	return wire.ReadFrame(c, nil, 1<<20)
}

// healthy checks that a fresh client still gets answers through the
// proxy, with its Metadata rewritten to the proxy.
func healthy(t *testing.T, p *Proxy) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	for i := int32(1); i <= 3; i++ {
		rsp, err := roundTrip(c, request(t, schema.KeyMetadata, 9, i, "healthy", map[string]any{"topics": nil}))
		require.NoError(t, err)
		var o codec.Options
		o.Response, o.APIKey, o.Version = true, schema.KeyMetadata, 9
		f, err := codec.Decode(rsp, o)
		require.NoError(t, err)
		require.Equal(t, i, f.CorrelationID)
		port, err := f.Root.Lookup("body.brokers[0].port")
		require.NoError(t, err)
		require.Equal(t, int64(p.Addr().(*net.TCPAddr).Port), port.Int, "the client is sent to the proxy")
	}
}

// logs collects the proxy's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) log(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, s)
	l.mu.Unlock()
}

func (l *logs) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func readEOF(t *testing.T, c net.Conn) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(c)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the proxy closed the connection")
	return b
}

// TestFaults runs each fault on its own connection while other clients
// keep working through the same proxy, and checks what the proxy says.
func TestFaults(t *testing.T) {
	b := newFakeBroker(t)
	lg := &logs{}
	col := &collector{}
	p := startProxy(t, Config{Upstream: b.addr(), MaxFrame: 1 << 20, Sink: col.sink, Log: lg.log})
	dial := func() net.Conn {
		c, err := net.Dial("tcp", p.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}
	// A client that stays connected across every fault.
	steady := dial()
	steadyCorr := int32(100)
	steadyOK := func() {
		steadyCorr++
		rsp, err := roundTrip(steady, request(t, schema.KeyListGroups, 4, steadyCorr, "steady", map[string]any{}))
		require.NoError(t, err)
		require.Equal(t, steadyCorr, int32(binary.BigEndian.Uint32(rsp[4:])))
	}
	steadyOK()

	t.Run("broker closes mid-frame", func(t *testing.T) {
		c := dial()
		req := request(t, schema.KeyListGroups, 4, 1, "half-response", map[string]any{})
		c.Write(req)
		got := readEOF(t, c)
		require.Less(t, len(got), 4+int(binary.BigEndian.Uint32(got[:4])), "the client got part of the response, then the connection closed")
		require.Eventually(t, func() bool { return lg.has("the broker closed the connection in the middle of a response") }, 5*time.Second, 5*time.Millisecond, lg.String())
		// A response held for rewriting is never half forwarded.
		c = dial()
		c.Write(request(t, schema.KeyMetadata, 9, 2, "half-response", map[string]any{"topics": nil}))
		require.Empty(t, readEOF(t, c))
		// Both exchanges are shown, with what came of their responses.
		for _, api := range []string{"ListGroups", "Metadata"} {
			require.Eventually(t, func() bool {
				for _, j := range col.all() {
					if x := j.exchange; j.api == api && x.ConnClosed && x.Request != nil && len(x.Response) > 0 {
						require.Less(t, len(x.Response), x.ResponseSize)
						require.ErrorContains(t, j.rspErr, "the frame is cut short")
						return true
					}
				}
				return false
			}, 5*time.Second, 5*time.Millisecond, api)
		}
		steadyOK()
		healthy(t, p)
	})

	t.Run("client disconnects mid-request", func(t *testing.T) {
		n := len(b.endings())
		c := dial()
		req := request(t, schema.KeyListGroups, 4, 1, "leaver", map[string]any{})
		c.Write(req[:len(req)-3])
		require.Eventually(t, func() bool { return p.Stats().BytesUp > 0 }, time.Second, time.Millisecond)
		c.Close()
		require.Eventually(t, func() bool {
			return lg.has("the client closed the connection in the middle of a request (" + strconv.Itoa(len(req)-3) + " of " + strconv.Itoa(len(req)) + " bytes)")
		}, 5*time.Second, 5*time.Millisecond, lg.String())
		require.Eventually(t, func() bool { return len(b.endings()) > n }, 5*time.Second, 5*time.Millisecond, "the broker's connection is closed too")
		steadyOK()
		healthy(t, p)
	})

	t.Run("frame over the limit", func(t *testing.T) {
		c := dial()
		c.Write([]byte{0, 0x20, 0, 0, 0, 1, 0, 0}) // 2 MiB
		require.Empty(t, readEOF(t, c))
		require.Eventually(t, func() bool { return lg.has("a request of 2097152 bytes is over the limit of 1048576 (--max-frame)") }, 5*time.Second, 5*time.Millisecond, lg.String())
		c = dial()
		c.Write(request(t, schema.KeyListGroups, 4, 1, "huge-response", map[string]any{}))
		require.Empty(t, readEOF(t, c))
		require.Eventually(t, func() bool { return lg.has("a response of 1073741824 bytes is over the limit") }, 5*time.Second, 5*time.Millisecond, lg.String())
		require.Equal(t, int64(2), p.Stats().OverLimit)
		steadyOK()
		healthy(t, p)
	})

	t.Run("garbage instead of Kafka", func(t *testing.T) {
		c := dial()
		c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		require.Empty(t, readEOF(t, c))
		require.Eventually(t, func() bool { return lg.has(`(the bytes are text, "GET ": not Kafka)`) }, 5*time.Second, 5*time.Millisecond, lg.String())
		c = dial()
		c.Write([]byte{0x16, 3, 1, 2, 0, 1, 0, 1, 0xfc, 3, 3})
		require.Empty(t, readEOF(t, c))
		require.Eventually(t, func() bool { return lg.has("look like a TLS handshake") }, 5*time.Second, 5*time.Millisecond, lg.String())
		// Garbage that fits in a frame is forwarded unchanged; the broker
		// hangs up, and the exchange is shown with its decoding error.
		c = dial()
		junk := []byte{0, 0, 0, 12, 0, 3, 0, 9, 0, 0, 0, 5, 0xff, 0xff, 0xee, 0xee}
		c.Write(junk)
		require.Empty(t, readEOF(t, c))
		require.Eventually(t, func() bool {
			for _, j := range col.all() {
				if j.exchange.CorrelationID == 5 && j.reqErr != nil && j.exchange.ConnClosed {
					return string(j.exchange.Request) == string(junk)
				}
			}
			return false
		}, 5*time.Second, 5*time.Millisecond)
		steadyOK()
		healthy(t, p)
	})

	t.Run("a response that needs rewriting and does not decode", func(t *testing.T) {
		c := dial()
		c.Write(request(t, schema.KeyMetadata, 9, 3, "bad-metadata", map[string]any{"topics": nil}))
		require.Empty(t, readEOF(t, c), "nothing reaches the client, least of all a broker's address")
		require.Eventually(t, func() bool {
			return lg.has("a Metadata v9 response (12 bytes) could not be rewritten") && lg.has("closing the connection rather than give the client a broker's own address")
		}, 5*time.Second, 5*time.Millisecond, lg.String())
		require.Equal(t, int64(1), p.Stats().RewriteFails)
		steadyOK()
		healthy(t, p)
	})

	t.Run("raw SASL tokens after a version 0 handshake", func(t *testing.T) {
		c := dial()
		rsp, err := roundTrip(c, request(t, schema.KeySaslHandshake, 0, 1, "raw-sasl", map[string]any{"mechanism": "PLAIN"}))
		require.NoError(t, err)
		require.Equal(t, int32(1), int32(binary.BigEndian.Uint32(rsp[4:])))
		secret := "\x00user\x00token-password"
		token := append([]byte{0, 0, 0, byte(len(secret))}, secret...)
		c.Write(token)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		var empty [4]byte
		_, err = io.ReadFull(c, empty[:])
		require.NoError(t, err, "%s\n%v", lg, b.endings())
		require.Equal(t, [4]byte{}, empty, "the broker's empty token came through as it was")
		rsp, err = roundTrip(c, request(t, schema.KeyApiVersions, 0, 2, "raw-sasl", map[string]any{}))
		require.NoError(t, err)
		require.Equal(t, int32(2), int32(binary.BigEndian.Uint32(rsp[4:])))
		require.Equal(t, int64(2), p.Stats().SASLTokens)
		require.Eventually(t, func() bool {
			for _, j := range col.all() {
				if j.exchange.CorrelationID == 2 && j.api == "ApiVersions" && j.exchange.Paired() {
					return true
				}
			}
			return false
		}, 5*time.Second, 5*time.Millisecond)
		for _, j := range col.all() {
			require.NotContains(t, string(j.exchange.Request), "token-password")
			require.NotContains(t, string(j.exchange.Response), "token-password")
		}
		steadyOK()
	})
	steadyOK()
}

// TestApiVersionsNeverClosed: an ApiVersions response the proxy cannot
// read at its request's version names no broker, so it reaches the client
// byte for byte and the connection goes on: a broker's UNSUPPORTED_VERSION
// answer in the v0 layout (KIP-511), to a version it does not know or to
// one newer than kwire knows, is read (and shown) at v0; a response at a
// version newer than kwire knows is forwarded as it is, and the log says
// its ranges were not capped.
func TestApiVersionsNeverClosed(t *testing.T) {
	b := newFakeBroker(t)
	lg := &logs{}
	col := &collector{}
	p := startProxy(t, Config{Upstream: b.addr(), Sink: col.sink, Log: lg.log})
	newest := schema.ByKey(schema.KeyApiVersions).Request.Valid.Hi
	apiVersions := func(ver int16, corr int32, client string) []byte {
		req := request(t, schema.KeyApiVersions, min(ver, newest), corr, client,
			map[string]any{"clientSoftwareName": "kwire", "clientSoftwareVersion": "1"})
		binary.BigEndian.PutUint16(req[6:], uint16(ver)) // newer than kwire knows: the same layout
		return req
	}
	for i, tc := range []struct {
		name   string
		ver    int16
		client string
		shown  string // in the response the sink shows
	}{
		{"the v0 fallback to a version the broker does not know", 3, "old-broker", `"errorCode":35`},
		{"the v0 fallback to a version newer than kwire knows", newest + 2, "old-broker", `"errorCode":35`},
		{"a version newer than kwire knows", newest + 2, "newer-broker", `"errorCode":0`},
	} {
		corr := int32(10 * (i + 1))
		t.Run(tc.name, func(t *testing.T) {
			direct, err := net.Dial("tcp", b.addr())
			require.NoError(t, err)
			defer direct.Close()
			want, err := roundTrip(direct, apiVersions(tc.ver, corr, tc.client))
			require.NoError(t, err)
			c, err := net.Dial("tcp", p.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			got, err := roundTrip(c, apiVersions(tc.ver, corr, tc.client))
			require.NoError(t, err, lg.String())
			require.Equal(t, want, got, "the broker's answer, byte for byte")
			// The connection goes on.
			rsp, err := roundTrip(c, request(t, schema.KeyMetadata, 9, corr+1, tc.client, map[string]any{"topics": nil}))
			require.NoError(t, err, lg.String())
			require.Equal(t, corr+1, int32(binary.BigEndian.Uint32(rsp[4:])))
			require.Eventually(t, func() bool {
				for _, j := range col.all() {
					if j.exchange.CorrelationID == corr && j.exchange.Paired() {
						require.NoError(t, j.rspErr)
						require.Contains(t, j.rsp, tc.shown)
						return true
					}
				}
				return false
			}, 5*time.Second, 5*time.Millisecond)
		})
	}
	require.False(t, lg.has("closing the connection"), lg.String())
	require.True(t, lg.has("an ApiVersions v"+strconv.Itoa(int(newest+2))+" response"), lg.String())
	require.True(t, lg.has("forwarded as it is, its version ranges not capped"), lg.String())
	require.Zero(t, p.Stats().RewriteFails)
}

// TestNoCoordinatorLeftAsSent: FindCoordinator's "no coordinator" answer
// (nodeId -1, host "", port -1) reaches the client as the broker sent it,
// in both layouts, and opens no listener.
func TestNoCoordinatorLeftAsSent(t *testing.T) {
	b := newFakeBroker(t)
	lg := &logs{}
	p := startProxy(t, Config{Upstream: b.addr(), Log: lg.log})
	for _, ver := range []int16{3, 4} {
		body := map[string]any{"key": "group-1", "keyType": 0}
		if ver >= 4 {
			body = map[string]any{"keyType": 0, "coordinatorKeys": []string{"group-1"}}
		}
		req := request(t, schema.KeyFindCoordinator, ver, 5, "no-coordinator", body)
		direct, err := net.Dial("tcp", b.addr())
		require.NoError(t, err)
		defer direct.Close()
		want, err := roundTrip(direct, req)
		require.NoError(t, err)
		c, err := net.Dial("tcp", p.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		got, err := roundTrip(c, req)
		require.NoError(t, err, lg.String())
		require.Equal(t, want, got, "v%d: the placeholder as the broker sent it", ver)
	}
	require.Equal(t, int64(1), p.Stats().Listeners, "no listener for no node")
	require.False(t, lg.has(":-1"), lg.String())
}

// TestSlowSink: a sink that does not keep up never slows the traffic:
// while it is stuck, clients get every answer, the exchanges it cannot
// take are skipped and counted, and the first exchange it gets afterwards
// says how many were skipped.
func TestSlowSink(t *testing.T) {
	b := newFakeBroker(t)
	stuck := make(chan struct{})
	var mu sync.Mutex
	var got []*Exchange
	p := startProxy(t, Config{Upstream: b.addr(), QueueLen: 4, Sink: func(x *Exchange) {
		<-stuck
		mu.Lock()
		got = append(got, x)
		mu.Unlock()
	}})
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	const n = 200
	for i := int32(1); i <= n; i++ {
		rsp, err := roundTrip(c, request(t, schema.KeyListGroups, 4, i, "busy", map[string]any{}))
		require.NoError(t, err, "request %d answered while the sink is stuck", i)
		require.Equal(t, i, int32(binary.BigEndian.Uint32(rsp[4:])))
	}
	st := p.Stats()
	require.GreaterOrEqual(t, st.Skipped, int64(n-5), "at most the queue and the one in the sink are kept")
	close(stuck)
	// The skips are told with the next exchange delivered: let the queue
	// drain first, or exchange n+1 may find it still full and be skipped
	// too, leaving no exchange to carry the count.
	require.Eventually(t, func() bool {
		s := p.Stats()
		return s.Exchanges == s.Delivered+s.Skipped
	}, 10*time.Second, time.Millisecond)
	rsp, err := roundTrip(c, request(t, schema.KeyListGroups, 4, n+1, "busy", map[string]any{}))
	require.NoError(t, err)
	require.NotEmpty(t, rsp)
	c.Close()
	waitDrained(t, p)
	mu.Lock()
	defer mu.Unlock()
	skipped := 0
	for _, x := range got {
		skipped += x.Skipped
	}
	require.Equal(t, int(p.Stats().Skipped), skipped, "the exchanges delivered say how many were skipped")
	require.Equal(t, int(p.Stats().Skipped), got[len(got)-1].ConnSkipped, "and, on one connection, how many of its own")
	require.Equal(t, int32(n+1), got[len(got)-1].CorrelationID)
	require.Equal(t, int64(n+1), p.Stats().Exchanges)
}

// spin uses d of the calling thread's CPU time.
func spin(d time.Duration) {
	start, _ := threadCPU()
	for {
		if now, _ := threadCPU(); now-start >= d {
			return
		}
	}
}

// TestSinkShare: a sink that uses more than its share of the CPU gets only
// that share (after its burst); the rest is skipped, and counted, and the
// traffic is not slowed.
func TestSinkShare(t *testing.T) {
	_, ok := threadCPU()
	require.True(t, ok, "the thread's CPU clock is readable here")
	b := newFakeBroker(t)
	var mu sync.Mutex
	var busy, longest time.Duration
	const share, burst = 0.1, 10 * time.Millisecond
	start := time.Now() // before the sink's bucket starts filling
	p := startProxy(t, Config{Upstream: b.addr(), SinkShare: share, SinkBurst: burst, Sink: func(x *Exchange) {
		c0, _ := threadCPU()
		spin(2 * time.Millisecond)
		c1, _ := threadCPU()
		mu.Lock()
		busy += c1 - c0
		longest = max(longest, c1-c0)
		mu.Unlock()
	}})
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	for i := int32(1); i <= 300; i++ {
		_, err := roundTrip(c, request(t, schema.KeyListGroups, 4, i, "share", map[string]any{}))
		require.NoError(t, err)
	}
	c.Close()
	waitDrained(t, p)
	elapsed := time.Since(start)
	st := p.Stats()
	require.Equal(t, int64(300), st.Exchanges)
	require.Greater(t, st.Skipped, int64(0))
	mu.Lock()
	defer mu.Unlock()
	// What the sink used: at most its burst, its share of the time, and
	// one call that went over (each call starts only within the share).
	limit := burst + time.Duration(share*float64(elapsed)) + longest
	require.LessOrEqual(t, busy, limit, "sink CPU %v over %v (delivered %d, skipped %d)", busy, elapsed, st.Delivered, st.Skipped)
}

// TestSinkShareCountsCPU: the share is of CPU time: a sink that waits
// (a slow terminal, a full pipe, a preempted thread) far longer than its
// share of the wall time, using little CPU, is handed every exchange. The
// share once counted wall time, and a light session lost a third of its
// exchanges to one stall.
func TestSinkShareCountsCPU(t *testing.T) {
	_, ok := threadCPU()
	require.True(t, ok, "the thread's CPU clock is readable here")
	b := newFakeBroker(t)
	var mu sync.Mutex
	delivered := 0
	p := startProxy(t, Config{Upstream: b.addr(), SinkShare: DefaultSinkShare, Sink: func(x *Exchange) {
		time.Sleep(20 * time.Millisecond) // waiting on the terminal
		mu.Lock()
		delivered++
		mu.Unlock()
	}})
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	const n = 40 // 800 ms of waiting: eight times the default share of it
	for i := int32(1); i <= n; i++ {
		_, err := roundTrip(c, request(t, schema.KeyListGroups, 4, i, "light", map[string]any{}))
		require.NoError(t, err)
	}
	c.Close()
	waitDrained(t, p)
	require.Equal(t, int64(0), p.Stats().Skipped)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, n, delivered)
}

// TestLogEscapesBrokerStrings: a broker host name carrying terminal
// escapes reaches the log escaped, in the line that says which listener
// serves it and in the one that says it cannot be reached.
func TestLogEscapesBrokerStrings(t *testing.T) {
	b := newFakeBroker(t)
	lg := &logs{}
	p := startProxy(t, Config{Upstream: b.addr(), Log: lg.log, DialTimeout: 500 * time.Millisecond})
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	_, err = roundTrip(c, request(t, schema.KeyMetadata, 9, 1, "evil-host", map[string]any{"topics": nil}))
	require.NoError(t, err)
	ls := p.Listeners()
	require.Len(t, ls, 2)
	require.Equal(t, evilHost+":9092", ls[1].Upstream)
	escaped := `evil\x1b]0;owned\x07\u202e.example:9092`
	require.Eventually(t, func() bool { return lg.has("broker " + escaped + " is unreachable") }, 10*time.Second, 5*time.Millisecond, lg.String())
	require.True(t, lg.has("broker "+escaped+" is reached through"), lg.String())
	for _, l := range strings.Split(lg.String(), "\n") {
		for _, r := range l {
			require.False(t, r < 0x20 || r == 0x7f || r == 0x202e, "a raw control character in %q", l)
		}
	}
}

func TestAppendEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"plain broker-1.example:9092": "plain broker-1.example:9092",
		"\x1b[31mred\x1b[0m":          `\x1b[31mred\x1b[0m`,
		"bell\x07 nl\n del\x7f":       `bell\x07 nl\x0a del\x7f`,
		"c1 \u009b csi":               `c1 \u009b csi`,
		"bad \xff utf8":               `bad \xff utf8`,
		"rtl \u202e zwj \u200d":       `rtl \u202e zwj \u200d`,
		"kafka-пример-例.example":      "kafka-пример-例.example",
	} {
		require.Equal(t, want, string(AppendEscaped(nil, in)), "%q", in)
	}
}
