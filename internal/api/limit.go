package api

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
)

// A Limiter bounds how many decodes and encodes run at once. A request
// takes a slot only after its body has been read, so a client that is slow
// to send (or stalls) holds a connection, never a slot. When every slot is
// busy a request may wait for one, if fewer than the limiter's waiting
// bound already wait, and for at most its wait time; otherwise it gets 503
// with Retry-After. One Limiter may be shared by several handlers.
type Limiter struct {
	slots      chan struct{}
	maxWaiting int64
	wait       time.Duration
	waiting    atomic.Int64
	onWait     func() // tests: called when a request starts to wait
}

// NewLimiter lets running decodes or encodes run at once (at least 1), and
// up to waiting more wait at most wait each for a slot. Zero waiting (or
// a zero wait) answers 503 as soon as every slot is busy.
func NewLimiter(running, waiting int, wait time.Duration) *Limiter {
	if running < 1 {
		running = 1
	}
	if waiting < 0 || wait <= 0 {
		waiting = 0
	}
	return &Limiter{slots: make(chan struct{}, running), maxWaiting: int64(waiting), wait: wait}
}

// Memory a decode may use, on which DefaultRunning bases its count.
const (
	// RequestPeak bounds the peak memory (RSS) of a process serving one
	// decode or encode under the default Options, itself included
	// (internal/api/worst's TestPeakMemory checks every worst case; the
	// largest, 1 KiB records filling MaxDecompressed and an annotated
	// tree of MaxNodes, peak at about 50 MiB: 6 MiB decompressed, 7 MiB
	// of JSON built by doubling, a tree of 2^16 nodes of about 220 bytes,
	// and the garbage collector's headroom over all of it).
	RequestPeak = 64 << 20
	// DecodeMemory is what kwire serve lets its decodes use at once.
	DecodeMemory = 512 << 20
)

// DefaultRunning is how many decodes run at once by default: one per core
// the Go scheduler uses, since a decode is CPU-bound and more at once only
// adds latency and memory, and never more than DecodeMemory/RequestPeak
// (8), so that the running decodes stay within DecodeMemory on a machine
// with many cores.
func DefaultRunning() int {
	n := runtime.GOMAXPROCS(0)
	if m := DecodeMemory / RequestPeak; n > m {
		n = m
	}
	return n
}

// Defaults for the requests that wait for a slot: 16 per slot, each at
// most two seconds. The slowest accepted decode takes about 100 ms of CPU
// here, so a slot clears 16 waiting well within the wait; a waiting
// request holds its body (at most MaxBody) but no decoding memory.
const (
	DefaultWaitingPerSlot = 16
	DefaultWait           = 2 * time.Second
	// RetryAfter is the Retry-After of a 503, in seconds.
	RetryAfter = 1
)

// DefaultLimiter is NewLimiter(DefaultRunning(), DefaultWaitingPerSlot*
// DefaultRunning(), DefaultWait).
func DefaultLimiter() *Limiter {
	n := DefaultRunning()
	return NewLimiter(n, DefaultWaitingPerSlot*n, DefaultWait)
}

// Running is the number of slots: decodes or encodes that may run at once.
func (l *Limiter) Running() int { return cap(l.slots) }

// Acquire takes a slot, waiting for one if the limiter allows, and reports
// whether it got one; a caller that got one calls Release when done.
// It gives up when ctx ends.
func (l *Limiter) Acquire(ctx context.Context) bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	if l.waiting.Add(1) > l.maxWaiting {
		l.waiting.Add(-1)
		return false
	}
	defer l.waiting.Add(-1)
	if l.onWait != nil {
		l.onWait()
	}
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// Release gives back a slot taken by Acquire.
func (l *Limiter) Release() { <-l.slots }

// busy answers 503: every slot is taken and no wait is left.
func (h *handler) busy(w http.ResponseWriter) {
	n := strconv.Itoa(h.lim.Running())
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
	writeError(w, http.StatusServiceUnavailable, &Error{Message: "the server is busy: " + n + " decodes or encodes are running and others wait; retry after " +
		strconv.Itoa(RetryAfter) + " s", Expected: "at most " + n + " at once", Found: "more"})
}
