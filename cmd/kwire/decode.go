package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/input"
)

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// anInput is one input of decode or encode, read and parsed on its own: a
// file's bytes, standard input's, or the text of inline arguments (those
// next to each other joined by newlines, as one text). name is the file's
// path, "" for the others.
type anInput struct {
	name string
	data []byte
	// r, when set, is where data comes from, read as it is needed (kwire
	// encode's streams) rather than whole beforehand.
	r io.Reader
	// err is why the file could not be opened or read (missing, a
	// directory): said, with its name, and the other inputs worked on.
	err error
}

// argsRule is how decode and encode tell a FILE argument from inline data
// (see isPathArg), for their --help; DATA is the command's word for it.
const argsRule = `An argument is a FILE when a file or directory of that name exists, or
when it looks like a path: it has no blanks and starts with '/', or it is
not valid DATA and holds a '/' or a '.' followed by a letter (frame.bin, value.json);
a missing FILE or a directory is an error, said with its name, and the
other inputs are still read (the exit status is 1). "-" is standard input. Any
other argument is DATA; arguments of DATA next to each other are one
text. Each FILE is read on its own: its form found, its lines numbered,
its errors named by it.`

// readInputs gathers the inputs to work on, in order: each argument is a
// file or data as isPathArg tells them apart, isData saying what data the
// command takes, or "-", standard input; with no arguments, standard
// input. A file that cannot be read (missing, a directory) is an input
// with its err set, for the command to say with its name (inputFailed)
// and go on with the others: one mistyped name among many files left all
// the others undone. The error returned is standard input's alone.
func readInputs(e *env, args []string, isData func([]byte) bool) ([]anInput, error) {
	return inputsOf(e, args, isData, false)
}

// inputFailed says, on standard error, each input of ins that could not
// be read, with its name (fileError), and returns those that could and
// how many could not.
func inputFailed(e *env, ins []anInput) ([]anInput, int) {
	ok, failed := ins[:0:0], 0
	for _, in := range ins {
		if in.err != nil {
			fail(e, "%v", fileError(in.name, in.err))
			failed++
			continue
		}
		ok = append(ok, in)
	}
	return ok, failed
}

// inputsOf is readInputs; lazy, a file or standard input is opened (so a
// missing file is said before anything is read) and left to be read as
// it is needed, through anInput.r.
func inputsOf(e *env, args []string, isData func([]byte) bool, lazy bool) ([]anInput, error) {
	if len(args) == 0 {
		if lazy {
			return []anInput{{r: e.stdin}}, nil
		}
		b, err := io.ReadAll(e.stdin)
		return []anInput{{data: b}}, err
	}
	var ins []anInput
	var inline [][]byte // data arguments not yet joined
	flush := func() {
		if len(inline) == 1 {
			ins = append(ins, anInput{data: inline[0]}) // no copy: a frame may be big
		} else if len(inline) > 1 {
			ins = append(ins, anInput{data: bytes.Join(inline, []byte("\n"))})
		}
		inline = nil
	}
	for _, a := range args {
		if a == "-" { // standard input, in its place among the others
			flush()
			if lazy {
				ins = append(ins, anInput{name: "-", r: e.stdin})
				continue
			}
			b, err := io.ReadAll(e.stdin)
			if err != nil {
				return nil, err
			}
			ins = append(ins, anInput{name: "-", data: b})
			continue
		}
		if !isPathArg(a, isData) {
			inline = append(inline, []byte(a))
			continue
		}
		flush()
		if lazy {
			f, err := os.Open(a)
			if err == nil {
				if st, serr := f.Stat(); serr == nil && st.IsDir() {
					f.Close()
					_, err = os.ReadFile(a) // the error ReadFile gives a directory
				}
			}
			if err != nil {
				ins = append(ins, anInput{name: a, err: err})
				continue
			}
			ins = append(ins, anInput{name: a, r: f}) // closed when the process ends
			continue
		}
		b, err := os.ReadFile(a) // also a named pipe, /dev/stdin, <(...)
		ins = append(ins, anInput{name: a, data: b, err: err})
	}
	flush()
	if len(ins) == 1 && ins[0].name == "-" {
		ins[0].name = "" // standard input alone, as with no arguments
	}
	return ins, nil
}

