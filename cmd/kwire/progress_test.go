package main

import (
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/stretchr/testify/require"
)

// onATerminal runs a shell command line with its standard streams on a
// pty (script(1) stands in for the terminal) and returns what the
// terminal showed.
func onATerminal(t *testing.T, line string) string {
	script := needTool(t, "script")
	cmd := exec.Command(script, "-qec", line, "/dev/null")
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(kwireBin)+":"+os.Getenv("PATH"), "NO_COLOR=1", "TERM=xterm")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	return string(out)
}

// bigInputs writes inputs of more than 1 MiB for the three commands that
// draw progress: a capture, hex lines for batch, a Fetch response.
func bigInputs(t *testing.T) (pcap, lines, frame string) {
	dir := t.TempDir()
	pcap = filepath.Join(dir, "big.pcap")
	f, err := os.Create(pcap)
	require.NoError(t, err)
	_, err = traffic.WritePcap(f, traffic.PcapOptions{Pairs: 400, Conns: 4})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	hexLines, err := os.ReadFile("testdata/frames.hex")
	require.NoError(t, err)
	lines = filepath.Join(dir, "big.hex")
	require.NoError(t, os.WriteFile(lines, []byte(strings.Repeat(string(hexLines), (2<<20)/len(hexLines))), 0o644))
	frame = filepath.Join(dir, "fetch.bin")
	require.NoError(t, os.WriteFile(frame, fetchResponse(2<<20), 0o644))
	for _, p := range []string{pcap, lines, frame} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		require.Greater(t, st.Size(), int64(progressMin), p)
	}
	return pcap, lines, frame
}

// anyBar is a bar at any point; barRE the last one.
var anyBar = regexp.MustCompile(`\r\[[= ]{30}\]`)

var barRE = regexp.MustCompile(`\r\[=+\] 100%  [0-9.]+ [kMG]?B of [0-9.]+ [kMG]?B  [0-9,]+ (exchanges|lines|frames)(  [0-9.]+ [kMG]?B/s)?  in \d+:\d\d`)

// On a terminal, with the output going elsewhere, pcap, batch and decode
// of a large file draw progress on standard error, ending at 100%; piped,
// or with the output scrolling on the same terminal, they draw none.
func TestProgressOnATerminal(t *testing.T) {
	pcap, lines, frame := bigInputs(t)
	cases := []struct{ name, args, unit string }{
		{"pcap", "pcap " + pcap, "exchanges"},
		{"batch", "batch " + lines, "lines"},
		{"decode", "decode --format ndjson --response --api Fetch --version 11 " + frame, "frames"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tty := onATerminal(t, "kwire "+c.args+" >/dev/null")
			m := barRE.FindString(tty)
			require.NotEmpty(t, m, "no progress on the terminal:\n%q", tty)
			require.Contains(t, m, " "+c.unit+" ")
			// Piped: none, with the same output.
			out, errOut, code := runCLI(t, strings.Fields(c.args), nil)
			require.Equal(t, 0, code, errOut)
			require.NotContains(t, errOut, "\r")
			require.NotContains(t, errOut, "%")
			require.NotEmpty(t, out)
			// --progress never on a terminal: none.
			require.NotRegexp(t, anyBar, onATerminal(t, "kwire "+c.args+" --progress never >/dev/null"))
		})
	}
	// The output scrolling on the same terminal is progress enough...
	require.NotRegexp(t, anyBar, onATerminal(t, "kwire pcap "+pcap))
	// ...but a summary, printed at the end, leaves the terminal to the bar.
	sum := onATerminal(t, "kwire pcap --summary "+pcap)
	require.Regexp(t, barRE, sum)
	require.Contains(t, sum, "400 exchanges, 0 non-Kafka packets")
}

// Small inputs draw nothing even on a terminal: they are done first.
func TestNoProgressForSmallInputs(t *testing.T) {
	out := onATerminal(t, "kwire pcap kfake-clients.pcapng >/dev/null; kwire batch frames.hex >/dev/null")
	require.NotRegexp(t, anyBar, out)
	require.Contains(t, out, "kwire: 6 lines decoded")
}

// The bar's words: sizes, counts, rate, time left.
func TestProgressLine(t *testing.T) {
	p := &progress{unit: "exchanges", total: 10_000_000}
	p.bytes.Store(2_500_000)
	p.count.Store(12345)
	require.Equal(t, "[=======                       ]  25%  2.5 MB of 10.0 MB  12,345 exchanges  1.2 MB/s  0:06 left", p.line(false, 2*time.Second))
	require.Equal(t, "[==============================] 100%  10.0 MB of 10.0 MB  12,345 exchanges  19.7 kB/s  in 8:28", p.line(true, 508*time.Second))
	require.Equal(t, "1:01:01", clock(3661*time.Second))
	require.Equal(t, "999 B", humanBytes(999))
	require.Equal(t, "1,234,567", groupDigits(1234567))
}

