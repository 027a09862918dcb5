//go:build linux || darwin || freebsd

package proxy

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the CPU time the calling OS thread has used (user and
// system), which runSink, locked to its thread, charges the sink: time
// spent waiting (on a full pipe, a slow terminal, or for the CPU itself)
// is not CPU time, so it never counts against the share. ok is false when
// the clock cannot be read.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
