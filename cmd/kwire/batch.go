package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/input"
	"github.com/kwire/kwire/internal/near"
)

// kwire batch reads its input in chunks of whole lines, straight into
// buffers that go to the workers as they are (no copy per line); each
// worker decodes a chunk's lines with its own decoder and frame buffer,
// reused from line to line, into one output buffer; the chunks' outputs
// are written in input order.

// batchConfig is what the flags of kwire batch ask for.
type batchConfig struct {
	ff       frameFlags
	api      *schema.API // --api, or nil
	mode     input.Mode  // --input, for the lines that are no line object
	jo       jsonForm
	pf       payloadFlags
	payload  payloadHook
	jobs     int
	progress string
	strict   bool
}

func runBatch(e *env, args []string) int {
	cfg, file, code := parseBatchFlags(e, args)
	if code >= 0 {
		return code
	}
	in, prog, done, code := openStreamed(e, file, cfg.progress, "lines", true)
	if code >= 0 {
		return code
	}
	if file == "" {
		terminalInput(e, "batch", nil, "a frame's hex, or a line of JSON naming it, a line each")
	}
	defer done()
	it := catchInterrupt()
	defer it.release()
	b := batchRun{cfg: cfg, prog: prog, file: file, idle: make(chan struct{}, 1)}
	// Each chunk's output is one buffer of about half a megabyte, written
	// as it is: a buffered writer would only copy it again. Ctrl-C ends
	// the reading (interrupt.go): the lines read whole are decoded.
	readErr := b.run(it.reader(in), e.stdout, b.prog.Writer(e.stderr))
	b.prog.finishAt(it.interrupted())
	if e.outFailed() != nil {
		return 1 // run says why; the counts would say lines nobody got
	}
	if errors.Is(readErr, errInterrupted) {
		fail(e, "interrupted (%s): %s decoded, %d of them failed; the rest of the input was not read", it.name(), plural(b.lines, "line"), b.failed)
		return it.status()
	}
	if readErr != nil {
		fail(e, "%v", readErr)
		return 1
	}
	status := 0
	if b.failed > 0 {
		fail(e, "%d of %s failed", b.failed, plural(b.lines, "line"))
		status = 1
	} else {
		fmt.Fprintf(e.stderr, "kwire: %s decoded\n", plural(b.lines, "line"))
	}
	if cfg.strict && b.warned > 0 {
		fail(e, "%s had warnings (--strict)", plural(b.warned, "line"))
		status = 1
	}
	return status
}

func parseBatchFlags(e *env, args []string) (*batchConfig, string, int) {
	fs := newFlags(e, "batch", "[flags] [FILE]",
		"kwire batch frames.hex",
		`echo '{"hex":"0000000a00000007000000000000","direction":"response","api":"ApiVersions","apiVersion":0}' | kwire batch`,
		`echo '{"response":true,"api":18,"version":0,"hex":"0000000a00000007000000000000"}' | kwire batch`,
		"kwire batch --kafka --strict frames.hex")
	cfg := &batchConfig{}
	cfg.ff.register(fs)
	fs.IntVar(&cfg.jobs, "jobs", runtime.NumCPU(), "decoders working at once")
	fs.StringVar(&cfg.progress, "progress", "auto", progressFlagUsage)
	var jf jsonFlags
	jf.register(fs)
	fs.BoolVar(&cfg.strict, "strict", false, "exit 1 when any line has a warning (a lenient reading or a limit hit)")
	cfg.pf.register(fs)
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return nil, "", code
	}
	if len(args) > 1 {
		// Several files: one stream of lines is what batch numbers.
		fail(e, "batch reads one file or standard input, not %d files: cat them into it (cat %s | kwire batch), its lines then numbered across them", len(args), shellWords(args))
		return nil, "", 2
	}
	if err := cfg.ff.check(); err != nil {
		fail(e, "%v", err)
		return nil, "", 2
	}
	api, err := cfg.ff.resolve()
	if err != nil {
		fail(e, "%v", err)
		return nil, "", 2
	}
	cfg.api = api
	if cfg.mode, err = cfg.ff.inputMode(); err != nil {
		fail(e, "%v", err)
		return nil, "", 2
	}
	if cfg.mode == input.Binary {
		fail(e, "--input binary is not for kwire batch, which reads a frame a line of text: kwire decode --input binary reads a file of raw bytes")
		return nil, "", 2
	}
	if cfg.jo, err = jf.options(); err != nil {
		fail(e, "%v", err)
		return nil, "", 2
	}
	if err = cfg.pf.checkForm(cfg.jo); err != nil {
		fail(e, "%v", err)
		return nil, "", 2
	}
	if cfg.payload, err = cfg.pf.hook(e.stderr); err != nil {
		fail(e, "%v", err)
		return nil, "", 2
	}
	if cfg.jobs < 0 {
		fail(e, "--jobs must not be negative, not %d", cfg.jobs)
		return nil, "", 2
	}
	cfg.jobs = max(cfg.jobs, 1)
	file := ""
	if len(args) == 1 && args[0] != "-" { // "-": standard input, as no file
		file = args[0]
	}
	return cfg, file, -1
}

// packetHead is how much of its input kwire batch looks at for a text
// dump of packets: the dumps of a dozen full-size packets, and less than
// batch reads before it decodes a chunk, so a pipe waits no longer.
const packetHead = 64 << 10

