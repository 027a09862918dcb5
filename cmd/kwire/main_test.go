package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var kwireBin string

// TestMain builds the real binary once; the tests run it as a user would.
func TestMain(m *testing.M) {
	if spec := os.Getenv(soakAttackEnv); spec != "" {
		os.Exit(runSoakAttacker(spec)) // TestProxySoak's attacker process
	}
	flag.Parse()
	dir, err := os.MkdirTemp("", "kwire-cli")
	if err != nil {
		panic(err)
	}
	kwireBin = filepath.Join(dir, "kwire")
	if out, err := exec.Command("go", "build", "-o", kwireBin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	if workDir, err = linkInputs(filepath.Join(dir, "work")); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// workDir is where the CLI runs in tests: links to this package's
// testdata beside the shared captures and dumps of the top-level testdata,
// so commands (and the --help examples) name inputs as a user would.
var workDir string

// sharedTestdata is the repository's top-level corpus, from this package.
var sharedTestdata = filepath.Join("..", "..", "testdata")

func linkInputs(dst string) (string, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return "", err
	}
	for _, src := range []string{"testdata", filepath.Join(sharedTestdata, "captures"), filepath.Join(sharedTestdata, "dumps"), filepath.Join(sharedTestdata, "storage")} {
		entries, err := os.ReadDir(src)
		if err != nil {
			return "", err
		}
		for _, e := range entries {
			abs, err := filepath.Abs(filepath.Join(src, e.Name()))
			if err != nil {
				return "", err
			}
			if err := os.Symlink(abs, filepath.Join(dst, e.Name())); err != nil && !os.IsExist(err) {
				return "", err
			}
		}
	}
	return dst, nil
}

type cliCase struct {
	name   string
	args   []string
	stdin  string // a file under testdata, or ""
	golden string // expected stdout in testdata/NAME.golden, or ""
	code   int
	stderr string // a substring stderr must hold
}

func runCLI(t *testing.T, args []string, stdin []byte) (string, string, int) {
	t.Helper()
	cmd := exec.Command(kwireBin, args...)
	cmd.Dir = workDir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run go test ./cmd/kwire -update to create it")
	require.Equal(t, string(want), got)
}

func runCases(t *testing.T, cases []cliCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in []byte
			if c.stdin != "" {
				var err error
				in, err = os.ReadFile(filepath.Join("testdata", c.stdin))
				require.NoError(t, err)
			}
			out, errOut, code := runCLI(t, c.args, in)
			require.Equal(t, c.code, code, "stderr: %s", errOut)
			if c.stderr != "" {
				require.Contains(t, errOut, c.stderr)
				require.True(t, strings.HasPrefix(errOut, "kwire: "), "errors start with kwire: %q", errOut)
			}
			if c.golden != "" {
				checkGolden(t, c.golden, out)
			}
		})
	}
}

// nonMinimalFrame is apiVersionsV3 with the client software name's length
// (uvarint 7) written in two bytes, 87 00.
const nonMinimalFrame = "0000001c0012000300000007" + "00056b7769726500" + "86006b77697265" + "04312e30" + "00"

// apiVersionsV3 is an ApiVersions v3 request (hand-built, see codec/golden_test.go).
const apiVersionsV3 = "0000001b0012000300000007" + "00056b7769726500" + "066b77697265" + "04312e30" + "00"

