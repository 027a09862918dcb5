package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math/rand"
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

// readOpts reads log to its end with o, reading on past damaged regions,
// feeding the checks (kwire log feeds its .index checks so).
func readOpts(log []byte, o SegmentOptions, checks ...*IndexCheck) (bs []*Batch, damage []*DamageError, err error) {
	s := NewSegment(bytes.NewReader(log), o)
	var end, last int64 = 0, -1
	for {
		b, err := s.Next()
		var de *DamageError
		if errors.As(err, &de) {
			damage = append(damage, de)
			for _, c := range checks {
				c.Damage(de)
			}
			continue
		}
		if err != nil {
			for _, c := range checks {
				c.End(end, last, err)
			}
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return bs, damage, err
		}
		cp := *b
		cp.Bytes = append([]byte(nil), b.Bytes...)
		bs = append(bs, &cp)
		end, last = b.Position+b.Size(), b.LastOffset
		for _, c := range checks {
			c.Batch(b)
		}
	}
}

// A length past the limit, with the batches after it whole in the file,
// is a corrupt length, not an entry to pass over: the bytes up to the
// next batch whose CRC holds are a damaged region and reading resumes
// there. Far from the entry's end (a batch inside, more than MaxBatch
// before it), that batch decides; within MaxBatch of it, the entry's own
// CRC does, read to its end.
func TestSkippedBatchWithACorruptLengthIsDamage(t *testing.T) {
	log, _, _ := testSegment(0, 40)
	at := starts(log)
	for _, c := range []struct {
		length uint32
		msg    string
	}{
		{2000, "starts inside it, 1897 bytes before its end: a corrupt length"},
		{1100, "its CRC does not match them"},
	} {
		bad := append([]byte(nil), log...)
		binary.BigEndian.PutUint32(bad[at[2]+8:], c.length) // was about 100: now over the limit, inside the file
		bs, damage, err := readOpts(bad, SegmentOptions{MaxBatch: 1000})
		require.NoError(t, err, "length %d", c.length)
		require.Len(t, bs, 39)
		require.Len(t, damage, 1)
		require.Equal(t, at[2], damage[0].Position)
		require.Equal(t, at[3], damage[0].Resume())
		require.Contains(t, damage[0].Msg, "more than the limit (1000)")
		require.Contains(t, damage[0].Msg, c.msg)
		require.Equal(t, at[3], bs[2].Position)
		for _, b := range bs {
			require.False(t, b.Skipped)
		}
	}
}

// A length whose high bits are flipped (2 GiB) in the middle of a segment
// with megabytes after it is damage, not a torn tail: reading resumes at
// the next batch, with the default limit, and memory stays that of a
// batch.
func TestHugeCorruptLengthInTheMiddleIsDamage(t *testing.T) {
	log, _, _ := testSegment(0, 20000) // about 2 MiB
	at := starts(log)
	bad := append([]byte(nil), log...)
	bad[at[5]+8] |= 0x7f
	var bs []*Batch
	var damage []*DamageError
	var err error
	got := hostile.Allocated(func() { bs, damage, err = readOpts(bad, SegmentOptions{}) })
	require.NoError(t, err)
	require.Len(t, damage, 1)
	require.Equal(t, at[5], damage[0].Position)
	require.Equal(t, at[6], damage[0].Resume())
	require.Contains(t, damage[0].Msg, "more than the limit")
	require.Contains(t, damage[0].Msg, "a corrupt length")
	require.Len(t, bs, 19999)
	require.Less(t, got, uint64(len(bad))*3/2+8<<20, "allocated for a %d-byte segment", len(bad))
}

