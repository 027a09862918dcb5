package main

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlagValueErrors: a bad value for a switch or a port is said with
// two dashes, as the usage names flags, and with what is valid: Go's flag
// package said "invalid boolean value "maybe" for -no-size: parse error",
// and a port "invalid value "0" for --port: bad port "0"", the value
// twice and the range never.
func TestFlagValueErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"encode", "--no-size=maybe"}, `kwire: encode: --no-size is on by itself, or --no-size=true or =false, not "maybe"; kwire encode --help lists its flags` + "\n"},
		{[]string{"decode", "--strict=yes", apiVersionsV3}, `kwire: decode: --strict is on by itself, or --strict=true or =false, not "yes"; kwire decode --help lists its flags` + "\n"},
		{[]string{"pcap", "--port", "0", "kfake-clients.pcapng"}, `kwire: pcap: invalid value "0" for --port: a port is a number from 1 to 65535; kwire pcap --help lists its flags` + "\n"},
		{[]string{"check", "--port", "9092,70000", "kfake-clients.pcapng"}, `kwire: check: invalid value "9092,70000" for --port: "70000" is no port: a port is a number from 1 to 65535; kwire check --help lists its flags` + "\n"},
	} {
		out, errOut, code := runCLI(t, c.args, nil)
		require.Equal(t, 2, code, c.args)
		require.Empty(t, out, c.args)
		require.Equal(t, c.msg, errOut, c.args)
	}
}

// TestHelpNamesEachFlagsValue: no command's --help shows a flag's value
// as Go's placeholder "value" ("-port value"), which says nothing of what
// to give; each names it (PORT, PORTS, N, FILE).
func TestHelpNamesEachFlagsValue(t *testing.T) {
	placeholder := regexp.MustCompile(`(?m)^  -[a-z-]+ value$`)
	for _, c := range commands {
		out, _, code := runCLI(t, []string{c.name, "--help"}, nil)
		require.Equal(t, 0, code, c.name)
		require.Empty(t, placeholder.FindAllString(out, -1), "kwire %s --help", c.name)
	}
}
