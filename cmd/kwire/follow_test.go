package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// exchangesByConn groups kwire pcap's exchanges by their connection's
// addresses, without what a followed stream cannot give the same: frame
// numbers, the connection's number, whether it was closed (a follow shows
// no FIN) and, with times false, the times.
func exchangesByConn(t *testing.T, out string, times bool) map[string][]map[string]any {
	t.Helper()
	by := map[string][]map[string]any{}
	for _, x := range exchangeLines(t, out, !times) {
		conn, _ := x["conn"].(string)
		_, addrs, _ := strings.Cut(strings.TrimPrefix(conn, "conn "), " ")
		for _, k := range []string{"conn", "connId", "requestFrame", "responseFrame", "connClosed"} {
			delete(x, k)
		}
		by[addrs] = append(by[addrs], x)
	}
	return by
}

// A followed TCP stream (tshark -z follow,tcp,hex or yaml, what
// Wireshark's Follow → TCP Stream shows) reads as the capture it was
// followed in: the same exchanges on the same connections, decoded alike;
// YAML's times are the capture's (to the microsecond: tshark prints them
// as a double). Before, kwire pcap said it was no capture and kwire decode
// failed at its heading. Each real client capture, every stream of it
// followed in one text, as a file and on standard input.
func TestFollowedStreamAsCapture(t *testing.T) {
	tshark := needTool(t, "tshark")
	dir := t.TempDir()
	for _, name := range []string{"kafkajs-clients.pcapng", "kfake-clients.pcapng"} {
		t.Run(name, func(t *testing.T) {
			capture := name // in workDir, where kwire runs
			cmd := exec.Command(tshark, "-r", capture, "-T", "fields", "-e", "tcp.stream")
			cmd.Dir = workDir
			b, err := cmd.Output()
			require.NoError(t, err)
			streams := 0
			for _, l := range strings.Fields(string(b)) {
				n, err := strconv.Atoi(l)
				require.NoError(t, err)
				streams = max(streams, n+1)
			}
			require.Greater(t, streams, 1)
			follow := func(form string) string {
				args := []string{"-r", capture, "-q"}
				for i := range streams {
					args = append(args, "-z", "follow,tcp,"+form+","+strconv.Itoa(i))
				}
				cmd := exec.Command(tshark, args...)
				cmd.Dir = workDir
				b, err := cmd.Output()
				require.NoError(t, err)
				p := filepath.Join(dir, name+"."+form+".txt")
				require.NoError(t, os.WriteFile(p, b, 0o644))
				return p
			}
			want, wantErr, code := runCLI(t, []string{"pcap", capture}, nil)
			require.Equal(t, 0, code, wantErr)
			wantX := exchangesByConn(t, want, false)
			require.Greater(t, len(wantX), 1)

			hex := follow("hex")
			got, gotErr, code := runCLI(t, []string{"pcap", hex}, nil)
			require.Equal(t, 0, code, gotErr)
			require.Equal(t, wantX, exchangesByConn(t, got, false))
			require.Equal(t, "kwire: "+hex+": read as a capture: a followed TCP stream (tshark -z follow, Wireshark's Follow TCP Stream), made "+
				strconv.Itoa(followPackets(t, hex))+
				" packets; it gives no times, so each packet is given one a millisecond after the last: times and latencies mean nothing\n", gotErr)

			text := mustRead(t, hex)
			piped, pipedErr, code := runCLI(t, []string{"pcap", "-"}, text)
			require.Equal(t, 0, code, pipedErr)
			require.Equal(t, got, piped, "standard input reads as the file")

			yaml := follow("yaml")
			got, gotErr, code = runCLI(t, []string{"pcap", yaml}, nil)
			require.Equal(t, 0, code, gotErr)
			require.Equal(t, wantX, exchangesByConn(t, got, false))
			wantT, gotT := exchangesByConn(t, want, true), exchangesByConn(t, got, true)
			for conn, xs := range wantT {
				for i, x := range xs {
					for _, k := range []string{"requestTime", "responseTime"} {
						ws, _ := x[k].(string)
						gs, _ := gotT[conn][i][k].(string)
						if ws == "" || gs == "" {
							require.Equal(t, ws, gs, "%s %d %s", conn, i, k) // one side missing
							continue
						}
						w, err := time.Parse(time.RFC3339Nano, ws)
						require.NoError(t, err)
						g, err := time.Parse(time.RFC3339Nano, gs)
						require.NoError(t, err)
						require.InDelta(t, 0, g.Sub(w).Seconds(), 1e-6, "%s %d %s", conn, i, k)
					}
				}
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// followPackets counts the packets a follow's hex dump makes: a
// handshake's three for each stream, and a segment for each run of lines
// from one node (none here passes 32 KiB).
func followPackets(t *testing.T, p string) int {
	n, last := 0, ""
	for _, l := range strings.Split(string(mustRead(t, p)), "\n") {
		if strings.HasPrefix(l, "Follow:") {
			n, last = n+3, ""
		}
		body := strings.TrimLeft(l, " \t")
		if len(body) < 12 || body[8:10] != "  " || strings.Contains(body[:8], ":") {
			continue
		}
		side := "0"
		if len(body) < len(l) {
			side = "1"
		}
		if side != last {
			n++
		}
		last = side
	}
	return n
}
