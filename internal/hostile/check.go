package hostile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// Warning is a warning as a build shows it: the JSON envelope's
// "warnings" ({"offset","buf","path","message","limit"}), a CLI stderr
// line, or the playground's summary.
type Warning struct {
	Offset  int    `json:"offset"`
	Buf     int    `json:"buf"`
	Path    string `json:"path"`
	Message string `json:"message"`
	Limit   bool   `json:"limit"`
}

// IsLimit says whether the warning says a limit cut decoding short: its
// Limit flag, or its message naming a limit.
func (w Warning) IsLimit() bool { return w.Limit || w.NamesLimit() != "" }

// NamesLimit is the first of LimitNames the message holds, or "".
func (w Warning) NamesLimit() string {
	for _, n := range LimitNames {
		if strings.Contains(w.Message, n) {
			return n
		}
	}
	return ""
}

// Outcome is what one build made of an entry.
type Outcome struct {
	Err      bool // decoding failed
	ErrPath  string
	ErrOff   int
	ErrText  string
	Warnings []Warning
	// WarningCount counts every warning seen, also those not kept in
	// Warnings (a scanner keeps the first few thousand).
	WarningCount int
	Counted      int  // items counted as Expect.Count says
	Guessed      bool // the build said the frame was read as a guessed response
	GuessLimit   bool // and that a limit cut the search short
	// BrowserPayload: read by the playground's payload.wasm (payloads
	// decoded, the browser's limits), where Expect.BrowserPayload holds.
	BrowserPayload bool
	// Payloads: read with record payloads decoded (kwire decode's
	// default, payload.wasm), where Expect.Payload holds.
	Payloads bool
	// Captures: the exit status and all the text the command wrote.
	Exit int
	Text string

	wanted map[string]bool // the wanted texts a kept warning holds
}

// KeepWarnings is how many warnings an outcome keeps in full: the
// first KeepWarnings, as many limit warnings, and the first that mentions
// each text Expect.Warning asks for; the rest are only counted, so that a
// flood of hundreds of thousands costs the test little.
const KeepWarnings = 1000

// AddWarning counts w and keeps it as KeepWarnings says; want is the
// entry's Expect.Warning.
func (o *Outcome) AddWarning(w Warning, want string) {
	o.WarningCount++
	keep := len(o.Warnings) < KeepWarnings
	if !keep && w.IsLimit() {
		n := 0
		for _, k := range o.Warnings {
			if k.IsLimit() {
				n++
			}
		}
		keep = n < KeepWarnings
	}
	if !keep && want != "" {
		for _, t := range strings.Split(want, "|") {
			keep = keep || t != "" && !o.wanted[t] && strings.Contains(w.Message, t)
		}
	}
	if !keep {
		return
	}
	o.Warnings = append(o.Warnings, w)
	for _, t := range strings.Split(want, "|") {
		if t != "" && strings.Contains(w.Message, t) {
			if o.wanted == nil {
				o.wanted = map[string]bool{}
			}
			o.wanted[t] = true
		}
	}
}

// mayKeep says whether AddWarning could keep the warning whose JSON is b,
// without parsing it: it only could while fewer than KeepWarnings are
// kept, or when it is a limit warning or mentions a wanted text.
func (o *Outcome) mayKeep(b []byte, want string) bool {
	if len(o.Warnings) < KeepWarnings || bytes.Contains(b, []byte(`"limit":true`)) {
		return true
	}
	for _, t := range strings.Split(want, "|") {
		if t != "" && !o.wanted[t] && bytes.Contains(b, []byte(t)) {
			return true
		}
	}
	// (A limit named in the message without the flag: see IsLimit.)
	for _, n := range LimitNames {
		if bytes.Contains(b, []byte(n)) {
			return true
		}
	}
	return false
}

