package main

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/bench/traffic"
)

// TestBatchFollowsSlowInput: lines piped to kwire batch - one at a time,
// a while apart (a producer logging frames as it sends them), were
// decoded only at the end of the input, all at once; each line's output
// now comes while the pipe waits for the next.
func TestBatchFollowsSlowInput(t *testing.T) {
	const req = "0000001b001200030000000700056b7769726500066b7769726504312e3000"
	cmd := exec.Command(kwireBin, "batch", "-")
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()

	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for i := range 3 {
		_, err := io.WriteString(stdin, req+"\n")
		require.NoError(t, err)
		select {
		case l := <-lines:
			require.Contains(t, l, `"apiName":"ApiVersions"`, "line %d", i+1)
		case <-time.After(20 * time.Second):
			t.Fatalf("no output for line %d while the input waits: it waits for the end of the input", i+1)
		}
	}
	require.NoError(t, stdin.Close())
	_, more := <-lines
	require.False(t, more, "a line for each line")
	require.NoError(t, cmd.Wait())
	require.Equal(t, "kwire: 3 lines decoded\n", errOut.String())
}

// TestBatchSlowInputSameOutput: input that comes in pieces of any size,
// lines cut anywhere, with pauses that let the workers catch up (so whole
// lines go early, while a read is under way into the same buffer) is
// decoded as the same input read from a file is: the same lines, in
// order, errors numbered by their line in the input, blank lines
// counted.
func TestBatchSlowInputSameOutput(t *testing.T) {
	var good bytes.Buffer
	_, err := traffic.WriteNDJSON(&good, 400)
	require.NoError(t, err)
	var input strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(good.String(), "\n"), "\n") {
		if i%37 == 0 {
			input.WriteString("\n  \n")
		}
		input.WriteString(l + "\n")
		if i%41 == 0 {
			input.WriteString("zz not a frame\n")
		}
	}
	text := []byte(input.String())
	batch := func(in io.Reader) (string, string, int) {
		var out, errOut bytes.Buffer
		e := &env{stdin: in, stdout: &out, stderr: &errOut}
		code := run(e, []string{"batch", "--progress", "never", "--jobs", "2", "-"})
		return out.String(), errOut.String(), code
	}
	want, wantErr, wantCode := batch(bytes.NewReader(text))
	require.Equal(t, 1, wantCode, wantErr)
	require.Equal(t, 400+10, strings.Count(want, "\n"))

	for seed := range uint64(3) {
		rnd := rand.New(rand.NewPCG(seed, 7))
		r, w := io.Pipe()
		go func() {
			for rest := text; len(rest) > 0; {
				n := min(len(rest), 1+rnd.IntN(6000))
				w.Write(rest[:n])
				rest = rest[n:]
				if rnd.IntN(4) == 0 {
					time.Sleep(time.Duration(rnd.IntN(3000)) * time.Microsecond)
				}
			}
			w.Close()
		}()
		got, gotErr, code := batch(r)
		require.Equal(t, wantCode, code, gotErr)
		require.Equal(t, wantErr, gotErr)
		require.Equal(t, want, got, "seed %d", seed)
	}
}

// TestBatchSlowPacketDump: a text dump of packets that pauses between
// its packets is still said to be one, its packets counted in all of it,
// though its first lines go after the first pause.
func TestBatchSlowPacketDump(t *testing.T) {
	var packets [][]byte
	for _, f := range []string{"kfake-4.tshark-x", "kfake-6.tshark-x"} {
		b, err := os.ReadFile(filepath.Join(packetDumps, f))
		require.NoError(t, err)
		packets = append(packets, b)
	}
	r, w := io.Pipe()
	go func() {
		for _, p := range packets {
			w.Write(p)
			time.Sleep(100 * time.Millisecond)
		}
		w.Close()
	}()
	var out, errOut bytes.Buffer
	code := run(&env{stdin: r, stdout: &out, stderr: &errOut}, []string{"batch", "--progress", "never", "-"})
	require.Equal(t, 1, code)
	require.Empty(t, out.String())
	require.Contains(t, errOut.String(), "kwire: a text dump of 2 packets (tshark -x or Wireshark's Copy as Hex Dump): batch reads a frame a line; kwire pcap - reads them")
}
