package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTerminalInputIsSaid: a command that reads standard input when it is
// a terminal says so, and what to type and how to end it, rather than
// waiting in silence (kwire decode with no argument looked hung); from a
// pipe or a file it says nothing of the kind.
func TestTerminalInputIsSaid(t *testing.T) {
	for _, name := range []string{"decode", "encode", "batch", "check"} {
		shown := onATerminal(t, "kwire "+name+"; true") // script(1) ends the input at once
		require.Contains(t, shown, "kwire: "+name+" reads standard input, this terminal: ", name)
		require.Contains(t, shown, "then Ctrl-D on a line of its own", name)
		_, errOut, _ := runCLI(t, []string{name}, []byte(apiVersionsV3+"\n"))
		require.False(t, strings.Contains(errOut, "this terminal"), "%s from a pipe: %s", name, errOut)
	}
	// Given a file, standard input is not read: nothing said.
	require.NotContains(t, onATerminal(t, "kwire decode frame.bin >/dev/null; true"), "this terminal")
}
