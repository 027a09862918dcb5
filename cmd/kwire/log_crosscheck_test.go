package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
)

// txnPartition writes partition directory t-0: a segment of 2 batches of
// 3 records (offsets 0-5), producer 7's aborted transaction (6-7) and its
// ABORT marker (8), a last batch (9-11), with its .index and .timeindex;
// txn, when set, as its .txnindex.
func txnPartition(t *testing.T, txn []byte) string {
	batches := [][]byte{testBatch(0, 3), testBatch(0, 3)}
	batches = append(batches, storagedata.AbortedTransaction(7, 0, 1700000005000)...)
	batches = append(batches, testBatch(0, 3))
	log, index, timeindex := storagedata.Segment(0, 0, batches, 1)
	dir := filepath.Join(t.TempDir(), "t-0")
	writeFile(t, dir, "00000000000000000000.log", log)
	writeFile(t, dir, "00000000000000000000.index", index)
	writeFile(t, dir, "00000000000000000000.timeindex", timeindex)
	if txn != nil {
		writeFile(t, dir, "00000000000000000000.txnindex", txn)
	}
	return dir
}

// TestLogTxnIndexCheckedAgainstItsSegment: a .txnindex entry must name its
// producer's ABORT marker in the segment at its last offset: an entry for
// offsets a data batch holds, or past the log end, is a problem (exit 1
// under --strict: the log cleaner moves a compacted topic's entries,
// which a check per segment cannot follow), printed with its entry
// number and counted in the summaries; a right one is no problem. Named
// alone, the .txnindex is checked against the segment beside it too.
func TestLogTxnIndexCheckedAgainstItsSegment(t *testing.T) {
	ok := storagedata.AbortedTxn(0, 7, 6, 8, 9)
	dir := txnPartition(t, ok)
	out, errOut, code := runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	require.NotContains(t, out, "txnindex-problem")

	bad := append(append(append([]byte(nil), ok...), storagedata.AbortedTxn(0, 4242, 3, 5, 3)...), storagedata.AbortedTxn(0, 3000, 500, 510, 400)...)
	dir = txnPartition(t, bad)
	_, _, code = runCLI(t, []string{"log", dir}, nil)
	require.Equal(t, 0, code, "a problem, not an index mismatch")
	out, errOut, code = runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 1, code, "%s%s", errOut, out)
	ls := logLines(t, out)
	probs := ofKind(ls, "txnindex-problem")
	require.Len(t, probs, 3, out) // entry 1 out of order and at a data batch, entry 2 past the end
	require.EqualValues(t, 1, probs[0]["entry"])
	require.Contains(t, probs[1]["problem"], "no ABORT marker of producer 4242 at its last offset 5")
	require.EqualValues(t, 2, probs[2]["entry"])
	require.Contains(t, probs[2]["problem"], "last offset 510 is past the segment's end")
	sum := ofKind(ls, "partition-summary")[0]
	require.EqualValues(t, 3, sum["indexProblems"], out)
	require.EqualValues(t, 3, sum["problems"], out)

	out, errOut, code = runCLI(t, []string{"log", "--strict", filepath.Join(dir, "00000000000000000000.txnindex")}, nil)
	require.Equal(t, 1, code, "%s%s", errOut, out)
	entries := ofKind(logLines(t, out), "txnindex")
	require.Len(t, entries, 3, out)
	require.Nil(t, entries[0]["problem"], out)
	require.Contains(t, entries[1]["problem"], "no ABORT marker of producer 4242", out)
	require.Contains(t, entries[2]["problem"], "past the segment's end", out)
}

// TestLogAbortMarkerWithoutTxnIndex: a segment holding an ABORT marker and
// no .txnindex is said to lack it (Kafka writes one for a segment's first
// aborted transaction): a problem, exit 1 under --strict; so is a marker
// no entry names.
func TestLogAbortMarkerWithoutTxnIndex(t *testing.T) {
	dir := txnPartition(t, nil)
	out, errOut, code := runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 1, code, "%s%s", errOut, out)
	probs := ofKind(logLines(t, out), "txnindex-problem")
	require.Len(t, probs, 1, out)
	require.Contains(t, probs[0]["problem"], "no .txnindex beside the segment, which holds 1 ABORT marker: ")

	dir = txnPartition(t, storagedata.AbortedTxn(0, 7, 0, 2, 3))
	out, errOut, code = runCLI(t, []string{"log", "--summary", "--strict", dir}, nil)
	require.Equal(t, 1, code, "%s%s", errOut, out)
	require.Contains(t, out, "the ABORT marker of producer 7 at offset 8 has no entry")
}

