package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkProbe runs kwire check --fail-on note on a capture of
// testdata (check-*.pcapng: kgo against kfake, see README.md).
func checkProbe(t *testing.T, name string) (string, string, int) {
	t.Helper()
	file, err := filepath.Abs(filepath.Join("testdata", name))
	require.NoError(t, err)
	return runCLI(t, []string{"check", "--fail-on", "note", file}, nil)
}

// TestCheckFetchAfterFencedLeaderEpoch: a kgo consumer's fetch at 256
// was answered FENCED_LEADER_EPOCH; its OffsetForLeaderEpoch (over a
// connection the capture does not hold) answered the end offset
// undefined, and kgo fetched at -1 on purpose (KIP-320). conv.fetch-offset
// warned "went back without a reset ... expected at least 256, found -1".
// The truncation's answer not being in the capture, the fetch is said not
// judged.
func TestCheckFetchAfterFencedLeaderEpoch(t *testing.T) {
	out, errOut, code := checkProbe(t, "check-fetch-fenced-epoch.pcapng")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	require.NotContains(t, out, "conv.fetch-offset warning")
	require.Contains(t, out, "conv.fetch-offset skipped")
	require.Contains(t, out, "KIP-320")
}

// TestCheckFencedProducersEpochs: three kgo producers with one
// transactional id got epochs 0, 1 and 2; the fenced two's produces were
// refused (INVALID_PRODUCER_EPOCH) and their aborting EndTxns too
// (PRODUCER_FENCED). conv.txn-end warned the epoch-1 EndTxn "ends a
// transaction that holds nothing", and conv.sequence called both old-epoch
// produces errors. Fencing at work breaks no rule.
func TestCheckFencedProducersEpochs(t *testing.T) {
	out, errOut, code := checkProbe(t, "check-txn-fenced-epochs.pcapng")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	require.Empty(t, out)
}

// TestCheckProxyLegsFetchesJudged: both legs of kwire proxy in one capture
// hold each fetch twice, over two connections, interleaved.
// conv.fetch-offset judged none of them and said nothing, then said once
// that fetches alternating between connections are not judged; each leg's
// fetches are now judged against that leg's own. One fetch is not judged,
// as in a capture of one leg: kgo's fetch at -1 after FENCED_LEADER_EPOCH,
// whose OffsetForLeaderEpoch answer the capture does not hold (KIP-320).
func TestCheckProxyLegsFetchesJudged(t *testing.T) {
	out, errOut, code := checkProbe(t, "check-fetch-proxy-legs.pcapng")
	require.Equal(t, 0, code, "%s%s", out, errOut)
	require.NotContains(t, out, "alternate between connections")
	require.Contains(t, out, "conv.fetch-offset skipped")
	require.Contains(t, out, "KIP-320")
	require.Equal(t, 1, strings.Count(out, "\n"), out)
	require.Contains(t, errOut, "0 errors, 0 warnings, 0 notes; 1 rule not judged (said in its line)")
}
