package main

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
)

// TestLogDamageInTheMiddle: a corrupt length in the middle of a segment
// (running past its end) is a "damage" line, not a torn tail: the batches
// after it are read, the summary counts the region, --strict fails, and
// kwire encode gives the file back from the lines.
func TestLogDamageInTheMiddle(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 6; i++ {
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000000 + int64(i), ProducerID: -1}))
	}
	log, _, _ := storagedata.Segment(0, 0, batches, 1<<20)
	second := 12 + int(binary.BigEndian.Uint32(log[8:]))
	binary.BigEndian.PutUint32(log[second+8:], 4096)
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	require.NoError(t, os.WriteFile(p, log, 0o644))

	out, _, code := runCLI(t, []string{"log", p}, nil)
	require.Equal(t, 0, code)
	var damage, summary map[string]any
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &o), l)
		switch o["kind"] {
		case "batch":
			// The batch the resync found says so; the others were
			// reached by the lengths before them.
			_, searched := o["searched"]
			require.Equal(t, n == 1, searched, l)
			n++
		case "damage":
			damage = o
		case "tail":
			t.Fatalf("a tail: %s", l)
		case "segment-summary":
			summary = o
		}
	}
	require.Equal(t, 5, n, out)
	require.NotNil(t, damage, out)
	require.EqualValues(t, second, damage["position"])
	require.EqualValues(t, second+len(batches[1]), damage["resume"])
	require.EqualValues(t, 1, damage["batchesBefore"])
	require.Contains(t, damage["message"], "read resumed at")
	require.NotNil(t, summary, out)
	require.EqualValues(t, 1, summary["damagedRegions"])
	require.EqualValues(t, 1, summary["entriesFoundBySearch"])
	_, _, code = runCLI(t, []string{"log", "--strict", p}, nil)
	require.Equal(t, 1, code)
	tree, _, _ := runCLI(t, []string{"log", "--format", "tree", p}, nil)
	require.Equal(t, 1, strings.Count(tree, "found by searching past damage"), tree)

	back, stderr, code := runCLI(t, []string{"encode", "--as", "binary", "-"}, []byte(out))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, string(log), back, "kwire encode gives the file back")
}

// TestLogTailZeros: a length no segment holds followed by zeros is a
// corrupt tail, not a torn one, and its line says where the zeros start;
// kwire encode still gives the file back.
func TestLogTailZeros(t *testing.T) {
	log, _, _ := storagedata.Segment(0, 0, [][]byte{storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}},
		storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})}, 1<<20)
	end := len(log)
	log = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(log, 1), 0x7fffffff)
	log = append(log, make([]byte, 4096)...)
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	require.NoError(t, os.WriteFile(p, log, 0o644))
	out, _, code := runCLI(t, []string{"log", p}, nil)
	require.Equal(t, 0, code)
	var tail map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &o), l)
		if o["kind"] == "tail" {
			tail = o
		}
	}
	require.NotNil(t, tail, out)
	require.Equal(t, false, tail["torn"])
	require.EqualValues(t, end, tail["position"])
	require.EqualValues(t, end+12, tail["zeroFrom"])
	require.Contains(t, tail["message"], "more than a segment holds")
	back, stderr, code := runCLI(t, []string{"encode", "--as", "binary", "-"}, []byte(out))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, string(log), back, "kwire encode gives the file back")
}

// TestLogIndexNamesWhereEntriesStart: a damaged batch holding a batch in
// a record's value, the batch after it damaged too: kwire log reads the
// .index beside the segment for where entries start, so the batch inside
// is not listed as an entry of the log.
func TestLogIndexNamesWhereEntriesStart(t *testing.T) {
	inner := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("mirrored")}}, storagedata.BatchOptions{FirstTimestamp: 1600000000000, ProducerID: -1})
	storagedata.Place(inner, 1000, 0)
	var batches [][]byte
	for i := 0; i < 5; i++ {
		v := []byte("order")
		if i == 1 {
			v = inner
		}
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("a")}, {Key: []byte("k"), Value: v}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000000 + int64(i), ProducerID: -1}))
	}
	log, _, _ := storagedata.Segment(0, 0, batches, 1<<20)
	var at []int
	for p := 0; p < len(log); p += 12 + int(binary.BigEndian.Uint32(log[p+8:])) {
		at = append(at, p)
	}
	binary.BigEndian.PutUint32(log[at[1]+57:], 3) // its records no longer fill it
	log[at[2]+16] = 9                             // and the batch after it is no batch
	index := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 5), uint32(at[2]))
	dir := t.TempDir()
	p := filepath.Join(dir, "00000000000000000000.log")
	require.NoError(t, os.WriteFile(p, log, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "00000000000000000000.index"), index, 0o644))

	out, _, _ := runCLI(t, []string{"log", p}, nil)
	var positions []int
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var o map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &o), l)
		if o["kind"] == "batch" {
			positions = append(positions, int(o["position"].(float64)))
			require.NotContains(t, l, `"searched"`)
		}
	}
	require.Equal(t, []int{at[0], at[1], at[3], at[4]}, positions, out)
}

