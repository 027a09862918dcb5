// Command startup compares two builds of kwire on what every use pays
// before the first byte is decoded, alternating between them in one run
// on this machine, and prints the ratios:
//
//   - process start: the median wall and CPU time of 20 runs each of
//     `kwire apis` and of `kwire batch` on empty input;
//   - the Cloudflare Worker under `wrangler dev` (workerd, offline, on
//     127.0.0.1): the median and 99th percentile of 200 warm POST
//     /api/decode requests (a 32-byte ApiVersions request), sent to the
//     two Workers in turn.
//
// The builds are the working tree ("after") and a git revision ("before",
// -base, checked out with git archive into a temporary folder), or two
// folders holding checkouts (-before, -after). Each is built here: go
// build ./cmd/kwire and wasm/worker/build.sh. Numbers go in reports, not
// in tests: the machine's load moves them, the ratios less so.
//
// Usage (from the repository root, after cd site && npm ci):
//
//	go run ./internal/bench/startup -base main
//	go run ./internal/bench/startup -before /tmp/old -after . [-runs 20] [-requests 200] [-worker=false]
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The README's ApiVersions v3 request (client "kwire", correlation id 7).
const frameHex = "0000001b001200030000000700056b7769726500066b7769726504312e3000"

func main() {
	base := flag.String("base", "", "git revision to build as the before side (git archive into a temporary folder)")
	beforeDir := flag.String("before", "", "checkout to build as the before side (instead of -base)")
	afterDir := flag.String("after", ".", "checkout to build as the after side")
	runs := flag.Int("runs", 20, "process starts per command and side")
	requests := flag.Int("requests", 200, "warm Worker requests per side")
	worker := flag.Bool("worker", true, "also measure the Worker under wrangler dev")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("startup: ")

	tmp, err := os.MkdirTemp("", "kwire-startup")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	before := *beforeDir
	switch {
	case *base != "" && before == "":
		before = filepath.Join(tmp, "src-before")
		checkout(*base, before)
	case before == "":
		log.Fatal("give -base REV or -before DIR")
	}
	after, _ := filepath.Abs(*afterDir)
	before, _ = filepath.Abs(before)
	sides := []*side{{name: "before", src: before}, {name: "after", src: after}}
	for _, s := range sides {
		s.out = filepath.Join(tmp, s.name)
		s.build(*worker)
	}

	fmt.Printf("process start, median of %d runs, alternating (wall / CPU):\n", *runs)
	for _, args := range [][]string{{"apis"}, {"batch"}} {
		var wall, cpu [2][]time.Duration
		for i := 0; i < *runs; i++ {
			for j, s := range sides {
				w, c := runOnce(filepath.Join(s.out, "kwire"), args)
				wall[j] = append(wall[j], w)
				cpu[j] = append(cpu[j], c)
			}
		}
		label := "kwire " + strings.Join(args, " ")
		if args[0] == "batch" {
			label += " < /dev/null"
		}
		b, a := median(wall[0]), median(wall[1])
		bc, ac := median(cpu[0]), median(cpu[1])
		fmt.Printf("  %-24s before %6.1f ms / %6.1f ms   after %6.1f ms / %6.1f ms   %.2fx faster (%.2fx less CPU)\n",
			label, ms(b), ms(bc), ms(a), ms(ac), ratio(b, a), ratio(bc, ac))
	}
	if !*worker {
		return
	}

	fmt.Printf("\nWorker under wrangler dev, POST /api/decode (%d warm requests each, alternating):\n", *requests)
	var wg sync.WaitGroup
	for _, s := range sides {
		wg.Add(1)
		go func(s *side) {
			defer wg.Done()
			s.wr = startWrangler(after, filepath.Join(tmp, s.name+"-wrangler"), s.workerBuild)
		}(s)
	}
	wg.Wait()
	defer func() {
		for _, s := range sides {
			s.wr.stop()
		}
	}()
	frame, _ := hex.DecodeString(frameHex)
	for _, s := range sides { // warm up: V8 compiles and tiers up
		for i := 0; i < 20; i++ {
			s.wr.decode(frame)
		}
	}
	var lat, cpu [2][]time.Duration
	for i := 0; i < *requests; i++ {
		for j, s := range sides {
			c := workerdCPU(s.wr.cmd.Process.Pid)
			lat[j] = append(lat[j], s.wr.decode(frame))
			cpu[j] = append(cpu[j], workerdCPU(s.wr.cmd.Process.Pid)-c)
		}
	}
	for j, s := range sides {
		fmt.Printf("  %-7s median %6.1f ms, p99 %6.1f ms; workerd CPU per request: median %5.1f ms, p99 %5.1f ms  (app.wasm %s)\n",
			s.name, ms(median(lat[j])), ms(pct(lat[j], 99)), ms(median(cpu[j])), ms(pct(cpu[j], 99)), s.wasmSize)
	}
	// What workerd spends on a request that runs no Go: a static asset.
	var floor []time.Duration
	for i := 0; i < 50; i++ {
		c := workerdCPU(sides[1].wr.cmd.Process.Pid)
		sides[1].wr.get("/")
		floor = append(floor, workerdCPU(sides[1].wr.cmd.Process.Pid)-c)
	}
	fmt.Printf("  (a static asset, no Go: workerd CPU median %.1f ms)\n", ms(median(floor)))
	fmt.Printf("  after vs before: median %.2fx faster, p99 %.2fx; CPU median %.2fx less, p99 %.2fx\n",
		ratio(median(lat[0]), median(lat[1])), ratio(pct(lat[0], 99), pct(lat[1], 99)),
		ratio(median(cpu[0]), median(cpu[1])), ratio(pct(cpu[0], 99), pct(cpu[1], 99)))
}

