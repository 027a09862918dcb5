//go:build !js

package hostile

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// ProcLimits bound a child process, so that a decoder gone wrong takes
// down only itself and never the machine: its address space and its CPU
// time (set with prlimit(1), which util-linux installs everywhere). They
// are a safety net, not the assertion: tests assert peak memory far below.
type ProcLimits struct {
	AddressSpace int64 // bytes
	CPUSeconds   int
}

// Limited is the limit tests and measurements run children under.
var Limited = ProcLimits{AddressSpace: 4 << 30, CPUSeconds: 120}

// Command is exec.CommandContext for name and args, run under l.
func Command(ctx context.Context, l ProcLimits, name string, args ...string) *exec.Cmd {
	pl := []string{"--as=" + strconv.FormatInt(l.AddressSpace, 10), "--cpu=" + strconv.Itoa(l.CPUSeconds), "--", name}
	return exec.CommandContext(ctx, "prlimit", append(pl, args...)...)
}

// Usage is how a finished child fared.
type Usage struct {
	Exit   int    // exit status, -1 when a signal ended it
	Signal string // the signal that ended it, or ""
	MaxRSS int64  // peak resident set, bytes
	CPU    time.Duration
}

// UsageOf reads a finished process's state.
func UsageOf(ps *os.ProcessState) Usage {
	u := Usage{Exit: ps.ExitCode()}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		u.Signal = ws.Signal().String()
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		u.MaxRSS = int64(ru.Maxrss) << 10 // kilobytes on Linux
		u.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return u
}

func (u Usage) String() string {
	s := "exit " + strconv.Itoa(u.Exit)
	if u.Signal != "" {
		s = "killed by " + u.Signal
	}
	return s + ", peak RSS " + MiB(u.MaxRSS) + ", CPU " + u.CPU.Round(time.Millisecond).String()
}

// ProcStatus reads a field of /proc/self/status in bytes (VmRSS, VmHWM).
func ProcStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return -1
}

// HeapWatch records the largest live heap any garbage collection saw
// while it runs: a lower bound of the true peak, never above it, so an
// assertion on it cannot fail spuriously (runtime.MemStats has no peak).
type HeapWatch struct {
	peak atomic.Uint64
	done atomic.Bool
}

type sentinel struct {
	w   *HeapWatch
	pad [32]byte
}

// WatchHeap starts a watch; Stop ends it and returns the peak seen.
func WatchHeap() *HeapWatch {
	w := &HeapWatch{}
	w.arm()
	return w
}

var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

func (w *HeapWatch) arm() {
	s := &sentinel{w: w}
	runtime.SetFinalizer(s, func(s *sentinel) {
		if v := readLive(); v > s.w.peak.Load() {
			s.w.peak.Store(v)
		}
		if !s.w.done.Load() {
			s.w.arm()
		}
	})
}

// Stop ends the watch and returns the largest live heap seen.
func (w *HeapWatch) Stop() uint64 {
	w.done.Store(true)
	return w.peak.Load()
}

// ChildEnv names the entry a child test process decodes.
const ChildEnv = "KWIRE_HOSTILE_CHILD"

// Report is what a child test process measured and found.
type Report struct {
	Outcome
	Status     int    // the API's HTTP status
	RSSBefore  int64  // resident set before decoding
	HWM        int64  // peak resident set right after decoding
	TotalAlloc uint64 // bytes allocated while decoding
	PeakLive   uint64 // the largest live heap a collection saw while decoding, less the live heap before
	Skip       string // why the child did not run the entry
	// Mismatch: two ways a build reports the same thing disagree (the
	// codec's Warnings and the JSON's "warnings"), or "".
	Mismatch string
}

const reportPrefix = "hostile-report: "

// ChildEntry is the entry this process must decode as a child, if it is one.
func ChildEntry() (Entry, bool) {
	name := os.Getenv(ChildEnv)
	if name == "" {
		return Entry{}, false
	}
	e, err := ByName(name)
	if err != nil {
		panic(err)
	}
	return e, true
}

// WriteReport prints a child's report for the parent.
func WriteReport(r Report) {
	b, _ := json.Marshal(r)
	os.Stdout.Write(append(append([]byte("\n"+reportPrefix), b...), '\n'))
}

// Measure runs decode, measuring the memory it took, into r.
func Measure(r *Report, decode func()) {
	runtime.GC()
	base := readLive()
	r.RSSBefore = ProcStatus("VmRSS")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w := WatchHeap()
	decode()
	r.HWM = ProcStatus("VmHWM")
	runtime.ReadMemStats(&after)
	r.TotalAlloc = after.TotalAlloc - before.TotalAlloc
	// What decode left reachable (its result) was live at its end.
	runtime.GC()
	r.PeakLive = w.Stop()
	if live := readLive(); live > r.PeakLive {
		r.PeakLive = live
	}
	r.PeakLive -= min(base, r.PeakLive)
}

func readLive() uint64 {
	sample := []metrics.Sample{{Name: liveSample[0].Name}}
	metrics.Read(sample)
	if sample[0].Value.Kind() == metrics.KindUint64 {
		return sample[0].Value.Uint64()
	}
	return 0
}

// RunChild runs test (a test function of the current test binary) as a
// child process under Limited that decodes entry, and returns its report
// and how it fared. A child that died has no report: ok is false.
func RunChild(t *testing.T, test string, e Entry, extraEnv ...string) (r Report, u Usage, ok bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := Command(ctx, Limited, os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), ChildEnv+"="+e.Name), extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running the child: %v", err)
	}
	u = UsageOf(cmd.ProcessState)
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if line, found := strings.CutPrefix(sc.Text(), reportPrefix); found {
			if json.Unmarshal([]byte(line), &r) == nil {
				ok = true
			}
		}
	}
	if !ok {
		t.Errorf("%s: the child died (%v): %s", e.Name, u, firstLines(errb.String()+out.String(), 6))
	}
	return r, u, ok
}
