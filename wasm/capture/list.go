//go:build js && wasm

package main

import (
	"strconv"
	"time"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/capture"
	apisummary "github.com/kwire/kwire/internal/capture/summary"
	"github.com/kwire/kwire/internal/sortfunc"
)

// What the page is handed of a capture. It lists the first maxListed
// exchanges (in Read's order: by their first packet), their frames
// together at most maxListedBytes, in full: a summary row, the frames'
// bytes, kwire check's findings. The rest are counted per API and said
// in a note, and every exchange, listed or not, counts in the per-API
// figures (apiStats), which the page's per-API summary shows when some
// are not listed. The page draws 3,000 rows; a capture of a million tiny
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
	byAPI    apiStats        // every exchange, and those not listed
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
	l.byAPI.get(x).add(x)
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
	sortfunc.Slice(len(xs), func(i, j int) bool { return xs[i].Before(xs[j]) }, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	n, bytes := 0, 0
	for n < len(xs) && n < maxListed && bytes+frameBytes(xs[n]) <= maxListedBytes {
		bytes += frameBytes(xs[n])
		n++
	}
	for i, y := range xs[n:] {
		l.unlisted++
		l.byAPI.get(y).unlisted++
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
	sortfunc.Slice(len(cs), func(i, j int) bool { return cs[i].ID < cs[j].ID }, func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
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

// apiStats is the per-API summary's figures over every exchange of a
// capture, listed or not, as the page's summary table shows them (its
// drawCapSummary, for the rows listed): count, versions, the frames'
// bytes, latency percentiles by nearest rank and the maximum; and how
// many of them are not listed, for the note that says so. Memory is per
// API, not per exchange: the latencies are summary.Latencies, kwire pcap
// --summary's, a uniform sample of at most summary.MaxLatencies an API
// with the maximum exact. Error codes are not here: the page learns them
// by decoding the frames it is handed, the listed ones'.
type apiStats struct {
	by   map[string]*apiStat // by apiText
	list []*apiStat          // in the order first seen
}

type apiStat struct {
	name            string
	count, unlisted int
	bytes           int
	versions        [][2]int // version, count; a raw SASL token has none
	lat             apisummary.Latencies
}

// get is x's API's figures.
func (t *apiStats) get(x *capture.Exchange) *apiStat {
	k := apiText(x)
	s := t.by[k]
	if s == nil {
		if t.by == nil {
			t.by = map[string]*apiStat{}
		}
		s = &apiStat{name: k}
		t.by[k] = s
		t.list = append(t.list, s)
	}
	return s
}

// add counts x, one of s's API.
func (s *apiStat) add(x *capture.Exchange) {
	s.count++
	s.bytes += frameBytes(x)
	if x.Paired() {
		s.lat.Add(x.Latency)
	}
	if x.SASLToken {
		return
	}
	v := int(x.APIVersion)
	i := 0
	for i < len(s.versions) && s.versions[i][0] < v {
		i++
	}
	if i == len(s.versions) || s.versions[i][0] != v {
		s.versions = append(s.versions, [2]int{})
		copy(s.versions[i+1:], s.versions[i:])
		s.versions[i] = [2]int{v, 0}
	}
	s.versions[i][1]++
}

// sorted is the APIs by name.
func (t *apiStats) sorted() []*apiStat {
	l := t.list
	sortfunc.Slice(len(l), func(i, j int) bool { return l[i].name < l[j].name }, func(i, j int) { l[i], l[j] = l[j], l[i] })
	return t.list
}

// String is the APIs of the exchanges not listed, by name, with how
// many: "Fetch 3, Produce 12".
func (t *apiStats) String() string {
	s := ""
	for _, a := range t.sorted() {
		if a.unlisted > 0 {
			if s != "" {
				s += ", "
			}
			s += a.name + " " + strconv.Itoa(a.unlisted)
		}
	}
	return s
}

// appendJSON appends the figures as JSON array elements, the summary's
// "apis": per API, by name, {"api", "count", "versions": [[version,
// count]...], "bytes"}, and with latencies "latencies" (how many),
// "p50Ms", "p99Ms", "maxMs" and "sampled" when the percentiles come from
// a sample. (Appended as bytes: jsontext.Writer's calls, inlined, cost
// capture.wasm some KB gzip more.)
func (t *apiStats) appendJSON(dst []byte) []byte {
	for i, s := range t.sorted() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsontext.AppendHTMLSafe(append(dst, `{"api":`...), s.name)
		dst = strconv.AppendInt(append(dst, `,"count":`...), int64(s.count), 10)
		dst = append(dst, `,"versions":[`...)
		for j, v := range s.versions {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(append(dst, '['), int64(v[0]), 10)
			dst = append(strconv.AppendInt(append(dst, ','), int64(v[1]), 10), ']')
		}
		dst = strconv.AppendInt(append(dst, `],"bytes":`...), int64(s.bytes), 10)
		if n := s.lat.Count(); n > 0 {
			dst = strconv.AppendInt(append(dst, `,"latencies":`...), int64(n), 10)
			dst = appendMs(append(dst, `,"p50Ms":`...), s.lat.Percentile(.5))
			dst = appendMs(append(dst, `,"p99Ms":`...), s.lat.Percentile(.99))
			dst = appendMs(append(dst, `,"maxMs":`...), s.lat.Max())
			if s.lat.Sampled() {
				dst = append(dst, `,"sampled":true`...)
			}
		}
		dst = append(dst, '}')
	}
	return dst
}

// appendMs appends a latency in milliseconds, to the microsecond.
func appendMs(dst []byte, d time.Duration) []byte {
	return strconv.AppendFloat(dst, capture.Millis(d), 'f', 3, 64)
}
