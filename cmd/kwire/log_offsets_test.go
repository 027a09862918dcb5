package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/internal/storagedata"
)

// testBatch is an uncompressed batch of n records at base offset base.
func testBatch(base int64, n int) []byte {
	recs := make([]storagedata.Record, n)
	for i := range recs {
		recs[i] = storagedata.Record{Key: []byte("k" + strconv.Itoa(i)), Value: []byte("v"), TimestampDelta: int64(i)}
	}
	b := storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: storagedata.T0, ProducerID: -1})
	storagedata.Place(b, base, 0)
	return b
}

// setLastOffsetDelta rewrites a batch's lastOffsetDelta and its CRC.
func setLastOffsetDelta(b []byte, d int32) []byte {
	binary.BigEndian.PutUint32(b[23:], uint32(d))
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// writeSegments writes a partition directory dir/name holding a segment
// per base offset, each the batches given, and returns its path.
func writeSegments(t *testing.T, name string, segs map[int64][][]byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for base, batches := range segs {
		var b []byte
		for _, x := range batches {
			b = append(b, x...)
		}
		f := strconv.FormatInt(base, 10)
		f = strings.Repeat("0", 20-len(f)) + f + ".log"
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	return dir
}

// logLines parses kwire log's ndjson output.
func logLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ls []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &o), l)
		ls = append(ls, o)
	}
	return ls
}

// ofKind is the lines of one kind.
func ofKind(ls []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, l := range ls {
		if l["kind"] == kind {
			out = append(out, l)
		}
	}
	return out
}

// TestLogReportsOffsetsOutOfOrder: entries whose offsets overlap or go
// back, a segment running past the next segment's base, a batch below
// its segment's base and a negative lastOffsetDelta are problems (a line
// each, counted in the summaries, exit 1 under --strict); lastOffset is
// the largest offset held, and no gap is made up from a batch that went
// back.
func TestLogReportsOffsetsOutOfOrder(t *testing.T) {
	dir := writeSegments(t, "t-0", map[int64][][]byte{
		0: {testBatch(0, 4), testBatch(2, 4), testBatch(1, 1)},
		3: {testBatch(3, 2)},
	})
	out, errOut, code := runCLI(t, []string{"log", "--summary", "--strict", dir}, nil)
	require.Equal(t, 1, code, errOut)
	ls := logLines(t, out)
	require.Len(t, ls, 1, "--summary prints only the summary")
	sum := ls[0]
	require.EqualValues(t, 5, sum["lastOffset"])
	require.EqualValues(t, 0, sum["gaps"], "no gap after the batch that went back")
	require.EqualValues(t, 3, sum["offsetProblems"])
	seg0 := sum["segmentFiles"].([]any)[0].(map[string]any)
	require.EqualValues(t, 5, seg0["lastOffset"])
	require.EqualValues(t, 0, seg0["gaps"])
	var msgs []string
	for _, p := range seg0["offsetProblemList"].([]any) {
		msgs = append(msgs, p.(map[string]any)["problem"].(string))
	}
	require.Equal(t, []string{
		"offsets 2-5 overlap the entries before it, which reached offset 3",
		"offsets 1-1 go back below the entries before it, which reached offset 5",
		"the segment runs to offset 5, past the next segment's base offset 3",
	}, msgs)

	// Without --summary each is a line with its position; without
	// --strict the exit status is 0.
	out, errOut, code = runCLI(t, []string{"log", dir}, nil)
	require.Equal(t, 0, code, errOut)
	probs := ofKind(logLines(t, out), "offset-problem")
	require.Len(t, probs, 3)
	require.EqualValues(t, len(testBatch(0, 4)), probs[0]["position"], "the second batch's position")

	// A batch below its segment's base; a negative lastOffsetDelta.
	dir = writeSegments(t, "u-0", map[int64][][]byte{100: {testBatch(0, 1), setLastOffsetDelta(testBatch(101, 2), -1)}})
	out, errOut, code = runCLI(t, []string{"log", "--strict", dir}, nil)
	require.Equal(t, 1, code, errOut)
	msgs = nil
	for _, p := range ofKind(logLines(t, out), "offset-problem") {
		msgs = append(msgs, p["problem"].(string))
	}
	require.Equal(t, []string{
		"base offset 0 is below the segment's base offset 100 (its file name)",
		"lastOffsetDelta -1 is negative",
	}, msgs)
}

