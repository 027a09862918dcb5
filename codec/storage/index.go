package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strconv"

	"github.com/kwire/kwire/codec/jsontext"
)

// Kafka's indexes beside a segment (AbstractIndex, OffsetIndex, TimeIndex,
// TransactionIndex): fixed-size big-endian entries, no header.
//
//	.index      8 bytes: offset relative to the segment's base (int32),
//	            position of a batch in the .log (int32)
//	.timeindex 12 bytes: timestamp (int64), relative offset (int32)
//	.txnindex  34 bytes: version (int16), producer id, first offset, last
//	            offset, last stable offset (int64 each)
//
// The active segment's .index and .timeindex are preallocated
// (segment.index.bytes) and end in zero entries until the segment is
// rolled; those are counted as unused, not as entries.

// IndexKind says which index a file is.
type IndexKind uint8

// The index kinds: each file is a run of fixed-size entries (8, 12 and 34
// bytes).
const (
	OffsetIndex IndexKind = iota + 1 // .index: offset to a batch's position in the segment
	TimeIndex                        // .timeindex: timestamp to offset
	TxnIndex                         // .txnindex: the segment's aborted transactions
)

func (k IndexKind) size() int { return [...]int{0, 8, 12, 34}[k] }

// String is the index's file extension without its dot: "index",
// "timeindex" or "txnindex".
func (k IndexKind) String() string { return [...]string{"", "index", "timeindex", "txnindex"}[k] }

// IndexEntry is one entry of an index.
type IndexEntry struct {
	N        int   // its number, from 0
	Relative int32 // the offset relative to the segment's base (.index, .timeindex)
	Offset   int64 // the offset: base + Relative
	Position int32 // .index: the batch's position in the segment
	// Timestamp is the .timeindex entry's timestamp.
	Timestamp int64
	// .txnindex: an aborted transaction.
	Version                                           int16
	ProducerID, FirstOffset, LastOffset, LastStableOf int64 // LastStableOf: the last stable offset
	// Zero is set when every byte of the entry is zero: preallocated
	// space unless an entry follows.
	Zero bool
	// Unchecked is set on an entry that points past where a damaged
	// segment could be read (IndexCheck.End): neither right nor wrong.
	Unchecked bool
}

// IndexReader reads an index's entries one at a time.
type IndexReader struct {
	r    io.Reader
	kind IndexKind
	base int64
	n    int
	buf  [34]byte
	// ahead holds bytes SkipZeros read past the zero entries it counted:
	// read before r. chunk is its memory (zeroChunk bytes, allocated at
	// the first SkipZeros).
	ahead, chunk []byte
	err          error // what r returned while SkipZeros read ahead, for Next
}

// zeroChunk is how much SkipZeros reads at a time.
const zeroChunk = 64 << 10

// NewIndexReader reads the index r of kind for the segment whose base
// offset is base (the number in its name). Reads are the caller's to
// buffer.
func NewIndexReader(r io.Reader, kind IndexKind, base int64) *IndexReader {
	return &IndexReader{r: r, kind: kind, base: base}
}

// IndexTailError is an index whose size is not a whole number of entries.
type IndexTailError struct {
	Kind  IndexKind
	Entry int    // the number the partial entry would have
	Size  int    // its bytes
	Bytes []byte // the bytes themselves
}

// Position is where the partial entry starts in the file.
func (e *IndexTailError) Position() int64 { return int64(e.Entry) * int64(e.Kind.size()) }

// Error says which index ends in a partial entry, where and after which
// entry.
func (e *IndexTailError) Error() string {
	return "storage: " + e.Kind.String() + " ends in " + strconv.Itoa(e.Size) + " bytes at byte " + strconv.FormatInt(e.Position(), 10) +
		", after entry " + strconv.Itoa(e.Entry-1) + ": less than an entry (" + strconv.Itoa(e.Kind.size()) + ")"
}

