package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeFile writes b at dir/name, making the folders on the way.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// TestLogDirNamedLikeAPartitionIsALogDir: kafka-logs-1 holding partition
// directories is a log directory, its partitions summarised each, not a
// partition of a topic "kafka-logs".
func TestLogDirNamedLikeAPartitionIsALogDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "kafka-logs-1")
	writeFile(t, root, "orders-0/00000000000000000000.log", testBatch(0, 2))
	writeFile(t, root, "payments-3/00000000000000000000.log", testBatch(0, 1))
	out, errOut, code := runCLI(t, []string{"log", "--summary", root}, nil)
	require.Equal(t, 0, code, errOut)
	var topics []string
	for _, l := range ofKind(logLines(t, out), "partition-summary") {
		topics = append(topics, l["topic"].(string))
	}
	require.Equal(t, []string{"orders", "payments"}, topics)
}

// TestLogFollowsSymlinkedPartitionDirs: a partition directory linked into
// a log directory (from another disk, say) is read where it leads, and a
// link back up the tree is read once, not round and round.
func TestLogFollowsSymlinkedPartitionDirs(t *testing.T) {
	tmp := t.TempDir()
	writeFile(t, tmp, "disk2/orders-0/00000000000000000000.log", testBatch(0, 2))
	logs := filepath.Join(tmp, "logs")
	writeFile(t, logs, "payments-0/00000000000000000000.log", testBatch(0, 1))
	require.NoError(t, os.Symlink(filepath.Join(tmp, "disk2", "orders-0"), filepath.Join(logs, "orders-0")))
	require.NoError(t, os.Symlink(logs, filepath.Join(logs, "payments-0", "loop")))
	out, errOut, code := runCLI(t, []string{"log", "--summary", logs}, nil)
	require.Equal(t, 0, code, errOut)
	var topics []string
	for _, l := range ofKind(logLines(t, out), "partition-summary") {
		topics = append(topics, l["topic"].(string))
	}
	require.Equal(t, []string{"orders", "payments"}, topics)
}

// TestLogProducerSnapshotErrorsAreSaid: a truncated producer snapshot's
// read error is printed in the tree too, and an empty one is said to be
// empty, at byte 0, not at a "line 0" a binary file has not.
func TestLogProducerSnapshotErrorsAreSaid(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(storageTestdata, "logdir", "orders-0", "00000000000000000024.snapshot"))
	require.NoError(t, err)
	dir := t.TempDir()
	cut := writeFile(t, dir, "00000000000000000024.snapshot", good[:len(good)-4])
	out, errOut, code := runCLI(t, []string{"log", "--format", "tree", cut}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "\n  error at byte ")

	empty := writeFile(t, dir, "00000000000000000030.snapshot", nil)
	out, errOut, code = runCLI(t, []string{"log", "--strict", empty}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, `"error":"at byte 0: the file is empty; `)
	require.NotContains(t, out, "line 0")
}

// TestLogValidateNeedsASchemaSource: --validate without --schemas or
// --schema-registry would check nothing: it is refused as misuse.
func TestLogValidateNeedsASchemaSource(t *testing.T) {
	_, errOut, code := runCLI(t, []string{"log", "--validate", "logdir/orders-0"}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "kwire: --validate checks payloads against their schemas")
}

// TestLogPayloadsHelpIsTrue: by default an internal topic's keys and
// values are decoded (only --payloads bytes keeps them bytes), and the
// --payloads help says so.
func TestLogPayloadsHelpIsTrue(t *testing.T) {
	help, _, code := runCLI(t, []string{"log", "--help"}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, strings.Join(strings.Fields(help), " "), "internal topics' are decoded all the same unless --payloads bytes or --kafka is given")
	seg := "logdir/__consumer_offsets-7/00000000000000000000.log"
	out, _, code := runCLI(t, []string{"log", seg}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, out, `"internal":`)
	out, _, code = runCLI(t, []string{"log", "--payloads", "bytes", seg}, nil)
	require.Equal(t, 0, code)
	require.NotContains(t, out, `"internal":`)
}

// TestLogCheckpointCountMismatchAtTheCountLine: a checkpoint whose count
// line declares more entries than it holds is reported at the count
// line (2), not at its last line.
func TestLogCheckpointCountMismatchAtTheCountLine(t *testing.T) {
	p := writeFile(t, t.TempDir(), "leader-epoch-checkpoint", []byte("0\n5\n0 0\n1 10\n3 20\n"))
	out, errOut, code := runCLI(t, []string{"log", "--strict", p}, nil)
	require.Equal(t, 1, code, errOut)
	errs := ofKind(logLines(t, out), "leader-epoch-error")
	require.Len(t, errs, 1, out)
	require.Equal(t, "storage: line 2: the count line says 5 entries; the file has 3", errs[0]["message"])
}

