package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/hostile"
)

// starts is where each batch of log starts.
func starts(log []byte) []int64 {
	var out []int64
	for at := int64(0); at+12 <= int64(len(log)); at += 12 + int64(binary.BigEndian.Uint32(log[at+8:])) {
		out = append(out, at)
	}
	return out
}

// A corrupt length in the middle of a segment that runs past its end is
// no torn tail (a torn write is at the end of a file): the batches after
// the damage are read, the damaged bytes reported as a region, and the
// index entries pointing into it unchecked, not problems.
func TestSegmentResyncsAfterALengthPastTheEnd(t *testing.T) {
	log, index, timeindex := testSegment(0, 10)
	at := starts(log)
	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[3]+8:], 4096)
	oc := NewIndexCheck(NewIndexReader(bytes.NewReader(index), OffsetIndex, 0))
	tc := NewIndexCheck(NewIndexReader(bytes.NewReader(timeindex), TimeIndex, 0))
	bs, damage, err := readAllDamage(t, b, oc, tc)
	require.NoError(t, err)
	require.Len(t, bs, 9)
	require.Len(t, damage, 1)
	d := damage[0]
	require.Equal(t, at[3], d.Position)
	require.Equal(t, at[4], d.Resume())
	require.Equal(t, int64(3), d.Batches)
	require.Contains(t, d.Error(), "declares 4096 bytes")
	require.Contains(t, d.Error(), "read resumed at ")
	require.Equal(t, at[4], bs[3].Position)
	require.Equal(t, int64(12), bs[3].BaseOffset)
	require.Zero(t, oc.Count, "%v", oc.Problems)
	require.Zero(t, tc.Count, "%v", tc.Problems)
	require.Equal(t, 1, oc.Unchecked, "the entry pointing at the damaged batch")
	require.Equal(t, 1, tc.Unchecked, "the entry of its offsets")
}

// A corrupt length that stays inside the file: longer, the batch would
// swallow the batches after it; shorter, it ends inside itself and the
// next read meets a bad magic byte. Both resume at the next batch.
func TestSegmentResyncsAfterALengthInsideTheFile(t *testing.T) {
	log, _, _ := testSegment(0, 10)
	at := starts(log)

	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[2]+8:], uint32(at[7]-at[2])) // to the 8th batch's start, and beyond its header
	bs, damage, err := readAllDamage(t, b)
	require.NoError(t, err)
	require.Len(t, bs, 9)
	require.Len(t, damage, 1)
	require.Equal(t, at[2], damage[0].Position)
	require.Equal(t, at[3], damage[0].Resume())
	require.Contains(t, damage[0].Msg, "its CRC does not match")

	b = append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[2]+8:], 60)
	bs, damage, err = readAllDamage(t, b)
	require.NoError(t, err)
	require.Len(t, bs, 10, "the short batch, with its CRC wrong, and every other")
	require.False(t, bs[2].CRCValid)
	require.Len(t, damage, 1)
	require.Equal(t, at[2]+72, damage[0].Position)
	require.Equal(t, at[3], damage[0].Resume())
	require.Contains(t, damage[0].Msg, "magic byte")

	// A batch whose CRC fails with its length right is a batch, not
	// damage.
	b = append([]byte(nil), log...)
	b[at[2]+80] ^= 0xff
	bs, damage, err = readAllDamage(t, b)
	require.NoError(t, err)
	require.Len(t, bs, 10)
	require.Empty(t, damage)
	require.False(t, bs[2].CRCValid)
}

// The damage at the end stays a torn tail: nothing whole after it.
func TestSegmentTornTailStaysTorn(t *testing.T) {
	log, _, _ := testSegment(0, 10)
	at := starts(log)
	b := append([]byte(nil), log...)
	binary.BigEndian.PutUint32(b[at[9]+8:], 4096)
	bs, damage, err := readAllDamage(t, b)
	require.Len(t, bs, 9)
	require.Empty(t, damage)
	var te *TailError
	require.ErrorAs(t, err, &te)
	require.True(t, te.Torn)
	require.Equal(t, at[9], te.Position)
	require.Equal(t, int64(len(b))-at[9], te.Size)

	// Damage followed by zeros: the zeros are no batch to resume at.
	b = append(append([]byte(nil), log[:at[9]+20]...), make([]byte, 4096)...)
	binary.BigEndian.PutUint32(b[at[9]+8:], 8192)
	bs, damage, err = readAllDamage(t, b)
	require.Len(t, bs, 9)
	require.Empty(t, damage)
	require.ErrorAs(t, err, &te)
	require.False(t, te.Zero)
	require.Equal(t, at[9], te.Position)
	require.Equal(t, int64(len(b))-at[9], te.Size)
}

