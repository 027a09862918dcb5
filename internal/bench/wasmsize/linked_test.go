package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The modules, built as make wasm builds them, do not link code that
// the browser never calls and that a change elsewhere brought in whole;
// each symbol below is one that did, with what it cost. A failure prints
// the linker's chain to the symbol (go build -ldflags=-dumpdep prints
// every edge), which says what brought it back.
func TestModulesLinkNothingUnused(t *testing.T) {
	for _, m := range []struct {
		pkg, tags string
		gcflags   string
		absent    map[string]string
	}{
		{"./wasm/capture", "kwire_hostinflate", "", map[string]string{
			// time's layout formatter, behind Time.Format and
			// Time.String, and Duration.String's: some 20 KB gzip.
			// kwire check writes times with codec/internal/timetext; a
			// sort.Slice or a generic slices sort of things that hold a
			// time.Time, an interface method with one in its
			// signature, or a *gzip.Reader in an interface brings them
			// back (internal/sortfunc says why).
			"time.Time.appendFormat": "time's layout formatter",
			"time.Duration.format":   "Duration.String's formatter",
			// tree's path parser and its Protobuf element steps, some
			// 7 KB gzip: kwire check reads what it needs by Get, which
			// is nil-safe, so chains of it need no Lookup.
			"github.com/kwire/kwire/codec/tree.(*Node).Lookup": "tree's Lookup",
		}},
		{"./wasm", "kwire_hostinflate", "-gcflags=github.com/kwire/kwire/...=-l", map[string]string{
			// The html package's init: the table of every named
			// entity, 21 KB gzip; internal/render escapes with
			// html.EscapeString's replacer of its own.
			"html..inittask": "the html package",
		}},
	} {
		deps := dumpdep(t, m.pkg, m.tags, m.gcflags)
		for sym, what := range m.absent {
			if chain := deps.chain(sym); chain != nil {
				t.Errorf("%s links %s (%s), through:\n\t%s", m.pkg, what, sym, strings.Join(chain, "\n\t"))
			}
		}
	}
}

// deps is the linker's reachability edges: each symbol reached, and what
// reached it first.
type deps map[string]string

// dumpdep builds pkg for js/wasm with tags (and gcflags, when not "")
// and returns its edges.
func dumpdep(t *testing.T, pkg, tags, gcflags string) deps {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	args := []string{"build", "-trimpath", "-tags", tags, "-ldflags=-dumpdep", "-o", os.DevNull}
	if gcflags != "" {
		args = append(args, gcflags)
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, errb.Bytes())
	}
	d := deps{}
	for line := range strings.Lines(errb.String()) {
		from, to, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " -> ")
		if !ok {
			continue
		}
		if _, seen := d[to]; !seen {
			d[to] = from
		}
	}
	if len(d) < 1000 {
		t.Fatalf("go build -ldflags=-dumpdep gave %d edges: not the linker's dump\n%s", len(d), errb.Bytes())
	}
	return d
}

// chain is what reaches sym, from the root down to it, or nil when the
// linker did not reach it.
func (d deps) chain(sym string) []string {
	if _, ok := d[sym]; !ok {
		return nil
	}
	chain := []string{sym}
	for s := sym; len(chain) < 100; {
		from, ok := d[s]
		if !ok {
			break
		}
		chain = append([]string{from}, chain...)
		s = from
	}
	return chain
}
