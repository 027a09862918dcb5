package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/input"
)

// batchLine is one NDJSON input line: the frame and, optionally, how to read it.
type batchLine struct {
	Hex        string `json:"hex"`
	Base64     string `json:"base64"`
	Direction  string `json:"direction"`
	APIKey     *int   `json:"apiKey"`
	API        string `json:"api"`
	APIVersion *int   `json:"apiVersion"`
	SizePrefix *bool  `json:"sizePrefix"`
}

type batchJob struct {
	n    int
	line []byte
}

type batchResult struct {
	n   int
	out []byte
	bad bool
}

func runBatch(e *env, args []string) int {
	fs := newFlags(e, "batch", "[flags] [FILE]",
		"kwire batch frames.hex",
		`echo '{"hex":"0000000a00000007000000000000","direction":"response","api":"ApiVersions","apiVersion":0}' | kwire batch`)
	var ff frameFlags
	ff.register(fs)
	jobs := fs.Int("jobs", runtime.NumCPU(), "decoders working at once")
	progress := fs.String("progress", "auto", "progress bar on stderr: auto (a terminal and a file input), always or never")
	records := fs.String("records", "decoded", "records in value JSON: decoded, base64 or size")
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(args) > 1 {
		fail(e, "batch reads one file or standard input")
		return 2
	}
	api, err := ff.resolve()
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	jo, err := recordsMode(*records)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	in := e.stdin
	var total int64 = -1
	if len(args) == 1 {
		f, err := os.Open(args[0])
		if err != nil {
			fail(e, "%v", err)
			return 1
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			total = st.Size()
		}
		in = f
	}
	showProgress := *progress == "always" || *progress == "auto" && total > 0 && e.stderrIsTTY
	if *jobs < 1 {
		*jobs = 1
	}

	jobCh := make(chan batchJob, 4**jobs)
	resCh := make(chan batchResult, 4**jobs)
	var wg sync.WaitGroup
	for i := 0; i < *jobs; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dec codec.Decoder // reused: each line's frame is done with once written
			for j := range jobCh {
				out, bad := decodeBatchLine(&ff, api, j, jo, &dec)
				resCh <- batchResult{j.n, out, bad}
			}
		}()
	}
	var read int64
	var readErr error
	go func() {
		r := bufio.NewReaderSize(in, 1<<20)
		n := 0
		for {
			line, err := r.ReadBytes('\n')
			read += int64(len(line))
			if len(bytes.TrimSpace(line)) > 0 {
				n++
				jobCh <- batchJob{n, line}
			}
			if err != nil {
				if err != io.EOF {
					readErr = err
				}
				break
			}
		}
		close(jobCh)
		wg.Wait()
		close(resCh)
	}()

	w := bufio.NewWriterSize(e.stdout, 1<<20)
	pending := map[int]batchResult{}
	next, lines, failed := 1, 0, 0
	start := time.Now()
	lastDraw := start
	for r := range resCh {
		pending[r.n] = r
		for {
			p, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			w.Write(p.out)
			w.WriteByte('\n')
			lines++
			if p.bad {
				failed++
			}
			next++
		}
		if showProgress && time.Since(lastDraw) > 200*time.Millisecond {
			lastDraw = time.Now()
			drawProgress(e.stderr, read, total, time.Since(start))
		}
	}
	w.Flush()
	if showProgress {
		drawProgress(e.stderr, total, total, time.Since(start))
		fmt.Fprintln(e.stderr)
	}
	if readErr != nil {
		fail(e, "%v", readErr)
		return 1
	}
	if failed > 0 {
		fail(e, "%d of %d lines failed", failed, lines)
		return 1
	}
	fmt.Fprintf(e.stderr, "kwire: %d lines decoded\n", lines)
	return 0
}

func drawProgress(w io.Writer, done, total int64, took time.Duration) {
	if total <= 0 {
		return
	}
	frac := float64(done) / float64(total)
	if frac > 1 {
		frac = 1
	}
	const width = 30
	bar := strings.Repeat("=", int(frac*width)) + strings.Repeat(" ", width-int(frac*width))
	rate := float64(done) / 1e6 / max(took.Seconds(), 1e-9)
	fmt.Fprintf(w, "\r[%s] %3.0f%% %.1f MB/s", bar, frac*100, rate)
}

