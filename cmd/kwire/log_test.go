package main

import (
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/storage"
)

// storageTestdata is testdata/storage (see its README), linked into the
// CLI's working directory as logdir/ and broken/.
var storageTestdata = filepath.Join(sharedTestdata, "storage")

func TestLogCLI(t *testing.T) {
	runCases(t, []cliCase{
		{name: "index entries checked", args: []string{"log", "logdir/orders-0/00000000000000000000.index"}, golden: "log_index"},
		{name: "summaries of a log directory", args: []string{"log", "--summary", "logdir"}, golden: "log_summary"},
		{name: "tree of __consumer_offsets", args: []string{"log", "--format", "tree", "logdir/__consumer_offsets-7/00000000000000000000.log"}, golden: "log_consumer_offsets_tree"},
		{name: "checkpoints and small files", args: []string{"log", "logdir/orders-0/leader-epoch-checkpoint", "logdir/orders-0/partition.metadata",
			"logdir/meta.properties", "logdir/__cluster_metadata-0/quorum-state", "logdir/orders-0/00000000000000000024.snapshot", "logdir/orders-0/00000000000000000024.txnindex"}, golden: "log_small_files"},
		{name: "an index pointing into a batch", args: []string{"log", "broken/wrong-index/00000000000000000000.index"}, golden: "log_wrong_index", code: 1},
		{name: "a partition with a wrong index", args: []string{"log", "--summary", "broken/wrong-index"}, code: 1},
		{name: "a torn tail", args: []string{"log", "--summary", "broken/torn-tail/00000000000000000000.log"}, golden: "log_torn_tail_summary", code: 0},
		{name: "no such file", args: []string{"log", "nope.log"}, code: 1, stderr: "kwire: log: nope.log:"},
		{name: "not a Kafka file", args: []string{"log", "frames.hex"}, code: 1, stderr: "not a file Kafka writes"},
		{name: "nothing named", args: []string{"log"}, code: 2, stderr: "kwire: log: name a file"},
		{name: "bad format", args: []string{"log", "--format", "xml", "logdir"}, code: 2, stderr: "--format must be ndjson, json or tree"},
		{name: "no batch read", args: []string{"log", "--max-batch", "0", "logdir"}, code: 2, stderr: "kwire: --max-batch must be above 0, not 0"},
		{name: "a negative largest batch", args: []string{"log", "--max-batch", "-5", "logdir"}, code: 2, stderr: "kwire: --max-batch must be above 0, not -5"},
	})
}

// TestLogSaysADirectoryHoldsNoKafkaFiles: a directory (empty, or with no
// file Kafka writes in it or the folders under it) is not an empty log:
// kwire log names it on standard error and exits 1, with or without
// --summary; a directory with a Kafka file, even a folder down, reads as
// before.
func TestLogSaysADirectoryHoldsNoKafkaFiles(t *testing.T) {
	empty := t.TempDir()
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "notes.txt"), []byte("hello\n"), 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(other, "sub"), 0o755))
	for _, dir := range []string{empty, other} {
		for _, args := range [][]string{{"log", dir}, {"log", "--summary", dir}} {
			out, errOut, code := runCLI(t, args, nil)
			require.Equal(t, 1, code, "%v: %s", args, errOut)
			require.Empty(t, out, args)
			require.Equal(t, "kwire: log: "+dir+": no Kafka log files found in this directory or the folders under it\n", errOut)
		}
	}

	b, err := os.ReadFile(filepath.Join(storageTestdata, "logdir", "meta.properties"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(other, "sub", "meta.properties"), b, 0o644))
	out, errOut, code := runCLI(t, []string{"log", other}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	require.Contains(t, out, `"kind":"meta-properties"`)
}

// A torn tail is reported whatever the flags, and makes the exit status 1
// under --strict only. Its index entries past the tail point where no
// batch could be read: they are counted unchecked, not as mismatches of
// the index (which Kafka's recovery would cut back with the log).
func TestLogTornTail(t *testing.T) {
	out, _, code := runCLI(t, []string{"log", "broken/torn-tail/00000000000000000000.log"}, nil)
	require.Equal(t, 0, code, "its .index points past the tail: unchecked, not wrong")
	var tail, summary map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &o), l)
		switch o["kind"] {
		case "tail":
			tail = o
		case "segment-summary":
			summary = o
		}
	}
	require.NotNil(t, tail)
	require.Equal(t, true, tail["torn"])
	require.EqualValues(t, 4, tail["batchesBefore"])
	require.NotNil(t, summary, out)
	idx, _ := summary["index"].(map[string]any)
	require.NotNil(t, idx, "%v", summary)
	require.EqualValues(t, 0, idx["problems"], "%v", idx)
	require.NotZero(t, idx["unchecked"], "%v", idx)
	_, _, code = runCLI(t, []string{"log", "--strict", "broken/torn-tail/00000000000000000000.log"}, nil)
	require.Equal(t, 1, code, "the tail itself, under --strict")

	// Listing the index alone says the same of each entry past the tail.
	out, _, code = runCLI(t, []string{"log", "broken/torn-tail/00000000000000000000.index"}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, out, `"unchecked":true`)
	require.NotContains(t, out, `"problem"`)

	// The same segment without its indexes: status 0, 1 under --strict.
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(storageTestdata, "broken/torn-tail/00000000000000000000.log"))
	require.NoError(t, err)
	p := filepath.Join(dir, "00000000000000000000.log")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	_, _, code = runCLI(t, []string{"log", p}, nil)
	require.Equal(t, 0, code)
	_, _, code = runCLI(t, []string{"log", "--strict", p}, nil)
	require.Equal(t, 1, code)
}

