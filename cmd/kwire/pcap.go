package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/capture/summary"
	"github.com/kwire/kwire/internal/proxy"
	"github.com/kwire/kwire/internal/render"
	"github.com/kwire/kwire/internal/topicids"
)

// kwire pcap streams: the capture is read packet by packet
// (capture.ReadFunc), the exchanges are handed to the workers as they
// pair (or can no longer pair), in runs of a few (one at a time live),
// the workers decode on every core with decoders of their own, straight
// into the run's buffer, and the runs are written in the order the
// exchanges completed. Frames are copied into buffers given back once
// their exchange is decoded (framePool). Memory follows the open
// connections and the requests waiting for their response, not the size
// of the capture.

// portList is a repeatable --port flag.
type portList []uint16

func (p *portList) String() string {
	s := make([]string, len(*p))
	for i, x := range *p {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, ",")
}

func (p *portList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(part), 10, 16)
		if err != nil || n == 0 {
			if strings.Contains(v, ",") {
				return errorf("%q is no port: a port is a number from 1 to 65535", strings.TrimSpace(part))
			}
			return errorf("a port is a number from 1 to 65535")
		}
		*p = append(*p, uint16(n))
	}
	return nil
}

// noKafka says, of a capture with packets that gave no exchange at all,
// what they were, so that an empty output is not taken for a clean one;
// "" when it gave some, or said why (TLS).
func noKafka(res *capture.Result, exchanges int, ports portList) string {
	if exchanges > 0 || res.Packets == 0 || res.TLS > 0 {
		return ""
	}
	why := "no Kafka exchange found in its " + strconv.Itoa(res.Packets) + " packets"
	if res.SkippedBytes > 0 {
		why += "; " + strconv.FormatInt(res.SkippedBytes, 10) + " bytes did not read as frames and were skipped"
	}
	if res.NonKafka > 0 {
		on := "9092"
		if len(ports) > 0 {
			on = ports.String()
		}
		why += "; " + strconv.Itoa(res.NonKafka) + " read as other traffic (a broker on a port other than " + on + " is found by its requests; --port names one)"
	}
	return why
}

// exchangeFilter is which exchanges kwire pcap and kwire proxy show
// (--api, --errors-only, --client-id) and in what value JSON (jsonFlags).
type exchangeFilter struct {
	only       *schema.API // --api, or nil
	errorsOnly bool
	clientID   string
	jo         jsonForm
	pf         payloadFlags
	payload    payloadHook
	api        string
	jf         jsonFlags
}

func (x *exchangeFilter) register(fs *flag.FlagSet) {
	fs.StringVar(&x.api, "api", "", "only exchanges of this API (name or key)")
	fs.BoolVar(&x.errorsOnly, "errors-only", false, "only exchanges whose response holds a non-zero error code")
	fs.StringVar(&x.clientID, "client-id", "", "only requests with this client id")
	x.jf.register(fs)
	x.pf.register(fs)
}

// resolve checks the flags; an error is a usage error.
func (x *exchangeFilter) resolve(stderr io.Writer) (err error) {
	if x.only, err = apiNamed(x.api); err != nil {
		return err
	}
	if x.jo, err = x.jf.options(); err != nil {
		return err
	}
	if err = x.pf.checkForm(x.jo); err != nil {
		return err
	}
	x.payload, err = x.pf.hook(stderr)
	return err
}

// pcapConfig is what the flags of kwire pcap ask for.
type pcapConfig struct {
	file  string // "-" for standard input
	ports portList
	exchangeFilter
	summary  bool
	jobs     int
	strict   bool
	progress string
	keys     keyLogFlag
	// showSecrets leaves secrets as captured: kwire pcap zeroes them
	// before writing an exchange, as kwire proxy does.
	showSecrets bool
}

// live reports whether the capture comes from a pipe, where each line is
// flushed as soon as it is ready (tcpdump -w - | kwire pcap -).
func (c *pcapConfig) live() bool { return c.file == "-" }

// needCodes reports whether the response's error codes are needed.
func (c *pcapConfig) needCodes() bool { return c.errorsOnly || c.summary }

func runPcap(e *env, args []string) int {
	cfg, code := parsePcapFlags(e, args)
	if code >= 0 {
		return code
	}
	name := cfg.file
	if cfg.live() {
		name = ""
	}
	in, prog, done, code := openStreamed(e, name, cfg.progress, "exchanges", !cfg.summary)
	if code >= 0 {
		return code
	}
	defer done()
	it := catchInterrupt()
	defer it.release()
	w := bufio.NewWriterSize(e.stdout, 1<<20)
	run := pcapRun{cfg: cfg, w: w, out: e.stdout, stats: map[int16]*apiStats{}, errCodes: map[apiCode]int{}, prog: prog}
	run.stderr = run.prog.Writer(e.stderr)
	if run.prog != nil {
		in = &countingReader{r: in, p: run.prog}
	}
	in = stopReader{in, e} // a failed write ends the reading
	// Ctrl-C ends the reading as the capture's end would (interrupt.go),
	// the wait for the first bytes, which tell a pcap from a text, too.
	in = it.reader(in)
	// A text dump of packets (tshark -x, tcpdump -X) is a capture: read
	// whole from a file, as it comes from standard input.
	in, err := captureIn(run.stderr, cfg.file, in)
	var res *capture.Result
	if err == nil {
		res, err = run.decode(in)
	}
	run.prog.finishAt(it.interrupted())
	if it.interrupted() && errors.Is(err, capture.ErrStopped) {
		fail(e, "%s: interrupted (%s) before the capture's first packet", cfg.file, it.name())
		return it.status()
	}
	if e.outFailed() != nil {
		return 1 // run says why; the reading was cut short for it, not by the capture
	}
	if terr := textFailed(in); terr != nil {
		err = terr // a mistake in the text, not a capture cut short
	}
	if err != nil {
		w.Flush()
		fail(e, "%v", fileError(cfg.file, err))
		return 1
	}
	for _, n := range res.Notes {
		fail(e, "%s: %s", cfg.file, n.String())
	}
	if s := cfg.pf.ids.FullNote(); s != "" {
		fail(e, "%s: %s", cfg.file, s)
	}
	if why := noKafka(res, run.exchanges, cfg.ports); why != "" {
		fail(e, "%s: %s", cfg.file, why)
	}
	if run.kept == 0 && run.exchanges > 0 && !res.Stopped {
		if why := run.unmatched.why(&cfg.exchangeFilter, run.exchanges); why != "" {
			fail(e, "%s: %s", cfg.file, why)
		}
	}
	if res.TLS > 0 && cfg.keys.file == "" {
		fail(e, "%s: %s", cfg.file, keyLogHint(res.TLS))
	}
	if why := cfg.keys.missing(res.TLS); why != "" {
		fail(e, "%s: %s", cfg.file, why)
	}
	if cfg.summary {
		run.printSummary(res)
	}
	w.Flush()
	if res.Stopped {
		defer fail(e, "%s: %s", cfg.file, interruptedAfter(it, res, run.exchanges, "exchange"))
	}
	if more := run.guesses - maxGuessLines; more > 0 {
		fail(e, "%s: %d more unpaired responses read by a guessed API, not said above (each line's \"guessed\" says it)", cfg.file, more)
	}
	if run.redacted > 0 {
		fail(e, "%s: secrets hidden in %s, each line's \"redacted\" naming them; --show-secrets shows them", cfg.file, plural(run.redacted, "exchange"))
	}
	status := 0
	if run.failed > 0 {
		// Which, and where: the first maxFailuresShown, by their
		// packets, the rest counted in one line, as kwire decode says
		// its failing frames.
		fail(e, "%s frames that failed to decode (each has a requestError or responseError in its line):", pluralOf(run.failed, "exchange had", "exchanges had"))
		for _, f := range run.failures {
			fail(e, "%s", f)
		}
		if n := run.failed - len(run.failures); n > 0 {
			fail(e, "%s", notShownLine(n, "exchange", run.firstNotShown, run.failed, run.kept))
		}
		status = 1
	}
	if cfg.strict && run.warned > 0 {
		fail(e, "%d exchanges had warnings (--strict)", run.warned)
		status = 1
	}
	if cfg.strict && res.Gaps > 0 {
		// Each gap is said above, where it is.
		fail(e, "%s: %d gaps: bytes missing from the capture (lost, or cut by the snap length) (--strict)", cfg.file, res.Gaps)
		status = 1
	}
	if cfg.strict && res.Truncated() {
		// Its note, said above, tells where.
		fail(e, "%s: the capture is truncated or corrupt, read up to there (--strict)", cfg.file)
		status = 1
	}
	if cfg.strict && res.TLS > 0 {
		// Each is said above: encrypted, not decoded.
		fail(e, "%s: %s left encrypted, not decoded (--strict)", cfg.file, plural(res.TLS, "TLS connection"))
		status = 1
	}
	if res.Stopped {
		return it.status()
	}
	return status
}

