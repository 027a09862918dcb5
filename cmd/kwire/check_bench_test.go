package main

import (
	"io"
	"runtime"
	"strconv"
	"testing"

	"github.com/kwire/kwire/internal/bench/traffic"
)

// BenchmarkCheck: kwire check on BenchmarkPcap's capture (3,000 exchanges
// of Metadata v9, Produce v7 and Fetch v11 with record batches), to read
// beside kwire pcap on the same file: the target is at most 1.5 times its
// time.
func BenchmarkCheck(b *testing.B) {
	file, st := benchInput(b, "traffic.pcap", func(w io.Writer) (traffic.Stats, error) {
		return traffic.WritePcap(w, traffic.PcapOptions{Pairs: 3000, Conns: 10, InFlight: 4})
	})
	for _, jobs := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("jobs="+strconv.Itoa(jobs), func(b *testing.B) {
			runBench(b, st, "check", "--fail-on", "none", "--jobs", strconv.Itoa(jobs), file)
		})
	}
}