func TestDecodeCLI(t *testing.T) {
	runCases(t, []cliCase{
		{name: "hex argument", args: []string{"decode", apiVersionsV3}, golden: "decode_apiversions"},
		{name: "spaced 0x hex with colons", args: []string{"decode", "--format", "ndjson", "0x00:0x00:0x00:0x1b 00 12 00 03 00000007 00056b7769726500066b7720697265" + "04312e3000"}, code: 1, stderr: "at byte"},
		{name: "xxd dump on stdin", args: []string{"decode", "--format", "ndjson"}, stdin: "apiversions.xxd", golden: "decode_apiversions_ndjson"},
		{name: "file argument", args: []string{"decode", "--format", "ndjson", "apiversions.xxd"}, golden: "decode_apiversions_ndjson"},
		{name: "no size prefix", args: []string{"decode", "--no-size", "--format", "ndjson", apiVersionsV3[8:]}, golden: "decode_apiversions_ndjson"},
		{name: "response with hints", args: []string{"decode", "--response", "--api", "ApiVersions", "--version", "0", "0000000a000000070000" + "00000000"}, golden: "decode_response"},
		{name: "two frames back to back", args: []string{"decode", "--format", "ndjson", apiVersionsV3 + apiVersionsV3}, golden: "decode_two_frames"},
		{name: "annotated", args: []string{"decode", "--format", "annotated", apiVersionsV3}, golden: "decode_annotated"},
		{name: "truncated frame", args: []string{"decode", "--format", "ndjson", apiVersionsV3[:40]}, code: 1, stderr: "kwire: at byte 20 (body.clientSoftwareName): expected a varint, found the end of the input (the frame is cut short: its size says 27 bytes follow, 16 do, 11 are missing)"},
		{name: "truncated response", args: []string{"decode", "--format", "ndjson", "0000000a0000000700000000"}, code: 1, stderr: "kwire: at byte 0 (size): expected a size of at most 8 (the bytes given after it), found 10"},
		{name: "truncated body", args: []string{"decode", "--format", "ndjson", "--size", "no", apiVersionsV3[8:40]}, code: 1, stderr: "kwire: at byte 16 (body.clientSoftwareName): expected a varint, found the end of the input"},
		{name: "not hex", args: []string{"decode", "zz"}, code: 1, stderr: "kwire: "},
		{name: "warning on stderr", args: []string{"decode", "--format", "ndjson", nonMinimalFrame}, stderr: "kwire: warning: at byte 20 (body.clientSoftwareName): non-minimal varint: 2 bytes for a value that needs 1"},
		{name: "strict makes a warning fail", args: []string{"decode", "--strict", "--format", "ndjson", nonMinimalFrame}, code: 1, stderr: "kwire: warning: at byte 20"},
		{name: "guessing is said", args: []string{"decode", "--format", "ndjson", "0000000a00000007000000000000"}, stderr: "kwire: read as a response: guessed "},
		{name: "size beyond the bytes is no guess", args: []string{"decode", "--response", "7fffffff00000007000000000000"}, code: 1, stderr: "kwire: at byte 0 (size): expected a size of at most 10"},
		{name: "negative size is no guess", args: []string{"decode", "ffffff0000000007000000000000"}, code: 1, stderr: "kwire: at byte 0 (size): expected a non-negative frame size"},
		{name: "response that fits no API", args: []string{"decode", "--response", "00"}, code: 1, stderr: "expected a response of any API and version, found 1 bytes that read as none"},
		{name: "unknown flag", args: []string{"decode", "--bogus"}, code: 2},
		{name: "unknown command", args: []string{"bogus"}, code: 2, stderr: "unknown command"},
	})
}

func TestEncodeCLI(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3}, nil)
	require.Equal(t, 0, code, errOut)
	hexOut, errOut, code := runCLI(t, []string{"encode"}, []byte(out))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, apiVersionsV3+"\n", hexOut)
	// NDJSON: one line out per line in.
	hexOut, _, code = runCLI(t, []string{"encode"}, []byte(out+out))
	require.Equal(t, 0, code)
	require.Equal(t, apiVersionsV3+"\n"+apiVersionsV3+"\n", hexOut)
	_, errOut, code = runCLI(t, []string{"encode", `{"apiKey":18,"apiVersion":3,"body":{"nope":1}}`}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: body.nope: unknown field; valid here: clientSoftwareName, clientSoftwareVersion")
	// A bad NDJSON line keeps its place with an error object; the rest encode.
	hexOut, errOut, code = runCLI(t, []string{"encode"}, []byte(out+`{"apiKey":18,"apiVersion":3,"body":{"nope":1}}`+"\n{not json\n"+out))
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(hexOut), "\n")
	require.Len(t, lines, 4)
	require.Equal(t, apiVersionsV3, lines[0])
	require.Contains(t, lines[1], `{"line":2,"error":{"path":"body.nope"`)
	require.Contains(t, lines[2], `{"line":3,"error":{"path":"","message":"invalid JSON`)
	require.Equal(t, apiVersionsV3, lines[3])
	require.Contains(t, errOut, "kwire: 2 of 4 lines failed")
}

func TestAPIsCLI(t *testing.T) {
	runCases(t, []cliCase{
		{name: "table", args: []string{"apis"}, golden: "apis"},
		{name: "json", args: []string{"apis", "--json"}, golden: "apis_json"},
	})
}

