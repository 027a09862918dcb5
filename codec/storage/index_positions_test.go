package storage

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readChecked is readOpts feeding the checks, as kwire log does.
func readChecked(t *testing.T, log []byte, o SegmentOptions, checks ...*IndexCheck) ([]*Batch, []*DamageError, error) {
	t.Helper()
	return readOpts(log, o, checks...)
}

// offsetIndex is an .index of the (relative offset, position) pairs.
func offsetIndex(pairs ...int64) []byte {
	var b []byte
	for i := 0; i+1 < len(pairs); i += 2 {
		b = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, uint32(pairs[i])), uint32(pairs[i+1]))
	}
	return b
}

// The positions a resync asks the .index for come from the IndexCheck
// reading it (Positions), so the file is read once, its entries checked
// all the same: kwire log and the playground opened and read it twice.
// A position named where the damaged batch ends confirms its length; one
// inside it says its length is corrupt, as with an index read alone.
func TestSegmentIndexPositionsReadByTheCheck(t *testing.T) {
	log, at, innerAt := mirrored(6, 2, 1000)
	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[2]+57:], 4) // its records no longer fill it
	b[at[3]+16] = 9                             // and the batch after it is no batch
	index := offsetIndex(2, at[1], 11, at[3])

	r := &byteCounter{r: bytes.NewReader(index)}
	c := NewIndexCheck(NewIndexReader(r, OffsetIndex, 0))
	p := c.Positions()
	bs, damage, err := readChecked(t, b, SegmentOptions{Index: p}, c)
	require.NoError(t, err)
	require.Len(t, bs, 5)
	require.Equal(t, at[2], bs[2].Position)
	require.False(t, bs[2].CRCValid)
	require.Len(t, damage, 1)
	require.Equal(t, at[3], damage[0].Position)
	require.Equal(t, int64(len(index)), r.n, "the .index is read once")
	require.Equal(t, 2, c.Entries)
	require.Empty(t, p.Note())

	// A position inside the damaged batch: its length is corrupt.
	c2 := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(c2[at[2]+57:], 4)
	index = offsetIndex(2, at[1], 8, innerAt)
	ic := NewIndexCheck(NewIndexReader(bytes.NewReader(index), OffsetIndex, 0))
	bs, damage, err = readChecked(t, c2, SegmentOptions{Index: ic.Positions()}, ic)
	require.NoError(t, err)
	require.Len(t, damage, 2)
	require.Equal(t, innerAt, bs[2].Position)
	require.Equal(t, 2, ic.Entries)

	// A .timeindex names no positions.
	require.Nil(t, NewIndexCheck(NewIndexReader(bytes.NewReader(nil), TimeIndex, 0)).Positions())
}

// stuckIndex is an .index naming the segment's second batch, then n
// entries naming pos, where the damaged third starts: a resync there asks
// for a position past it, and every entry must be passed to find there is
// none; a check reading the index waits at the first of them for a batch
// past pos.
func stuckIndex(n int, second, pos int64) []byte {
	b := offsetIndex(3, second)
	for i := 0; i < n; i++ {
		b = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, 6), uint32(pos))
	}
	return b
}

// A hostile .index read alone (NewIndexPositions) whose million entries
// all name where the damage starts: the entries a resync reads are
// charged to its budget, so it reads what the damage allows and says it
// did not consult the rest; it read all 8 MB for one damaged batch.
func TestSegmentIndexPositionsCharged(t *testing.T) {
	log, at, innerAt := mirrored(6, 2, 1000)
	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[2]+57:], 4)
	b[at[3]+16] = 9
	index := stuckIndex(1<<20, at[1], at[2])
	const maxBatch = 4096
	r := &byteCounter{r: bytes.NewReader(index)}
	bs, damage, err := readOpts(b, SegmentOptions{MaxBatch: maxBatch, Index: NewIndexPositions(NewIndexReader(r, OffsetIndex, 0))})
	require.NoError(t, err)
	// As without an index: the batch inside the damaged one is found.
	require.Equal(t, innerAt, damage[0].Resume())
	require.Contains(t, damage[0].Msg, "the .index was not consulted (reading its entries would pass the work a resync is allowed")
	require.Less(t, r.n, int64(maxBatch+resyncCRCPerByte*len(b)+8))
	require.NotEmpty(t, bs)
}

// The same .index read by its check: the entries the resync would read
// ahead of the check are held for it, at most MaxIndexAhead of them, and
// past that the index is not consulted, which the damage and Note say;
// the check still reads and judges every entry, the file once.
func TestSegmentIndexPositionsHeldAheadBounded(t *testing.T) {
	log, at, innerAt := mirrored(6, 2, 1000)
	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[2]+57:], 4)
	b[at[3]+16] = 9
	const n = 1 << 18
	index := stuckIndex(n, at[1], at[2])
	r := &byteCounter{r: bytes.NewReader(index)}
	c := NewIndexCheck(NewIndexReader(r, OffsetIndex, 0))
	p := c.Positions()
	_, damage, err := readChecked(t, b, SegmentOptions{Index: p}, c)
	require.NoError(t, err)
	require.Equal(t, innerAt, damage[0].Resume())
	require.Contains(t, damage[0].Msg, "the .index was not consulted (more than 1024 of its entries would be held ahead of its check)")
	require.Contains(t, p.Note(), "the .index was not consulted for the damaged entry at ")
	require.LessOrEqual(t, len(c.queued), MaxIndexAhead)
	require.Equal(t, n+1, c.Entries)
	require.Equal(t, n-1, c.Count, "every entry after the second is out of order")
	require.Equal(t, int64(len(index)), r.n)
}

// A preallocated .index (entries, then zeros to its end) names no
// position past its zeros: a resync past its last entry reads one zero
// entry, not the megabytes of them (which its check counts in bulk).
func TestSegmentIndexPositionsEndAtZeros(t *testing.T) {
	log, at, innerAt := mirrored(6, 5, 1000)
	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[5]+57:], 4) // the last batch's records no longer fill it
	b = append(b, 1, 2, 3)                      // and no zeros or end confirm its length
	index := append(offsetIndex(2, at[1], 11, at[3]), make([]byte, 8<<20)...)
	r := &byteCounter{r: bytes.NewReader(index)}
	_, damage, err := readOpts(b, SegmentOptions{Index: NewIndexPositions(NewIndexReader(r, OffsetIndex, 0))})
	require.Error(t, err) // a corrupt tail after the inner batch
	require.Len(t, damage, 1)
	require.Equal(t, innerAt, damage[0].Resume())
	require.NotContains(t, damage[0].Msg, "not consulted")
	require.Less(t, r.n, int64(64<<10))
}