// epochPartition writes partition directory t-0: segment 0 of 3 batches
// of leader epoch 0 (offsets 0-8), segment 9 of 2 batches of epoch 1
// (9-14), and checkpoint as its leader-epoch-checkpoint.
func epochPartition(t *testing.T, checkpoint string) string {
	dir := filepath.Join(t.TempDir(), "t-0")
	log, _, _ := storagedata.Segment(0, 0, [][]byte{testBatch(0, 3), testBatch(0, 3), testBatch(0, 3)}, 1<<20)
	writeFile(t, dir, "00000000000000000000.log", log)
	log, _, _ = storagedata.Segment(9, 1, [][]byte{testBatch(0, 3), testBatch(0, 3)}, 1<<20)
	writeFile(t, dir, "00000000000000000009.log", log)
	writeFile(t, dir, "leader-epoch-checkpoint", []byte(checkpoint))
	return dir
}

// TestLogLeaderEpochCheckpointAgainstTheBatches: an epoch starting past
// the log end, or batches whose epoch the checkpoint does not give their
// offsets, are problems of the checkpoint (exit 1 under --strict),
// printed and counted in its summary and its partition's; a checkpoint
// that agrees, or begins later (truncated with the log start), is none.
func TestLogLeaderEpochCheckpointAgainstTheBatches(t *testing.T) {
	for _, good := range []string{"0\n2\n0 0\n1 9\n", "0\n1\n1 9\n", "0\n2\n0 3\n1 9\n"} {
		out, errOut, code := runCLI(t, []string{"log", "--strict", epochPartition(t, good)}, nil)
		require.Equal(t, 0, code, "%q: %s%s", good, errOut, out)
		require.NotContains(t, out, "leader-epoch-problem", good)
	}
	dir := epochPartition(t, "0\n2\n0 0\n5 500\n")
	out, errOut, code := runCLI(t, []string{"log", dir}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	ls := epochProblems(t, out)
	require.EqualValues(t, 2, ofKind(ls, "partition-summary")[0]["problems"], out)
	_, _, code = runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 1, code)
	out, _, _ = runCLI(t, []string{"log", "--summary", dir}, nil)
	require.Contains(t, out, `"kind":"leader-epoch-summary","entries":2,"problems":2`)
}

