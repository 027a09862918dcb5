package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// sseEvent is one parsed Server-Sent Event.
type sseEvent struct{ event, id, data string }

func readEvents(t *testing.T, r *bufio.Reader, n int) []sseEvent {
	t.Helper()
	var out []sseEvent
	var ev sseEvent
	for len(out) < n {
		line, err := r.ReadString('\n')
		require.NoError(t, err)
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.event != "" || ev.data != "" {
				out = append(out, ev)
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			ev.event = line[7:]
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "data: "):
			ev.data = line[6:]
		}
	}
	return out
}

func TestFeedEvents(t *testing.T) {
	f := &Feed{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	require.Eventually(t, func() bool { return f.Subscribers() == 1 }, 5*time.Second, time.Millisecond)
	f.Publish(f.AppendEvent(nil, []byte(`{"apiName":"Metadata"}`), []byte{0, 0, 0, 1, 7}, nil))
	f.Publish(f.AppendEvent(nil, []byte(`{"apiName":"Produce"}`), []byte{1}, []byte{2, 3}))
	evs := readEvents(t, bufio.NewReader(resp.Body), 2)
	require.Equal(t, sseEvent{"exchange", "1", `{"exchange":{"apiName":"Metadata"},"request":"AAAAAQc="}`}, evs[0])
	require.Equal(t, sseEvent{"exchange", "2", `{"exchange":{"apiName":"Produce"},"request":"AQ==","response":"AgM="}`}, evs[1])
	for _, e := range evs {
		require.True(t, json.Valid([]byte(e.data)))
	}
	cancel()
	require.Eventually(t, func() bool { return f.Subscribers() == 0 }, 5*time.Second, time.Millisecond)
}

// gateWriter is a ResponseWriter whose writes wait for the gate: a page
// that reads slowly.
type gateWriter struct {
	h       http.Header
	gate    chan struct{}
	blocked chan struct{}
	once    sync.Once
	mu      sync.Mutex
	body    strings.Builder
}

func (g *gateWriter) Header() http.Header { return g.h }
func (g *gateWriter) WriteHeader(int)     {}
func (g *gateWriter) Flush()              {}
func (g *gateWriter) Write(b []byte) (int, error) {
	if strings.HasPrefix(string(b), "event: exchange") {
		g.once.Do(func() { close(g.blocked) })
		<-g.gate
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.body.Write(b)
}

// TestFeedSlowPage: a page that does not keep up misses events instead of
// holding anything up, and is told how many it missed.
func TestFeedSlowPage(t *testing.T) {
	f := &Feed{QueueLen: 2}
	w := &gateWriter{h: http.Header{}, gate: make(chan struct{}), blocked: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequest("GET", "/", nil).WithContext(ctx)
	done := make(chan struct{})
	go func() { f.ServeHTTP(w, req); close(done) }()
	require.Eventually(t, func() bool { return f.Subscribers() == 1 }, 5*time.Second, time.Millisecond)
	ev := func(i int) []byte { return f.AppendEvent(nil, []byte(`{"n":`+string(rune('0'+i))+`}`), nil, nil) }
	f.Publish(ev(0))
	<-w.blocked // the page is stuck on event 0
	for i := 1; i <= 9; i++ {
		f.Publish(ev(i)) // 1 and 2 wait; 3 to 9 are dropped, without blocking
	}
	close(w.gate)
	has := func(s string) func() bool {
		return func() bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			return strings.Contains(w.body.String(), s)
		}
	}
	require.Eventually(t, has(`"n":2`), 5*time.Second, time.Millisecond)
	f.Publish(ev(9))
	require.Eventually(t, has(`"n":9`), 5*time.Second, time.Millisecond)
	cancel()
	<-done
	body := w.body.String()
	require.Contains(t, body, `{"exchange":{"n":0}}`)
	require.Contains(t, body, `{"exchange":{"n":1}}`)
	require.Contains(t, body, `{"exchange":{"n":2}}`)
	require.NotContains(t, body, `"n":5`)
	require.Contains(t, body, "event: skipped\ndata: {\"skipped\":7}\n\n")
}
