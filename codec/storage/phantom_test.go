package storage

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
)

// mirrored is a segment of n batches of three records whose batch k's
// second record's value is itself a whole entry (as MirrorMaker or a test
// copying a log might store): a batch at offset inner, its CRC right.
func mirrored(n, k int, inner int64) (log []byte, at []int64, innerAt int64) {
	in := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("mirrored")}}, storagedata.BatchOptions{FirstTimestamp: 1600000000000, ProducerID: -1})
	storagedata.Place(in, inner, 0)
	var batches [][]byte
	for i := 0; i < n; i++ {
		var recs []storagedata.Record
		for j := 0; j < 3; j++ {
			v := []byte("order")
			if i == k && j == 1 {
				v = in
			}
			recs = append(recs, storagedata.Record{Key: []byte("key"), Value: v, TimestampDelta: int64(j)})
		}
		batches = append(batches, storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000 + int64(i)*1000, ProducerID: -1}))
	}
	log, _, _ = storagedata.Segment(0, 0, batches, 100)
	at = starts(log)
	i := bytes.Index(log[at[k]:], in)
	if i < 0 {
		panic("the inner batch is not in the segment")
	}
	return log, at, at[k] + int64(i)
}

// A batch whose CRC fails (a byte of its records damaged) but whose
// length the log confirms (the entry after it starts where it ends, its
// records fill it) is one entry with a wrong CRC: a batch stored in one
// of its records' values is no entry of the log. It was shown as one,
// the damaged batch's bytes before and after it as damage, and the
// offsets it carried (1000) then hid every batch after it (their offsets
// being lower): a segment of 6 batches read as 3, the inner one and two
// damaged regions.
func TestSegmentNoPhantomInsideADamagedBatch(t *testing.T) {
	for _, inner := range []int64{1000, 7} {
		log, at, innerAt := mirrored(6, 2, inner)
		b := append([]byte(nil), log...)
		b[at[2]+70] ^= 0xff // inside the first record, before the inner batch
		require.Less(t, at[2]+70, innerAt)
		bs, damage, err := readAllDamage(t, b)
		require.NoError(t, err)
		require.Empty(t, damage, "inner offset %d", inner)
		require.Len(t, bs, 6)
		for i, x := range bs {
			require.Equal(t, at[i], x.Position)
			require.Equal(t, i != 2, x.CRCValid, "batch %d", i)
			require.False(t, x.Searched, "batch %d", i)
		}
	}
}

// The same with the damage in the batch's header (its record count, so
// that its records no longer confirm its length, or its magic byte): the
// entry after it, where its length leads, confirms it, or the end of the
// input does for the last batch; the batch inside it is never listed.
func TestSegmentNoPhantomWhenTheLengthLeadsOn(t *testing.T) {
	for _, inner := range []int64{1000, 7} {
		for _, k := range []int{2, 5} {
			log, at, _ := mirrored(6, k, inner)
			b := append([]byte(nil), log...)
			binary.BigEndian.PutUint32(b[at[k]+57:], 4) // 4 records, not 3
			bs, damage, err := readAllDamage(t, b)
			require.NoError(t, err)
			require.Empty(t, damage, "inner offset %d, batch %d", inner, k)
			require.Len(t, bs, 6)
			require.False(t, bs[k].CRCValid)
			require.Equal(t, at[k], bs[k].Position)
		}

		// Its magic byte: the damage is the batch, read on from where its
		// length leads.
		log, at, _ := mirrored(6, 2, inner)
		b := append([]byte(nil), log...)
		b[at[2]+16] = 9
		bs, damage, err := readAllDamage(t, b)
		require.NoError(t, err)
		require.Len(t, damage, 1)
		require.Equal(t, at[2], damage[0].Position)
		require.Equal(t, at[3], damage[0].Resume())
		require.Contains(t, damage[0].Msg, "its length ("+strconv.FormatInt(at[3]-at[2]-12, 10)+") leads to an entry whose CRC holds")
		require.Len(t, bs, 5)
		for i, x := range bs {
			require.Equal(t, []int64{at[0], at[1], at[3], at[4], at[5]}[i], x.Position, "batch %d", i)
			require.False(t, x.Searched, "batch %d: reached by the damaged batch's length", i)
		}
	}
}

