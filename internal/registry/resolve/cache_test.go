package resolve

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRegistryKeepsBounded: a registry asked for ever more ids keeps at
// most maxKept answers, and an id it has no schema for is asked again
// once negativeTTL has passed, not remembered for the process's life.
func TestRegistryKeepsBounded(t *testing.T) {
	f := &fake{answers: map[string]struct {
		status int
		body   string
	}{}}
	for i := 1; i <= 10; i++ {
		f.answers["schemas/ids/"+strconv.Itoa(i)] = struct {
			status int
			body   string
		}{200, `{"schema":"` + strings.Repeat("x", 3<<20) + `"}`}
	}
	r := NewRegistry("http://registry/", f.get)
	now := time.Unix(1e9, 0)
	r.ids.now = func() time.Time { return now }
	for id := 1; id <= 4*maxKept; id++ {
		r.SchemaByID(id)
	}
	if n := len(r.ids.m); n > maxKept {
		t.Fatalf("%d answers kept, more than %d", n, maxKept)
	}
	if r.ids.bytes > maxKeptBytes {
		t.Fatalf("%d bytes of schemas kept, more than %d", r.ids.bytes, maxKeptBytes)
	}

	id := 4*maxKept + 1
	r.SchemaByID(id)
	calls := f.calls
	r.SchemaByID(id)
	if f.calls != calls {
		t.Fatalf("a 404 asked again at once")
	}
	now = now.Add(negativeTTL)
	r.SchemaByID(id)
	if f.calls != calls+1 {
		t.Fatalf("a 404 not asked again after %v", negativeTTL)
	}
}

// TestRegistryKeepsWhatItJustAsked: with the cache full, each id asked is
// kept at least until it is asked again: trim evicted any entry, the one
// it was making among them (one time in maxKept+1), and that 404 was
// asked of the registry again at once (TestRegistryKeepsBounded failed
// so now and then).
func TestRegistryKeepsWhatItJustAsked(t *testing.T) {
	f := &fake{answers: map[string]struct {
		status int
		body   string
	}{}}
	r := NewRegistry("http://registry/", f.get)
	now := time.Unix(1e9, 0)
	r.ids.now = func() time.Time { return now }
	for id := 1; id <= maxKept+8*1024; id++ {
		r.SchemaByID(id)
		calls := f.calls
		r.SchemaByID(id)
		if f.calls != calls {
			t.Fatalf("id %d (a 404), asked again at once, went to the registry again: the cache evicted it as it kept it", id)
		}
		if n := len(r.ids.m); n > maxKept {
			t.Fatalf("%d answers kept, more than %d", n, maxKept)
		}
	}
}
