package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
