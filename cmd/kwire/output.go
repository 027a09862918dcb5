package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/highlight"
	"github.com/kwire/kwire/internal/render"
)

// colorOn decides whether to colour: --color always|never|auto, where auto
// means a terminal and no NO_COLOR in the environment with a value
// (no-color.org: an empty NO_COLOR does not turn colour off).
func colorOn(mode string, tty bool) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return tty && os.Getenv("NO_COLOR") == "", nil
	}
	return false, errorf("--color must be auto, always or never, not %q", mode)
}

// highlightJSON colours JSON for a terminal with chroma (its JSON lexer
// and monokai style through internal/highlight, which loads them on first
// use: a command that does not colour pays nothing for them).
func highlightJSON(js []byte) []byte {
	it, err := highlight.JSON().Tokenise(nil, string(js))
	if err != nil {
		return js
	}
	var out bytes.Buffer
	if err := formatters.TTY256.Format(&out, highlight.Style(highlight.Monokai), it); err != nil {
		return js
	}
	return out.Bytes()
}

// indentWriter indents JSON as it streams through (jsontext.Indenter:
// what json.Indent(dst, src, "", "  ") writes), colouring it for a
// terminal when color is set. Close writes what is left.
type indentWriter struct {
	w     io.Writer
	color bool
	ind   jsontext.Indenter
	buf   []byte
	err   error
}

func (x *indentWriter) Write(p []byte) (int, error) {
	x.buf = x.ind.Append(x.buf, p)
	if len(x.buf) >= 64<<10 {
		x.flush(false)
	}
	return len(p), x.err
}

// flush writes the buffered lines (all of them when final): whole lines,
// so that colouring sees whole tokens.
func (x *indentWriter) flush(final bool) {
	n := len(x.buf)
	if !final && x.color {
		n = bytes.LastIndexByte(x.buf, '\n') + 1
		if n == 0 && len(x.buf) > 1<<20 {
			n = len(x.buf) // one huge value: it will be left plain
		}
	}
	if n == 0 || x.err != nil {
		return
	}
	out := x.buf[:n]
	if x.color && n <= 1<<20 {
		// (A longer run of lines is one huge value: left plain, since
		// lexing it would cost many times its size.)
		out = highlightJSON(out)
	}
	_, x.err = x.w.Write(out)
	x.buf = append(x.buf[:0], x.buf[n:]...)
}

// Close writes what is left.
func (x *indentWriter) Close() error {
	x.flush(true)
	return x.err
}

