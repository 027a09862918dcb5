package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/internal/encinput"
	"github.com/kwire/kwire/internal/input"
)

func runEncode(e *env, args []string) int {
	fs := newFlags(e, "encode", "[flags] [JSON | FILE | - ...]\n\n"+strings.ReplaceAll(argsRule, "DATA", "JSON")+`
The argument - is standard input, as no argument is. A line of hex first
in an input, with JSON after it (kwire example's output: a frame's hex,
then its JSON), is passed over with a note; hex anywhere else is an error.
Annotated JSON (kwire decode --format annotated) is read as the value JSON
of its frame when it holds the frame whole (bytes and records values of up
to 4096 bytes, no bytes left unread): edited values are encoded as edited,
but bytes and records come from their own value, not their children.`,
		`kwire encode '{"apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}'`,
		"kwire decode --format ndjson frame.bin | kwire encode",
		"kwire decode frame.bin frame.bin | kwire encode",
		"kwire example Metadata --version 12 | kwire encode",
		"kwire example Metadata --version 12 | kwire encode --as binary | kwire decode -")
	noSize := fs.Bool("no-size", false, "leave out the 4-byte size prefix")
	as := fs.String("as", "hex", "how frames are written: hex or base64 (a line each), or binary (the bytes alone, frame after frame: to a file or a pipe, never a terminal)")
	args, code := parseInputs(e, fs, args)
	if code >= 0 {
		return code
	}
	out := frameWriter{w: e.stdout, as: strings.ToLower(*as)}
	switch out.as {
	case "hex", "base64":
	case "binary", "bytes":
		out.as = "binary"
		if e.stdoutIsTTY {
			fail(e, "--as binary writes raw bytes, which a terminal would mangle: redirect it (> frame.bin), pipe it, or use --as hex")
			return 2
		}
	default:
		fail(e, "--as must be hex, base64 or binary, not %q", *as)
		return 2
	}
	terminalInput(e, "encode", args, "paste value JSON, as kwire decode prints it")
	all, err := encodeInputs(e, args)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	// A file that cannot be opened is said by name, and the others
	// encoded all the same (exit 1, and a last line counting them).
	ins, unread := inputFailed(e, all)
	if len(ins) == 0 {
		return 1
	}
	status := 0
	if unread > 0 {
		status = 1
		defer fail(e, "%d of %s not read (said above)", unread, plural(len(all), "input"))
	}
	next := docStream(ins, func(name string, line int) {
		fail(e, "%sline %d: a frame's hex, passed over (kwire example prints it above its JSON); the JSON after it is encoded", named(name), line)
	})
	first, ok := next()
	if !ok {
		// An empty input is a failed input, as kwire decode takes one
		// (exit 1), not misuse; a file says which.
		name := ""
		if len(ins) == 1 {
			name = ins[0].name
		}
		fail(e, "%sno JSON given", named(name))
		return 1
	}
	opts := codec.EncodeOptions{NoSizePrefix: *noSize}
	second, more := next()
	// One JSON value (indented or not): its frame, or its error alone on
	// standard error, whether it does not parse or does not encode.
	if !more {
		if first.err != nil {
			fail(e, "%sline %d: %v", named(first.name), first.line, first.err)
			return 1
		}
		b, zeros, err := encodeDoc(first.v, opts)
		if err != nil {
			fail(e, "%v", namedError(anInput{name: first.name}, err))
			return 1
		}
		out.frameZeros(b, zeros)
		if ps := encinput.NotGiven(first.v); len(ps) > 0 {
			fail(e, "%s%s", named(first.name), encinput.NotGivenNote(ps))
		}
		return status
	}
	// A stream of them, each encoded as it is read: one line out per
	// value in, a bad one giving an error object in its place, which names
	// its line (and file, among several inputs) as standard error does.
	docs, failed, oneLineEach, noted := 0, 0, true, 0
	encode := func(d jsonDoc) {
		docs++
		oneLineEach = oneLineEach && !d.multiLine
		var b []byte
		var zeros int64
		err := d.err
		if err == nil {
			b, zeros, err = encodeDoc(d.v, opts)
		}
		if err == nil {
			out.frameZeros(b, zeros)
			if ps := encinput.NotGiven(d.v); len(ps) > 0 {
				if noted++; noted <= maxNotedDocs {
					fail(e, "%sline %d: %s", named(d.name), d.line, encinput.NotGivenNote(ps))
				}
			}
			return
		}
		failed++
		var ee *codec.EncodeError
		path, msg := "", err.Error()
		if errors.As(err, &ee) {
			path, msg = ee.Path, ee.Msg
		}
		where, file := "", ""
		if d.name != "" && len(all) > 1 {
			where, file = named(d.name), `"file":`+strconv.Quote(d.name)+","
		}
		if out.as != "binary" { // raw frames have no room for a line of JSON
			io.WriteString(e.stdout, `{`+file+`"line":`+strconv.Itoa(d.line)+`,"error":{"path":`+strconv.Quote(path)+`,"message":`+strconv.Quote(msg)+"}}\n")
		}
		fail(e, "%sline %d: %v", where, d.line, err)
	}
	encode(first)
	for d, ok := second, more; ok && e.outFailed() == nil; d, ok = next() {
		encode(d)
	}
	if e.outFailed() != nil {
		return 1 // run says why
	}
	if noted > maxNotedDocs {
		fail(e, "%d more documents left fields out, written as their defaults", noted-maxNotedDocs)
	}
	if failed > 0 {
		unit := "line"
		if !oneLineEach {
			unit = "document"
		}
		fail(e, "%d of %s failed", failed, plural(docs, unit))
		return 1
	}
	return status
}

