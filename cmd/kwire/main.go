// Command kwire decodes and encodes Kafka wire-protocol frames.
//
// Usage:
//
//	kwire decode [flags] [HEX | FILE ...]   decode frames (json, ndjson, tree, grid, annotated)
//	kwire encode [flags] [JSON | FILE ...]  encode value JSON documents (NDJSON, indented) to frames
//	kwire batch [flags] [FILE]              decode NDJSON or hex lines on all cores
//	kwire pcap [flags] FILE|-               decode the Kafka conversations in a capture (- streams stdin)
//	kwire log [flags] PATH...               read Kafka's on-disk files: segments, indexes, snapshots, checkpoints
//	kwire check [flags] FILE...             report the protocol rules captures or frames break
//	kwire proxy --upstream HOST:PORT        forward Kafka connections, printing each exchange
//	kwire schema API [--version N]          Kafka-style BNF and a field table
//	kwire example API [--version N]         an API's example frame as hex and JSON
//	kwire apis [--json]                     list every API kwire knows
//	kwire site --out DIR                    write the docs site and playground
//	kwire serve [--dir DIR] [--addr A]      serve them, with the JSON API, on 127.0.0.1
//	kwire version                           the build and the newest Kafka release it knows (also --version)
//	kwire completion bash|zsh|fish          a shell completion script
//
// batch, pcap and decode draw progress on standard error when it is a
// terminal and the input is a file of 1 MiB or more (--progress).
//
// Input comes from the arguments, from files named as arguments (each read
// on its own; an argument that looks like a path but names no file is an
// error, see decode --help), or from standard input. Hex may be spaced, 0x-prefixed, colon- or
// comma-separated, or a dump from xxd, hexdump -C, od or Wireshark; base64
// and raw binary files are recognised too.
//
// Errors go to standard error prefixed "kwire:"; the exit status is 1 when
// a frame fails to decode or encode and 2 on misuse.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/kwire/kwire/internal/near"
)

// env is what a command reads and writes; tests give it buffers.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	stdinIsTTY     bool
	stdoutIsTTY    bool
	stderrIsTTY    bool
	// flagSets, when set, collects every flag set newFlags makes: shell
	// completion runs each command's --help to learn its flags.
	flagSets *[]flagSet
}

type command struct {
	name    string
	summary string
	run     func(e *env, args []string) int
	args    argKind // what its arguments are, for shell completion
}

// argKind is what a command's arguments are, as shell completion offers
// them: declared in the command table, never read from a usage line's
// wording (log's "PATH..." is files as much as decode's "FILE").
type argKind int

const (
	argsNone    argKind = iota // flags only (or nothing a shell can offer)
	argsFiles                  // files and directories
	argsAPI                    // an API name
	argsChoices                // the words of its synopsis's "a|b|c"
)

var commands []command

func init() {
	commands = []command{
		{"decode", "decode frames (hex, dumps, base64, binary) to JSON", runDecode, argsFiles},
		{"encode", "encode value JSON to frames as hex", runEncode, argsFiles},
		{"apis", "list every API with key, category and versions", runAPIs, argsNone},
		{"schema", "show an API's layout as Kafka's BNF and a field table", runSchema, argsAPI},
		{"example", "print the example frame of an API and version as hex and JSON", runExample, argsAPI},
		{"batch", "decode NDJSON or one-hex-per-line input to NDJSON, on all cores", runBatch, argsFiles},
		{"pcap", "decode the Kafka conversations in a pcap or pcapng capture", runPcap, argsFiles},
		{"log", "read Kafka's on-disk files: segments, indexes, snapshots, checkpoints, internal topics", runLog, argsFiles},
		{"check", "report the Kafka protocol rules captures or frames break", runCheck, argsFiles},
		{"proxy", "forward Kafka connections to a broker, printing each exchange decoded", runProxy, argsNone},
		{"site", "generate the documentation site and playground as static files", runSite, argsNone},
		{"serve", "serve a folder (the built site) over HTTP on 127.0.0.1", runServe, argsNone},
		{"version", "print the build and the newest Kafka release whose schemas it carries", runVersion, argsNone},
		{"completion", "print a completion script for bash, zsh or fish", runCompletion, argsChoices},
	}
}