// TestHelp: --help (and -h, and kwire help COMMAND) prints the usage once,
// on stdout, with nothing on stderr; a bad flag prints the error and
// where the usage is, one line on stderr, and exits 2.
func TestHelp(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {"help", c.name}} {
			out, errOut, code := runCLI(t, args, nil)
			require.Equal(t, 0, code, args)
			require.Equal(t, 1, strings.Count(out, "Usage: kwire "+c.name+" "), "%v stdout:\n%s", args, out)
			require.Empty(t, errOut, args)
		}
		out, errOut, code := runCLI(t, []string{c.name, "--no-such-flag"}, nil)
		require.Equal(t, 2, code, c.name)
		require.Empty(t, out, c.name)
		require.Equal(t, "kwire: "+c.name+": no flag --no-such-flag; kwire "+c.name+" --help lists its flags\n", errOut)
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 0, code)
		require.Empty(t, errOut)
		require.Equal(t, 1, strings.Count(out, "Usage: kwire COMMAND"), out)
		for _, c := range commands {
			require.Contains(t, out, "\n  "+c.name+" ")
		}
	}
	// No command at all is misuse: the usage goes to stderr.
	out, errOut, code := runCLI(t, nil, nil)
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Contains(t, errOut, "Usage: kwire COMMAND")
}

// TestHelpExamples runs every example that --help shows, as a shell would,
// where the tests run the CLI (workDir), with the built binary first on PATH.
func TestHelpExamples(t *testing.T) {
	n := 0
	for _, c := range commands {
		out, _, code := runCLI(t, []string{c.name, "--help"}, nil)
		require.Equal(t, 0, code)
		_, ex, found := strings.Cut(out, "Examples:\n")
		if !found {
			continue
		}
		for _, line := range strings.Split(strings.TrimSpace(ex), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			n++
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir = workDir
			cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(kwireBin)+":"+os.Getenv("PATH"), "NO_COLOR=1")
			got, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s --help example %q failed:\n%s", c.name, line, got)
			require.NotEmpty(t, got, line)
		}
	}
	require.Greater(t, n, 10)
}

func TestFormatsAndCommandsCLI(t *testing.T) {
	runCases(t, []cliCase{
		{name: "tree", args: []string{"decode", "--format", "tree", apiVersionsV3}, golden: "decode_tree"},
		{name: "grid", args: []string{"decode", "--format", "grid", apiVersionsV3}, golden: "decode_grid"},
		{name: "colour forced", args: []string{"decode", "--color", "always", apiVersionsV3}, golden: "decode_color"},
		{name: "bad colour", args: []string{"decode", "--color", "purple", apiVersionsV3}, code: 2, stderr: "--color must be"},
		{name: "guessed response", args: []string{"decode", "--format", "ndjson", "--response", "--api", "ApiVersions", "0000000a000000070000" + "00000000"}, golden: "decode_guess_pinned_api", stderr: "guessed ApiVersions v0"},
		{name: "schema", args: []string{"schema", "Produce", "--version", "9"}, golden: "schema_produce_v9"},
		{name: "schema response", args: []string{"schema", "apiversions", "--response", "--version", "3"}, golden: "schema_apiversions_v3_response"},
		{name: "schema bad version", args: []string{"schema", "Produce", "--version", "99"}, code: 2, stderr: "Produce has versions 0-13"},
		{name: "example", args: []string{"example", "Metadata", "--version", "1"}, golden: "example_metadata_v1"},
		{name: "batch", args: []string{"batch", "frames.hex"}, golden: "batch_frames"},
		{name: "batch with bad lines", args: []string{"batch"}, stdin: "batch_bad.txt", golden: "batch_bad", code: 1, stderr: "kwire: 2 of 4 lines failed"},
		{name: "pcap with failing frames", args: []string{"pcap", "kafka.pcap"}, golden: "pcap_kafka", code: 1, stderr: "2 exchanges had frames that failed to decode"},
		{name: "pcap ipv6", args: []string{"pcap", "kafka-ipv6-null.pcapng"}, golden: "pcap_ipv6"},
		{name: "pcap kafkajs", args: []string{"pcap", "kafkajs-clients.pcapng"}, golden: "pcap_kafkajs"},
	})
}

