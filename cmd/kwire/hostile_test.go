package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/hostile"
)

// The hostile corpus (testdata/hostile, see its MANIFEST) through the
// built binary: kwire decode for frames, kwire pcap for captures, and
// kwire serve under 32 concurrent clients. Every run is capped (4 GiB of
// address space, 120 s of CPU) so a decoder gone wrong dies alone; the
// assertions are kwire's peak resident set from its rusage (read through
// testdata/maxrss: see hostileCommand) and what the user is told (BRIEF contracts: "kwire: warning:" lines, errors with
// path, exit 0 for a well-formed frame, --strict exits 1 on a warning).

// hostileCLIPeak is the contract for one command (issue 11): any frame up
// to 1 MiB decodes in under 256 MiB.
const hostileCLIPeak = 256 << 20

// hostileServePeak bounds kwire serve's peak resident set while 32
// clients post the corpus at once. Each request may take up to 64 MiB
// (issue 11); the bound allows a cap of about 15 concurrent decodes.
const hostileServePeak = 1 << 30

// hostileStderrCap bounds the standard error kept of one run.
const hostileStderrCap = 16 << 20

// cappedBuffer keeps the first n bytes written to it.
type cappedBuffer struct {
	bytes.Buffer
	n int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.n - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// hostileRun runs kwire under hostile.Limited, streaming standard output
// into out.
func hostileRun(t *testing.T, out io.Writer, args ...string) (stderr []byte, u hostile.Usage) {
	t.Helper()
	cmd, usage := hostileCommand(t, context.Background(), args...)
	cmd.Dir = workDir
	errb := &cappedBuffer{n: hostileStderrCap}
	cmd.Stdout, cmd.Stderr = out, errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running kwire: %v", err)
	}
	return errb.Bytes(), usage()
}

// hostileCommand is kwire with args under hostile.Limited, started
// through the maxrss helper (testdata/maxrss), and how kwire fared, to
// read once the command has finished. Started straight from the test
// process, kwire would report the test's own peak resident set as its
// peak: Go starts children with vfork, and Linux carries the parent's
// peak into the child's ru_maxrss (a full go test run grows this process
// past 200 MiB, and every entry then read the same). The helper is small,
// so its child's peak is kwire's; it passes SIGTERM on.
func hostileCommand(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, func() hostile.Usage) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "usage")
	limited := hostile.Command(ctx, hostile.Limited, kwireBin, args...)
	cmd := exec.CommandContext(ctx, maxrssHelper(t), append([]string{"-report", report}, limited.Args...)...)
	return cmd, func() hostile.Usage {
		t.Helper()
		u := hostile.UsageOf(cmd.ProcessState) // the helper's: its peak is this process's
		b, err := os.ReadFile(report)
		if err != nil {
			t.Errorf("the maxrss helper left no usage (%v): %v", u, err)
			u.MaxRSS = 0
			return u
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, v, _ := strings.Cut(line, " ")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "maxrss":
				u.MaxRSS = n << 10 // KiB
			case "exit":
				u.Exit = int(n)
			case "signal":
				u.Signal = v
			case "cpu":
				u.CPU = time.Duration(n)
			}
		}
		return u
	}
}

// TestHostileUsageIsKwiresOwn: the peak resident set the hostile tests
// bound is kwire's own, however large the test process has grown before
// it starts kwire.
func TestHostileUsageIsKwiresOwn(t *testing.T) {
	grown := make([]byte, 256<<20)
	for i := 0; i < len(grown); i += 4096 {
		grown[i] = 1
	}
	runtime.KeepAlive(grown)
	for _, args := range [][]string{{"apis"}, {"decode", "--format", "ndjson", "--input", "binary", "--request", filepath.Join(hostile.Dir(), "bomb-gzip-batch.bin")}} {
		_, u := hostileRun(t, io.Discard, args...)
		t.Logf("kwire %s: %v", strings.Join(args, " "), u)
		if u.Exit != 0 || u.MaxRSS == 0 || u.MaxRSS > 128<<20 {
			t.Errorf("kwire %s: %v; the test process holds 256 MiB, kwire's own peak is far less", strings.Join(args, " "), u)
		}
	}
}

