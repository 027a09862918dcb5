package proxy

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
)

// cluster is kfake with three brokers on loopback.
type cluster struct {
	*kfake.Cluster
}

func newCluster(t *testing.T, opts ...kfake.Opt) *cluster {
	c := &cluster{}
	listen := func(network, addr string) (net.Listener, error) {
		if strings.HasPrefix(addr, ":") {
			addr = "127.0.0.1" + addr
		}
		return net.Listen(network, addr)
	}
	opts = append([]kfake.Opt{kfake.NumBrokers(3), kfake.ListenFn(listen)}, opts...)
	kc, err := kfake.NewCluster(opts...)
	require.NoError(t, err)
	c.Cluster = kc
	t.Cleanup(kc.Close)
	return c
}

// collector is a sink that keeps every exchange (their frames copied, as
// the proxy reuses nothing it hands over, but tests may hold them).
type collector struct {
	mu  sync.Mutex
	xs  []*Exchange
	dec Decoder
	// decoded value JSON per exchange, request and response
	js []decodedJSON
}

type decodedJSON struct {
	api        string
	req, rsp   string
	reqErr     error
	rspErr     error
	redacted   []string
	exchange   *Exchange
	rewritten  int
	noResponse bool
}

func (c *collector) sink(x *Exchange) {
	d := c.dec.Decode(x)
	api := apiName(d.APIKey)
	if x.SASLToken {
		api = "SASL token"
	}
	j := decodedJSON{api: api, reqErr: d.RequestErr, rspErr: d.ResponseErr, redacted: d.Redacted, exchange: x, rewritten: x.Rewritten, noResponse: x.NoResponseExpected}
	if d.Request != nil {
		j.req = string(d.Request.AppendJSON(nil))
	}
	if d.Response != nil {
		j.rsp = string(d.Response.AppendJSON(nil))
	}
	c.mu.Lock()
	c.xs = append(c.xs, x)
	c.js = append(c.js, j)
	c.mu.Unlock()
}

func (c *collector) all() []decodedJSON {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]decodedJSON(nil), c.js...)
}

// acceptEach listens on a loopback port until the test ends, handing each
// connection to serve on a goroutine of its own, and returns the address:
// a broker as a test needs one.
func acceptEach(t testing.TB, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

// startProxy runs a proxy in front of upstream until the test ends.
func startProxy(t *testing.T, cfg Config) *Proxy {
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.Log == nil {
		cfg.Log = func(s string) { t.Log(s) }
	}
	p, err := New(cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Serve(ctx); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the proxy did not stop")
		}
	})
	return p
}

// waitDrained waits until every connection is closed and every exchange
// has been through the sink (or skipped).
func waitDrained(t *testing.T, p *Proxy) {
	t.Helper()
	require.Eventually(t, func() bool {
		s := p.Stats()
		return s.Open == 0 && s.Exchanges == s.Delivered+s.Skipped
	}, 10*time.Second, 5*time.Millisecond, "the proxy did not drain: %+v", p.Stats())
}
