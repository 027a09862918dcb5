//go:build js && wasm

package main

import (
	"sort"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/capture"
)

// What the page is handed of a capture. It lists the first maxListed
// exchanges (in Read's order: by their first packet), their frames
// together at most maxListedBytes, in full: a summary row, the frames'
// bytes, kwire check's findings. The rest are counted per API and said
// in a note (the page's per-API summary covers those listed). The page draws 3,000 rows; a capture of a million tiny
// exchanges (36 KB gzipped) was held whole, summary (83 MB for 200,000)
// and frames, and took minutes and gigabytes.
const (
	maxListed      = 10000
	maxListedBytes = 128 << 20
)

// listing keeps the first exchanges of a capture as ReadFunc hands them
// over in completion order: up to twice maxListed, then sorted in Read's
// order and cut to maxListed, the rest counted (so memory stays at what
// is listed whatever the capture's size, and time at O(log) a exchange).
type listing struct {
	kept     []*capture.Exchange
	bytes    int // the frames' bytes kept
	unlisted int
	conns    []*capture.Conn // connDone's
	byAPI    apiCounts       // those not listed
}

// frameBytes is what x's frames hold.
func frameBytes(x *capture.Exchange) int {
	n := 0
	for _, f := range [...]*capture.Frame{x.Request, x.Response} {
		if f != nil {
			n += len(f.Bytes)
		}
	}
	return n
}

// add is ReadFunc's callback.
func (l *listing) add(x *capture.Exchange) {
	l.kept = append(l.kept, x)
	l.bytes += frameBytes(x)
	if len(l.kept) >= 2*maxListed || l.bytes > maxListedBytes {
		l.cut()
	}
}

// cut sorts the exchanges kept in Read's order and gives up those past
// maxListed, and past maxListedBytes of frames.
func (l *listing) cut() {
	xs := l.kept
	sort.Slice(xs, func(i, j int) bool { return xs[i].Before(xs[j]) })
	n, bytes := 0, 0
	for n < len(xs) && n < maxListed && bytes+frameBytes(xs[n]) <= maxListedBytes {
		bytes += frameBytes(xs[n])
		n++
	}
	for i, y := range xs[n:] {
		l.unlisted++
		l.byAPI.add(y)
		xs[n+i] = nil
	}
	l.kept, l.bytes = xs[:n], bytes
}

// exchanges ends the listing: those kept, in Read's order.
func (l *listing) exchanges() []*capture.Exchange {
	l.cut()
	return l.kept
}

// connDone is ReadFunc's Options.ConnDone: the first maxListed Kafka
// connections to end are kept, as Read lists them (one with no exchange
// too); past them a row shows its connection's number alone.
func (l *listing) connDone(c *capture.Conn) {
	if len(l.conns) < maxListed {
		l.conns = append(l.conns, c)
	}
}

// connections is the connections kept, by id.
func (l *listing) connections() []*capture.Conn {
	cs := l.conns
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	return cs
}

// apiText is the API column's text for x, as the page writes it
// (capture.js: a raw SASL token, an API's name, its key, or unknown).
func apiText(x *capture.Exchange) string {
	switch a := schema.ByKey(x.APIKey); {
	case x.SASLToken:
		return "SASL token"
	case a != nil:
		return a.Name
	case x.APIKey >= 0:
		return "API " + strconv.Itoa(int(x.APIKey))
	}
	return "unknown"
}

// apiCounts counts exchanges per API (apiText), in the order first seen.
type apiCounts struct {
	by    map[string]int
	order []string
}

func (t *apiCounts) add(x *capture.Exchange) {
	k := apiText(x)
	if t.by == nil {
		t.by = map[string]int{}
	}
	if t.by[k] == 0 {
		t.order = append(t.order, k)
	}
	t.by[k]++
}

// String is "Fetch 3, Produce 12", the APIs by name.
func (t *apiCounts) String() string {
	sort.Strings(t.order)
	s := ""
	for i, k := range t.order {
		if i > 0 {
			s += ", "
		}
		s += k + " " + strconv.Itoa(t.by[k])
	}
	return s
}