// interruptedAfter says that a signal stopped the reading of a capture,
// and how far it went: "interrupted (SIGINT): read up to packet 1234,
// 567 exchanges so far; the rest of the capture was not read".
func interruptedAfter(it *interrupt, res *capture.Result, n int, unit string) string {
	return "interrupted (" + it.name() + "): read up to packet " + strconv.Itoa(res.Packets) + ", " +
		pluralOf(n, unit, unit+"s") + " so far; the rest of the capture was not read"
}

func parsePcapFlags(e *env, args []string) (*pcapConfig, int) {
	fs := newFlags(e, "pcap", "[flags] FILE|-  (pcap, pcapng, a text dump of packets as tshark -x or tcpdump -X print them, or a followed TCP stream, tshark -z follow,tcp,yaml,0; - reads standard input as it comes: tcpdump -i lo -U -w - port 9092 | kwire pcap -, or tcpdump -l -i lo -X port 9092 | kwire pcap -)",
		"kwire pcap kfake-clients.pcapng",
		"kwire pcap - < kafka-ipv6-null.pcapng",
		"kwire pcap --summary kfake-clients.pcapng",
		"kwire pcap --api JoinGroup --client-id kwire-group kfake-clients.pcapng",
		"kwire pcap --kafka --strict kfake-clients.pcapng")
	cfg := &pcapConfig{}
	fs.Var(&cfg.ports, "port", "broker `PORT` (repeatable, or comma-separated; default 9092, else inferred from who sends requests)")
	cfg.exchangeFilter.register(fs)
	fs.BoolVar(&cfg.summary, "summary", false, "print a table per API: counts, versions (those of responses whose request the capture lacks guessed, marked ?: v13×11?), bytes, error codes, latency percentiles; and what the capture lost (gaps, frames held only in part, bytes skipped)")
	fs.BoolVar(&cfg.strict, "strict", false, "exit 1 when any exchange shown has a warning (a lenient reading or a limit hit), the capture lost bytes (gaps, a snap length), is truncated or corrupt, or holds TLS connections left encrypted")
	fs.IntVar(&cfg.jobs, "jobs", runtime.NumCPU(), "decoders working at once")
	fs.StringVar(&cfg.progress, "progress", "auto", progressFlagUsage)
	cfg.keys.register(fs)
	fs.BoolVar(&cfg.showSecrets, "show-secrets", false, showSecretsUsage)
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return nil, code
	}

	if len(args) > 1 {
		// Conversations are paired within one capture.
		fail(e, "pcap reads one capture file, not %d: run it once for each, or join them first (mergecap -w all.pcapng %s, from Wireshark)", len(args), shellWords(args))
		return nil, 2
	}
	if len(args) != 1 {
		fail(e, "pcap needs one capture file, or - for standard input")
		return nil, 2
	}
	cfg.file = args[0]
	if !cfg.keys.load(e, cfg.live()) {
		return nil, 2
	}
	if err := cfg.exchangeFilter.resolve(e.stderr); err != nil {
		fail(e, "%v", err)
		return nil, 2
	}
	if cfg.jobs < 0 {
		fail(e, "--jobs must not be negative, not %d", cfg.jobs)
		return nil, 2
	}
	cfg.jobs = max(cfg.jobs, 1)
	return cfg, -1
}

// pcapRun is one run of kwire pcap: the pipeline's writing end and what
// the summary adds up.
type pcapRun struct {
	cfg       *pcapConfig
	w         *bufio.Writer
	out       io.Writer // what w writes to
	stderr    io.Writer
	prog      *progress // nil when not shown
	stats     map[int16]*apiStats
	errCodes  map[apiCode]int
	exchanges int // exchanges in the capture, filtered out or not
	kept      int // exchanges shown (through the filters)
	failed    int
	failures  []string // the first maxFailuresShown failed exchanges, named, with their errors
	// firstNotShown names the first failed exchange past them.
	firstNotShown string
	warned        int // exchanges shown with warnings
	redacted      int // exchanges shown with secrets hidden (zeroed, or masked)
	guesses       int // unpaired responses read by a guessed API (the first maxGuessLines said)
	partial       int // frames the capture holds only in part (Frame.Missing), filtered out or not
	// unmatched is what the filters left out, for saying why none was
	// shown when none was.
	unmatched filtersMissed
	// newer holds the API versions newer than kwire knows said so far
	// (newerVersion), each said once a run, at its first exchange shown.
	newer newerSaid
}