// packetDump says whether head, the first lines of kwire batch's input
// (all of it when eof), begin a text dump of packets (tshark -x, tcpdump
// -X: a packet over many lines), which each line would fail as a frame.
// It looks at packetHead bytes at most.
func packetDump(head []byte, eof bool) bool {
	if captureKind(head) != "" {
		return true // a pcap file: packets too, not lines
	}
	if len(head) > packetHead {
		head, eof = head[:bytes.LastIndexByte(head[:packetHead], '\n')+1], false
	}
	if !eof {
		head = head[:bytes.LastIndexByte(head, '\n')+1] // whole lines only
	}
	_, err := input.ParsePackets(head)
	return err == nil
}

// packetDumpError is the error for all, kwire batch's whole input, that
// its first lines said is a text dump of packets: what it is, its packets
// counted, and which commands read it.
func packetDumpError(all []byte, file string) error {
	name := file
	if name == "" {
		name = "-"
	}
	if many := manyPackets(all, file, "batch reads a frame a line"); many != nil {
		return namedError(anInput{name: file}, many)
	}
	return namedError(anInput{name: file}, errors.New("a text dump of 1 packet, over several lines: batch reads a frame a line, and kwire decode "+name+" reads a whole packet"))
}

// batchRun is one run of kwire batch.
type batchRun struct {
	cfg    *batchConfig
	prog   *progress // nil when not shown
	file   string    // the input's name, "" for standard input
	lines  int
	failed int
	warned int // lines with warnings
	// newer holds the API versions newer than kwire knows said so far
	// (newerVersion), each said once a run, at its first line.
	newer newerSaid
	// stopped is set when writing the output failed: the reader stops,
	// the pieces under way are dropped.
	stopped atomic.Bool
	// sent counts the chunks the reader sent, done those whose output
	// the writer has written, which then signals idle (a buffer of one:
	// a signal waiting there stands for any after it), so the reader,
	// waiting for input, knows when the workers have done all it sent.
	sent int
	done atomic.Int64
	idle chan struct{}
}

// batchChunk is whole lines of input for a worker: first is the number of
// its first line in the input, blank lines counted (a line's number is how
// its user finds it, though blank lines give no output).
type batchChunk struct {
	first int
	buf   *[]byte
}

// batchOut is a piece of a worker's output for a chunk: a line of JSON per
// line, and the lines for standard error (guessed readings, warnings), if
// any.
type batchOut struct {
	buf    *[]byte
	diag   []byte
	newer  []lineNewer // what diag would say of versions newer than kwire knows
	in     int         // input bytes its lines held
	lines  int
	failed int
	warned int
	last   bool // the chunk's last piece
}

// chunkSize is how much input a chunk holds (more for a longer line).
const chunkSize = 256 << 10

func (b *batchRun) run(in io.Reader, w io.Writer, stderr io.Writer) error {
	inPool := &sync.Pool{New: func() any { s := make([]byte, 0, chunkSize); return &s }}
	outPool := &sync.Pool{New: func() any { s := make([]byte, 0, 2*chunkSize); return &s }}
	var readErr error
	inPieces(b.cfg.jobs, 2*b.cfg.jobs, func() func(batchChunk, func(batchOut)) {
		wk := batchWorker{cfg: b.cfg, pool: outPool}
		return func(c batchChunk, emit func(batchOut)) {
			wk.chunk(c, emit)
			*c.buf = (*c.buf)[:0]
			inPool.Put(c.buf)
		}
	}, func(send func(batchChunk)) {
		readErr = b.readChunks(in, send, inPool)
	}, func(o batchOut) {
		if o.last {
			b.done.Add(1)
			select {
			case b.idle <- struct{}{}:
			default:
			}
		}
		if b.stopped.Load() {
			return
		}
		if _, err := w.Write(*o.buf); err != nil { // the lines before the piece's diagnostics
			b.stopped.Store(true)
			return
		}
		if len(o.diag) > 0 || len(o.newer) > 0 {
			stderr.Write(b.withNewer(o.diag, o.newer))
		}
		b.lines += o.lines
		b.failed += o.failed
		b.warned += o.warned
		b.prog.add(int64(o.in), int64(o.lines))
		if cap(*o.buf) <= 4*pieceBytes { // one huge line's buffer is not kept
			*o.buf = (*o.buf)[:0]
			outPool.Put(o.buf)
		}
	})
	return readErr
}

// lineNewer is a line decoded at a version newer than kwire knows: its
// newerVersion line goes into the piece's diagnostics at byte at, before
// the line's own, unless the run said it already (the workers decode
// pieces out of order; the run writes them in order, and says it at the
// first such line).
type lineNewer struct {
	at, line int
	n        newerVersion
}

// withNewer is diag with the newerVersion lines of newer that the run
// has not said yet.
func (b *batchRun) withNewer(diag []byte, newer []lineNewer) []byte {
	var out []byte
	from := 0
	for _, l := range newer {
		if !b.newer.first(l.n) {
			continue
		}
		out = append(out, diag[from:l.at]...)
		out = append(append(append(out, "kwire: line "...), strconv.Itoa(l.line)...), ": "+l.n.String()+"\n"...)
		from = l.at
	}
	if out == nil {
		return diag
	}
	return append(out, diag[from:]...)
}

