package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// busyAnswer checks a 503: Retry-After and the error shape.
func busyAnswer(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	require.Equal(t, http.StatusServiceUnavailable, w.Code, w.Body.String())
	require.Equal(t, "1", w.Header().Get("Retry-After"))
	require.Contains(t, errorBody(t, w)["error"], "busy")
}

// With every slot taken and no room to wait, decode and encode answer 503
// with Retry-After; the cheap routes and bad requests are not limited.
func TestLimiterFull(t *testing.T) {
	lim := NewLimiter(1, 0, 0)
	h := New(Options{Limiter: lim})
	require.True(t, lim.Acquire(context.Background()))
	busyAnswer(t, do(t, h, "POST", "/api/decode", "", []byte(apiVersionsV3)))
	busyAnswer(t, do(t, h, "POST", "/api/encode", "application/json", []byte(`{}`)))
	require.Equal(t, http.StatusOK, do(t, h, "GET", "/api/apis", "", nil).Code)
	require.Equal(t, http.StatusBadRequest, do(t, h, "POST", "/api/decode?format=x", "", []byte(apiVersionsV3)).Code)
	require.Equal(t, http.StatusBadRequest, do(t, h, "POST", "/api/decode", "", nil).Code)
	lim.Release()
	jsonBody(t, do(t, h, "POST", "/api/decode", "", []byte(apiVersionsV3)))
	// Every request gave its slot back: both are free again.
	require.True(t, lim.Acquire(context.Background()))
	lim.Release()
}

// A request that finds the slots busy waits for one while fewer than the
// waiting bound wait; beyond that bound it gets 503 at once.
func TestLimiterWaits(t *testing.T) {
	lim := NewLimiter(1, 1, time.Hour)
	waiting := make(chan struct{}, 1)
	lim.onWait = func() { waiting <- struct{}{} }
	h := New(Options{Limiter: lim})
	require.True(t, lim.Acquire(context.Background()))

	var wg sync.WaitGroup
	var first *httptest.ResponseRecorder
	wg.Add(1)
	go func() {
		defer wg.Done()
		first = do(t, h, "POST", "/api/decode", "", []byte(apiVersionsV3))
	}()
	<-waiting
	// The one waiting place is taken: the next is refused without waiting.
	busyAnswer(t, do(t, h, "POST", "/api/decode", "", []byte(apiVersionsV3)))
	lim.Release()
	wg.Wait()
	jsonBody(t, first)
}

// A wait ends with 503 when its time is up, or when the client goes away.
func TestLimiterWaitEnds(t *testing.T) {
	lim := NewLimiter(1, 4, time.Millisecond)
	h := New(Options{Limiter: lim})
	require.True(t, lim.Acquire(context.Background()))
	defer lim.Release()
	busyAnswer(t, do(t, h, "POST", "/api/decode", "", []byte(apiVersionsV3)))

	lim = NewLimiter(1, 4, time.Hour)
	h = New(Options{Limiter: lim})
	require.True(t, lim.Acquire(context.Background()))
	defer lim.Release()
	ctx, cancel := context.WithCancel(context.Background())
	lim.onWait = cancel
	req := httptest.NewRequest("POST", "/api/decode", strings.NewReader(apiVersionsV3)).WithContext(ctx)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	busyAnswer(t, w)
}

func TestDefaultLimiter(t *testing.T) {
	n := DefaultRunning()
	require.GreaterOrEqual(t, n, 1)
	require.LessOrEqual(t, n, DecodeMemory/RequestPeak)
	l := DefaultLimiter()
	require.Equal(t, n, l.Running())
	require.EqualValues(t, DefaultWaitingPerSlot*n, l.maxWaiting)
	require.Equal(t, 1, NewLimiter(0, -1, 0).Running())
}
