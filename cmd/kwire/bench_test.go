package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/kwire/kwire/internal/bench/traffic"
)

// benchInput writes realistic traffic (package traffic) once per benchmark
// and returns its path and its frames.
func benchInput(b *testing.B, name string, write func(io.Writer) (traffic.Stats, error)) (string, traffic.Stats) {
	file := filepath.Join(b.TempDir(), name)
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	st, err := write(f)
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	return file, st
}

// runBench runs a kwire command in-process on every iteration and reports
// frames/s, MB/s of frames and allocations per frame.
func runBench(b *testing.B, st traffic.Stats, args ...string) {
	e := &env{stdin: bytes.NewReader(nil), stdout: io.Discard, stderr: io.Discard}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		if code := run(e, args); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
	runtime.ReadMemStats(&after)
	frames := float64(st.Frames) * float64(b.N)
	b.ReportMetric(frames/b.Elapsed().Seconds(), "frames/s")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/frames, "allocs/frame")
}

// BenchmarkPcap: kwire pcap on 3,000 realistic exchanges (Metadata v9,
// Produce v7, Fetch v11 with record batches; 20 MB of frames).
func BenchmarkPcap(b *testing.B) {
	file, st := benchInput(b, "traffic.pcap", func(w io.Writer) (traffic.Stats, error) {
		return traffic.WritePcap(w, traffic.PcapOptions{Pairs: 3000, Conns: 10, InFlight: 4})
	})
	for _, jobs := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			runBench(b, st, "pcap", "--jobs", strconv.Itoa(jobs), file)
		})
	}
}

// BenchmarkBatch: kwire batch on the same 6,000 frames as NDJSON lines.
func BenchmarkBatch(b *testing.B) {
	file, st := benchInput(b, "frames.ndjson", func(w io.Writer) (traffic.Stats, error) {
		return traffic.WriteNDJSON(w, 6000)
	})
	for _, jobs := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			runBench(b, st, "batch", "--progress", "never", "--jobs", strconv.Itoa(jobs), file)
		})
	}
}