// encodeDoc encodes a document: value JSON (a frame's, or a storage
// line's, whose bytes are b followed by zeros zero bytes, counted rather
// than held), or annotated JSON read back as the value JSON of its frame. An
// annotated document that does not hold its frame whole is refused with
// what to pass instead: it would otherwise fail as "buffers: unknown
// field", which says nothing of why.
func encodeDoc(v any, opts codec.EncodeOptions) (b []byte, zeros int64, err error) {
	if encinput.Annotated(v) {
		val, err := encinput.FromAnnotated(v)
		if err != nil {
			return nil, 0, errors.New("annotated JSON (kwire decode --format annotated) that cannot be encoded: " + err.Error() +
				"; pass value JSON instead, as kwire decode prints it by default or with --format ndjson")
		}
		v = val
	}
	b, zeros, err = encodeAny(v, opts)
	// An apiName no API has is said with the name meant, as --api says it.
	var ee *codec.EncodeError
	if errors.As(err, &ee) && ee.Path == "apiName" {
		if q, ok := strings.CutPrefix(ee.Msg, "unknown API "); ok {
			if name, uerr := strconv.Unquote(q); uerr == nil {
				ee.Msg = unknownAPI(name)
			}
		}
	}
	return b, zeros, err
}

// countOf is how many of args are a.
func countOf(args []string, a string) int {
	n := 0
	for _, x := range args {
		if x == a {
			n++
		}
	}
	return n
}

// named is the words that name an input's file before a message about
// it: "FILE: ", or "" for standard input or inline JSON.
func named(name string) string {
	if name == "" {
		return ""
	}
	return name + ": "
}

// encodeInputs is readInputs (each FILE, inline JSON, "-" or no
// arguments for standard input) with each input's UTF-8 byte order mark,
// which editors on Windows write and JSON does not hold, dropped.
func encodeInputs(e *env, args []string) ([]anInput, error) {
	ins, err := inputsOf(e, args, isJSONArg, true)
	if err != nil {
		return nil, err
	}
	for i := range ins {
		ins[i].data = ins[i].data[input.BOMLen(ins[i].data):]
	}
	return ins, nil
}

// isJSONArg says whether an argument of kwire encode is JSON rather than a
// file's path: it starts as a document does, or it parses.
func isJSONArg(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		return true
	}
	_, err := jsontext.Parse(b)
	return err == nil
}

