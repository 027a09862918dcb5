package main

import (
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/internal/hostile"
)

// hostileLogPeak bounds kwire log's peak resident set on a hostile storage
// file: one batch's budget (32 MiB decompressed, a 64 MiB batch at most)
// and what the runtime keeps, whatever the file declares.
const hostileLogPeak = 160 << 20

// The hostile corpus's storage files through kwire log: no panic, exit 0
// or 1, the problem said, memory bounded.
func TestHostileLog(t *testing.T) {
	for _, e := range hostile.StorageFiles() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			var out cappedBuffer
			out.n = hostileStderrCap
			stderr, u := hostileRun(t, &out, "log", filepath.Join(hostile.Dir(), e.File()))
			t.Logf("kwire log %s: %v", e.File(), u)
			o := hostile.Outcome{Exit: u.Exit, Text: out.String() + "\n" + string(stderr)}
			if u.Signal != "" {
				o.Exit = 128 + 9
			}
			for _, p := range e.Check(o) {
				t.Error(p)
			}
			if u.MaxRSS > hostileLogPeak {
				t.Errorf("peak RSS %s; the bound is %s", hostile.MiB(u.MaxRSS), hostile.MiB(hostileLogPeak))
			}
		})
	}
}
