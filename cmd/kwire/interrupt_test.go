package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/stretchr/testify/require"
)

// bigCapture is a capture of realistic traffic, several megabytes.
func bigCapture(t *testing.T, pairs int) []byte {
	var b bytes.Buffer
	_, err := traffic.WritePcap(&b, traffic.PcapOptions{Pairs: pairs, Conns: 4})
	require.NoError(t, err)
	return b.Bytes()
}

// startKwire starts kwire with args in workDir, NO_COLOR set: standard
// output is a pipe, standard error gathered in errb, and standard input a
// pipe when withStdin is set (nil otherwise; the caller closes it).
// Bounded: the process is killed after a minute, unless the test ended
// first.
func startKwire(t *testing.T, withStdin bool, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, stdout io.ReadCloser, errb *lockedBuffer) {
	t.Helper()
	cmd = exec.Command(kwireBin, args...)
	cmd.Dir = workDir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var err error
	if withStdin {
		stdin, err = cmd.StdinPipe()
		require.NoError(t, err)
	}
	stdout, err = cmd.StdoutPipe()
	require.NoError(t, err)
	errb = &lockedBuffer{}
	cmd.Stderr = errb
	require.NoError(t, cmd.Start())
	kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	t.Cleanup(func() { kill.Stop() })
	return cmd, stdin, stdout, errb
}

// interrupted runs kwire with args on a capture fed through a pipe on
// standard input, a piece at a time and never closed, and sends sig once
// the first line of standard output arrived (unless waitForStdout, once
// the first half of the input was written): it returns what the
// command wrote and its exit status. Bounded: the command is killed after
// a minute.
func interrupted(t *testing.T, args []string, capture []byte, sig syscall.Signal, waitForStdout bool) (string, string, int) {
	t.Helper()
	cmd, stdin, stdout, errb := startKwire(t, true, args...)
	defer stdin.Close() // only once the command ended: the pipe stays open

	half := make(chan struct{})
	var once sync.Once
	go func() {
		// The first half in pieces, then the rest slowly: the command
		// is still reading when the signal comes, waiting on the pipe.
		const piece = 32 << 10
		for off := 0; off < len(capture); off += piece {
			if off >= len(capture)/2 {
				once.Do(func() { close(half) })
				time.Sleep(50 * time.Millisecond)
			}
			if _, err := stdin.Write(capture[off:min(off+piece, len(capture))]); err != nil {
				return
			}
		}
	}()
	// Standard output is read as it comes, or the command would wait
	// to write it and read no more.
	var out lockedBuffer
	first, copied := make(chan struct{}), make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(stdout, 1<<20)
		line, err := br.ReadBytes('\n')
		out.Write(line)
		close(first)
		if err == nil {
			_, err = io.Copy(&out, br)
		}
		copied <- err
	}()
	if waitForStdout {
		select {
		case <-first:
		case <-time.After(30 * time.Second):
			t.Fatalf("no line before the signal; stderr: %s", errb.String())
		}
	} else {
		select {
		case <-half:
		case <-time.After(30 * time.Second):
			t.Fatal("the input's first half was not read")
		}
	}
	time.Sleep(100 * time.Millisecond) // more lines under way
	require.NoError(t, cmd.Process.Signal(sig))
	if err := <-copied; err != io.EOF {
		require.NoError(t, err)
	}
	err := cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		require.True(t, ee.Exited(), "ended by the signal, not by kwire: %v; stderr: %s", err, errb.String())
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}

// requireWholeLines checks that every line of out is a JSON value and
// that out ends at a line's end.
func requireWholeLines(t *testing.T, out string) int {
	t.Helper()
	require.NotEmpty(t, out)
	require.True(t, strings.HasSuffix(out, "\n"), "the output ends inside a line: %q", out[max(0, len(out)-200):])
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, l := range lines {
		require.True(t, json.Valid([]byte(l)), "line %d of %d is no JSON: %.200q", i+1, len(lines), l)
	}
	return len(lines)
}