const (
	ansiDim   = "\x1b[2m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiCyan  = "\x1b[36m"
	ansiReset = "\x1b[0m"
)

// writeTree writes the tree indented, each line with its byte range and
// the bytes it covers, to w as it goes.
func writeTree(w io.Writer, f *codec.Frame, color bool) error {
	return writeTreeNames(w, f, color, nil)
}

// writeTreeNames is writeTree with the topic ids names knows (nil: none)
// followed by their name in parentheses.
func writeTreeNames(w io.Writer, f *codec.Frame, color bool, names func([16]byte) string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	b := bw
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	var walk func(n *tree.Node, depth int)
	walk = func(n *tree.Node, depth int) {
		name := render.TreeName(n)
		rng := "[" + strconv.Itoa(n.Start) + "," + strconv.Itoa(n.End) + ")"
		if n.Buf > 0 {
			rng = "buf" + strconv.Itoa(n.Buf) + rng
		}
		line := strings.Repeat("  ", depth) + paint(ansiBold, name)
		if n.Type != "" {
			line += " " + paint(ansiDim, n.Type)
		}
		if len(n.Children) == 0 || n.Kind == 0 {
			if v := render.ShortValue(n, f.APIKey); v != "" && n.Role != tree.RoleFrame {
				line += " = " + v
				if names != nil && n.Kind == schema.UUID && n.Field != nil && n.Field.JSON == "topicId" && len(n.Raw) == 16 {
					if name := names([16]byte(n.Raw)); name != "" {
						q := strconv.Quote(name) // a name from the network: escaped for the terminal
						line += " (" + q[1:len(q)-1] + ")"
					}
				}
			}
		}
		pad := 60 - len([]rune(stripANSI(line)))
		if pad < 1 {
			pad = 1
		}
		line = paint(ansiCyan, padRight(rng, 14)) + line + strings.Repeat(" ", pad)
		if len(n.Children) == 0 && n.Buf < len(f.Buffers) {
			raw := f.Buffers[n.Buf][n.Start:n.End]
			h := hex.EncodeToString(raw[:min(len(raw), 16)])
			var sp strings.Builder
			for i := 0; i < len(h); i += 2 {
				if i > 0 {
					sp.WriteByte(' ')
				}
				sp.WriteString(h[i : i+2])
			}
			if len(raw) > 16 {
				sp.WriteString(" …")
			}
			line += paint(ansiDim, sp.String())
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
		for _, w := range n.Warnings {
			b.WriteString(strings.Repeat(" ", 14) + strings.Repeat("  ", depth+1) + paint(ansiRed, "warning: "+w) + "\n")
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(f.Root, 0)
	return bw.Flush()
}

func padRight(s string, n int) string {
	if len(s) >= n {
		return s + " "
	}
	return s + strings.Repeat(" ", n-len(s))
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// gridText draws the RFC-style grid of every buffer.
func gridText(f *codec.Frame) string {
	var b strings.Builder
	for i := range f.Buffers {
		cells := render.Cells(f, i)
		if len(cells) == 0 {
			continue
		}
		if i > 0 {
			b.WriteString("\nderived buffer " + strconv.Itoa(i) + " (" + strconv.Itoa(len(f.Buffers[i])) + " bytes, decompressed)\n")
		}
		b.WriteString(render.Terminal(cells, render.Layout(cells, 4, 32, nil)))
	}
	return b.String()
}

// treeTextNames is writeTree's text as a string, naming the topic ids
// names knows.
func treeTextNames(f *codec.Frame, color bool, names func([16]byte) string) string {
	var b strings.Builder
	writeTreeNames(&b, f, color, names)
	return b.String()
}

// jsonFlags are the flags of the commands that print value JSON:
// --records, --kafka and --int64-strings.
type jsonFlags struct {
	records string
	kafka   bool
	int64s  bool
}

func (j *jsonFlags) register(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
}) {
	fs.StringVar(&j.records, "records", "decoded", "records in value JSON: decoded, base64 or size (base64 and size read no record payload, so not with --schemas, --schema-registry or --validate)")
	fs.BoolVar(&j.kafka, "kafka", false, "Kafka's own JSON form: every bytes field base64 (records, consumer-protocol metadata and assignments, KRaft values), no kwire-only keys in the body; no record payload is read, so not with --schemas, --schema-registry or --validate")
	fs.BoolVar(&j.int64s, "int64-strings", false, "write int64 values (producer ids, offsets, timestamps) as strings of their digits, exact for jq and JavaScript, which round numbers past 2^53; kwire encode reads both forms")
}

// options turns the flags into the codec's JSON options.
func (j *jsonFlags) options() (jsonForm, error) {
	jo, err := recordsMode(j.records)
	if err != nil {
		return jo, err
	}
	if j.kafka {
		if jo.records == codec.RecordsSize {
			return jo, errorf("--kafka writes records as base64, Kafka's form; --records size is kwire's")
		}
		jo.kafka = true
	}
	jo.int64s = j.int64s
	return jo, nil
}

// appendDiagnostics appends the standard-error lines for a frame read
// with the tree-less path: how a guessed response was read, then each
// warning as "kwire: warning: PREFIXat byte N (path): message", up to
// maxWarnLines, then how many more there are. A warning that says a
// limit cut decoding short is printed wherever it comes (up to
// maxWarnLines more of them): a flood of lenient readings must not hide
// the limit that ended it. prefix names the frame ("line 3: ", "conn 2
// correlation 7 response: "), or is "".
func appendDiagnostics(dst []byte, prefix string, g *codec.Guess, ws []codec.Warning) []byte {
	if g != nil && len(g.Candidates) > 0 {
		dst = append(dst, "kwire: "...)
		dst = append(dst, prefix...)
		dst = append(dst, describeGuess(g)...)
		dst = append(dst, '\n')
	}
	shown, limits := 0, 0
	for i, w := range ws {
		switch {
		case i < maxWarnLines:
		case w.Limit && limits < maxWarnLines:
			limits++
		default:
			continue
		}
		shown++
		dst = append(dst, "kwire: warning: "...)
		dst = append(dst, prefix...)
		dst = append(dst, describeWarning(w)...)
		dst = append(dst, '\n')
	}
	if more := len(ws) - shown; more > 0 {
		dst = append(dst, "kwire: warning: "...)
		dst = append(dst, prefix...)
		dst = strconv.AppendInt(dst, int64(more), 10)
		dst = append(dst, " more warnings not shown (the JSON's \"warnings\" lists them all)\n"...)
	}
	return dst
}
