package storage

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIndexCheckZeroEntryAfterAWaitingEntry (FuzzIndexCheck's
// 31324a830b487e89): an .index entry whose offset is past its batch
// waits for a later batch to reach it; a zero entry read after it, with
// an entry after that, was decided at once, so OnEntry heard entry 1
// before entry 0. Entries are reported in order: the waiting entry when
// it is settled, then the zero entries read while it waited.
func TestIndexCheckZeroEntryAfterAWaitingEntry(t *testing.T) {
	log, _, _ := testSegment(0, 6)
	var idx []byte
	idx = binary.BigEndian.AppendUint32(idx, 4) // entry 0: offset 4 at position 0, reached by the batch after
	idx = binary.BigEndian.AppendUint32(idx, 0)
	idx = append(idx, make([]byte, 8)...) // entry 1: zero, out of order
	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	b0, err := s.Next()
	require.NoError(t, err)
	b1, err := s.Next()
	require.NoError(t, err)
	idx = binary.BigEndian.AppendUint32(idx, uint32(b1.LastOffset)) // entry 2: the second batch
	idx = binary.BigEndian.AppendUint32(idx, uint32(b1.Position))
	require.Zero(t, b0.Position)

	c := NewIndexCheck(NewIndexReader(bytes.NewReader(idx), OffsetIndex, 0))
	var got []string
	c.OnEntry = func(e IndexEntry, problem string) { got = append(got, strconv.Itoa(e.N)+": "+problem) }
	_, err = readAll(t, log, c)
	require.NoError(t, err)
	require.Equal(t, []string{
		"0: ",
		"1: a zero entry before entry 2, not preallocated space at the end",
		"2: ",
	}, got)
}