// decodeBatchLine decodes one line into its output: value JSON, or an
// error object naming the line, offset and path.
func decodeBatchLine(ff *frameFlags, api *schema.API, j batchJob, jo codec.JSONOptions, dec *codec.Decoder) ([]byte, bool) {
	line := bytes.TrimSpace(j.line)
	lf := *ff
	lapi := api
	var data []byte
	var err error
	if len(line) > 0 && line[0] == '{' {
		var bl batchLine
		if !scanLine(line, &bl) {
			if err := json.Unmarshal(line, &bl); err != nil {
				return lineError(j.n, nil, "invalid JSON: "+err.Error()), true
			}
		}
		switch {
		case bl.Hex != "":
			data, err = parseHex(bl.Hex)
		case bl.Base64 != "":
			data, _, err = input.Parse([]byte(bl.Base64), input.Base64)
		default:
			return lineError(j.n, nil, `a line object needs "hex" or "base64"`), true
		}
		switch strings.ToLower(bl.Direction) {
		case "response":
			lf.response, lf.request = true, false
		case "request":
			lf.request, lf.response = true, false
		}
		if bl.APIKey != nil {
			lf.api = strconv.Itoa(*bl.APIKey)
		} else if bl.API != "" {
			lf.api = bl.API
		}
		if bl.APIVersion != nil {
			lf.version = *bl.APIVersion
		}
		if bl.SizePrefix != nil {
			lf.size, lf.noSize = map[bool]string{true: "yes", false: "no"}[*bl.SizePrefix], !*bl.SizePrefix
		}
		if lf.api != "" {
			if lapi = schema.ByName(lf.api); lapi == nil {
				return lineError(j.n, nil, "unknown API "+strconv.Quote(lf.api)), true
			}
		}
	} else if data, err = hexFast(line); err != nil {
		data, _, err = input.Parse(line, input.Auto)
	}
	if err != nil {
		return lineError(j.n, nil, err.Error()), true
	}
	sized := true
	if frames, s, err := lf.splitFrames(data); err == nil && len(frames) == 1 {
		sized = s
	}
	d := decodeOne(&lf, lapi, data, sized, dec)
	if d.err != nil {
		var de *codec.DecodeError
		if errors.As(d.err, &de) {
			return lineError(j.n, de, de.Error()), true
		}
		return lineError(j.n, nil, d.err.Error()), true
	}
	return d.frame.AppendJSON(nil, jo), false
}

func lineError(n int, de *codec.DecodeError, msg string) []byte {
	out := []byte(`{"line":` + strconv.Itoa(n) + `,"error":{"message":`)
	m, _ := json.Marshal(msg)
	out = append(out, m...)
	if de != nil {
		out = append(out, `,"offset":`+strconv.Itoa(de.Offset)...)
		p, _ := json.Marshal(de.Path)
		x, _ := json.Marshal(de.Expected)
		f, _ := json.Marshal(de.Found)
		out = append(out, `,"path":`...)
		out = append(out, p...)
		out = append(out, `,"expected":`...)
		out = append(out, x...)
		out = append(out, `,"found":`...)
		out = append(out, f...)
	}
	return append(out, "}}"...)
}

// hexFast decodes plain hex, the common shape of batch lines, without the
// shape detection input.Parse does.
func hexFast(b []byte) ([]byte, error) {
	out := make([]byte, len(b)/2)
	if _, err := hex.Decode(out, b); err != nil {
		return nil, err
	}
	return out, nil
}

func parseHex(s string) ([]byte, error) {
	if b, err := hexFast([]byte(s)); err == nil {
		return b, nil
	}
	b, _, err := input.Parse([]byte(s), input.Hex)
	return b, err
}

// scanLine reads a flat line object of the common shape quickly: string
// values without escapes, integers and booleans. It reports false for
// anything else, which encoding/json then reads.
func scanLine(b []byte, bl *batchLine) bool {
	i := 0
	skip := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
	}
	str := func() (string, bool) {
		if i >= len(b) || b[i] != '"' {
			return "", false
		}
		i++
		start := i
		for i < len(b) && b[i] != '"' {
			if b[i] == '\\' || b[i] < 0x20 {
				return "", false
			}
			i++
		}
		if i >= len(b) {
			return "", false
		}
		i++
		return string(b[start : i-1]), true
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
		if i < len(b) && b[i] == '"' {
			v, ok := str()
			if !ok {
				return false
			}
			switch k {
			case "hex":
				bl.Hex = v
			case "base64":
				bl.Base64 = v
			case "direction":
				bl.Direction = v
			case "api":
				bl.API = v
			default:
				return false
			}
		} else {
			start := i
			for i < len(b) && (b[i] == '-' || b[i] >= '0' && b[i] <= '9' || b[i] >= 'a' && b[i] <= 'z') {
				i++
			}
			v := string(b[start:i])
			switch k {
			case "apiKey", "apiVersion":
				n, err := strconv.Atoi(v)
				if err != nil {
					return false
				}
				if k == "apiKey" {
					bl.APIKey = &n
				} else {
					bl.APIVersion = &n
				}
			case "sizePrefix":
				if v != "true" && v != "false" {
					return false
				}
				x := v == "true"
				bl.SizePrefix = &x
			default:
				return false
			}
		}
		skip()
		if i < len(b) && b[i] == ',' {
			i++
		}
	}
}
