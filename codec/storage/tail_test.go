package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/hostile"
	"github.com/kwire/kwire/internal/storagedata"
)

// tailOf reads log to its end and returns the tail it ends with.
func tailOf(t *testing.T, log []byte) (*TailError, int) {
	t.Helper()
	bs, damage, err := readAllDamage(t, log)
	require.Empty(t, damage)
	var te *TailError
	require.True(t, errors.As(err, &te), "%v", err)
	require.Equal(t, int64(len(log)), te.Position+te.Size)
	return te, len(bs)
}

// A tail is torn only when it can be a partial write: a length no
// segment can hold (2 GiB from its position on), or nothing but zeros
// after the length, is a corrupt tail, and zeros after the last entry
// are preallocated space; each says where its zeros start. A length of
// 2^31-1 followed by zeros was a torn tail, and no tail said where the
// zeros after a partial write began.
func TestSegmentTailsToldApart(t *testing.T) {
	log, _, _ := testSegment(0, 4)
	at := starts(log)
	end := int64(len(log))
	zeros := make([]byte, 64<<10)

	t.Run("a length no segment holds, then zeros", func(t *testing.T) {
		b := append(append(append([]byte(nil), log...), binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 12), 0x7fffffff)...), zeros...)
		te, n := tailOf(t, b)
		require.Equal(t, 4, n)
		require.False(t, te.Torn)
		require.False(t, te.Zero)
		require.Equal(t, end, te.Position)
		require.Equal(t, end+12, te.ZeroFrom)
		require.Contains(t, te.Msg, "declares 2147483647 bytes after its length")
		require.Contains(t, te.Msg, "more than a segment holds")
		require.Contains(t, te.Msg, "bytes "+strconv.FormatInt(end+12, 10)+"-"+strconv.FormatInt(int64(len(b))-1, 10)+" (65536 bytes) are zeros to the end")
		require.Contains(t, te.Error(), "corrupt tail")
	})

	t.Run("a length that fits, then only zeros", func(t *testing.T) {
		b := append(append(append([]byte(nil), log...), binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 12), 1<<20+1)...), zeros[:4096]...)
		te, _ := tailOf(t, b)
		require.False(t, te.Torn)
		require.False(t, te.Zero)
		require.Equal(t, end+12, te.ZeroFrom)
		require.Contains(t, te.Msg, "every byte after its length is zero")
	})

	t.Run("a partial last batch", func(t *testing.T) {
		b := append([]byte(nil), log[:at[3]+70]...)
		for b[len(b)-1] == 0 {
			b = b[:len(b)-1]
		}
		te, n := tailOf(t, b)
		require.Equal(t, 3, n)
		require.True(t, te.Torn)
		require.Equal(t, at[3], te.Position)
		require.Equal(t, int64(len(b)), te.ZeroFrom)
		require.NotContains(t, te.Msg, "zeros")
		require.Contains(t, te.Error(), "torn tail")
	})

	t.Run("a partial last batch, then zeros", func(t *testing.T) {
		// The file ends before the batch would: zeros after what was
		// written of it are still a partial write.
		b := append(append([]byte(nil), log[:at[3]+70]...), zeros[:20]...)
		cut := int64(len(b) - 20)
		for b[cut-1] == 0 {
			cut--
		}
		te, _ := tailOf(t, b)
		require.True(t, te.Torn)
		require.Equal(t, cut, te.ZeroFrom)
		require.Contains(t, te.Msg, "bytes "+strconv.FormatInt(cut, 10)+"-"+strconv.FormatInt(int64(len(b))-1, 10))
	})

	t.Run("zeros after the last entry", func(t *testing.T) {
		b := append(append([]byte(nil), log...), zeros...)
		te, n := tailOf(t, b)
		require.Equal(t, 4, n)
		require.True(t, te.Zero)
		require.False(t, te.Torn)
		require.Equal(t, end, te.ZeroFrom)
		require.Equal(t, end, te.Position)
	})

	t.Run("a length no segment holds, found past megabytes", func(t *testing.T) {
		// The scan past it drops what it read: where the zeros start is
		// kept all the same.
		junk := bytes.Repeat([]byte("not a batch "), 1<<18)
		b := append(append(append(append([]byte(nil), log...), binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 12), 0x7ffffff0)...), junk...), zeros...)
		te, _ := tailOf(t, b)
		require.False(t, te.Torn)
		require.Equal(t, end+12+int64(len(junk)), te.ZeroFrom)
	})
}

