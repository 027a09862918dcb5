package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/internal/capcheck"
	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/input"
)

// kwire check reads captures and frame files and applies the protocol
// rules of package check: frame and records rules on every exchange (on
// all cores, as kwire pcap decodes), then the connection and conversation
// rules in the order the exchanges completed. One line per finding, or
// JSON, NDJSON or SARIF; the exit status says whether a finding reached
// --fail-on.

type checkConfig struct {
	keys   keyLogFlag
	files  []string
	ports  portList
	format string
	sarif  string
	failOn check.Severity
	jobs   int
	it     *interrupt // Ctrl-C: stops the reading as at the input's end
	// progress is --progress, as kwire pcap's: bytes read of all the
	// files, exchanges checked, rate, time left (progress.go)
	progress string
	prog     *progress // nil when not shown
}

func runCheck(e *env, args []string) int {
	fs := newFlags(e, "check", "[flags] FILE...  (captures: pcap, pcapng, a text dump of packets as tshark -x or tcpdump -X print them, a followed TCP stream (tshark -z follow); or frames: binary, hex lines, dumps; none or - reads standard input)",
		"kwire check kfake-clients.pcapng",
		"kwire check --format ndjson --fail-on none kafka.pcap",
		"kwire check --format sarif --fail-on warning kfake-clients.pcapng",
		"kwire example Produce --version 9 | head -1 | kwire check --fail-on none")
	cfg := &checkConfig{}
	fs.Var(&cfg.ports, "port", "broker `PORT` in captures (repeatable, or comma-separated; default 9092, else inferred)")
	fs.StringVar(&cfg.format, "format", "text", "output: text (one line per finding), json, ndjson or sarif (SARIF 2.1.0)")
	fs.StringVar(&cfg.sarif, "sarif", "", "also write a SARIF 2.1.0 report to `FILE`, for code-scanning tools")
	failOn := fs.String("fail-on", "error", "exit 1 when a finding is at least this severe: error, warning, note or none")
	fs.IntVar(&cfg.jobs, "jobs", runtime.NumCPU(), "exchanges analysed at once")
	fs.StringVar(&cfg.progress, "progress", "auto", progressFlagUsage)
	cfg.keys.register(fs)
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}

	switch cfg.format {
	case "text", "json", "ndjson", "sarif":
	default:
		fail(e, "--format must be text, json, ndjson or sarif, not %q", cfg.format)
		return 2
	}
	sev, ok := parseFailOn(e, *failOn)
	if !ok {
		return 2
	}
	cfg.failOn = sev
	if cfg.jobs < 0 {
		fail(e, "--jobs must not be negative, not %d", cfg.jobs)
		return 2
	}
	cfg.jobs = max(cfg.jobs, 1)
	cfg.files = args
	if len(cfg.files) == 0 {
		cfg.files = []string{"-"}
	}
	if !cfg.keys.load(e, slices.Contains(cfg.files, "-")) {
		return 2
	}
	terminalInput(e, "check", cfg.files, "paste frames' hex, or a text dump of packets as tcpdump -X prints them")
	// Progress as kwire pcap draws it, over all the files.
	total := checkInputsSize(e, cfg.files)
	on, err := checkShowsProgress(cfg.progress, total, e)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	cfg.prog = startProgress(e.stderr, on, total, "exchanges")
	cfg.it = catchInterrupt()
	defer cfg.it.release()
	return cfg.run(e)
}

// checkShowsProgress is kwire check's --progress decision: progressOn's,
// with the findings on standard output not taken for output that scrolls
// past the bar. They are few beside the exchanges read, and when standard
// output is the terminal standard error is, a finding's line clears the
// bar before it is written (run), as a line on standard error does: auto
// draws the bar whenever standard error is a terminal (and the input of
// known size, 1 MiB or more).
func checkShowsProgress(mode string, total int64, e *env) (bool, error) {
	return progressOn(mode, total, e, false)
}

// checkFinding is a finding with the file it was found in.
type checkFinding struct {
	file  string
	f     check.Finding
	spans []frameSpan // where the frames of a frames file are in it (SARIF's regions); nil for a capture
}

