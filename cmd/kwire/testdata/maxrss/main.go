// Command maxrss runs a command and prints its peak resident set in KiB
// (the ru_maxrss wait4 reports) on standard error's last line.
//
// Tests measure the CLI's peak memory through it rather than directly: Go
// starts children with vfork, and Linux then carries the parent's own peak
// resident set into the child's ru_maxrss, so a test process that has
// grown would hide the child's. This helper stays small.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "maxrss %d\n", cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	os.Exit(cmd.ProcessState.ExitCode())
}
