package main

import (
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
)

// indexedSegment is a segment of n batches of 3 records from offset 0
// with its .index and .timeindex as Kafka writes them (an entry per batch
// after the first).
func indexedSegment(n int) (log, index, timeindex []byte) {
	var batches [][]byte
	for i := 0; i < n; i++ {
		batches = append(batches, testBatch(0, 3))
	}
	return storagedata.Segment(0, 0, batches, 1)
}

// TestLogIndexWithoutItsSegment: an .index or .timeindex with no segment
// beside it (named alone, or in a partition directory holding no .log,
// such as a lone index Kafka left) has its entries checked for order
// only: entries in order are no problem (exit 0), entries out of order
// are (exit 1, the problem printed), and under --summary its summary is
// printed.
func TestLogIndexWithoutItsSegment(t *testing.T) {
	_, index, timeindex := indexedSegment(6)
	require.GreaterOrEqual(t, len(index), 3*8)
	dir := filepath.Join(t.TempDir(), "lone-0")
	idx := writeFile(t, dir, "00000000000000000000.index", index)
	tidx := writeFile(t, dir, "00000000000000000000.timeindex", timeindex)
	for _, p := range []string{idx, tidx} {
		out, errOut, code := runCLI(t, []string{"log", p}, nil)
		require.Equal(t, 0, code, "%s: %s%s", p, errOut, out)
		require.NotContains(t, out, `"problem"`)
		require.Contains(t, out, `"problems":0,"segment":"none beside it: entries checked for order only"`)
	}
	// Entry 1 repeats entry 0: out of order.
	bad := append([]byte(nil), index...)
	copy(bad[8:16], bad[:8])
	writeFile(t, dir, "00000000000000000000.index", bad)
	out, errOut, code := runCLI(t, []string{"log", idx}, nil)
	require.Equal(t, 1, code, errOut)
	sums := ofKind(logLines(t, out), "index-summary")
	require.Len(t, sums, 1, out)
	require.EqualValues(t, 1, sums[0]["problems"], out)
	require.Contains(t, out, "is not above the entry before")
}

// TestLogPartitionOfIndexesOnly: a partition directory holding an .index
// and a .timeindex but no .log reads them alone (as
// TestLogIndexWithoutItsSegment), not passes over them as read with a
// segment that is not there: their summaries are printed, with or
// without --summary, and an index out of order is a problem said there.
func TestLogPartitionOfIndexesOnly(t *testing.T) {
	_, index, timeindex := indexedSegment(6)
	dir := filepath.Join(t.TempDir(), "lone-0")
	writeFile(t, dir, "00000000000000000000.index", index)
	writeFile(t, dir, "00000000000000000000.timeindex", timeindex)
	for _, args := range [][]string{{"log", dir}, {"log", "--summary", "--strict", dir}} {
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 0, code, "%v: %s%s", args, errOut, out)
		ls := logLines(t, out)
		require.Len(t, ofKind(ls, "index-summary"), 1, "%v: %s", args, out)
		require.Len(t, ofKind(ls, "timeindex-summary"), 1, "%v: %s", args, out)
		require.EqualValues(t, 6-1, ofKind(ls, "index-summary")[0]["entries"])
	}

	bad := append([]byte(nil), index...)
	copy(bad[8:16], bad[:8])
	writeFile(t, dir, "00000000000000000000.index", bad)
	out, errOut, code := runCLI(t, []string{"log", "--summary", dir}, nil)
	require.Equal(t, 1, code, errOut)
	sums := ofKind(logLines(t, out), "index-summary")
	require.Len(t, sums, 1, out)
	require.EqualValues(t, 1, sums[0]["problems"], out)
	require.Contains(t, out, "is not above the entry before")
}

