// Command maxrss runs a command and prints its peak resident set in KiB
// (the ru_maxrss wait4 reports) on standard error's last line:
//
//	maxrss COMMAND [ARG...]
//	maxrss -report FILE COMMAND [ARG...]
//
// With -report the usage goes to FILE instead, one "key value" a line
// (maxrss KiB, exit status, signal name, cpu nanoseconds), so that a
// command's own standard error may be cut short or fill any amount.
//
// Tests measure the CLI's peak memory through it rather than directly: Go
// starts children with vfork, and Linux then carries the parent's own peak
// resident set into the child's ru_maxrss, so a test process that has
// grown would hide the child's. This helper stays small.
//
// It stands for the command: SIGTERM, SIGINT and SIGHUP are passed on,
// the command is killed if the helper dies, and the helper exits with the
// command's status (128 plus the signal's number when a signal ended it).
package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
)

func main() {
	args := os.Args[1:]
	report := ""
	if len(args) > 2 && args[0] == "-report" {
		report, args = args[1], args[2:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: maxrss [-report FILE] COMMAND [ARG...]")
		os.Exit(2)
	}
	// Pdeathsig follows the thread that started the child: keep it.
	runtime.LockOSThread()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	cmd.Wait()
	ps := cmd.ProcessState
	ru := ps.SysUsage().(*syscall.Rusage)
	code, name := ps.ExitCode(), ""
	if ws := ps.Sys().(syscall.WaitStatus); ws.Signaled() {
		code, name = 128+int(ws.Signal()), ws.Signal().String()
	}
	if report == "" {
		fmt.Fprintf(os.Stderr, "maxrss %d\n", ru.Maxrss)
	} else {
		cpu := ru.Utime.Nano() + ru.Stime.Nano()
		text := fmt.Sprintf("maxrss %d\nexit %d\nsignal %s\ncpu %d\n", ru.Maxrss, ps.ExitCode(), name, cpu)
		if err := os.WriteFile(report, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	os.Exit(code)
}