// --progress always draws progress for input of unknown size too (a
// pipe): bytes read and frames done, with no bar or percentage; batch,
// pcap and decode alike, on standard input.
func TestProgressAlwaysOnAPipe(t *testing.T) {
	hexLines, err := os.ReadFile("testdata/frames.hex")
	require.NoError(t, err)
	capture, err := os.ReadFile(filepath.Join(sharedTestdata, "captures", "kfake-clients.pcapng"))
	require.NoError(t, err)
	countRE := regexp.MustCompile(`\r[0-9.]+ [kMG]?B read  [0-9,]+ (lines|exchanges|frames)(  [0-9.]+ [kMG]?B/s)?  in \d+:\d\d\x1b\[K\n`)
	for _, c := range []struct {
		args []string
		in   []byte
		want string
	}{
		{[]string{"batch", "--progress", "always"}, hexLines, "6 lines"},
		{[]string{"batch", "--progress", "always", "-"}, hexLines, "6 lines"},
		{[]string{"pcap", "--progress", "always", "-"}, capture, " exchanges"},
		{[]string{"check", "--progress", "always", "--fail-on", "none", "-"}, capture, " exchanges"},
	} {
		out, errOut, code := runCLI(t, c.args, c.in)
		require.Equal(t, 0, code, "%v: %s", c.args, errOut)
		require.True(t, out != "" || c.args[0] == "check", c.args) // check: findings, if any
		m := countRE.FindString(errOut)
		require.NotEmpty(t, m, "%v: no count on stderr: %q", c.args, errOut)
		require.Contains(t, m, c.want, c.args)
		require.NotContains(t, errOut, "%", c.args)
	}
	// check draws pcap's bar over all its files, of a size known.
	_, errOut, code := runCLI(t, []string{"check", "--progress", "always", "--fail-on", "none", "kfake-clients.pcapng", "kafka.pcap"}, nil)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, barRE, errOut)
	require.Contains(t, barRE.FindString(errOut), " exchanges ")
	// decode reads its input whole first: its size is then known.
	_, errOut, code = runCLI(t, []string{"decode", "--progress", "always", "--format", "ndjson"}, []byte(apiVersionsV3+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, barRE, errOut)
}

// decode's bar counts input bytes, as batch's and pcap's do: a hex file
// of 4 MB is "4.x MB of 4.x MB", not its frame's half of that.
func TestDecodeProgressCountsInputBytes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "fetch.hex")
	require.NoError(t, os.WriteFile(file, []byte(hex.EncodeToString(fetchResponse(2<<20))+"\n"), 0o644))
	st, err := os.Stat(file)
	require.NoError(t, err)
	tty := onATerminal(t, "kwire decode --format ndjson --response --api Fetch --version 11 "+file+" >/dev/null")
	m := barRE.FindString(tty)
	require.NotEmpty(t, m, "no progress on the terminal:\n%q", tty)
	size := humanBytes(st.Size())
	require.Contains(t, m, "  "+size+" of "+size+"  ", m)
}

// kwire check draws its bar whenever standard error is a terminal and the
// input is large enough, standard output the same terminal or not: its
// findings clear the bar before they are written. It drew none when both
// were terminals, the default way to run it.
func TestCheckProgressDecision(t *testing.T) {
	for _, c := range []struct {
		stdout, stderr bool
		total          int64
		want           bool
	}{
		{true, true, 2 << 20, true},
		{false, true, 2 << 20, true},
		{true, false, 2 << 20, false},
		{false, false, 2 << 20, false},
		{true, true, 1000, false},
		{true, true, -1, false},
	} {
		e := &env{stdoutIsTTY: c.stdout, stderrIsTTY: c.stderr}
		on, err := checkShowsProgress("auto", c.total, e)
		require.NoError(t, err)
		require.Equal(t, c.want, on, "stdout a terminal %v, stderr %v, %d bytes", c.stdout, c.stderr, c.total)
		on, err = checkShowsProgress("never", c.total, e)
		require.NoError(t, err)
		require.False(t, on)
	}
}

// On a terminal, findings and all, kwire check of a large capture draws
// its bar to 100%, its findings whole around it.
func TestCheckProgressOnATerminal(t *testing.T) {
	pcap, _, _ := bigInputs(t)
	tty := onATerminal(t, "kwire check --fail-on none "+pcap)
	require.Regexp(t, barRE, tty)
	require.Contains(t, tty, "conn.version skipped conn 1 correlation 1 request")
	require.Contains(t, tty, "kwire: check: ")
}
