// Package hostile is kwire's hostile corpus: inputs of a few bytes to a few
// hundred kilobytes that cost a decoder far more than their size (bombs,
// floods, declared counts and lengths at their maximum, nesting, broken
// captures), each with what it attacks and what the user must get.
//
// The corpus is generated (go run ./internal/hostile/gen writes
// testdata/hostile and its MANIFEST) and committed; a test keeps the
// committed files equal to what the generator makes. Tests across the
// repository decode every entry through the codec, the CLI, the API and the
// WebAssembly build, and check the entry's Expect with Check.
package hostile

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Mode says how an entry is read.
type Mode string

const (
	// Request: a request (CLI --request, API ?direction=request).
	Request Mode = "request"
	// Response: a response of the entry's API and version.
	Response Mode = "response"
	// Auto: no hints. kwire reads a request, else guesses a response.
	Auto Mode = "auto"
	// Pcap: a capture for kwire pcap.
	Pcap Mode = "pcap"
)

// Entry is one input of the corpus.
type Entry struct {
	Name    string // the file name in testdata/hostile
	Mode    Mode
	APIKey  int16 // for Response
	Version int16 // for Response
	// SizeYes says the first four bytes are the size prefix whatever they
	// hold (CLI --size yes, API ?sizePrefix=true); otherwise the frame's
	// size is right and any reader detects it.
	SizeYes bool
	Attacks string // what it attacks, in a line
	Expect  Expect
	gen     func() []byte
}

// Expect is what the user must get from an entry, in every build. Every
// entry also must decode without a panic and within the memory bounds the
// tests assert.
type Expect struct {
	// ErrPath: decoding fails with an error at this field path (a final
	// "*" makes it a prefix), at byte ErrOffset (when >= 0). For captures:
	// the output names this path.
	ErrPath   string
	ErrOffset int
	// Limit: a warning says a limit cut decoding short: this one (its name
	// in codec.Limits, e.g. "MaxDecompressed"), or "any".
	Limit string
	// Warning: some warning's message holds one of these "|"-separated
	// texts.
	Warning string
	// Count: the input holds Count items, all of which appear in the value
	// JSON unless a limit warning says decoding was cut short. The items are
	// the JSON objects with key CountKey, or, when it is empty, record
	// batches, messages and records.
	Count    int
	CountKey string
	// Guessed: read as a guessed response, and the user is told.
	Guessed bool
	// Clean: decodes (or, for captures, is read) with no error and no warning.
	Clean bool
	// BrowserPayload: in the playground's payload.wasm (record payloads
	// decoded, under the browser's smaller limits) this limit (its name in
	// codec.Limits) cuts decoding short and a warning says so, instead of
	// Clean: the payload holds more values than the browser's MaxNodes.
	BrowserPayload string
	// Payload: wherever record payloads are decoded (kwire decode's
	// default, payload.wasm) this limit cuts decoding short and a warning
	// says so, instead of Clean.
	Payload string
	// Survive (captures, storage files): kwire pcap or kwire log exits 0
	// or 1 without a panic.
	Survive bool
	// Says (storage files, captures): kwire log's or kwire pcap's output
	// holds one of these "|"-separated texts.
	Says string
}

// LimitNames are the fields of codec.Limits; a warning that names one says
// which limit cut decoding short.
var LimitNames = []string{"MaxNodes", "MaxDecompressed", "MaxDepth", "MaxRecordNesting", "MaxWork"}

// File is the entry's file name.
func (e Entry) File() string { return e.Name }

// Generate makes the entry's bytes.
func (e Entry) Generate() []byte { return e.gen() }

// Entries is the corpus, in MANIFEST order.
func Entries() []Entry { return corpus() }

// Frames is the corpus without the captures and storage files.
func Frames() []Entry { return entriesIf(func(m Mode) bool { return m != Pcap && m != Storage }) }

// Captures is the corpus's captures.
func Captures() []Entry { return entriesIf(func(m Mode) bool { return m == Pcap }) }

// entriesIf is the corpus's entries whose mode keep keeps.
func entriesIf(keep func(Mode) bool) []Entry {
	var out []Entry
	for _, e := range corpus() {
		if keep(e.Mode) {
			out = append(out, e)
		}
	}
	return out
}

// ReadAs says how the entry is read, as the MANIFEST writes it.
func (e Entry) ReadAs() string {
	s := string(e.Mode)
	if e.Mode == Response {
		s += " api=" + strconv.Itoa(int(e.APIKey)) + " v" + strconv.Itoa(int(e.Version))
	}
	if e.SizeYes {
		s += " size=yes"
	}
	return s
}