// TestLogLeaderEpochCheckpointNamedAlone: a leader-epoch-checkpoint named
// on its own is checked against the segments beside it, as a directory
// run checks it (it was listed with no check): its problems printed,
// counted in its summary, exit 1 under --strict; the segments' own
// problems (here a broken .txnindex) are not the checkpoint's. With no
// segment beside it, only its lines.
func TestLogLeaderEpochCheckpointNamedAlone(t *testing.T) {
	dir := epochPartition(t, "0\n2\n0 0\n5 500\n")
	writeFile(t, dir, "00000000000000000000.txnindex", storagedata.AbortedTxn(0, 4242, 3, 5, 3))
	cp := filepath.Join(dir, "leader-epoch-checkpoint")
	out, errOut, code := runCLI(t, []string{"log", cp}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	ls := epochProblems(t, out)
	require.Len(t, ls, 4, "the checkpoint's lines only: %s", out)
	_, _, code = runCLI(t, []string{"log", "--strict", cp}, nil)
	require.Equal(t, 1, code)
	out, _, _ = runCLI(t, []string{"log", "--summary", cp}, nil)
	require.Contains(t, out, `"kind":"leader-epoch-summary","entries":2,"problems":2`)

	good := epochPartition(t, "0\n2\n0 0\n1 9\n")
	writeFile(t, good, "00000000000000000000.txnindex", storagedata.AbortedTxn(0, 4242, 3, 5, 3))
	out, errOut, code = runCLI(t, []string{"log", "--strict", filepath.Join(good, "leader-epoch-checkpoint")}, nil)
	require.Equal(t, 0, code, "the segments' problems are not the checkpoint's: %s%s", errOut, out)
	require.NotContains(t, out, "problem")

	lone := filepath.Join(t.TempDir(), "t-0")
	writeFile(t, lone, "leader-epoch-checkpoint", []byte("0\n1\n5 500\n"))
	out, errOut, code = runCLI(t, []string{"log", "--strict", filepath.Join(lone, "leader-epoch-checkpoint")}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	require.Len(t, logLines(t, out), 1, out)
}

// TestLogSummaryCountsEveryProblem: the partition summary's problems
// count what the full output lists: a batch whose records fail to decode
// (a __cluster_metadata record that is not one), a KRaft snapshot's.
func TestLogSummaryCountsEveryProblem(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "__cluster_metadata-0")
	bad := storagedata.Batch([]storagedata.Record{{Value: []byte{1, 2, 3}}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	log, index, timeindex := storagedata.Segment(0, 0, [][]byte{bad}, 1<<20)
	writeFile(t, dir, "00000000000000000000.log", log)
	writeFile(t, dir, "00000000000000000000.index", index)
	writeFile(t, dir, "00000000000000000000.timeindex", timeindex)
	out, errOut, code := runCLI(t, []string{"log", dir}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	sum := ofKind(logLines(t, out), "partition-summary")[0]
	require.EqualValues(t, 1, sum["problems"], out)
	out, _, code = runCLI(t, []string{"log", "--summary", "--strict", dir}, nil)
	require.Equal(t, 1, code)
	require.EqualValues(t, 1, ofKind(logLines(t, out), "partition-summary")[0]["problems"], out)
}

// TestLogMissingIndexAndOtherFilesAreSaid: a segment with no .index beside
// it is noted (Kafka rebuilds it: not a problem); files a partition
// directory holds that kwire log does not read as its own (misnamed, or
// Kafka's leftovers) are listed in its summary with what they are.
func TestLogMissingIndexAndOtherFilesAreSaid(t *testing.T) {
	log, _, timeindex := indexedSegment(3)
	dir := filepath.Join(t.TempDir(), "t-0")
	writeFile(t, dir, "00000000000000000000.log", log)
	writeFile(t, dir, "00000000000000000000.timeindex", timeindex)
	writeFile(t, dir, "0.log", log)
	writeFile(t, dir, "8-1.checkpoint", nil)
	writeFile(t, dir, "00000000000000000000.log.swap", log)
	writeFile(t, dir, "00000000000000000000.log.deleted", log)
	writeFile(t, dir, "00000000000000000000.index.cleaned", nil)
	out, errOut, code := runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	ls := logLines(t, out)
	notes := ofKind(ls, "index-note")
	require.Len(t, notes, 1, out)
	require.Contains(t, notes[0]["note"], "no .index beside the segment")
	sum := ofKind(ls, "partition-summary")[0]
	require.EqualValues(t, 0, sum["problems"], out)
	others := map[string]string{}
	for _, o := range sum["otherFiles"].([]any) {
		m := o.(map[string]any)
		others[m["file"].(string)] = m["note"].(string)
	}
	require.Len(t, others, 5, out)
	require.Contains(t, others["0.log"], "not named as Kafka names its .log files")
	require.Contains(t, others["8-1.checkpoint"], "KRaft snapshot")
	require.Contains(t, others["00000000000000000000.log.swap"], "interrupted log-cleaner swap")
	require.Contains(t, others["00000000000000000000.log.deleted"], "asynchronous deletion")
	require.Contains(t, others["00000000000000000000.index.cleaned"], "not yet swapped in")
	require.True(t, strings.Contains(out, `"indexNote"`), out)
}

// TestLogTreeSaysAnInternalRecordErrorWhereTheNDJSONDoes: the tree's
// "error" line of an internal topic's record that does not decode gave
// its offset in the batch (68), where the ndjson's "error" and the
// tree's own spans give positions in the segment (139).
func TestLogTreeSaysAnInternalRecordErrorWhereTheNDJSONDoes(t *testing.T) {
	var seg []byte
	for i, r := range [][2][]byte{{[]byte("k0"), []byte("v")}, {{0, 1, 0, 3, 'g'}, {0, 9, 1, 2, 3}}} {
		b := storagedata.Batch([]storagedata.Record{{Key: r[0], Value: r[1]}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
		storagedata.Place(b, int64(i), 0)
		seg = append(seg, b...)
	}
	dir := filepath.Join(t.TempDir(), "__consumer_offsets-3")
	writeFile(t, dir, "00000000000000000000.log", seg)
	out, errOut, _ := runCLI(t, []string{"log", "--format", "tree", filepath.Join(dir, "00000000000000000000.log")}, nil)
	require.Contains(t, out, "    error key at byte 66 (type): not decoded as a record of __consumer_offsets", errOut)
	require.Contains(t, out, "    error key at byte 139 (key.group): not decoded as OffsetCommitKey", errOut)
	out, _, _ = runCLI(t, []string{"log", filepath.Join(dir, "00000000000000000000.log")}, nil)
	require.Contains(t, out, `"error":{"part":"key","offset":139,"path":"key.group"`)
}

// epochProblems reads kwire log's lines in out and requires the two
// problems epochPartition's checkpoint "0\n2\n0 0\n5 500\n" has: an
// epoch past the log end, and a batch's epoch the checkpoint lacks.
func epochProblems(t *testing.T, out string) []map[string]any {
	t.Helper()
	ls := logLines(t, out)
	probs := ofKind(ls, "leader-epoch-problem")
	require.Len(t, probs, 2, out)
	require.Equal(t, "line 4: epoch 5 starts at offset 500, past the log end offset 15", probs[0]["problem"])
	require.Contains(t, probs[1]["problem"], "batch at offset 9 has leader epoch 1, which the checkpoint does not have")
	return ls
}