// readChunks cuts the input into chunks of whole lines. Each read goes
// straight into a chunk's buffer; only the unfinished line at its end is
// copied into the next. A chunk goes when its buffer is half full, or at
// the end of the input; and when the input comes slowly, its whole lines
// go as soon as the reader waits for more and the workers have done all
// it sent (waitRead), so the output follows the input. The first lines
// are looked at first for a text dump of packets, which is an error.
func (b *batchRun) readChunks(in io.Reader, send func(batchChunk), pool *sync.Pool) error {
	line := 1
	buf := pool.Get().(*[]byte)
	ar := asyncReader{in: in}
	defer ar.stop()
	head := true // nothing has gone: the first lines are to be looked at
	// give sends c, whole lines (the input's last too at eof), to the
	// workers; false when they are the first and begin a dump of
	// packets.
	give := func(c *[]byte, eof bool) bool {
		if head {
			head = false
			if packetDump(*c, eof) {
				return false
			}
		}
		first := line
		line += bytes.Count(*c, []byte{'\n'}) // before a worker has c
		if hasLine(*c) {
			b.sent++
			send(batchChunk{first, c})
		} else {
			pool.Put(c)
		}
		return true
	}
	// dump is the error for a dump of packets: what it is, counted in
	// all of the input, of which text was read.
	dump := func(text ...[]byte) error {
		all := bytes.Join(text, nil)
		if pc := capturePassed(all, b.file, "batch reads a frame a line"); pc != nil {
			return namedError(anInput{name: b.file}, pc) // said without reading the rest
		}
		rest, err := io.ReadAll(in)
		if err != nil {
			return err
		}
		return packetDumpError(append(all, rest...), b.file)
	}
	for !b.stopped.Load() {
		if len(*buf) == cap(*buf) {
			grown := append(*buf, make([]byte, cap(*buf))...) // a line longer than the buffer
			*buf = grown[:len(*buf)]
		}
		var n int
		var err error
		if whole := bytes.LastIndexByte(*buf, '\n') + 1; whole > 0 {
			var gone int
			var ok bool
			n, gone, ok, err = b.waitRead(&ar, buf, whole, head, func(lines []byte) bool {
				c := pool.Get().(*[]byte)
				*c = append((*c)[:0], lines...)
				return give(c, false)
			})
			if !ok {
				return dump((*buf)[:len(*buf)+n])
			}
			*buf = (*buf)[:len(*buf)+n]
			if gone > 0 {
				*buf = (*buf)[:copy(*buf, (*buf)[gone:])] // the lines given meanwhile leave it
			}
		} else {
			n, err = in.Read((*buf)[len(*buf):cap(*buf)])
			*buf = (*buf)[:len(*buf)+n]
		}
		end := len(*buf)
		if err == nil {
			end = bytes.LastIndexByte(*buf, '\n') + 1
			if end == 0 || end < cap(*buf)/2 && n > 0 {
				continue // fill the buffer before handing it over
			}
		} else if errors.Is(err, errInterrupted) {
			// Ctrl-C: the whole lines read go, the line cut by the
			// signal does not.
			end = bytes.LastIndexByte(*buf, '\n') + 1
		} else if err != io.EOF {
			return err
		}
		next := pool.Get().(*[]byte)
		*next = append((*next)[:0], (*buf)[end:]...)
		*buf = (*buf)[:end]
		if !give(buf, err == io.EOF) {
			return dump(*buf, *next)
		}
		buf = next
		if err == io.EOF {
			return nil
		} else if err != nil {
			return err // interrupted
		}
	}
	return nil
}

// headPause is how long a pause in the input kwire batch waits out
// before its first lines go: they are looked at for a dump of packets,
// and a pipe that pauses between its writes gives a piece of one.
const headPause = 20 * time.Millisecond

// waitRead reads into the free space of buf, whose whole lines,
// buf[:whole], wait to go, on the side: when the read waits for input
// while the workers have done every chunk sent (or, for the first lines,
// while the input pauses for headPause), it gives those lines (give gets
// a copy, the read being under way into the same buffer) and says how
// many bytes went, gone; ok is false when give said no (a dump of
// packets), the read done.
func (b *batchRun) waitRead(ar *asyncReader, buf *[]byte, whole int, head bool, give func([]byte) bool) (n, gone int, ok bool, err error) {
	res := ar.start((*buf)[len(*buf):cap(*buf)])
	var pause <-chan time.Time
	if head {
		t := time.NewTimer(headPause)
		defer t.Stop()
		pause = t.C
	}
	ok = true
	flush := func() {
		gone, ok = whole, give((*buf)[:whole])
	}
	for {
		var idle chan struct{}
		if gone == 0 && !head {
			if b.done.Load() == int64(b.sent) {
				flush()
				continue
			}
			idle = b.idle
		}
		select {
		case r := <-res:
			return r.n, gone, ok, r.err
		case <-idle: // the condition again
		case <-pause:
			flush()
			pause = nil
		}
	}
}

// asyncReader reads from in on a goroutine of its own, one read at a
// time, so its caller can do something else while a read waits for
// input. stop ends the goroutine (no read may be under way).
type asyncReader struct {
	in  io.Reader
	req chan []byte
	res chan readResult
}

type readResult struct {
	n   int
	err error
}

