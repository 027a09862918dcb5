package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/input"
)

func errorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// readInputs gathers the bytes to work on: each argument is a file when one
// exists by that name, else data; with no arguments, standard input.
func readInputs(e *env, args []string) ([]byte, error) {
	if len(args) == 0 {
		return io.ReadAll(e.stdin)
	}
	var all [][]byte
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.Mode().IsRegular() {
			b, err := os.ReadFile(a)
			if err != nil {
				return nil, err
			}
			all = append(all, b)
			continue
		}
		all = append(all, []byte(a))
	}
	return bytes.Join(all, []byte("\n")), nil
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
	IntVar(*int, string, int, string)
}) {
	fs.BoolVar(&f.request, "request", false, "the frames are requests (default: recognised from the header)")
	fs.BoolVar(&f.response, "response", false, "the frames are responses; without --api/--version kwire guesses")
	fs.StringVar(&f.api, "api", "", "API name or key (e.g. Metadata or 3), to pin a response's API")
	fs.IntVar(&f.version, "version", -1, "API version, to pin a response's version")
	fs.BoolVar(&f.noSize, "no-size", false, "the frame has no 4-byte size prefix (same as --size no)")
	fs.StringVar(&f.size, "size", "auto", "size prefix: auto, yes or no")
	fs.StringVar(&f.input, "input", "auto", "input form: auto, hex, base64 or binary")
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
	api := schema.ByName(f.api)
	if api == nil {
		return nil, errorf("unknown API %q (run kwire apis)", f.api)
	}
	return api, nil
}

// splitFrames cuts the input into frames and says whether they carry their
// size prefix.
func (f *frameFlags) splitFrames(b []byte) ([][]byte, bool, error) {
	size := f.size
	if f.noSize {
		size = "no"
	}
	switch size {
	case "no":
		return [][]byte{b}, false, nil
	case "yes":
		frames, rest := input.SplitFrames(b, 0)
		if len(rest) > 0 || len(frames) == 0 {
			frames = append(frames, rest)
		}
		return frames, true, nil
	case "auto":
		if input.HasSizePrefix(b) {
			return [][]byte{b}, true, nil
		}
		frames, rest := input.SplitFrames(b, 0)
		if len(frames) > 0 && len(rest) == 0 {
			return frames, true, nil
		}
		return [][]byte{b}, input.LooksSizePrefixed(b), nil
	}
	return nil, false, errorf("--size must be auto, yes or no, not %q", size)
}

// decoded is one frame's reading, with the guesses that led to it.
type decoded struct {
	frame *codec.Frame
	err   error
	cands []codec.Candidate // for guessed responses
}

// decodeOne reads a frame as the flags say: a request from its header; a
// response with a pinned API and version; otherwise by ranking guesses.
func decodeOne(ff *frameFlags, api *schema.API, b []byte, sized bool, dec *codec.Decoder) decoded {
	opts := codec.Options{NoSizePrefix: !sized}
	if !ff.response {
		f, err := dec.Decode(b, opts)
		if err == nil || ff.request {
			return decoded{frame: f, err: err}
		}
		// Not a clean request: it may be a response.
		if c := guess(ff, api, b, sized); len(c) > 0 {
			return decoded{frame: c[0].Frame, cands: c}
		}
		return decoded{frame: f, err: err}
	}
	if api != nil && ff.version >= 0 {
		opts.Response, opts.APIKey, opts.Version = true, api.Key, int16(ff.version)
		f, err := dec.Decode(b, opts)
		return decoded{frame: f, err: err}
	}
	c := guess(ff, api, b, sized)
	if len(c) == 0 {
		what := "any API and version"
		if api != nil {
			what = "any version of " + api.Name
		}
		f := &codec.Frame{Response: true, Buffers: [][]byte{b}}
		return decoded{frame: f, err: errorf("the bytes do not decode cleanly as a response of %s", what)}
	}
	return decoded{frame: c[0].Frame, cands: c}
}