// checkOut writes findings as they come, and keeps what the summary, the
// JSON document and SARIF need.
type checkOut struct {
	cfg    *checkConfig
	w      *bufio.Writer
	multi  bool
	kept   []checkFinding // for json and sarif
	counts [check.Error + 1]int
	skips  notJudged
	tls    int // connections not checked: TLS, encrypted
	// unchecked are the capture's notes of what was not checked, said
	// after its findings: connections that carry TLS, and frames the
	// capture reader skipped past its bound on bytes held (Note.Limit)
	unchecked []capture.Note
	// noKafka says why the capture just read gave no exchange (noKafka)
	noKafka string
	line    []byte
	// live is set while standard input is read: each finding's line is
	// written at once (tcpdump -l -X | kwire check -), not when 1 MiB of
	// them is.
	live bool
	// inputs are the files not read, or not read whole (SARIF's notes)
	inputs []inputProblem
	// spans are where the frames of the frames file being checked are
	// in it, for SARIF's regions (nil for a capture)
	spans []frameSpan
	// stopped is set when a signal stopped the reading of the capture
	// (interrupt.go), stoppedAt the packets read
	stopped   bool
	stoppedAt int
}

func (o *checkOut) put(file string, f *check.Finding) {
	if f.Skipped {
		o.skips.add(f.Rule)
	} else {
		o.counts[f.Severity]++
	}
	if o.cfg.format == "json" || o.cfg.format == "sarif" || o.cfg.sarif != "" {
		o.kept = append(o.kept, checkFinding{file, *f, o.spans})
	}
	switch o.cfg.format {
	case "text":
		o.line = o.line[:0]
		if o.multi {
			o.line = append(o.line, file...)
			o.line = append(o.line, ": "...)
		}
		o.line = append(f.AppendText(o.line), '\n')
		o.w.Write(o.line)
	case "ndjson":
		o.line = appendFindingJSON(o.line[:0], file, f)
		o.w.Write(append(o.line, '\n'))
	}
	if o.live {
		o.w.Flush()
	}
}

// appendFindingJSON is the finding's JSON object with its file.
func appendFindingJSON(b []byte, file string, f *check.Finding) []byte {
	b = f.AppendJSON(b)
	b = b[:len(b)-1]
	b = append(b, `,"file":`...)
	b = strconv.AppendQuote(b, file)
	return append(b, '}')
}

// checkInputsSize is the bytes of the files kwire check reads, -1 when
// one is of unknown size (standard input a pipe).
func checkInputsSize(e *env, files []string) int64 {
	var total int64
	for _, file := range files {
		var n int64 = -1
		if file == "-" {
			n = inputSize(e.stdin)
		} else if st, err := os.Stat(file); err == nil && st.Mode().IsRegular() {
			n = st.Size()
		}
		if n < 0 {
			return -1
		}
		total += n
	}
	return total
}