// maxGuessLines is how many unpaired responses kwire pcap says on
// standard error it read by a guessed API; the rest are counted at the
// end (each line's "guessed" says it), as the capture's notes are past
// their cap.
const maxGuessLines = 5

// pcapJob is a run of exchanges for a worker, in completion order: a
// run's lines are decoded into one buffer and written together (in pieces,
// when they grow past pieceBytes). On a file a run holds up to runExchanges exchanges or
// runBytes of frames; live, one exchange, shown as soon as it is read.
type pcapJob struct {
	xs []*capture.Exchange
}

const (
	runExchanges = 8
	runBytes     = 32 << 10
)

// pcapOut is a piece of a worker's answer for a run (all of it unless its
// lines grew past pieceBytes): the lines one after another in buf, and per
// exchange what the summary needs.
type pcapOut struct {
	buf   *[]byte
	lines []runLine
}

// runLine is one exchange of a run: where its line ends in the run's
// buffer (it starts where the one before it ended; empty when filtered
// out), and what the summary needs.
type runLine struct {
	end       int
	guessed   []byte // the line for standard error saying how an unpaired response was guessed
	diag      []byte // lines for standard error: warnings
	newer     []sideNewer
	keep      bool
	failed    bool
	failure   string // for a failed one, which frame, and its error
	failureAt string // which frame alone
	warned    bool
	zeroed    bool // secrets hidden in its frames (its "redacted")
	stat      exchangeStat
	// For one a filter left out: which (the first of --api, --client-id
	// and --errors-only, in that order, that it fails), and what that
	// filter read of it, its API or its request's client id (hasID).
	dropped  filterKind
	key      int16
	clientID string
	hasID    bool
}

// exchangeStat is what one exchange adds to the summary.
type exchangeStat struct {
	key, ver   int16
	bytes      int64
	latency    time.Duration
	paired     bool
	noResponse bool
	guessed    bool // an unpaired response: its API and version guessed from its bytes
	codes      []int16
}

// decode reads the capture, decodes its exchanges on cfg.jobs workers and
// writes them in order.
func (p *pcapRun) decode(in io.Reader) (*capture.Result, error) {
	bufs := &sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	var frames framePool
	var res *capture.Result
	var readErr error
	inPieces(p.cfg.jobs, 4*p.cfg.jobs, func() func(pcapJob, func(pcapOut)) {
		wk := pcapWorker{cfg: p.cfg}
		return func(j pcapJob, emit func(pcapOut)) {
			o := pcapOut{buf: bufs.Get().(*[]byte)}
			for i, x := range j.xs {
				var l runLine
				*o.buf, l = wk.exchange(x, *o.buf)
				l.end = len(*o.buf)
				o.lines = append(o.lines, l)
				// The line holds what it needs of the frames: their
				// buffers go back for the frames read next.
				frames.putExchange(x)
				if len(*o.buf) >= pieceBytes && i < len(j.xs)-1 {
					emit(o)
					o = pcapOut{buf: bufs.Get().(*[]byte)}
				}
			}
			emit(o)
		}
	}, func(send func(pcapJob)) {
		var run []*capture.Exchange
		size := 0
		flush := func() {
			if len(run) > 0 {
				send(pcapJob{run})
				size, run = 0, nil
			}
		}
		opts := capture.Options{BrokerPorts: p.cfg.ports, Buffer: frames.get, KeepDamaged: true}
		p.cfg.keys.options(&opts, p.cfg.live())
		res, readErr = capture.ReadFunc(in, opts, func(x *capture.Exchange) {
			if x.Request != nil && x.Response != nil && topicids.Learns(x.APIKey) {
				// In capture order, before any exchange after it is
				// decoded: the topic ids a Metadata response names.
				p.cfg.pf.ids.LearnFrom(x.Response.Bytes, x.APIKey, x.APIVersion)
			}
			if run == nil {
				run = make([]*capture.Exchange, 0, runExchanges)
			}
			run = append(run, x)
			for _, f := range []*capture.Frame{x.Request, x.Response} {
				if f != nil {
					size += len(f.Bytes)
					if f.Missing > 0 {
						p.partial++
					}
				}
			}
			if p.cfg.live() || len(run) == runExchanges || size >= runBytes {
				flush()
			}
		})
		flush()
	}, func(o pcapOut) { p.put(o, bufs) })
	return res, readErr
}

// framePool keeps the buffers of frames whose exchanges are decoded, for
// the capture to copy the next frames into: by powers of two, so that a
// buffer is found for any size. Without it each frame is garbage once
// written, and the garbage collections it costs (each one scanning the
// schema tables) took about a tenth of kwire pcap's time. It keeps at
// most maxFreeFrames bytes; a lock (one per frame) rather than a
// sync.Pool, whose Put allocates the slice's header each time.
type framePool struct {
	mu    sync.Mutex
	free  [32][][]byte
	bytes int
}

// maxFreeFrames bounds the bytes a framePool keeps for reuse: more than
// the frames in flight between the capture and the writer, as a rule.
const maxFreeFrames = 64 << 20

// get returns an empty buffer of capacity n or more.
func (p *framePool) get(n int) []byte {
	k := bits.Len(uint(n - 1)) // 1<<k >= n
	if k >= len(p.free) {
		return nil // the capture allocates it
	}
	p.mu.Lock()
	if l := len(p.free[k]); l > 0 {
		b := p.free[k][l-1]
		p.free[k] = p.free[k][:l-1]
		p.bytes -= cap(b)
		p.mu.Unlock()
		return b
	}
	p.mu.Unlock()
	return make([]byte, 0, 1<<k)
}

// putExchange takes back the buffers of x's frames.
func (p *framePool) putExchange(x *capture.Exchange) {
	p.put(x.Request)
	p.put(x.Response)
}

// put takes back the buffer of f (nil: none).
func (p *framePool) put(f *capture.Frame) {
	if f == nil {
		return
	}
	b := f.Bytes[:0]
	f.Bytes = nil
	k := bits.Len(uint(cap(b) - 1))
	if k >= len(p.free) || cap(b) != 1<<k {
		return
	}
	p.mu.Lock()
	if p.bytes+cap(b) <= maxFreeFrames {
		p.free[k] = append(p.free[k], b)
		p.bytes += cap(b)
	}
	p.mu.Unlock()
}