// Next returns the next entry, io.EOF after the last, or an
// *IndexTailError for a partial last entry.
func (x *IndexReader) Next() (IndexEntry, error) {
	size := x.kind.size()
	b := x.buf[:size]
	n := copy(b, x.ahead)
	x.ahead = x.ahead[n:]
	var err error
	switch {
	case n == size:
	case x.err != nil:
		err = x.err
		if n > 0 && errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		x.err = nil
	default:
		var m int
		m, err = io.ReadFull(x.r, b[n:])
		if n > 0 && errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		n += m
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			return IndexEntry{}, io.EOF
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return IndexEntry{}, &IndexTailError{Kind: x.kind, Entry: x.n, Size: n, Bytes: append([]byte(nil), b[:n]...)}
		}
		return IndexEntry{}, err
	}
	e := IndexEntry{N: x.n, Zero: allZero(b)}
	x.n++
	switch x.kind {
	case OffsetIndex:
		e.Relative = int32(binary.BigEndian.Uint32(b))
		e.Position = int32(binary.BigEndian.Uint32(b[4:]))
		e.Offset = x.base + int64(e.Relative)
	case TimeIndex:
		e.Timestamp = int64(binary.BigEndian.Uint64(b))
		e.Relative = int32(binary.BigEndian.Uint32(b[8:]))
		e.Offset = x.base + int64(e.Relative)
	case TxnIndex:
		e.Version = int16(binary.BigEndian.Uint16(b))
		e.ProducerID = int64(binary.BigEndian.Uint64(b[2:]))
		e.FirstOffset = int64(binary.BigEndian.Uint64(b[10:]))
		e.LastOffset = int64(binary.BigEndian.Uint64(b[18:]))
		e.LastStableOf = int64(binary.BigEndian.Uint64(b[26:]))
		e.Offset = e.FirstOffset
	}
	return e, nil
}

// SkipZeros passes over the entries from the reader's position on whose
// every byte is zero, up to the first that is not, a partial entry or
// the end, and returns how many it passed: the next Next reads the entry
// after them, numbered after them. It reads the index zeroChunk bytes at
// a time and compares whole blocks with zeros, so that an index
// preallocated to gigabytes of zeros costs a read of them, not the work
// of an entry each; it holds no more than zeroChunk bytes. An error of
// the reader is Next's to return.
func (x *IndexReader) SkipZeros() int {
	size := x.kind.size()
	if x.chunk == nil {
		x.chunk = make([]byte, zeroChunk)
	}
	skipped := 0
	for {
		whole := len(x.ahead) / size * size
		k := zeroPrefix(x.ahead[:whole]) / size
		skipped += k
		x.n += k
		x.ahead = x.ahead[k*size:]
		if k*size < whole || x.err != nil {
			return skipped // an entry that is not zero, or the end
		}
		// Fewer than an entry's bytes left: read on after them.
		rest := copy(x.chunk, x.ahead)
		n, err := io.ReadAtLeast(x.r, x.chunk[rest:], size-rest)
		x.ahead = x.chunk[:rest+n]
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			x.err = err
		}
	}
}

// zeroBlock is what zeroPrefix compares whole blocks with.
var zeroBlock [4096]byte

// zeroPrefix is how many bytes p starts with that are zero.
func zeroPrefix(p []byte) int {
	i := 0
	for i+len(zeroBlock) <= len(p) && bytes.Equal(p[i:i+len(zeroBlock)], zeroBlock[:]) {
		i += len(zeroBlock)
	}
	for i < len(p) && p[i] == 0 {
		i++
	}
	return i
}

// allZero says whether every byte of b is zero (a block at a time: a
// segment's preallocated tail is gigabytes of them).
func allZero(b []byte) bool { return zeroPrefix(b) == len(b) }

// IndexProblem is an entry that disagrees with its segment or with the
// entries before it.
type IndexProblem struct {
	Entry int
	Msg   string
}

// MaxProblems is how many problems an IndexCheck keeps word for word;
// past it they are only counted.
const MaxProblems = 1000