// jsonDoc is one JSON document of an input: its value, or why it does not
// parse; line is its first line in the input (blank lines counted), the
// one a user looks for.
type jsonDoc struct {
	name      string // the input's file, or ""
	line      int
	multiLine bool
	v         any
	err       error
}

// docStream reads the JSON documents of the inputs in turn, one a call
// (ok false after the last), so a long stream is never held parsed
// whole, nor, from a file or standard input, read whole: what is read is
// what the next document needs, and a document is returned as soon as
// its last line has come (a pipe's documents are encoded as they
// arrive). In each input NDJSON, or documents (indented or not) separated
// by white space. A document that does not parse is an error on the
// line its problem is on; reading goes on at the next line that starts, no more
// indented than it did, with '{' or '[': the next NDJSON line, or the
// next document kwire decode indented. A line of hex (a frame's bytes)
// is such an error, said as hex, except as an input's first line with
// JSON after it, kwire example's output, where it is passed over and
// told to passed (the input's name and the line).
func docStream(ins []anInput, passed func(name string, line int)) func() (jsonDoc, bool) {
	k, pos, line, first := 0, 0, 1, true
	var fill *filler // the input's reader, when it is read as needed
	return func() (jsonDoc, bool) {
		for ; k < len(ins); k, pos, line, first, fill = k+1, 0, 1, true, nil {
			in := &ins[k]
			if in.r != nil && fill == nil {
				fill = &filler{r: in.r}
				fill.more(0)
				fill.b = fill.b[input.BOMLen(fill.b):]
			}
			for {
				b, eof := in.data, true
				if fill != nil {
					b, eof = fill.b, fill.eof
				}
				d, next, status := scanDoc(b, pos, line, first, eof)
				pos, line = next.pos, next.line
				switch status {
				case docPassed:
					passed(in.name, d.line)
					continue
				case docFound:
					first = false
					d.name = in.name
					return d, true
				case docNeedMore:
					keep := bytes.LastIndexByte(b[:pos], '\n') + 1
					pos -= fill.more(keep)
					if fill.err != nil {
						d := jsonDoc{name: in.name, line: line, err: fill.err}
						k, pos, line, first, fill = k+1, 0, 1, true, nil
						return d, true
					}
					continue
				}
				break // the input's end
			}
		}
		return jsonDoc{}, false
	}
}

// What scanDoc found.
const (
	docFound    = iota // a document, or one that failed to parse
	docPassed          // a frame's hex line before JSON, passed over
	docNeedMore        // nothing can be said until more of the input is read
	docEnd             // the input's end
)

// scanPlace is where scanning stands: a byte of the input and its line.
type scanPlace struct{ pos, line int }