// put writes a piece of a run's lines: in one write, but for the lines
// before an exchange's standard-error lines, which are written first. On
// a live capture each piece (an exchange) is flushed as it comes.
func (p *pcapRun) put(o pcapOut, bufs *sync.Pool) {
	buf, from := *o.buf, 0
	for i := range o.lines {
		l := &o.lines[i]
		p.exchanges++
		p.prog.add(0, 1)
		if !l.keep {
			p.unmatched.add(l)
			continue
		}
		p.add(l)
		var guessed []byte
		if len(l.guessed) > 0 {
			if p.guesses++; p.guesses <= maxGuessLines {
				guessed = l.guessed
			}
		}
		var newer []byte
		for _, sn := range l.newer {
			if p.newer.first(sn.n) {
				newer = append(append(append(newer, "kwire: "...), sn.prefix...), sn.n.String()+"\n"...)
			}
		}
		if len(newer) > 0 || len(guessed) > 0 || len(l.diag) > 0 {
			p.w.Write(buf[from:l.end])
			from = l.end
			p.w.Flush() // the lines before it first
			p.stderr.Write(newer)
			p.stderr.Write(guessed)
			p.stderr.Write(l.diag)
		}
	}
	p.write(buf[from:])
	if p.cfg.live() {
		p.w.Flush()
	}
	if cap(buf) <= 4*pieceBytes { // one huge exchange's buffer is not kept
		*o.buf = buf[:0]
		bufs.Put(o.buf)
	}
}

// write writes a run's lines: a big run straight to the output, after
// what is buffered (copying it into the buffer first took 4% of pcap's
// time), a small one into the buffer.
func (p *pcapRun) write(b []byte) {
	if len(b) < 64<<10 {
		p.w.Write(b)
		return
	}
	p.w.Flush()
	p.out.Write(b)
}

// add counts an exchange that was kept.
func (p *pcapRun) add(o *runLine) {
	p.kept++
	if o.failed {
		p.failed++
		if len(p.failures) < maxFailuresShown {
			p.failures = append(p.failures, o.failure)
		} else if p.firstNotShown == "" {
			p.firstNotShown = o.failureAt
		}
	}
	if o.warned {
		p.warned++
	}
	if o.zeroed {
		p.redacted++
	}
	countStat(p.stats, p.errCodes, &o.stat)
}

// countStat adds exchange s to a summary: its API's row in stats (made
// when new) and its error codes in errCodes. kwire pcap and kwire proxy
// count with it.
func countStat(stats map[int16]*apiStats, errCodes map[apiCode]int, s *exchangeStat) {
	st := stats[s.key]
	if st == nil {
		st = &apiStats{name: statsName(s.key), key: s.key, versions: map[int16]int{}, guessed: map[int16]int{}}
		stats[s.key] = st
	}
	st.count++
	switch {
	case s.key < 0: // raw tokens, and responses of no API known, have no version
	case s.guessed:
		st.guessed[s.ver]++
	default:
		st.versions[s.ver]++
	}
	st.bytes += s.bytes
	if s.paired {
		st.latencies.Add(s.latency)
	} else if !s.noResponse {
		st.unpaired++
	}
	for _, c := range s.codes {
		errCodes[apiCode{s.key, c}]++
	}
}

// pcapWorker decodes exchanges with decoders of its own, reused from one
// exchange to the next: value JSON straight from the bytes (the tree-less
// path), into buffers of its own.
type pcapWorker struct {
	cfg          *pcapConfig
	req, rsp     codec.Decoder
	reqJS, rspJS []byte
	diag         []byte        // the exchange's warnings for standard error
	newer        []sideNewer   // its sides decoded at a version newer than kwire knows
	guessed      []byte        // its line saying how an unpaired response was guessed
	redacted     []string      // the value-JSON paths of the secrets hidden in the exchange
	zero         codec.Decoder // the secrets' (proxy.ZeroSecrets): req's and rsp's frames stay theirs
}

// decodedFrame is one side of an exchange once decoded.
type decodedFrame struct {
	json  []byte // its value JSON (partial after an error); nil when there is nothing to show
	err   error
	guess *codec.Guess // how a response that answered no request was read
}

// exchange appends x's line to line (nothing when a filter drops it) and
// says what the summary needs of it. A request that holds its header's
// first 12 bytes says the API and version the capture read there: the
// line's head is then written first and both frames are decoded straight
// into the line, with no copy. An unpaired response is decoded aside
// first, for the API it is guessed to be.
func (wk *pcapWorker) exchange(x *capture.Exchange, line []byte) ([]byte, runLine) {
	if x.SASLToken {
		return wk.token(x, line)
	}
	var out runLine
	cfg := wk.cfg
	key, ver := x.APIKey, x.APIVersion
	if x.Request != nil {
		if cfg.only != nil && key != cfg.only.Key {
			out.dropped, out.key = byAPI, key
			return line, out
		}
		if cfg.clientID != "" {
			if id := requestClientID(x.Request.Bytes); id != cfg.clientID {
				out.dropped, out.clientID, out.hasID = byClientID, id, true
				return line, out
			}
		}
	} else if cfg.clientID != "" {
		out.dropped = byClientID // no request, no client id
		return line, out
	}
	jo := cfg.jo
	if cfg.summary {
		jo = jsonForm{records: codec.RecordsSize} // only the error codes are wanted
	}
	wk.diag = wk.diag[:0]
	wk.newer = wk.newer[:0]
	wk.guessed = wk.guessed[:0]
	wk.redacted = wk.redacted[:0]
	zero := !cfg.summary && !cfg.showSecrets
	start := len(line)
	var direct *jsontext.Writer
	if !cfg.summary && x.Request != nil && len(x.Request.Bytes) >= 12 {
		direct = &jsontext.Writer{B: line}
		exchangeHead(direct, x, key, ver, nil)
	}
	var req, rsp decodedFrame
	var warned bool
	if x.Request != nil {
		var info *codec.Frame
		o := jo.apply(codec.Options{})
		cfg.pf.setOptions(&o, cfg.payload, true)
		if zero {
			wk.redacted = proxy.ZeroSecrets(&wk.zero, x.Request.Bytes, o, key, ver, "request", wk.redacted)
		}
		req, info = decodeSide(&wk.req, &wk.reqJS, x.Request.Bytes, o, direct, "request", "requestError")
		key, ver = info.APIKey, info.Version
		warned = wk.diagnose(x, "request", info)
	}
	var codes []int16
	if x.Response != nil {
		o := codec.Options{Response: true, APIKey: key, Version: ver}
		cfg.pf.setOptions(&o, cfg.payload, true)
		if x.Request == nil {
			o.APIKey, o.Version = codec.Any, codec.Any // guessed
		} else if zero {
			wk.redacted = proxy.ZeroSecrets(&wk.zero, x.Response.Bytes, o, key, ver, "response", wk.redacted)
		}
		var info *codec.Frame
		rsp, info = decodeSide(&wk.rsp, &wk.rspJS, x.Response.Bytes, jo.apply(o), direct, "response", "responseError")
		if x.Request == nil {
			if info.Guess == nil || len(info.Guess.Candidates) == 0 {
				rsp = decodedFrame{err: errorf("an unpaired response that fits no API")}
				info.Warnings = nil
			} else {
				key, ver = info.APIKey, info.Version
				if zero {
					// Written again from the zeroed bytes, which may fit
					// no API now: the guess made stays.
					var made *codec.Guess
					if wk.redacted, made = proxy.ZeroGuessed(&wk.zero, x.Response.Bytes, o, info, wk.redacted); made != nil {
						rsp, info = decodeSide(&wk.rsp, &wk.rspJS, x.Response.Bytes, jo.apply(o), nil, "response", "responseError")
						if info.Guess == nil || len(info.Guess.Candidates) == 0 {
							info.Guess = made
						}
					}
				}
				rsp.guess = info.Guess
			}
		}
		if cfg.needCodes() {
			codes = appendCodes(codes, info) // a copy: the decoder's are reused
		}
		if wk.diagnose(x, "response", info) {
			warned = true
		}
	}
	if direct != nil {
		line = direct.B
	}
	if cfg.only != nil && key != cfg.only.Key {
		out.dropped, out.key = byAPI, key // an unpaired response's guessed API
		return line[:start], out
	}
	if cfg.errorsOnly && len(codes) == 0 {
		out.dropped = byErrors
		return line[:start], out
	}
	out.keep = true
	// A frame the capture holds only in part (a snap length, lost
	// packets: said in the capture's notes, and by --strict's exit)
	// still names its exchange; that it reads only so far is no failure
	// of its bytes.
	reqFailed := req.err != nil && x.Request.Missing == 0
	rspFailed := rsp.err != nil && x.Response.Missing == 0
	out.failed = reqFailed || rspFailed
	switch {
	case reqFailed:
		out.failureAt, out.failure = failedSide(x, x.Request, "request", req.err)
	case rspFailed:
		out.failureAt, out.failure = failedSide(x, x.Response, "response", rsp.err)
	}
	out.warned = warned
	out.zeroed = len(wk.redacted) > 0
	out.stat = statOf(x, key, ver, codes)
	if len(wk.diag) > 0 {
		out.diag = append([]byte(nil), wk.diag...)
	}
	if len(wk.newer) > 0 {
		out.newer = append([]sideNewer(nil), wk.newer...)
	}
	if len(wk.guessed) > 0 {
		out.guessed = append([]byte(nil), wk.guessed...)
	}
	switch {
	case direct != nil: // line is direct.B
		writeRedacted(direct, wk.redacted)
		direct.EndObject()
		line = append(direct.B, '\n')
	case !cfg.summary:
		line = appendExchange(line, x, key, ver, req, rsp, wk.redacted)
	}
	return line, out
}