// TestInputShapesCLI decodes the same ApiVersions v3 request from every
// input shape a user pastes (the dumps were made by the real tools, see
// testdata/dumps/README.md): each gives the same JSON.
func TestInputShapesCLI(t *testing.T) {
	dumps, err := filepath.Abs(filepath.Join(sharedTestdata, "dumps"))
	require.NoError(t, err)
	want, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", filepath.Join(dumps, "frame.bin")}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, want, `"clientSoftwareName":"kafka-cli"`)
	for _, shape := range []string{"frame.hex", "frame.xxd", "frame.xxd-g1", "frame.xxd-i", "frame.hexdump-C", "frame.od", "frame.wireshark", "frame.tcpdump", "frame.base64"} {
		t.Run(shape, func(t *testing.T) {
			got, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", filepath.Join(dumps, shape)}, nil)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, want, got)
			// The same text on standard input.
			in, err := os.ReadFile(filepath.Join(dumps, shape))
			require.NoError(t, err)
			got, _, code = runCLI(t, []string{"decode", "--format", "ndjson"}, in)
			require.Equal(t, 0, code)
			require.Equal(t, want, got)
		})
	}
	hexText, err := os.ReadFile(filepath.Join(dumps, "frame.hex"))
	require.NoError(t, err)
	h := strings.TrimSpace(string(hexText))
	spaced := ""
	for i := 0; i+2 <= len(h); i += 2 {
		spaced += h[i:i+2] + " "
	}
	forms := map[string]string{
		"spaced":  spaced,
		"0x":      "0x" + strings.ReplaceAll(strings.TrimSpace(spaced), " ", " 0x"),
		"colons":  strings.ReplaceAll(strings.TrimSpace(spaced), " ", ":"),
		"commas":  "{0x" + strings.ReplaceAll(strings.TrimSpace(spaced), " ", ", 0x") + "}",
		"escapes": `"\x` + strings.ReplaceAll(strings.TrimSpace(spaced), " ", `\x`) + `"`,
	}
	for name, text := range forms {
		got, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", text}, nil)
		require.Equal(t, 0, code, "%s: %s", name, errOut)
		require.Equal(t, want, got, name)
	}
	// Forcing the wrong form is an error, not a guess.
	_, errOut, code = runCLI(t, []string{"decode", "--input", "base64", h}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: ")
}

// On a terminal JSON is coloured, unless NO_COLOR is set to a value (an
// empty one, no-color.org says, leaves colour on); a pty from script(1)
// stands in for the terminal.
func TestColourOnATerminal(t *testing.T) {
	script := needTool(t, "script")
	run := func(env ...string) string {
		cmd := exec.Command(script, "-qec", kwireBin+" decode "+apiVersionsV3, "/dev/null")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return string(out)
	}
	require.Contains(t, run("TERM=xterm-256color"), "\x1b[")
	require.NotContains(t, run("TERM=xterm-256color", "NO_COLOR=1"), "\x1b[")
	require.Contains(t, run("TERM=xterm-256color", "NO_COLOR="), "\x1b[")
}

// The progress bar is drawn on stderr while a file is read.
func TestBatchProgress(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"batch", "--progress", "always", "frames.hex"}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 6, strings.Count(out, "\n"))
	require.Contains(t, errOut, "[==============================] 100%")
	require.Contains(t, errOut, "kwire: 6 lines decoded")
}

// TestVersionOutsideInt16IsRefused: every --version (decode, batch,
// schema, example) and a batch line's "version" take 0 to 32767, Kafka's
// non-negative int16: a larger one is refused rather than wrapped modulo
// 65536 (65545 was v9), a negative one rather than taken as not given.
func TestVersionOutsideInt16IsRefused(t *testing.T) {
	const frame = "0000000a00000007000000000000" // ApiVersions v0 response
	for _, v := range []string{"65545", "65536", "32768", "-1", "-2", "x"} {
		for _, args := range [][]string{
			{"example", "Produce", "--version", v},
			{"schema", "Produce", "--version", v},
			{"decode", "--response", "--api", "ApiVersions", "--version", v, frame},
			{"decode", "--version=" + v, frame},
			{"batch", "--api", "ApiVersions", "--version", v},
		} {
			out, errOut, code := runCLI(t, args, []byte(frame+"\n"))
			require.Equal(t, 2, code, "%v: %s", args, errOut)
			require.Empty(t, out, args)
			require.True(t, strings.HasPrefix(errOut, "kwire: "+args[0]+`: invalid value "`+v+`" for --version: an API version is a whole number from 0 to 32767`), errOut)
		}
	}
	out, errOut, code := runCLI(t, []string{"example", "Produce", "--version", "32767"}, nil)
	require.Equal(t, 2, code, "in range but unknown: %s", out)
	require.Contains(t, errOut, "Produce has versions 0-13, not 32767")
	for _, line := range []string{
		`{"api":18,"version":65536,"hex":"` + frame + `"}`,
		`{"api":18, "version": -5, "hex":"` + frame + `"}`,
		`{"api":18,"apiVersion":-1,"hex":"` + frame + `"}`,
	} {
		out, _, code := runCLI(t, []string{"batch"}, []byte(line+"\n"))
		require.Equal(t, 1, code, line)
		require.Regexp(t, `^\{"line":1,"error":\{"message":"\\"(apiV|v)ersion\\": expected an API version from 0 to 32767, found -?\d+"\}\}\n$`, out)
	}
}