func TestHostileDecode(t *testing.T) {
	for _, e := range hostile.Frames() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(hostile.Dir(), e.File())
			args := append(append([]string{"decode", "--format", "ndjson"}, e.CLIArgs()...), file)
			scan := &hostile.JSONScan{CountKey: e.Expect.CountKey, Want: e.Expect.Warning}
			stderr, u := hostileRun(t, scan, args...)
			t.Logf("kwire %s: %v", strings.Join(args, " "), u)
			var o hostile.Outcome
			hostile.ParseStderr(stderr, &o, e.Expect.Warning)
			o.Counted = scan.Counted
			o.Payloads = true // kwire decode reads record payloads by default
			for _, p := range e.Check(o) {
				t.Error(p)
			}
			want := 0
			if e.Expect.ErrPath != "" {
				want = 1
			}
			if u.Exit != want {
				t.Errorf("%v; want exit status %d: %s", u, want, hostileHead(stderr))
			}
			if u.MaxRSS > hostileCLIPeak {
				t.Errorf("peak RSS %s; the bound is %s", hostile.MiB(u.MaxRSS), hostile.MiB(hostileCLIPeak))
			}
			if !hostileStrict(e) {
				return
			}
			strict := append([]string{"decode", "--strict", "--format", "ndjson"}, append(e.CLIArgs(), file)...)
			stderr, u = hostileRun(t, io.Discard, strict...)
			if u.Exit != 1 {
				t.Errorf("kwire %s: %v; want exit status 1 for a frame with warnings: %s", strings.Join(strict, " "), u, hostileHead(stderr))
			}
		})
	}
}

// hostileStrict says which entries also run with --strict: those whose
// warnings are cheap to reach (bombs cut by MaxDecompressed, non-minimal
// varints, declared counts), so the second run costs little.
func hostileStrict(e hostile.Entry) bool {
	x := e.Expect
	return x.ErrPath == "" && !x.Clean && x.Count == 0 && (x.Limit == "MaxDecompressed" || x.Warning != "" && !strings.Contains(e.Name, "flood"))
}

func hostileHead(b []byte) string {
	lines := strings.SplitN(string(b[:min(len(b), 2000)]), "\n", 4)
	return strings.Join(lines[:min(len(lines), 3)], " | ")
}

func TestHostilePcap(t *testing.T) {
	for _, e := range hostile.Captures() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			var out cappedBuffer
			out.n = hostileStderrCap
			stderr, u := hostileRun(t, &out, "pcap", filepath.Join(hostile.Dir(), e.File()))
			t.Logf("kwire pcap %s: %v", e.File(), u)
			o := hostile.Outcome{Exit: u.Exit, Text: out.String() + "\n" + string(stderr)}
			if u.Signal != "" {
				o.Exit = 128 + 9
			}
			for _, p := range e.Check(o) {
				t.Error(p)
			}
			if u.MaxRSS > hostileCLIPeak {
				t.Errorf("peak RSS %s; the bound is %s", hostile.MiB(u.MaxRSS), hostile.MiB(hostileCLIPeak))
			}
		})
	}
}

// hostileHeavy says which entries every one of the 32 clients posts: those
// that cost much to decode (floods, bombs, guessing); each client posts
// its share of the others.
func hostileHeavy(e hostile.Entry, size int) bool {
	x := e.Expect
	return size > 1024 || x.Count > 2 || x.Limit != "" || x.Guessed
}

type hostileAnswer struct {
	entry  hostile.Entry
	status int
	retry  string
	bad    []string
	err    error
}