func (c *checkConfig) run(e *env) int {
	// While the bar is drawn, what goes to standard error clears it
	// first, and so does a finding on standard output when that is the
	// same terminal.
	stderr, stdout := e.stderr, e.stdout
	defer func() { e.stderr = stderr }()
	e.stderr = c.prog.Writer(stderr)
	if e.stdoutIsTTY && e.stderrIsTTY {
		stdout = c.prog.Writer(stdout)
	}
	o := &checkOut{cfg: c, w: bufio.NewWriterSize(stdout, 1<<20), multi: len(c.files) > 1}
	status, unread, cut, empty := 0, 0, 0, 0
	for _, file := range c.files {
		truncation, err := c.checkFile(e, o, file)
		if c.it.interrupted() {
			// Said once the findings so far are out; what the file's
			// reading says past the signal is no fault of the file.
			o.w.Flush()
			for _, n := range o.unchecked {
				fail(e, "%s: %s, not checked", file, n.String())
			}
			o.unchecked = o.unchecked[:0]
			// SARIF's note says it in the same words, the file named
			// in its text as in its location, as the other notes are.
			why := fmt.Sprintf("%s: interrupted (%s): not judged, the file not read whole", file, c.it.name())
			if o.stopped {
				why = fmt.Sprintf("%s: interrupted (%s): not judged past packet %d; the rest of the capture was not read", file, c.it.name(), o.stoppedAt)
			}
			fail(e, "%s", why)
			o.inputs = append(o.inputs, inputProblem{file, why, false})
			status = c.it.status()
			break
		}
		if len(o.unchecked) > 0 {
			o.w.Flush()
			for _, n := range o.unchecked {
				fail(e, "%s: %s, not checked", file, n.String())
			}
			o.unchecked = o.unchecked[:0]
		}
		if o.noKafka != "" {
			o.w.Flush()
			fail(e, "%s: %s", file, o.noKafka)
			o.noKafka, empty = "", empty+1
		}
		if err != nil {
			// The text's words, the file named once (not Go's "open
			// NAME: ..." after it), in SARIF's note too.
			err = fileError(file, err)
			o.w.Flush()
			fail(e, "%v", err)
			status, unread = 1, unread+1
			o.inputs = append(o.inputs, inputProblem{file, err.Error(), true})
		}
		if truncation != nil {
			o.w.Flush()
			why := fmt.Sprintf("%s: %s (checked up to there)", file, truncation)
			fail(e, "%s", why)
			status, cut = 1, cut+1
			o.inputs = append(o.inputs, inputProblem{file, why, false})
		}
	}
	c.prog.finishAt(c.it.interrupted())
	switch c.format {
	case "json":
		o.w.Write(appendCheckJSON(nil, o))
	case "sarif":
		b, _ := json.MarshalIndent(sarifLog(o), "", "  ")
		o.w.Write(append(b, '\n'))
	}
	o.w.Flush()
	if c.sarif != "" {
		b, _ := json.MarshalIndent(sarifLog(o), "", "  ")
		if err := os.WriteFile(c.sarif, append(b, '\n'), 0o644); err != nil {
			fail(e, "%v", err)
			status = 1
		}
	}
	// The counts say nothing of a file that could not be read, nor of
	// the part of a capture past where it is cut or corrupt: the summary
	// says how many files were not read, or not read whole.
	notRead := ""
	if unread > 0 {
		notRead = fmt.Sprintf("; %d of %d files not read (said above)", unread, len(c.files))
	}
	if cut > 0 {
		notRead += fmt.Sprintf("; %d of %d files truncated or corrupt (said above)", cut, len(c.files))
	}
	if o.tls > 0 {
		notRead += "; " + pluralOf(o.tls, "TLS connection", "TLS connections") + " not checked (encrypted, said above)"
		if c.keys.file == "" {
			defer fail(e, "check: %s", keyLogHint(o.tls))
		}
		if why := c.keys.missing(o.tls); why != "" {
			defer fail(e, "check: %s", why)
		}
	}
	if empty > 0 {
		notRead += fmt.Sprintf("; %d of %d files with no Kafka exchange (said above)", empty, len(c.files))
	}
	if c.it.interrupted() {
		// The rules that judge a capture's end (a request never
		// answered, a transaction never ended) would judge where the
		// signal cut it, but for connections that closed before it:
		// their lines say they were not judged.
		notRead += fmt.Sprintf("; interrupted (%s): what the cut left unfinished not judged (requests still waiting, transactions on connections still open)", c.it.name())
	}
	fail(e, "check: %s%s", checkSummary(&o.counts, &o.skips), notRead)
	if failOnReached(&o.counts, c.failOn) && status == 0 {
		status = 1
	}
	return status
}

// notJudged counts the findings that say a rule was not judged (lines)
// and the rules they are of: a rule may be said not judged in more than
// one line (the transactions a capture ended with, for several reasons;
// each file of several).
type notJudged struct {
	lines int
	rules map[*check.Rule]bool
}

func (n *notJudged) add(r *check.Rule) {
	if n.rules == nil {
		n.rules = map[*check.Rule]bool{}
	}
	n.lines++
	n.rules[r] = true
}

// checkSummary is the summary kwire check and kwire proxy --check end
// with: the findings by severity (counts, skipped ones aside) and the
// rules not judged (skips), each count agreeing with its noun in number
// ("1 error, 2 warnings, 0 notes; 1 rule not judged (said in its
// line)"), and the lines that say so when they are more than the rules
// ("1 rule not judged (said in 2 lines)").
func checkSummary(counts *[check.Error + 1]int, skips *notJudged) string {
	rules := len(skips.rules)
	said := pluralOf(rules, "rule not judged (said in its line)", "rules not judged (said in their lines)")
	if skips.lines > rules {
		said = pluralOf(rules, "rule", "rules") + " not judged (said in " + plural(skips.lines, "line") + ")"
	}
	return plural(counts[check.Error], "error") + ", " + plural(counts[check.Warning], "warning") + ", " +
		plural(counts[check.Note], "note") + "; " + said
}