// isPathArg says whether an argument names a file (see argsRule): one of
// that name exists (a directory too, to be refused by name rather than
// read as data), or it looks like a path. A leading '/' is a path even
// where it is valid base64: a frame's base64 starts so only for a first
// byte of 0xfc or more, a negative size.
func isPathArg(a string, isData func([]byte) bool) bool {
	if _, err := os.Stat(a); err == nil {
		return true
	}
	if a == "" || strings.ContainsAny(a, " \t\r\n\f\v") {
		return false
	}
	if a[0] == '/' {
		return true
	}
	pathy := strings.ContainsRune(a, '/')
	for i := 0; !pathy && i+1 < len(a); i++ {
		c := a[i+1] | 0x20
		pathy = a[i] == '.' && c >= 'a' && c <= 'z'
	}
	return pathy && !isData([]byte(a))
}

// namedError is an error in an input named by its file: "FILE: error",
// the file named once (fileError).
func namedError(in anInput, err error) error {
	if in.name == "" {
		return err
	}
	return fileError(in.name, err)
}

// fileError is err, met reading the file name, said with the name once:
// "NAME: REASON". The os package's errors name the path themselves ("open
// NAME: no such file or directory"), so a message that put the name
// before one said it twice; its operation (open, stat, read) tells a user
// nothing the reason does not, and is left out. Every command says an
// input it cannot read so.
func fileError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == name {
		return fmt.Errorf("%s: %w", name, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

type frameFlags struct {
	request  bool
	response bool
	api      string
	version  int
	noSize   bool
	size     string
	input    string
}

func (f *frameFlags) register(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
	Var(flag.Value, string, string)
}) {
	fs.BoolVar(&f.request, "request", false, "the frames are requests (default: recognised from the header)")
	fs.BoolVar(&f.response, "response", false, "the frames are responses; without --api/--version kwire guesses")
	fs.StringVar(&f.api, "api", "", "API name or key (e.g. Metadata or 3), to pin a response's API")
	f.version = -1
	fs.Var(versionFlag{&f.version}, "version", "API version `N` (0 to 32767), to pin a response's version")
	fs.BoolVar(&f.noSize, "no-size", false, "the frame has no 4-byte size prefix (same as --size no)")
	fs.StringVar(&f.size, "size", "auto", "size prefix: auto, yes or no (auto: the first 4 bytes are a size when they match the bytes after them, a cut frame's, or no unsized frame's: negative or 2^24 and more)")
	fs.StringVar(&f.input, "input", "auto", "input form: auto, hex, base64 or binary")
}

// versionFlag is a --version flag: an API version, which Kafka writes as
// an int16 and never negative, so 0 to 32767; anything else is refused
// when the flag is parsed, naming the flag, rather than wrapped to an
// int16 or taken as "not given". The int it sets stays -1 until given.
type versionFlag struct{ v *int }

func (f versionFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || !apiVersionOK(n) {
		return errors.New("an API version is a whole number from 0 to 32767")
	}
	*f.v = n
	return nil
}

// apiVersionOK reports whether n can be an API version: Kafka writes one
// as an int16, never negative. --version and a batch line's version are
// held to it.
func apiVersionOK(n int) bool { return n >= 0 && n <= math.MaxInt16 }

// String is the version given, or "" (the zero value's, so --help shows
// no default).
func (f versionFlag) String() string {
	if f.v == nil || *f.v < 0 {
		return ""
	}
	return strconv.Itoa(*f.v)
}

// resolve resolves --api, and a pinned API means responses unless
// --request says otherwise; nil when no API was given.
func (f *frameFlags) resolve() (*schema.API, error) {
	api, err := f.pin()
	if api != nil && !f.request {
		f.response = true
	}
	return api, err
}

// pin resolves --api; nil when none was given.
func (f *frameFlags) pin() (*schema.API, error) {
	if f.api == "" {
		if f.version >= 0 && !f.request {
			return nil, errorf("--version needs --api")
		}
		return nil, nil
	}
	return apiNamed(f.api)
}

// apiNamed resolves an --api flag (a name or key); nil for "".
func apiNamed(name string) (*schema.API, error) {
	if name == "" {
		return nil, nil
	}
	if api := schema.ByName(name); api != nil {
		return api, nil
	}
	return nil, errorf("%s", unknownAPI(name))
}

// sizeMode is --size, or no for --no-size; --size yes with --no-size is
// an error, as --request with --response is.
func (f *frameFlags) sizeMode() (input.SizeMode, error) {
	mode, err := input.ParseSizeMode(f.size)
	if err != nil {
		return mode, errorf("--size must be auto, yes or no, not %q", f.size)
	}
	if f.noSize {
		if mode == input.SizeYes {
			return mode, errorf("--size %s and --no-size exclude each other", f.size)
		}
		mode = input.SizeNo
	}
	return mode, nil
}

// check refuses flags that contradict each other or take no such value:
// misuse, before any input is read.
// inputMode is --input's form, refused in the words every choice flag
// is refused in.
func (f *frameFlags) inputMode() (input.Mode, error) {
	m, err := input.ParseMode(f.input)
	if err != nil {
		return m, errorf("--input must be auto, hex, base64 or binary, not %q", f.input)
	}
	return m, nil
}

func (f *frameFlags) check() error {
	if f.request && f.response {
		return errorf("--request and --response exclude each other")
	}
	_, err := f.sizeMode()
	return err
}

// splitFrames cuts the input into frames and says whether they carry their
// size prefix. clean, when given, says whether a sized frame decodes
// without an error, a warning or a guess: it tells whole frames followed
// by a cut one from an unsized frame whose first bytes read as sizes.
func (f *frameFlags) splitFrames(b []byte, clean func([]byte) bool) ([][]byte, bool, error) {
	mode, err := f.sizeMode()
	if err != nil {
		return nil, false, err
	}
	switch mode {
	case input.SizeNo:
		return [][]byte{b}, false, nil
	case input.SizeYes:
		frames, rest := input.SplitFrames(b, 0)
		if len(rest) > 0 || len(frames) == 0 {
			frames = append(frames, rest)
		}
		return frames, true, nil
	}
	if input.HasSizePrefix(b) {
		return [][]byte{b}, true, nil
	}
	frames, rest := input.SplitFrames(b, 0)
	switch {
	case len(frames) > 0 && len(rest) == 0:
		return frames, true, nil
	case len(frames) > 0 && len(rest) < 4:
		// Whole frames, then fewer bytes than a size prefix: the last
		// frame's trailing bytes, which its reading reports.
		last := frames[len(frames)-1]
		frames[len(frames)-1] = b[len(b)-len(rest)-len(last):]
		return frames, true, nil
	case len(frames) > 0 && clean != nil && clean(frames[0]):
		// Whole frames, then a frame cut short (a stream copied up to
		// some byte), which fails at its size. A first frame that decodes
		// clean, without guessing (any few bytes read as some response),
		// is no chance reading of an unsized frame's first bytes.
		return append(frames, rest), true, nil
	}
	return [][]byte{b}, mode.Sized(b), nil
}

// cleanSized is splitFrames' test of a frame read as the flags say with
// its size prefix.
func (f *frameFlags) cleanSized(dec *codec.Decoder, api *schema.API) func([]byte) bool {
	return func(fr []byte) bool { return input.DecodesClean(dec, fr, f.options(api, true)) }
}

// decoded is one frame's reading, with the guesses that led to it.
type decoded struct {
	frame *codec.Frame
	err   error
	cands []codec.Candidate // for guessed responses
}

// viewLimits bound the frames the tree and grid views draw: what a person
// reads, and what their per-node text costs, is a small tree; a limit
// warning says where they cut one. Value JSON has the codec's defaults.
var viewLimits = codec.Limits{MaxNodes: 1 << 18, MaxDecompressed: 8 << 20}

// gridLimits are the grid's: each node is a cell with its strings and rows.
var gridLimits = codec.Limits{MaxNodes: 1 << 17, MaxDecompressed: 8 << 20}

// options turns the flags into the codec's: a request from its header; a
// response with a pinned API and version; a response whose API or version
// is guessed; or, with neither --request nor --response, a request if it
// reads cleanly as one, else the likeliest response.
func (f *frameFlags) options(api *schema.API, sized bool) codec.Options {
	o := codec.Options{NoSizePrefix: !sized}
	switch {
	case f.request:
	case f.response:
		o.Response, o.APIKey, o.Version = true, codec.Any, codec.Any
		if api != nil {
			o.APIKey = api.Key
		}
		if f.version >= 0 {
			o.Version = int16(f.version)
		}
	default:
		o.Auto = true
	}
	return o
}

// describeGuess says how a response was read: the API and version
// guessed, the confidence, the runners-up, and whether the work limit cut
// the search.
func describeGuess(g *codec.Guess) string {
	var b strings.Builder
	b.WriteString("read as a response: ")
	for i, x := range g.Candidates[:min(len(g.Candidates), 5)] {
		name := schema.ByKey(x.APIKey).Name
		vs := "v" + strconv.Itoa(int(x.Version))
		if len(x.Versions) > 0 {
			vs += " (same bytes as v" + joinVersions(x.Versions) + ")"
		}
		if i == 0 {
			fmt.Fprintf(&b, "guessed %s %s response, confidence %.2f", name, vs, x.Confidence)
			if len(x.Doubts) > 0 {
				// Confidence is a share among the readings: the only one
				// that fits has it all, however doubtful.
				b.WriteString(" (doubts: " + strings.Join(x.Doubts, "; ") + ")")
			}
			continue
		}
		if i == 1 {
			b.WriteString("; runners-up:")
		}
		fmt.Fprintf(&b, " %s %s (%.2f)", name, vs, x.Confidence)
	}
	fmt.Fprintf(&b, "; %d readings tried", g.Tried)
	if g.Cut {
		b.WriteString(", then the MaxWork limit stopped the search")
	}
	return b.String()
}

func joinVersions(vs []int16) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(int(v))
	}
	return strings.Join(s, ",")
}