// TestLogMetaPropertiesRepeatedKey: a key given twice is a problem, and
// the properties object holds it once, with the value Kafka uses (the
// last).
func TestLogMetaPropertiesRepeatedKey(t *testing.T) {
	p := writeFile(t, t.TempDir(), "meta.properties", []byte("version=1\nnode.id=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\nnode.id=2\n"))
	out, errOut, code := runCLI(t, []string{"log", "--strict", p}, nil)
	require.Equal(t, 1, code, errOut)
	require.Equal(t, 1, strings.Count(out, `"node.id"`), out)
	require.Contains(t, out, `"node.id":"2"`)
	require.Contains(t, out, `key \"node.id\" is given again`)
}

// TestLogSummaryOfSmallFiles: under --summary every file given, and every
// file of a directory, says something: a checkpoint, a .txnindex, a
// producer snapshot or a metadata file gets a one-line summary of its
// entries and problems (the problems listed), so that an exit status of 1
// under --strict is explained on screen; an empty .txnindex and a
// checkpoint of no entries print their summary without --summary too.
func TestLogSummaryOfSmallFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "e-0")
	epochs := writeFile(t, dir, "leader-epoch-checkpoint", []byte("0\n1\n3 10\n2 20\n"))
	writeFile(t, dir, "partition.metadata", []byte("version: 0\n"))
	writeFile(t, dir, "00000000000000000000.snapshot", nil)
	txn := writeFile(t, dir, "00000000000000000000.txnindex", nil)
	recovery := writeFile(t, dir, "recovery-point-offset-checkpoint", []byte("0\n0\n"))
	writeFile(t, dir, "00000000000000000000.log", testBatch(0, 2))

	out, errOut, code := runCLI(t, []string{"log", "--summary", epochs}, nil)
	require.Equal(t, 0, code, errOut)
	ls := logLines(t, out)
	require.Len(t, ls, 1, out)
	require.Equal(t, "leader-epoch-summary", ls[0]["kind"])
	require.EqualValues(t, 2, ls[0]["entries"])
	require.EqualValues(t, 2, ls[0]["problems"])
	require.Contains(t, out, "line 4: epoch 2 is not above the line before (3)")
	_, _, code = runCLI(t, []string{"log", "--summary", "--strict", epochs}, nil)
	require.Equal(t, 1, code)

	out, errOut, code = runCLI(t, []string{"log", "--summary", "--strict", dir}, nil)
	require.Equal(t, 1, code, errOut)
	problems := 0
	kinds := map[string]bool{}
	for _, l := range logLines(t, out) {
		kinds[l["kind"].(string)] = true
		if n, ok := l["problems"].(float64); ok {
			problems += int(n)
		}
	}
	require.Greater(t, problems, 0, "the exit status is explained: %s", out)
	for _, k := range []string{"leader-epoch-summary", "partition-metadata-summary", "producer-snapshot-summary", "txnindex-summary", "offset-checkpoint-summary", "partition-summary"} {
		require.True(t, kinds[k], "%s: %s", k, out)
	}

	for _, args := range [][]string{{"log", txn}, {"log", "--summary", txn}, {"log", recovery}, {"log", "--summary", recovery}} {
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		ls := logLines(t, out)
		require.Len(t, ls, 1, "%v: %s", args, out)
		require.EqualValues(t, 0, ls[0]["entries"], "%v", args)
		require.EqualValues(t, 0, ls[0]["problems"], "%v", args)
	}
}

// TestLogSummaryTreeHidesProducerSnapshots: --summary --format tree
// prints a producer snapshot's summary line, not its tree.
func TestLogSummaryTreeHidesProducerSnapshots(t *testing.T) {
	snap := "logdir/orders-0/00000000000000000024.snapshot"
	for _, p := range []string{snap, "logdir/orders-0"} {
		out, errOut, code := runCLI(t, []string{"log", "--summary", "--format", "tree", p}, nil)
		require.Equal(t, 0, code, errOut)
		require.NotContains(t, out, "producerEntries", p)
		require.Contains(t, out, `"kind":"producer-snapshot-summary"`, p)
	}
	out, _, _ := runCLI(t, []string{"log", "--format", "tree", snap}, nil)
	require.Contains(t, out, "producerEntries", "without --summary the tree is drawn")
}

