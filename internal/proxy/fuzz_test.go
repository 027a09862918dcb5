package proxy

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// fuzzConn wires a conn to two pipes: the test plays the client on one and
// the broker on the other.
func fuzzConn(t *testing.T, p *Proxy) (c *conn, client, broker net.Conn) {
	cp, cs := net.Pipe()
	bp, bs := net.Pipe()
	l := &listener{upstream: "127.0.0.1:9092", adv: Endpoint{"127.0.0.1", 19092}}
	c = &conn{p: p, id: 1, client: cs, upstream: bs, ln: l, name: "conn 1 fuzz", cAddr: netip.MustParseAddrPort("127.0.0.1:1"), bAddr: netip.MustParseAddrPort("127.0.0.1:2")}
	c.cond = sync.NewCond(&c.mu)
	return c, cp, bp
}

// relayAll runs both directions of a conn over pipes: fromClient is what
// the client sends, fromBroker what the broker sends; it returns what each
// side received, and fails the test if the relay does not end.
func relayAll(t *testing.T, p *Proxy, fromClient, fromBroker []byte) (toBroker, toClient []byte) {
	c, client, broker := fuzzConn(t, p)
	var wg sync.WaitGroup
	var gotB, gotC bytes.Buffer
	wg.Add(4)
	go func() { defer wg.Done(); client.Write(fromClient); client.Close() }()
	go func() { defer wg.Done(); broker.Write(fromBroker); broker.Close() }()
	go func() { defer wg.Done(); io.Copy(&gotB, broker) }()
	go func() { defer wg.Done(); io.Copy(&gotC, client) }()
	done := make(chan struct{})
	go func() { c.relay(); wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the relay did not end")
	}
	return gotB.Bytes(), gotC.Bytes()
}

func frameOf(t testing.TB, key, ver int16, response bool) []byte {
	b, err := codec.ExampleFrame(schema.ByKey(key), ver, response)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzRelay relays arbitrary bytes both ways: the proxy never panics and
// never hangs, and what reaches the broker is always a prefix of what the
// client sent (requests are never changed).
func FuzzRelay(f *testing.F) {
	mreq, mrsp := frameOf(f, schema.KeyMetadata, 12, false), frameOf(f, schema.KeyMetadata, 12, true)
	binary.BigEndian.PutUint32(mrsp[4:], 7) // the example request's correlation id
	f.Add(mreq, mrsp)
	f.Add(frameOf(f, schema.KeyProduce, 11, false), frameOf(f, schema.KeyProduce, 11, true))
	f.Add(frameOf(f, schema.KeyFetch, 17, false), frameOf(f, schema.KeyFetch, 17, true))
	f.Add(frameOf(f, schema.KeyApiVersions, 3, false), frameOf(f, schema.KeyApiVersions, 3, true))
	hs := frameOf(f, schema.KeySaslHandshake, 0, false)
	f.Add(append(hs, 0, 0, 0, 6, 0, 'u', 0, 'p', 'w', 'd'), append(frameOf(f, schema.KeySaslHandshake, 0, true), 0, 0, 0, 0))
	// A SCRAM login's raw tokens, two each way (token exchanges queued).
	tok := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	f.Add(append(append(append([]byte(nil), hs...), tok("n,,n=user,r=abc")...), tok("c=biws,r=abcdef,p=eA==")...),
		append(append(frameOf(f, schema.KeySaslHandshake, 0, true), tok("r=abcdef,s=c2FsdA==,i=4096")...), tok("v=dg==")...))
	f.Add(frameOf(f, schema.KeySaslAuthenticate, 2, false), frameOf(f, schema.KeySaslAuthenticate, 2, true))
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"), []byte{})
	f.Add([]byte{0, 0, 0, 3, 1, 2, 3}, []byte{0, 0, 0, 2, 0, 0})
	f.Add([]byte{0x7f, 0xff, 0xff, 0xff}, []byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, fromClient, fromBroker []byte) {
		// Copies start at 16 bytes (copyStart is 64 KiB, past any frame
		// here): every copy of a larger frame grows as it is relayed.
		p := &Proxy{cfg: Config{MaxFrame: 1 << 16, QueueLen: 4, QueueBytes: 1 << 20}, advertise: "127.0.0.1", copyStart: 16,
			byUpstream: map[string]*listener{}, conns: map[uint64]*conn{}, queue: make(chan *Exchange, 4), closed: true}
		p.cfg.Sink = func(*Exchange) {}
		// Endpoints map without listening: the proxy is marked closed, so
		// a new broker is an error, which closes the connection.
		p.byUpstream["host:5"] = &listener{adv: Endpoint{"127.0.0.1", 19093}}
		toBroker, toClient := relayAll(t, p, fromClient, fromBroker)
		if !bytes.HasPrefix(fromClient, toBroker) {
			t.Fatalf("the broker got bytes the client did not send: %x", toBroker)
		}
		// Decode what was queued, as kwire proxy does: its trees, and its
		// NDJSON from the bytes (on a copy: both zero the secrets).
		var d Decoder
		for len(p.queue) > 0 {
			x := <-p.queue
			if !bytes.Contains(fromClient, x.Request) {
				t.Fatalf("a request's copy is not bytes the client sent: %x", x.Request)
			}
			if !bytes.Contains(fromBroker, x.Response) && !bytes.Contains(toClient, x.Response) {
				t.Fatalf("a response's copy is neither bytes the broker sent nor bytes the client got: %x", x.Response)
			}
			y := *x
			y.Request, y.Response = bytes.Clone(x.Request), bytes.Clone(x.Response)
			d.Decode(x)
			d.DecodeJSON(&y)
			p.release(x.budget)
		}
		if u := p.used.Load(); u != 0 {
			t.Fatalf("%d bytes of copies never released", u)
		}
	})
}

// FuzzRewrite rewrites arbitrary bytes as each endpoint-carrying response:
// never a panic, and what comes out decodes with every endpoint mapped.
func FuzzRewrite(f *testing.F) {
	for _, k := range []int16{schema.KeyMetadata, schema.KeyFindCoordinator, schema.KeyDescribeCluster, schema.KeyFetch, schema.KeyProduce} {
		a := schema.ByKey(k)
		b, _ := codec.ExampleFrame(a, a.Response.Valid.Hi, true)
		f.Add(b, k, a.Response.Valid.Hi)
	}
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 1}, int16(3), int16(0))
	to := Endpoint{"proxy.test", 19092}
	f.Fuzz(func(t *testing.T, b []byte, key, ver int16) {
		var dec codec.Decoder
		out, _, err := rewriteResponse(&dec, b, key, ver, func(Endpoint) (Endpoint, error) { return to, nil })
		if err != nil || out == nil {
			return
		}
		var o codec.Options
		o.Response, o.APIKey, o.Version, o.Kafka = true, key, ver, true // nothing nested decoded
		fr, err := codec.Decode(out, o)
		if err != nil {
			t.Fatalf("the rewritten frame does not decode: %v", err)
		}
		if key == schema.KeyApiVersions {
			return
		}
		visitEndpoints(fr.Body, fr.Message.At(fr.LayoutVersion).Root, nil, func(n *tree.Node) {
			h, p := n.Get("host"), n.Get("port")
			if h != nil && p != nil && !h.Null && (string(h.Raw) != to.Host || p.Int != int64(to.Port)) {
				t.Fatalf("an endpoint left as it was: %s:%d", h.Raw, p.Int)
			}
		})
	})
}