type side struct {
	name, src, out string
	workerBuild    string
	wasmSize       string
	wr             *wrangler
}

func (s *side) build(worker bool) {
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		log.Fatal(err)
	}
	run(s.src, "go", "build", "-o", filepath.Join(s.out, "kwire"), "./cmd/kwire")
	if !worker {
		return
	}
	s.workerBuild = filepath.Join(s.out, "worker")
	out := run(s.src, "bash", "wasm/worker/build.sh", s.workerBuild)
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "worker: app.wasm ") {
			s.wasmSize = strings.TrimPrefix(strings.SplitN(line, ";", 2)[0], "worker: app.wasm ")
		}
	}
}

// checkout writes the tree of rev into dir (git archive: no worktree, no
// change to the repository).
func checkout(rev, dir string) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	archive := exec.Command("git", "archive", rev)
	untar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		log.Fatal(err)
	}
	untar.Stdin = pipe
	archive.Stderr, untar.Stderr = os.Stderr, os.Stderr
	if err := untar.Start(); err != nil {
		log.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		log.Fatalf("git archive %s: %v", rev, err)
	}
	if err := untar.Wait(); err != nil {
		log.Fatal(err)
	}
}

func run(dir, name string, args ...string) string {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		log.Fatalf("%s %s in %s: %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
	return string(out)
}

// runOnce runs the binary with empty input and its output discarded, and
// returns its wall time and CPU time (user + system).
func runOnce(bin string, args []string) (time.Duration, time.Duration) {
	cmd := exec.Command(bin, args...)
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		log.Fatal(err)
	}
	defer null.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, null, null
	start := time.Now()
	if err := cmd.Run(); err != nil {
		log.Fatalf("%s %v: %v", bin, args, err)
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return wall, time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type wrangler struct {
	url    string
	cmd    *exec.Cmd
	client *http.Client
}

// startWrangler runs wrangler dev (the after side's site/node_modules)
// on the Worker built in build, with a one-file assets folder, offline on
// 127.0.0.1 ports the kernel picks, and waits until it is ready.
func startWrangler(repo, dir, build string) *wrangler {
	assets := filepath.Join(dir, "assets")
	if err := os.MkdirAll(assets, 0o755); err != nil {
		log.Fatal(err)
	}
	os.WriteFile(filepath.Join(assets, "index.html"), []byte("<!doctype html><title>kwire</title>\n"), 0o644)
	cfg := map[string]any{
		"name": "kwire-startup", "main": filepath.Join(build, "worker.mjs"), "compatibility_date": "2026-04-20",
		"assets": map[string]any{"directory": assets, "run_worker_first": []string{"/api/decode", "/api/encode", "/api/apis", "/api/schema/*"}},
	}
	b, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(dir, "wrangler.json")
	if err := os.WriteFile(cfgPath, b, 0o644); err != nil {
		log.Fatal(err)
	}
	port, inspector := freePort(), freePort()
	cmd := exec.Command(filepath.Join(repo, "site", "node_modules", ".bin", "wrangler"), "dev", "-c", cfgPath,
		"--ip", "127.0.0.1", "--port", port, "--inspector-port", inspector, "--persist-to", filepath.Join(dir, "state"),
		"--log-level", "info", "--show-interactive-dev-session=false")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "WRANGLER_SEND_ERROR_REPORTS=false",
		"CLOUDFLARE_CF_FETCH_ENABLED=false", "WRANGLER_HIDE_BANNER=true", "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"WRANGLER_LOG_PATH="+filepath.Join(dir, "logs"), "CI=1", "NO_COLOR=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		log.Fatalf("wrangler: %v (run cd site && npm ci first)", err)
	}
	w := &wrangler{url: "http://127.0.0.1:" + port, cmd: cmd, client: &http.Client{Timeout: 30 * time.Second}}
	ready := make(chan struct{})
	var logText bytes.Buffer
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(pr)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			logText.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.Contains(sc.Text(), "Ready on "+w.url) {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(120 * time.Second):
		w.stop()
		mu.Lock()
		defer mu.Unlock()
		log.Fatalf("wrangler dev not ready in 120 s:\n%s", logText.String())
	}
	return w
}

// stop ends wrangler and workerd under it (the process group it leads).
func (w *wrangler) stop() {
	if w == nil || w.cmd.Process == nil {
		return
	}
	pgid := w.cmd.Process.Pid
	syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { w.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}

// decode posts the frame and returns how long the answer took to arrive
// in full; anything but 200 stops the run.
func (w *wrangler) decode(frame []byte) time.Duration {
	start := time.Now()
	res, err := w.client.Post(w.url+"/api/decode", "application/octet-stream", bytes.NewReader(frame))
	if err != nil {
		log.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	d := time.Since(start)
	if err != nil || res.StatusCode != 200 || !bytes.Contains(body, []byte(`"ApiVersions"`)) {
		log.Fatalf("POST /api/decode: %d %v %.200s", res.StatusCode, err, body)
	}
	return d
}

// workerdCPU is the CPU time the workerd processes in the process group
// pgid have used so far: every thread's time on a CPU, from
// /proc/PID/task/TID/schedstat. On a loaded machine it moves less than
// the wall time. Linux only (0 elsewhere).
func workerdCPU(pgid int) time.Duration {
	var ns int64
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		stat, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		// comm may hold spaces: the fields after it start past the last ")".
		i, j := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if i < 0 || j < i || string(stat[i+1:j]) != "workerd" {
			continue
		}
		f := strings.Fields(string(stat[j+1:]))
		if len(f) < 3 || f[2] != fmt.Sprint(pgid) {
			continue
		}
		tasks, _ := os.ReadDir("/proc/" + p.Name() + "/task")
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + p.Name() + "/task/" + t.Name() + "/schedstat")
			if err != nil {
				continue
			}
			var n int64
			fmt.Sscan(string(b), &n)
			ns += n
		}
	}
	return time.Duration(ns)
}

// get fetches path and reads the answer.
func (w *wrangler) get(path string) {
	res, err := w.client.Get(w.url + path)
	if err != nil {
		log.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func median(xs []time.Duration) time.Duration { return pct(xs, 50) }

// pct is the p-th percentile (nearest rank).
func pct(xs []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), xs...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func ratio(before, after time.Duration) float64 { return float64(before) / float64(after) }