// Ctrl-C during kwire pcap on a long capture stops the reading: the
// lines written are whole JSON, the last included, stderr says it was
// interrupted and how far it read, and the exit status is 130 (143 for
// SIGTERM); with --summary, the summary of what was read is printed.
// Killed by the signal, as before, its last line was cut in the middle.
func TestPcapInterrupted(t *testing.T) {
	capture := bigCapture(t, 6000)
	out, errOut, code := interrupted(t, []string{"pcap", "-"}, capture, syscall.SIGINT, true)
	require.Equal(t, 130, code, errOut)
	n := requireWholeLines(t, out)
	require.Less(t, n, 6000, "the whole capture was read before the signal")
	require.Regexp(t, `-: interrupted \(SIGINT\): read up to packet [0-9]+, [0-9]+ exchanges so far; the rest of the capture was not read`, errOut)

	out, errOut, code = interrupted(t, []string{"pcap", "--summary", "-"}, capture, syscall.SIGTERM, false)
	require.Equal(t, 143, code, errOut)
	require.Regexp(t, `^[0-9]+ packets, [0-9]+ connections, [0-9]+ exchanges`, out)
	require.Contains(t, out, "Fetch")
	require.Contains(t, errOut, "interrupted (SIGTERM)")
}

// Ctrl-C while kwire pcap and kwire check wait on a pipe that has sent
// nothing yet (a tcpdump that has seen no packet), or no whole packet of
// a text dump, stops them as at the input's end: exit status 130, saying
// so. kwire pcap, reading the capture's first bytes to tell a pcap from
// a text dump, waited on, the signal caught and never acted on, until a
// second Ctrl-C killed it.
func TestInterruptedBeforeAnyByte(t *testing.T) {
	const textLine = "12:00:00.000000 IP 127.0.0.1.50000 > 127.0.0.1.9092: Flags [P.], length 31\n"
	for _, tc := range []struct {
		args  []string
		first string // written before the pipe goes quiet
	}{
		{[]string{"pcap", "-"}, ""},
		{[]string{"pcap", "--summary", "-"}, ""},
		{[]string{"check", "-"}, ""},
		{[]string{"pcap", "-"}, textLine},
		{[]string{"check", "-"}, textLine},
	} {
		name := "kwire " + strings.Join(tc.args, " ")
		// A signal that comes before kwire catches it ends the process
		// as it ends any: the wait grows until kwire was ready for it.
		var ee *exec.ExitError
		var errOut string
		for _, wait := range []time.Duration{300 * time.Millisecond, time.Second, 3 * time.Second} {
			cmd, stdin, stdout, errb := startKwire(t, true, tc.args...)
			_, err := io.WriteString(stdin, tc.first)
			require.NoError(t, err)
			time.Sleep(wait) // waiting on the quiet pipe
			require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
			done := make(chan error, 1)
			go func() {
				io.Copy(io.Discard, stdout)
				done <- cmd.Wait()
			}()
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("%s still waiting 10 s after SIGINT; stderr: %s", name, errb.String())
			}
			stdin.Close()
			var ok bool
			ee, ok = err.(*exec.ExitError)
			require.True(t, ok, "%s: exit status 0 after the signal: %v", name, err)
			errOut = errb.String()
			if ee.Exited() {
				break
			}
		}
		require.True(t, ee.Exited(), "%s: ended by the signal, not by kwire: %v; stderr: %s", name, ee, errOut)
		require.Equal(t, 130, ee.ExitCode(), "%s: %s", name, errOut)
		require.Contains(t, errOut, "interrupted (SIGINT)", name)
	}
}

// Ctrl-C during kwire check prints the findings so far, in the order
// they come, and says where the judging stopped; exit status 130.
func TestCheckInterrupted(t *testing.T) {
	capture := bigCapture(t, 6000)
	out, errOut, code := interrupted(t, []string{"check", "--format", "ndjson", "--fail-on", "none", "-"}, capture, syscall.SIGINT, false)
	require.Equal(t, 130, code, errOut)
	if out != "" {
		requireWholeLines(t, out)
	}
	require.Regexp(t, `-: interrupted \(SIGINT\): not judged past packet [0-9]+`, errOut)
	require.Contains(t, errOut, "check: ")
}

