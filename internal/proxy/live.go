package proxy

import (
	"encoding/base64"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kwire/kwire/internal/positive"
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
//
// A stream outlives the server's read timeout (its deadline is lifted),
// but each write must be taken within WriteTimeout, or the page is cut.
type Feed struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	nextID int64
	closed chan struct{} // closed by Close
	// QueueLen bounds each subscriber's queue of events (default 1024).
	QueueLen int
	// Heartbeat is how often an idle stream gets a comment, so proxies and
	// browsers keep it open (default 15 s).
	Heartbeat time.Duration
	// MaxSubscribers bounds the pages connected at once (default 16);
	// more get 503.
	MaxSubscribers int
	// WriteTimeout bounds each write to a page (default 30 s).
	WriteTimeout time.Duration
}

// Close ends every stream, and any that starts afterwards, so that a
// server shutting down need not wait for the pages to leave.
func (f *Feed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed == nil {
		f.closed = make(chan struct{})
	}
	select {
	case <-f.closed:
	default:
		close(f.closed)
	}
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
	n := positive.Or(f.QueueLen, 1024)
	hb := positive.Or(f.Heartbeat, 15*time.Second)
	maxSubs := positive.Or(f.MaxSubscribers, 16)
	wt := positive.Or(f.WriteTimeout, 30*time.Second)
	s := &subscriber{ch: make(chan []byte, n)}
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[*subscriber]struct{}{}
	}
	if f.closed == nil {
		f.closed = make(chan struct{})
	}
	closed := f.closed
	if len(f.subs) >= maxSubs {
		f.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		http.Error(w, "too many pages follow the live feed ("+strconv.Itoa(maxSubs)+")", http.StatusServiceUnavailable)
		return
	}
	f.subs[s] = struct{}{}
	f.mu.Unlock()
	// The stream lasts as long as the page: each write has its own
	// deadline, in place of the server's for the whole answer.
	write := func(b []byte) error {
		rc.SetWriteDeadline(time.Now().Add(wt))
		_, err := w.Write(b)
		return err
	}
	defer func() {
		f.mu.Lock()
		delete(f.subs, s)
		f.mu.Unlock()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	rc.SetWriteDeadline(time.Now().Add(wt))
	w.WriteHeader(http.StatusOK)
	write([]byte("retry: 1000\n\n"))
	rc.Flush()
	tick := time.NewTicker(hb)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-closed:
			return
		case <-tick.C:
			if err := write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
		case ev := <-s.ch:
			s.mu.Lock()
			d := s.dropped
			s.dropped = 0
			s.mu.Unlock()
			if d > 0 {
				write([]byte("event: skipped\ndata: {\"skipped\":" + strconv.Itoa(d) + "}\n\n"))
			}
			if err := write(ev); err != nil {
				return
			}
			// Write what else is waiting before flushing.
			for more := true; more; {
				select {
				case ev := <-s.ch:
					if err := write(ev); err != nil {
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