// A real torn tail stays one: an entry longer than the limit that the
// end of the file cuts short, nothing whole after it, is torn, whether
// the file ends in its header or past it.
func TestSkippedBatchCutShortIsTorn(t *testing.T) {
	log, _, _ := skipSegment() // small, big (2000 bytes of value), small
	at := starts(log)
	for _, cut := range []int64{at[1] + 40, at[1] + 1500, at[2] - 1} {
		bs, damage, err := readOpts(log[:cut], SegmentOptions{MaxBatch: 1000})
		require.Len(t, bs, 1)
		require.Empty(t, damage)
		var te *TailError
		require.ErrorAs(t, err, &te, "cut at %d", cut)
		require.True(t, te.Torn, "cut at %d: %v", cut, te)
		require.Equal(t, at[1], te.Position)
		require.Equal(t, cut-at[1], te.Size)
		require.Contains(t, te.Msg, "bytes after its length; ")
	}
}

// A long entry whose CRC does not match, no batch inside it, is a corrupt
// length all the same: the damage ends where the batch after it starts.
// Past the last batch, it is a corrupt tail.
func TestSkippedBatchWithAWrongCRCIsDamage(t *testing.T) {
	log, _, _ := skipSegment()
	at := starts(log)
	bad := append([]byte(nil), log...)
	bad[at[1]+500] ^= 0xff
	bs, damage, err := readOpts(bad, SegmentOptions{MaxBatch: 1000})
	require.NoError(t, err)
	require.Len(t, bs, 2)
	require.Len(t, damage, 1)
	require.Equal(t, at[1], damage[0].Position)
	require.Equal(t, at[2], damage[0].Resume())
	require.Contains(t, damage[0].Msg, "its CRC does not match them")

	bs, damage, err = readOpts(bad[:at[2]], SegmentOptions{MaxBatch: 1000})
	require.Len(t, bs, 1)
	require.Empty(t, damage)
	var te *TailError
	require.ErrorAs(t, err, &te)
	require.False(t, te.Torn)
	require.Equal(t, at[1], te.Position)
	require.Contains(t, te.Msg, "its CRC does not match them")
}

// A long entry whose value holds a whole batch, its CRC right, is passed
// over as one entry: the batch inside is its bytes, not where it ends.
func TestSkippedBatchHoldingABatchIsPassedOver(t *testing.T) {
	inner := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("inner")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	storagedata.Place(inner, 900, 0)
	small := func(ts int64) []byte {
		return storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: ts, ProducerID: -1})
	}
	value := append(append(bytes.Repeat([]byte("x"), 600), inner...), bytes.Repeat([]byte("y"), 300)...)
	big := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: value}}, storagedata.BatchOptions{FirstTimestamp: 1700000001000, ProducerID: -1})
	log, _, _ := storagedata.Segment(0, 0, [][]byte{small(1700000000000), big, small(1700000002000)}, 1<<20)
	bs, damage, err := readOpts(log, SegmentOptions{MaxBatch: 1000})
	require.NoError(t, err)
	require.Empty(t, damage)
	require.Len(t, bs, 3)
	require.True(t, bs[1].Skipped)
	require.True(t, bs[1].CRCValid)
	require.Equal(t, int64(2), bs[2].BaseOffset)
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