// saslTokens is the summary's key for raw SASL tokens (no API has it).
const saslTokens = -2

// statsName is the name of the summary's row for key: its API's, "SASL
// tokens", "(unknown)" for responses that fit no API (-1: their request
// was not captured), or the number.
func statsName(key int16) string {
	if a := schema.ByKey(key); a != nil {
		return a.Name
	} else if key == saslTokens {
		return "SASL tokens"
	} else if key == -1 {
		return "(unknown)"
	}
	return strconv.Itoa(int(key))
}

// token is exchange for raw SASL tokens (capture.Exchange.SASLToken): each
// side read as the SASL message it holds. They belong to no API and carry
// no client id or error code, so --api, --client-id and --errors-only
// leave them out.
func (wk *pcapWorker) token(x *capture.Exchange, line []byte) ([]byte, runLine) {
	var out runLine
	cfg := wk.cfg
	switch {
	case cfg.only != nil:
		out.dropped, out.key = byAPI, saslTokens
		return line, out
	case cfg.clientID != "":
		out.dropped = byClientID
		return line, out
	case cfg.errorsOnly:
		out.dropped = byErrors
		return line, out
	}
	out.keep = true
	out.stat = statOf(x, saslTokens, -1, nil)
	if cfg.summary {
		return line, out
	}
	wk.diag = wk.diag[:0]
	wk.newer = wk.newer[:0]
	wk.guessed = wk.guessed[:0]
	wk.redacted = wk.redacted[:0]
	if !cfg.showSecrets {
		wk.redacted = proxy.ZeroTokens(&wk.zero, codec.Options{}, frameBytes(x.Request), frameBytes(x.Response))
		out.zeroed = len(wk.redacted) > 0
	}
	w := &jsontext.Writer{B: line}
	exchangeHead(w, x, -1, -1, nil)
	for _, side := range [...]struct {
		f             *capture.Frame
		dec           *codec.Decoder
		scratch       *[]byte
		name, errName string
	}{{x.Request, &wk.req, &wk.reqJS, "request", "requestError"}, {x.Response, &wk.rsp, &wk.rspJS, "response", "responseError"}} {
		if side.f == nil {
			continue
		}
		o := cfg.jo.apply(codec.Options{Data: "sasl"})
		d, info := decodeSide(side.dec, side.scratch, side.f.Bytes, o, w, side.name, side.errName)
		if wk.diagnose(x, side.name, info) {
			out.warned = true
		}
		if d.err != nil && side.f.Missing == 0 && !out.failed {
			out.failed = true
			out.failureAt, out.failure = failedSide(x, side.f, side.name, d.err)
		}
	}
	if len(wk.diag) > 0 {
		out.diag = append([]byte(nil), wk.diag...)
	}
	if len(wk.newer) > 0 {
		out.newer = append([]sideNewer(nil), wk.newer...)
	}
	writeRedacted(w, wk.redacted)
	w.EndObject()
	return append(w.B, '\n'), out
}

// decodeSide decodes one frame of an exchange: into the line w writes,
// as its member name (then errName, when it fails), or when w is nil
// into scratch, for appendExchange.
func decodeSide(dec *codec.Decoder, scratch *[]byte, b []byte, o codec.Options, w *jsontext.Writer, name, errName string) (decodedFrame, *codec.Frame) {
	var d decodedFrame
	var info *codec.Frame
	if w == nil {
		*scratch, info, d.err = dec.AppendJSON((*scratch)[:0], b, o)
		d.json = *scratch
		return d, info
	}
	w.Key(name)
	w.Value()
	w.B, info, d.err = dec.AppendJSON(w.B, b, o)
	writeSide(w, name, errName, decodedFrame{err: d.err}) // the error alone
	return d, info
}

// sideNewer is a side of an exchange decoded at a version newer than
// kwire knows, named by prefix (exchangePrefix): its newerVersion line
// goes to standard error before the exchange's warnings, unless the run
// said it already (the workers decode exchanges out of order; the run
// writes them in order, and says it at the first such exchange shown).
type sideNewer struct {
	prefix string
	n      newerVersion
}