// Check compares an outcome with what the entry must give; it returns
// the differences, none when the outcome is right.
func (e Entry) Check(o Outcome) []string {
	x := e.Expect
	if (o.Payloads || o.BrowserPayload) && x.Payload != "" {
		x.Clean, x.Limit = false, x.Payload
	}
	if o.BrowserPayload && x.BrowserPayload != "" {
		x.Clean, x.Limit = false, x.BrowserPayload
	}
	var bad []string
	if e.Mode == Pcap {
		return e.checkCapture(o)
	}
	if e.Mode == Storage {
		return e.checkStorage(o)
	}
	if x.ErrPath != "" {
		switch {
		case !o.Err:
			bad = append(bad, "no error; want an error at "+x.ErrPath)
		case !pathMatches(x.ErrPath, o.ErrPath):
			bad = append(bad, "the error's path is "+strconv.Quote(o.ErrPath)+", want "+strconv.Quote(x.ErrPath)+" ("+o.ErrText+")")
		case x.ErrOffset >= 0 && o.ErrOff != x.ErrOffset:
			bad = append(bad, "the error is at byte "+strconv.Itoa(o.ErrOff)+", want "+strconv.Itoa(x.ErrOffset)+" ("+o.ErrText+")")
		}
		if o.Guessed {
			bad = append(bad, "read as a guessed response; want the error")
		}
	} else if o.Err {
		bad = append(bad, "decoding failed: "+o.ErrText)
	}
	if x.Limit != "" {
		found := false
		for _, w := range o.Warnings {
			if w.IsLimit() && (x.Limit == "any" || strings.Contains(w.Message, x.Limit)) {
				found = true
				break
			}
		}
		if !found {
			bad = append(bad, "no warning says "+limitWhat(x.Limit)+" cut decoding short; warnings: "+summarize(o.Warnings))
		}
	}
	if x.Warning != "" {
		found := false
		for _, w := range o.Warnings {
			for _, s := range strings.Split(x.Warning, "|") {
				if strings.Contains(w.Message, s) {
					found = true
				}
			}
		}
		if !found {
			bad = append(bad, "no warning mentions "+strconv.Quote(x.Warning)+"; warnings: "+summarize(o.Warnings))
		}
	}
	if x.Count > 0 && o.Counted != x.Count && !o.GuessLimit {
		limited := false
		for _, w := range o.Warnings {
			limited = limited || w.IsLimit()
		}
		if !limited {
			bad = append(bad, "the value JSON holds "+strconv.Itoa(o.Counted)+" of "+strconv.Itoa(x.Count)+" items and no warning says a limit cut decoding short; warnings: "+summarize(o.Warnings))
		}
	}
	if x.Guessed && !o.Guessed {
		bad = append(bad, "not told the frame was read as a guessed response")
	}
	if x.Clean && o.WarningCount > 0 {
		bad = append(bad, "warnings on a clean entry: "+summarize(o.Warnings))
	}
	return bad
}

func (e Entry) checkCapture(o Outcome) []string {
	x := e.Expect
	var bad []string
	if strings.Contains(o.Text, "panic:") || strings.Contains(o.Text, "goroutine ") {
		bad = append(bad, "kwire pcap panicked: "+firstLines(o.Text, 3))
	}
	if o.Exit != 0 && o.Exit != 1 {
		bad = append(bad, "exit status "+strconv.Itoa(o.Exit)+", want 0 or 1: "+firstLines(o.Text, 3))
	}
	if x.ErrPath != "" && !strings.Contains(o.Text, x.ErrPath) {
		bad = append(bad, "the output does not name "+x.ErrPath+": "+firstLines(o.Text, 3))
	}
	if x.ErrPath != "" && x.ErrOffset >= 0 && !strings.Contains(o.Text, "at byte "+strconv.Itoa(x.ErrOffset)) {
		bad = append(bad, "the output does not say at byte "+strconv.Itoa(x.ErrOffset)+": "+firstLines(o.Text, 3))
	}
	if x.Clean && o.Exit != 0 {
		bad = append(bad, "exit status "+strconv.Itoa(o.Exit)+" on a clean capture: "+firstLines(o.Text, 3))
	}
	if s := x.Says; s != "" && !saysAny(o.Text, s) {
		bad = append(bad, "the output does not say "+s+": "+firstLines(o.Text, 3))
	}
	return bad
}

// saysAny reports whether text holds one of the "|"-separated says.
func saysAny(text, says string) bool {
	for _, t := range strings.Split(says, "|") {
		if strings.Contains(text, t) {
			return true
		}
	}
	return false
}

func limitWhat(l string) string {
	if l == "any" {
		return "a limit"
	}
	return l
}

func pathMatches(want, got string) bool {
	if strings.HasSuffix(want, "*") {
		return strings.HasPrefix(got, strings.TrimSuffix(want, "*"))
	}
	return want == got
}

func summarize(ws []Warning) string {
	if len(ws) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, w := range ws {
		if i == 4 {
			b.WriteString("; ... (" + strconv.Itoa(len(ws)) + " in all)")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(strconv.Quote(w.Message))
	}
	return b.String()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " | ")
}

