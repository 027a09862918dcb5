package main

import (
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Progress on standard error, for the commands that can take long (batch,
// pcap, check, decode of files): bytes done of the input's size, frames (lines,
// exchanges) done, the rate and the time left, redrawn in place a few
// times a second. It is shown only when it can be right and cannot get in
// anyone's way: --progress auto (the default) draws it when standard error
// is a terminal and the input's size is known and at least progressMin,
// unless the output scrolls on the same screen (standard output a terminal
// too, and the command writing there as it goes: pcap --summary does not;
// check's findings, which clear the bar first, do not count);
// always draws it whatever the input: of unknown size (a pipe), a count
// of the bytes read and the frames (lines, exchanges) done, with the rate;
// never, never. Output to a pipe or a file never carries it.

// progressMin is the smallest input auto draws progress for: below it a
// command is done before a bar could say anything.
const progressMin = 1 << 20

// progressFlagUsage is the --progress flag's text, the same for every command.
const progressFlagUsage = "progress on stderr: auto (a terminal and an input of known size, 1 MiB or more), always (for input of unknown size, as from a pipe, a count of bytes read and frames done) or never"

// progressOn decides from --progress, the input's size (-1: unknown),
// where standard error and output go, and whether the command writes to
// standard output as it goes (streams).
func progressOn(mode string, total int64, e *env, streams bool) (bool, error) {
	switch mode {
	case "never":
		return false, nil
	case "always":
		return true, nil
	case "auto", "":
		return e.stderrIsTTY && total >= progressMin && !(streams && e.stdoutIsTTY), nil
	}
	return false, errorf("--progress must be auto, always or never, not %q", mode)
}

// openStreamed opens what a streaming command reads, the file named or
// standard input when name is "", and starts its progress line (mode is
// --progress, unit what it counts, streams whether the command writes a
// stream to standard output). On failure it says why and returns the
// command's exit status: 1 for the file, 2 for the flag; else -1, and
// done closes the file.
func openStreamed(e *env, name, mode, unit string, streams bool) (in io.Reader, p *progress, done func(), status int) {
	if _, err := progressOn(mode, -1, e, streams); err != nil {
		// Misuse is said before the file is opened, as the other
		// commands check their flags first: a wrong flag and a missing
		// file said the file, exit 1.
		fail(e, "%v", err)
		return nil, nil, nil, 2
	}
	in, done = e.stdin, func() {}
	if name != "" {
		f, err := os.Open(name)
		if err != nil {
			fail(e, "%v", fileError(name, err))
			return nil, nil, nil, 1
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			// Opened, a directory reads as an error only when read,
			// which a capture's reader took for a file too short: said
			// as decode and batch say it.
			f.Close()
			fail(e, "%v", fileError(name, syscall.EISDIR))
			return nil, nil, nil, 1
		}
		in, done = f, func() { f.Close() }
	}
	total := inputSize(in)
	on, err := progressOn(mode, total, e, streams)
	if err != nil {
		done()
		fail(e, "%v", err)
		return nil, nil, nil, 2
	}
	return in, startProgress(e.stderr, on, total, unit), done, -1
}

// inputSize is the size of a regular file, else -1 (a pipe, a terminal).
func inputSize(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return -1
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return -1
	}
	return st.Size()
}

// progress draws the line. Its counters are safe to add to from any
// goroutine; Writer gives the command a standard error that clears the
// line before each message, so warnings and the bar never mix.
type progress struct {
	w     io.Writer
	unit  string // "frames", "lines", "exchanges"
	total int64
	start time.Time
	bytes atomic.Int64
	count atomic.Int64

	mu    sync.Mutex
	drawn bool // the line holds a bar now
	early bool // the work ended before the input's end (finishAt)
	stop  chan struct{}
	done  chan struct{}
}

// startProgress starts redrawing every 250 ms; nil (whose methods do
// nothing) when off.
func startProgress(w io.Writer, on bool, total int64, unit string) *progress {
	if !on {
		return nil
	}
	p := &progress{w: w, unit: unit, total: total, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				p.draw(false)
			}
		}
	}()
	return p
}

