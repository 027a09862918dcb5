package storage

import (
	"encoding/binary"
	"errors"
	"io"
	"sort"
	"strconv"

	"github.com/kwire/kwire/internal/sortfunc"
)

// BatchLeaderEpoch is a record batch's partitionLeaderEpoch (bytes 12-15
// of a magic 2 batch); ok is false for a legacy message, which has none.
func BatchLeaderEpoch(b *Batch) (epoch int32, ok bool) {
	if b.Magic < 2 || len(b.Bytes) < 16 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(b.Bytes[12:16])), true
}

// Control record types (ControlRecordType): the key's second int16.
const (
	ControlAbort  = 0
	ControlCommit = 1
)

// ControlType is the type of a control batch's first record (its key:
// version int16, type int16), ControlAbort for a transaction's ABORT
// marker; -1 for a batch that is not a control batch or whose record
// cannot be read (control batches are never compressed).
func ControlType(b *Batch) int {
	if t := ControlTypes(b, 1); len(t) == 1 && !b.Skipped {
		return int(t[0])
	}
	return -1
}

// AbortMarker is a transaction's ABORT control batch: its producer and
// offset.
type AbortMarker struct {
	ProducerID, Offset int64
}

// MaxTxnEntries is the most .txnindex entries a TxnCheck holds (34 bytes
// each in the file, about 100 held): far past a segment's aborted
// transactions. Past it the entries are not checked (Truncated), nor is
// every marker said to need one.
const MaxTxnEntries = 1 << 18

// TxnCheck checks a segment's .txnindex against the segment. Kafka
// appends an entry (producer id, first offset, last offset, last stable
// offset) for each aborted transaction whose ABORT marker it appends to
// the segment, the last offset being the marker's: each entry's last
// offset must hold its producer's ABORT marker in this segment, the
// entries come in the markers' order, and every ABORT marker has its
// entry. The first offset may be in an earlier segment.
//
// A last offset that no batch holds, inside the segment's span, is not
// said to be wrong: the log cleaner removes markers of transactions it
// has cleaned away.
type TxnCheck struct {
	Entries  []IndexEntry   // the entries read (up to MaxTxnEntries)
	Problems []IndexProblem // each entry's problems with the segment, in entry order
	// Missing are the segment's ABORT markers that no entry names.
	Missing []AbortMarker
	Aborts  int   // the ABORT markers in the segment
	Err     error // the index could not be read to its end
	// Unchecked counts the entries past where a damaged segment could be
	// read.
	Unchecked int
	// Truncated is set when the index holds more than MaxTxnEntries
	// entries: the rest were not read.
	Truncated bool

	byLast []int    // entries' numbers by last offset
	held   []string // what holds each entry's last offset, "" when nothing (yet)
	ok     []bool   // the entry's marker was found
	aborts []AbortMarker
}

// NewTxnCheck reads the entries of the .txnindex x (nil: the segment has
// none) to check them against the segment's batches.
func NewTxnCheck(x *IndexReader) *TxnCheck {
	t := &TxnCheck{}
	for x != nil {
		e, err := x.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Err = err
			}
			break
		}
		if len(t.Entries) == MaxTxnEntries {
			t.Truncated = true
			break
		}
		t.Entries = append(t.Entries, e)
	}
	t.byLast = make([]int, len(t.Entries))
	for i := range t.byLast {
		t.byLast[i] = i
	}
	b := t.byLast
	sortfunc.Stable(len(b), func(i, j int) bool { return t.Entries[b[i]].LastOffset < t.Entries[b[j]].LastOffset }, func(i, j int) { b[i], b[j] = b[j], b[i] })
	t.held = make([]string, len(t.Entries))
	t.ok = make([]bool, len(t.Entries))
	return t
}

// Batch takes in the segment's next batch.
func (t *TxnCheck) Batch(b *Batch) {
	abort := ControlType(b) == ControlAbort
	if abort {
		t.Aborts++
		if !t.Truncated {
			t.aborts = append(t.aborts, AbortMarker{b.ProducerID, b.BaseOffset})
		}
	}
	i := sort.Search(len(t.byLast), func(i int) bool { return t.Entries[t.byLast[i]].LastOffset >= b.BaseOffset })
	for ; i < len(t.byLast); i++ {
		n := t.byLast[i]
		e := &t.Entries[n]
		if e.LastOffset > b.LastOffset {
			break
		}
		switch {
		case abort && b.ProducerID == e.ProducerID && b.BaseOffset == e.LastOffset:
			t.ok[n] = true
		case t.held[n] == "" && !t.ok[n]:
			t.held[n] = describeHolder(b)
		}
	}
}

func describeHolder(b *Batch) string {
	what := "a batch"
	switch ct := ControlType(b); {
	case ct == ControlAbort:
		what = "the ABORT marker of producer " + strconv.FormatInt(b.ProducerID, 10)
	case ct == ControlCommit:
		what = "the COMMIT marker of producer " + strconv.FormatInt(b.ProducerID, 10)
	case b.Control:
		what = "a control batch"
	case b.Transactional:
		what = "a transactional batch of producer " + strconv.FormatInt(b.ProducerID, 10)
	case b.ProducerID >= 0:
		what = "a batch of producer " + strconv.FormatInt(b.ProducerID, 10) + " (not transactional)"
	}
	return what + " (offsets " + strconv.FormatInt(b.BaseOffset, 10) + "-" + strconv.FormatInt(b.LastOffset, 10) + ")"
}