// errUsage marks misuse: exit status 2.
var errUsage = errors.New("usage")

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		stdinIsTTY: isTerminal(os.Stdin), stdoutIsTTY: isTerminal(os.Stdout), stderrIsTTY: isTerminal(os.Stderr)}
	os.Exit(run(e, os.Args[1:]))
}

func run(e *env, args []string) int {
	out, ok := e.stdout.(*outWriter)
	if !ok { // the outermost run: help re-enters it
		out = &outWriter{w: e.stdout}
		e.stdout = out
		defer func() { e.stdout = out.w }() // e as it was given, for another run
	}
	code := runCommand(e, args)
	if out.failed.Load() && !ok {
		if !out.reported.Load() {
			fail(e, "%v", out.err)
		}
		code = max(code, 1)
	}
	return code
}

// outWriter is standard output as the commands write it: it keeps the
// first write error (a full disk, a closed file), after which every write
// fails at once with it, so that nothing more is decoded for nobody;
// run reports it, once, and exits 1. A broken pipe never gets here: the
// Go runtime ends the process with SIGPIPE, as a filter in a pipeline
// (kwire batch | head) should end.
type outWriter struct {
	w        io.Writer
	err      error       // set once, before failed
	failed   atomic.Bool // read by a command's reader, in another goroutine
	reported atomic.Bool // a command's message already said it
}

func (o *outWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	if err != nil {
		o.err = err
		o.failed.Store(true)
	}
	return n, err
}

// outFailed is the first error writing standard output, or nil; safe to
// call from any goroutine.
func (e *env) outFailed() error {
	if o, ok := e.stdout.(*outWriter); ok && o.failed.Load() {
		return o.err
	}
	return nil
}

// stopReader is a command's input that ends, with standard output's
// error, once standard output has failed: a long run (a capture of
// gigabytes) stops reading what nobody will get.
type stopReader struct {
	r io.Reader
	e *env
}

func (s stopReader) Read(b []byte) (int, error) {
	if err := s.e.outFailed(); err != nil {
		return 0, err
	}
	return s.r.Read(b)
}

func runCommand(e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) > 1 {
			return run(e, []string{args[1], "--help"})
		}
		if len(args) == 0 {
			// Misuse: the usage goes with the errors.
			usage(e.stderr)
			return 2
		}
		usage(e.stdout)
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		return runVersion(e, args[1:])
	}
	for _, c := range commands {
		if c.name == args[0] {
			return c.run(e, args[1:])
		}
	}
	fmt.Fprintf(e.stderr, "kwire: unknown command %q; run kwire --help\n", args[0])
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "kwire reads and writes the Kafka wire protocol.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: kwire COMMAND [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run kwire COMMAND --help for a command's flags and examples.")
}

// newFlags makes a flag set whose --help prints the summary, the flags and
// examples, and whose errors count as misuse. The flag package itself
// prints nothing: parseFlags says what went wrong, once, where it belongs.
func newFlags(e *env, name, synopsis string, examples ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if e.flagSets != nil {
		*e.flagSets = append(*e.flagSets, flagSet{fs, synopsis})
	}
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: kwire %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
		if len(examples) > 0 {
			fmt.Fprintln(w, "\nExamples:")
			for _, x := range examples {
				fmt.Fprintf(w, "  %s\n", x)
			}
		}
	}
	return fs
}

// nearestFlag is the flag of fs nearest to name, a flag it does not
// have, when one is a slip away (an edit distance of at most 2, or a
// prefix of it): "" otherwise.
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestD := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := near.Distance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = f.Name, d
		}
	})
	return best
}

// printUsage writes fs's usage to w.
func printUsage(fs *flag.FlagSet, w io.Writer) {
	fs.SetOutput(w)
	fs.Usage()
	fs.SetOutput(io.Discard)
}