// With nothing of the damaged batch to go by (its magic byte and its
// length both wrong) the search finds the batch stored inside it, and
// says it was found by searching; the damage right after it says that
// nothing confirms it, and its offsets (1000) do not hide the batches
// after it, as they did: they were lost, in a "torn tail" of 2 GB.
func TestSegmentPhantomFoundBySearchIsNoFloor(t *testing.T) {
	for _, inner := range []int64{1000, 7} {
		log, at, innerAt := mirrored(6, 2, inner)
		b := append([]byte(nil), log...)
		b[at[2]+16] = 9
		binary.BigEndian.PutUint32(b[at[2]+8:], 5)
		bs, damage, err := readAllDamage(t, b)
		require.NoError(t, err)
		require.Len(t, bs, 6)
		require.Equal(t, innerAt, bs[2].Position)
		require.Equal(t, inner, bs[2].BaseOffset)
		require.True(t, bs[2].Searched)
		require.Len(t, damage, 2)
		require.Equal(t, at[2], damage[0].Position)
		require.Equal(t, innerAt, damage[0].Resume())
		require.Equal(t, innerAt+bs[2].Size(), damage[1].Position)
		require.Equal(t, at[3], damage[1].Resume())
		require.Contains(t, damage[1].Msg, "the entry before it, at "+strconv.FormatInt(innerAt, 10)+", was found by searching and no entry follows it")
		for i, x := range bs[3:] {
			require.Equal(t, at[3+i], x.Position)
			require.Equal(t, i == 0, x.Searched)
			require.True(t, x.CRCValid)
		}
	}
}

// When nothing after a damaged batch confirms its length (the batch after
// it damaged too), the .index does: it names where the next batch starts,
// so a batch found inside the damaged one is stored in its bytes. Without
// the index that batch is what the search finds, and says it found.
func TestSegmentIndexPositionsConfirmALength(t *testing.T) {
	log, at, innerAt := mirrored(6, 2, 1000)
	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[2]+57:], 4) // its records no longer fill it
	b[at[3]+16] = 9                             // and the batch after it is no batch
	index := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 2), uint32(at[1]))
	index = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(index, 11), uint32(at[3]))

	bs, damage, err := readOpts(b, SegmentOptions{})
	require.NoError(t, err)
	require.Equal(t, innerAt, damage[0].Resume(), "without the index")
	require.True(t, bs[2].Searched)

	bs, damage, err = readOpts(b, SegmentOptions{Index: NewIndexPositions(NewIndexReader(bytes.NewReader(index), OffsetIndex, 0))})
	require.NoError(t, err)
	require.Len(t, bs, 5)
	require.Equal(t, at[2], bs[2].Position)
	require.False(t, bs[2].CRCValid)
	require.Len(t, damage, 1)
	require.Equal(t, at[3], damage[0].Position)
	require.Equal(t, at[4], damage[0].Resume())
	for i, x := range bs {
		require.Equal(t, []int64{at[0], at[1], at[2], at[4], at[5]}[i], x.Position, "batch %d", i)
	}

	// A position the index names inside the batch says its length is
	// corrupt, whatever follows it.
	c := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(c[at[2]+57:], 4)
	index = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, 8), uint32(innerAt))
	bs, damage, err = readOpts(c, SegmentOptions{Index: NewIndexPositions(NewIndexReader(bytes.NewReader(index), OffsetIndex, 0))})
	require.NoError(t, err)
	require.Len(t, damage, 2)
	require.Equal(t, innerAt, bs[2].Position)
}