// TestLogTornBatchInPreallocatedSpace: a preallocated segment whose last
// batch a crash cut short (what was written of it, then zeros to the end
// of the file) is one torn tail at that batch, saying where its zeros
// start, not a batch whose CRC fails and a tail of zeros; a problem
// (--strict exits 1), and kwire encode still gives the file back: the tail, too large to
// carry whole, carries its bytes up to the zeros.
func TestLogTornBatchInPreallocatedSpace(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 3; i++ {
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Key: []byte("key"), Value: []byte("a value long enough to cut")}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1}))
	}
	log, _, _ := storagedata.Segment(0, 0, batches, 1<<20)
	last := len(log) - len(batches[2])
	cut := last + 75
	for log[cut-1] == 0 {
		cut--
	}
	file := append(append([]byte(nil), log[:cut]...), make([]byte, 2<<20)...)
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	require.NoError(t, os.WriteFile(p, file, 0o644))
	_, _, code := runCLI(t, []string{"log", "--strict", p}, nil)
	require.Equal(t, 1, code)
	out, _, code := runCLI(t, []string{"log", p}, nil)
	require.Equal(t, 0, code, out)
	ls := logLines(t, out)
	require.Len(t, ofKind(ls, "batch"), 2)
	tails := ofKind(ls, "tail")
	require.Len(t, tails, 1)
	require.Equal(t, true, tails[0]["torn"])
	require.EqualValues(t, last, tails[0]["position"])
	require.EqualValues(t, cut, tails[0]["zeroFrom"])
	require.EqualValues(t, len(file)-last, tails[0]["size"])
	require.Contains(t, tails[0]["message"], "a write cut short")
	sum := ofKind(ls, "segment-summary")[0]
	require.EqualValues(t, 0, sum["crcErrors"])
	back, stderr, code := runCLI(t, []string{"encode", "--as", "binary", "-"}, []byte(out))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, string(file), back, "kwire encode gives the file back")
}

// TestLogTornLongBatchInPreallocatedSpace: a last batch longer than
// --max-batch cut short in preallocated space is a torn tail too, as a
// shorter one is (TestLogTornBatchInPreallocatedSpace). It was a corrupt
// tail, whose line, 2 MiB being too many to carry, carried no bytes, so
// kwire encode could not give the file back; torn, it carries its bytes
// up to the zeros, and kwire encode writes them after those.
func TestLogTornLongBatchInPreallocatedSpace(t *testing.T) {
	small := storagedata.Batch([]storagedata.Record{{Key: []byte("key"), Value: []byte("a value")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	big := storagedata.Batch([]storagedata.Record{{Key: []byte("key"), Value: []byte(strings.Repeat("a long value ", 400))}}, storagedata.BatchOptions{FirstTimestamp: 1700000001000, ProducerID: -1})
	log, _, _ := storagedata.Segment(0, 0, [][]byte{small, big}, 1<<20)
	last := len(log) - len(big)
	cut := last + 300
	file := append(append([]byte(nil), log[:cut]...), make([]byte, 2<<20)...)
	p := filepath.Join(t.TempDir(), "00000000000000000000.log")
	require.NoError(t, os.WriteFile(p, file, 0o644))
	out, _, code := runCLI(t, []string{"log", "--max-batch", "1000", p}, nil)
	require.Equal(t, 0, code, out)
	ls := logLines(t, out)
	require.Len(t, ofKind(ls, "batch"), 1)
	tails := ofKind(ls, "tail")
	require.Len(t, tails, 1)
	require.Equal(t, true, tails[0]["torn"], tails[0]["message"])
	require.EqualValues(t, last, tails[0]["position"])
	require.EqualValues(t, cut, tails[0]["zeroFrom"])
	require.Contains(t, tails[0]["message"], "a write cut short")
	back, stderr, code := runCLI(t, []string{"encode", "--as", "binary", "-"}, []byte(out))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, string(file), back, "kwire encode gives the file back")
}