// The CLI's lines on standard error (BRIEF contracts):
//
//	kwire: warning: at byte N (path): message
//	kwire: warning: at byte N of derived buffer B (path): message
//	kwire: read as a response: guessed ..., confidence 0.93 ...
//	kwire: at byte N (path): expected ..., found ...
var (
	warnLine  = regexp.MustCompile(`^kwire: (?:frame \d+: )?warning: at byte (\d+)(?: of derived buffer (\d+))?(?: \(([^)]*)\))?: (.*)$`)
	errLine   = regexp.MustCompile(`^kwire: (?:frame \d+: )?at byte (\d+)(?: of derived buffer \d+)?(?: \(([^)]*)\))?: (.*)$`)
	guessLine = regexp.MustCompile(`^kwire: (?:frame \d+: )?read as a response: `)
)

// ParseStderr reads the CLI's standard error into o: warnings (kept as
// Outcome.AddWarning says; want is the entry's Expect.Warning), the error,
// the guess notice.
func ParseStderr(stderr []byte, o *Outcome, want string) {
	for _, line := range strings.Split(string(stderr), "\n") {
		if m := warnLine.FindStringSubmatch(line); m != nil {
			off, _ := strconv.Atoi(m[1])
			buf, _ := strconv.Atoi(m[2])
			o.AddWarning(Warning{Offset: off, Buf: buf, Path: m[3], Message: m[4]}, want)
			continue
		}
		if guessLine.MatchString(line) {
			o.Guessed = true
			if strings.Contains(line, "limit") {
				o.GuessLimit = true
			}
			continue
		}
		if m := errLine.FindStringSubmatch(line); m != nil && !o.Err {
			o.Err = true
			o.ErrOff, _ = strconv.Atoi(m[1])
			o.ErrPath, o.ErrText = m[2], line
		}
	}
}

// JSONScan reads value JSON as it streams by (an io.Writer), holding only
// a small state: it counts the items an Expect counts and reads the
// envelope's "warnings" (one element at a time, kept as Outcome.AddWarning
// says) and "guess" (the members of the outermost object). It never holds
// the document.
type JSONScan struct {
	CountKey string // as Expect.CountKey
	Want     string // as Expect.Warning: which warnings to keep past the first few
	Counted  int
	Found    Outcome // the warnings read
	Guess    []byte  // the raw "guess" member, when present
	// Bad says an element of "warnings" was not a warning object.
	Bad string

	depth      int
	inStr      bool
	esc        bool
	key        []byte // the current string, up to 64 bytes
	keyLong    bool
	afterStr   bool // a string just ended: a ':' makes it a key
	magicNext  bool // the next value is a "magic" member's
	inWarnings bool // inside the envelope's "warnings" array
	capture    *bytes.Buffer
	buf        bytes.Buffer // what capture points to, reused
	capName    string
	capDepth   int
	capStart   bool // capturing starts with the next non-space byte
}

// maxCapture bounds the bytes kept of a captured member (a guess, or one
// warning).
const maxCapture = 4 << 20

func (s *JSONScan) Write(p []byte) (int, error) {
	for _, c := range p {
		s.byte(c)
	}
	return len(p), nil
}

func (s *JSONScan) byte(c byte) {
	if s.capture != nil {
		if s.capStart {
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
				return
			}
			s.capStart = false
		}
		if s.capture.Len() < maxCapture {
			s.capture.WriteByte(c)
		}
	}
	if s.inStr {
		switch {
		case s.esc:
			s.esc = false
		case c == '\\':
			s.esc = true
		case c == '"':
			s.inStr = false
			s.afterStr = true
			return
		}
		if len(s.key) < 64 {
			s.key = append(s.key, c)
		} else {
			s.keyLong = true
		}
		return
	}
	switch c {
	case ' ', '\n', '\t', '\r':
		return
	}
	if s.afterStr {
		s.afterStr = false
		if c == ':' && !s.keyLong {
			s.onKey(string(s.key))
			return
		}
	}
	if s.magicNext {
		s.magicNext = false
		if c == '0' || c == '1' || c == '2' {
			s.Counted++
		}
	}
	switch c {
	case '"':
		s.inStr, s.key, s.keyLong = true, s.key[:0], false
	case '{', '[':
		s.depth++
		if s.inWarnings && c == '{' && s.depth == 3 && s.capture == nil {
			// An element of "warnings": read it alone.
			s.buf.Reset()
			s.capture, s.capName, s.capDepth, s.capStart = &s.buf, "warning", 2, false
			s.capture.WriteByte('{')
		}
	case '}', ']':
		s.depth--
		if s.inWarnings && s.depth < 2 {
			s.inWarnings = false
		}
		switch {
		case s.capture == nil:
		case s.depth == s.capDepth:
			s.endCapture()
		case s.depth < s.capDepth:
			// A scalar member was the envelope's last.
			s.capture.Truncate(s.capture.Len() - 1)
			s.endCapture()
		}
	case ',':
		if s.capture != nil && s.depth == s.capDepth && s.capName == "guess" {
			// A scalar member ended (a guess given as a number or a bool).
			s.capture.Truncate(s.capture.Len() - 1)
			s.endCapture()
		}
	}
}

