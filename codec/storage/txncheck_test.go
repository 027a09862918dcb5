package storage

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/storagedata"
)

// txnSegment is a segment of 2 plain batches (offsets base..base+5),
// producer 7's aborted transaction (base+6, base+7) and its ABORT marker
// (base+8), then another plain batch (base+9..base+11).
func txnSegment(base int64) []byte {
	log, _, _ := testSegment(base, 2)
	var batches [][]byte
	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	for {
		b, err := s.Next()
		if err != nil {
			break
		}
		batches = append(batches, bytes.Clone(b.Bytes))
	}
	batches = append(batches, storagedata.AbortedTransaction(7, 0, 1700000005000)...)
	tail, _, _ := testSegment(0, 1)
	batches = append(batches, tail)
	out, _, _ := storagedata.Segment(base, 0, batches, 100)
	return out
}

// checkTxn reads segment log against the .txnindex txn (nil: none).
func checkTxn(t *testing.T, base int64, log, txn []byte) *TxnCheck {
	t.Helper()
	var x *IndexReader
	if txn != nil {
		x = NewIndexReader(bytes.NewReader(txn), TxnIndex, base)
	}
	tc := NewTxnCheck(x)
	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	last := int64(-1)
	for {
		b, err := s.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		tc.Batch(b)
		last = b.LastOffset
	}
	tc.End(base, last, false)
	return tc
}

func TestControlTypeReadsTheABORTMarker(t *testing.T) {
	s := NewSegment(bytes.NewReader(txnSegment(100)), SegmentOptions{})
	var types []int
	var epochs []int32
	for {
		b, err := s.Next()
		if err != nil {
			break
		}
		types = append(types, ControlType(b))
		ep, ok := BatchLeaderEpoch(b)
		if !ok {
			t.Fatalf("batch at %d: no leader epoch", b.BaseOffset)
		}
		epochs = append(epochs, ep)
	}
	if want := []int{-1, -1, -1, ControlAbort, -1}; !equalInts(types, want) {
		t.Errorf("control types %v, want %v", types, want)
	}
	if len(epochs) != 5 || epochs[0] != 0 {
		t.Errorf("epochs %v", epochs)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTxnCheckTakesAnEntryForEachAbort(t *testing.T) {
	log := txnSegment(100)
	// Right: the marker at 108; the transaction may start in an earlier
	// segment.
	for _, first := range []int64{106, 50} {
		tc := checkTxn(t, 100, log, storagedata.AbortedTxn(0, 7, first, 108, 109))
		if len(tc.Problems)+len(tc.Missing) != 0 || tc.Aborts != 1 {
			t.Errorf("first offset %d: %+v, missing %v, %d aborts", first, tc.Problems, tc.Missing, tc.Aborts)
		}
	}
}

func TestTxnCheckFindsWrongEntries(t *testing.T) {
	log := txnSegment(100)
	ok := storagedata.AbortedTxn(0, 7, 106, 108, 109)
	for _, tc := range []struct {
		name, txn string
		want      []string // each problem, by a piece of its message
		missing   int
	}{
		{"a data batch at its last offset", string(storagedata.AbortedTxn(0, 4242, 105, 107, 105)) + string(ok), []string{"0:no ABORT marker of producer 4242 at its last offset 107: a transactional batch of producer 7"}, 0},
		{"another producer's marker", string(storagedata.AbortedTxn(0, 8, 106, 108, 109)), []string{"0:no ABORT marker of producer 8 at its last offset 108: the ABORT marker of producer 7"}, 1},
		{"past the segment's end", string(ok) + string(storagedata.AbortedTxn(0, 3000, 500, 510, 400)), []string{"1:last offset 510 is past the segment's end (the segment's last offset is 111)"}, 0},
		{"below the segment's base", string(storagedata.AbortedTxn(0, 3, 10, 20, 21)) + string(ok), []string{"0:last offset 20 is below the segment's base offset 100"}, 0},
		{"out of order", string(ok) + string(storagedata.AbortedTxn(0, 3, 10, 20, 21)), []string{"1:out of order: last offset 20 is not above entry 0's (108)", "1:last offset 20 is below"}, 0},
		{"no entry for the marker", "", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := checkTxn(t, 100, log, []byte(tc.txn))
			var got []string
			for _, p := range c.Problems {
				got = append(got, string(rune('0'+p.Entry))+":"+p.Msg)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("problems %q, want %q", got, tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("problem %d: %q, want %q...", i, got[i], tc.want[i])
				}
			}
			if len(c.Missing) != tc.missing {
				t.Errorf("missing %v, want %d", c.Missing, tc.missing)
			}
		})
	}
	// No .txnindex at all: the marker is counted, for the caller to say
	// the file is missing.
	if c := checkTxn(t, 100, log, nil); c.Aborts != 1 || len(c.Missing) != 1 {
		t.Errorf("no .txnindex: %d aborts, missing %v", c.Aborts, c.Missing)
	}
}

func TestCheckLeaderEpochs(t *testing.T) {
	e := func(line int, epoch int32, start int64) CheckpointEntry {
		return CheckpointEntry{Line: line, Epoch: epoch, StartOffset: start}
	}
	runs := []EpochRun{{0, 0, 14}, {1, 17, 21}, {2, 26, 60}}
	for _, tc := range []struct {
		name    string
		entries []CheckpointEntry
		want    []string
	}{
		{"agrees", []CheckpointEntry{e(3, 0, 0), e(4, 1, 17), e(5, 2, 26)}, nil},
		{"agrees, truncated from the start (retention)", []CheckpointEntry{e(3, 1, 20), e(4, 2, 26)}, nil},
		{"an epoch past the log end, the batches' epochs missing", []CheckpointEntry{e(3, 0, 0), e(4, 5, 500)}, []string{
			"line 4: epoch 5 starts at offset 500, past the log end offset 67",
			"batch at offset 17 has leader epoch 1, which the checkpoint does not have; the checkpoint gives offset 17 epoch 0 (from offset 0)",
			"batch at offset 26 has leader epoch 2, which the checkpoint does not have; the checkpoint gives offset 26 epoch 0 (from offset 0)"}},
		{"an epoch starting late", []CheckpointEntry{e(3, 0, 0), e(4, 1, 20), e(5, 2, 26)}, []string{
			"batch at offset 17 has leader epoch 1, which the checkpoint starts at offset 20; the checkpoint gives offset 17 epoch 0 (from offset 0)"}},
		{"an epoch starting early", []CheckpointEntry{e(3, 0, 0), e(4, 1, 10), e(5, 2, 26)}, []string{
			"batches of leader epoch 0 run from offset 0 to a batch at offset 14, past where the checkpoint starts epoch 1 (offset 10)"}},
		{"empty", nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckLeaderEpochs(tc.entries, runs, 67)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestTxnCheckPastItsLimit: a .txnindex of more entries than a TxnCheck
// holds is checked as far as held, and no marker is said to lack an
// entry the rest may hold.
func TestTxnCheckPastItsLimit(t *testing.T) {
	var txn []byte
	for i := 0; i <= MaxTxnEntries; i++ {
		txn = append(txn, storagedata.AbortedTxn(0, 9, 0, 200+int64(i), 0)...)
	}
	c := checkTxn(t, 100, txnSegment(100), txn)
	if !c.Truncated || len(c.Entries) != MaxTxnEntries || len(c.Missing) != 0 {
		t.Errorf("truncated %v, %d entries, missing %v", c.Truncated, len(c.Entries), c.Missing)
	}
}