// setRecordCount rewrites a batch's record count and its CRC.
func setRecordCount(b []byte, n int32) []byte {
	binary.BigEndian.PutUint32(b[57:], uint32(n))
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// TestLogStrictFailsOnAWarningInEveryFormat: a batch whose records decode
// with a warning (its count says more records than it holds) exits 1
// under --strict whatever --format and --summary say, and 0 without.
func TestLogStrictFailsOnAWarningInEveryFormat(t *testing.T) {
	dir := writeSegments(t, "w-0", map[int64][][]byte{0: {setRecordCount(testBatch(0, 1), 2147483647)}})
	seg := filepath.Join(dir, "00000000000000000000.log")
	for _, flags := range [][]string{nil, {"--format", "json"}, {"--format", "tree"}, {"--summary"}, {"--summary", "--format", "tree"}} {
		for _, p := range []string{seg, dir} {
			args := append(append([]string{"log"}, flags...), p)
			_, errOut, code := runCLI(t, args, nil)
			require.Equal(t, 0, code, "%v: %s", args, errOut)
			args = append(append([]string{"log", "--strict"}, flags...), p)
			_, errOut, code = runCLI(t, args, nil)
			require.Equal(t, 1, code, "%v: %s", args, errOut)
		}
	}
}

// TestLogSummaryPrintsOnlySummaries: under --summary a partition with a
// wrong index prints its summary line alone, the problems counted there.
func TestLogSummaryPrintsOnlySummaries(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"log", "--summary", "broken/wrong-index"}, nil)
	require.Equal(t, 1, code, errOut)
	ls := logLines(t, out)
	require.Len(t, ls, 1, out)
	require.Equal(t, "partition-summary", ls[0]["kind"])
	require.NotZero(t, ls[0]["indexProblems"])
}

// TestLogIndexExitsOnItsOwnProblems: kwire log X.index lists and judges
// X.index alone: a bad .timeindex beside it does not make it exit 1 with
// "problems":0, and kwire log X.timeindex prints the problem it exits 1
// for.
func TestLogIndexExitsOnItsOwnProblems(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 8; i++ {
		batches = append(batches, testBatch(0, 3))
	}
	log, index, timeindex := storagedata.Segment(0, 0, batches, 1)
	require.NotEmpty(t, timeindex)
	binary.BigEndian.PutUint32(timeindex[8:], 1000) // the first time entry points past the segment's offsets
	dir := filepath.Join(t.TempDir(), "x-0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for ext, b := range map[string][]byte{".log": log, ".index": index, ".timeindex": timeindex} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "00000000000000000000"+ext), b, 0o644))
	}
	out, errOut, code := runCLI(t, []string{"log", filepath.Join(dir, "00000000000000000000.index")}, nil)
	require.Equal(t, 0, code, errOut)
	sums := ofKind(logLines(t, out), "index-summary")
	require.Len(t, sums, 1)
	require.EqualValues(t, 0, sums[0]["problems"])

	out, errOut, code = runCLI(t, []string{"log", filepath.Join(dir, "00000000000000000000.timeindex")}, nil)
	require.Equal(t, 1, code, errOut)
	sums = ofKind(logLines(t, out), "timeindex-summary")
	require.Len(t, sums, 1)
	require.NotZero(t, sums[0]["problems"], out)
}