// scanDoc reads the next document of b from pos, on line, b being all of
// the input when eof, else what has been read of it so far: only its
// whole lines are judged, so a document's end, a parse error and where
// reading goes on after one are said only once they are there. first
// says no document was read from the input yet.
func scanDoc(b []byte, pos, line int, first, eof bool) (jsonDoc, scanPlace, int) {
	limit := len(b) // the bytes judged: whole lines, or all at the end
	if !eof {
		limit = bytes.LastIndexByte(b, '\n') + 1
	}
	for pos < limit && isJSONSpace(b[pos]) {
		if b[pos] == '\n' {
			line++
		}
		pos++
	}
	here := scanPlace{pos, line}
	switch {
	case pos == len(b) && eof:
		return jsonDoc{}, here, docEnd
	case pos >= limit:
		return jsonDoc{}, here, docNeedMore
	}
	start := pos
	ls := bytes.LastIndexByte(b[:start], '\n') + 1
	// A document first on its line is read from the line's start, so an
	// error's byte offset counts within the line, as it always did.
	from := start
	if len(bytes.TrimLeft(b[ls:start], " \t\r")) == 0 {
		from = ls
	}
	hexEnd := -1
	if from == ls {
		hexEnd = encinput.HexLine(b[:limit], start)
	}
	if hexEnd >= 0 && first {
		rest := bytes.TrimLeft(b[hexEnd:limit], " \t\r\n")
		if len(rest) == 0 && !eof {
			return jsonDoc{}, here, docNeedMore
		}
		if startsJSON(rest) {
			return jsonDoc{line: line}, scanPlace{hexEnd, line}, docPassed
		}
	}
	var v any
	var err error
	at := line // the line an error is on
	if hexEnd >= 0 {
		err = errHexLine
		pos = resumeAt(b[:limit], start, start-ls)
	} else {
		var n int
		v, n, err = jsontext.ParseNext(b[from:limit])
		var se *jsontext.SyntaxError
		if err != nil && !eof && errors.As(err, &se) && se.Offset >= limit-from {
			return jsonDoc{}, here, docNeedMore // the document goes on past what is read
		}
		if err == nil {
			pos = from + n
		} else {
			pos = resumeAt(b[:limit], start, start-ls)
			at, err = syntaxLine(b[from:limit], line, err)
		}
	}
	if err != nil && pos == limit && !eof {
		return jsonDoc{}, here, docNeedMore // where reading goes on is not read yet
	}
	nl := bytes.Count(b[start:pos], []byte{'\n'})
	return jsonDoc{line: at, multiLine: err == nil && nl > 0, v: v, err: err}, scanPlace{pos, line + nl}, docFound
}

// filler reads an input as its documents need it, into b.
type filler struct {
	r   io.Reader
	b   []byte
	eof bool  // r is read to its end (or failed)
	err error // why r failed, other than its end
}

// more drops the bytes of b before keep and reads on, returning how many
// it dropped. It reads at least once, and goes on while reads fill what
// they are given, until it has read as much as it kept: so a document
// read in many tries is read again at most as often as its size doubles,
// and a pipe's short read (all there is for now) is judged at once.
func (f *filler) more(keep int) int {
	n := copy(f.b, f.b[keep:])
	f.b = f.b[:n]
	for got := 0; ; {
		if cap(f.b)-len(f.b) < 16<<10 {
			f.b = append(make([]byte, 0, max(2*cap(f.b), 64<<10)), f.b...)
		}
		room := cap(f.b) - len(f.b)
		m, err := f.r.Read(f.b[len(f.b):cap(f.b)])
		f.b = f.b[:len(f.b)+m]
		got += m
		if err != nil {
			f.eof = true
			if err != io.EOF {
				f.err = err
			}
			return keep
		}
		if got > 0 && (got >= n || m < room) {
			return keep
		}
	}
}

// syntaxLine places a syntax error in a document that starts at the
// start of doc, on line: on the line the error is on, its byte offset
// counted within that line, as for a document of one line (an indented
// document's error was said at its first line, by its byte in the whole).
func syntaxLine(doc []byte, line int, err error) (int, error) {
	var se *jsontext.SyntaxError
	if !errors.As(err, &se) || se.Offset > len(doc) {
		return line, err
	}
	before := doc[:se.Offset]
	k := bytes.Count(before, []byte{'\n'})
	if k == 0 {
		return line, err
	}
	at := *se
	at.Offset -= bytes.LastIndexByte(before, '\n') + 1
	return line + k, &at
}

// errHexLine is a document that is a line of hex.
var errHexLine = errors.New("hex, not JSON: kwire encode reads the JSON of a frame; kwire decode reads its hex")