// diagnose adds the standard-error lines of one side of x: a version
// newer than kwire knows (apart: the run says it once), a guessed reading
// (apart: the run says the first few), warnings. It reports whether there
// were warnings.
func (wk *pcapWorker) diagnose(x *capture.Exchange, side string, info *codec.Frame) bool {
	if n, ok := newerOf(info); ok {
		wk.newer = append(wk.newer, sideNewer{exchangePrefix(x.Conn.ID, x.CorrelationID, side), n})
	}
	if info.Guess == nil && len(info.Warnings) == 0 {
		return false
	}
	prefix := exchangePrefix(x.Conn.ID, x.CorrelationID, side)
	wk.guessed = appendDiagnostics(wk.guessed, prefix, info.Guess, nil)
	wk.diag = appendDiagnostics(wk.diag, prefix, nil, info.Warnings)
	return len(info.Warnings) > 0
}

// failedSide names the side of x whose frame f failed with err, for
// standard error: where, "packet 20, conn 2 correlation 8 response", and
// the line saying it, "packet 20: conn 2 correlation 8 response: at byte
// 21: ...", the packet (numbered as Wireshark numbers them) that
// completed the frame first, as its line's requestFrame or responseFrame.
func failedSide(x *capture.Exchange, f *capture.Frame, side string, err error) (where, line string) {
	s := ""
	if f != nil && f.PacketIndex > 0 {
		s = "packet " + strconv.Itoa(f.PacketIndex)
	}
	prefix := exchangePrefix(x.Conn.ID, x.CorrelationID, side)
	where = strings.TrimSuffix(prefix, ": ")
	if s != "" {
		where, line = s+", "+where, s+": "+prefix+err.Error()
	} else {
		line = prefix + err.Error()
	}
	return where, line
}

// exchangePrefix names one side of an exchange on standard error as its
// line shows it: "conn 2 correlation 7 response: ".
func exchangePrefix(conn int, correlation int32, side string) string {
	return "conn " + strconv.Itoa(conn) + " correlation " + strconv.Itoa(int(correlation)) + " " + side + ": "
}

func statOf(x *capture.Exchange, key, ver int16, codes []int16) exchangeStat {
	s := exchangeStat{key: key, ver: ver, paired: x.Paired(), latency: x.Latency, noResponse: x.NoResponseExpected, codes: codes,
		guessed: x.Request == nil && x.Response != nil && !x.SASLToken}
	if x.Request != nil {
		s.bytes += int64(len(x.Request.Bytes))
	}
	if x.Response != nil {
		s.bytes += int64(len(x.Response.Bytes))
	}
	return s
}

// requestClientID reads the client id from a request's header, "" when it
// has none.
func requestClientID(b []byte) string {
	h, err := codec.ParseRequestHeader(b, codec.Options{})
	if err != nil || h.ClientID == nil {
		return ""
	}
	return *h.ClientID
}

// appendExchange appends one exchange's NDJSON line: where and when it
// happened, then the request and response in value JSON.
func appendExchange(out []byte, x *capture.Exchange, key, ver int16, req, rsp decodedFrame, redacted []string) []byte {
	w := jsontext.Writer{B: out}
	exchangeHead(&w, x, key, ver, rsp.guess)
	writeSide(&w, "request", "requestError", req)
	writeSide(&w, "response", "responseError", rsp)
	writeRedacted(&w, redacted)
	w.EndObject()
	return append(w.B, '\n')
}

// writeRedacted writes "redacted", the value-JSON paths of the secrets
// zeroed in an exchange's frames ("request.body.authBytes"), when there
// are any.
func writeRedacted(w *jsontext.Writer, paths []string) {
	if len(paths) == 0 {
		return
	}
	w.Key("redacted")
	w.Strings(paths)
}

// frameBytes is f's bytes, nil for no frame.
func frameBytes(f *capture.Frame) []byte {
	if f == nil {
		return nil
	}
	return f.Bytes
}

// exchangeHead opens an exchange's line and writes what comes before its
// frames: where and when it happened, and how an unpaired response was
// guessed (guess; nil for none).
func exchangeHead(w *jsontext.Writer, x *capture.Exchange, key, ver int16, guess *codec.Guess) {
	var scratch [128]byte
	w.BeginObject()
	conn := append(scratch[:0], "conn "...)
	conn = strconv.AppendInt(conn, int64(x.Conn.ID), 10)
	conn = appendEndpoint(append(conn, ' '), x.Conn.Client)
	conn = appendEndpoint(append(conn, "->"...), x.Conn.Broker)
	w.Key("conn")
	w.String(conn)
	w.Key("connId")
	w.Int(int64(x.Conn.ID))
	if x.Conn.TLS != "" {
		w.Key("tls")
		w.Text(x.Conn.TLS)
	}
	w.Key("apiKey")
	w.Int(int64(key))
	if a := schema.ByKey(key); a != nil {
		w.Key("apiName")
		w.Text(a.Name)
	}
	w.Key("apiVersion")
	w.Int(int64(ver))
	w.Key("correlationId")
	w.Int(int64(x.CorrelationID))
	w.Key("paired")
	w.Bool(x.Paired())
	for _, flag := range []struct {
		key string
		on  bool
	}{{"saslToken", x.SASLToken}, {"noResponseExpected", x.NoResponseExpected}, {"evicted", x.Evicted}, {"connClosed", x.ConnClosed}} {
		if flag.on {
			w.Key(flag.key)
			w.Bool(true)
		}
	}
	// The packets (numbered as Wireshark numbers frames) that completed
	// the request and the response: a response leads to its request's.
	// (The proxy's exchanges come from no capture: they have none.)
	if x.Request != nil && x.Request.PacketIndex > 0 {
		w.Key("requestFrame")
		w.Int(int64(x.Request.PacketIndex))
	}
	if x.Response != nil && x.Response.PacketIndex > 0 {
		w.Key("responseFrame")
		w.Int(int64(x.Response.PacketIndex))
	}
	if x.Request != nil {
		w.Key("requestTime")
		w.String(appendExchangeTime(scratch[:0], x.Request.Time))
	}
	if x.Response != nil {
		w.Key("responseTime")
		w.String(appendExchangeTime(scratch[:0], x.Response.Time))
	}
	if x.Paired() {
		w.Key("latencyMs")
		w.Value()
		w.B = strconv.AppendFloat(w.B, capture.Millis(x.Latency), 'f', 3, 64)
	}
	if guess != nil && len(guess.Candidates) > 0 {
		w.Key("guessed")
		w.BeginObject()
		w.Key("confidence")
		w.Value()
		w.B = strconv.AppendFloat(w.B, guess.Candidates[0].Confidence, 'f', 2, 64)
		w.EndObject()
	}
}