// TestDecodeReadsEachFileOnItsOwn: each FILE argument is its own input,
// its form found and its frames cut on its own (two binary files, a
// binary file after a hex one, a base64 file after an xxd dump), its
// frames decoded in order; an input error names the file and its own
// line. Inline arguments next to each other stay one text.
func TestDecodeReadsEachFileOnItsOwn(t *testing.T) {
	dir := t.TempDir()
	frame, err := hex.DecodeString(apiVersionsV3)
	require.NoError(t, err)
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	bin := file("a.bin", string(frame))
	hexFile := file("a.hex", apiVersionsV3+"\n")
	b64 := file("a.b64", base64.StdEncoding.EncodeToString(frame)+"\n")
	xxd, err := filepath.Abs(filepath.Join("testdata", "apiversions.xxd"))
	require.NoError(t, err)
	one, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", bin}, nil)
	require.Equal(t, 0, code, errOut)
	for _, args := range [][]string{{bin, bin}, {hexFile, bin}, {xxd, b64}, {bin, apiVersionsV3}, {apiVersionsV3, hexFile}} {
		out, errOut, code := runCLI(t, append([]string{"decode", "--format", "ndjson"}, args...), nil)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		require.Equal(t, one+one, out, args)
	}
	// An input error names its file and counts its own lines.
	bad := file("bad.hex", "0000001c\nzz\n")
	out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", xxd, bad, bin}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, one+one, out, "the other files are decoded")
	require.Equal(t, "kwire: "+bad+": input: line 2, column 1: unexpected character 'z' in hex\n", errOut)
	// A frame's messages say its file and its place in the output.
	_, errOut, code = runCLI(t, []string{"decode", "--format", "ndjson", bin, file("cut.bin", string(frame[:20]))}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: "+dir+"/cut.bin: frame 2: at byte 20 (body.clientSoftwareName)", "frames are numbered from 1, as kwire check numbers them")
	// Inline hex split over arguments is still one text.
	out, errOut, code = runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3[:9], apiVersionsV3[9:]}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, one, out)
}

// TestFileArgumentsThatCannotBeRead: an argument meant as a path (one
// that names a directory, starts with '/', or is not valid data and
// holds a '/' or a '.' before a letter) is an error naming it, worded as
// kwire batch words it, not data; inline hex, base64 (a '/' in it too)
// and JSON arguments are still data.
func TestFileArgumentsThatCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"decode", "frame-missing.bin"}, "kwire: frame-missing.bin: no such file or directory\n"},
		{[]string{"decode", "/nonexistent"}, "kwire: /nonexistent: no such file or directory\n"},
		{[]string{"decode", "./frames/x"}, "kwire: ./frames/x: no such file or directory\n"},
		{[]string{"decode", dir}, "kwire: " + dir + ": is a directory\n"},
		{[]string{"encode", "/nonexistent"}, "kwire: /nonexistent: no such file or directory\n"},
		{[]string{"encode", "value.json"}, "kwire: value.json: no such file or directory\n"},
		{[]string{"encode", dir}, "kwire: " + dir + ": is a directory\n"},
	} {
		out, errOut, code := runCLI(t, c.args, nil)
		require.Equal(t, 1, code, c.args)
		require.Empty(t, out, c.args)
		require.Equal(t, c.msg, errOut, c.args)
		_, batchErr, _ := runCLI(t, []string{"batch", c.args[len(c.args)-1]}, nil)
		require.Equal(t, c.msg, batchErr, "batch words it the same")
	}
	for _, args := range [][]string{
		{"decode", "--format", "ndjson", apiVersionsV3},
		{"decode", "--format", "ndjson", "--response", "--api", "18", "--version", "0", "AAAACvv///8AAAAAAAA="},
		{"decode", "--format", "ndjson", "--response", "--api", "18", "--version", "0", "AAAACgAAA/8AAAAAAAA="},
		{"encode", `{"apiKey":18,"apiVersion":3,"header":{"clientId":"a.b/c"},"body":{"clientSoftwareName":"kwire.x","clientSoftwareVersion":"1.0"}}`},
	} {
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		require.NotEmpty(t, out)
	}
}

