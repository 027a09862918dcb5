//go:build unix

package main

import (
	"os"
	"syscall"
)

// summarySignal asks a running kwire proxy for its table (SIGUSR1).
var summarySignal os.Signal = syscall.SIGUSR1
