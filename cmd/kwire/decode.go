package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/input"
)

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
	fs.BoolVar(&f.response, "response", false, "the frames are responses (give --api and --version)")
	fs.StringVar(&f.api, "api", "", "API name or key, for responses (e.g. Metadata or 3)")
	fs.IntVar(&f.version, "version", -1, "API version, for responses")
	fs.BoolVar(&f.noSize, "no-size", false, "the frame has no 4-byte size prefix (same as --size no)")
	fs.StringVar(&f.size, "size", "auto", "size prefix: auto, yes or no")
	fs.StringVar(&f.input, "input", "auto", "input form: auto, hex, base64 or binary")
}

// options turns the flags into decode options, or a misuse error.
func (f *frameFlags) options() (codec.Options, error) {
	var o codec.Options
	o.Response = f.response
	if f.response || f.api != "" {
		api := schema.ByName(f.api)
		if api == nil {
			if f.api == "" {
				return o, fmt.Errorf("a response needs --api and --version")
			}
			return o, fmt.Errorf("unknown API %q (run kwire apis)", f.api)
		}
		o.APIKey = api.Key
		if f.response && f.version < 0 {
			return o, fmt.Errorf("a response needs --version")
		}
		o.Version = int16(f.version)
	}
	return o, nil
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
		// A size larger than what follows is a truncated frame: keep the
		// prefix so the error says how much is missing. (Without a prefix a
		// request starts with its API key and version, which read as a
		// size of at most a few million only for keys above 0.)
		if len(b) >= 4 {
			size := int(int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])))
			if size > len(b)-4 && size >= 8 && size < 1<<16 {
				return [][]byte{b}, true, nil
			}
		}
		return [][]byte{b}, false, nil
	}
	return nil, false, fmt.Errorf("--size must be auto, yes or no, not %q", size)
}

func runDecode(e *env, args []string) int {
	fs := newFlags(e, "decode", "[flags] [HEX | FILE ...]",
		"kwire decode 0000001f0012000300000007000576776972650000067377617461000001000",
		"kwire decode --response --api ApiVersions --version 3 capture.bin",
		"xxd frame.bin | kwire decode")
	var ff frameFlags
	ff.register(fs)
	format := fs.String("format", "json", "output: json (indented), ndjson (one line per frame) or annotated (tree with spans)")
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	opts, err := ff.options()
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	mode, err := input.ParseMode(ff.input)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	if *format != "json" && *format != "ndjson" && *format != "annotated" {
		fail(e, "--format must be json, ndjson or annotated, not %q", *format)
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
	opts.NoSizePrefix = !sized
	status := 0
	for i, fr := range frames {
		f, err := codec.Decode(fr, opts)
		var out []byte
		if *format == "annotated" {
			out = f.AppendAnnotated(nil)
		} else {
			out = f.AppendJSON(nil, codec.JSONOptions{})
		}
		if *format == "json" {
			var ind bytes.Buffer
			if json.Indent(&ind, out, "", "  ") == nil {
				out = ind.Bytes()
			}
		}
		e.stdout.Write(append(out, '\n'))
		if err != nil {
			var de *codec.DecodeError
			prefix := ""
			if len(frames) > 1 {
				prefix = "frame " + strconv.Itoa(i) + ": "
			}
			if errors.As(err, &de) {
				fail(e, "%s%v", prefix, de)
			} else {
				fail(e, "%s%v", prefix, err)
			}
			status = 1
		}
	}
	return status
}