// TestEncodeReadsAStreamOfDocuments: kwire decode's indented JSON of
// several frames, or documents one after another on a line, encode one
// by one, with nothing on stderr; NDJSON keeps one line out per line in.
func TestEncodeReadsAStreamOfDocuments(t *testing.T) {
	const resp = "0000000a00000007000000000000"
	indented, errOut, code := runCLI(t, []string{"decode", "--response", "--api", "ApiVersions", "--version", "0", resp, resp, resp}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 3, strings.Count(indented, "\n}\n"))
	out, errOut, code := runCLI(t, []string{"encode"}, []byte(indented))
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	require.Equal(t, strings.Repeat(resp+"\n", 3), out)
	nd, _, _ := runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3}, nil)
	doc := strings.TrimSuffix(nd, "\n")
	out, errOut, code = runCLI(t, []string{"encode"}, []byte(doc+" "+doc+"\n\t"+doc))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, strings.Repeat(apiVersionsV3+"\n", 3), out)
	// A broken indented document is one error, on the line it is on (its
	// byte counted in that line); the next document is read again.
	broken := strings.Replace(indented, `"errorCode": 0`, `"errorCode" 0`, 1)
	out, errOut, code = runCLI(t, []string{"encode"}, []byte(broken))
	require.Equal(t, 1, code)
	require.Equal(t, `{"line":10,"error":{"path":"","message":"invalid JSON at byte 16: expected ':' after a key"}}`+"\n"+resp+"\n"+resp+"\n", out)
	require.Equal(t, 10, strings.Count(broken[:strings.Index(broken, `"errorCode" 0`)], "\n")+1)
	require.Contains(t, errOut, "kwire: line 10: invalid JSON at byte 16")
	require.Contains(t, errOut, "kwire: 1 of 3 documents failed")
}

// TestEncodeLinesNumberedAsInTheFile: the line an error names, in its
// object and on stderr, is its line in the input, blank lines counted.
func TestEncodeLinesNumberedAsInTheFile(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"encode"}, []byte("\n\n{\"apiKey\":18,\"apiVersion\":3}\n\n{bad\n"))
	require.Equal(t, 1, code)
	require.Equal(t, "0000000e0012000300000000000000010100\n"+`{"line":5,"error":{"path":"","message":"invalid JSON at byte 1: expected a string key"}}`+"\n", out)
	require.Equal(t, "kwire: line 3: not given, written as their defaults (Kafka's JSON reader requires them): header, body\n"+
		"kwire: line 5: invalid JSON at byte 1: expected a string key\nkwire: 1 of 2 lines failed\n", errOut)
	// Among several files, each counts its own lines and is named.
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	require.NoError(t, os.WriteFile(a, []byte("\n{\"apiKey\":18,\"apiVersion\":3}\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("\n\n{bad\n"), 0o644))
	out, errOut, code = runCLI(t, []string{"encode", a, b}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, "0000000e0012000300000000000000010100\n"+`{"file":`+strconv.Quote(b)+`,"line":3,"error":{"path":"","message":"invalid JSON at byte 1: expected a string key"}}`+"\n", out)
	require.Equal(t, "kwire: "+a+": line 2: not given, written as their defaults (Kafka's JSON reader requires them): header, body\n"+
		"kwire: "+b+": line 3: invalid JSON at byte 1: expected a string key\nkwire: 1 of 2 lines failed\n", errOut)
}

// TestDecodeFrameWithTrailingBytes: a whole frame followed by fewer
// bytes than a size prefix is that frame and its trailing bytes, said in
// a warning; it was read as an unsized frame, its size bytes taken for a
// Produce v54 header, and failed in a body it does not have.
func TestDecodeFrameWithTrailingBytes(t *testing.T) {
	one, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3}, nil)
	require.Equal(t, 0, code, errOut)
	for _, tail := range []string{"00", "0000", "ffffff"} {
		out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3 + tail}, nil)
		require.Equal(t, 0, code, errOut)
		require.Contains(t, errOut, "kwire: warning: at byte 31 (_trailing): "+map[int]string{1: "1 byte", 2: "2 bytes", 3: "3 bytes"}[len(tail)/2]+" after the frame's declared size")
		require.Equal(t, strings.TrimSuffix(one, "}\n"), out[:len(one)-2], "the frame reads as without its tail")
	}
	// Two frames and a byte: both frames, the byte the second's.
	out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3 + apiVersionsV3 + "00"}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 2, strings.Count(out, `"apiName":"ApiVersions"`))
	require.Contains(t, errOut, "kwire: warning: frame 2: at byte 31 (_trailing)")
	// Whole frames, then one cut short (a stream copied up to some
	// byte): the frames, and the cut one's error. They were read as one
	// unsized frame, a Produce v28 request failing in its body.
	for _, tail := range []string{"0000001c00120003", "00000000", apiVersionsV3[:40]} {
		out, errOut, code = runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3 + apiVersionsV3 + tail}, nil)
		require.Equal(t, 1, code, errOut)
		require.Equal(t, one+one, out[:2*len(one)], tail)
		require.Contains(t, errOut, "kwire: frame 3: at byte ", tail)
		require.NotContains(t, out, "Produce", tail)
	}
	// A line of batch is one frame: the first, the rest said after it.
	out, errOut, code = runCLI(t, []string{"batch"}, []byte(apiVersionsV3+"0000001c00120003\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, strings.TrimSuffix(one, "}\n"), out[:len(one)-2], "the frame reads as without its tail")
	require.Contains(t, errOut, "kwire: warning: line 1: at byte 31 (_trailing): 8 bytes after the frame's declared size")
}

