package storage

import "strconv"

// OffsetProblem is an entry of a segment whose offsets are out of order:
// they go back or overlap the entries before it, fall below the
// segment's base offset, run past the next segment's, or hold fewer
// offsets than its header declares records.
type OffsetProblem struct {
	Position               int64 // the entry's position in the segment
	BaseOffset, LastOffset int64 // the offsets it holds
	Msg                    string
}

// OffsetCheck checks the offsets of a segment's entries as it is read
// (Batch for each entry in order, then Next with the base offset of the
// partition's next segment, when there is one): the one check kwire log
// and the playground both run. It holds no entry.
type OffsetCheck struct {
	base int64
	// Last is the largest offset of the entries read (-1: none); LastAt
	// and LastBase are the position and base offset of the entry that
	// holds it.
	Last, LastAt, LastBase int64
}

// NewOffsetCheck checks a segment whose file name gives base offset base
// (-1: it is not named so, as a KRaft snapshot or a pipe's bytes are not).
func NewOffsetCheck(base int64) *OffsetCheck {
	return &OffsetCheck{base: base, Last: -1, LastAt: -1, LastBase: -1}
}

// Batch checks entry b, the next of the segment, and appends its problems
// to dst. records is what the entry counts: its header's record count,
// but never more than the offsets a batch's span holds (each record has
// an offset of its own in it; a count past it is the header's, not
// records that are there, and is a problem); a negative count, a
// problem too, counts what the span holds.
func (c *OffsetCheck) Batch(dst []OffsetProblem, b *Batch) (records int64, problems []OffsetProblem) {
	add := func(msg string) {
		dst = append(dst, OffsetProblem{Position: b.Position, BaseOffset: b.BaseOffset, LastOffset: b.LastOffset, Msg: msg})
	}
	records = int64(max(b.Records, 0))
	held := b.LastOffset - b.BaseOffset + 1
	switch {
	case b.Magic == 2 && held > 0 && records > held:
		add("the header declares " + strconv.FormatInt(records, 10) + " records, more than its offsets hold (" + strconv.FormatInt(held, 10) +
			"): counted as " + strconv.FormatInt(held, 10))
		records = held
	case b.Magic == 2 && b.Records < 0:
		// A count no batch has (a corrupt header: its CRC says so too);
		// its offsets say how many records it may hold.
		records = max(held, 0)
		add("the header declares " + strconv.Itoa(b.Records) + " records: counted as " + strconv.FormatInt(records, 10) + ", what its offsets hold")
	}
	if b.Magic == 2 && b.LastOffset < b.BaseOffset {
		add("lastOffsetDelta " + strconv.FormatInt(b.LastOffset-b.BaseOffset, 10) + " is negative")
	}
	if c.base >= 0 && b.BaseOffset < c.base {
		add("base offset " + strconv.FormatInt(b.BaseOffset, 10) + " is below the segment's base offset " + strconv.FormatInt(c.base, 10) + " (its file name)")
	}
	if c.Last >= 0 && b.BaseOffset <= c.Last {
		what := "overlap"
		if b.LastOffset <= c.Last {
			what = "go back below"
		}
		add("offsets " + strconv.FormatInt(b.BaseOffset, 10) + "-" + strconv.FormatInt(b.LastOffset, 10) + " " + what +
			" the entries before it, which reached offset " + strconv.FormatInt(c.Last, 10))
	}
	if b.LastOffset > c.Last {
		c.Last, c.LastAt, c.LastBase = b.LastOffset, b.Position, b.BaseOffset
	}
	return records, dst
}

// Next checks the segment, read to its end, against the partition's next
// segment, whose file name gives base offset next: a segment whose
// offsets reach it overlaps it (ok is false when it does not).
func (c *OffsetCheck) Next(next int64) (p OffsetProblem, ok bool) {
	if c.Last < 0 || c.Last < next {
		return OffsetProblem{}, false
	}
	return OffsetProblem{Position: c.LastAt, BaseOffset: c.LastBase, LastOffset: c.Last,
		Msg: "the segment runs to offset " + strconv.FormatInt(c.Last, 10) + ", past the next segment's base offset " + strconv.FormatInt(next, 10)}, true
}
