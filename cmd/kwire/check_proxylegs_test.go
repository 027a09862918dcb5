package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckProxyLegs: a capture of a transactional producer through
// kwire proxy holds both legs (client to proxy on 29192, proxy to broker
// on 29092), each EndTxn twice. conv.txn-end warned three times "EndTxn
// for producer id ... ends a transaction that holds nothing" (the second
// leg's EndTxn found the transaction the first had ended); each port
// alone was clean. No rule is broken now, the EndTxns being there.
func TestCheckProxyLegs(t *testing.T) {
	file, err := filepath.Abs(filepath.Join("..", "..", "codec", "check", "testdata", "proxy-legs.pcapng"))
	require.NoError(t, err)
	out, _, _ := runCLI(t, []string{"pcap", "--port", "29092,29192", "--api", "EndTxn", file}, nil)
	for _, port := range []string{"29092", "29192"} {
		require.Equal(t, 3, strings.Count(out, `->127.0.0.1:`+port+`"`), "3 EndTxn exchanges on the leg to %s:\n%s", port, out)
	}
	for _, ports := range []string{"29092,29192", "29092", "29192"} {
		out, errOut, code := runCLI(t, []string{"check", "--fail-on", "note", "--port", ports, file}, nil)
		require.Equal(t, 0, code, "--port %s:\n%s%s", ports, out, errOut)
		require.Empty(t, out, "--port %s", ports)
	}
}