// TestDecodeCutShortSaysHowToRead: a frame whose size says more than the
// bytes given fails at its size when kwire is to guess what it is (it
// never guesses from a part: a response's API and version are unknown),
// and the error says which flags read the part there is; with --request
// those bytes are read. A request cut short names its API and version in
// its header: it is read as far as its bytes go, with or without
// --request, and the error says how many bytes are missing; batch reads
// it the same, its partial value beside the error.
func TestDecodeCutShortSaysHowToRead(t *testing.T) {
	const cutResponse = "0000000a0000000700000000" // ApiVersions v0, two bytes short
	_, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", cutResponse}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, "kwire: at byte 0 (size): expected a size of at most 8 (the bytes given after it), found 10 (--request, or --response with --api and --version, reads the bytes there are)\n", errOut)
	out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", "--response", "--api", "ApiVersions", "--version", "0", cutResponse}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, out, `"errorCode":0`)
	require.Contains(t, errOut, "(the frame is cut short: its size says 10 bytes follow, 8 do, 2 are missing)")

	cut := apiVersionsV3[:58]
	const want = "at byte 26 (body.clientSoftwareVersion): expected a length of at most 2 (the bytes left), found 3 (the frame is cut short: its size says 27 bytes follow, 25 do, 2 are missing)"
	for _, args := range [][]string{{cut}, {"--request", cut}} {
		out, errOut, code := runCLI(t, append([]string{"decode", "--format", "ndjson"}, args...), nil)
		require.Equal(t, 1, code, args)
		require.Contains(t, out, `"clientId":"kwire"`, args)
		require.Contains(t, out, `"clientSoftwareName":"kwire"`, args)
		require.Equal(t, "kwire: "+want+"\n", errOut, args)
	}
	out, _, code = runCLI(t, []string{"batch"}, []byte(cut+"\n"))
	require.Equal(t, 1, code)
	require.Contains(t, out, `"message":"`+want+`"`)
}

// Flags that contradict each other are misuse, in either order, for
// decode and batch alike: --size yes with --no-size let --no-size win.
func TestContradictoryFlagsAreRefused(t *testing.T) {
	frame := []byte("0000000a00000007000000000000\n")
	for _, cmd := range []string{"decode", "batch"} {
		for _, c := range []struct {
			flags []string
			msg   string
		}{
			{[]string{"--size", "yes", "--no-size"}, "--size yes and --no-size exclude each other"},
			{[]string{"--no-size", "--size", "yes"}, "--size yes and --no-size exclude each other"},
			{[]string{"--request", "--response"}, "--request and --response exclude each other"},
			{[]string{"--size", "maybe"}, `--size must be auto, yes or no, not "maybe"`},
		} {
			out, errOut, code := runCLI(t, append([]string{cmd}, c.flags...), frame)
			if code != 2 || !strings.Contains(errOut, "kwire: "+c.msg+"\n") || out != "" {
				t.Errorf("kwire %s %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", cmd, c.flags, code, out, errOut, c.msg)
			}
		}
		// Saying the same thing twice is no contradiction.
		if _, errOut, code := runCLI(t, []string{cmd, "--size", "no", "--no-size", "--request"}, []byte("001200030000000700056b7769726500066b7769726504312e3000\n")); code != 0 {
			t.Errorf("kwire %s --size no --no-size: exit %d: %s", cmd, code, errOut)
		}
	}
}