// A segment preallocated with zeros (file.preallocate) whose last batch a
// crash cut short: what was written of it, then zeros to the end of the
// file, past where the batch would end. It was a batch whose CRC fails and
// a separate tail of zeros; it is a torn tail at the batch, its zeros
// (from ZeroFrom) the space preallocated.
func TestSegmentTornLastBatchInPreallocatedSpace(t *testing.T) {
	log, _, _ := testSegment(0, 4)
	at := starts(log)
	cut := at[3] + 70 // inside its first record
	for log[cut-1] == 0 {
		cut--
	}
	b := append(append([]byte(nil), log[:cut]...), make([]byte, 1<<20)...)
	te, n := tailOf(t, b)
	require.Equal(t, 3, n)
	require.True(t, te.Torn)
	require.False(t, te.Zero)
	require.Equal(t, at[3], te.Position)
	require.Equal(t, int64(len(b))-at[3], te.Size)
	require.Equal(t, cut, te.ZeroFrom)
	require.Contains(t, te.Msg, "and its CRC does not match them")
	require.Contains(t, te.Msg, "a write cut short, the rest of the entry never written over space preallocated with zeros")
	require.Contains(t, te.Msg, "bytes "+strconv.FormatInt(cut, 10)+"-"+strconv.FormatInt(int64(len(b))-1, 10))
	require.Contains(t, te.Error(), "torn tail at position "+strconv.FormatInt(at[3], 10))
}

// What is not a torn write in preallocated space stays what it was: a
// batch whose CRC fails with fewer than 12 zeros at its end (a record's
// last byte is often a 0), or one with zeros at its end and a batch after
// the zeros that follow it (the zeros read ahead are read again: damage,
// then the batch), or one ending the input with no zeros after it.
func TestSegmentNotTornInPreallocatedSpace(t *testing.T) {
	log, _, _ := testSegment(0, 4)
	at := starts(log)
	end := int64(len(log))
	zeros := make([]byte, 200<<10)

	t.Run("a wrong CRC, then zeros", func(t *testing.T) {
		b := append(append([]byte(nil), log...), zeros...)
		b[at[3]+70] ^= 0xff
		bs, damage, err := readAllDamage(t, b)
		require.Empty(t, damage)
		require.Len(t, bs, 4)
		require.False(t, bs[3].CRCValid)
		var te *TailError
		require.True(t, errors.As(err, &te))
		require.True(t, te.Zero)
		require.Equal(t, end, te.Position)
	})

	t.Run("zeros at its end, zeros, then a batch", func(t *testing.T) {
		b := append([]byte(nil), log[:at[3]]...)
		zeroed := append([]byte(nil), log[at[2]:at[3]]...)
		clear(zeroed[70:])
		b = append(append(append(b[:at[2]], zeroed...), zeros...), log[at[3]:]...)
		bs, damage, err := readAllDamage(t, b)
		require.NoError(t, err)
		require.Len(t, bs, 4)
		require.False(t, bs[2].CRCValid)
		require.Equal(t, at[2], bs[2].Position)
		require.Len(t, damage, 1)
		require.Equal(t, at[3], damage[0].Position)
		require.Equal(t, at[3]+int64(len(zeros)), damage[0].Resume())
		require.Equal(t, at[3]+int64(len(zeros)), bs[3].Position)
		require.True(t, bs[3].CRCValid)
		require.Equal(t, log[at[3]:], bs[3].Bytes)
	})

	t.Run("zeros at its end, and the input ends", func(t *testing.T) {
		b := append([]byte(nil), log...)
		clear(b[at[3]+70:])
		bs, damage, err := readAllDamage(t, b)
		require.NoError(t, err)
		require.Empty(t, damage)
		require.Len(t, bs, 4)
		require.False(t, bs[3].CRCValid)
	})
}

// bigLast is a segment of 3 small batches and a last one of 4 records
// of 1000 bytes each, longer than the MaxBatch (1000) it is read with, and
// where that last batch starts.
func bigLast() (log []byte, last int64) {
	var batches [][]byte
	for i := 0; i < 4; i++ {
		recs := []storagedata.Record{{Key: []byte("k"), Value: []byte("a small value")}}
		if i == 3 {
			recs = nil
			for j := 0; j < 4; j++ {
				recs = append(recs, storagedata.Record{Key: []byte("k"), Value: bytes.Repeat([]byte{'a' + byte(j)}, 1000), TimestampDelta: int64(j)})
			}
		}
		batches = append(batches, storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000 + int64(i)*1000, ProducerID: -1}))
	}
	log, _, _ = storagedata.Segment(0, 0, batches, 100)
	at := starts(log)
	return log, at[3]
}