// parseFailOn reads the value of --fail-on, kwire check's and kwire proxy
// --check's: the least severity of a finding that makes the exit status
// 1 (0 for none: no finding does). On a value it does not know, it says
// so and ok is false: misuse, exit status 2.
func parseFailOn(e *env, s string) (sev check.Severity, ok bool) {
	sev, ok = check.ParseSeverity(s)
	if !ok {
		fail(e, "--fail-on must be error, warning, note or none, not %q", s)
	}
	return sev, ok
}

// failOnReached reports whether counts (findings by severity, as kwire
// check and kwire proxy --check tally them, skipped ones aside) hold one
// at least as severe as sev, --fail-on's: then the exit status is 1. A
// sev of 0 (none) is never reached.
func failOnReached(counts *[check.Error + 1]int, sev check.Severity) bool {
	for s := sev; sev > 0 && s <= check.Error; s++ {
		if counts[s] > 0 {
			return true
		}
	}
	return false
}

// appendCheckJSON is the json format: every finding and the counts.
func appendCheckJSON(b []byte, o *checkOut) []byte {
	b = append(b, `{"findings":[`...)
	for i := range o.kept {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
		b = appendFindingJSON(b, o.kept[i].file, &o.kept[i].f)
	}
	b = append(b, "\n],\"errors\":"...)
	b = strconv.AppendInt(b, int64(o.counts[check.Error]), 10)
	b = append(b, `,"warnings":`...)
	b = strconv.AppendInt(b, int64(o.counts[check.Warning]), 10)
	b = append(b, `,"notes":`...)
	b = strconv.AppendInt(b, int64(o.counts[check.Note]), 10)
	b = append(b, `,"skipped":`...)
	b = strconv.AppendInt(b, int64(o.skips.lines), 10)
	return append(b, "}\n"...)
}

// checkFile reads one capture or frame file ("-": standard input); a
// text dump of whole packets is read as the capture it is. A capture cut
// short or corrupt after some packet is checked up to there, and the note
// that says where comes back (nil for a whole file).
func (c *checkConfig) checkFile(e *env, o *checkOut, file string) (*capture.Note, error) {
	var in io.Reader = e.stdin
	o.live = file == "-"
	defer func() { o.live = false }()
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	if c.prog != nil {
		// The bytes of the files before this one counted already.
		in = &countingReader{r: in, n: c.prog.bytes.Load(), p: c.prog}
	}
	in = c.it.reader(in)
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(4)
	if isCapture(head) {
		return c.checkCapture(o, file, br)
	}
	var raw []byte
	var perr error
	if file == "-" && textStart(head) {
		// Piped, maybe from a live tcpdump -l -X: a text dump of packets
		// is checked as it comes; any other text, once read, as before.
		// The findings of the files before go out ahead of what
		// streamText says on stderr, as before each of run's notes.
		o.w.Flush()
		s, ts, err := streamText(e.stderr, br, false) // no rule reads times
		if err == nil {
			note, err := c.checkCapture(o, file, ts)
			if terr := textFailed(ts); terr != nil {
				return nil, terr
			}
			return note, err
		}
		raw, perr = s.Text(), err
		s.Close()
		if raw == nil {
			return nil, err // a packet was read (held, its first time 0) before the mistake: a dump of packets
		}
	} else {
		var err error
		if raw, err = io.ReadAll(br); err != nil {
			return nil, err
		}
	}
	if err := notFrames(raw); err != nil {
		return nil, err
	}
	if perr == nil {
		// A text dump of whole packets (tshark -x, tcpdump -X) is a capture.
		var pcapng []byte
		var dump *input.PacketDump
		if pcapng, dump, perr = textCapture(raw); perr == nil {
			o.w.Flush()
			fail(e, "%s: %s", file, readAsCapture(dump, false)) // no rule reads times
			return c.checkCapture(o, file, bytes.NewReader(pcapng))
		}
	}
	data, form, err := input.Parse(raw, input.Auto)
	if err != nil {
		if !errors.Is(perr, input.ErrNoPackets) {
			return nil, perr // a dump of packets, malformed: where, and why
		}
		return nil, err
	}
	frames, rest := input.SplitFrames(data, 0)
	if len(rest) > 0 {
		frames = append(frames, rest) // its size prefix disagrees: frame.size says so
	}
	if o.cfg.format == "sarif" || o.cfg.sarif != "" {
		o.spans = frameSpans(raw, data, form, frames)
		defer func() { o.spans = nil }()
	}
	for _, f := range check.Check(check.FromFrames(frames)) {
		o.put(file, &f)
	}
	return nil, nil
}

