package main

import (
	"sync"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/internal/proxy"
)

// proxyChecker applies kwire check's rules to the exchanges kwire proxy
// --check sees, in the order they complete, and writes the findings to
// standard error as kwire check's text lines. The proxy sees every
// connection from its first byte.
type proxyChecker struct {
	mu    sync.Mutex
	z     check.Analyzer
	c     *check.Checker
	conns map[uint64]*check.Conn
	line  []byte
}

func newProxyChecker() *proxyChecker {
	return &proxyChecker{c: check.NewChecker(), conns: map[uint64]*check.Conn{}}
}

// exchange checks one exchange and returns its findings' lines.
func (pc *proxyChecker) exchange(x *proxy.Exchange) []byte {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	cn := pc.conns[x.ConnID]
	if cn == nil {
		cn = &check.Conn{ID: int(x.ConnID), Client: x.Client.String(), Broker: x.Broker.String(), FromStart: true}
		pc.conns[x.ConnID] = cn
	}
	cx := check.Exchange{Conn: cn, Request: x.Request, Response: x.Response, NoResponseExpected: x.NoResponseExpected, ConnClosed: x.ConnClosed}
	if x.Unanswered {
		// The proxy gives up on a request a later response overtook.
		cx.Overtaken = 1
	}
	return pc.lines(pc.c.Add(pc.z.Analyze(&cx)))
}

// end judges what needs the whole conversation, once the proxy stopped
// (every connection is closed then).
func (pc *proxyChecker) end() []byte {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for _, cn := range pc.conns {
		cn.Closed = true
	}
	return pc.lines(pc.c.End())
}

func (pc *proxyChecker) lines(fs []check.Finding) []byte {
	pc.line = pc.line[:0]
	for i := range fs {
		pc.line = append(pc.line, "kwire: check: "...)
		pc.line = append(fs[i].AppendText(pc.line), '\n')
	}
	return pc.line
}