// start begins a read into p; its result comes on the channel.
func (a *asyncReader) start(p []byte) <-chan readResult {
	if a.req == nil {
		a.req, a.res = make(chan []byte), make(chan readResult, 1)
		go func() {
			for p := range a.req {
				n, err := a.in.Read(p)
				a.res <- readResult{n, err}
			}
		}()
	}
	a.req <- p
	return a.res
}

func (a *asyncReader) stop() {
	if a.req != nil {
		close(a.req)
	}
}

// plural is n and the noun, with an s unless n is 1: "1 line", "6 lines".
func plural(n int, noun string) string { return pluralOf(n, noun, noun+"s") }

// pluralOf is n and one, or many when n is not 1.
func pluralOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// hasLine reports whether b holds a line that is not blank.
func hasLine(b []byte) bool { return len(bytes.TrimSpace(b)) > 0 }

// inOrder hands the values arriving on outs to put in the order their
// seq numbers them (0, 1, 2, ...), holding those that come early; after
// each arrival (and what it released), it calls settled.
func inOrder[T any](outs <-chan T, seq func(T) int, put func(T), settled func()) {
	waiting := map[int]T{}
	next := 0
	for o := range outs {
		waiting[seq(o)] = o
		for {
			o, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			put(o)
		}
		settled()
	}
}

// batchWorker decodes lines with a decoder and a frame buffer of its own,
// reused from one line to the next: value JSON straight from the bytes
// (the tree-less path).
type batchWorker struct {
	cfg  *batchConfig
	pool *sync.Pool // output buffers
	dec  codec.Decoder
	data []byte // the current line's frame bytes
	diag []byte // the chunk's lines for standard error
	// newer: the lines of the chunk decoded at a version newer than
	// kwire knows, and where in diag their line goes
	newer []lineNewer
	warn  bool // the last line had warnings
	// partial is a failed line's value JSON, as far as it decoded
	partial []byte
	// the last API a line named, and what it resolved to
	apiText string
	api     *schema.API
	// dumpLine: the line read as a line of a hex dump (xxd, hexdump -C,
	// od, Wireshark): a piece of a frame, which fails as one
	dumpLine bool
}

// chunk decodes every non-blank line of c, a line of JSON each, and emits
// the output in pieces of about pieceBytes.
func (wk *batchWorker) chunk(c batchChunk, emit func(batchOut)) {
	o := batchOut{buf: wk.pool.Get().(*[]byte)}
	rest := *c.buf
	n := c.first
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		line := bytes.TrimSpace(rest[:i])
		o.in += min(i+1, len(rest))
		rest = rest[min(i+1, len(rest)):]
		if len(line) == 0 {
			n++
			continue
		}
		var bad bool
		wk.warn = false
		out := o.buf
		*out, bad = wk.line(*out, n, line)
		*out = append(*out, '\n')
		o.lines++
		if bad {
			o.failed++
		}
		if wk.warn {
			o.warned++
		}
		n++
		if len(*out) >= pieceBytes && len(rest) > 0 {
			wk.emit(&o, emit)
			o = batchOut{buf: wk.pool.Get().(*[]byte)}
		}
	}
	o.last = true
	wk.emit(&o, emit)
}

// emit hands o over with the diagnostics gathered for its lines.
func (wk *batchWorker) emit(o *batchOut, emit func(batchOut)) {
	if len(wk.diag) > 0 {
		o.diag = append([]byte(nil), wk.diag...)
		wk.diag = wk.diag[:0]
	}
	if len(wk.newer) > 0 {
		o.newer = append([]lineNewer(nil), wk.newer...)
		wk.newer = wk.newer[:0]
	}
	emit(*o)
}

// lineSpec is what a line says: the frame (hex or base64, as sub-slices of
// the line) and how to read it.
type lineSpec struct {
	hex, base64 []byte
	// into, when set, receives "hex" decoded by scanLine as it reads the
	// line (decoded then says so): the common shape read in one pass.
	into      *[]byte
	decoded   bool
	direction string // "request", "response" or ""
	// dirFrom is the member that set direction (dirDirection,
	// dirResponse or dirRequest; 0 for none), and conflict the line's
	// error when two members set it apart ("response":true and
	// "request":true).
	dirFrom    uint8
	conflict   string
	api        string // a name or a key number, "" when none
	version    int    // -1 when none
	sizePrefix int    // 1 yes, 0 no, 2 auto, -1 not given
}

// line decodes one non-blank line, line n of the input, into its output: value JSON,
// or an error object naming the line, offset and path. A line of a hex
// dump that fails (xxd's 16 bytes of a longer frame fail at its size) is
// said to be one: a dump piped to batch gave an error a line, saying
// nothing of why.
func (wk *batchWorker) line(dst []byte, n int, line []byte) ([]byte, bool) {
	wk.dumpLine = false
	out, bad := wk.decodeLine(dst, n, line)
	if bad && wk.dumpLine && line[0] != '{' {
		return lineError(out[:len(dst)], n, nil, "a line of a hex dump, not a frame: batch reads one frame per line; use kwire decode for a dump"), true
	}
	return out, bad
}