// IndexCheck checks an .index or .timeindex against its segment while the
// segment is read: Batch for each entry of the segment in order, then End
// (EndAlone, with no segment to read: the entries' order only).
// It reads the index's entries as the batches reach them, so it holds one
// entry at a time however large the files. What it checks:
//
//   - .index: each entry's position is the start of an entry of the
//     segment whose base offset is at or below the entry's offset, and
//     the entry's offset is reached by that entry of the segment or a
//     later one before the next index entry's position (or, for the last
//     entry, before the segment ends); offsets and positions rise. Kafka
//     4.0 and later write the offset of the batch at the position (its
//     last); before 4.0, a follower and the log cleaner wrote one entry
//     per append of many batches, with the largest offset appended and
//     the first batch's position, so the offset can lie in a later
//     batch. Either way a lookup (the largest entry at or below the
//     offset sought, then a scan forward) finds what it seeks.
//   - .timeindex: each entry's offset is held by an entry of the segment
//     whose max timestamp is the entry's timestamp (Kafka writes the
//     segment's largest timestamp so far and an offset of the batch that
//     has it; kafka-dump-log.sh checks the same); timestamps rise and
//     offsets do not fall.
//   - zero entries at the end are preallocated space (Unused), the first
//     entry included: an index all of zeros (a new or small active
//     segment's) has no entries. A zero entry 0 with an entry after it
//     is an entry (the base offset at position 0); other zero entries
//     with an entry after them are out of order.
//
// Kafka's own check (kafka-dump-log.sh --index-sanity-check) is stricter
// for .index: the offset must be the last of the batch at the position,
// which entries written before 4.0 by a follower or the cleaner need not
// be; the check here is what a reader relies on.
type IndexCheck struct {
	// OnEntry, when set, is called for every entry in order once it is
	// checked, with its problem ("" when none); the unused zero entries at
	// the end are only counted.
	OnEntry func(e IndexEntry, problem string)

	Entries    int            // entries read, unused ones included
	Unused     int            // zero entries at the end: preallocated space
	UnusedFrom int            // the number of the first of them
	Problems   []IndexProblem // the first MaxProblems
	Count      int            // every problem
	// Unchecked counts the entries past where a damaged segment could be
	// read: the index may well be right, the log is not (End).
	Unchecked int
	Err       error // the index could not be read to its end (an *IndexTailError, or the reader's)

	x       *IndexReader
	next    *IndexEntry
	cur     IndexEntry
	prev    *IndexEntry
	prevBuf IndexEntry
	zeros   int // zero entries waiting: unused if nothing follows
	zeroAt  int // the first of them
	held    IndexEntry
	holding bool // held waits for a zero entry 0 to be decided
	done    bool
	// waiting is an .index entry whose position is a batch that starts at
	// or before its offset but ends before it: it is right once a batch
	// reaches its offset (a later one, before the next entry's position),
	// wrong if the segment ends first. waitAt is its batch's position.
	waiting IndexEntry
	wait    bool
	waitAt  int64
	// zeros entries from zeroFrom, out of order before entry zeroBefore,
	// read while an entry waited: decided after it (settle), so that
	// entries are reported in order.
	zerosHeld, zeroFrom, zeroBefore int
	// pushed is an entry read ahead of the next (ahead) and given back,
	// with the error its read met.
	pushed    bool
	pushedE   IndexEntry
	pushedErr error
	// gap is set after a damaged region (Damage) until the next batch.
	gap bool
	// queued are entries Positions read ahead of the check (after the
	// pushed one), read before x; queuedErr what x returned after them.
	queued    []IndexEntry
	queuedErr error
}

// NewIndexCheck checks the index x reads against its segment.
func NewIndexCheck(x *IndexReader) *IndexCheck { return &IndexCheck{x: x} }

// peek returns the next entry to decide, or nil at the end of the index.
func (c *IndexCheck) peek() *IndexEntry {
	for c.next == nil && !c.done {
		if c.holding {
			c.holding = false
			c.release(c.held)
			break
		}
		e, err := c.read()
		if err != nil {
			c.done = true
			if !errors.Is(err, io.EOF) {
				c.Err = err
			}
			var te *IndexTailError
			if errors.As(err, &te) {
				// A partial entry at the end is a problem of the index
				// as an entry out of order is (its own, not an entry's).
				c.Count++
				if len(c.Problems) < MaxProblems {
					c.Problems = append(c.Problems, IndexProblem{Entry: te.Entry, Msg: "a partial entry at byte " + strconv.FormatInt(te.Position(), 10) + ": " +
						strconv.Itoa(te.Size) + " bytes, less than an entry (" + strconv.Itoa(te.Kind.size()) + ")"})
				}
			}
			return nil
		}
		c.Entries++
		if e.Zero {
			if c.zeros == 0 {
				c.zeroAt = e.N
			}
			// The zero entries after it are counted in bulk: a
			// preallocated index is mostly them (one by one while
			// entries read ahead for Positions come first).
			k := 0
			if len(c.queued) == 0 && c.queuedErr == nil {
				k = c.x.SkipZeros()
			}
			c.zeros += 1 + k
			c.Entries += k
			continue
		}
		if c.zeros > 0 && c.zeroAt == 0 {
			// An entry after a zero entry 0: that one is an entry (offset
			// base at position 0), decided first, and e waits for it.
			c.zeros--
			c.zeroAt = 1
			c.held, c.holding = e, true
			c.cur = IndexEntry{N: 0, Zero: true, Offset: c.x.base}
			c.next = &c.cur
			break
		}
		c.release(e)
	}
	return c.next
}

