//go:build js && wasm

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"os"
	"strconv"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/internal/storagedata"
	"github.com/kwire/kwire/wasm/internal/glue"
)

// answer is what open answers, as the page reads it.
type answer struct {
	Topic       string
	Guessed     bool
	RecordCount int
	Records     []struct{ Offset int64 }
	Files       []struct {
		Name     string
		Problems []string
		Notes    []string
		Wrappers int
	}
}

// openAnswer opens the files (name, bytes, in this order) as the page
// does, the topic guessed.
func openAnswer(t *testing.T, files ...any) answer {
	t.Helper()
	return openAs(t, false, files...)
}

// openAs is openAnswer for files picked (folder false) or a partition
// folder's (true).
func openAs(t *testing.T, folder bool, files ...any) answer {
	t.Helper()
	names, blobs := js.Global().Get("Array").New(), js.Global().Get("Array").New()
	for i := 0; i < len(files); i += 2 {
		names.Call("push", files[i].(string))
		blobs.Call("push", js.Global().Get("Blob").New([]any{glue.Uint8Array(files[i+1].([]byte))}))
	}
	got := await(t, open(js.Undefined(), []js.Value{names, blobs, js.Undefined(), js.Undefined(), js.ValueOf(folder)}))
	var a answer
	if err := json.Unmarshal([]byte(got), &a); err != nil {
		t.Fatalf("%v: %.300s", err, got)
	}
	return a
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(root + "/" + path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func problems(a answer) []string {
	var out []string
	for _, f := range a.Files {
		out = append(out, f.Problems...)
	}
	return out
}

func matching(ps []string, sub string) int {
	n := 0
	for _, p := range ps {
		if strings.Contains(p, sub) {
			n++
		}
	}
	return n
}

// The offset problems kwire log reports (storage.OffsetCheck) are the
// playground's too: a segment appended to itself goes back (5 batches),
// a segment running past the next one's base offset, a base offset below
// the file name's, a batch declaring more records than its offsets hold.
func TestStorageOffsetProblems(t *testing.T) {
	const seg0, seg24 = "00000000000000000000.log", "00000000000000000024.log"
	orders0, orders24 := read(t, "logdir/orders-0/"+seg0), read(t, "logdir/orders-0/"+seg24)
	ps := problems(openAnswer(t, seg0, append(append([]byte(nil), orders0...), orders0...)))
	if len(ps) != 5 || matching(ps, "go back below the entries before it, which reached offset 23") != 5 {
		t.Errorf("a segment appended to itself: %q", ps)
	}
	ps = problems(openAnswer(t, seg0, orders0, "00000000000000000010.log", orders24))
	if len(ps) != 1 || matching(ps, "the segment runs to offset 23, past the next segment's base offset 10") != 1 {
		t.Errorf("overlapping segments: %q", ps)
	}
	ps = problems(openAnswer(t, seg24, orders0))
	if len(ps) == 0 || matching(ps, "is below the segment's base offset 24 (its file name)") != len(ps) {
		t.Errorf("a base offset below the file name's: %q", ps)
	}
	b := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	binary.BigEndian.PutUint32(b[57:], 0x7fffffff)
	resum(b)
	ps = problems(openAnswer(t, seg0, b))
	if matching(ps, "the header declares 2147483647 records, more than its offsets hold (1)") != 1 {
		t.Errorf("a batch declaring 2147483647 records: %q", ps)
	}
}

// resum sets a record batch's CRC-32C over its bytes.
func resum(b []byte) {
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
}

// An .index whose entry 0 points past the segment: that entry is the one
// flagged, not every later (right) entry as past the segment's end.
func TestStorageIndexEntryPastTheEnd(t *testing.T) {
	index := read(t, "logdir/orders-0/00000000000000000000.index")
	index = append([]byte(nil), index...)
	binary.BigEndian.PutUint32(index[4:], 99999)
	a := openAnswer(t, "00000000000000000000.log", read(t, "logdir/orders-0/00000000000000000000.log"), "00000000000000000000.index", index)
	ps := problems(a)
	if len(ps) != 1 || !strings.HasPrefix(ps[0], "entry 0: ") {
		t.Errorf("%q", ps)
	}
}

// Warnings kwire log writes in a batch's line are problems here too: a
// record length that does not fit, a wrapper over the decompression
// limit.
func TestStorageRecordWarnings(t *testing.T) {
	b := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	b = append(b[:61], append([]byte{0x80, 0x80, 0x80, 0x80, 0x08}, b[62:]...)...) // the record's length: 2^30
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	resum(b)
	ps := problems(openAnswer(t, "00000000000000000000.log", b))
	if matching(ps, "record 0 at byte 61: record length 1073741824 does not fit the 8 bytes left") != 1 {
		t.Errorf("a record length that does not fit: %q", ps)
	}
	big := legacyMessage(1, 0, 0, 1700000000000, nil, make([]byte, 40<<20))
	ps = problems(openAnswer(t, "00000000000000000000.log", gzipWrapper(1, 0, 1700000000000, big)))
	if matching(ps, "MaxDecompressed") != 1 {
		t.Errorf("a wrapper over the decompression limit: %q", ps)
	}
}

// A legacy compressed wrapper is no record: its messages are, as kwire
// log counts them.
func TestStorageWrapperIsNoRecord(t *testing.T) {
	var inner [][]byte
	for i := 0; i < 3; i++ {
		inner = append(inner, legacyMessage(1, int64(i), 0, 1700000000000+int64(i), []byte("k"), []byte("v")))
	}
	a := openAnswer(t, "00000000000000000000.log", gzipWrapper(1, 2, 1700000000002, inner...))
	if a.RecordCount != 3 || len(a.Records) != 3 || a.Records[0].Offset != 0 || a.Records[2].Offset != 2 || a.Files[0].Wrappers != 1 || len(problems(a)) != 0 {
		t.Errorf("%+v", a)
	}
}

// Zeros to the end are a note, not a problem, as kwire log has them; the
// topic is guessed on evidence only: not from records whose keys and
// values are null, and a KRaft snapshot's name says __cluster_metadata.
func TestStorageZeroTailAndGuesses(t *testing.T) {
	seg := append(append([]byte(nil), read(t, "logdir/orders-0/00000000000000000000.log")...), make([]byte, 100000)...)
	a := openAnswer(t, "00000000000000000000.log", seg)
	if len(problems(a)) != 0 || len(a.Files[0].Notes) != 1 || !strings.Contains(a.Files[0].Notes[0], "zero") {
		t.Errorf("a zero-filled tail: %+v", a.Files)
	}
	nulls := storagedata.Batch([]storagedata.Record{{}, {}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	if a := openAnswer(t, "00000000000000000000.log", nulls); a.Topic != "" || a.Guessed {
		t.Errorf("null keys and values guessed as %q", a.Topic)
	}
	const snap = "kraft-snapshot-two-footers/00000000000000000010-0000000001.checkpoint"
	b, err := os.ReadFile("../../testdata/hostile/storage/" + snap)
	if err != nil {
		t.Fatal(err)
	}
	if a := openAnswer(t, "00000000000000000010-0000000001.checkpoint", b); a.Topic != "__cluster_metadata" {
		t.Errorf("a KRaft snapshot guessed as %q", a.Topic)
	}
}

// legacyMessage lays out a magic 0 or 1 message at offset, as Kafka's
// LegacyRecord writes it.
func legacyMessage(magic int8, offset int64, attrs byte, ts int64, key, value []byte) []byte {
	m := []byte{byte(magic), attrs}
	if magic == 1 {
		m = binary.BigEndian.AppendUint64(m, uint64(ts))
	}
	for _, b := range [][]byte{key, value} {
		if b == nil {
			m = binary.BigEndian.AppendUint32(m, 0xffffffff)
			continue
		}
		m = binary.BigEndian.AppendUint32(m, uint32(len(b)))
		m = append(m, b...)
	}
	out := binary.BigEndian.AppendUint64(nil, uint64(offset))
	out = binary.BigEndian.AppendUint32(out, uint32(4+len(m)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(m))
	return append(out, m...)
}

// gzipWrapper is a gzip wrapper message at offset holding inner.
func gzipWrapper(magic int8, offset, ts int64, inner ...[]byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(bytes.Join(inner, nil))
	w.Close()
	return legacyMessage(magic, offset, 1, ts, nil, z.Bytes())
}

// An internal topic's record that does not decode is a problem, said at
// its position in the segment (kwire log's "error" offset), in the
// second batch as in the first.
func TestStorageInternalRecordErrorAtItsPosition(t *testing.T) {
	var seg []byte
	for i := 0; i < 2; i++ {
		b := storagedata.Batch([]storagedata.Record{{Key: []byte("k0"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
		storagedata.Place(b, int64(i), 0)
		seg = append(seg, b...)
	}
	names, blobs := js.Global().Get("Array").New(), js.Global().Get("Array").New()
	names.Call("push", "00000000000000000000.log")
	blobs.Call("push", js.Global().Get("Blob").New([]any{glue.Uint8Array(seg)}))
	var a answer
	got := await(t, open(js.Undefined(), []js.Value{names, blobs, js.ValueOf("__consumer_offsets")}))
	if err := json.Unmarshal([]byte(got), &a); err != nil {
		t.Fatal(err)
	}
	ps := problems(a)
	half := int64(len(seg) / 2)
	if len(ps) != 2 || !strings.Contains(ps[0], "its key, at byte 66 (type)") || !strings.Contains(ps[1], "its key, at byte "+strconv.FormatInt(half+66, 10)+" (type)") {
		t.Errorf("%q", ps)
	}
}

// A batch whose CRC does not match is one CRC problem, as kwire log counts
// it: the decoder's warning of the same mismatch was listed beside it.
func TestStorageBadCRCIsOneProblem(t *testing.T) {
	b := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	b[len(b)-1] ^= 1 // the last record byte: the CRC no longer matches
	ps := problems(openAnswer(t, "00000000000000000000.log", b))
	if matching(ps, "CRC") != 1 || matching(ps, "does not match its bytes") != 1 {
		t.Errorf("a bad CRC: %q", ps)
	}
}

// Two files of one name are two partitions' (a browser drops files by
// name alone): they were read as one partition's, their records listed
// together with their offsets twice, and nothing said so.
func TestStorageTwoFilesOfOneName(t *testing.T) {
	b := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	a := openAnswer(t, "00000000000000000000.log", b, "00000000000000000000.log", b)
	if len(a.Files) != 2 || len(a.Files[0].Problems) != 0 || matching(a.Files[1].Problems, `another file given is named "00000000000000000000.log" too`) != 1 {
		t.Errorf("two files of one name: %+v", a.Files)
	}
}

// A control record's key (00 00 00 01) is valid UTF-8 but no text: the
// table showed it as escaped NULs. Keys and values are text as the
// records' JSON has it, printable characters, else base64.
func TestStorageTableKeysAsTheJSONHasThem(t *testing.T) {
	data := storagedata.Batch([]storagedata.Record{{Key: []byte("k\tey é"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: 7, Transactional: true})
	commit := storagedata.Batch([]storagedata.Record{{Key: []byte{0, 0, 0, 1}, Value: []byte{0, 0, 0, 0, 0, 3}}},
		storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: 7, Transactional: true, Control: true})
	storagedata.Place(commit, 1, 0)
	names, blobs := js.Global().Get("Array").New(), js.Global().Get("Array").New()
	names.Call("push", "00000000000000000000.log")
	blobs.Call("push", js.Global().Get("Blob").New([]any{glue.Uint8Array(append(data, commit...))}))
	got := await(t, open(js.Undefined(), []js.Value{names, blobs, js.ValueOf("orders")}))
	var a struct {
		Records []struct{ Key, Marker string }
	}
	if err := json.Unmarshal([]byte(got), &a); err != nil {
		t.Fatalf("%v: %.300s", err, got)
	}
	if len(a.Records) != 2 || a.Records[0].Key != "k\tey é" || a.Records[1].Key != "base64:AAAAAQ==" || a.Records[1].Marker != "COMMIT" {
		t.Errorf("keys: %+v", a.Records)
	}
}

// The checks kwire log runs on a partition's files that storage.wasm did
// not: a .txnindex against its segment (storage.TxnCheck) and the
// leader-epoch-checkpoint against the batches' epochs and the log end
// (storage.CheckLeaderEpochs). A segment of a plain batch (offset 0),
// producer 7's aborted transaction (1-2) and its ABORT marker (3), all of
// leader epoch 0.
func TestStorageTxnIndexAndLeaderEpochChecked(t *testing.T) {
	plain := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	log, index, _ := storagedata.Segment(0, 0, append([][]byte{plain}, storagedata.AbortedTransaction(7, 0, 1700000001000)...), 100)
	const seg, idx, txn = "00000000000000000000.log", "00000000000000000000.index", "00000000000000000000.txnindex"
	// Right: one entry naming the marker at 3.
	a := openAnswer(t, seg, log, idx, index, txn, storagedata.AbortedTxn(0, 7, 1, 3, 4))
	if ps := problems(a); len(ps) != 0 {
		t.Errorf("a right .txnindex: %q", ps)
	}
	// An entry whose last offset holds the plain batch, and so none for
	// the marker: both the index file's problems.
	a = openAnswer(t, seg, log, idx, index, txn, storagedata.AbortedTxn(0, 7, 0, 0, 4))
	if len(a.Files) != 3 || len(a.Files[0].Problems)+len(a.Files[1].Problems) != 0 ||
		matching(a.Files[2].Problems, "entry 0: no ABORT marker of producer 7 at its last offset 0: a batch (offsets 0-0) holds it") != 1 ||
		matching(a.Files[2].Problems, "the ABORT marker of producer 7 at offset 3 has no entry") != 1 {
		t.Errorf("a wrong .txnindex: %+v", a.Files)
	}
	// The partition's files without a .txnindex: the marker needs one.
	// A segment given alone says nothing of it.
	if ps := problems(openAnswer(t, seg, log, idx, index)); len(ps) != 1 || !strings.HasPrefix(ps[0], "no .txnindex beside the segment, which holds 1 ABORT marker: ") {
		t.Errorf("no .txnindex: %q", ps)
	}
	if ps := problems(openAnswer(t, seg, log)); len(ps) != 0 {
		t.Errorf("a segment alone: %q", ps)
	}
	// The checkpoint: right, then an epoch the batches do not have and one
	// past the log end (4).
	if ps := problems(openAnswer(t, seg, log, "leader-epoch-checkpoint", []byte("0\n1\n0 0\n"))); len(ps) != 0 {
		t.Errorf("a right checkpoint: %q", ps)
	}
	a = openAs(t, true, seg, log, "leader-epoch-checkpoint", []byte("0\n2\n3 0\n5 9\n"))
	if ps := a.Files[1].Problems; len(ps) != 2 || len(a.Files[0].Problems) != 0 ||
		!strings.Contains(ps[0], "line 4: epoch 5 starts at offset 9, past the log end offset 4") ||
		!strings.Contains(ps[1], "batch at offset 0 has leader epoch 0, which the checkpoint does not have; the checkpoint gives offset 0 epoch 3 (from offset 0)") {
		t.Errorf("a wrong checkpoint: %q", ps)
	}
}

// The log end is the newest segment's: an epoch the checkpoint starts
// past the segments given is no problem when a newer segment may have
// been left out, and a note says why it was not checked. A segment of
// offsets 0-3 (log end 4) and a checkpoint starting epoch 1 at 9.
func TestStorageLogEndOnlyWhenKnown(t *testing.T) {
	b := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}, {}, {}, {}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	log, index, _ := storagedata.Segment(0, 0, [][]byte{b}, 100)
	const seg, cp = "00000000000000000000.log", "leader-epoch-checkpoint"
	check := []byte("0\n2\n0 0\n1 9\n")
	past := "line 4: epoch 1 starts at offset 9, past the log end offset 4"
	// A folder's files: the newest segment is among them, its end judged.
	a := openAs(t, true, seg, log, cp, check)
	if ps := a.Files[1].Problems; len(ps) != 1 || !strings.Contains(ps[0], past) || len(a.Files[1].Notes) != 0 {
		t.Errorf("a folder's: %q, notes %q", ps, a.Files[1].Notes)
	}
	// A folder whose newest segment, 9, is named by its .index alone.
	a = openAs(t, true, seg, log, "00000000000000000009.index", []byte{}, cp, check)
	if ps := problems(a); len(ps) != 0 || len(a.Files[2].Notes) != 1 ||
		a.Files[2].Notes[0] != "the log end is not checked: the newest segment, 00000000000000000009.log (00000000000000000009.index is its), is not among the segments read" {
		t.Errorf("the newest segment left out: %q, notes %q", ps, a.Files[2].Notes)
	}
	// Files picked: a newer segment may have been left out.
	a = openAs(t, false, seg, log, "00000000000000000000.index", index, cp, check)
	if ps := problems(a); len(ps) != 0 || len(a.Files[2].Notes) != 1 || !strings.HasPrefix(a.Files[2].Notes[0], "the log end is not checked: these files were picked") {
		t.Errorf("picked: %q, notes %q", ps, a.Files[2].Notes)
	}
}

// A record that does not decode as its internal topic's: the "error"
// offset of its JSON (the listing's "internal" and record's "json") is
// its position in the segment, as kwire log writes it and the
// internalError says it, not counted from its batch's start. Two batches
// of one record each (storagedata.Batch): key "k0" (no record type of
// __consumer_offsets: 66, the first batch at 0) and key 00 01 00 03 67,
// an OffsetCommitKey whose group's length runs past the key (139, the
// second batch at 71: kwire log --topic __consumer_offsets says 139).
func TestStorageErrorOffsetInSegment(t *testing.T) {
	seg, _ := hex.DecodeString("00000000000000000000003b00000000026e4ac6680000000000000000018bcfe568000000018bcfe56800ffffffffffffff" +
		"ffffffffffffff0000000112000000046b3002760000000000000000010000004200000000028ffad7080000000000000000018bcfe568000000018bcfe5680" +
		"0ffffffffffffffffffffffffffff00000001200000000a00010003670a000901020300")
	names, blobs := js.Global().Get("Array").New(), js.Global().Get("Array").New()
	names.Call("push", "00000000000000000000.log")
	blobs.Call("push", js.Global().Get("Blob").New([]any{glue.Uint8Array(seg)}))
	var a struct {
		Records []struct{ Internal, InternalError string }
	}
	if err := json.Unmarshal([]byte(await(t, open(js.Undefined(), []js.Value{names, blobs, js.ValueOf("__consumer_offsets")}))), &a); err != nil {
		t.Fatal(err)
	}
	if len(a.Records) != 2 {
		t.Fatalf("%d records", len(a.Records))
	}
	for i, at := range []string{"66", "139"} {
		r := a.Records[i]
		if !strings.Contains(r.Internal, `"error":{"part":"key","offset":`+at+`,`) || !strings.Contains(r.InternalError, "at byte "+at+" ") {
			t.Errorf("record %d's listing: %s; %s", i, r.Internal, r.InternalError)
		}
		var rec struct{ JSON string }
		if err := json.Unmarshal([]byte(await(t, record(js.Undefined(), []js.Value{js.ValueOf(i)}))), &rec); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rec.JSON, `"offset": `+at+`,`) {
			t.Errorf("record %d's JSON: %s", i, rec.JSON)
		}
	}
}
