//go:build js && wasm

package main

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/internal/capcheck"
	"github.com/kwire/kwire/internal/capture"
)

// checkLimits bound each frame's decoding while checking, as kwire.wasm's
// views bound theirs (wasm/main.go's browser limits).
var checkLimits = check.Limits{MaxNodes: 1 << 18, MaxDecompressed: 16 << 20, MaxRecordNesting: 4}

// checkBudget bounds what checking a whole capture may spend, every
// frame's decoding together (check.Analyzer.Spent): 16 frames at
// checkLimits' nodes (some 3 s), 256 MiB decompressed, 1 GiB of work. Past it the
// exchanges left are listed but not judged, and a note says so. Each
// frame had its own budget only: a pcap.gz of 594 bytes, 100 Produce
// requests each 232 bytes of zstd inflating to 140,000 records, took 24.5
// s (0.2 s each) with nothing said.
var checkBudget = check.Limits{MaxNodes: 1 << 22, MaxDecompressed: 256 << 20, MaxWork: 1 << 30}

// spentPast reports whether s is past any of b's limits.
func spentPast(s, b check.Limits) bool {
	return s.MaxNodes > b.MaxNodes || s.MaxDecompressed > b.MaxDecompressed || s.MaxWork > b.MaxWork
}

// checkCapture applies kwire check's rules to a capture's exchanges (in
// Read's order) and returns each exchange's findings as JSON array
// elements, and those judged at the end. The rules run in the order the
// exchanges completed (a response came, or the capture ended), as kwire
// check runs them, on the exchanges as kwire check reads them
// (internal/capcheck: a frame held only in part is not judged, and said
// once at the end), until checkBudget is spent: note then says how many
// were left unjudged, and why.
func checkCapture(res *capture.Result) (per [][]byte, end []byte, note string) {
	n := len(res.Exchanges)
	order := make([]int, n)
	done := make([]int, n)
	for i, x := range res.Exchanges {
		order[i] = i
		switch {
		case x.Response != nil:
			done[i] = x.Response.PacketIndex
		case x.Request != nil:
			done[i] = 1<<40 + x.Request.PacketIndex // unanswered: handed out when the capture ends
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(done[a], done[b]) })
	var conv capcheck.Conv // the exchanges as kwire check reads them
	z := check.Analyzer{Limits: checkLimits}
	ck := check.NewChecker()
	per = make([][]byte, n)
	left := 0
	for _, i := range order {
		if spentPast(z.Spent(), checkBudget) {
			left++
			continue
		}
		cx := conv.Exchange(res.Exchanges[i])
		per[i] = appendFindings(nil, ck.Add(z.Analyze(&cx)))
	}
	if left > 0 {
		note = "kwire check's rules judged " + strconv.Itoa(n-left) + " of the " + strconv.Itoa(n) + " exchanges listed (the first to complete) and left " + strconv.Itoa(left) +
			" unjudged: the page checks a capture with at most 4,194,304 nodes, 256 MiB decompressed and 1 GiB of work in all (checkBudget); kwire check judges them all"
	}
	return per, appendFindings(nil, conv.End(ck, res)), note
}

// appendFindings writes findings as JSON array elements: {"rule",
// "severity" ("skipped" for a rule not judged), "text"} (kwire check's
// line), HTML-safe.
func appendFindings(dst []byte, fs []check.Finding) []byte {
	for i := range fs {
		f := &fs[i]
		if len(dst) > 0 {
			dst = append(dst, ',')
		}
		dst = jsontext.AppendHTMLSafe(append(dst, `{"rule":`...), f.Rule.ID)
		sev := f.Severity.String()
		if f.Skipped {
			sev = "skipped"
		}
		dst = jsontext.AppendHTMLSafe(append(dst, `,"severity":`...), sev)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"text":`...), f.String())
		dst = append(dst, '}')
	}
	return dst
}