// CLIArgs are the kwire decode flags (before the file) that read the
// entry as its Mode says; captures take none.
func (e Entry) CLIArgs() []string {
	if e.Mode == Pcap {
		return nil
	}
	args := []string{"--input", "binary"}
	switch e.Mode {
	case Request:
		args = append(args, "--request")
	case Response:
		args = append(args, "--response", "--api", strconv.Itoa(int(e.APIKey)), "--version", strconv.Itoa(int(e.Version)))
	}
	if e.SizeYes {
		args = append(args, "--size", "yes")
	}
	return args
}

// Query is the /api/decode query string that reads the entry as its Mode
// says (the body is posted as application/octet-stream).
func (e Entry) Query() string {
	q := "input=binary"
	switch e.Mode {
	case Request:
		q += "&direction=request"
	case Response:
		q += "&direction=response&api=" + strconv.Itoa(int(e.APIKey)) + "&version=" + strconv.Itoa(int(e.Version))
	}
	if e.SizeYes {
		q += "&sizePrefix=true"
	}
	return q
}

// String says what the user must get, as the MANIFEST writes it.
func (x Expect) String() string {
	var parts []string
	if x.ErrPath != "" {
		s := "error"
		if x.ErrOffset >= 0 {
			s += " at byte " + strconv.Itoa(x.ErrOffset)
		}
		parts = append(parts, s+" ("+x.ErrPath+")")
	}
	if x.Limit != "" {
		if x.Limit == "any" {
			parts = append(parts, "warning: a limit cut decoding short")
		} else {
			parts = append(parts, "warning: "+x.Limit+" cut decoding short")
		}
	}
	if x.Warning != "" {
		parts = append(parts, "warning: "+strings.ReplaceAll(strconv.Quote(x.Warning), "|", `" or "`))
	}
	if x.Count > 0 {
		what := "batches, messages and records"
		if x.CountKey != "" {
			what = strconv.Quote(x.CountKey) + " objects"
		}
		parts = append(parts, "all "+strconv.Itoa(x.Count)+" "+what+", or a limit warning")
	}
	if x.Guessed {
		parts = append(parts, "told it was read as a guessed response")
	}
	if x.Clean {
		parts = append(parts, "no error, no warning")
	}
	if x.Payload != "" {
		parts = append(parts, "with payloads decoded (kwire decode, payload.wasm): a "+x.Payload+" limit warning")
	}
	if x.BrowserPayload != "" {
		parts = append(parts, "in the playground with payloads decoded (payload.wasm, smaller limits): a "+x.BrowserPayload+" limit warning")
	}
	if x.Says != "" {
		parts = append(parts, "says "+strings.ReplaceAll(strconv.Quote(x.Says), "|", `" or "`))
	}
	if x.Survive {
		parts = append(parts, "exit 0 or 1, no panic")
	}
	return strings.Join(parts, "; ")
}

// Manifest is the MANIFEST file: a header, then one line per entry:
// file, size, how it is read, what it attacks, what the user must get,
// separated by tabs.
func Manifest(sizes map[string]int) []byte {
	var b strings.Builder
	b.WriteString("# The hostile corpus: written by go run ./internal/hostile/gen; do not edit.\n")
	b.WriteString("# Every entry must also decode without a panic within the memory bounds of the tests.\n")
	b.WriteString("# file\tbytes\tread as\tattacks\tthe user must get\n")
	for _, e := range corpus() {
		b.WriteString(e.Name + "\t" + strconv.Itoa(sizes[e.Name]) + "\t" + e.ReadAs() + "\t" + e.Attacks + "\t" + e.Expect.String() + "\n")
	}
	return []byte(b.String())
}

// MiB formats a byte count.
func MiB(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB" }

// Dir is testdata/hostile in the source tree this package was built from.
func Dir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		d := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "hostile")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	// Without source paths (-trimpath): from the working directory up to go.mod.
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "testdata", "hostile")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, "testdata", "hostile")
		}
	}
}

// Load reads an entry's committed bytes.
func Load(e Entry) ([]byte, error) {
	return os.ReadFile(filepath.Join(Dir(), e.File()))
}

// ByName finds an entry.
func ByName(name string) (Entry, error) {
	for _, e := range corpus() {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, errors.New("hostile: no entry " + strconv.Quote(name))
}

// Generated is every entry's generated bytes and the MANIFEST, by file name.
func Generated() map[string][]byte {
	out := map[string][]byte{}
	sizes := map[string]int{}
	for _, e := range corpus() {
		b := e.Generate()
		out[e.File()] = b
		sizes[e.Name] = len(b)
	}
	out["MANIFEST"] = Manifest(sizes)
	for name, text := range PayloadSchemas() {
		out[name] = []byte(text)
	}
	return out
}

// Write writes the corpus and its MANIFEST into dir, removing no file.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, b := range Generated() {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