// read reads the index's next entry: the one read ahead, if any.
func (c *IndexCheck) read() (IndexEntry, error) {
	if c.pushed {
		c.pushed = false
		return c.pushedE, c.pushedErr
	}
	return c.readNext()
}

// readNext reads the entry after those read and given back: the first of
// those Positions read ahead, or the index's next.
func (c *IndexCheck) readNext() (IndexEntry, error) {
	if len(c.queued) > 0 {
		e := c.queued[0]
		c.queued = c.queued[1:]
		if len(c.queued) == 0 {
			c.queued = c.queued[:0:0]
		}
		return e, nil
	}
	if c.queuedErr != nil {
		return IndexEntry{}, c.queuedErr
	}
	return c.x.Next()
}

// positionAfter is IndexPositions.after for the check's own entries: the
// first position past pos among those it has read and not yet decided,
// then those read ahead for it (queued), reading on as needed. The
// entries it looks at are charged, one by one, to spend; its positions
// end at a zero entry after entry 0.
func (c *IndexCheck) positionAfter(pos int64, spend func(int64) bool) (int64, int) {
	look := func(e *IndexEntry) (int64, int, bool) {
		if !spend(indexEntryCost) {
			return 0, indexLimited, true
		}
		switch {
		case e.Zero && e.N > 0:
			return 0, indexNone, true
		case !e.Zero && int64(e.Position) > pos:
			return int64(e.Position), indexFound, true
		}
		return 0, 0, false
	}
	if c.next != nil {
		if at, st, ok := look(c.next); ok {
			return at, st
		}
	}
	if c.holding {
		if at, st, ok := look(&c.held); ok {
			return at, st
		}
	}
	if c.zeros > 0 && !(c.zeros == 1 && c.zeroAt == 0) {
		return 0, indexNone // zero entries after entry 0: the positions end
	}
	if c.pushed {
		if c.pushedErr != nil {
			return 0, indexNone
		}
		if at, st, ok := look(&c.pushedE); ok {
			return at, st
		}
	}
	for i := range c.queued {
		if at, st, ok := look(&c.queued[i]); ok {
			return at, st
		}
	}
	for !c.done && c.queuedErr == nil {
		if len(c.queued) >= MaxIndexAhead {
			return 0, indexAhead
		}
		e, err := c.x.Next()
		if err != nil {
			c.queuedErr = err
			break
		}
		c.queued = append(c.queued, e)
		if at, st, ok := look(&c.queued[len(c.queued)-1]); ok {
			return at, st
		}
	}
	return 0, indexNone
}

// ahead is the entry after the next one peek returned, read and given
// back for the next read; ok is false when the next is not followed
// directly by an entry (zero entries wait between them, the index ends).
func (c *IndexCheck) ahead() (e IndexEntry, ok bool) {
	if c.holding {
		return c.held, c.zeros == 0
	}
	if c.zeros > 0 {
		return IndexEntry{}, false
	}
	if !c.pushed {
		c.pushedE, c.pushedErr = c.readNext()
		c.pushed = true
	}
	return c.pushedE, c.pushedErr == nil && !c.pushedE.Zero
}

// release makes e the next entry to decide, once the zero entries before
// it are: with an entry after them they are not preallocated space, and
// each is out of order.
func (c *IndexCheck) release(e IndexEntry) {
	if c.wait {
		c.zerosHeld, c.zeroFrom, c.zeroBefore = c.zeros, c.zeroAt, e.N
	} else {
		c.zeroEntries(c.zeroAt, c.zeros, e.N)
	}
	c.zeros = 0
	c.cur = e
	c.next = &c.cur
}

// zeroEntries decides n zero entries from the one numbered from, out of
// order before entry before.
func (c *IndexCheck) zeroEntries(from, n, before int) {
	for i := 0; i < n; i++ {
		c.decide(IndexEntry{N: from + i, Zero: true, Offset: c.x.base}, "a zero entry before entry "+strconv.Itoa(before)+", not preallocated space at the end")
	}
}