// decodeLine is line's work.
func (wk *batchWorker) decodeLine(dst []byte, n int, line []byte) ([]byte, bool) {
	lf := wk.cfg.ff
	api := wk.cfg.api
	var err error
	if line[0] == '{' {
		spec := lineSpec{version: -1, sizePrefix: -1, into: &wk.data}
		if !scanLine(line, &spec) {
			spec.decoded = false
			if msg := parseLineJSON(line, &spec); msg != "" {
				return lineError(dst, n, nil, msg), true
			}
		}
		if spec.conflict != "" {
			return lineError(dst, n, nil, spec.conflict), true
		}
		if api, err = wk.apply(&spec, &lf, api); err != nil {
			return lineError(dst, n, nil, err.Error()), true
		}
		switch {
		case len(spec.hex) > 0 && len(spec.base64) > 0:
			return lineError(dst, n, nil, `a line object gives its frame as "hex" or as "base64", not both`), true
		case len(spec.hex) > 0 && spec.decoded:
		case len(spec.hex) > 0:
			err = wk.frameFrom(spec.hex, input.Hex)
		case len(spec.base64) > 0:
			err = wk.frameFrom(spec.base64, input.Base64)
		default:
			return lineError(dst, n, nil, `a line object needs "hex" or "base64"`), true
		}
	} else {
		err = wk.frameFrom(line, wk.cfg.mode)
		if err != nil && !errors.Is(err, input.ErrList) && (line[0] == '[' || line[0] == '"') && json.Valid(line) {
			// JSON, but no line object: not hex either.
			err = errors.New("a JSON line must be an object, not " + jsonKind(line[0]) + ` (a line is hex, base64, or {"hex":...})`)
		}
	}
	if err != nil {
		if ie := (*input.Error)(nil); errors.As(err, &ie) && ie.Line == 1 {
			// The error object names the line: the reader's "line 1"
			// (of the line alone) would contradict it.
			return lineError(dst, n, nil, "column "+strconv.Itoa(ie.Column)+": "+ie.Msg), true
		}
		return lineError(dst, n, nil, err.Error()), true
	}
	// A whole captured packet (tshark -x, Wireshark's hex stream): its TCP
	// payload, said so on standard error, as decode says it.
	if payload, pkt, ok := input.StripPacket(wk.data); ok {
		if len(payload) == 0 {
			return lineError(dst, n, nil, pkt.String()), true
		}
		wk.diag = append(append(append(wk.diag, "kwire: line "...), strconv.Itoa(n)...), ": "+pkt.String()+"\n"...)
		wk.data = append(wk.data[:0], payload...)
	}
	sized := lineSized(&lf, wk.data, &wk.dec, api)
	if msg := lf.requestMismatch(api, wk.data, sized); msg != "" {
		return lineError(dst, n, nil, msg), true
	}
	start := len(dst)
	o := wk.cfg.jo.apply(lf.options(api, sized))
	wk.cfg.pf.setOptions(&o, wk.cfg.payload, false)
	dst, info, err := wk.dec.AppendJSON(dst, wk.data, o)
	if nv, ok := newerOf(info); ok {
		wk.newer = append(wk.newer, lineNewer{len(wk.diag), n, nv})
	}
	if info.Guess != nil || len(info.Warnings) > 0 {
		wk.warn = len(info.Warnings) > 0
		wk.diag = appendDiagnostics(wk.diag, "line "+strconv.Itoa(n)+": ", info.Guess, info.Warnings)
	}
	if err != nil {
		// The value as far as it decoded goes beside the error, as
		// "partial", the API's name for it.
		wk.partial = append(wk.partial[:0], dst[start:]...)
		if !json.Valid(wk.partial) {
			wk.partial = wk.partial[:0]
		}
		dst = dst[:start]
		var de *codec.DecodeError
		if !errors.As(err, &de) {
			de = nil
		}
		return lineErrorPartial(dst, n, de, err.Error(), wk.partial), true
	}
	return dst, false
}

// apply sets the line's own reading over the flags': direction, API (a
// name or a key number; naming one means a response unless the line or
// the flags say request), version and size prefix.
func (wk *batchWorker) apply(spec *lineSpec, lf *frameFlags, api *schema.API) (*schema.API, error) {
	switch spec.direction {
	case "response":
		lf.response, lf.request = true, false
	case "request":
		lf.request, lf.response = true, false
	case "":
	default:
		return nil, errorf(`"direction" must be "request" or "response", not %q`, spec.direction)
	}
	if spec.api != "" {
		if spec.api != wk.apiText || wk.api == nil {
			wk.apiText, wk.api = spec.api, schema.ByName(spec.api)
		}
		if wk.api == nil {
			return nil, errorf("%s", unknownAPI(spec.api))
		}
		api, lf.api = wk.api, spec.api
		if spec.direction == "" && !lf.request {
			lf.response = true
		}
	}
	if spec.version >= 0 {
		lf.version = spec.version
	}
	switch spec.sizePrefix {
	case 1:
		lf.size, lf.noSize = "yes", false
	case 0:
		lf.size, lf.noSize = "no", true
	case 2:
		lf.size, lf.noSize = "auto", false
	}
	return api, nil
}

// frameFrom decodes a line's frame text into the worker's frame buffer:
// plain hex, the common shape, directly; anything else through input.Parse.
func (wk *batchWorker) frameFrom(text []byte, shape input.Mode) error {
	if shape != input.Base64 && len(text)%2 == 0 {
		wk.data = append(wk.data[:0], make([]byte, len(text)/2)...)
		if _, err := hex.Decode(wk.data, text); err == nil {
			return nil
		}
	}
	b, form, err := input.Parse(text, shape)
	wk.data = append(wk.data[:0], b...)
	switch form {
	case input.FormatXXD, input.FormatHexdumpC, input.FormatOD, input.FormatWireshark, input.FormatTcpdump:
		wk.dumpLine = true
	}
	return err
}