// Ctrl-C during kwire batch on a pipe: the lines decoded are whole; exit
// status 130.
func TestBatchInterrupted(t *testing.T) {
	hexLines, err := os.ReadFile(filepath.Join("testdata", "frames.hex"))
	require.NoError(t, err)
	in := bytes.Repeat(hexLines, (8<<20)/len(hexLines))
	out, errOut, code := interrupted(t, []string{"batch", "-"}, in, syscall.SIGINT, true)
	require.Equal(t, 130, code, errOut)
	requireWholeLines(t, out)
	require.Contains(t, errOut, "interrupted (SIGINT)")
}

// Ctrl-C during kwire decode of many frames finishes the frame under
// way and no more: standard output ends at a whole line, one per frame
// decoded, standard error says how many were decoded and which were not,
// and the exit status is 130 (143 for SIGTERM). Killed by the signal, as
// before, its output stopped anywhere, in the middle of a frame's JSON.
func TestDecodeInterrupted(t *testing.T) {
	frame, err := hex.DecodeString("0000001b001200030000000700056b7769726500066b7769726504312e3000")
	require.NoError(t, err)
	const n = 100000
	path := filepath.Join(t.TempDir(), "many.bin")
	require.NoError(t, os.WriteFile(path, bytes.Repeat(frame, n), 0o644))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		cmd, _, stdout, errb := startKwire(t, false, "decode", "--format", "ndjson", path)
		// Standard output is left unread past its first bytes until the
		// signal came: kwire waits on the full pipe with most frames not
		// decoded, however fast it decodes.
		first := make([]byte, 4096)
		_, err = io.ReadFull(stdout, first)
		require.NoError(t, err)
		require.NoError(t, cmd.Process.Signal(sig))
		time.Sleep(200 * time.Millisecond)
		rest, err := io.ReadAll(stdout)
		require.NoError(t, err)
		err = cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "exit status 0 after the signal: %v; stderr: %s", err, errb.String())
		require.True(t, ee.Exited(), "ended by the signal, not by kwire: %v; stderr: %s", err, errb.String())
		require.Equal(t, 128+int(sig), ee.ExitCode(), errb.String())
		lines := requireWholeLines(t, string(first)+string(rest))
		require.Less(t, lines, n, "every frame was decoded")
		name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
		require.Equal(t, fmt.Sprintf("kwire: interrupted (%s): %d of %d frames decoded, 0 of them failed; frames %d to %d not decoded\n", name, lines, n, lines+1, n), errb.String())
	}
}

// Ctrl-C while kwire decode reads standard input (a pipe, never closed)
// stops the reading: nothing is decoded, standard error says so, and the
// exit status is 130.
func TestDecodeInterruptedReading(t *testing.T) {
	frame, err := hex.DecodeString("0000001b001200030000000700056b7769726500066b7769726504312e3000")
	require.NoError(t, err)
	out, errOut, code := interrupted(t, []string{"decode", "--format", "ndjson"}, bytes.Repeat(frame, 100000), syscall.SIGINT, false)
	require.Equal(t, 130, code, errOut)
	require.Empty(t, out)
	require.Equal(t, "kwire: interrupted (SIGINT) while reading the input: nothing decoded\n", errOut)
}