// appendExchangeTime appends t as a line writes its times: RFC 3339 in
// UTC with nine fractional digits always, trailing zeros kept
// (RFC3339Nano drops them: ".01Z" beside ".004Z"), so that a line's
// times, and lines', align and sort as text; nine holds any capture's
// resolution, nanoseconds included, and the proxy's clock. The digits are
// put after time's own RFC 3339 (which it writes without parsing a
// layout: a layout of nine zeros costs some 1,700 instructions a time).
func appendExchangeTime(dst []byte, t time.Time) []byte {
	dst = t.UTC().AppendFormat(dst, time.RFC3339) // "...T15:04:05Z"
	dst = append(dst[:len(dst)-1], '.')
	ns := t.Nanosecond()
	for d := 100_000_000; d > 0; d /= 10 {
		dst = append(dst, byte('0'+ns/d%10))
	}
	return append(dst, 'Z')
}

// writeSide writes a frame's value JSON (partial after an error) and its
// error, as "request"/"requestError" or "response"/"responseError", an
// object: {"message","offset","path","expected","found"}.
func writeSide(w *jsontext.Writer, name, errName string, d decodedFrame) {
	if d.json != nil {
		w.Key(name)
		w.Raw(d.json)
	}
	if d.err != nil {
		// The error object batch's lines give: where, and why.
		w.Key(errName)
		var de *codec.DecodeError
		if !errors.As(d.err, &de) {
			de = nil
		}
		writeErrorObject(w, de, d.err.Error())
	}
}

// appendEndpoint appends ip:port ([ip]:port for IPv6).
func appendEndpoint(out []byte, ep capture.Endpoint) []byte {
	if ep.IP.Is6() {
		out = ep.IP.AppendTo(append(out, '['))
		out = append(out, ']')
	} else {
		out = ep.IP.AppendTo(out)
	}
	return strconv.AppendUint(append(out, ':'), uint64(ep.Port), 10)
}

type apiStats struct {
	name      string
	key       int16
	versions  map[int16]int // of the requests (and of their answers)
	guessed   map[int16]int // of unpaired responses: guessed from their bytes
	count     int
	bytes     int64
	latencies summary.Latencies
	unpaired  int
}

// printSummary writes the table per API and the error codes seen.
func (p *pcapRun) printSummary(res *capture.Result) {
	w := p.w
	fmt.Fprintf(w, "%s, %s, %s, %s", plural(res.Packets, "packet"), plural(res.Connections, "connection"), plural(p.exchanges, "exchange"), plural(res.NonKafka, "non-Kafka packet"))
	if res.TLSDecrypted > 0 {
		fmt.Fprintf(w, ", %s decrypted", plural(res.TLSDecrypted, "TLS connection"))
	}
	if res.TLS > 0 {
		fmt.Fprintf(w, ", %s among them (encrypted, not decoded)", plural(res.TLS, "TLS connection"))
	}
	fmt.Fprint(w, "\n\n")
	writeAPITable(w, p.stats, p.errCodes)
	// What the capture lacks, said here too: the notes that say it go
	// to standard error, and a summary saved alone looked clean.
	if s := lossFooter(res, p.partial); s != "" {
		fmt.Fprintf(w, "\n%s\n", s)
	}
}

// lossFooter says in one line what a capture lost, for its summary: gaps
// and the bytes they lacked (those cut by the snap length among them),
// frames held only in part (partial), bytes skipped unread as frames
// (resynchronising, the rest of a frame a gap cut into),
// requests given up on, the file cut short, the reading interrupted; ""
// when none.
func lossFooter(res *capture.Result, partial int) string {
	var parts []string
	if res.Gaps > 0 {
		s := pluralOf(res.Gaps, "gap", "gaps")
		if res.LostBytes > 0 {
			s += " (" + groupDigits(res.LostBytes) + " bytes missing"
			if res.SnapBytes > 0 {
				s += ", " + groupDigits(res.SnapBytes) + " of them cut by the snap length"
			}
			s += ")"
		}
		parts = append(parts, s)
	}
	if partial > 0 {
		frames := " frames"
		if partial == 1 {
			frames = " frame"
		}
		parts = append(parts, groupDigits(int64(partial))+frames+" held only in part")
	}
	if res.SkippedBytes > 0 {
		parts = append(parts, groupDigits(res.SkippedBytes)+" bytes not read as frames (skipped to resynchronise)")
	}
	if res.Evicted > 0 {
		parts = append(parts, pluralOf(res.Evicted, "request", "requests")+" given up on, too many waiting for their response")
	}
	if res.Truncation != nil {
		parts = append(parts, "the file truncated or corrupt after packet "+strconv.Itoa(res.Packets))
	}
	if res.Stopped {
		parts = append(parts, "interrupted after packet "+strconv.Itoa(res.Packets)+": the rest of the capture not read")
	}
	if len(parts) == 0 {
		return ""
	}
	return "capture incomplete: " + strings.Join(parts, ", ") + " (the notes on standard error say where)"
}

// apiCode is an error code seen in a response of an API.
type apiCode struct{ key, code int16 }