// A batch past the limit whose records look random (compressed), its CRC
// right, is streamed past as zeros are: the look for a batch inside it
// (a corrupt length's) finds no header plausible enough to read ahead
// by its length, which cost 64 MiB held and 134 MB allocated while
// headers needed less to pass.
func TestSkippedBatchOfRandomBytesIsStreamedNotHeld(t *testing.T) {
	const size = 70 << 20
	h := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	b := make([]byte, size)
	copy(b, h[:61])
	rand.New(rand.NewSource(1)).Read(b[61:])
	binary.BigEndian.PutUint32(b[8:], uint32(size-12))
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
	var bt *Batch
	var err error
	got := hostile.Allocated(func() {
		s := NewSegment(bytes.NewReader(b), SegmentOptions{})
		bt, err = s.Next()
		if err == nil {
			_, err = s.Next()
		}
	})
	require.ErrorIs(t, err, io.EOF)
	require.True(t, bt.Skipped)
	require.True(t, bt.CRCValid)
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

// A preallocated segment's zeros to the end are passed over a block at a
// time, not judged as a possible entry a byte at a time: a 1 GiB
// preallocated segment took seconds of a resync's scan to be found zeros.
func TestZeroTailIsScannedInBulk(t *testing.T) {
	log, _, _ := testSegment(0, 2)
	const tail = 64 << 20
	s := NewSegment(io.MultiReader(bytes.NewReader(log), &zeros{tail}), SegmentOptions{})
	var err error
	for n := 0; err == nil; n++ {
		_, err = s.Next()
	}
	var te *TailError
	require.ErrorAs(t, err, &te)
	require.True(t, te.Zero)
	require.Equal(t, int64(tail), te.Size)
	require.Less(t, s.looked, int64(tail/256), "positions judged one at a time")
}

// An entry longer than MaxBatch holding a batch in a record's value, more
// than MaxBatch before its end, is passed over whole when that batch's
// offsets are within its own (its header plausible): the batch after a
// corrupt length would come after them. It was a damaged region, read on
// from the stored batch, the rest of the entry damage too.
func TestSkippedBatchHoldingABatchFarFromItsEndIsPassedOver(t *testing.T) {
	small := func(ts int64) []byte {
		return storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: ts, ProducerID: -1})
	}
	inner := small(1600000000000)
	storagedata.Place(inner, 502, 0)
	big := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: inner}, {Key: []byte("k"), Value: bytes.Repeat([]byte("x"), 2000)}, {Key: []byte("k2"), Value: []byte("y")}},
		storagedata.BatchOptions{FirstTimestamp: 1700000001000, ProducerID: -1})
	log, _, _ := storagedata.Segment(500, 0, [][]byte{small(1700000000000), big, small(1700000002000)}, 10)
	at := starts(log)
	bs, damage, err := readOpts(log, SegmentOptions{MaxBatch: 1000})
	require.NoError(t, err)
	require.Empty(t, damage)
	require.Len(t, bs, 3)
	require.True(t, bs[1].Skipped)
	require.True(t, bs[1].CRCValid)
	require.Equal(t, at[1], bs[1].Position)
	require.Equal(t, int64(503), bs[1].LastOffset)
	require.Equal(t, at[2], bs[2].Position)
}

// A long entry (past MaxBatch) whose CRC fails, holding in a record's
// value a batch whose CRC holds and whose offsets are later than those of
// the entry its length leads to (a batch whose CRC holds too): the
// entry's length is right, the batch inside is its bytes, and the entry
// is one damaged region, read on where it ends. It was a corrupt length:
// damage up to the stored batch, that batch listed as found by search,
// and the rest of the entry damage again. Its message called the length
// corrupt, then right.
func TestSkippedDamagedBatchHoldingALaterBatch(t *testing.T) {
	small := func(ts int64) []byte {
		return storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: ts, ProducerID: -1})
	}
	inner := small(1600000000000)
	storagedata.Place(inner, 900, 0)
	value := append(append(bytes.Repeat([]byte("x"), 600), inner...), bytes.Repeat([]byte("y"), 300)...)
	big := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: value}}, storagedata.BatchOptions{FirstTimestamp: 1700000001000, ProducerID: -1})
	log, _, _ := storagedata.Segment(0, 0, [][]byte{small(1700000000000), big, small(1700000002000), small(1700000003000)}, 1<<20)
	at := starts(log)
	for _, flip := range []int64{200, 900} { // before the stored batch, after it
		bad := append([]byte(nil), log...)
		bad[at[1]+flip] ^= 0xff
		bs, damage, err := readOpts(bad, SegmentOptions{MaxBatch: 1000})
		require.NoError(t, err)
		require.Len(t, damage, 1, "flip at %d", flip)
		require.Equal(t, at[1], damage[0].Position)
		require.Equal(t, at[2], damage[0].Resume())
		require.Contains(t, damage[0].Msg, "its CRC does not match them")
		require.Contains(t, damage[0].Msg, "that batch is stored in its bytes, and the entry is damaged, its length right")
		require.NotContains(t, damage[0].Msg, "corrupt length", "its length is right: the message said both")
		require.Len(t, bs, 3)
		for i, b := range bs {
			require.Equal(t, []int64{at[0], at[2], at[3]}[i], b.Position)
			require.False(t, b.Searched, "batch %d: reached by the damaged entry's length", i)
			require.True(t, b.CRCValid)
		}
	}
}