// A last entry longer than MaxBatch cut short in preallocated space is
// a torn tail, as a shorter one is (TestSegmentTornLastBatchInPreallocatedSpace):
// the same evidence, its header written and plausible, its last bytes
// and all after it zeros to the end, one at least. It was a corrupt tail
// ("a corrupt length"), read past as a shorter one is, a block at a time.
func TestSegmentTornLongBatchInPreallocatedSpace(t *testing.T) {
	log, last := bigLast()
	o := SegmentOptions{MaxBatch: 1000}
	require.Greater(t, int64(len(log))-last, int64(o.MaxBatch))
	for _, c := range []struct {
		name       string
		cut, after int64 // where what was written ends, and the zeros past the entry's end
	}{
		{"cut in its first record", last + 200, 1 << 20},
		{"cut in its last record, one zero past its end", int64(len(log)) - 300, 1},
		{"cut after its first 1000 bytes", last + 1500, 64 << 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			cut := c.cut
			for log[cut-1] == 0 {
				cut--
			}
			file := append(append([]byte(nil), log[:cut]...), make([]byte, int64(len(log))-cut+c.after)...)
			bs, damage, err := readChecked(t, file, o)
			require.Empty(t, damage)
			require.Len(t, bs, 3)
			var te *TailError
			require.True(t, errors.As(err, &te), "%v", err)
			require.True(t, te.Torn, te.Msg)
			require.False(t, te.Zero)
			require.Equal(t, last, te.Position)
			require.Equal(t, int64(len(file))-last, te.Size)
			require.Equal(t, cut, te.ZeroFrom)
			require.Contains(t, te.Msg, "more than the limit (1000)")
			require.Contains(t, te.Msg, "a write cut short, the rest of the entry never written over space preallocated with zeros")
			require.Contains(t, te.Msg, "bytes "+strconv.FormatInt(cut, 10)+"-"+strconv.FormatInt(int64(len(file))-1, 10))
			require.Contains(t, te.Error(), "torn tail at position "+strconv.FormatInt(last, 10))
		})
	}
}

// A torn entry of 32 MiB in preallocated space, read with a MaxBatch of
// 1000: its zeros are streamed past, so what reading it allocates is
// not its size.
func TestSegmentTornLongBatchStreamed(t *testing.T) {
	var recs []storagedata.Record
	for j := 0; j < 4; j++ {
		recs = append(recs, storagedata.Record{Key: []byte("k"), Value: bytes.Repeat([]byte{'a' + byte(j)}, 8<<20), TimestampDelta: int64(j)})
	}
	log, _, _ := storagedata.Segment(0, 0, [][]byte{storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})}, 100)
	file := append(append([]byte(nil), log[:300]...), make([]byte, len(log)-300+1<<20)...)
	var err error
	got := hostile.Allocated(func() { _, _, err = readChecked(t, file, SegmentOptions{MaxBatch: 1000}) })
	var te *TailError
	require.True(t, errors.As(err, &te), "%v", err)
	require.True(t, te.Torn, te.Msg)
	require.EqualValues(t, 300, te.ZeroFrom)
	t.Logf("%d bytes allocated reading %d", got, len(file))
	require.Less(t, got, uint64(1<<20))
}

// What is not a write cut short in preallocated space stays a corrupt
// tail or damage, long entry or not: fewer than 12 zeros at its end, no
// zero after it, its header not plausible, nothing written after its
// header, or a batch after the zeros.
func TestSegmentLongBatchNotTornInPreallocatedSpace(t *testing.T) {
	log, last := bigLast()
	o := SegmentOptions{MaxBatch: 1000}
	end := int64(len(log))
	corrupt := func(t *testing.T, file []byte) *TailError {
		t.Helper()
		bs, damage, err := readChecked(t, file, o)
		require.Empty(t, damage)
		require.Len(t, bs, 3)
		var te *TailError
		require.True(t, errors.As(err, &te), "%v", err)
		require.False(t, te.Torn, te.Msg)
		require.Equal(t, last, te.Position)
		require.Contains(t, te.Msg, "a corrupt length")
		return te
	}
	t.Run("fewer than 12 zeros at its end", func(t *testing.T) {
		file := append(append([]byte(nil), log...), make([]byte, 4096)...)
		clear(file[end-11 : end])
		corrupt(t, file)
	})
	t.Run("no zero after it", func(t *testing.T) {
		file := append([]byte(nil), log...)
		clear(file[last+200 : end])
		corrupt(t, file)
	})
	t.Run("its offset not after the entries before it", func(t *testing.T) {
		file := append(append([]byte(nil), log...), make([]byte, 4096)...)
		clear(file[last+200 : end])
		binary.BigEndian.PutUint64(file[last:], 1)
		corrupt(t, file)
	})
	t.Run("nothing written after its header", func(t *testing.T) {
		file := append(append([]byte(nil), log...), make([]byte, 4096)...)
		clear(file[last+61 : end])
		corrupt(t, file)
	})
	t.Run("a batch after the zeros", func(t *testing.T) {
		small := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("after")}}, storagedata.BatchOptions{FirstTimestamp: 1700000009000, ProducerID: -1})
		storagedata.Place(small, 100, 0)
		file := append(append(append([]byte(nil), log...), make([]byte, 4096)...), small...)
		clear(file[last+200 : end])
		bs, damage, err := readChecked(t, file, o)
		require.NoError(t, err)
		require.Len(t, damage, 1)
		require.Equal(t, last, damage[0].Position)
		require.Equal(t, end+4096, damage[0].Resume())
		require.Len(t, bs, 4)
		require.EqualValues(t, 100, bs[3].BaseOffset)
	})
}
