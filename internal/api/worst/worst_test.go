package worst

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/api"
	"github.com/stretchr/testify/require"
)

// childEnv names the case a re-run of this test binary serves (see
// TestMain): route, query, content type and body file, tab-separated.
const childEnv = "KWIRE_WORST_CASE"

// TestMain runs as the child of TestPeakMemory when childEnv is set: it
// serves that one request with kwire serve's limits, its answer thrown
// away as a server's socket would take it, and prints the status and the
// answer's size.
func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(serveOne(spec))
	}
	os.Exit(m.Run())
}

type discard struct {
	h      http.Header
	status int
	n      int
}

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) WriteHeader(s int)           { d.status = s }
func (d *discard) Write(b []byte) (int, error) { d.n += len(b); return len(b), nil }

func serveOne(spec string) int {
	f := strings.Split(spec, "\t")
	body, err := os.ReadFile(f[3])
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	req := httptest.NewRequest(http.MethodPost, f[0]+f[1], bytes.NewReader(body))
	req.Header.Set("Content-Type", f[2])
	w := &discard{h: http.Header{}}
	api.New(api.Options{}).ServeHTTP(w, req)
	hwm, err := PeakRSS(os.Getpid())
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	os.Stdout.WriteString(strconv.Itoa(w.status) + " " + strconv.Itoa(w.n) + " " + strconv.FormatInt(hwm, 10) + "\n")
	return 0
}

// Every worst case, served alone in a fresh process (whose peak RSS is
// read from /proc: a child's rusage counts the parent's memory at the fork) with kwire serve's
// limits, is answered 200 and keeps the process's peak RSS within
// api.RequestPeak, the memory api.DefaultRunning counts per decode.
func TestPeakMemory(t *testing.T) {
	cs, err := Cases(LimitsOf(api.Options{}))
	require.NoError(t, err)
	dir := t.TempDir()
	for _, c := range cs {
		file := filepath.Join(dir, c.Name)
		require.NoError(t, os.WriteFile(file, c.Body, 0o644))
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{c.Route, c.Query, c.ContentType, file}, "\t"))
		out, err := cmd.Output()
		require.NoError(t, err, c.Name)
		f := strings.Fields(string(out))
		require.Len(t, f, 3, c.Name)
		require.Equal(t, "200", f[0], c.Name)
		rss := int64(atoi(f[2]))
		t.Logf("%-42s peak RSS %3d MiB, answer %5d KiB (%s)", c.Name, rss>>20, atoi(f[1])>>10, c.What)
		require.LessOrEqual(t, rss, int64(api.RequestPeak), c.Name)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