// add counts bytes and frames done.
func (p *progress) add(bytes, count int64) {
	if p == nil {
		return
	}
	p.bytes.Add(bytes)
	p.count.Add(count)
}

// setBytes says how far into the input the work is (a reader's position).
func (p *progress) setBytes(n int64) {
	if p != nil {
		p.bytes.Store(n)
	}
}

// finish draws the final line and ends it.
func (p *progress) finish() { p.finishAt(false) }

// finishAt is finish, for work that ended before its input's end when
// early (interrupted): the line says how far it got, not 100%.
func (p *progress) finishAt(early bool) {
	if p == nil {
		return
	}
	p.early = early
	close(p.stop)
	<-p.done
	p.draw(true)
}

func (p *progress) draw(final bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := p.line(final, time.Since(p.start))
	io.WriteString(p.w, "\r"+line+"\x1b[K")
	p.drawn = true
	if final {
		io.WriteString(p.w, "\n")
		p.drawn = false
	}
}

// line is what the bar says: "[=====>    ]  42%  12.0 MB of 28.6 MB  1,234
// exchanges  85.3 MB/s  0:21 left".
func (p *progress) line(final bool, took time.Duration) string {
	done := p.bytes.Load()
	if final && p.total >= 0 && !p.early {
		done = p.total
	}
	var b strings.Builder
	if p.total > 0 {
		frac := min(float64(done)/float64(p.total), 1)
		const width = 30
		n := int(frac * width)
		b.WriteString("[" + strings.Repeat("=", n) + strings.Repeat(" ", width-n) + "] ")
		pct := strconv.Itoa(int(frac * 100))
		b.WriteString(strings.Repeat(" ", 3-len(pct)) + pct + "%  ")
		b.WriteString(humanBytes(done) + " of " + humanBytes(p.total))
	} else {
		b.WriteString(humanBytes(done) + " read") // of a size unknown
	}
	b.WriteString("  " + groupDigits(p.count.Load()) + " " + p.unit)
	secs := took.Seconds()
	if secs > 0.05 {
		rate := float64(done) / secs
		b.WriteString("  " + humanBytes(int64(rate)) + "/s")
		if !final && p.total > 0 && rate > 0 && done < p.total {
			b.WriteString("  " + clock(time.Duration(float64(p.total-done)/rate*float64(time.Second))) + " left")
		}
	}
	if final {
		b.WriteString("  in " + clock(took))
	}
	return b.String()
}

// Writer is standard error for the command while the bar is shown: each
// write first clears the bar's line; the next tick draws it again.
func (p *progress) Writer(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return progressWriter{p, w}
}

type progressWriter struct {
	p *progress
	w io.Writer
}

func (pw progressWriter) Write(b []byte) (int, error) {
	pw.p.mu.Lock()
	defer pw.p.mu.Unlock()
	if pw.p.drawn {
		io.WriteString(pw.w, "\r\x1b[K")
		pw.p.drawn = false
	}
	return pw.w.Write(b)
}

// countingReader counts the bytes read through it into a progress.
type countingReader struct {
	r io.Reader
	n int64
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	c.p.setBytes(c.n)
	return n, err
}

// humanBytes writes a size in decimal units: 512 B, 12.0 kB, 3.4 MB, 1.2 GB.
func humanBytes(n int64) string {
	if n < 1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"kB", "MB", "GB", "TB"}
	x := float64(n) / 1000
	i := 0
	for x >= 1000 && i < len(units)-1 {
		x /= 1000
		i++
	}
	return strconv.FormatFloat(x, 'f', 1, 64) + " " + units[i]
}

// groupDigits writes n with thousands separated by commas.
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// clock writes a duration as m:ss, or h:mm:ss from an hour.
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	two := func(x int64) string {
		if x < 10 {
			return "0" + strconv.FormatInt(x, 10)
		}
		return strconv.FormatInt(x, 10)
	}
	if s >= 3600 {
		return strconv.FormatInt(s/3600, 10) + ":" + two(s/60%60) + ":" + two(s%60)
	}
	return strconv.FormatInt(s/60, 10) + ":" + two(s%60)
}
