//go:build !js

// Command measure runs a kwire binary over the hostile corpus and prints,
// for each entry, the peak resident set and wall time of kwire decode (or
// kwire pcap for captures), each run capped at 4 GiB of address space and
// 60 s; with -serve, also 32 concurrent clients posting the corpus to
// kwire serve (status codes, the server's peak resident set). The tables
// are the "before" and "after" columns of testdata/hostile/README.md.
//
// Usage:
//
//	go build -o /tmp/kwire ./cmd/kwire
//	go run ./internal/hostile/measure -kwire /tmp/kwire [-serve] [-run REGEXP]
//
// Times are wall-clock on whatever machine runs it: noisy, and for the
// note only; tests assert memory, never time.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kwire/kwire/internal/hostile"
)

func main() {
	bin := flag.String("kwire", "", "the kwire binary to measure")
	serve := flag.Bool("serve", false, "also post the corpus to kwire serve from 32 clients")
	only := flag.String("run", "", "measure only the entries whose names match `REGEXP`")
	timeout := flag.Duration("timeout", 60*time.Second, "stop each run after this long")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "measure: -kwire is required")
		os.Exit(2)
	}
	re := regexp.MustCompile(*only)
	limits := hostile.ProcLimits{AddressSpace: 4 << 30, CPUSeconds: int(timeout.Seconds())}
	fmt.Println("| entry | bytes | peak RSS | wall | result |")
	fmt.Println("|---|---:|---:|---:|---|")
	for _, e := range hostile.Entries() {
		if !re.MatchString(e.Name) {
			continue
		}
		file := filepath.Join(hostile.Dir(), e.File())
		st, err := os.Stat(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "measure:", err)
			os.Exit(1)
		}
		args := append(append([]string{"decode", "--format", "ndjson"}, e.CLIArgs()...), file)
		if e.Mode == hostile.Pcap {
			args = []string{"pcap", file}
		}
		if e.Mode == hostile.Storage {
			args = []string{"log", file}
		}
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		cmd := hostile.Command(ctx, limits, *bin, args...)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &limited{&errb, 1 << 20}
		start := time.Now()
		cmd.Run()
		wall := time.Since(start)
		timedOut := ctx.Err() != nil
		cancel()
		u := hostile.UsageOf(cmd.ProcessState)
		fmt.Printf("| %s | %d | %s | %.2f s | %s |\n", e.Name, st.Size(), hostile.MiB(u.MaxRSS), wall.Seconds(), result(u, timedOut, errb.String()))
	}
	if *serve {
		serveRun(*bin, limits)
	}
}

type limited struct {
	b *bytes.Buffer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// result says in a few words how a run ended and what it said.
func result(u hostile.Usage, timedOut bool, stderr string) string {
	first := ""
	for _, line := range strings.Split(stderr, "\n") {
		if strings.TrimSpace(line) != "" {
			first = line
			break
		}
	}
	switch {
	case timedOut || u.Signal == "killed" || u.Signal == "CPU time limit exceeded":
		return "killed at the time limit"
	case strings.Contains(stderr, "out of memory"):
		return "died: out of memory (exit " + strconv.Itoa(u.Exit) + ")"
	case strings.Contains(stderr, "panic:"):
		return "panic: " + short(strings.TrimPrefix(first, "panic: "), 70)
	case u.Signal != "":
		return "killed by " + u.Signal
	}
	warn := strings.Count(stderr, "kwire: warning:")
	s := "exit " + strconv.Itoa(u.Exit)
	if warn > 0 {
		s += ", " + strconv.Itoa(warn) + " warnings"
	}
	if first == "" {
		return s + ", nothing on stderr"
	}
	return s + ": " + short(first, 90)
}

func short(s string, n int) string {
	s = strings.ReplaceAll(s, "|", "/")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// serveRun posts the corpus from 32 clients to kwire serve: every client
// posts every costly entry (bombs, floods, guessing) and its share of the
// others, as TestHostileServe does.
func serveRun(bin string, limits hostile.ProcLimits) {
	dir, err := os.MkdirTemp("", "kwire-measure")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html>"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := hostile.Command(ctx, limits, bin, "serve", "--dir", dir, "--addr", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(stderr)
	base := ""
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), " at "); ok {
			base = strings.TrimSuffix(url, "/")
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	frames := hostile.Frames()
	bodies := make([][]byte, len(frames))
	for i, e := range frames {
		bodies[i], _ = hostile.Load(e)
	}
	heavy := func(i int) bool {
		x := frames[i].Expect
		return len(bodies[i]) > 1024 || x.Count > 2 || x.Limit != "" || x.Guessed
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	var mu sync.Mutex
	statuses := map[string]int{}
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < 32; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range frames {
				i := (k + c) % len(frames)
				if !heavy(i) && i%32 != c {
					continue
				}
				req, _ := http.NewRequest(http.MethodPost, base+"/api/decode?"+frames[i].Query(), bytes.NewReader(bodies[i]))
				req.Header.Set("Content-Type", "application/octet-stream")
				key := ""
				resp, err := client.Do(req)
				if err != nil {
					key = "no answer"
				} else {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					key = strconv.Itoa(resp.StatusCode)
				}
				mu.Lock()
				statuses[key]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	u := hostile.UsageOf(cmd.ProcessState)
	var keys []string
	for k := range statuses {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" ×"+strconv.Itoa(statuses[k]))
	}
	fmt.Printf("\nkwire serve, 32 clients: %s in %.1f s; server %s (exit 0 after SIGTERM means it lived)\n", strings.Join(parts, ", "), wall.Seconds(), u)
}