// lineSized says whether a line's frame carries its size prefix, as the
// flags (or the line) say, else as the bytes look: a whole frame that
// decodes clean with bytes after it is that frame, the bytes said in a
// warning.
func lineSized(lf *frameFlags, b []byte, dec *codec.Decoder, api *schema.API) bool {
	switch mode, _ := lf.sizeMode(); {
	case mode == input.SizeNo:
		return false
	case mode == input.SizeYes || input.HasSizePrefix(b):
		return true
	}
	if frames, s, err := lf.splitFrames(b, lf.cleanSized(dec, api)); err == nil && len(frames) == 1 {
		return s
	}
	return true
}

// lineError appends a line's error object: the message, and for a decode
// error where it happened. Strings are escaped as encoding/json escapes
// them (<, > and & too).
func lineError(out []byte, n int, de *codec.DecodeError, msg string) []byte {
	return lineErrorPartial(out, n, de, msg, nil)
}

// lineErrorPartial is lineError with the frame's value JSON as far as it
// decoded, "partial" after "error" (none when empty).
func lineErrorPartial(out []byte, n int, de *codec.DecodeError, msg string, partial []byte) []byte {
	w := jsontext.Writer{B: out}
	w.BeginObject()
	w.Key("line")
	w.Int(int64(n))
	w.Key("error")
	writeErrorObject(&w, de, msg)
	if len(partial) > 0 {
		w.Key("partial")
		w.Raw(partial)
	}
	w.EndObject()
	return w.B
}

// writeErrorObject writes the error object of a frame that failed, as
// batch's lines and pcap's exchanges give it: {"message"} and, for a
// decode error, where it happened: "offset", "path", "expected",
// "found". Strings are escaped as encoding/json escapes them (<, > and &
// too).
func writeErrorObject(w *jsontext.Writer, de *codec.DecodeError, msg string) {
	str := func(k, v string) {
		w.Key(k)
		w.HTMLSafe(v)
	}
	w.BeginObject()
	str("message", msg)
	if de != nil {
		w.Key("offset")
		w.Int(int64(de.Offset))
		str("path", de.Path)
		str("expected", de.Expected)
		str("found", de.Found)
	}
	w.EndObject()
}

// batchLineJSON is a line object as encoding/json reads it, for the lines
// scanLine leaves (escapes in strings, odd spacing, members it does not
// know, which parseLineJSON refuses).
type batchLineJSON struct {
	Hex        string   `json:"hex"`
	Base64     string   `json:"base64"`
	Direction  string   `json:"direction"`
	Response   *bool    `json:"response"`
	Request    *bool    `json:"request"`
	APIKey     *int     `json:"apiKey"`
	API        apiRef   `json:"api"`
	APIVersion *int     `json:"apiVersion"`
	Version    *int     `json:"version"`
	SizePrefix *sizeRef `json:"sizePrefix"`
}

// sizeRef is a line's sizePrefix: true, false, or "auto" (decided from
// the bytes, as /api/decode's sizePrefix=auto; also "true" and "false").
type sizeRef int

func (r *sizeRef) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "true", `"true"`:
		*r = 1
	case "false", `"false"`:
		*r = 0
	case `"auto"`:
		*r = 2
	default:
		return errors.New(`"sizePrefix": expected true, false or "auto", found ` + string(b))
	}
	return nil
}

// apiRef is an API named by name ("Metadata") or by key (3 or "3").
type apiRef string

func (a *apiRef) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*a = apiRef(s)
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New(`"api" must be a name or a key number`)
	}
	*a = apiRef(strconv.Itoa(n))
	return nil
}

// jsonKind names the JSON value starting with c, for messages.
func jsonKind(c byte) string {
	if c == '[' {
		return "an array"
	}
	return "a string"
}

// lineMembers are the members a line object may have (batchLineJSON's).
var lineMembers = []string{"hex", "base64", "direction", "response", "request", "apiKey", "api", "apiVersion", "version", "sizePrefix"}

// unknownMember says that a line object has no member name, with the
// nearest known one when it is a slip away ("drection", "apiversion").
func unknownMember(name string) string {
	msg := "unknown member " + strconv.Quote(name) + " in a line object"
	best := near.Nearest(name, func(try func(alias, answer string)) {
		for _, m := range lineMembers {
			try(m, m)
		}
	})
	if best != "" {
		return msg + " (did you mean " + best + "?)"
	}
	return msg + " (it may have " + strings.Join(lineMembers, ", ") + ")"
}