// maxWarnLines is how many warnings of one frame are printed; a hostile
// frame can hold hundreds of thousands (all of them are in the JSON's
// "warnings").
const maxWarnLines = 1000

// describeWarning is "at byte N (path): message", naming the derived
// buffer for bytes that came out of a decompression.
func describeWarning(w codec.Warning) string {
	// Where, worded as the codec's errors word it: a DecodeError with
	// nothing expected reads "at byte N of derived buffer B (path): expected ".
	where := (&codec.DecodeError{Offset: w.Offset, Buf: w.Buf, Path: w.Path}).Error()
	return strings.TrimSuffix(where, "expected ") + w.Message
}

func runDecode(e *env, args []string) int {
	fs := newFlags(e, "decode", "[flags] [HEX | FILE ...]\n\n"+strings.ReplaceAll(argsRule, "DATA", "HEX")+`

Every frame's output goes to standard output, a failing frame's as far
as it decoded. Standard error says why a frame failed (its input, frame
number, byte and field) for the first `+strconv.Itoa(maxFailuresShown)+` failing frames, then
counts the rest in one line; the exit status is 1 when any failed.`,
		"kwire decode 0000001b001200030000000700056b7769726500066b7769726504312e3000",
		"kwire decode --format tree apiversions.xxd",
		"kwire decode --response --api ApiVersions --version 0 0000000a00000007000000000000",
		"kwire decode --response 0000000a00000007000000000000",
		"kwire decode --strict frame.bin",
		"kwire decode --kafka --format ndjson frame.bin",
		"xxd frame.bin | kwire decode --format grid")
	var c decodeCmd
	c.ff.register(fs)
	fs.StringVar(&c.format, "format", "json", "output: json (indented), ndjson, tree, grid or annotated (tree and grid draw at most 2^18 and 2^17 nodes)")
	color := fs.String("color", "auto", "colour: auto (on a terminal, unless NO_COLOR is set and not empty), always or never")
	var jf jsonFlags
	jf.register(fs)
	fs.BoolVar(&c.strict, "strict", false, "exit 1 when any warning (a lenient reading or a limit hit) is printed")
	c.pf.register(fs)
	progressMode := fs.String("progress", "auto", progressFlagUsage)
	args, code := parseInputs(e, fs, args)
	if code >= 0 {
		return code
	}
	if err := c.check(e, *color, &jf); err != nil {
		fail(e, "%v", err)
		return 2
	}
	showProgress, err := progressOn(*progressMode, inputsSize(e, args), e, true)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	terminalInput(e, "decode", args, "paste a frame's hex, or a dump of it")
	// Ctrl-C (interrupt.go) while standard input is read ends the reading,
	// and nothing is decoded; while frames are decoded, the frame under
	// way is finished, and the rest are not decoded.
	it := catchInterrupt()
	defer it.release()
	re := *e
	re.stdin = it.reader(e.stdin)
	ins, err := readInputs(&re, args, func(b []byte) bool {
		_, _, err := input.Parse(b, c.mode)
		return err == nil
	})
	if it.interrupted() {
		fail(e, "interrupted (%s) while reading the input: nothing decoded", it.name())
		return it.status()
	}
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	// A file that could not be read is said first, by name, and the
	// others decoded all the same; the exit status says it (1), and a
	// last line counts them after the frames' lines.
	read, unread := inputFailed(e, ins)
	// Each input is parsed and cut into frames on its own: a binary file
	// after a hex one, or two binary files, stay what they are.
	type inputFrames struct {
		name   string
		frames [][]byte
		sized  bool
		size   int64 // the input's bytes, as read (hex is twice its frames)
	}
	status := 0
	if unread > 0 {
		status = 1
	}
	var dec codec.Decoder
	var all []inputFrames
	var nFrames int
	var inBytes int64
	for _, in := range read {
		raw, form, err := input.Parse(in.data, c.mode)
		if err != nil {
			if c.mode == input.Auto || c.mode == input.Hex {
				if many := manyPackets(in.data, in.name, "decode reads a frame, or one packet"); many != nil {
					err = many
				}
			}
			if errors.Is(err, input.ErrJSON) {
				err = fmt.Errorf("%w (kwire encode)", err)
			}
			fail(e, "%v", namedError(in, err))
			status = 1
			continue
		}
		if form == input.FormatBinary && c.mode == input.Auto {
			if pc := capturePassed(raw, in.name, "decode reads frames"); pc != nil {
				fail(e, "%v", namedError(in, pc))
				status = 1
				continue
			}
		}
		if form == input.FormatHexJSON {
			fail(e, "%v", namedError(in, errors.New("the JSON after the line of hex (kwire example's output) is passed over: the hex is the frame")))
		}
		// A whole captured packet (tcpdump -X, tshark -x): its TCP
		// payload, said so.
		if payload, pkt, ok := input.StripPacket(raw); ok {
			fail(e, "%v", namedError(in, errors.New(pkt.String())))
			if len(payload) == 0 {
				status = 1
				continue
			}
			raw = payload
		}
		frames, sized, err := c.ff.splitFrames(raw, c.ff.cleanSized(&dec, c.api))
		if err != nil {
			fail(e, "%v", err)
			return 2
		}
		all = append(all, inputFrames{in.name, frames, sized, int64(len(in.data))})
		nFrames += len(frames)
		inBytes += int64(len(in.data))
	}
	// Progress counts input bytes, what a user compares with the file's
	// size (as batch and pcap do): each frame its share of its input's.
	prog := startProgress(e.stderr, showProgress, inBytes, "frames")
	stderr := prog.Writer(e.stderr)
	// Each frame's lines for standard error are gathered first, so that
	// those of a failing frame past the first maxFailuresShown are left
	// out, counted, rather than written: a file of 50,000 bad frames
	// would flood the terminal (its JSON still goes to standard output).
	var frameErr bytes.Buffer
	pe := *e
	pe.stderr = &frameErr
	failed, notShown, firstNotShown := 0, 0, ""
	i := 0
inputs:
	for _, in := range all {
		var frameBytes, seen, counted int64
		for _, fr := range in.frames {
			frameBytes += int64(len(fr))
		}
		for _, fr := range in.frames {
			if it.interrupted() {
				break inputs
			}
			// Frames are numbered from 1 in output order, across the
			// inputs, as kwire check numbers them; a file's name goes
			// first when there are several inputs.
			prefix := ""
			if nFrames > 1 {
				prefix = "frame " + strconv.Itoa(i+1) + ": "
			}
			if in.name != "" && len(ins) > 1 {
				prefix = in.name + ": " + prefix
			}
			frameErr.Reset()
			c.newerLine = ""
			ok := c.decodeFrame(&pe, &dec, fr, in.sized, prefix)
			if !ok {
				status = 1
				failed++
			}
			if ok || failed <= maxFailuresShown {
				stderr.Write(frameErr.Bytes())
			} else {
				if c.newerLine != "" {
					stderr.Write([]byte("kwire: " + c.newerLine + "\n"))
				}
				if notShown == 0 {
					firstNotShown = "frame " + strconv.Itoa(i+1)
					if in.name != "" && len(ins) > 1 {
						firstNotShown += " of " + in.name
					}
				}
				notShown++
			}
			if e.outFailed() != nil {
				prog.finish()
				return 1 // run says why, once
			}
			seen += int64(len(fr))
			share := in.size
			if frameBytes > 0 {
				share = int64(float64(in.size) * float64(seen) / float64(frameBytes))
			}
			prog.add(share-counted, 1)
			counted = share
			i++
		}
	}
	prog.finishAt(i < nFrames)
	if i < nFrames { // interrupted
		if notShown > 0 {
			fail(e, "%s not shown (the first: %s)", pluralOf(notShown, "more failing frame", "more failing frames"), firstNotShown)
		}
		fail(e, "interrupted (%s): %d of %s decoded, %d of them failed; frames %d to %d not decoded", it.name(), i, plural(nFrames, "frame"), failed, i+1, nFrames)
		return it.status()
	}
	if notShown > 0 {
		fail(e, "%s", notShownLine(notShown, "frame", firstNotShown, failed, nFrames))
	}
	if unread > 0 && len(read) > 0 {
		// Said again below the frames' lines, which may have scrolled
		// the first saying away.
		fail(e, "%d of %s not read (said above)", unread, plural(len(ins), "input"))
	}
	return status
}