// TestLogDeletedIndexGoesWithItsDeletedSegment: Kafka renames a segment
// past retention and its indexes to X.log.deleted, X.index.deleted and
// X.timeindex.deleted for file.delete.delay.ms: the indexes are checked
// against that segment, as X.index is against X.log, whether the
// directory, the segment or the index is named; a .deleted index that
// disagrees with its segment is found, and one with no segment beside it
// is checked for order only.
func TestLogDeletedIndexGoesWithItsDeletedSegment(t *testing.T) {
	log, index, timeindex := indexedSegment(6)
	dir := filepath.Join(t.TempDir(), "del-0")
	writeFile(t, dir, "00000000000000000000.log.deleted", log)
	idx := writeFile(t, dir, "00000000000000000000.index.deleted", index)
	writeFile(t, dir, "00000000000000000000.timeindex.deleted", timeindex)
	later, _, _ := storagedata.Segment(18, 0, [][]byte{testBatch(0, 3)}, 1)
	writeFile(t, dir, "00000000000000000018.log", later)

	out, errOut, code := runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	require.NotContains(t, out, `"problem"`)
	out, errOut, code = runCLI(t, []string{"log", "--strict", "--summary", dir}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	var seg map[string]any
	for _, s := range ofKind(logLines(t, out), "segment-summary") {
		if s["file"] == filepath.Join(dir, "00000000000000000000.log.deleted") {
			seg = s
		}
	}
	require.NotNil(t, seg, out)
	require.EqualValues(t, 6-1, seg["index"].(map[string]any)["entries"], "checked with its segment: %v", seg)
	require.NotNil(t, seg["timeindex"], "%v", seg)
	out, errOut, code = runCLI(t, []string{"log", idx}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	require.NotContains(t, out, "none beside it")
	require.NotContains(t, out, `"problem"`)

	// Entry 1 one byte into its batch: found against the segment.
	bad := append([]byte(nil), index...)
	binary.BigEndian.PutUint32(bad[12:], binary.BigEndian.Uint32(bad[12:])+1)
	writeFile(t, dir, "00000000000000000000.index.deleted", bad)
	out, _, code = runCLI(t, []string{"log", idx}, nil)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "is not the start of an entry of the segment")
	out, _, code = runCLI(t, []string{"log", "--summary", dir}, nil)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "is not the start of an entry of the segment")

	// Without its segment: order only.
	require.NoError(t, os.Remove(filepath.Join(dir, "00000000000000000000.log.deleted")))
	writeFile(t, dir, "00000000000000000000.index.deleted", index)
	out, errOut, code = runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	require.Contains(t, out, "none beside it: entries checked for order only")
	require.NotContains(t, out, `"problem"`)
}

// TestLogIndexOfAFollowerBefore40: Kafka before 4.0 wrote, on a follower
// and in the log cleaner, one .index entry per append of many batches:
// the largest offset appended, the position of the first batch. Such an
// entry names an offset of a later batch than the one at its position;
// lookups through it work, and kwire log takes it as right (exit 0). An
// entry pointing inside a batch is still wrong (exit 1).
func TestLogIndexOfAFollowerBefore40(t *testing.T) {
	var log []byte
	for base := int64(0); base < 18; base += 3 {
		log = append(log, testBatch(base, 3)...)
	}
	size := uint32(len(testBatch(0, 3)))
	// Appends of batches 6-8 and 9-11 (offset 11 at the first's
	// position), then 12-14 and 15-17.
	var index []byte
	for _, e := range [][2]uint32{{11, 2 * size}, {17, 4 * size}} {
		index = binary.BigEndian.AppendUint32(index, e[0])
		index = binary.BigEndian.AppendUint32(index, e[1])
	}
	dir := filepath.Join(t.TempDir(), "follower-0")
	writeFile(t, dir, "00000000000000000000.log", log)
	idx := writeFile(t, dir, "00000000000000000000.index", index)
	for _, args := range [][]string{{"log", dir}, {"log", idx}, {"log", "--summary", "--strict", dir}} {
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 0, code, "%v: %s%s", args, errOut, out)
		require.NotContains(t, out, `"problem"`)
	}
	binary.BigEndian.PutUint32(index[4:], 2*size+1)
	writeFile(t, dir, "00000000000000000000.index", index)
	out, _, code := runCLI(t, []string{"log", idx}, nil)
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "is not the start of an entry of the segment")
}