// A corrupt length that makes an entry swallow the next one whole and
// end where the one after starts still reads as one: the batch inside is
// the log's next entry, its offsets below those of the entry the length
// leads to, not later.
func TestSkippedLengthSwallowingTheNextBatchIsCorrupt(t *testing.T) {
	log, _, _ := testSegment(0, 10)
	at := starts(log)
	bad := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(bad[at[2]+8:], uint32(at[4]-at[2]-12))
	bs, damage, err := readOpts(bad, SegmentOptions{MaxBatch: int(at[3] - at[2])})
	require.NoError(t, err)
	require.Len(t, damage, 1)
	require.Equal(t, at[2], damage[0].Position)
	require.Equal(t, at[3], damage[0].Resume())
	require.Contains(t, damage[0].Msg, "a corrupt length")
	require.NotContains(t, damage[0].Msg, "stored in its bytes")
	require.Len(t, bs, 9)
	require.Equal(t, at[3], bs[2].Position)
}

// The rule for a batch inside a long entry reaches MaxBatch from that
// batch, no further (skip says why: the bytes from it to the entry's end
// would be held): a whole long entry, its CRC right, holding a batch
// whose offsets are later than its own 3000 bytes before its end (past
// MaxBatch, 1000) reads as damage up to that batch, the batch found by
// search, and damage after it that says the batch may be stored in a
// damaged entry's bytes. Within MaxBatch, the same entry is passed over
// whole (TestSkippedBatchHoldingABatchIsPassedOver). No batch of the log
// is lost either way.
func TestSkippedBatchHoldingALaterBatchPastMaxBatch(t *testing.T) {
	small := func(ts int64) []byte {
		return storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}}, storagedata.BatchOptions{FirstTimestamp: ts, ProducerID: -1})
	}
	inner := small(1600000000000)
	storagedata.Place(inner, 900, 0)
	value := append(append(bytes.Repeat([]byte("x"), 600), inner...), bytes.Repeat([]byte("y"), 3000)...)
	big := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: value}}, storagedata.BatchOptions{FirstTimestamp: 1700000001000, ProducerID: -1})
	log, _, _ := storagedata.Segment(0, 0, [][]byte{small(1700000000000), big, small(1700000002000)}, 1<<20)
	at := starts(log)
	innerAt := at[1] + int64(bytes.Index(log[at[1]:], inner))
	bs, damage, err := readOpts(log, SegmentOptions{MaxBatch: 1000})
	require.NoError(t, err)
	require.Len(t, damage, 2)
	require.Equal(t, at[1], damage[0].Position)
	require.Equal(t, innerAt, damage[0].Resume())
	require.Contains(t, damage[0].Msg, "a batch whose CRC holds starts inside it, 3071 bytes before its end: a corrupt length")
	require.Equal(t, innerAt+int64(len(inner)), damage[1].Position)
	require.Equal(t, at[2], damage[1].Resume())
	require.Contains(t, damage[1].Msg, "it may be a batch stored inside a damaged entry's bytes")
	require.Len(t, bs, 3)
	require.Equal(t, []int64{at[0], innerAt, at[2]}, []int64{bs[0].Position, bs[1].Position, bs[2].Position})
	require.True(t, bs[1].Searched)
	require.EqualValues(t, 900, bs[1].BaseOffset)
	require.EqualValues(t, 2, bs[2].BaseOffset)
}