// startsJSON says whether b, after white space, starts a document: '{'
// or '['.
func startsJSON(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[')
}

// resumeAt is where reading goes on after a document at start, indented
// by indent, fails to parse: the start of the next line that holds, after
// at most indent blanks, '{' or '['; else the end.
func resumeAt(b []byte, start, indent int) int {
	for i := start; ; {
		nl := bytes.IndexByte(b[i:], '\n')
		if nl < 0 {
			return len(b)
		}
		i += nl + 1
		j := i
		for j < len(b) && j-i <= indent && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		if j-i <= indent && j < len(b) && (b[j] == '{' || b[j] == '[') {
			return i
		}
	}
}

// isJSONSpace is the white space JSON allows between values.
func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// frameWriter writes frames as kwire encode's --as says: hex or base64, a
// line each, or their bytes alone.
type frameWriter struct {
	w  io.Writer
	as string // hex, base64 or binary
}

// frame writes b, stopping at a write error.
func (f frameWriter) frame(b []byte) error {
	switch f.as {
	case "binary":
		_, err := f.w.Write(b)
		return err
	case "base64":
		return writeBase64Line(f.w, b)
	}
	return writeHexLine(f.w, b)
}

// frameZeros writes b followed by n zero bytes as one frame (a log line
// whose zeros storage.EncodeLineZeros counted: up to 256 MiB of them
// asked for by a line of a few hundred bytes), the zeros in pieces,
// never held.
func (f frameWriter) frameZeros(b []byte, n int64) error {
	if n == 0 {
		return f.frame(b)
	}
	// Pieces of b64Piece bytes, a multiple of 3, join in base64 with no
	// padding between them: b's bytes, then zeros, fill each.
	piece := make([]byte, 0, min(int64(len(b))+n, b64Piece))
	var enc []byte
	for {
		k := copy(piece[len(piece):cap(piece)], b)
		piece, b = piece[:len(piece)+k], b[k:]
		z := min(n, int64(cap(piece)-len(piece)))
		piece = append(piece, zeroBlock[:z]...)
		n -= z
		if len(b) == 0 && n == 0 {
			return f.frame(piece)
		}
		var err error
		if enc, err = f.piece(enc, piece); err != nil {
			return err
		}
		piece = piece[:0]
	}
}

// zeroBlock is a piece's worth of zeros.
var zeroBlock [b64Piece]byte

// piece writes b, a part of a frame b64Piece bytes long, with no line
// end, encoding it into enc (returned, for the next piece).
func (f frameWriter) piece(enc, b []byte) ([]byte, error) {
	switch f.as {
	case "base64":
		b = base64.StdEncoding.AppendEncode(enc[:0], b)
	case "hex":
		b = hex.AppendEncode(enc[:0], b)
	default:
		_, err := f.w.Write(b)
		return enc, err
	}
	_, err := f.w.Write(b)
	return b, err
}

// b64Piece is how many bytes writeBase64Line turns into base64 at a time:
// a multiple of 3, so the pieces join with no padding between them.
const b64Piece = 3 << 13

// writeBase64Line writes b as a line of base64, in pieces, stopping at a
// write error.
func writeBase64Line(w io.Writer, b []byte) error {
	buf := make([]byte, 0, base64.StdEncoding.EncodedLen(min(len(b), b64Piece))+1)
	for len(b) > b64Piece {
		if _, err := w.Write(base64.StdEncoding.AppendEncode(buf[:0], b[:b64Piece])); err != nil {
			return err
		}
		b = b[b64Piece:]
	}
	_, err := w.Write(append(base64.StdEncoding.AppendEncode(buf[:0], b), '\n'))
	return err
}

// hexPiece is how many bytes writeHexLine turns into hex at a time: a
// frame is written in pieces, never held a second and third time as hex
// and as a string.
const hexPiece = 32 << 10

// writeHexLine writes b as a line of hex, stopping at a write error.
func writeHexLine(w io.Writer, b []byte) error {
	buf := make([]byte, 0, 2*min(len(b), hexPiece)+1)
	for len(b) > hexPiece {
		if _, err := w.Write(hex.AppendEncode(buf[:0], b[:hexPiece])); err != nil {
			return err
		}
		b = b[hexPiece:]
	}
	_, err := w.Write(append(hex.AppendEncode(buf[:0], b), '\n'))
	return err
}

// maxNotedDocs is how many documents of a stream have the fields they
// left out named on standard error; the rest are counted.
const maxNotedDocs = 20