// TestLogIndexEntryPastTheEndLeavesTheRestChecked: an .index whose entry
// 0 points past its segment is that entry's problem; the entries after
// it, right, are checked against the segment, not said to be "past the
// segment's last entry" while pointing inside it.
func TestLogIndexEntryPastTheEndLeavesTheRestChecked(t *testing.T) {
	log, index, _ := indexedSegment(6)
	require.GreaterOrEqual(t, len(index), 3*8)
	binary.BigEndian.PutUint32(index[4:], 99999)
	dir := filepath.Join(t.TempDir(), "t-0")
	writeFile(t, dir, "00000000000000000000.log", log)
	writeFile(t, dir, "00000000000000000000.index", index)
	out, errOut, code := runCLI(t, []string{"log", dir}, nil)
	require.Equal(t, 1, code, errOut)
	ps := ofKind(logLines(t, out), "index-problem")
	require.Len(t, ps, 1, out)
	require.EqualValues(t, 0, ps[0]["entry"], out)
	require.NotContains(t, out, "past the segment's last entry")
}

// TestLogTimeIndexEntryPastTheEndLeavesTheRestChecked: so for a
// .timeindex entry whose offset is past the segment's.
func TestLogTimeIndexEntryPastTheEndLeavesTheRestChecked(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 6; i++ {
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Value: []byte("v")}, {Value: []byte("w")}},
			storagedata.BatchOptions{FirstTimestamp: storagedata.T0 + int64(i)*1000, ProducerID: -1}))
	}
	log, _, timeindex := storagedata.Segment(0, 0, batches, 1)
	require.GreaterOrEqual(t, len(timeindex), 3*12)
	binary.BigEndian.PutUint32(timeindex[8:], 99999)
	dir := filepath.Join(t.TempDir(), "t-0")
	writeFile(t, dir, "00000000000000000000.log", log)
	writeFile(t, dir, "00000000000000000000.timeindex", timeindex)
	out, errOut, code := runCLI(t, []string{"log", dir}, nil)
	require.Equal(t, 1, code, errOut)
	ps := ofKind(logLines(t, out), "index-problem")
	require.Len(t, ps, 1, out)
	require.EqualValues(t, 0, ps[0]["entry"], out)
	require.NotContains(t, out, "past the segment's last offset")
}

// TestLogIndexPartialLastEntry: an index ending in a partial entry (3
// bytes after the last whole one) is a problem of the index, counted,
// with its byte position (exit 1, as other index problems; a .txnindex's
// under --strict, as its others), and its line
// keeps the bytes: kwire encode gives the file back byte for byte. So
// for a .timeindex and a .txnindex.
func TestLogIndexPartialLastEntry(t *testing.T) {
	log, index, timeindex := indexedSegment(6)
	dir := filepath.Join(t.TempDir(), "t-0")
	writeFile(t, dir, "00000000000000000000.log", log)
	for name, b := range map[string][]byte{
		"00000000000000000000.index":     index,
		"00000000000000000000.timeindex": timeindex,
		"00000000000000000000.txnindex":  make([]byte, 34),
	} {
		b = append(append([]byte(nil), b...), "abc"...)
		p := writeFile(t, dir, name, b)
		kind := strings.TrimPrefix(filepath.Ext(name), ".")
		args := []string{"log", p}
		if kind == "txnindex" {
			// A .txnindex's partial entry fails under --strict (its
			// zero entry is also checked against the segment beside it,
			// which holds no ABORT marker: a mismatch).
			args = []string{"log", "--strict", p}
		}
		out, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 1, code, "%s: %s%s", name, errOut, out)
		ls := logLines(t, out)
		tails := ofKind(ls, kind+"-tail")
		require.Len(t, tails, 1, out)
		require.EqualValues(t, len(b)-3, tails[0]["position"], out)
		if kind != "txnindex" {
			sums := ofKind(ls, kind+"-summary")
			require.Len(t, sums, 1, out)
			require.EqualValues(t, 1, sums[0]["problems"], out)
		}
		enc, errOut, code := runCLI(t, []string{"encode"}, []byte(out))
		require.Equal(t, 0, code, "%s: %s", name, errOut)
		got, err := hex.DecodeString(strings.ReplaceAll(enc, "\n", ""))
		require.NoError(t, err)
		require.Equal(t, b, got, name)
	}
	// Read with its segment, in the partition, it is counted there too.
	out, errOut, code := runCLI(t, []string{"log", "--summary", dir}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, "a partial entry at byte")
}