// maxFailuresShown is how many failures kwire decode (failing frames) and
// kwire pcap (exchanges whose frames failed) say why of on standard
// error, one line each; the rest are counted in one line at the end,
// notShownLine's.
const maxFailuresShown = 10

// notShownLine counts the failures past the first maxFailuresShown, n of
// them, the first of them where: "40 more failing frames not shown (the
// first: frame 12); 50 of 51 frames failed".
func notShownLine(n int, unit, where string, failed, total int) string {
	return pluralOf(n, "more failing "+unit, "more failing "+unit+"s") + " not shown (the first: " + where + "); " +
		strconv.Itoa(failed) + " of " + plural(total, unit) + " failed"
}

// inputsSize is the size of what readInputs reads when it is known: the
// files named, or standard input when it is a file; else -1.
func inputsSize(e *env, args []string) int64 {
	if len(args) == 0 {
		return inputSize(e.stdin)
	}
	var n int64
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.Mode().IsRegular() {
			return -1
		}
		n += st.Size()
	}
	return n
}

// decodeCmd is what kwire decode's flags ask for, checked by check.
type decodeCmd struct {
	ff      frameFlags
	api     *schema.API // --api, resolved
	mode    input.Mode  // --input
	format  string
	color   bool
	jo      jsonForm
	strict  bool
	pf      payloadFlags
	payload payloadHook // --payloads, --schema-registry, --schemas
	// newer holds the API versions newer than kwire knows that a frame
	// was decoded at, each said once (newerVersion).
	newer newerSaid
	// newerLine is the newerVersion line the frame being decoded said
	// (""): said again to standard error when the frame's own lines are
	// not shown (past maxFailuresShown), as it is said once a run.
	newerLine string
}