// A file full of candidate headers, each declaring a length that fits in
// what follows and a CRC that does not hold, costs linear work: the CRC
// bytes a resync computes are capped, and the cap says it stopped it.
func TestSegmentResyncWorkIsBounded(t *testing.T) {
	const maxBatch = 1 << 20
	b := make([]byte, 4<<20)
	b[16] = 7 // the first entry is damage
	for at := 64; at+64 <= len(b); at += 64 {
		binary.BigEndian.PutUint64(b[at:], uint64(at))
		binary.BigEndian.PutUint32(b[at+8:], uint32(min(len(b)-at-12, maxBatch)))
		b[at+16] = 2
	}
	s := NewSegment(bytes.NewReader(b), SegmentOptions{MaxBatch: maxBatch})
	_, err := s.Next()
	var te *TailError
	require.ErrorAs(t, err, &te)
	require.Contains(t, te.Msg, "candidates for a batch were passed over unchecked, the first at ")
	require.Equal(t, int64(len(b)), te.Size)
	require.LessOrEqual(t, s.resyncCRC, int64(maxBatch+resyncCRCPerByte*len(b)))
	_, err = s.Next()
	require.ErrorIs(t, err, io.EOF)
}

// A long scan does not hold what it scanned: memory is that of the
// largest candidate, not of the bytes before the batch it finds.
func TestSegmentResyncAcrossMegabytes(t *testing.T) {
	log, _, _ := testSegment(0, 3)
	at := starts(log)
	junk := bytes.Repeat([]byte("not a batch "), 1<<18) // 3 MiB
	b := append(append(append([]byte(nil), log[:at[1]]...), junk...), log[at[1]:]...)
	bs, damage, err := readAllDamage(t, b)
	require.NoError(t, err)
	require.Len(t, bs, 3)
	require.Len(t, damage, 1)
	require.Equal(t, at[1], damage[0].Position)
	require.Equal(t, int64(len(junk)), damage[0].Size)
	require.True(t, strings.HasPrefix(damage[0].Error(), "storage: bytes "))
	require.False(t, errors.Is(damage[0], io.EOF))
}

// A candidate whose header is not a batch's (a negative record count
// here) is not read ahead by its length: a damaged region holding
// "magic 2, length 60 MB" costs nothing like 60 MB.
func TestSegmentResyncReadsNoImplausibleLength(t *testing.T) {
	log, _, _ := testSegment(0, 3)
	at := starts(log)
	junk := make([]byte, 200)
	binary.BigEndian.PutUint64(junk[20:], 99)
	binary.BigEndian.PutUint32(junk[28:], 60<<20)
	junk[20+16] = 2
	binary.BigEndian.PutUint32(junk[20+57:], 0xffffffff) // -1 records
	junk = append(junk, bytes.Repeat([]byte("not a batch "), 8<<20/12)...)
	b := append(append(append([]byte(nil), log[:at[1]]...), junk...), log[at[1]:]...)
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	s := NewSegment(bytes.NewReader(b), SegmentOptions{})
	n, damaged := 0, 0
	for {
		_, err := s.Next()
		var de *DamageError
		if errors.As(err, &de) {
			damaged++
			continue
		}
		if err != nil {
			require.ErrorIs(t, err, io.EOF)
			break
		}
		n++
	}
	runtime.ReadMemStats(&m1)
	require.Equal(t, 3, n)
	require.Equal(t, 1, damaged)
	require.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(4<<20), "for %d bytes", len(b))
}

