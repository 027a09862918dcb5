package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnreadInputsDoNotStopTheOthers: among several inputs, a file that
// is missing or a directory is said by name, and every other input is
// decoded (or encoded) all the same; a last line counts those not read
// and the exit status is 1. One mistyped name used to stop them all,
// with nothing on standard output.
func TestUnreadInputsDoNotStopTheOthers(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.bin")
	sub := filepath.Join(dir, "folder")
	require.NoError(t, os.Mkdir(sub, 0o755))
	value, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3}, nil)
	require.Equal(t, 0, code, errOut)
	jsonFile := filepath.Join(dir, "value.ndjson")
	require.NoError(t, os.WriteFile(jsonFile, []byte(value), 0o644))

	for _, c := range []struct {
		args []string
		want string // what each input read writes
	}{
		{[]string{"decode", "--format", "ndjson", apiVersionsV3, missing, sub, "frame.bin"}, `"apiName":"ApiVersions"`},
		{[]string{"encode", jsonFile, missing, sub, jsonFile}, apiVersionsV3[:16]},
	} {
		out, errOut, code := runCLI(t, c.args, nil)
		require.Equal(t, 1, code, "%v: %s", c.args, errOut)
		require.Equal(t, 2, strings.Count(out, c.want), "%v: every input that can be read is\n%s", c.args, out)
		require.Equal(t, "kwire: "+missing+": no such file or directory\n"+
			"kwire: "+sub+": is a directory\n"+
			"kwire: 2 of 4 inputs not read (said above)\n", errOut, c.args)
	}
	// Alone, an input that cannot be read is its one line.
	_, errOut, code = runCLI(t, []string{"decode", missing}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, "kwire: "+missing+": no such file or directory\n", errOut)
}

// TestFileErrorsNameTheFileOnce: every command that cannot open or read
// a file it was given says the file's name once, then the system's
// reason: "check: x.pcap: open x.pcap: no such file or directory" said it
// twice, as log, --tls-keylog and --schemas did.
func TestFileErrorsNameTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing-file")
	capture := "kfake-clients.pcapng"
	for _, args := range [][]string{
		{"decode", missing},
		{"decode", apiVersionsV3, missing},
		{"encode", missing},
		{"batch", missing},
		{"pcap", missing},
		{"check", missing},
		{"check", capture, missing},
		{"log", missing},
		{"pcap", "--tls-keylog", missing, capture},
		{"check", "--tls-keylog", missing, capture},
		{"decode", "--schemas", missing, apiVersionsV3},
		{"pcap", "--schemas", missing, capture},
	} {
		_, errOut, code := runCLI(t, args, nil)
		require.NotEqual(t, 0, code, args)
		var said bool
		for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
			if !strings.Contains(line, missing) {
				continue
			}
			said = true
			require.Equal(t, 1, strings.Count(line, missing), "%v: the name said once:\n%s", args, line)
			require.True(t, strings.HasSuffix(line, missing+": no such file or directory"), "%v: the name, then the reason:\n%s", args, line)
		}
		require.True(t, said, "%v: the file is named:\n%s", args, errOut)
	}
}

// TestOneFileCommandsSayHowToGiveSeveral: kwire batch and kwire pcap,
// which read one input, given several say so with a way to run them all
// ("batch reads one file or standard input" said nothing of one).
func TestOneFileCommandsSayHowToGiveSeveral(t *testing.T) {
	_, errOut, code := runCLI(t, []string{"batch", "frames.hex", "frames.hex"}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "kwire: batch reads one file or standard input, not 2 files: cat them into it (cat frames.hex frames.hex | kwire batch), its lines then numbered across them\n", errOut)
	_, errOut, code = runCLI(t, []string{"pcap", "kafka.pcap", "kfake-clients.pcapng"}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "kwire: pcap reads one capture file, not 2: run it once for each, or join them first (mergecap -w all.pcapng kafka.pcap kfake-clients.pcapng, from Wireshark)\n", errOut)
}

// TestSuggestedCommandsQuoteFileNames: the command batch and pcap suggest
// for several files runs as shown when a name holds a space or a quote:
// the shell reads each name back whole.
func TestSuggestedCommandsQuoteFileNames(t *testing.T) {
	names := []string{"my frames.hex", "it's.hex", "plain-1.hex", "$HOME", ""}
	out, err := exec.Command("sh", "-c", "printf '%s\\n' "+shellWords(names)).Output()
	require.NoError(t, err)
	require.Equal(t, strings.Join(names, "\n")+"\n", string(out))
	_, errOut, code := runCLI(t, []string{"batch", "my frames.hex", "b.hex"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "(cat 'my frames.hex' b.hex | kwire batch)")
}