// End decides the entries once the segment has been read: base is its
// base offset, last the last offset read (-1: none), damaged set when
// the segment could not be read to its end (entries past what was read
// are then unchecked).
func (t *TxnCheck) End(base, last int64, damaged bool) {
	named := map[AbortMarker]bool{}
	for n := range t.Entries {
		e := &t.Entries[n]
		named[AbortMarker{e.ProducerID, e.LastOffset}] = true
		if n > 0 && e.LastOffset <= t.Entries[n-1].LastOffset {
			t.problem(n, "out of order: last offset "+strconv.FormatInt(e.LastOffset, 10)+" is not above entry "+strconv.Itoa(n-1)+"'s ("+strconv.FormatInt(t.Entries[n-1].LastOffset, 10)+"); Kafka appends entries in its ABORT markers' order")
		}
		if t.ok[n] {
			continue
		}
		lo := strconv.FormatInt(e.LastOffset, 10)
		pid := strconv.FormatInt(e.ProducerID, 10)
		switch {
		case e.LastOffset < base:
			t.problem(n, "last offset "+lo+" is below the segment's base offset "+strconv.FormatInt(base, 10)+": its producer "+pid+"'s ABORT marker would be in this segment")
		case e.LastOffset > last && damaged:
			t.Unchecked++
		case e.LastOffset > last:
			past := "the segment holds no batch"
			if last >= 0 {
				past = "the segment's last offset is " + strconv.FormatInt(last, 10)
			}
			t.problem(n, "last offset "+lo+" is past the segment's end ("+past+"): its producer "+pid+"'s ABORT marker would be in this segment")
		case t.held[n] != "":
			t.problem(n, "no ABORT marker of producer "+pid+" at its last offset "+lo+": "+t.held[n]+" holds it")
		}
	}
	for _, a := range t.aborts {
		if !named[a] && !t.Truncated {
			t.Missing = append(t.Missing, a)
		}
	}
}

func (t *TxnCheck) problem(n int, msg string) {
	t.Problems = append(t.Problems, IndexProblem{Entry: n, Msg: msg})
}

// EntryProblems is what End found wrong with entry n, "; "-joined, or "".
func (t *TxnCheck) EntryProblems(n int) string {
	s := ""
	for _, p := range t.Problems {
		if p.Entry == n {
			if s != "" {
				s += "; "
			}
			s += p.Msg
		}
	}
	return s
}

// EpochRun is a run of consecutive batches of a partition carrying the
// same partitionLeaderEpoch: the epoch, the first and the last batch's
// base offsets.
type EpochRun struct {
	Epoch      int32
	Offset     int64
	LastOffset int64
}

// CheckLeaderEpochs checks a partition's leader-epoch-checkpoint entries
// (each epoch and its start offset, in order) against its batches' epochs
// (runs, in offset order) and its log end offset (the next offset; -1
// when not known). What it says is surely wrong:
//
//   - an epoch starting past the log end (Kafka truncates the cache with
//     the log);
//   - a batch at or after the checkpoint's first start offset whose epoch
//     is not the checkpoint's latest epoch starting at or before it:
//     Kafka assigns each epoch its first batch's base offset as it appends.
//
// Batches before the first start offset are not checked: Kafka truncates
// the cache from the log start offset, which can be inside the first
// segment (DeleteRecords), and the entries before it go.
func CheckLeaderEpochs(entries []CheckpointEntry, runs []EpochRun, logEnd int64) []string {
	var out []string
	for _, e := range entries {
		if logEnd >= 0 && e.StartOffset > logEnd {
			out = append(out, "line "+strconv.Itoa(e.Line)+": epoch "+strconv.Itoa(int(e.Epoch))+" starts at offset "+strconv.FormatInt(e.StartOffset, 10)+", past the log end offset "+strconv.FormatInt(logEnd, 10))
		}
	}
	if len(entries) == 0 {
		return out
	}
	for _, r := range runs {
		if r.Epoch < 0 || r.Offset < entries[0].StartOffset {
			continue
		}
		// the latest entry starting at or before r.Offset
		i := sort.Search(len(entries), func(i int) bool { return entries[i].StartOffset > r.Offset }) - 1
		for i > 0 && entries[i].StartOffset == entries[i-1].StartOffset && entries[i].Epoch != r.Epoch {
			i-- // several epochs at one offset (out of order): any may be it
		}
		want := entries[i]
		if want.Epoch == r.Epoch {
			// The run's later batches must not reach the next epoch's start.
			if i+1 < len(entries) && entries[i+1].StartOffset <= r.LastOffset && entries[i+1].StartOffset > want.StartOffset {
				next := entries[i+1]
				out = append(out, "batches of leader epoch "+strconv.Itoa(int(r.Epoch))+" run from offset "+strconv.FormatInt(r.Offset, 10)+" to a batch at offset "+strconv.FormatInt(r.LastOffset, 10)+
					", past where the checkpoint starts epoch "+strconv.Itoa(int(next.Epoch))+" (offset "+strconv.FormatInt(next.StartOffset, 10)+")")
			}
			continue
		}
		off := strconv.FormatInt(r.Offset, 10)
		msg := "batch at offset " + off + " has leader epoch " + strconv.Itoa(int(r.Epoch))
		found := false
		for _, e := range entries {
			if e.Epoch == r.Epoch {
				found = true
				msg += ", which the checkpoint starts at offset " + strconv.FormatInt(e.StartOffset, 10)
				break
			}
		}
		if !found {
			msg += ", which the checkpoint does not have"
		}
		msg += "; the checkpoint gives offset " + off + " epoch " + strconv.Itoa(int(want.Epoch)) + " (from offset " + strconv.FormatInt(want.StartOffset, 10) + ")"
		out = append(out, msg)
	}
	return out
}