// writeAPITable writes the table per API (kwire pcap's and kwire proxy's
// --summary) and the error codes seen, those that are a normal step of a
// protocol (summary.Expected) marked as such. Percentiles are by nearest
// rank (summary.Latencies), so with two latencies P99 is the larger.
func writeAPITable(w io.Writer, stats map[int16]*apiStats, errCodes map[apiCode]int) {
	keys := make([]int, 0, len(stats))
	for k := range stats {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	sampled, guessed := false, false
	fmt.Fprintln(tw, "API\tVERSIONS\tCOUNT\tUNPAIRED\tBYTES\tP50 ms\tP90 ms\tP99 ms\tMAX ms\t")
	for _, k := range keys {
		s := stats[int16(k)]
		sampled = sampled || s.latencies.Sampled()
		guessed = guessed || len(s.guessed) > 0
		vs := appendVersions(nil, s.versions, "")
		vs = appendVersions(vs, s.guessed, "?")
		// No paired exchange, no latency: "-", not a latency of 0.
		ms := func(d time.Duration) string {
			if s.latencies.Count() == 0 {
				return "-"
			}
			return strconv.FormatFloat(capture.Millis(d), 'f', 2, 64)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", s.name, strings.Join(vs, " "), s.count, s.unpaired, s.bytes,
			ms(s.latencies.Percentile(.5)), ms(s.latencies.Percentile(.9)), ms(s.latencies.Percentile(.99)), ms(s.latencies.Max()))
	}
	tw.Flush()
	if guessed {
		fmt.Fprintln(w, "(v3×5?: 5 responses whose request the capture lacks, read as v3 by a guess from their bytes)")
	}
	if sampled {
		fmt.Fprintf(w, "(percentiles from a uniform sample of %d latencies per API; MAX exact)\n", summary.MaxLatencies)
	}
	if len(errCodes) > 0 {
		fmt.Fprintln(w, "\nerror codes seen:")
		total, expected := map[int16]int{}, map[int16][]string{}
		for ac, n := range errCodes {
			total[ac.code] += n
			if summary.Expected(ac.key, ac.code) {
				expected[ac.code] = append(expected[ac.code], schema.APIName(ac.key)+" ×"+strconv.Itoa(n))
			}
		}
		var cs []int
		for c := range total {
			cs = append(cs, int(c))
		}
		sort.Ints(cs)
		for _, c := range cs {
			note := ""
			if e := expected[int16(c)]; len(e) > 0 {
				sort.Strings(e)
				note = " (expected in " + strings.Join(e, ", ") + ": a normal step, not a failure)"
			}
			fmt.Fprintf(w, "  %d %s ×%d%s\n", c, schema.ErrorName(int16(c)), total[int16(c)], note)
		}
	}
}

// appendVersions appends "v3×5" for each version of counts, in order, each
// with mark after it.
func appendVersions(dst []string, counts map[int16]int, mark string) []string {
	vk := make([]int, 0, len(counts))
	for v := range counts {
		vk = append(vk, int(v))
	}
	sort.Ints(vk)
	for _, v := range vk {
		dst = append(dst, "v"+strconv.Itoa(v)+"×"+strconv.Itoa(counts[int16(v)])+mark)
	}
	return dst
}

// appendCodes appends the error codes a frame the JSON writers read
// carries (its failures).
func appendCodes(dst []int16, f *codec.Frame) []int16 {
	if f == nil {
		return dst
	}
	for _, c := range f.ErrorCodes() {
		dst = append(dst, c.Code)
	}
	return dst
}

// showSecretsUsage is --show-secrets of kwire pcap and kwire proxy, which
// zero secrets in what they print unless it is given.
const showSecretsUsage = "print secrets as the bytes hold them instead of zeroing them: SASL authentication bytes and raw SASL tokens (PLAIN passwords, SCRAM proofs, bearer tokens, Kerberos tickets), delegation-token HMACs, SCRAM credentials, and configuration values that are or may be passwords (in the configuration APIs and in __cluster_metadata records)"

// filterKind is which of kwire pcap's filters left an exchange out.
type filterKind int8

const (
	byNone     filterKind = iota
	byAPI                 // --api
	byClientID            // --client-id
	byErrors              // --errors-only
)

// filtersMissed counts the exchanges each filter left out, and what the
// filter read of them: their APIs, their requests' client ids (at most
// maxIDsKept of them, each counted; the exchanges of others in
// idsUncounted). When no exchange is shown, why says which filter
// matched nothing and what it saw instead.
type filtersMissed struct {
	dropped      [byErrors + 1]int
	apis         map[int16]int
	ids          map[string]int
	idsUncounted int
}

// maxIDsKept bounds the client ids kept for the message: a capture of
// many clients costs no more than this many strings.
const maxIDsKept = 256

// maxSeenSaid is how many APIs or client ids the message names.
const maxSeenSaid = 5

func (m *filtersMissed) add(l *runLine) {
	m.dropped[l.dropped]++
	switch {
	case l.dropped == byAPI && l.key != saslTokens:
		if m.apis == nil {
			m.apis = map[int16]int{}
		}
		m.apis[l.key]++
	case l.dropped == byClientID && l.hasID:
		if m.ids == nil {
			m.ids = map[string]int{}
		}
		if _, ok := m.ids[l.clientID]; ok || len(m.ids) < maxIDsKept {
			m.ids[l.clientID]++
		} else {
			m.idsUncounted++
		}
	}
}

// why says, when the filters of x let none of the exchanges (n of them)
// through, which one matched nothing and what it saw: an empty output
// otherwise looks like a capture with nothing in it. The filters are
// taken in order, --api, --client-id, --errors-only, each among the
// exchanges the ones before it let through.
func (m *filtersMissed) why(x *exchangeFilter, n int) string {
	left := n
	among := plural(n, "exchange")
	if x.only != nil {
		if left -= m.dropped[byAPI]; left == 0 {
			names := make(map[string]int, len(m.apis))
			for k, c := range m.apis {
				names[statsName(k)] += c
			}
			s := "no exchange shown: --api " + x.only.Name + " matched none of the " + among
			if seen := seenList(names, 0); seen != "" {
				s += "; the APIs seen: " + seen
			} else {
				s += " (all raw SASL tokens, of no API)"
			}
			return s
		}
		among = plural(left, x.only.Name+" exchange")
	}
	if x.clientID != "" {
		if left -= m.dropped[byClientID]; left == 0 {
			s := "no exchange shown: --client-id " + strconv.Quote(x.clientID) + " matched none of the " + among
			quoted := make(map[string]int, len(m.ids))
			for id, c := range m.ids {
				quoted[strconv.Quote(cutID(id))] += c
			}
			if seen := seenList(quoted, m.idsUncounted); seen != "" {
				s += "; the client ids seen: " + seen
			} else {
				s += " (none of them has a request, which carries the client id)"
			}
			return s
		}
		if x.only != nil {
			among = plural(left, x.only.Name+" exchange") + " with that client id"
		} else {
			among = plural(left, "exchange") + " with client id " + strconv.Quote(x.clientID)
		}
	}
	if x.errorsOnly && left-m.dropped[byErrors] == 0 {
		return "no exchange shown: --errors-only: none of the " + among + " has a response with a non-zero error code"
	}
	return ""
}

// cutID is a client id as the message names it: at most 64 bytes of it,
// cut at a character's start, "…" saying it was cut (render.Truncate, as
// the views cut a text).
func cutID(id string) string { return render.Truncate(id, 64) }

// seenList names the most frequent of counts (name to exchanges), at most
// maxSeenSaid, each with its count ("Produce ×12"), and how many more
// there are (uncounted, exchanges of names not kept: "and others" when
// set, as the count of names is then not known); "" when counts is empty.
func seenList(counts map[string]int, uncounted int) string {
	if len(counts) == 0 {
		return ""
	}
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, k := range names[:min(len(names), maxSeenSaid)] {
		parts = append(parts, k+" ×"+strconv.Itoa(counts[k]))
	}
	s := strings.Join(parts, ", ")
	if more := len(names) - maxSeenSaid; more > 0 {
		s += " and " + strconv.Itoa(more) + " more"
		if uncounted > 0 {
			s += " and others"
		}
	} else if uncounted > 0 {
		s += " and others"
	}
	return s
}