func (s *JSONScan) onKey(k string) {
	switch {
	case s.CountKey == "" && k == "magic":
		s.magicNext = true
	case s.CountKey == "" && k == "offsetDelta":
		s.Counted++
	case s.CountKey != "" && k == s.CountKey:
		s.Counted++
	}
	if s.depth == 1 && s.capture == nil {
		switch k {
		case "warnings":
			s.inWarnings = true
		case "guess":
			s.capture, s.capName, s.capDepth, s.capStart = new(bytes.Buffer), k, 1, true
		}
	}
}

func (s *JSONScan) endCapture() {
	b := s.capture.Bytes()
	switch s.capName {
	case "warning":
		if !s.Found.mayKeep(b, s.Want) {
			s.Found.WarningCount++
			break
		}
		var w Warning
		if err := json.Unmarshal(b, &w); err != nil && s.Bad == "" {
			s.Bad = "a \"warnings\" element that is not a warning: " + string(b[:min(len(b), 200)])
		}
		s.Found.AddWarning(w, s.Want)
	case "guess":
		s.Guess = append([]byte(nil), b...)
	}
	s.capture = nil
}

// Fill puts what the scan found into o.
func (s *JSONScan) Fill(o *Outcome) {
	o.Counted = s.Counted
	for _, w := range s.Found.Warnings {
		o.Warnings = append(o.Warnings, w)
	}
	o.WarningCount += s.Found.WarningCount
	if s.Guess != nil && !bytes.Equal(s.Guess, []byte("null")) {
		o.Guessed = true
		o.GuessLimit = o.GuessLimit || guessSaysLimit(s.Guess)
	}
}

// guessSaysLimit reports whether the "guess" object says a limit cut the
// search short: a member "cut", or one whose name mentions a limit,
// holding true.
func guessSaysLimit(b []byte) bool {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return false
	}
	for k, v := range m {
		if t, ok := v.(bool); ok && t && (k == "cut" || strings.Contains(strings.ToLower(k), "limit")) {
			return true
		}
	}
	return false
}

// APIOutcome reads an /api/decode answer: a failure's JSON error (its
// path and offset), or the value JSON's warnings, guess and items; the
// Kwire-Guess header counts as saying the frame was guessed.
func (e Entry) APIOutcome(status int, guessHeader string, body io.Reader) (Outcome, error) {
	var o Outcome
	if status != http.StatusOK {
		b, err := io.ReadAll(io.LimitReader(body, 64<<20))
		if err != nil {
			return o, err
		}
		var ae struct {
			Error  string `json:"error"`
			Offset *int   `json:"offset"`
			Path   string `json:"path"`
		}
		if err := json.Unmarshal(b, &ae); err != nil {
			return o, errors.New("status " + strconv.Itoa(status) + " with a body that is not the API's error JSON: " + firstLines(string(b[:min(len(b), 300)]), 2))
		}
		o.Err, o.ErrPath, o.ErrText, o.ErrOff = true, ae.Path, ae.Error, -1
		if ae.Offset != nil {
			o.ErrOff = *ae.Offset
		}
		return o, nil
	}
	scan := JSONScan{CountKey: e.Expect.CountKey, Want: e.Expect.Warning}
	if _, err := io.Copy(&scan, body); err != nil {
		return o, err
	}
	scan.Fill(&o)
	if guessHeader != "" {
		o.Guessed = true
	}
	return o, nil
}

// WantStatus is the status /api/decode must answer the entry with (when
// it is not busy): 400 for an error, else 200.
func (e Entry) WantStatus() int {
	if e.Expect.ErrPath != "" {
		return http.StatusBadRequest
	}
	return http.StatusOK
}