// settle decides the waiting entry, and the zero entries read after it.
func (c *IndexCheck) settle(problem string) {
	c.wait = false
	c.decide(c.waiting, problem)
	c.zeroEntries(c.zeroFrom, c.zerosHeld, c.zeroBefore)
	c.zerosHeld = 0
}

// decide reports entry e and its problem.
func (c *IndexCheck) decide(e IndexEntry, problem string) {
	if problem != "" {
		c.Count++
		if len(c.Problems) < MaxProblems {
			c.Problems = append(c.Problems, IndexProblem{Entry: e.N, Msg: problem})
		}
	}
	if c.OnEntry != nil {
		c.OnEntry(e, problem)
	}
	if !e.Zero || e.N == 0 {
		c.prevBuf = e
		c.prev = &c.prevBuf
	}
}

// order is the problem of e being out of order after the entry before, or "".
func (c *IndexCheck) order(e *IndexEntry) string {
	p := c.prev
	if p == nil {
		return ""
	}
	at := " (entry " + strconv.Itoa(p.N) + " has "
	switch c.x.kind {
	case OffsetIndex:
		if e.Offset <= p.Offset {
			return "offset " + strconv.FormatInt(e.Offset, 10) + " is not above the entry before" + at + strconv.FormatInt(p.Offset, 10) + ")"
		}
		if e.Position <= p.Position {
			return "position " + strconv.Itoa(int(e.Position)) + " is not above the entry before" + at + strconv.Itoa(int(p.Position)) + ")"
		}
	case TimeIndex:
		if e.Timestamp <= p.Timestamp {
			return "timestamp " + strconv.FormatInt(e.Timestamp, 10) + " is not above the entry before" + at + strconv.FormatInt(p.Timestamp, 10) + ")"
		}
		if e.Offset < p.Offset {
			return "offset " + strconv.FormatInt(e.Offset, 10) + " is below the entry before" + at + strconv.FormatInt(p.Offset, 10) + ")"
		}
	}
	return ""
}

// Damage notes a damaged region of the segment (a *DamageError Next
// returned before reading on): the entries that point into it cannot be
// checked, and are counted Unchecked, not as problems of the index. An
// .index entry says its position; a .timeindex entry's offset is taken
// for the damage's when it is below the next batch's base offset.
func (c *IndexCheck) Damage(d *DamageError) {
	if c.wait {
		// Its offset may well have been in the damage.
		c.waiting.Unchecked = true
		c.Unchecked++
		c.settle("")
	}
	if c.x.kind != OffsetIndex {
		c.gap = true
		return
	}
	for e := c.peek(); e != nil && int64(e.Position) < d.Resume(); e = c.peek() {
		c.unchecked(e)
	}
}

// unchecked decides the entry peek returned, e, as unchecked, unless it
// is out of order.
func (c *IndexCheck) unchecked(e *IndexEntry) {
	if p := c.order(e); p != "" {
		c.take(p)
		return
	}
	e.Unchecked = true
	c.Unchecked++
	c.take("")
}