// check resolves and cross-checks the flags; an error is a usage error.
func (c *decodeCmd) check(e *env, color string, jf *jsonFlags) error {
	if err := c.ff.check(); err != nil {
		return err
	}
	var err error
	if c.api, err = c.ff.resolve(); err != nil {
		return err
	}
	if c.mode, err = c.ff.inputMode(); err != nil {
		return err
	}
	switch c.format {
	case "json", "ndjson", "tree", "grid", "annotated":
	default:
		return errorf("--format must be json, ndjson, tree, grid or annotated, not %q", c.format)
	}
	if c.color, err = colorOn(color, e.stdoutIsTTY); err != nil {
		return err
	}
	if c.jo, err = jf.options(); err != nil {
		return err
	}
	if c.jo.kafka && c.format != "json" && c.format != "ndjson" {
		return errorf("--kafka is a form of value JSON: --format json or ndjson")
	}
	if err = c.pf.checkForm(c.jo); err != nil {
		return err
	}
	if c.payload, err = c.pf.hook(e.stderr); err != nil {
		return err
	}
	return nil
}

// decodeFrame writes one frame in the chosen format and its warnings and
// error to stderr (each line after prefix); false when the frame failed,
// or warned under --strict.
func (c *decodeCmd) decodeFrame(e *env, dec *codec.Decoder, fr []byte, sized bool, prefix string) bool {
	if msg := c.ff.requestMismatch(c.api, fr, sized); msg != "" {
		fail(e, "%s%s", prefix, msg)
		return false
	}
	o := c.ff.options(c.api, sized)
	c.pf.setOptions(&o, c.payload, false)
	var g *codec.Guess
	var ws []codec.Warning
	var err error
	var info *codec.Frame // what the walk learnt
	if c.format == "json" || c.format == "ndjson" {
		// Value JSON is written straight from the bytes, streamed.
		var out io.Writer = e.stdout
		var ind *indentWriter
		if c.format == "json" {
			ind = &indentWriter{w: e.stdout, color: c.color}
			out = ind
		}
		info, err = dec.WriteJSON(out, fr, c.jo.apply(o))
		if ind != nil {
			ind.Close()
		}
		e.stdout.Write([]byte{'\n'})
		g, ws = info.Guess, info.Warnings
	} else {
		switch c.format {
		case "tree":
			// Views drawn for people: a smaller tree, whose limits
			// say where they cut it.
			o.Limits = viewLimits
		case "grid":
			o.Limits = gridLimits
		}
		f, derr := dec.Decode(fr, o)
		switch c.format {
		case "annotated":
			f.WriteAnnotated(e.stdout)
			e.stdout.Write([]byte{'\n'})
		case "tree":
			writeTree(e.stdout, f, c.color)
		case "grid":
			e.stdout.Write([]byte(strings.TrimRight(gridText(f), "\n") + "\n"))
		}
		g, ws, err, info = f.Guess, f.Warnings, derr, f
	}
	if e.outFailed() != nil {
		return false // said once, by run; nothing more to say of a frame nobody gets
	}
	if n, ok := newerOf(info); ok && c.newer.first(n) {
		c.newerLine = prefix + n.String()
		fail(e, "%s", c.newerLine)
	}
	if diag := appendDiagnostics(nil, prefix, g, ws); len(diag) > 0 {
		e.stderr.Write(diag)
	}
	ok := len(ws) == 0 || !c.strict
	if err == nil && g != nil && len(ws) > 0 {
		// A guess that read only with leniency, of bytes a request's
		// header starts: most likely that request, sent to --response.
		if h, req := input.RequestHeader(fr, sized); req {
			fail(e, "%sthese bytes start with a request's header: %v; without --response they are read as that request", prefix, requestSays(h))
		}
	}
	if err != nil {
		var de *codec.DecodeError
		switch {
		case errors.As(err, &de) && de.Path == "size" && errors.Is(err, wire.ErrShort) && o.Auto:
			// A guess never starts from a frame cut short; the reader
			// is told how to see what is there.
			fail(e, "%s%v (--request, or --response with --api and --version, reads the bytes there are)", prefix, de)
		case de != nil:
			fail(e, "%s%v", prefix, de)
		default:
			fail(e, "%s%v", prefix, err)
		}
		if h, req := input.RequestHeader(fr, sized); req && o.Response && !strings.Contains(err.Error(), "request's header") {
			// A request read as the response pinned: say what it is.
			fail(e, "%sthese bytes start with a request's header: %v; without --response, --api and --version they are read as that request", prefix, requestSays(h))
		}
		ok = false
	}
	return ok
}