// damagedEntries is size bytes of entries of entry bytes each, their
// CRCs wrong, each holding at 24 a candidate header that passes for an
// entry's and declares length bytes after its length: a batch's (magic
// 2), or a legacy message's (magic 0) whose key's length, key, says it
// should be read ahead to be judged.
func damagedEntries(size, entry int, magic byte, length, key int) []byte {
	b := make([]byte, size)
	for at := 0; at+entry <= size; at += entry {
		binary.BigEndian.PutUint64(b[at:], uint64(at))
		binary.BigEndian.PutUint32(b[at+8:], uint32(entry-12))
		b[at+16] = 2
		c := b[at+24:]
		binary.BigEndian.PutUint64(c, uint64(at+1))
		binary.BigEndian.PutUint32(c[8:], uint32(length))
		c[16] = magic
		if magic == 0 {
			binary.BigEndian.PutUint32(c[18:], uint32(key))
		}
	}
	return b
}

// A segment of small damaged entries, each holding a candidate that
// declares a length up to MaxBatch, costs linear work: a candidate is
// read ahead only within the resync's budget, charged before reading
// (not only once its CRC is computed), and what was read ahead is given
// back in place. Each of 2,621 entries of 100 bytes read the rest of
// the input ahead and gave it back into a new buffer: 256 KiB cost 354
// MB allocated (a 1 MiB segment 5.6 GB, quadratic). A legacy message's
// key read ahead to judge it (up to 64 KiB) is charged too.
func TestSegmentResyncSmallDamagedEntriesCostLinear(t *testing.T) {
	const size, maxBatch = 256 << 10, 1 << 20
	for _, c := range []struct {
		name string
		log  []byte
	}{
		{"batch candidates declaring MaxBatch", damagedEntries(size, 100, 2, maxBatch, 0)},
		{"batch candidates declaring 700 bytes", damagedEntries(size, 100, 2, 700, 0)},
		{"legacy candidates with 64 KiB keys", damagedEntries(size, 100, 0, 65600, 64<<10)},
	} {
		entries := 0
		got := hostile.Allocated(func() {
			s := NewSegment(bytes.NewReader(c.log), SegmentOptions{MaxBatch: maxBatch})
			for {
				b, err := s.Next()
				if err != nil {
					var te *TailError
					require.True(t, err == io.EOF || errors.As(err, &te), "%s: %v", c.name, err)
					break
				}
				require.False(t, b.CRCValid, c.name)
				entries++
			}
		})
		require.Equal(t, size/100, entries, c.name)
		require.Less(t, got, uint64(maxBatch+16*size), "%s: %d bytes allocated reading %d", c.name, got, size)
	}
}

// A candidate whose CRC the resync's budget cannot pay for is passed over
// unchecked, said, and the search goes on: two candidates declaring
// MaxBatch early in a damaged region (the first spends the budget it
// starts with, reading ahead to the end of the input) stopped the search
// at the second, and the six batches after them were lost to a "corrupt
// tail". The budget grows with every byte scanned, so the next batch is
// checked and read.
func TestSegmentResyncPassesUnaffordableCandidates(t *testing.T) {
	log, _, _ := testSegment(0, 10)
	at := starts(log)
	fake := func() []byte {
		h := append([]byte(nil), log[at[4]:at[4]+61]...) // batch 4's header, plausible all through
		binary.BigEndian.PutUint32(h[8:], uint32(DefaultMaxBatch))
		return h
	}
	b := append(append(append(append([]byte(nil), log[:at[4]]...), fake()...), fake()...), log[at[4]:]...)
	binary.BigEndian.PutUint32(b[at[3]+8:], 4096) // batch 3 runs past the end: a resync from it
	bs, damage, err := readAllDamage(t, b)
	require.NoError(t, err)
	require.Len(t, bs, 9)
	require.Len(t, damage, 1)
	d := damage[0]
	require.Equal(t, at[3], d.Position)
	require.Equal(t, at[4]+2*61, d.Resume(), "read resumed at batch 4")
	// The second fake, and a legacy message's header inside the first
	// (its key read ahead for), came after the budget was spent.
	require.Contains(t, d.Error(), "; 2 candidates for a batch were passed over unchecked, the first at "+strconv.FormatInt(at[4]+6, 10)+", where reading its key would pass the work allowed")
	require.Equal(t, int64(12), bs[3].BaseOffset)
}
