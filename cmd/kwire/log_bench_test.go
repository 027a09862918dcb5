package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/internal/decompress"
	"github.com/kwire/kwire/internal/storagedata"
)

// BenchmarkLog: kwire log (the built binary, NDJSON to /dev/null) on a
// segment of 1 GiB (KWIRE_LOG_BENCH_MB to change it) made at bench time
// and not kept: 64 distinct batches written by franz-go (kgo producing to
// kfake; 100 records each: a customer key, a JSON order of about 250
// bytes, two headers), laid out one after another at rising offsets as a
// broker appends them, for each codec. It reports the throughput per core
// over the file's bytes (MB/s/core: input bytes over user+system CPU
// time) and over the bytes the segment would hold uncompressed
// (raw-MB/s/core: each batch's header and its records decompressed, the
// work the records JSON does, the same as the file's for none), the
// wall-clock throughput and the peak resident set (the child's VmHWM).
func BenchmarkLog(b *testing.B) {
	mb := 1024
	if s := os.Getenv("KWIRE_LOG_BENCH_MB"); s != "" {
		mb, _ = strconv.Atoi(s)
	}
	for _, codec := range []string{"none", "gzip", "snappy", "lz4", "zstd"} {
		b.Run("codec="+codec, func(b *testing.B) {
			file, size, raw := benchSegment(b, codec, int64(mb)<<20)
			var cpu, wall float64
			var rss int64
			for b.Loop() {
				devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(kwireBin, "log", "--topic", "orders", file)
				cmd.Stdout = devnull
				st, err := benchRun(cmd)
				devnull.Close()
				if err != nil {
					b.Fatal(err)
				}
				cpu += st.cpu
				wall += st.wall
				rss = max(rss, st.rss)
			}
			n := float64(b.N)
			b.SetBytes(size)
			b.ReportMetric(float64(size)/(1<<20)/(cpu/n), "MB/s/core")
			b.ReportMetric(float64(raw)/(1<<20)/(cpu/n), "raw-MB/s/core")
			b.ReportMetric(float64(size)/(1<<20)/(wall/n), "MB/s")
			b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
		})
	}
}

type benchStats struct {
	cpu, wall float64
	rss       int64
}

// benchRun runs cmd and measures it. The peak resident set is the child's
// VmHWM, sampled every 2 ms from /proc: the rusage of a child counts the
// parent's resident set at the fork (Linux keeps the larger hiwater across
// exec), and a benchmark's parent is large.
func benchRun(cmd *exec.Cmd) (benchStats, error) {
	var st benchStats
	if err := cmd.Start(); err != nil {
		return st, err
	}
	start := nowSeconds()
	done := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var hw int64
		status := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status"
		for {
			if b, err := os.ReadFile(status); err == nil {
				if _, rest, ok := strings.Cut(string(b), "VmHWM:"); ok {
					f := strings.Fields(rest)
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
						hw = max(hw, kb<<10)
					}
				}
			}
			select {
			case <-done:
				peak <- hw
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	st.rss = <-peak
	if err != nil {
		return st, err
	}
	st.wall = nowSeconds() - start
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	st.cpu = float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	return st, nil
}

// benchSegment writes a segment of about size bytes of franz-go's batches
// compressed with codec. It returns the file, its size and its size
// uncompressed (each batch's 61-byte header and its records decompressed).
func benchSegment(b *testing.B, codec string, size int64) (string, int64, int64) {
	b.Helper()
	var recs [][]*kgo.Record
	var codecs []string
	n := 0
	for i := 0; i < 64; i++ {
		var rs []*kgo.Record
		for j := 0; j < 100; j++ {
			v := fmt.Sprintf(`{"order":%d,"customer":"c-%05d","items":[{"sku":"sku-%04d","qty":%d,"price":%d.%02d},{"sku":"sku-%04d","qty":1,"price":9.99}],"total":%d.%02d,"currency":"EUR","status":"%s","created":"2023-11-14T22:%02d:%02dZ"}`,
				n, n%9973, n%811, 1+n%4, 5+n%50, n%100, (n*7)%811, 20+n%90, n%100, []string{"placed", "paid", "shipped"}[n%3], n/60%60, n%60)
			rs = append(rs, &kgo.Record{Key: []byte(fmt.Sprintf("c-%05d", n%9973)), Value: []byte(v),
				Headers:   []kgo.RecordHeader{{Key: "trace-id", Value: []byte(fmt.Sprintf("%016x", n*7919))}, {Key: "source", Value: []byte("checkout")}},
				Timestamp: fixtureTime(int64(n))})
			n++
		}
		recs, codecs = append(recs, rs), append(codecs, codec)
	}
	batches, err := storagedata.Franz(context.Background(), "orders", codecs, recs)
	if err != nil {
		b.Fatal(err)
	}
	rawSize := make([]int64, len(batches))
	for i, bt := range batches {
		const recordsAt = 61
		c := int(bt[22] & 7)
		if c == decompress.CodecNone {
			rawSize[i] = int64(len(bt))
			continue
		}
		out, _, _, err := decompress.Into(nil, c, bt[recordsAt:], 1<<30)
		if err != nil {
			b.Fatal(err)
		}
		rawSize[i] = recordsAt + int64(len(out))
	}
	file := filepath.Join(b.TempDir(), "00000000000000000000.log")
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 4<<20)
	var written, raw, next int64
	for i := 0; written < size; i++ {
		bt := batches[i%len(batches)]
		storagedata.Place(bt, next, 0)
		next += storagedata.LastOffsetDelta(bt) + 1
		w.Write(bt)
		written += int64(len(bt))
		raw += rawSize[i%len(batches)]
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return file, written, raw
}

func fixtureTime(i int64) time.Time { return time.UnixMilli(storagedata.T0 + i*37) }

func nowSeconds() float64 { return float64(time.Now().UnixNano()) / 1e9 }
