package storage

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/hostile"
)

// sparseIndex writes the index of testSegment(0, 10)'s segment followed
// by zeros to size bytes in dir, as a broker preallocates an active
// segment's .index (segment.index.bytes): a sparse file, made by
// Truncate, that costs no disk.
func sparseIndex(tb testing.TB, dir string, size int64) (path string, log []byte, entries int) {
	log, index, _ := testSegment(0, 10)
	path = filepath.Join(dir, "00000000000000000000.index")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(index); err != nil {
		tb.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
	return path, log, len(index) / 8
}

// checkIndexFile checks the index at path against log as kwire log does
// (a 64 KiB bufio.Reader over the file).
func checkIndexFile(tb testing.TB, path string, log []byte) *IndexCheck {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	c := NewIndexCheck(NewIndexReader(bufio.NewReaderSize(f, 64<<10), OffsetIndex, 0))
	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	var end, last int64 = 0, -1
	for {
		b, err := s.Next()
		if err != nil {
			c.End(end, last, err)
			return c
		}
		c.Batch(b)
		end, last = b.Position+b.Size(), b.LastOffset
	}
}

// BenchmarkIndexCheckSparse checks a 2 GiB .index of a few entries and
// preallocated zeros (a crashed broker's active segment): about 25 s when
// each zero entry was read and judged on its own.
func BenchmarkIndexCheckSparse(b *testing.B) {
	const size = 2 << 30
	path, log, n := sparseIndex(b, b.TempDir(), size)
	b.ReportAllocs()
	b.SetBytes(size)
	for i := 0; i < b.N; i++ {
		c := checkIndexFile(b, path, log)
		if c.Count != 0 || c.Unused != size/8-n || c.UnusedFrom != n {
			b.Fatalf("%d problems (%v), %d unused from %d", c.Count, c.Problems, c.Unused, c.UnusedFrom)
		}
	}
}

// countingReader counts the reads made of it.
type countingReader struct {
	r     io.Reader
	reads int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	return c.r.Read(p)
}

// The zero entries at the end of a preallocated index are counted in
// bulk, not read and judged one at a time: 48 MiB of them, given to the
// check unbuffered, cost a read per 64 KiB (it was one per entry, millions
// of them), and the check holds no more than that.
func TestIndexCheckCountsPreallocatedZerosInBulk(t *testing.T) {
	log, index, timeindex := testSegment(0, 10)
	const zeroBytes = 3 << 24 // 48 MiB: whole entries of either kind
	for _, c := range []struct {
		kind  IndexKind
		index []byte
	}{{OffsetIndex, index}, {TimeIndex, timeindex}} {
		r := &countingReader{r: io.MultiReader(bytes.NewReader(c.index), &zeros{zeroBytes})}
		x := NewIndexCheck(NewIndexReader(r, c.kind, 0))
		var err error
		got := hostile.Allocated(func() { _, err = readAll(t, log, x) })
		require.NoError(t, err)
		n := len(c.index) / c.kind.size()
		require.Zero(t, x.Count, "%v", x.Problems)
		require.Equal(t, n, x.UnusedFrom)
		require.Equal(t, zeroBytes/c.kind.size(), x.Unused)
		require.Equal(t, n+zeroBytes/c.kind.size(), x.Entries)
		require.Less(t, r.reads, 2*zeroBytes/zeroChunk+2*n+8, "%s", c.kind)
		require.Less(t, got, uint64(1<<20), "%s", c.kind)
	}
}

// Zero entries counted in bulk are the entries they were one at a time:
// out of order when an entry follows them, wherever the reads' chunks
// end; preallocated space at the end, up to a partial entry, which keeps
// its number and position.
func TestIndexCheckZerosAcrossChunks(t *testing.T) {
	log, index, _ := testSegment(0, 10)
	n := len(index) / 8
	const mid = zeroChunk/8 + 3 // zero entries across a chunk's end
	const tail = 3*zeroChunk/8 + 1
	b := append(append([]byte(nil), index[:8*(n-1)]...), make([]byte, 8*mid)...)
	b = append(b, index[8*(n-1):]...) // the last entry, after the zeros
	b = append(b, make([]byte, 8*tail)...)
	b = append(b, 0, 0, 0, 0, 0) // a partial entry of zeros
	for name, r := range map[string]func() io.Reader{
		"whole":     func() io.Reader { return bytes.NewReader(b) },
		"byte-wise": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"halves":    func() io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
	} {
		x := NewIndexCheck(NewIndexReader(r(), OffsetIndex, 0))
		next, zeroProblems := 0, 0
		x.OnEntry = func(e IndexEntry, p string) {
			require.Equal(t, next, e.N, name)
			next++
			if e.N >= n-1 && e.N < n-1+mid {
				require.True(t, e.Zero, name)
				require.Equal(t, "a zero entry before entry "+strconv.Itoa(n-1+mid)+", not preallocated space at the end", p, name)
				zeroProblems++
			} else if e.N == n-1+mid {
				require.Empty(t, p, "%s: the last entry after the zeros", name)
			}
		}
		_, err := readAll(t, log, x)
		require.NoError(t, err)
		require.Equal(t, mid, zeroProblems, name)
		require.Equal(t, n+mid, next, name)
		require.Equal(t, tail, x.Unused, name)
		require.Equal(t, n+mid, x.UnusedFrom, name)
		require.Equal(t, mid+1, x.Count, "%s: the zeros in the middle and the partial entry", name)
		var te *IndexTailError
		require.ErrorAs(t, x.Err, &te, name)
		require.Equal(t, n+mid+tail, te.Entry, name)
		require.Equal(t, 5, te.Size, name)
		require.Equal(t, int64(len(b)-5), te.Position(), name)
	}
}
