//go:build !js

package api_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/internal/hostile"
)

// The hostile corpus (testdata/hostile, see its MANIFEST) posted to the
// API handler in-process, with the limits kwire serve and the Worker use
// (api.Options{}). Each entry is posted in a child process of this test
// binary (capped at 4 GiB of address space, so a handler gone wrong takes
// down only the child), which reports runtime.MemStats' TotalAlloc over
// the request, the largest live heap a collection saw, and the resident
// set. The contract (issue 11): any API request in under 64 MiB.
const (
	// hostileAPILive bounds the live heap one request may hold.
	hostileAPILive = 64 << 20
	// hostileAPIRSS bounds the growth of the resident set: the live bound
	// and the collector's headroom (GOGC=100 lets the heap reach twice
	// what is live before it collects).
	hostileAPIRSS = 2 * hostileAPILive
	// hostileAPIAlloc bounds all a request allocates, garbage included:
	// the work one request may do is bounded too.
	hostileAPIAlloc = 256 << 20
)

func TestHostileAPI(t *testing.T) {
	if e, ok := hostile.ChildEntry(); ok {
		hostileAPIChild(e)
		return
	}
	for _, e := range hostile.Frames() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			r, u, ok := hostile.RunChild(t, "TestHostileAPI", e)
			if !ok {
				return
			}
			if r.Skip != "" {
				t.Fatal(r.Skip)
			}
			t.Logf("status %d; %s; RSS %s -> %s, live heap +%s, allocated %s", r.Status, u, hostile.MiB(r.RSSBefore), hostile.MiB(r.HWM),
				hostile.MiB(int64(r.PeakLive)), hostile.MiB(int64(r.TotalAlloc)))
			if r.Status != e.WantStatus() {
				t.Errorf("status %d, want %d (%s)", r.Status, e.WantStatus(), r.ErrText)
			}
			for _, p := range e.Check(r.Outcome) {
				t.Error(p)
			}
			if r.PeakLive > hostileAPILive {
				t.Errorf("a collection saw %s live; the bound is %s", hostile.MiB(int64(r.PeakLive)), hostile.MiB(hostileAPILive))
			}
			if grew := r.HWM - r.RSSBefore; grew > hostileAPIRSS {
				t.Errorf("the request grew the resident set by %s; the bound is %s", hostile.MiB(grew), hostile.MiB(hostileAPIRSS))
			}
			if r.TotalAlloc > hostileAPIAlloc {
				t.Errorf("the request allocated %s; the bound is %s", hostile.MiB(int64(r.TotalAlloc)), hostile.MiB(hostileAPIAlloc))
			}
		})
	}
}

func hostileAPIChild(e hostile.Entry) {
	var r hostile.Report
	b, err := hostile.Load(e)
	if err != nil {
		r.Skip = err.Error()
		hostile.WriteReport(r)
		return
	}
	h := api.New(api.Options{})
	req := httptest.NewRequest(http.MethodPost, "/api/decode?"+e.Query(), bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/octet-stream")
	rec := httptest.NewRecorder()
	hostile.Measure(&r, func() { h.ServeHTTP(rec, req) })
	r.Status = rec.Code
	o, err := e.APIOutcome(rec.Code, rec.Header().Get("Kwire-Guess"), rec.Body)
	if err != nil {
		o.Err, o.ErrText = true, err.Error()
	}
	r.Outcome = o
	hostile.WriteReport(r)
}