// TestLogSummaryOfOddFileNamesIsJSON: a segment whose name holds DEL,
// invalid UTF-8 or a quote gives a summary line that is valid JSON.
func TestLogSummaryOfOddFileNamesIsJSON(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a\x7fb.log", "\xff\xfe.log", `q"u\o.log`, "café.log"} {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, testBatch(0, 2), 0o644))
		for _, args := range [][]string{{"log", "--summary", p}, {"log", p}} {
			out, errOut, code := runCLI(t, args, nil)
			require.Equal(t, 0, code, errOut)
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				require.True(t, json.Valid([]byte(l)), "%q: %s", name, l)
			}
			require.Contains(t, out, `"kind":"segment-summary","baseOffset":0,`)
		}
	}
}

// TestLogReadsASegmentFromAPipe: /dev/stdin when it is a pipe, and "-",
// read every batch of the segment piped in (its first bytes are looked
// at, not lost); bytes that are no segment are refused.
func TestLogReadsASegmentFromAPipe(t *testing.T) {
	var seg []byte
	for i := int64(0); i < 3; i++ {
		seg = append(seg, testBatch(i*2, 2)...)
	}
	for _, arg := range []string{"-", "/dev/stdin"} {
		out, errOut, code := runCLI(t, []string{"log", "--strict", arg}, seg)
		require.Equal(t, 0, code, "%s: %s", arg, errOut)
		ls := logLines(t, out)
		require.Len(t, ofKind(ls, "batch"), 3, out)
		sums := ofKind(ls, "segment-summary")
		require.Len(t, sums, 1)
		require.EqualValues(t, 3, sums[0]["batches"])
		require.EqualValues(t, 5, sums[0]["lastOffset"])
		require.Nil(t, sums[0]["tail"])
	}
	_, errOut, code := runCLI(t, []string{"log", "-"}, []byte("hello, world, not a segment\n"))
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "kwire: log: -: not a segment")

	// An offset index's entries pass for an entry's head (a length of
	// 17, a magic byte 0): it was printed as a magic 0 message at offset
	// 30064771357, exit 0. Its "entry" has no CRC of its bytes.
	var index []byte
	for _, e := range [][2]uint32{{7, 285}, {17, 700}, {25, 923}, {31, 1191}} {
		index = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(index, e[0]), e[1])
	}
	out, errOut, code := runCLI(t, []string{"log", "-"}, index)
	require.Equal(t, 1, code, out)
	require.Empty(t, out)
	require.Contains(t, errOut, "kwire: log: -: not a segment (by its bytes: its first entry's CRC does not match them)")
}

// TestLogTreeShowsPayloadsControlRecordsAndHeaders: --format tree draws
// what --schemas decodes of a value (as ndjson's "decoded" says it), a
// control record as COMMIT, and each header's key and value.
func TestLogTreeShowsPayloadsControlRecordsAndHeaders(t *testing.T) {
	schemas := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(schemas, "2.json"),
		[]byte(`{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}}}`), 0o644))
	value := append([]byte{0, 0, 0, 0, 2}, `{"id":1,"name":"bob"}`...)
	data := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: value,
		Headers: []kmsg.Header{{Key: "trace-id", Value: []byte("abc123")}}}},
		storagedata.BatchOptions{FirstTimestamp: storagedata.T0, ProducerID: 7, Transactional: true})
	commit := storagedata.Batch([]storagedata.Record{{Key: []byte{0, 0, 0, 1}, Value: []byte{0, 0, 0, 0, 0, 3}}},
		storagedata.BatchOptions{FirstTimestamp: storagedata.T0, ProducerID: 7, Transactional: true, Control: true})
	storagedata.Place(commit, 1, 0)
	dir := writeSegments(t, "p-0", map[int64][][]byte{0: {data, commit}})
	out, errOut, code := runCLI(t, []string{"log", "--format", "tree", "--schemas", schemas, filepath.Join(dir, "00000000000000000000.log")}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "schemaId int32 = 2")
	require.Contains(t, out, `name json string = "bob"`)
	require.Contains(t, out, `key = "trace-id" value = "abc123"`)
	require.Contains(t, out, "= COMMIT (")
	require.Contains(t, out, "coordinatorEpoch int32 = 3")
	// The batch line says what its header says of the batch as a whole,
	// as the ndjson's attributes do: it said only its offsets and size.
	require.Contains(t, out, "batch magic 2 offsets 0-0 at 0 ("+strconv.Itoa(len(data))+" bytes) transactional producer 7\n")
	require.Contains(t, out, "batch magic 2 offsets 1-1 at "+strconv.Itoa(len(data))+" ("+strconv.Itoa(len(commit))+" bytes) transactional control producer 7\n")
}

// TestLogTreeNamesAnInternalMessageOnce: an internal topic's key or value
// message was drawn "OffsetCommitKey OffsetCommitKey v0", its name and
// then its type, which begins with it.
func TestLogTreeNamesAnInternalMessageOnce(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"log", "--format", "tree", "--color", "never", "logdir/__consumer_offsets-7/00000000000000000000.log"}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "      OffsetCommitKey v0 [")
	require.NotContains(t, out, "OffsetCommitKey OffsetCommitKey")
}

// TestLogZeroFilledTailIsNoProblem: zeros to the end of a segment (space
// a broker preallocated and never wrote) are said as such, not counted
// as a torn or corrupt tail, and pass --strict; the tail line carries no
// megabyte of base64 zeros, and kwire encode writes them back from its
// size.
func TestLogZeroFilledTailIsNoProblem(t *testing.T) {
	seg := append(append(testBatch(0, 4), testBatch(4, 2)...), make([]byte, 1<<20)...)
	dir := writeSegments(t, "t-0", map[int64][][]byte{0: {seg}})
	out, errOut, code := runCLI(t, []string{"log", "--summary", "--strict", dir}, nil)
	require.Equal(t, 0, code, errOut)
	sum := logLines(t, out)[0]
	require.EqualValues(t, 0, sum["tornOrCorruptTails"])
	tail := sum["segmentFiles"].([]any)[0].(map[string]any)["tail"].(map[string]any)
	require.Equal(t, true, tail["zero"])
	require.EqualValues(t, 1<<20, tail["size"])

	file := filepath.Join(dir, "00000000000000000000.log")
	out, errOut, code = runCLI(t, []string{"log", "--strict", file}, nil)
	require.Equal(t, 0, code, errOut)
	tails := ofKind(logLines(t, out), "tail")
	require.Len(t, tails, 1)
	require.Equal(t, true, tails[0]["zero"])
	require.NotContains(t, tails[0], "bytes", "zeros are not carried")
	require.Less(t, len(out), 4096)
	hexOut, errOut, code := runCLI(t, []string{"encode"}, []byte(out))
	require.Equal(t, 0, code, errOut)
	got, err := hex.DecodeString(strings.TrimSpace(strings.ReplaceAll(hexOut, "\n", "")))
	require.NoError(t, err)
	require.Equal(t, seg, got, "kwire encode gives the segment back, zeros and all")
}

// TestLogKRaftSnapshotNameIsItsEndOffset: <endOffset>-<epoch>.checkpoint
// names the end of the log a KRaft snapshot stands for; its own records
// are numbered from 0. The repo's sample (offsets 0-9, named 8) has no
// offset problem, passes --strict, and its summary says the name's end
// offset and epoch, not a base offset.
func TestLogKRaftSnapshotNameIsItsEndOffset(t *testing.T) {
	snap := "logdir/__cluster_metadata-0/00000000000000000008-0000000001.checkpoint"
	out, errOut, code := runCLI(t, []string{"log", "--strict", snap}, nil)
	require.Equal(t, 0, code, "%s%s", errOut, out)
	ls := logLines(t, out)
	require.Empty(t, ofKind(ls, "offset-problem"))
	sums := ofKind(ls, "segment-summary")
	require.Len(t, sums, 1)
	require.EqualValues(t, 8, sums[0]["snapshotEndOffset"])
	require.EqualValues(t, 1, sums[0]["snapshotEpoch"])
	require.NotContains(t, sums[0], "baseOffset")
	require.EqualValues(t, 0, sums[0]["offsetProblems"])
	require.EqualValues(t, 0, sums[0]["firstOffset"])
	_, errOut, code = runCLI(t, []string{"log", "--strict", "--summary", snap}, nil)
	require.Equal(t, 0, code, errOut)
}

// TestLogSegmentPastTheNextBaseNamesItsBatch: the problem of a segment
// running past the next segment's base names the batch holding its last
// offset with that batch's own offsets (12-14), not its last offset
// twice.
func TestLogSegmentPastTheNextBaseNamesItsBatch(t *testing.T) {
	dir := writeSegments(t, "o-0", map[int64][][]byte{
		0:  {testBatch(0, 3), testBatch(3, 3), testBatch(6, 3), testBatch(9, 3), testBatch(12, 3)},
		10: {testBatch(10, 3), testBatch(13, 3)},
	})
	out, errOut, code := runCLI(t, []string{"log", dir}, nil)
	require.Equal(t, 0, code, errOut)
	probs := ofKind(logLines(t, out), "offset-problem")
	require.Len(t, probs, 1, out)
	require.EqualValues(t, 4*len(testBatch(0, 3)), probs[0]["position"])
	require.EqualValues(t, 12, probs[0]["baseOffset"])
	require.EqualValues(t, 14, probs[0]["lastOffset"])
	require.Equal(t, "the segment runs to offset 14, past the next segment's base offset 10", probs[0]["problem"])
}

// TestLogRecordCountPastItsOffsets: a batch whose header declares more
// records than its offsets span (2147483647 for a batch of one offset)
// is counted as the offsets it spans, not as its header says, and the
// declaration is an offset problem (said, counted, exit 1 under
// --strict).
func TestLogRecordCountPastItsOffsets(t *testing.T) {
	dir := writeSegments(t, "h-0", map[int64][][]byte{0: {setRecordCount(testBatch(0, 1), 2147483647), testBatch(1, 2)}})
	out, errOut, code := runCLI(t, []string{"log", "--summary", dir}, nil)
	require.Equal(t, 0, code, errOut)
	sum := logLines(t, out)[0]
	require.EqualValues(t, 3, sum["records"], out)
	require.EqualValues(t, 1, sum["offsetProblems"], out)
	require.Contains(t, out, "the header declares 2147483647 records, more than its offsets hold (1)")
	_, _, code = runCLI(t, []string{"log", "--summary", "--strict", dir}, nil)
	require.Equal(t, 1, code)
}

// TestLogStrictFailsOnAnInternalRecordThatDoesNotDecode: records of an
// internal topic that do not decode as its records (an ordinary topic's
// segment under __consumer_offsets-7) carry an "error" and fail --strict
// in every format; the error's offset is a position in the segment, as
// the warnings' are, in the second batch as in the first.
func TestLogStrictFailsOnAnInternalRecordThatDoesNotDecode(t *testing.T) {
	b0, b1 := testBatch(0, 2), testBatch(2, 2)
	dir := writeSegments(t, "__consumer_offsets-7", map[int64][][]byte{0: {b0, b1}})
	seg := filepath.Join(dir, "00000000000000000000.log")
	for _, flags := range [][]string{nil, {"--format", "json"}, {"--format", "tree"}, {"--summary"}} {
		args := append(append([]string{"log", "--strict"}, flags...), seg)
		_, errOut, code := runCLI(t, args, nil)
		require.Equal(t, 1, code, "%v: %s", args, errOut)
	}
	out, errOut, _ := runCLI(t, []string{"log", seg}, nil)
	batches := ofKind(logLines(t, out), "batch")
	require.Len(t, batches, 2, errOut)
	at := func(i int) float64 {
		e := batches[i]["internal"].([]any)[0].(map[string]any)["error"].(map[string]any)
		require.NotContains(t, e, "buf")
		return e["offset"].(float64)
	}
	require.Greater(t, at(0), 61.0)
	require.Equal(t, at(0)+float64(len(b0)), at(1))
}