// hostilePost posts an entry to /api/decode and checks the answer.
func hostilePost(c *http.Client, base string, e hostile.Entry, body []byte) hostileAnswer {
	a := hostileAnswer{entry: e}
	req, err := http.NewRequest(http.MethodPost, base+"/api/decode?"+e.Query(), bytes.NewReader(body))
	if err != nil {
		a.err = err
		return a
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.Do(req)
	if err != nil {
		a.err = err
		return a
	}
	defer resp.Body.Close()
	a.status, a.retry = resp.StatusCode, resp.Header.Get("Retry-After")
	if a.status == http.StatusServiceUnavailable {
		io.Copy(io.Discard, resp.Body)
		return a
	}
	if a.status != e.WantStatus() {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		a.bad = append(a.bad, "status "+strconv.Itoa(a.status)+", want "+strconv.Itoa(e.WantStatus())+": "+string(b))
		return a
	}
	o, err := e.APIOutcome(a.status, resp.Header.Get("Kwire-Guess"), resp.Body)
	if err != nil {
		a.err = err
		return a
	}
	a.bad = e.Check(o)
	return a
}

// TestHostileServe posts the corpus to kwire serve from 32 clients at
// once: every heavy entry from every client, the light ones shared out.
// The server must answer each with its status (or 503 with Retry-After
// when it is full), never drop a connection, answer every entry again
// once the crowd has gone, and stay under hostileServePeak.
func TestHostileServe(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>kwire</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, usage := hostileCommand(t, ctx, "serve", "--dir", dir, "--addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var base string
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), " at "); ok && strings.HasPrefix(url, "http://") {
			base = strings.TrimSuffix(url, "/")
			break
		}
	}
	if base == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("kwire serve did not say where it listens")
	}
	var serverLog cappedBuffer
	serverLog.n = 1 << 20
	logDone := make(chan struct{})
	go func() { io.Copy(&serverLog, stderr); close(logDone) }()

	frames := hostile.Frames()
	bodies := make([][]byte, len(frames))
	for i, e := range frames {
		if bodies[i], err = hostile.Load(e); err != nil {
			t.Fatal(err)
		}
	}
	// A generous client timeout keeps a hung server from hanging the
	// test; it asserts nothing about speed.
	client := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	var mu sync.Mutex
	var answers []hostileAnswer
	var wg sync.WaitGroup
	for c := 0; c < 32; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range frames {
				i := (k + c) % len(frames) // each client starts elsewhere
				if !hostileHeavy(frames[i], len(bodies[i])) && i%32 != c {
					continue
				}
				a := hostilePost(client, base, frames[i], bodies[i])
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	statuses := map[int]int{}
	failures := 0
	for _, a := range answers {
		switch {
		case a.err != nil:
			failures++
			statuses[-1]++
			if failures <= 10 {
				t.Errorf("%s: %v", a.entry.Name, a.err)
			}
		case a.status == http.StatusServiceUnavailable:
			statuses[a.status]++
			if _, err := strconv.Atoi(a.retry); err != nil {
				t.Errorf("%s: 503 with Retry-After %q, want seconds", a.entry.Name, a.retry)
			}
		default:
			statuses[a.status]++
			for _, p := range a.bad {
				failures++
				if failures <= 10 {
					t.Errorf("%s (32 clients): %s", a.entry.Name, p)
				}
			}
		}
	}
	t.Logf("32 clients, %d requests: statuses %v (-1: no answer)", len(answers), statuses)
	// The crowd has gone: every entry is answered in full.
	for i, e := range frames {
		a := hostilePost(client, base, e, bodies[i])
		if a.err != nil {
			t.Errorf("%s (alone): %v", e.Name, a.err)
			break // the server is gone; the rest would say the same
		}
		switch {
		case a.status == http.StatusServiceUnavailable:
			t.Errorf("%s (alone): 503 with no other request in flight", e.Name)
		}
		for _, p := range a.bad {
			t.Errorf("%s (alone): %s", e.Name, p)
		}
	}
	// A server still alive stops cleanly on SIGTERM (exit 0); one that
	// died under the load (out of memory, a limit) shows it in its status.
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	<-logDone
	u := usage()
	t.Logf("kwire serve: %v", u)
	if u.Exit != 0 || u.Signal != "" {
		t.Errorf("kwire serve died under the corpus (%v): %s", u, hostileHead(serverLog.Bytes()))
	}
	if u.MaxRSS > hostileServePeak {
		t.Errorf("kwire serve peaked at %s; the bound is %s", hostile.MiB(u.MaxRSS), hostile.MiB(hostileServePeak))
	}
}

// TestWarnLinesShowLimits: kwire decode (batch, pcap, proxy) prints the first maxWarnLines
// warnings, and after them still every one that says a limit cut decoding
// short. The corpus's KRaft tag flood hid its MaxNodes warning behind
// 200,000 unknown tags.
func TestWarnLinesShowLimits(t *testing.T) {
	ws := make([]codec.Warning, 3*maxWarnLines)
	for i := range ws {
		ws[i] = codec.Warning{Offset: i, Path: "body", Message: "unknown tag 0"}
	}
	ws[2*maxWarnLines] = codec.Warning{Offset: 7, Path: "body.x", Message: "records from byte 7 not decoded: the MaxNodes limit (9 nodes) is reached", Limit: true}
	b := bytes.NewBuffer(appendDiagnostics(nil, "", nil, ws))
	var o hostile.Outcome
	hostile.ParseStderr(b.Bytes(), &o, "")
	if o.WarningCount != maxWarnLines+1 {
		t.Errorf("%d warnings printed, want %d (the first ones and the limit)", o.WarningCount, maxWarnLines+1)
	}
	e := hostile.Entry{Name: "x.bin", Mode: hostile.Request, Expect: hostile.Expect{Limit: "MaxNodes"}}
	if bad := e.Check(o); len(bad) != 0 {
		t.Error(bad)
	}
	if !strings.Contains(b.String(), "kwire: warning: 1999 more warnings not shown") {
		t.Errorf("no count of the rest: %s", hostileHead(b.Bytes()[b.Len()-200:]))
	}
}