// newerVersion says, once a run for each API and version, that a frame
// was decoded at a version newer than any kwire knows, with the newest
// layout (the codec's warning, on the frame's body, says that much for
// every frame): which versions kwire knows, where they come from, and
// what a newer layout may do to the reading. Decoding goes on, as the
// bytes are there to read; kwire schema and kwire example refuse such a
// version (versionRefused), having nothing true to print for it. It is
// what newerOf kept of the frame, by value: kwire batch and kwire pcap
// decode on workers, whose frames are reused before the line is said, in
// input order (newerSaid).
type newerVersion struct {
	api         *schema.API
	valid       schema.Range // the versions kwire knows of the message read
	ver, layout int16
}

// newerOf is what newerVersion says of f, when f was decoded at a
// version newer than kwire knows (ok).
func newerOf(f *codec.Frame) (n newerVersion, ok bool) {
	if f == nil || !f.Assumed || f.API == nil {
		return n, false
	}
	n = newerVersion{api: f.API, valid: f.API.Request.Valid, ver: f.Version, layout: f.LayoutVersion}
	if f.Message != nil {
		n.valid = f.Message.Valid
	}
	return n, true
}

func (n newerVersion) String() string {
	v, lv := strconv.Itoa(int(n.ver)), strconv.Itoa(int(n.layout))
	return n.api.Name + " v" + v + " is newer than kwire knows: it knows v" + n.valid.String() + knownFrom() +
		", and decoded v" + v + " with the v" + lv + " layout, the newest; what a newer version added is not read, " +
		"and where its layout changed the frame may fail or read wrong (a newer kwire may know v" + v + ")"
}