// notFrames recognises JSON where frames were expected, and says what
// check needs instead: kwire pcap's and kwire proxy's NDJSON (one
// exchange a line, decoded) and value JSON (kwire decode's) hold no frame
// bytes, and read as hex they failed on their first letter.
func notFrames(raw []byte) error {
	text := bytes.TrimLeft(raw, " \t\r\n\ufeff")
	if len(text) == 0 || text[0] != '{' {
		return nil
	}
	line, _, _ := bytes.Cut(text, []byte("\n"))
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil && json.Unmarshal(text, &obj) != nil {
		return nil // not JSON: the hex reader says what it is not
	}
	_, conn := obj["connId"]
	_, key := obj["apiKey"]
	if conn && key {
		return errors.New("this is the NDJSON log of kwire pcap or kwire proxy: its exchanges are decoded, and the frames' bytes are not in it. " +
			"kwire check needs the frames: check the capture itself (pcap, pcapng), or run kwire proxy --check to check the traffic as it passes")
	}
	return errors.New("this is JSON, not frames: kwire check reads captures (pcap, pcapng) and frames (binary, hex, dumps); " +
		"kwire encode turns a frame's value JSON back into its bytes (kwire encode FILE | kwire check)")
}

// isCapture recognises pcap (either byte order, µs or ns), pcapng and
// gzip (a gzipped pcap).
func isCapture(h []byte) bool {
	if len(h) < 4 {
		return false
	}
	for _, m := range [][]byte{{0xa1, 0xb2, 0xc3, 0xd4}, {0xd4, 0xc3, 0xb2, 0xa1}, {0xa1, 0xb2, 0x3c, 0x4d}, {0x4d, 0x3c, 0xb2, 0xa1}, {0x0a, 0x0d, 0x0d, 0x0a}} {
		if bytes.Equal(h, m) {
			return true
		}
	}
	return h[0] == 0x1f && h[1] == 0x8b
}

// checkJob is one exchange for a worker, numbered in completion order.
type checkJob struct {
	n   int
	x   check.Exchange
	cap *capture.Exchange // whose frames' buffers go back once checked
}

type checkDone struct {
	n   int
	an  *check.Analysis
	cap *capture.Exchange
}

// checkCapture streams a capture: exchanges are analysed on every core as
// they complete, then checked and written in completion order. It returns
// the capture's truncation note, nil when the file is whole.
func (c *checkConfig) checkCapture(o *checkOut, file string, in io.Reader) (*capture.Note, error) {
	jobs := make(chan checkJob, 4*c.jobs)
	outs := make(chan checkDone, 4*c.jobs)
	var wg sync.WaitGroup
	for i := 0; i < c.jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var z check.Analyzer
			for j := range jobs {
				outs <- checkDone{j.n, z.Analyze(&j.x), j.cap}
			}
		}()
	}
	// The capture's exchanges as the check reads them (a frame held
	// only in part is left out, and said once at the end).
	// Requests in flight at Ctrl-C are not judged as never answered.
	conv := capcheck.Conv{Stopped: c.it.interrupted}
	var frames framePool
	var res *capture.Result
	var readErr error
	n := 0
	go func() {
		opts := capture.Options{BrokerPorts: c.ports, Buffer: frames.get, KeepDamaged: true}
		c.keys.options(&opts, file == "-")
		res, readErr = capture.ReadFunc(in, opts, func(x *capture.Exchange) {
			jobs <- checkJob{n, conv.Exchange(x), x}
			n++
		})
		close(jobs)
		wg.Wait()
		close(outs)
	}()
	ck := check.NewChecker()
	inOrder(outs, func(d checkDone) int { return d.n }, func(d checkDone) {
		for _, f := range ck.Add(d.an) {
			o.put(file, &f)
		}
		c.prog.add(0, 1)
		// Checked: what the findings say is written, what the checker
		// keeps is its own, and the frames' buffers go back.
		frames.putExchange(d.cap)
	}, func() {})
	if readErr != nil {
		return nil, readErr
	}
	if res.Stopped {
		o.stopped, o.stoppedAt = true, res.Packets
	}
	for _, f := range conv.End(ck, res) {
		o.put(file, &f)
	}
	o.tls += res.TLS
	o.noKafka = noKafka(res, n, c.ports)
	for _, n := range res.Notes {
		if n.TLS || n.Limit {
			o.unchecked = append(o.unchecked, n)
		}
	}
	return res.Truncation, nil
}