// parseFlags parses args, allowing flags after positional arguments. It
// returns -1 to go on, or the exit status: --help prints the usage once,
// on stdout, and exits 0; a bad flag prints the error (for an unknown
// one, the nearest flag there is) and where the usage is, on stderr, and
// exits 2.
func parseFlags(e *env, fs *flag.FlagSet, args []string) ([]string, int) {
	// The flag package calls Usage itself on -h and on every error, before
	// returning; silence it for the parse and print here instead.
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			fs.Usage = usage
			if errors.Is(err, flag.ErrHelp) {
				printUsage(fs, e.stdout)
				return nil, 0
			}
			// The error and where the flags are, not the whole usage,
			// some sixty lines that would scroll the error away.
			// Go's flag package names a flag with one dash; kwire's usage,
			// with two.
			msg := strings.Replace(err.Error(), " for flag -", " for --", 1)
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
				msg = "no flag --" + name
				if near := nearestFlag(fs, name); near != "" {
					msg += " (did you mean --" + near + "?)"
				}
			} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
				msg = "--" + name + " needs a value"
			} else if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
				// Go's "invalid boolean value "x" for -flag: parse
				// error": one dash, and no word of what is valid.
				if val, name, ok := strings.Cut(rest, " for -"); ok {
					name, _, _ = strings.Cut(name, ":")
					msg = "--" + name + " is on by itself, or --" + name + "=true or =false, not " + val
				}
			}
			fail(e, "%s: %s; kwire %s --help lists its flags", fs.Name(), msg, fs.Name())
			return nil, 2
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, -1
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// parseFlagsOnly is parseFlags for a command that takes flags only: an
// argument is an error, "NAME takes no arguments" and hint (where the
// thing the user may have meant goes instead).
func parseFlagsOnly(e *env, fs *flag.FlagSet, args []string, hint string) int {
	rest, code := parseFlags(e, fs, args)
	if code < 0 && len(rest) > 0 {
		fail(e, "%s takes no arguments%s", fs.Name(), hint)
		code = 2
	}
	return code
}

// parseInputs is parseFlags for a command whose arguments are inputs:
// "-" (standard input) given twice is an error, as it is read once.
func parseInputs(e *env, fs *flag.FlagSet, args []string) ([]string, int) {
	rest, code := parseFlags(e, fs, args)
	if code < 0 && countOf(rest, "-") > 1 {
		fail(e, "- is given twice: standard input is read once")
		return nil, 2
	}
	return rest, code
}

// terminalInput says, when a command is about to read standard input and
// it is a terminal (no FILE given, or "-"), that it waits for what is
// typed or pasted there, what that is (what), and how to end it: kwire
// decode with no argument sat silent, as if it hung.
func terminalInput(e *env, name string, args []string, what string) {
	if !e.stdinIsTTY || len(args) > 0 && countOf(args, "-") == 0 {
		return
	}
	fmt.Fprintf(e.stderr, "kwire: %s reads standard input, this terminal: %s, then Ctrl-D on a line of its own (kwire %s --help: the other ways)\n", name, what, name)
}

func fail(e *env, format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if o, ok := e.stdout.(*outWriter); ok && o.failed.Load() && strings.Contains(msg, o.err.Error()) {
		// Standard output's failure, met again by a command: said once.
		if o.reported.Swap(true) {
			return
		}
	}
	fmt.Fprintln(e.stderr, "kwire: "+strings.TrimSuffix(msg, "\n"))
}

// isTerminal reports whether f is a terminal: a character device that
// answers a terminal's ioctl (x/term), so /dev/null is not one.
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// shellWords joins args as a POSIX shell reads them back: each word as it
// is when it holds nothing the shell would take apart, else in single
// quotes (a single quote in it ends them, is escaped, and opens them
// again), so a command a message suggests runs as shown, file names
// with spaces included.
func shellWords(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		plain := a != ""
		for _, c := range a {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-/+=:,@%", c)) {
				plain = false
				break
			}
		}
		if plain {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}