// TestLogTreeNamesEachFile: under --format tree each file's lines start
// with a line naming it and its kind, so two segments' batches (positions
// starting again at 0) are told apart; the JSON lines (summaries) stay
// JSON.
func TestLogTreeNamesEachFile(t *testing.T) {
	dir := writeSegments(t, "t-0", map[int64][][]byte{0: {testBatch(0, 2)}, 2: {testBatch(2, 2)}})
	out, errOut, code := runCLI(t, []string{"log", "--format", "tree", dir}, nil)
	require.Equal(t, 0, code, errOut)
	var heads []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		switch {
		case strings.HasPrefix(l, "file "):
			heads = append(heads, l)
		case strings.HasPrefix(l, "{"):
			require.True(t, json.Valid([]byte(l)), l)
		}
	}
	require.Equal(t, []string{
		"file " + filepath.Join(dir, "00000000000000000000.log") + " (segment)",
		"file " + filepath.Join(dir, "00000000000000000002.log") + " (segment)",
	}, heads)
	first := strings.Index(out, heads[0])
	second := strings.Index(out, heads[1])
	require.Less(t, first, strings.Index(out, "offsets 0-1 at 0"))
	require.Less(t, strings.Index(out, "offsets 0-1 at 0"), second)
	require.Less(t, second, strings.Index(out, "offsets 2-3 at 0"))
}

// TestLogWalksDeepFolders: partition directories five folders down are
// read; past maxDepth levels the walk stops and says so, in the error
// when nothing was found and in a warning when something was, not
// claiming that the folders under the directory hold no Kafka file.
func TestLogWalksDeepFolders(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "a/b/c/d/good-0/00000000000000000000.log", testBatch(0, 2))
	out, errOut, code := runCLI(t, []string{"log", "--summary", root}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	require.Len(t, ofKind(logLines(t, out), "partition-summary"), 1, out)

	deep := t.TempDir()
	path := strings.Repeat("x/", maxDepth+1)
	writeFile(t, deep, path+"orders-0/00000000000000000000.log", testBatch(0, 2))
	_, errOut, code = runCLI(t, []string{"log", deep}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: log: "+deep+": no Kafka log files found in this directory or the folders under it (folders are read 8 levels down; ")
	require.Contains(t, errOut, "and any others deeper were not)")

	writeFile(t, deep, "x/meta.properties", []byte("version=1\nnode.id=1\ncluster.id=MkU3OEVBNTcwNTJENDM2Qk\n"))
	out, errOut, code = runCLI(t, []string{"log", deep}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"kind":"meta-properties"`)
	require.Contains(t, errOut, "kwire: log: "+deep+": warning: not every folder was read (folders are read 8 levels down; ")
}

// TestLogEmptyPartitionDirSaysOneThing: an empty partition directory
// named on the command line is said to hold no Kafka log files (exit 1),
// without a partition summary of nothing beside it; met in a walk, it is
// summarised as a partition of no segments.
func TestLogEmptyPartitionDirSaysOneThing(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty-0")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	writeFile(t, root, "full-0/00000000000000000000.log", testBatch(0, 1))
	out, errOut, code := runCLI(t, []string{"log", empty}, nil)
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "kwire: log: "+empty+": no Kafka log files found in this directory or the folders under it\n", errOut)

	out, errOut, code = runCLI(t, []string{"log", "--summary", root}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	var topics []string
	for _, l := range ofKind(logLines(t, out), "partition-summary") {
		topics = append(topics, l["topic"].(string))
	}
	require.Equal(t, []string{"empty", "full"}, topics)
}

// TestLogTextFilesSayTheyHaveNoBytes: the lines kwire log writes of a
// text file (checkpoints, meta.properties, partition.metadata,
// quorum-state) hold what was read, not the text: kwire encode says so
// and fails, rather than give nothing and exit 0 as if the file were
// empty.
func TestLogTextFilesSayTheyHaveNoBytes(t *testing.T) {
	for _, f := range []string{"logdir/orders-0/leader-epoch-checkpoint", "logdir/recovery-point-offset-checkpoint", "logdir/meta.properties",
		"logdir/orders-0/partition.metadata", "logdir/__cluster_metadata-0/quorum-state"} {
		abs, err := filepath.Abs(filepath.Join(storageTestdata, f))
		require.NoError(t, err)
		out, errOut, code := runCLI(t, []string{"log", abs}, nil)
		require.Equal(t, 0, code, "%s: %s", f, errOut)
		enc, errOut, code := runCLI(t, []string{"encode"}, []byte(out))
		require.Equal(t, 1, code, "%s: %s", f, enc)
		require.Contains(t, errOut, "not its bytes", f)
	}
}