// Batch checks the entries that segment entry b settles.
func (c *IndexCheck) Batch(b *Batch) {
	if c.wait && b.LastOffset >= c.waiting.Offset {
		c.settle("")
	}
	if c.gap {
		c.gap = false
		for e := c.peek(); e != nil && e.Offset < b.BaseOffset; e = c.peek() {
			c.unchecked(e)
		}
	}
	for e := c.peek(); e != nil; e = c.peek() {
		if c.wait {
			if c.x.kind == OffsetIndex && int64(e.Position) >= b.Position+b.Size() {
				return // the waiting entry can still be reached before e's position
			}
			// The batches from the waiting entry's position up to this
			// entry's did not reach its offset.
			c.settle("offset " + strconv.FormatInt(c.waiting.Offset, 10) + " is in no batch from its position " + strconv.FormatInt(c.waitAt, 10) +
				" to entry " + strconv.Itoa(e.N) + "'s position " + strconv.Itoa(int(e.Position)) + " (the batch at " + strconv.FormatInt(b.Position, 10) +
				" ends at offset " + strconv.FormatInt(b.LastOffset, 10) + ")")
		}
		if p := c.order(e); p != "" {
			c.take(p)
			continue
		}
		if c.x.kind == OffsetIndex {
			pos := int64(e.Position)
			if pos >= b.Position+b.Size() {
				if n, ok := c.ahead(); ok && n.Position < e.Position {
					// The entry after it points before it: waiting for a
					// batch at its position would leave that entry, and
					// every one after it, unchecked until the segment's
					// end.
					c.outlier("position "+strconv.FormatInt(pos, 10), n, strconv.Itoa(int(n.Position)), "positions")
					continue
				}
				return // a later entry of the segment settles it
			}
			if pos != b.Position {
				at := "before the segment's entry at " + strconv.FormatInt(b.Position, 10)
				if pos > b.Position {
					at = "inside the entry at " + strconv.FormatInt(b.Position, 10)
				}
				c.take("position " + strconv.FormatInt(pos, 10) + " is not the start of an entry of the segment (it is " + at + ")")
				continue
			}
			if e.Offset < b.BaseOffset {
				c.take("offset " + strconv.FormatInt(e.Offset, 10) + " is below the batch at position " + strconv.FormatInt(pos, 10) +
					" (offsets " + strconv.FormatInt(b.BaseOffset, 10) + "-" + strconv.FormatInt(b.LastOffset, 10) + ")")
				continue
			}
			if e.Offset > b.LastOffset {
				// Written by Kafka before 4.0 on a follower or by the
				// cleaner: one entry per append of many batches, with the
				// largest offset appended and the position of the first
				// batch. A lookup finds the entry and reads on to its
				// offset; a later batch must reach it.
				c.waiting, c.wait, c.waitAt = *e, true, b.Position
				c.next = nil
				continue
			}
			c.take("")
			continue
		}
		if e.Offset > b.LastOffset {
			if n, ok := c.ahead(); ok && n.Offset < e.Offset {
				// As for an .index entry past the batch read: the next
				// entry would wait behind it, unchecked.
				c.outlier("offset "+strconv.FormatInt(e.Offset, 10), n, strconv.FormatInt(n.Offset, 10), "offsets")
				continue
			}
			return
		}
		if e.Offset < b.BaseOffset {
			c.take("offset " + strconv.FormatInt(e.Offset, 10) + " is in no batch of the segment")
			continue
		}
		if e.Timestamp != b.MaxTimestamp {
			c.take("timestamp " + strconv.FormatInt(e.Timestamp, 10) + " is not the max timestamp of the batch holding offset " + strconv.FormatInt(e.Offset, 10) +
				" (" + strconv.FormatInt(b.MaxTimestamp, 10) + ", the batch at position " + strconv.FormatInt(b.Position, 10) + ")")
			continue
		}
		c.take("")
	}
}

// outlier decides the entry peek returned, which points past the batch
// being read while the entry after it, n, points before it: it is the
// one out of order (what is its value, n's is nv, of the field named in
// the plural what), and n is checked against the entry before it.
func (c *IndexCheck) outlier(what string, n IndexEntry, nv, field string) {
	prev, had := c.prevBuf, c.prev != nil
	c.take(what + " is above the next entry's (entry " + strconv.Itoa(n.N) + " has " + nv + "): an index's " + field + " rise")
	c.prevBuf = prev
	if !had {
		c.prev = nil
	}
}

// take decides the entry peek returned.
func (c *IndexCheck) take(problem string) {
	c.decide(*c.next, problem)
	c.next = nil
}

// End checks the entries left once the segment is read: end is where its
// last whole entry ends, last its last offset (-1 when it has none), and
// stop the error [Segment.Next] stopped with (nil or io.EOF when it was
// read to its end). When the segment could not be read to its end (a
// damaged tail, a read error; preallocated zeros are no damage), the
// entries left point where no entry could be read, and are counted
// Unchecked, not as problems of the index. With no segment to check
// against, end the check with EndAlone instead.
func (c *IndexCheck) End(end, last int64, stop error) {
	var te *TailError
	damaged := stop != nil && !errors.Is(stop, io.EOF) && !(errors.As(stop, &te) && te.Zero)
	if c.wait {
		// An entry whose offset no batch after its position reached.
		switch {
		case damaged:
			c.waiting.Unchecked = true
			c.Unchecked++
			c.settle("")
		default:
			c.settle("offset " + strconv.FormatInt(c.waiting.Offset, 10) + " is past the segment's last offset (" + strconv.FormatInt(last, 10) +
				"): in no batch from its position " + strconv.FormatInt(c.waitAt, 10) + " on")
		}
	}
	c.end(func() string {
		if c.x.kind == OffsetIndex {
			return "position " + strconv.Itoa(int(c.next.Position)) + " is past the segment's last entry (which ends at " + strconv.FormatInt(end, 10) + ")"
		}
		return "offset " + strconv.FormatInt(c.next.Offset, 10) + " is past the segment's last offset (" + strconv.FormatInt(last, 10) + ")"
	}, damaged)
}