// A flag that takes one of a few words refuses any other in the same
// words whatever the command: "--FLAG must be A, B or C, not "X"", exit 2.
// decode's --input said "input: unknown mode", encode's --as "--as:
// expected ..., found", and kwire batch took any --input and ignored it.
func TestChoiceFlagsRefusedAlike(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"decode", "--input", "hexx", "00"}, `--input must be auto, hex, base64 or binary, not "hexx"`},
		{[]string{"batch", "--input", "hexx"}, `--input must be auto, hex, base64 or binary, not "hexx"`},
		{[]string{"encode", "--as", "hexx", "{}"}, `--as must be hex, base64 or binary, not "hexx"`},
		{[]string{"decode", "--format", "yaml", "00"}, `--format must be json, ndjson, tree, grid or annotated, not "yaml"`},
		{[]string{"check", "--format", "yaml"}, `--format must be text, json, ndjson or sarif, not "yaml"`},
		{[]string{"batch", "--size", "maybe"}, `--size must be auto, yes or no, not "maybe"`},
		{[]string{"pcap", "--progress", "sometimes", "kafka.pcap"}, `--progress must be auto, always or never, not "sometimes"`},
		// Said before the file is opened, as decode and check say it.
		{[]string{"pcap", "--progress", "sometimes", "nope.pcap"}, `--progress must be auto, always or never, not "sometimes"`},
		{[]string{"batch", "--progress", "sometimes", "nope.hex"}, `--progress must be auto, always or never, not "sometimes"`},
		{[]string{"decode", "--progress", "sometimes", "nope.bin"}, `--progress must be auto, always or never, not "sometimes"`},
	} {
		out, errOut, code := runCLI(t, c.args, nil)
		require.Equal(t, 2, code, c.args)
		require.Empty(t, out, c.args)
		require.Equal(t, "kwire: "+c.want+"\n", errOut, c.args)
	}
}

// kwire batch reads its lines as --input says, as kwire decode reads its
// input: in brackets, values of two digits are decimal by default and
// hex with --input hex. Binary is no form for lines of text.
func TestBatchInputFlag(t *testing.T) {
	const line = "[10 20 30 40 50 60 70 80 90]\n"
	args := []string{"batch", "--response", "--api", "ApiVersions", "--version", "0", "--no-size"}
	out, _, _ := runCLI(t, args, []byte(line))
	require.Contains(t, out, `"correlationId":169090600`) // 0x0a141e28: decimal
	out, _, _ = runCLI(t, append(args, "--input", "hex"), []byte(line))
	require.Contains(t, out, `"correlationId":270544960`) // 0x10203040: hex
	out, errOut, code := runCLI(t, []string{"batch", "--input", "binary"}, []byte(line))
	require.Equal(t, 2, code)
	require.Empty(t, out)
	require.Equal(t, "kwire: --input binary is not for kwire batch, which reads a frame a line of text: kwire decode --input binary reads a file of raw bytes\n", errOut)
}

// A command run without what it needs says so in one line, with what to
// do, and exits 2: kwire log printed its whole usage after the line, some
// forty lines that scrolled the error away, as no other command does.
func TestMissingArgumentIsOneLine(t *testing.T) {
	for _, args := range [][]string{{"log"}, {"pcap"}, {"schema"}, {"example"}, {"completion"}, {"proxy"}} {
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 2, code, args)
		require.Empty(t, out, args)
		require.Regexp(t, `^kwire: [^\n]+\n$`, errOut, args)
	}
}

// TestBadFlagNamesTheNearest: a flag mistyped by a letter or two, or cut
// short, is named back as the flag there is, with the one line that says
// where the rest are; a flag missing its value says so in kwire's words.
func TestBadFlagNamesTheNearest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"decode", "--respons", "00"}, "kwire: decode: no flag --respons (did you mean --response?); kwire decode --help lists its flags\n"},
		{[]string{"pcap", "--show-secret", "x.pcap"}, "kwire: pcap: no flag --show-secret (did you mean --show-secrets?); kwire pcap --help lists its flags\n"},
		{[]string{"decode", "--form", "00"}, "kwire: decode: no flag --form (did you mean --format?); kwire decode --help lists its flags\n"},
		{[]string{"decode", "--api"}, "kwire: decode: --api needs a value; kwire decode --help lists its flags\n"},
	} {
		out, errOut, code := runCLI(t, c.args, nil)
		require.Equal(t, 2, code, c.args)
		require.Empty(t, out, c.args)
		require.Equal(t, c.want, errOut, c.args)
	}
}
