package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/bench/traffic"
)

// errDiskFull is what failingWriter's writes fail with.
var errDiskFull = errors.New("write /dev/stdout: no space left on device")

// failingWriter takes left bytes, then fails every write: a disk that
// fills up part way.
type failingWriter struct {
	left   int
	writes int // writes after the first failure
	failed bool
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.writes++
		return 0, errDiskFull
	}
	if len(p) > w.left {
		n := w.left
		w.left, w.failed = 0, true
		return n, errDiskFull
	}
	w.left -= len(p)
	return len(p), nil
}

// TestStdoutWriteErrorIsReported runs every command that writes to
// standard output with one that fails, at its first byte and part way:
// each must say the error once on standard error and exit 1, where they
// used to exit 0, the output lost.
func TestStdoutWriteErrorIsReported(t *testing.T) {
	td := "testdata"
	storage := filepath.Join(sharedTestdata, "storage", "logdir")
	capture := filepath.Join(sharedTestdata, "captures", "kafka.pcap")
	cmds := [][]string{
		{"batch", filepath.Join(td, "frames.hex")},
		{"batch", "--jobs", "1", filepath.Join(td, "frames.hex")},
		{"encode", `{"apiKey":18,"apiVersion":0,"header":{"correlationId":1,"clientId":null},"body":{}}`},
		{"encode", `{"apiKey":18,"apiVersion":0,"header":{"correlationId":1,"clientId":null},"body":{}}` + "\n" + `{"apiKey":18,"apiVersion":0,"header":{"correlationId":2,"clientId":null},"body":{}}`},
		{"encode", `{"kind":"tail","zero":true,"size":100000}`},
		{"decode", filepath.Join(td, "apiversions.xxd")},
		{"decode", "--format", "ndjson", filepath.Join(td, "apiversions.xxd"), filepath.Join(td, "apiversions.xxd")},
		{"decode", "--format", "tree", filepath.Join(td, "apiversions.xxd")},
		{"decode", "--format", "grid", filepath.Join(td, "apiversions.xxd")},
		{"decode", "--format", "annotated", filepath.Join(td, "apiversions.xxd")},
		{"apis"},
		{"apis", "--json"},
		{"example", "Fetch"},
		{"schema", "Fetch"},
		{"version"},
		{"--version"},
		{"completion", "bash"},
		{"completion", "zsh"},
		{"completion", "fish"},
		{"help"},
		{"decode", "--help"},
		{"log", storage},
		{"pcap", capture},
		{"check", capture},
	}
	for _, args := range cmds {
		// How much the command writes when nothing fails.
		var full bytes.Buffer
		run(&env{stdin: strings.NewReader(""), stdout: &full, stderr: &bytes.Buffer{}}, args)
		if full.Len() == 0 {
			t.Errorf("%q writes nothing to fail", args)
			continue
		}
		for _, left := range []int{0, full.Len() / 2, full.Len() - 1} {
			w := &failingWriter{left: left}
			var stderr bytes.Buffer
			code := run(&env{stdin: strings.NewReader(""), stdout: w, stderr: &stderr}, args)
			if code != 1 {
				t.Errorf("%q, failing after %d of %d bytes: exit %d, want 1", args, left, full.Len(), code)
			}
			if n := strings.Count(stderr.String(), errDiskFull.Error()); n != 1 {
				t.Errorf("%q, failing after %d bytes: the write error said %d times, want once; stderr:\n%s", args, left, n, stderr.String())
			}
			if strings.Contains(stderr.String(), "lines decoded") {
				t.Errorf("%q: claims lines decoded after the output failed:\n%s", args, stderr.String())
			}
		}
	}
}

// TestBatchStopsAfterAFailedWrite: kwire batch stops reading and decoding
// once its output cannot be written, rather than decoding all its input
// for nobody.
func TestBatchStopsAfterAFailedWrite(t *testing.T) {
	line := []byte("0000001b001200030000000700056b7769726500066b7769726504312e3000\n")
	in := &readCounter{r: bytes.NewReader(bytes.Repeat(line, 1<<18))} // 17 MB
	w := &failingWriter{left: 0}
	var stderr bytes.Buffer
	code := run(&env{stdin: in, stdout: w, stderr: &stderr}, []string{"batch", "--jobs", "2"})
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if in.n > 8<<20 {
		t.Errorf("read %d of %d bytes after the first write failed", in.n, len(line)<<18)
	}
	if w.writes > 0 {
		t.Errorf("%d writes after the first failed", w.writes)
	}
}

// TestPcapStopsAfterAFailedWrite: kwire pcap stops reading its capture
// once its output cannot be written.
func TestPcapStopsAfterAFailedWrite(t *testing.T) {
	var capture bytes.Buffer
	_, err := traffic.WritePcap(&capture, traffic.PcapOptions{Pairs: 3000, Conns: 4})
	if err != nil {
		t.Fatal(err)
	}
	total := capture.Len()
	in := &readCounter{r: &capture}
	var stderr bytes.Buffer
	code := run(&env{stdin: in, stdout: &failingWriter{}, stderr: &stderr}, []string{"pcap", "--jobs", "2", "-"})
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if want := "kwire: " + errDiskFull.Error() + "\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q alone (nothing of a capture cut short)", stderr.String(), want)
	}
	t.Logf("read %d of %d bytes; stderr:\n%s", in.n, total, stderr.String())
	if in.n > total/2 {
		t.Errorf("read %d of %d bytes after the first write failed", in.n, total)
	}
}

type readCounter struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestDevFull: the built binary, its standard output /dev/full.
func TestDevFull(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer f.Close()
	for _, args := range [][]string{
		{"batch", "frames.hex"},
		{"decode", "apiversions.xxd"},
		{"encode", `{"apiKey":18,"apiVersion":0,"header":{"correlationId":1,"clientId":null},"body":{}}`},
		{"apis"},
	} {
		cmd := exec.Command(kwireBin, args...)
		cmd.Dir = workDir
		cmd.Stdout = f
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("%q > /dev/full: %v, want exit 1; stderr:\n%s", args, err, stderr.String())
		}
		if want := "kwire: write /dev/stdout: no space left on device\n"; stderr.String() != want {
			t.Errorf("%q > /dev/full: stderr %q, want %q", args, stderr.String(), want)
		}
	}
}