// EndAlone ends a check that had no segment to check against (Batch was
// never called: none is beside the index): each entry is checked against
// the entries before it only, their order, and the zero entries at the
// end are counted Unused.
func (c *IndexCheck) EndAlone() {
	c.end(func() string { return "" }, false)
}

// end decides the entries left: out of order, or else unchecked when the
// segment was damaged, or else with the problem past gives (of c.next).
func (c *IndexCheck) end(past func() string, damaged bool) {
	for e := c.peek(); e != nil; e = c.peek() {
		if p := c.order(e); p != "" {
			c.take(p)
			continue
		}
		if damaged {
			e.Unchecked = true
			c.Unchecked++
			c.take("")
			continue
		}
		c.take(past())
	}
	// Preallocated space is counted, not listed entry by entry.
	c.Unused, c.UnusedFrom = c.zeros, c.zeroAt
	c.zeros = 0
	// The reader (and the caller's buffer behind it) is done with: a
	// partition's summaries hold their checks, one a segment, and kwire
	// log read thousands of segments holding 128 KiB of buffers each.
	c.x.r, c.x.ahead, c.x.chunk = eofReader{}, nil, nil
	c.queued, c.queuedErr = nil, nil
}

// eofReader is a reader at its end.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// AppendJSON appends the entry as JSON: {"entry":N,...} with the fields
// of its kind, "unused":true for preallocated space.
func (e IndexEntry) AppendJSON(dst []byte, kind IndexKind) []byte {
	dst = append(dst, `{"entry":`...)
	dst = jsontext.AppendInt(dst, int64(e.N))
	switch kind {
	case OffsetIndex:
		dst = append(dst, `,"offset":`...)
		dst = jsontext.AppendInt(dst, e.Offset)
		dst = append(dst, `,"relativeOffset":`...)
		dst = jsontext.AppendInt(dst, int64(e.Relative))
		dst = append(dst, `,"position":`...)
		dst = jsontext.AppendInt(dst, int64(e.Position))
	case TimeIndex:
		dst = append(dst, `,"timestamp":`...)
		dst = jsontext.AppendInt(dst, e.Timestamp)
		dst = append(dst, `,"offset":`...)
		dst = jsontext.AppendInt(dst, e.Offset)
		dst = append(dst, `,"relativeOffset":`...)
		dst = jsontext.AppendInt(dst, int64(e.Relative))
	case TxnIndex:
		dst = append(dst, `,"version":`...)
		dst = jsontext.AppendInt(dst, int64(e.Version))
		dst = append(dst, `,"producerId":`...)
		dst = jsontext.AppendInt(dst, e.ProducerID)
		dst = append(dst, `,"firstOffset":`...)
		dst = jsontext.AppendInt(dst, e.FirstOffset)
		dst = append(dst, `,"lastOffset":`...)
		dst = jsontext.AppendInt(dst, e.LastOffset)
		dst = append(dst, `,"lastStableOffset":`...)
		dst = jsontext.AppendInt(dst, e.LastStableOf)
	}
	if e.Zero && e.N > 0 {
		dst = append(dst, `,"zero":true`...)
	}
	if e.Unchecked {
		dst = append(dst, `,"unchecked":true`...)
	}
	return append(dst, '}')
}

// TxnProblem is what is wrong with an aborted-transaction entry, or "":
// Kafka writes version 0 and first <= last offset.
func TxnProblem(e IndexEntry) string {
	switch {
	case e.Version != 0:
		return "version " + strconv.Itoa(int(e.Version)) + ", not 0"
	case e.FirstOffset > e.LastOffset:
		return "first offset " + strconv.FormatInt(e.FirstOffset, 10) + " is above the last (" + strconv.FormatInt(e.LastOffset, 10) + ")"
	}
	return ""
}