func guess(ff *frameFlags, api *schema.API, b []byte, sized bool) []codec.Candidate {
	cands := codec.GuessResponse(b, codec.GuessOptions{NoSizePrefix: !sized, Max: 50})
	if api == nil {
		if len(cands) > 5 {
			cands = cands[:5]
		}
		return cands
	}
	var out []codec.Candidate
	for _, c := range cands {
		if c.APIKey == api.Key {
			out = append(out, c)
		}
	}
	return out
}

func describeGuess(c []codec.Candidate) string {
	var b strings.Builder
	for i, x := range c {
		name := schema.ByKey(x.APIKey).Name
		vs := "v" + strconv.Itoa(int(x.Version))
		if len(x.Versions) > 0 {
			vs += " (same bytes as v" + joinVersions(x.Versions) + ")"
		}
		if i == 0 {
			fmt.Fprintf(&b, "guessed %s %s response, confidence %.2f", name, vs, x.Confidence)
			continue
		}
		if i == 1 {
			b.WriteString("; runners-up:")
		}
		fmt.Fprintf(&b, " %s %s (%.2f)", name, vs, x.Confidence)
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

func runDecode(e *env, args []string) int {
	fs := newFlags(e, "decode", "[flags] [HEX | FILE ...]",
		"kwire decode 0000001c001200030000000700056b7769726500076b776972652004312e3000",
		"kwire decode --format tree apiversions.xxd",
		"kwire decode --response --api ApiVersions --version 0 0000000a00000007000000000000",
		"kwire decode --response 0000000a00000007000000000000",
		"xxd frame.bin | kwire decode --format grid")
	var ff frameFlags
	ff.register(fs)
	format := fs.String("format", "json", "output: json (indented), ndjson, tree, grid or annotated")
	color := fs.String("color", "auto", "colour: auto (on a terminal, unless NO_COLOR is set), always or never")
	records := fs.String("records", "decoded", "records in value JSON: decoded, base64 or size")
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	if ff.request && ff.response {
		fail(e, "--request and --response exclude each other")
		return 2
	}
	api, err := ff.resolve()
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	mode, err := input.ParseMode(ff.input)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	switch *format {
	case "json", "ndjson", "tree", "grid", "annotated":
	default:
		fail(e, "--format must be json, ndjson, tree, grid or annotated, not %q", *format)
		return 2
	}
	useColor, err := colorOn(*color, e.stdoutIsTTY)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	jo, err := recordsMode(*records)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	raw, err := readInputs(e, args)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	b, _, err := input.Parse(raw, mode)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	frames, sized, err := ff.splitFrames(b)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	status := 0
	for i, fr := range frames {
		d := decodeOne(&ff, api, fr, sized, new(codec.Decoder))
		prefix := ""
		if len(frames) > 1 {
			prefix = "frame " + strconv.Itoa(i) + ": "
		}
		if len(d.cands) > 0 {
			fail(e, "%s%s", prefix, describeGuess(d.cands))
		}
		f := d.frame
		var out []byte
		switch *format {
		case "annotated":
			out = f.AppendAnnotated(nil)
		case "tree":
			out = []byte(strings.TrimRight(treeText(f, useColor), "\n"))
		case "grid":
			out = []byte(strings.TrimRight(gridText(f), "\n"))
		default:
			out = f.AppendJSON(nil, jo)
			if *format == "json" {
				out = indentJSON(out)
				if useColor {
					out = highlightJSON(out)
				}
			}
		}
		if f.Root != nil || *format == "json" || *format == "ndjson" {
			e.stdout.Write(append(out, '\n'))
		}
		if d.err != nil {
			var de *codec.DecodeError
			if errors.As(d.err, &de) {
				fail(e, "%s%v", prefix, de)
			} else {
				fail(e, "%s%v", prefix, d.err)
			}
			status = 1
		}
	}
	return status
}