// newerSaid holds the APIs and versions a run has said newerVersion of,
// each said once: kwire decode, kwire batch and kwire pcap say it alike.
type newerSaid map[[2]int16]bool

// first reports whether n is the first of its API and version, which
// it marks said.
func (s *newerSaid) first(n newerVersion) bool {
	k := [2]int16{n.api.Key, n.ver}
	if (*s)[k] {
		return false
	}
	if *s == nil {
		*s = newerSaid{}
	}
	(*s)[k] = true
	return true
}

// requestSays is what a request's header names, for messages: `api key 18
// (ApiVersions) v3, correlation id 7, client id "kwire"`, as the codec's
// errors say it.
func requestSays(h codec.RequestHeader) string {
	s := "api key " + strconv.Itoa(int(h.APIKey))
	if api := schema.ByKey(h.APIKey); api != nil {
		s += " (" + api.Name + ")"
	}
	s += " v" + strconv.Itoa(int(h.Version)) + ", correlation id " + strconv.Itoa(int(h.CorrelationID))
	if h.ClientID != nil {
		s += ", client id " + strconv.Quote(*h.ClientID)
	}
	return s
}

// requestMismatch says how a request's header contradicts the API or
// version --request pins with --api or --version ("" when it does not,
// or the bytes hold no request header).
func (f *frameFlags) requestMismatch(api *schema.API, fr []byte, sized bool) string {
	if !f.request || api == nil && f.version < 0 {
		return ""
	}
	h, err := codec.ParseRequestHeader(fr, codec.Options{NoSizePrefix: !sized})
	if err != nil {
		return ""
	}
	switch {
	case api != nil && h.APIKey != api.Key:
		return "the request's header says " + requestSays(h) + ", not " + api.Name + ", the API pinned"
	case f.version >= 0 && int(h.Version) != f.version:
		return "the request's header says " + requestSays(h) + ", not v" + strconv.Itoa(f.version) + ", the version pinned"
	}
	return ""
}
