//go:build !(linux || darwin || freebsd)

package proxy

import "time"

// threadCPU cannot read a thread's CPU time here: runSink charges the
// sink's wall time instead, which a stall (a slow terminal, preemption)
// counts too.
func threadCPU() (time.Duration, bool) { return 0, false }
