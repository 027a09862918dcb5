package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/hostile"
	"github.com/kwire/kwire/internal/storagedata"
)

// skipSegment is a small batch, one of 2000 bytes, and a small one, laid
// out from offset 500 with an index entry for each of the last two.
func skipSegment() (log, index, timeindex []byte) {
	small := func(ts int64) []byte {
		return storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: ts, ProducerID: -1})
	}
	big := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: bytes.Repeat([]byte("x"), 2000)}, {Key: []byte("k2"), Value: []byte("y"), TimestampDelta: 7}},
		storagedata.BatchOptions{FirstTimestamp: 1700000001000, ProducerID: -1})
	return storagedata.Segment(500, 0, [][]byte{small(1700000000000), big, small(1700000002000)}, 10)
}

// An entry longer than MaxBatch is passed over without being held, but
// its header still says what it holds: its offsets, timestamps and record
// count, its CRC computed as it streamed past, so the indexes pointing at
// it check clean and its JSON line says which offsets were passed over.
func TestSkippedBatchIsDescribedByItsHeader(t *testing.T) {
	log, index, timeindex := skipSegment()
	s := NewSegment(bytes.NewReader(log), SegmentOptions{MaxBatch: 1000})
	oc := NewIndexCheck(NewIndexReader(bytes.NewReader(index), OffsetIndex, 500))
	tc := NewIndexCheck(NewIndexReader(bytes.NewReader(timeindex), TimeIndex, 500))
	var got []Batch
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		oc.Batch(b)
		tc.Batch(b)
		if b.Skipped {
			var out bytes.Buffer
			require.NoError(t, s.WriteJSON(&out, nil, b))
			var line map[string]any
			require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
			require.Contains(t, line["skipped"], "passed over")
			require.EqualValues(t, 501, line["baseOffset"])
			require.EqualValues(t, 502, line["lastOffset"])
			require.EqualValues(t, 2, line["records"])
			require.EqualValues(t, 1700000001007, line["maxTimestamp"])
			require.Nil(t, line["batch"])
		}
		got = append(got, *b)
	}
	oc.End(int64(len(log)), 503, nil)
	tc.End(int64(len(log)), 503, nil)
	require.Len(t, got, 3)
	b := got[1]
	require.True(t, b.Skipped)
	require.True(t, b.CRCValid)
	require.Equal(t, int64(501), b.BaseOffset)
	require.Equal(t, int64(502), b.LastOffset)
	require.Equal(t, int64(1700000001000), b.FirstTimestamp)
	require.Equal(t, int64(1700000001007), b.MaxTimestamp)
	require.Equal(t, 2, b.Records)
	require.Equal(t, int64(503), got[2].BaseOffset)
	require.NotZero(t, oc.Entries)
	require.Zero(t, oc.Count, "%v", oc.Problems)
	require.Zero(t, tc.Count, "%v", tc.Problems)
}

// A length past the limit whose CRC does not match the bytes it spans is
// a corrupt length: the segment ends in a corrupt tail at that entry's
// own position (the rest of the input), not with the entry passed over
// and the damage reported wherever the wrong length happened to land.
func TestSkippedBatchWithACorruptLengthIsACorruptTail(t *testing.T) {
	log, _, _ := testSegment(0, 40)
	first := binary.BigEndian.Uint32(log[8:12]) + 12
	second := first + binary.BigEndian.Uint32(log[first+8:]) + 12
	bad := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(bad[second+8:], 2000) // was about 100: now over the limit, inside the file
	s := NewSegment(bytes.NewReader(bad), SegmentOptions{MaxBatch: 1000})
	var n int
	for {
		_, err := s.Next()
		if err == nil {
			n++
			continue
		}
		var te *TailError
		require.ErrorAs(t, err, &te)
		require.False(t, te.Torn)
		require.False(t, te.Zero)
		require.Equal(t, int64(second), te.Position)
		require.Equal(t, int64(len(bad))-int64(second), te.Size)
		require.Contains(t, te.Msg, "CRC does not match")
		break
	}
	require.Equal(t, 2, n)
}

// zeros reads as n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	clear(p[:k])
	z.n -= int64(k)
	return k, nil
}

// A batch past DefaultMaxBatch (70 MiB here) is streamed past, its CRC
// computed on the way: memory does not grow with the length it declares.
func TestSkippedBatchIsStreamedNotHeld(t *testing.T) {
	const size = 70 << 20
	h := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	h = h[:61]
	binary.BigEndian.PutUint32(h[8:], uint32(size-12))
	body := int64(size - 61)
	crc := crc32.Update(crc32.Checksum(h[21:], castagnoli), castagnoli, make([]byte, body))
	binary.BigEndian.PutUint32(h[17:], crc)
	var b *Batch
	var err error
	got := hostile.Allocated(func() {
		s := NewSegment(io.MultiReader(bytes.NewReader(h), &zeros{body}), SegmentOptions{})
		b, err = s.Next()
		if err == nil {
			_, err = s.Next()
		}
	})
	require.ErrorIs(t, err, io.EOF)
	require.True(t, b.Skipped)
	require.True(t, b.CRCValid)
	require.Equal(t, int64(size), b.Size())
	require.Less(t, got, uint64(1<<20))
}

// A segment a broker preallocated (file.preallocate) and crashed with ends
// in zeros: a tail said to be zeros, neither torn nor corrupt, which
// EncodeLine gives back from its size. Zeros followed by anything else are
// still corrupt.
func TestZeroFilledTailIsPreallocatedSpace(t *testing.T) {
	log, _, _ := testSegment(0, 2)
	withZeros := append(append([]byte(nil), log...), make([]byte, 1<<20)...)
	bs, err := readAll(t, withZeros)
	require.Len(t, bs, 2)
	var te *TailError
	require.ErrorAs(t, err, &te)
	require.True(t, te.Zero)
	require.False(t, te.Torn)
	require.Equal(t, int64(len(log)), te.Position)
	require.Equal(t, int64(1<<20), te.Size)
	require.Contains(t, te.Error(), "zero-filled tail at position")
	got, err := EncodeLine("tail", map[string]any{"zero": true, "size": json.Number("1048576")})
	require.NoError(t, err)
	require.Equal(t, withZeros[len(log):], got)

	_, err = readAll(t, append(withZeros, 1))
	require.ErrorAs(t, err, &te)
	require.False(t, te.Zero)
	require.False(t, te.Torn)
	require.Contains(t, te.Msg, "length 0")
}