// parseLineJSON reads a line object with encoding/json; it returns an
// error message, or "". scanLine leaves it every line with a member it
// does not know, so an unknown one is refused here, at no cost to the
// lines scanLine reads.
func parseLineJSON(line []byte, spec *lineSpec) string {
	var bl batchLineJSON
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(&bl); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if name, err := strconv.Unquote(name); err == nil {
				return unknownMember(name)
			}
		}
		if uerr := json.Unmarshal(line, &bl); uerr != nil {
			err = uerr // its words for a cut line, not the stream's "unexpected EOF"
		}
		return lineJSONError(line, err)
	}
	if len(bytes.TrimSpace(line[d.InputOffset():])) > 0 {
		return lineJSONError(line, json.Unmarshal(line, &bl)) // what follows the object
	}
	spec.hex, spec.base64 = []byte(bl.Hex), []byte(bl.Base64)
	spec.direction, spec.dirFrom, spec.conflict = "", 0, "" // as scanLine left them
	if bl.Direction != "" {
		spec.setDirection(strings.ToLower(bl.Direction), dirDirection)
	}
	if bl.Response != nil {
		spec.setDirection(direction(*bl.Response), dirResponse)
	}
	if bl.Request != nil {
		spec.setDirection(direction(!*bl.Request), dirRequest)
	}
	spec.api = string(bl.API)
	if bl.APIKey != nil {
		spec.api = strconv.Itoa(*bl.APIKey)
	}
	for i, v := range []*int{bl.Version, bl.APIVersion} {
		if v != nil {
			if !apiVersionOK(*v) {
				return `"` + [...]string{"version", "apiVersion"}[i] + `": expected an API version from 0 to 32767, found ` + strconv.Itoa(*v)
			}
			spec.version = *v
		}
	}
	if bl.SizePrefix != nil {
		spec.sizePrefix = int(*bl.SizePrefix)
	}
	return ""
}

// lineJSONError says what encoding/json found wrong with a line object in
// kwire's words, as the encoder's JSON errors are worded, not Go's (no
// struct or type names): `"version": expected an integer, found a string`.
func lineJSONError(line []byte, err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := "a string"
		switch te.Type.Kind() {
		case reflect.Int:
			want = "an integer"
		case reflect.Bool:
			want = "true or false"
		}
		found, num, _ := strings.Cut(te.Value, " ")
		switch {
		case num != "":
			found = "the number " + num // a fraction, or too big for an int
		case found == "array" || found == "object":
			found = "an " + found
		case found == "bool":
			found = "a boolean"
		default:
			found = "a " + found
		}
		field := te.Field
		if field == "" {
			return "a line object must be a JSON object, not " + found
		}
		msg := strconv.Quote(field) + ": expected " + want + ", found " + found
		if field == "apiKey" && found == "a string" {
			// An API's name: "api" takes names (and key numbers).
			var named struct {
				APIKey string `json:"apiKey"`
			}
			_ = json.Unmarshal(line, &named)
			if named.APIKey != "" {
				msg += ` ("api" takes a name: "api":` + strconv.Quote(named.APIKey) + `)`
			} else {
				msg += ` ("api" takes a name)`
			}
		}
		return msg
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// The encoder's parser words where and what.
		if _, perr := jsontext.Parse(line); perr != nil {
			return perr.Error()
		}
		return "invalid JSON at byte " + strconv.FormatInt(se.Offset, 10)
	}
	return err.Error() // apiRef's own words
}

// scanLine reads a flat line object of the common shape without copying:
// string values without escapes, integers and booleans, the known members.
// It reports false for anything else, which parseLineJSON then reads.
func scanLine(b []byte, spec *lineSpec) bool {
	i := 0
	skip := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
	}
	str := func() ([]byte, bool) {
		if i >= len(b) || b[i] != '"' {
			return nil, false
		}
		i++
		start := i
		for i < len(b) && b[i] != '"' {
			if b[i] == '\\' || b[i] < 0x20 {
				return nil, false
			}
			i++
		}
		if i >= len(b) {
			return nil, false
		}
		i++
		return b[start : i-1], true
	}
	skip()
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	for {
		skip()
		if i < len(b) && b[i] == '}' {
			i++
			skip()
			return i == len(b)
		}
		k, ok := str()
		if !ok {
			return false
		}
		skip()
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i++
		skip()
		if i < len(b) && b[i] == '"' && spec.into != nil && string(k) == "hex" {
			if d, n, ok := hexValue((*spec.into)[:0], b[i+1:]); ok {
				*spec.into, spec.hex, spec.decoded = d, b[i+1:i+1+n], true
				i += n + 2
				skip()
				if i < len(b) && b[i] == ',' {
					i++
				}
				continue
			}
		}
		if i < len(b) && b[i] == '"' {
			v, ok := str()
			if !ok || !spec.setString(k, v) {
				return false
			}
		} else {
			start := i
			for i < len(b) && (b[i] == '-' || b[i] >= '0' && b[i] <= '9' || b[i] >= 'a' && b[i] <= 'z') {
				i++
			}
			if !spec.setLiteral(k, b[start:i]) {
				return false
			}
		}
		skip()
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}

// hexValue decodes the pairs of hex digits b starts with, up to a quote,
// into dst: the bytes, and how many digits there were. ok is false when
// anything else comes before the quote, for the line's reader to take.
// hexBlocks takes 32 digits at a step where the machine has vectors; the
// rest is read a pair as one 16-bit index into hexPairs, eight pairs at
// once (two words: the loop's overhead is shared by twice the digits),
// then one at a time.
func hexValue(dst, b []byte) (out []byte, n int, ok bool) {
	out = slices.Grow(dst[:0], len(b)/2)[:len(b)/2]
	steps := hexBlocks(out, b)
	return hexPairsFrom(dst, out, b, 32*steps, 16*steps)
}

