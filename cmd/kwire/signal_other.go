//go:build !unix

package main

import "os"

// summarySignal: Windows has no SIGUSR1; kwire proxy prints its table on
// exit and every --every instead.
var summarySignal os.Signal
