package proxy

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Feed is a live feed of exchanges as Server-Sent Events, for pages: each
// event is one exchange, its data an object with the exchange's NDJSON
// line and its raw frames as base64:
//
//	event: exchange
//	id: 42
//	data: {"exchange":{...the NDJSON line...},"request":"AAAA...","response":"AAAA..."}
//
// A page that reads too slowly misses events rather than slowing anything
// down: each subscriber has a bounded queue, and when it overflows the
// events are dropped and the next one it gets is preceded by
//
//	event: skipped
//	data: {"skipped":N}
type Feed struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	nextID int64
	// QueueLen bounds each subscriber's queue of events (default 1024).
	QueueLen int
	// Heartbeat is how often an idle stream gets a comment, so proxies and
	// browsers keep it open (default 15 s).
	Heartbeat time.Duration
}

type subscriber struct {
	ch      chan []byte
	mu      sync.Mutex
	dropped int
}

// Subscribers is the number of pages connected.
func (f *Feed) Subscribers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// AppendEvent appends the SSE event for an exchange: line is its NDJSON
// line (without the newline), req and rsp its frames (nil when absent).
func (f *Feed) AppendEvent(dst []byte, line, req, rsp []byte) []byte {
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	f.mu.Unlock()
	dst = append(dst, "event: exchange\nid: "...)
	dst = strconv.AppendInt(dst, id, 10)
	dst = append(dst, "\ndata: {\"exchange\":"...)
	dst = append(dst, line...)
	for _, side := range []struct {
		name string
		b    []byte
	}{{"request", req}, {"response", rsp}} {
		if side.b == nil {
			continue
		}
		dst = append(dst, ",\""...)
		dst = append(dst, side.name...)
		dst = append(dst, "\":\""...)
		dst = base64.StdEncoding.AppendEncode(dst, side.b)
		dst = append(dst, '"')
	}
	return append(dst, "}\n\n"...)
}

// Publish sends an event (as AppendEvent makes it) to every subscriber
// that has room for it. It never blocks.
func (f *Feed) Publish(ev []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for s := range f.subs {
		select {
		case s.ch <- ev:
		default:
			s.mu.Lock()
			s.dropped++
			s.mu.Unlock()
		}
	}
}

// ServeHTTP streams the events to one page until it goes away.
func (f *Feed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rc := http.NewResponseController(w)
	n := f.QueueLen
	if n <= 0 {
		n = 1024
	}
	hb := f.Heartbeat
	if hb <= 0 {
		hb = 15 * time.Second
	}
	s := &subscriber{ch: make(chan []byte, n)}
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[*subscriber]struct{}{}
	}
	f.subs[s] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.subs, s)
		f.mu.Unlock()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write([]byte("retry: 1000\n\n"))
	rc.Flush()
	tick := time.NewTicker(hb)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
		case ev := <-s.ch:
			s.mu.Lock()
			d := s.dropped
			s.dropped = 0
			s.mu.Unlock()
			if d > 0 {
				w.Write([]byte("event: skipped\ndata: {\"skipped\":" + strconv.Itoa(d) + "}\n\n"))
			}
			if _, err := w.Write(ev); err != nil {
				return
			}
			// Write what else is waiting before flushing.
			for more := true; more; {
				select {
				case ev := <-s.ch:
					if _, err := w.Write(ev); err != nil {
						return
					}
				default:
					more = false
				}
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
}