// hexPairsFrom is hexValue from digit n of b, byte k of out on.
func hexPairsFrom(dst, out, b []byte, n, k int) ([]byte, int, bool) {
	t := hexPairs()
	for ; n+16 <= len(b) && k+8 <= len(out); n, k = n+16, k+8 {
		x, y := binary.LittleEndian.Uint64(b[n:]), binary.LittleEndian.Uint64(b[n+8:])
		v0, v1, v2, v3 := t[uint16(x)], t[uint16(x>>16)], t[uint16(x>>32)], t[x>>48]
		v4, v5, v6, v7 := t[uint16(y)], t[uint16(y>>16)], t[uint16(y>>32)], t[y>>48]
		if v0&v1&v2&v3&v4&v5&v6&v7 == 0 {
			break // the quote, or something the loop below says no to
		}
		binary.LittleEndian.PutUint64(out[k:], uint64(byte(v0))|uint64(byte(v1))<<8|uint64(byte(v2))<<16|uint64(byte(v3))<<24|
			uint64(byte(v4))<<32|uint64(byte(v5))<<40|uint64(byte(v6))<<48|uint64(byte(v7))<<56)
	}
	for ; n+1 < len(b) && k < len(out); n, k = n+2, k+1 {
		v := t[uint16(b[n])|uint16(b[n+1])<<8]
		if v == 0 {
			break
		}
		out[k] = byte(v)
	}
	if n < len(b) && b[n] == '"' {
		return out[:k], n, true
	}
	return dst[:0], 0, false
}

// hexPairs is the value of each pair of hex digits, indexed by the pair's
// two bytes read little-endian, with 0x100 added; 0 for any other pair.
// Made on first use: 128 KiB no command but batch needs.
var hexPairs = sync.OnceValue(func() *[1 << 16]uint16 {
	const digits = "0123456789abcdef"
	t := new([1 << 16]uint16)
	for hi := range 16 {
		for lo := range 16 {
			for _, a := range []byte{digits[hi], strings.ToUpper(digits[hi : hi+1])[0]} {
				for _, c := range []byte{digits[lo], strings.ToUpper(digits[lo : lo+1])[0]} {
					t[uint16(a)|uint16(c)<<8] = 0x100 | uint16(hi<<4|lo)
				}
			}
		}
	}
	return t
})

// setString sets a member given as a string; false for one scanLine
// leaves to encoding/json.
func (s *lineSpec) setString(k, v []byte) bool {
	switch string(k) {
	case "hex":
		s.hex = v
	case "base64":
		s.base64 = v
	case "direction":
		switch {
		case lowerIs(v, "request"): // no allocation for what lines say
			s.setDirection("request", dirDirection)
		case lowerIs(v, "response"):
			s.setDirection("response", dirDirection)
		default:
			s.setDirection(strings.ToLower(string(v)), dirDirection)
		}
	case "api":
		s.api = string(v)
	default:
		return false
	}
	return true
}

// lowerIs reports whether v, in lower case, is s, a word in lower case
// ASCII.
func lowerIs(v []byte, s string) bool {
	if len(v) != len(s) {
		return false
	}
	for i := range v {
		if v[i]|0x20 != s[i] {
			return false
		}
	}
	return true
}

// setLiteral sets a member given as a number or a boolean.
func (s *lineSpec) setLiteral(k, v []byte) bool {
	switch string(k) {
	case "api", "apiKey":
		if _, err := strconv.Atoi(string(v)); err != nil {
			return false
		}
		s.api = string(v)
	case "apiVersion", "version":
		n, err := strconv.Atoi(string(v))
		if err != nil || !apiVersionOK(n) {
			return false // parseLineJSON says what is wrong
		}
		s.version = n
	case "response", "request", "sizePrefix":
		if string(v) != "true" && string(v) != "false" {
			return false
		}
		yes := string(v) == "true"
		switch string(k) {
		case "response":
			s.setDirection(direction(yes), dirResponse)
		case "request":
			s.setDirection(direction(!yes), dirRequest)
		default:
			s.sizePrefix = 0
			if yes {
				s.sizePrefix = 1
			}
		}
	default:
		return false
	}
	return true
}

// The members that say a line's direction.
const (
	dirDirection = iota + 1 // "direction":"request"
	dirResponse             // "response":true
	dirRequest              // "request":false
)

// setDirection sets the line's direction d, as member from says it. A
// member that says otherwise than one before it is a contradiction, the
// line's error; a direction no frame has ("direction":"up") stays, for
// apply to say what is wrong with it.
func (s *lineSpec) setDirection(d string, from uint8) {
	switch {
	case s.dirFrom == 0:
	case s.direction != "request" && s.direction != "response":
		return
	case d != s.direction && s.conflict == "" && (d == "request" || d == "response"):
		s.conflict = saidDirection(s.dirFrom, s.direction) + " and " + saidDirection(from, d) +
			" contradict each other: a frame is a request or a response"
	}
	s.direction, s.dirFrom = d, from
}

// saidDirection is the member from as a line says direction d with it.
func saidDirection(from uint8, d string) string {
	switch from {
	case dirResponse:
		return `"response":` + strconv.FormatBool(d == "response")
	case dirRequest:
		return `"request":` + strconv.FormatBool(d == "request")
	}
	return `"direction":` + strconv.Quote(d)
}

// direction names the direction of a frame that is a response or not.
func direction(response bool) string {
	if response {
		return "response"
	}
	return "request"
}
