package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
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