// Every output line is JSON in every format that writes JSON, and every
// file of testdata/storage that holds bytes comes back from kwire log
// through kwire encode byte for byte.
func TestLogRoundTripsThroughEncode(t *testing.T) {
	n := 0
	require.NoError(t, filepath.WalkDir(storageTestdata, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch storage.KindOf(d.Name()).Kind {
		case storage.SegmentFile, storage.KRaftSnapshotFile, storage.OffsetIndexFile, storage.TimeIndexFile, storage.TxnIndexFile, storage.ProducerSnapshotFile:
		default:
			return nil
		}
		if strings.Contains(p, "wrong-index") && !strings.HasSuffix(p, ".log") {
			return nil // its entries are printed with their problems: the same bytes, exit 1
		}
		want, err := os.ReadFile(p)
		require.NoError(t, err)
		abs, _ := filepath.Abs(p)
		out, errOut, _ := runCLI(t, []string{"log", abs}, nil)
		require.Empty(t, errOut, p)
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			require.True(t, json.Valid([]byte(l)), "%s: %s", p, l)
		}
		enc, errOut, code := runCLI(t, []string{"encode"}, []byte(out))
		require.Equal(t, 0, code, "%s: %s", p, errOut)
		got, err := hex.DecodeString(strings.ReplaceAll(enc, "\n", ""))
		require.NoError(t, err)
		require.Equal(t, want, got, p)
		n++
		return nil
	}))
	require.GreaterOrEqual(t, n, 20)
}

// TestLogTreeNamesTransactionStatus: a __transaction_state value's
// transactionStatus (Kafka's TransactionState, an int8) showed as a bare
// number in the tree drawn for people; it is named beside the number, as
// error codes are, while the value JSON keeps the number, which kwire
// encode reads back (TestLogRoundTripsThroughEncode encodes the segment back).
func TestLogTreeNamesTransactionStatus(t *testing.T) {
	seg, err := filepath.Abs(filepath.Join(storageTestdata, "logdir", "__transaction_state-0", "00000000000000000000.log"))
	require.NoError(t, err)
	out, errOut, code := runCLI(t, []string{"log", "--format", "tree", seg}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "transactionStatus int8 = 1 Ongoing [99,100)\n")
	require.Contains(t, out, "transactionStatus int8 = 4 CompleteCommit [175,176)\n")
	out, errOut, code = runCLI(t, []string{"log", seg}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"transactionStatus":1,`)
	require.Contains(t, out, `"transactionStatus":4,`)
	require.NotContains(t, out, "Ongoing")
	for v, name := range []string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort", "Dead", "PrepareEpochFence"} {
		require.Equal(t, name, storage.TransactionStateName(int64(v)))
	}
	require.Empty(t, storage.TransactionStateName(8))
	require.Empty(t, storage.TransactionStateName(-1))
}

// TestLogShortValuesCutAtACharacter: the tree's one-line key, value and
// header texts are cut past 60 bytes. The cut fell at byte 57 whatever
// was there, splitting a character into \xc3-style escapes, and its
// "..." sat inside the quotes, as if the value ended so. It is cut at a
// character's start, and "…" follows the closing quote.
func TestLogShortValuesCutAtACharacter(t *testing.T) {
	v := strings.Repeat("a", 56) + "ééé"
	require.Equal(t, `"`+strings.Repeat("a", 56)+`"…`, shortBytes([]byte(v)))
	require.Equal(t, `"`+strings.Repeat("b", 57)+`"…`, shortBytes([]byte(strings.Repeat("b", 61))))
	require.Equal(t, `"`+strings.Repeat("c", 60)+`"`, shortBytes([]byte(strings.Repeat("c", 60))))
	bin := make([]byte, 60) // 80 characters of base64
	require.Equal(t, "base64 "+strings.Repeat("A", 57)+"…", shortBytes(bin))
	require.Equal(t, "base64 AAAA", shortBytes(make([]byte, 3)))
}
