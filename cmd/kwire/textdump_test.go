package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/kwire/kwire/internal/hostile"
	"github.com/stretchr/testify/require"
)

// exchangeLines are kwire pcap's lines as JSON objects, without the keys
// that hold times when without is set.
func exchangeLines(t *testing.T, out string, without bool) []map[string]any {
	t.Helper()
	var xs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var x map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &x), line)
		if without {
			delete(x, "requestTime")
			delete(x, "responseTime")
			delete(x, "latencyMs")
		}
		xs = append(xs, x)
	}
	return xs
}

// A capture printed as text by tshark -x reads as that capture: kwire
// pcap gives the same exchanges (APIs, versions, correlation ids, packet
// numbers, decoded JSON), their times aside, as the dump has none; tshark
// -P -t ad's dates give the same times too; kwire check finds the same;
// and standard input reads as the file does. Every real capture in
// testdata/captures, so Ethernet and BSD loopback, IPv4 and IPv6, lost
// bytes, reassembly and tshark's dumps of reassembled data are all met.
func TestTextDumpAsCapture(t *testing.T) {
	tshark := needTool(t, "tshark")
	caps, err := filepath.Glob(filepath.Join(sharedTestdata, "captures", "*.pcap*"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(caps), 4)
	dir := t.TempDir()
	for _, c := range caps {
		name := filepath.Base(c)
		t.Run(name, func(t *testing.T) {
			tsharkText := func(file string, args ...string) string {
				cmd := exec.Command(tshark, append([]string{"-r", name}, args...)...)
				cmd.Dir = workDir
				cmd.Env = append(os.Environ(), "TZ=UTC")
				b, err := cmd.Output()
				require.NoError(t, err)
				p := filepath.Join(dir, file)
				require.NoError(t, os.WriteFile(p, b, 0o644))
				return p
			}
			text := tsharkText(name+".txt", "-x")
			dated := tsharkText(name+".dated.txt", "-t", "ad", "-P", "-x")
			cmd := exec.Command(tshark, "-r", name, "-T", "fields", "-e", "frame.number")
			cmd.Dir = workDir
			frames, err := cmd.Output()
			require.NoError(t, err)
			n := strconv.Itoa(strings.Count(string(frames), "\n"))

			want, wantErr, wantCode := runCLI(t, []string{"pcap", name}, nil)
			wantX := exchangeLines(t, want, false)
			require.NotEmpty(t, wantX)

			got, gotErr, gotCode := runCLI(t, []string{"pcap", text}, nil)
			require.Equal(t, wantCode, gotCode, gotErr)
			require.Equal(t, exchangeLines(t, want, true), exchangeLines(t, got, true))
			note, rest, _ := strings.Cut(gotErr, "\n")
			require.Equal(t, "kwire: "+text+": read as a capture: a text dump of "+n+" packets (tshark -x or Wireshark's Copy as Hex Dump); "+
				"it gives no times, so each packet is given one a millisecond after the last: times and latencies mean nothing", note)
			require.Equal(t, wantErr, strings.ReplaceAll(rest, text, name), "the capture's notes, warnings and failures")

			got, gotErr, gotCode = runCLI(t, []string{"pcap", dated}, nil)
			require.Equal(t, wantCode, gotCode, gotErr)
			require.Equal(t, want, got, "the same lines, times and all")
			note, rest, _ = strings.Cut(gotErr, "\n")
			require.Equal(t, "kwire: "+dated+": read as a capture: a text dump of "+n+" packets (tshark -x or Wireshark's Copy as Hex Dump)", note)
			require.Equal(t, wantErr, strings.ReplaceAll(rest, dated, name))

			b, err := os.ReadFile(dated)
			require.NoError(t, err)
			got, gotErr, gotCode = runCLI(t, []string{"pcap", "-"}, b)
			require.Equal(t, wantCode, gotCode, gotErr)
			require.Equal(t, want, got, "standard input")
			// Piped, as from a live tcpdump -l -X, it is read as it
			// comes (TestPcapLiveText), which is said at once.
			note, rest, _ = strings.Cut(gotErr, "\n")
			require.Equal(t, "kwire: -: a text dump of packets (tshark -x or Wireshark's Copy as Hex Dump), read as a capture packet by packet as it comes", note)
			require.True(t, strings.HasPrefix(rest, "kwire: -: read as a capture: a text dump of "+n+" packets (tshark -x or Wireshark's Copy as Hex Dump)\n"), rest)

			// tshark -P's own times, since the first packet, start at
			// zero as deltas do: piped, the first packets wait until
			// eight have not gone down, and read as the file's.
			relative := tsharkText(name+".relative.txt", "-P", "-x")
			want, _, wantCode = runCLI(t, []string{"pcap", relative}, nil)
			b, err = os.ReadFile(relative)
			require.NoError(t, err)
			got, gotErr, gotCode = runCLI(t, []string{"pcap", "-"}, b)
			require.Equal(t, wantCode, gotCode, gotErr)
			require.Equal(t, want, got, "times since the first packet, piped")
			require.NotContains(t, gotErr, "before the one before it")

			want, wantErr, wantCode = runCLI(t, []string{"check", "--fail-on", "warning", name}, nil)
			got, gotErr, gotCode = runCLI(t, []string{"check", "--fail-on", "warning", text}, nil)
			require.Equal(t, wantCode, gotCode, gotErr)
			require.Equal(t, want, got, "the same findings")
			note, rest, _ = strings.Cut(gotErr, "\n")
			require.Equal(t, "kwire: "+text+": read as a capture: a text dump of "+n+" packets (tshark -x or Wireshark's Copy as Hex Dump)", note)
			require.Equal(t, wantErr, strings.ReplaceAll(rest, text, name))
		})
	}
}

// Packets' dumps one after another (two of kfake-clients.pcapng, as
// tshark -x printed each) are a capture to pcap and check, and decode and
// batch, which read frames, say what they are and where to take them;
// a single packet's dump over many lines is one for decode. What is text
// but no dump of packets is no capture.
func TestTextDumpCommands(t *testing.T) {
	dumps, err := filepath.Abs(packetDumps)
	require.NoError(t, err)
	var text []byte
	for _, f := range []string{"kfake-4.tshark-x", "kfake-6.tshark-x"} {
		b, err := os.ReadFile(filepath.Join(packetDumps, f))
		require.NoError(t, err)
		text = append(text, b...)
	}
	file := filepath.Join(t.TempDir(), "two.txt")
	require.NoError(t, os.WriteFile(file, text, 0o644))

	out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	xs := exchangeLines(t, out, false)
	require.Len(t, xs, 1)
	require.Equal(t, "ApiVersions", xs[0]["apiName"])
	require.Equal(t, true, xs[0]["paired"])
	require.Equal(t, 1.0, xs[0]["requestFrame"])
	require.Equal(t, 2.0, xs[0]["responseFrame"])
	require.Equal(t, "1970-01-01T00:00:00.001000000Z", xs[0]["requestTime"], "a millisecond a packet")
	require.Contains(t, errOut, "kwire: "+file+": read as a capture: a text dump of 2 packets")

	out, errOut, code = runCLI(t, []string{"check", "--fail-on", "none", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "frame.", "the packets' headers are not read as frames")
	require.Contains(t, errOut, "kwire: "+file+": read as a capture: a text dump of 2 packets (tshark -x or Wireshark's Copy as Hex Dump)\n")

	many := "a text dump of 2 packets (tshark -x or Wireshark's Copy as Hex Dump): "
	for _, c := range []struct {
		args  []string
		stdin []byte
		want  string
	}{
		{[]string{"decode", file}, nil, "kwire: " + file + ": " + many + "decode reads a frame, or one packet; kwire pcap " + file +
			" reads them as a capture (frames reassembled across packets, requests paired with their responses), and kwire check " + file + " applies the protocol rules to them\n"},
		{[]string{"decode"}, text, "kwire: " + many + "decode reads a frame, or one packet; kwire pcap - reads them as a capture"},
		{[]string{"decode", "--input", "hex", file}, nil, "kwire: " + file + ": " + many + "decode reads a frame"},
		{[]string{"batch", file}, nil, "kwire: " + file + ": " + many + "batch reads a frame a line; kwire pcap " + file + " reads them as a capture"},
		{[]string{"batch"}, text, "kwire: " + many + "batch reads a frame a line; kwire pcap - reads them"},
		{[]string{"batch", filepath.Join(dumps, "p8.tshark-x")}, nil, "p8.tshark-x: a text dump of 1 packet, over several lines: batch reads a frame a line, and kwire decode "},
	} {
		out, errOut, code := runCLI(t, c.args, c.stdin)
		require.Equal(t, 1, code, "%v: %s", c.args, errOut)
		require.Empty(t, out, c.args)
		require.Contains(t, errOut, c.want, c.args)
	}

	// tcpdump -X, its time of day kept, dated 1970-01-01.
	out, errOut, code = runCLI(t, []string{"pcap", filepath.Join(dumps, "p8.tcpdump-X")}, nil)
	require.Equal(t, 0, code, errOut)
	xs = exchangeLines(t, out, false)
	require.Len(t, xs, 1)
	require.Equal(t, "1970-01-01T15:49:24.315183000Z", xs[0]["requestTime"])
	require.Contains(t, errOut, "a text dump of 1 packet (tcpdump -X); its times are times of day, dated 1970-01-01\n")

	// Text that is no dump of packets.
	for _, cmd := range []string{"pcap", "check"} {
		_, errOut, code = runCLI(t, []string{cmd, "frame.xxd"}, nil)
		if cmd == "pcap" {
			require.Equal(t, 1, code)
			require.Contains(t, errOut, "kwire: frame.xxd: capture: not a pcap or pcapng file, nor a text dump of whole packets (tshark -x, tcpdump -X): kwire decode reads frames\n")
		} else {
			require.Equal(t, 0, code, "frames, as before: %s", errOut)
			require.NotContains(t, errOut, "capture")
		}
	}
	// A dump of packets with a mistake in it: where.
	bad := append(append([]byte{}, text...), "0000  00 01\n0002  0g\n"...)
	for _, cmd := range []string{"pcap", "check"} {
		_, errOut, code = runCLI(t, []string{cmd, "-"}, bad)
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "input: line "+strconv.Itoa(strings.Count(string(text), "\n")+2)+", column 8: unexpected character 'g' in Wireshark hex dump", cmd)
	}
}

// A dump whose times are each packet's time since the one before
// (tshark -t d, tcpdump -ttt) reads with the capture's latencies: the
// deltas are added up, and the note says so. Read as clocks, every
// latency was a few microseconds or zero. Two real captures, whose
// deltas go up and down as real traffic's do.
func TestTextDumpDeltas(t *testing.T) {
	tools := map[string][]string{
		"tshark":  {"-t", "d", "-P", "-x", "-r"},
		"tcpdump": {"--time-stamp-precision=nano", "-ttt", "-X", "-r"},
	}
	dir := t.TempDir()
	for _, name := range []string{"kfake-clients.pcapng", "kafkajs-clients.pcapng"} {
		want, _, wantCode := runCLI(t, []string{"pcap", name}, nil)
		wantX := exchangeLines(t, want, false)
		require.NotEmpty(t, wantX)
		for tool, args := range tools {
			t.Run(name+"/"+tool, func(t *testing.T) {
				cmd := exec.Command(needTool(t, tool), append(args, name)...)
				cmd.Dir = workDir
				cmd.Env = append(os.Environ(), "TZ=UTC")
				b, err := cmd.Output()
				require.NoError(t, err)
				text := filepath.Join(dir, name+"."+tool+".txt")
				require.NoError(t, os.WriteFile(text, b, 0o644))

				got, gotErr, gotCode := runCLI(t, []string{"pcap", text}, nil)
				require.Equal(t, wantCode, gotCode, gotErr)
				gotX := exchangeLines(t, got, false)
				require.Len(t, gotX, len(wantX))
				for i := range wantX {
					require.Equal(t, wantX[i]["latencyMs"], gotX[i]["latencyMs"], "exchange %d", i)
				}
				require.Equal(t, exchangeLines(t, want, true), exchangeLines(t, got, true))
				note, _, _ := strings.Cut(gotErr, "\n")
				require.Contains(t, note, "; its times are each packet's time since the one before (tcpdump -ttt, tshark -t d), added up from 1970-01-01")

				// Piped, its first packets are held until a time goes
				// down, and then read as the file is.
				piped, pipedErr, pipedCode := runCLI(t, []string{"pcap", "-"}, b)
				require.Equal(t, gotCode, pipedCode, pipedErr)
				require.Equal(t, got, piped, "the same lines, times and all")
				require.Contains(t, pipedErr, "; its times are each packet's time since the one before (tcpdump -ttt, tshark -t d), added up from 1970-01-01\n")
			})
		}
	}
}

// A text dump on standard input is read as it comes, so kwire pcap's
// memory follows a packet's text, not the text's: tcpdump -X of 1,000
// realistic exchanges (some 30 MB of text) gives the lines the capture
// gives, in a peak resident set of less than 64 MiB (read whole, it was
// some 100 MiB, growing with the text).
func TestTextDumpStreamMemory(t *testing.T) {
	tcpdump := needTool(t, "tcpdump")
	file := trafficPcap(t, traffic.PcapOptions{Pairs: 1000, Conns: 4})
	want, _, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code)
	text := filepath.Join(t.TempDir(), "traffic.txt")
	f, err := os.Create(text)
	require.NoError(t, err)
	cmd := exec.Command(tcpdump, "-r", file, "-n", "-X")
	cmd.Env = append(os.Environ(), "TZ=UTC")
	cmd.Stdout = f
	require.NoError(t, cmd.Run())
	require.NoError(t, f.Close())
	st, err := os.Stat(text)
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(25<<20))

	kw, usage := hostileCommand(t, context.Background(), "pcap", "-")
	in, err := os.Open(text)
	require.NoError(t, err)
	defer in.Close()
	var out, errb bytes.Buffer
	kw.Stdin, kw.Stdout, kw.Stderr = in, &out, &errb
	require.NoError(t, kw.Run(), errb.String())
	u := usage()
	t.Logf("kwire pcap - < %d MB of tcpdump -X: %v", st.Size()>>20, u)
	require.Equal(t, exchangeLines(t, want, true), exchangeLines(t, out.String(), true))
	require.Less(t, u.MaxRSS, int64(64<<20), "peak RSS %s for %d MB of text", hostile.MiB(u.MaxRSS), st.Size()>>20)
}

// kwire check of a capture and then of a text dump piped in keeps each
// file's lines together where stdout and stderr are one (a terminal): the
// capture's findings come before what is said of standard input.
func TestCheckTextDumpAfterAFile(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(packetDumps, "kfake-6.tshark-x"))
	require.NoError(t, err)
	cmd := exec.Command(kwireBin, "check", "--fail-on", "none", "kafka.pcap", "-")
	cmd.Dir = workDir
	cmd.Stdin = bytes.NewReader(text)
	var both bytes.Buffer
	cmd.Stdout, cmd.Stderr = &both, &both
	require.NoError(t, cmd.Run(), both.String())
	lines := strings.Split(both.String(), "\n")
	first := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "kwire: -: ") })
	last := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "kafka.pcap: ") {
			last = i
		}
	}
	require.Greater(t, last, 0, both.String())
	require.Greater(t, first, last, "standard input's note after kafka.pcap's findings:\n%s", both.String())
}
