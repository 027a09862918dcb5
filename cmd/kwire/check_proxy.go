package main

import (
	"fmt"
	"sync"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/internal/proxy"
)

// proxyChecker applies kwire check's rules to the exchanges kwire proxy
// --check sees, in the order they complete, and writes the findings to
// standard error as kwire check's text lines, and at the end kwire
// check's summary. The proxy sees every connection from its first byte;
// the exchanges it skipped (its decoding was behind) the rules take as
// lost, as they take bytes lost from a capture.
type proxyChecker struct {
	mu      sync.Mutex
	z       check.Analyzer
	c       *check.Checker
	conns   map[uint64]*check.Conn
	line    []byte
	counts  [check.Error + 1]int // findings by severity
	skips   notJudged            // rules not judged
	missed  int64                // exchanges skipped that the checker was told of
	checked int                  // exchanges checked
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
	// What was skipped before this exchange, on any connection and on
	// its own (which the connection rules follow, as a capture's gaps).
	pc.c.Missed(x.Skipped)
	pc.missed += int64(x.Skipped)
	// The proxy pairs out of order and reused correlation ids as a
	// capture is paired, so the connection rules judge them alike.
	cx := check.Exchange{Conn: cn, Request: x.Request, Response: x.Response, NoResponseExpected: x.NoResponseExpected, ConnClosed: x.ConnClosed,
		Overtook: x.Overtook, Overtaken: x.Overtaken, OvertakenBy: x.OvertakenBy, ReusedCorrelation: x.ReusedCorrelation,
		Gaps: x.ConnSkipped, SASLToken: x.SASLToken, RequestTime: x.RequestTime, ResponseTime: x.ResponseTime}
	pc.checked++
	return pc.lines(pc.c.Add(pc.z.Analyze(&cx)))
}

// end judges what needs the whole conversation, once the proxy stopped
// (every connection is closed then), skipped the proxy's count of the
// exchanges it skipped in all, and returns the findings' lines and the
// summary's.
func (pc *proxyChecker) end(skipped int64) []byte {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for _, cn := range pc.conns {
		cn.Closed = true
	}
	// Those skipped after the last exchange delivered.
	pc.c.Missed(int(skipped - pc.missed))
	b := pc.lines(pc.c.End())
	notChecked := ""
	if skipped > 0 {
		notChecked = fmt.Sprintf("; %d of %d exchanges not checked (skipped: decoding was behind the traffic; --decode-cpu 0 checks every one)",
			skipped, int64(pc.checked)+skipped)
	}
	return fmt.Appendf(b, "kwire: check: %s%s\n", checkSummary(&pc.counts, &pc.skips), notChecked)
}

// reached reports whether a finding was at least as severe as sev (0:
// never), as kwire check's --fail-on reads it (failOnReached).
func (pc *proxyChecker) reached(sev check.Severity) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return failOnReached(&pc.counts, sev)
}

func (pc *proxyChecker) lines(fs []check.Finding) []byte {
	pc.line = pc.line[:0]
	for i := range fs {
		if fs[i].Skipped {
			pc.skips.add(fs[i].Rule)
		} else {
			pc.counts[fs[i].Severity]++
		}
		pc.line = append(pc.line, "kwire: check: "...)
		pc.line = append(fs[i].AppendText(pc.line), '\n')
	}
	return pc.line
}
