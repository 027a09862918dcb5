package sortfunc

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCaptureWasmLinksNoTimeFormatter: capture.wasm, built as make wasm
// builds it, does not link time's layout formatter (Time.appendFormat,
// behind Time.Format and Time.String) or Duration.String's, some 20 KB
// gzip that nothing in the browser calls. A sort.Slice or a generic
// slices sort of things that hold a time.Time, an interface method
// with one in its signature, or a *gzip.Reader in an interface brings
// them back; the linker's chain to the first says which (go build
// -ldflags=-dumpdep prints every edge).
func TestCaptureWasmLinksNoTimeFormatter(t *testing.T) {
	deps := dumpdep(t, "./wasm/capture", "kwire_hostinflate")
	for _, sym := range []string{"time.Time.appendFormat", "time.Duration.format"} {
		if chain := deps.chain(sym); chain != nil {
			t.Errorf("capture.wasm links %s, through:\n\t%s", sym, strings.Join(chain, "\n\t"))
		}
	}
}

// deps is the linker's reachability edges: each symbol reached, and what
// reached it first.
type deps map[string]string

// dumpdep builds pkg for js/wasm with tags and returns its edges.
func dumpdep(t *testing.T, pkg, tags string) deps {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cmd := exec.Command("go", "build", "-trimpath", "-tags", tags, "-ldflags=-dumpdep", "-o", os.DevNull, pkg)
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