// Ctrl-C during kwire check leaves unjudged what the capture's end would
// judge: a request still waiting for its answer when the reading stopped,
// after a later request of its connection was answered, may be answered
// after the cut, so it is not said never answered (a conn.order error,
// before); its line says it was not judged, and so does the summary. A
// transaction is likewise not judged where the cut left its producer
// connected, and judged where its connections closed before the cut.
func TestCheckInterruptedEndNotJudged(t *testing.T) {
	a := exampleFrame(t, "Metadata", 9, false, 1)
	b := exampleFrame(t, "Metadata", 9, false, 2)
	bAnswer := exampleFrame(t, "Metadata", 9, true, 2)
	file := connPcap(t, true, nil, segment{true, 0, a}, segment{true, time.Millisecond, b}, segment{false, 2 * time.Millisecond, bAnswer})
	capture, err := os.ReadFile(file)
	require.NoError(t, err)
	// The capture whole, through a pipe left open; the signal once the
	// answered exchange's first line came.
	out, errOut, code := interrupted(t, []string{"check", "-"}, capture, syscall.SIGINT, true)
	require.Equal(t, 130, code, errOut)
	require.NotContains(t, out, "never answered")
	require.Regexp(t, `(?m)^conn\.order skipped conn 1 correlation 1 request \(packet 4\): a request in flight when the reading was interrupted, after later requests were answered, is not judged for its answer \(it may have come after the cut\)$`, out)
	require.Contains(t, errOut, "; interrupted (SIGINT): what the cut left unfinished not judged (requests still waiting, transactions on connections still open)\n")

	// Read to its end, the same capture says it.
	out, errOut, code = runCLI(t, []string{"check", file}, nil)
	require.Equal(t, 1, code, errOut)
	require.Regexp(t, `(?m)^conn\.order error conn 1 correlation 1 request \(packet 4\): the request was never answered, though later requests were`, out)

	// A transaction its producer left open by closing its connection
	// (a conv.txn-end warning at the capture's end), the connection
	// closed before the signal: it ended whole before the cut, so it is
	// judged as the capture read to its end judges it. It was said not
	// judged, as the cut's.
	txnFile, err := filepath.Abs(filepath.Join(checkCaptures, "conv.txn-end.bad.pcapng"))
	require.NoError(t, err)
	txnEnd, err := os.ReadFile(txnFile)
	require.NoError(t, err)
	const warned = "conv.txn-end warning conn 2 correlation 3 request (packet 16) at byte 66 (body.topicData[0].partitionData[0].records[0]): producer id 3560889763892045510 closed its connections with a transaction open, expected EndTxn, found no EndTxn\n"
	out, errOut, code = runCLI(t, []string{"check", txnFile}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, warned, "read to its end")
	out, errOut, code = interrupted(t, []string{"check", "-"}, txnEnd, syscall.SIGINT, true)
	require.Equal(t, 130, code, errOut)
	require.Contains(t, out, warned)
	require.NotContains(t, out, "conv.txn-end skipped")
	require.Contains(t, errOut, "interrupted (SIGINT): what the cut left unfinished not judged")

	// The same capture cut before the producer's connection closed (the
	// first FIN after its requests): the transaction is open there with
	// its producer connected, which the cut left unfinished: not judged.
	cut := pcapngBeforeFIN(t, txnEnd)
	out, errOut, code = interrupted(t, []string{"check", "-"}, cut, syscall.SIGINT, true)
	require.Equal(t, 130, code, errOut)
	require.NotContains(t, out, "conv.txn-end warning")
	require.Regexp(t, `(?m)^conv\.txn-end skipped conn 2 correlation 3 request \(packet 16\) at byte 66 \(body\.topicData\[0\]\.partitionData\[0\]\.records\[0\]\): not judged at the capture's end: the reading was interrupted, and what it was cut in \(a transaction still open when the capture ended, its producer connected, is not judged: producer id \d+\) is not where the capture ends$`, out)
	require.Contains(t, errOut, "interrupted (SIGINT): what the cut left unfinished not judged")
}

// pcapngBeforeFIN is the pcapng capture b (little-endian, Ethernet,
// IPv4) up to the first packet with TCP's FIN flag that comes after a
// packet carrying data: a capture cut before that connection closed.
func pcapngBeforeFIN(t *testing.T, b []byte) []byte {
	t.Helper()
	le := binary.LittleEndian
	data := false
	for off := 0; off+12 <= len(b); {
		typ, n := le.Uint32(b[off:]), int(le.Uint32(b[off+4:]))
		require.True(t, n >= 12 && off+n <= len(b), "block at %d", off)
		if typ == 6 { // enhanced packet block
			pkt := b[off+28 : off+28+int(le.Uint32(b[off+20:]))]
			require.Equal(t, []byte{8, 0}, pkt[12:14], "IPv4 over Ethernet")
			ip := pkt[14:]
			tcp := ip[int(ip[0]&0xf)*4:]
			payload := int(binary.BigEndian.Uint16(ip[2:])) - int(ip[0]&0xf)*4 - int(tcp[12]>>4)*4
			if tcp[13]&0x01 != 0 && data {
				return b[:off]
			}
			data = data || payload > 0
		}
		off += n
	}
	t.Fatal("no FIN after data")
	return nil
}
