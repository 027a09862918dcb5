package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/capture"
)

// TestKeyLogWaitsOnceUntilItChanges: a live capture (standard input) asks
// the key log again for each session it lacks, waiting a moment for the
// client to write it. Sessions a key log never holds (a capture file
// piped in) each waited a quarter of a second, one after another: 100
// took 25 s. After a wait runs out, none waits until the file changes;
// a change is read at once, and waiting resumes.
func TestKeyLogWaitsOnceUntilItChanges(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys.log")
	line := "CLIENT_RANDOM " + hex32('a') + " " + hex32('b') + hex32('b')[:32] + "\n" // a 48-byte master secret
	require.NoError(t, os.WriteFile(file, []byte(line), 0o644))
	k := keyLogFlag{file: file}
	require.True(t, k.load(nil, true))
	require.NotNil(t, k.log)
	var o capture.Options
	k.options(&o, true)
	for range 5 {
		require.Nil(t, o.KeyLogUpdate())
	}
	require.Equal(t, 1, k.waits, "one wait, not one a session")

	// The client writes: read at once, and the next lack waits again.
	require.NoError(t, os.WriteFile(file, []byte(line+"CLIENT_RANDOM "+hex32('c')+" "+hex32('d')+hex32('d')[:32]+"\n"), 0o644))
	require.NotNil(t, o.KeyLogUpdate())
	require.Nil(t, o.KeyLogUpdate())
	require.Equal(t, 2, k.waits)
}

// hex32 is 32 bytes as hex, each c's low digit twice: a client random.
func hex32(c byte) string {
	b := make([]byte, 32)
	for i := range b {
		b[i] = "0123456789abcdef"[c%16]
	}
	return string(b) + string(b)
}

// TestKeyLogNeverThere: a capture on standard input waits for its key log
// to appear, so a mistyped name was no error, and nothing said it never
// appeared: every connection was "not in the key log". "-" is no key log
// (standard input carries the capture): it failed as "open -".
func TestKeyLogNeverThere(t *testing.T) {
	capture, err := os.ReadFile(filepath.Join(tlsSample, "tls13.pcapng"))
	require.NoError(t, err)
	missing := filepath.Join(t.TempDir(), "typo.keys")
	for _, cmd := range []string{"pcap", "check"} {
		_, errOut, _ := runCLI(t, []string{cmd, "--tls-keylog", missing, "-"}, capture)
		require.Contains(t, errOut, "--tls-keylog "+missing+" never appeared: 5 TLS connections left encrypted", cmd)
	}
	_, errOut, code := runCLI(t, []string{"pcap", "--tls-keylog", "-", filepath.Join(tlsSample, "tls13.pcapng")}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "kwire: --tls-keylog -: a key log is a file the client writes (standard input is for the capture)\n", errOut)
}

// TestStrictFailsOnTLSLeftEncrypted: kwire pcap --strict exits 1 when
// connections stay encrypted (no key log, or one without their
// secrets): their exchanges are not in the output, and it exited 0.
func TestStrictFailsOnTLSLeftEncrypted(t *testing.T) {
	file, err := filepath.Abs(filepath.Join(tlsSample, "tls13.pcapng"))
	require.NoError(t, err)
	keys, err := filepath.Abs(filepath.Join(tlsSample, "keys.log"))
	require.NoError(t, err)
	_, errOut, code := runCLI(t, []string{"pcap", "--strict", file}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "5 TLS connections left encrypted, not decoded (--strict)")
	_, errOut, code = runCLI(t, []string{"pcap", "--strict", "--tls-keylog", keys, file}, nil)
	require.Equal(t, 0, code, errOut)
}
