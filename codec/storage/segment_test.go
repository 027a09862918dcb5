package storage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
)

// testSegment is a segment of n batches of 3 records each, laid out from
// offset base with its indexes as Kafka writes them (an entry every 100
// bytes).
func testSegment(base int64, n int) (log, index, timeindex []byte) {
	var batches [][]byte
	for i := 0; i < n; i++ {
		var recs []storagedata.Record
		for j := 0; j < 3; j++ {
			recs = append(recs, storagedata.Record{Key: []byte(fmt.Sprintf("k%d", j)), Value: []byte(fmt.Sprintf("order %d.%d", i, j)), TimestampDelta: int64(j)})
		}
		batches = append(batches, storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000 + int64(i)*1000, ProducerID: -1}))
	}
	return storagedata.Segment(base, 0, batches, 100)
}

// readAll reads a segment to its end, feeding the checks.
func readAll(t *testing.T, log []byte, checks ...*IndexCheck) ([]*Batch, error) {
	t.Helper()
	out, _, err := readAllDamage(t, log, checks...)
	return out, err
}

// readAllDamage is readAll, reading on past damaged regions, which it
// returns too.
func readAllDamage(t *testing.T, log []byte, checks ...*IndexCheck) ([]*Batch, []*DamageError, error) {
	t.Helper()
	return readChecked(t, log, SegmentOptions{}, checks...)
}

func TestSegmentReadsEveryBatchWithItsPosition(t *testing.T) {
	log, index, timeindex := testSegment(100, 10)
	oc := NewIndexCheck(NewIndexReader(bytes.NewReader(index), OffsetIndex, 100))
	tc := NewIndexCheck(NewIndexReader(bytes.NewReader(timeindex), TimeIndex, 100))
	bs, err := readAll(t, log, oc, tc)
	require.NoError(t, err)
	require.Len(t, bs, 10)
	var pos int64
	for i, b := range bs {
		require.Equal(t, pos, b.Position)
		require.Equal(t, int64(100+3*i), b.BaseOffset)
		require.Equal(t, int64(100+3*i+2), b.LastOffset)
		require.Equal(t, int64(1700000000000+int64(i)*1000+2), b.MaxTimestamp)
		require.True(t, b.CRCValid)
		require.Equal(t, 3, b.Records)
		pos += b.Size()
	}
	require.Equal(t, int64(len(log)), pos)
	require.NotZero(t, oc.Entries)
	require.Zero(t, oc.Count, "%v", oc.Problems)
	require.NotZero(t, tc.Entries)
	require.Zero(t, tc.Count, "%v", tc.Problems)
}

// A segment cut inside its last batch, as after a crash: every whole batch
// is read, then the tail is reported with its position and size.
func TestSegmentTornTail(t *testing.T) {
	log, _, _ := testSegment(0, 4)
	bs, err := readAll(t, log[:len(log)-7])
	require.Len(t, bs, 3)
	var te *TailError
	require.ErrorAs(t, err, &te)
	require.True(t, te.Torn)
	last := bs[2].Position + bs[2].Size()
	require.Equal(t, last, te.Position)
	require.Equal(t, int64(len(log)-7)-last, te.Size)
	require.Equal(t, int64(3), te.Batches)
	require.Contains(t, te.Error(), "torn tail at position "+fmt.Sprint(last))

	// Cut inside the 12-byte head, and inside the magic's reach.
	for _, cut := range []int64{5, 14} {
		_, err := readAll(t, log[:last+cut])
		require.ErrorAs(t, err, &te)
		require.True(t, te.Torn, "cut %d", cut)
		require.Equal(t, last, te.Position)
	}
}

// Bytes no entry has at the end: a length below the smallest entry, a
// magic byte past 2. Corrupt, not torn. (In the middle they are a damaged
// region: resync_test.go.)
func TestSegmentCorruptTail(t *testing.T) {
	log, _, _ := testSegment(0, 2)
	second := int64(binary.BigEndian.Uint32(log[8:12])) + 12
	for name, edit := range map[string]func(b []byte){
		"tiny length":   func(b []byte) { binary.BigEndian.PutUint32(b[second+8:], 3) },
		"negative size": func(b []byte) { binary.BigEndian.PutUint32(b[second+8:], 0xffffff00) },
		"magic 7":       func(b []byte) { b[second+16] = 7 },
		"v2 too short":  func(b []byte) { binary.BigEndian.PutUint32(b[second+8:], 30) },
	} {
		b := append([]byte(nil), log...)
		edit(b)
		bs, err := readAll(t, b)
		require.Len(t, bs, 1, name)
		var te *TailError
		require.ErrorAs(t, err, &te, name)
		require.False(t, te.Torn, name)
		require.Equal(t, second, te.Position, name)
		require.Equal(t, int64(len(b))-second, te.Size, name)
	}
}

// A segment whose tail is damaged cannot settle the index entries that
// point into the damage: they are counted unchecked, not as problems of
// the index (which may well be right). A segment read to its end still
// blames an entry past its last batch.
func TestIndexEntriesPastADamagedTailAreUnchecked(t *testing.T) {
	log, index, timeindex := testSegment(0, 10)
	second := int64(binary.BigEndian.Uint32(log[8:12])) + 12
	b := append([]byte(nil), log...)
	// Every batch's magic from the second on: corrupt from there to the
	// end, no batch to resume at.
	for at := second; at < int64(len(b)); at += 12 + int64(binary.BigEndian.Uint32(b[at+8:])) {
		b[at+16] = 7
	}
	oc := NewIndexCheck(NewIndexReader(bytes.NewReader(index), OffsetIndex, 0))
	tc := NewIndexCheck(NewIndexReader(bytes.NewReader(timeindex), TimeIndex, 0))
	var unchecked []int
	oc.OnEntry = func(e IndexEntry, p string) {
		require.Empty(t, p, "entry %d", e.N)
		if e.Unchecked {
			unchecked = append(unchecked, e.N)
			require.Contains(t, string(e.AppendJSON(nil, OffsetIndex)), `"unchecked":true`)
		}
	}
	bs, err := readAll(t, b, oc, tc)
	require.Len(t, bs, 1)
	var te *TailError
	require.ErrorAs(t, err, &te)
	require.Zero(t, oc.Count, "%v", oc.Problems)
	require.Zero(t, tc.Count, "%v", tc.Problems)
	past := 0 // the entries pointing at the second batch or later
	for i := 0; i+8 <= len(index); i += 8 {
		if int64(binary.BigEndian.Uint32(index[i+4:])) >= second {
			past++
		}
	}
	require.NotZero(t, past)
	require.Equal(t, past, oc.Unchecked, "every entry past the first batch")
	require.Len(t, unchecked, oc.Unchecked)
	require.NotZero(t, tc.Unchecked)

	// The same index against the segment's first batch alone, cut whole:
	// the segment ends there, so the other entries point past it.
	oc = NewIndexCheck(NewIndexReader(bytes.NewReader(index), OffsetIndex, 0))
	_, err = readAll(t, log[:second], oc)
	require.NoError(t, err)
	require.Equal(t, past, oc.Count)
	require.Zero(t, oc.Unchecked)
}

// An index entry that points at the wrong position, or names an offset
// its batch does not hold, is reported with its entry number.
func TestIndexCheckFindsWrongEntries(t *testing.T) {
	log, index, timeindex := testSegment(0, 10)
	require.GreaterOrEqual(t, len(index), 16)
	bad := append([]byte(nil), index...)
	binary.BigEndian.PutUint32(bad[4:], binary.BigEndian.Uint32(bad[4:])+1) // entry 0: one byte into its batch
	binary.BigEndian.PutUint32(bad[len(bad)-8:], 40)                        // the last entry: an offset past the segment's (29)
	var seen []string
	oc := NewIndexCheck(NewIndexReader(bytes.NewReader(bad), OffsetIndex, 0))
	oc.OnEntry = func(e IndexEntry, p string) { seen = append(seen, fmt.Sprint(e.N, ":", p)) }
	_, err := readAll(t, log, oc)
	require.NoError(t, err)
	require.Equal(t, 2, oc.Count)
	require.Equal(t, 0, oc.Problems[0].Entry)
	require.Contains(t, oc.Problems[0].Msg, "is not the start of an entry of the segment")
	require.Equal(t, len(index)/8-1, oc.Problems[1].Entry)
	require.Equal(t, "offset 40 is past the segment's last offset (29): in no batch from its position 1035 on", oc.Problems[1].Msg)
	require.Len(t, seen, len(index)/8, "every entry is reported once, in order")

	// Past the end, out of order, preallocated zeros.
	extra := append(append([]byte(nil), index...), 0, 0, 0, 100, 0, 1, 0, 0) // offset 100, position 65536
	extra = append(extra, make([]byte, 8*5)...)
	oc = NewIndexCheck(NewIndexReader(bytes.NewReader(extra), OffsetIndex, 0))
	_, err = readAll(t, log, oc)
	require.NoError(t, err)
	require.Equal(t, 1, oc.Count, "%v", oc.Problems)
	require.Contains(t, oc.Problems[0].Msg, "past the segment's last entry")
	require.Equal(t, 5, oc.Unused)

	rev := append([]byte(nil), timeindex...)
	copy(rev[12:24], timeindex[:12]) // entry 1 repeats entry 0
	tc := NewIndexCheck(NewIndexReader(bytes.NewReader(rev), TimeIndex, 0))
	_, err = readAll(t, log, tc)
	require.NoError(t, err)
	require.Equal(t, 1, tc.Problems[0].Entry)
	require.Contains(t, tc.Problems[0].Msg, "timestamp")

	tc = NewIndexCheck(NewIndexReader(bytes.NewReader(append(append([]byte(nil), timeindex...), 1, 2, 3)), TimeIndex, 0))
	_, err = readAll(t, log, tc)
	require.NoError(t, err)
	var ite *IndexTailError
	require.ErrorAs(t, tc.Err, &ite)
	require.Equal(t, 3, ite.Size)
}

// The JSON of a batch is one object per entry, with the records JSON that
// the records encoder (codec/internal/rec) reads back: encoding it gives
// the entry's bytes.
func TestSegmentJSONRoundTrips(t *testing.T) {
	log, _, _ := testSegment(7, 3)
	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	var again []byte
	for {
		b, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, s.WriteJSON(&out, nil, b))
		var line map[string]any
		require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
		require.EqualValues(t, b.Position, line["position"])
		v, err := parseJSON(out.Bytes())
		require.NoError(t, err)
		again, err = encodeBatches(again, v.(map[string]any)["batch"])
		require.NoError(t, err)
	}
	require.Equal(t, log, again)
}

func binaryCRC(b []byte) {
	binary.BigEndian.PutUint32(b[2:], crc32.Checksum(b[6:], castagnoli))
}

// countingWriter keeps what is written and counts the writes.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// A batch whose records JSON passes flushAt is written in pieces as it
// grows, and its line is the one a single write gives: one JSON object
// whose "batch" is the batch itself, not an array of it.
func TestWriteJSONFlushesABigBatch(t *testing.T) {
	var recs []storagedata.Record
	value := bytes.Repeat([]byte("x"), 1000)
	for j := 0; j < 600; j++ {
		recs = append(recs, storagedata.Record{Key: []byte(fmt.Sprintf("k%d", j)), Value: value, TimestampDelta: int64(j)})
	}
	log, _, _ := storagedata.Segment(0, 0, [][]byte{storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})}, 4096)
	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	b, err := s.Next()
	require.NoError(t, err)
	var w countingWriter
	require.NoError(t, s.WriteJSON(&w, nil, b))
	require.Greater(t, w.Len(), flushAt)
	require.Greater(t, w.writes, 2, "flushed as it grew")
	var line struct {
		Batch struct {
			Records []json.RawMessage `json:"records"`
		} `json:"batch"`
	}
	require.NoError(t, json.Unmarshal(w.Bytes(), &line), "%.200s", w.Bytes())
	require.Len(t, line.Batch.Records, 600)

	// A small batch after it: one object, its '[' left out too.
	log, _, _ = testSegment(0, 1)
	s = NewSegment(bytes.NewReader(log), SegmentOptions{})
	b, err = s.Next()
	require.NoError(t, err)
	w = countingWriter{}
	require.NoError(t, s.WriteJSON(&w, nil, b))
	require.NoError(t, json.Unmarshal(w.Bytes(), &line), "%s", w.Bytes())
	require.Len(t, line.Batch.Records, 3)
}

// A new partition's active segment: an empty .log and its indexes
// preallocated, all zeros. Entry 0 is zeros too: preallocated space, not
// an entry past the segment's end. The same for a small active segment
// whose index has had no entry yet.
func TestIndexAllZerosHasNoEntries(t *testing.T) {
	small, _, _ := testSegment(0, 2)
	for name, log := range map[string][]byte{"empty": nil, "small": small} {
		for _, kind := range []IndexKind{OffsetIndex, TimeIndex} {
			c := NewIndexCheck(NewIndexReader(bytes.NewReader(make([]byte, 100*kind.size())), kind, 0))
			_, err := readAll(t, log, c)
			require.NoError(t, err)
			require.Zero(t, c.Count, "%s %s: %v", name, kind, c.Problems)
			require.Equal(t, 100, c.Entries, "%s %s", name, kind)
			require.Equal(t, 100, c.Unused, "%s %s", name, kind)
			require.Equal(t, 0, c.UnusedFrom, "%s %s", name, kind)
		}
	}

	// A zero entry 0 with entries after it is an entry (offset base at
	// position 0), checked as one; zeros between it and the next are out
	// of order.
	log, _, _ := testSegment(0, 3)
	second := binary.BigEndian.Uint32(log[8:12]) + 12
	index := make([]byte, 8*3)
	binary.BigEndian.PutUint32(index[16:], 5) // entry 2: offset 5, the second batch's last
	binary.BigEndian.PutUint32(index[20:], second)
	var seen []string
	c := NewIndexCheck(NewIndexReader(bytes.NewReader(index), OffsetIndex, 0))
	c.OnEntry = func(e IndexEntry, p string) { seen = append(seen, fmt.Sprint(e.N, ":", p)) }
	_, err := readAll(t, log, c)
	require.NoError(t, err)
	require.Equal(t, []string{"0:", "1:a zero entry before entry 2, not preallocated space at the end", "2:"}, seen)
	require.Zero(t, c.Unused)
}

// A .timeindex entry whose timestamp is not the max timestamp of the
// batch holding its offset (years in the future here) is a problem, as
// in kafka-dump-log.sh's check; the entries Kafka writes are not.
func TestTimeIndexTimestampIsItsBatchsMax(t *testing.T) {
	log, _, timeindex := testSegment(0, 10)
	require.GreaterOrEqual(t, len(timeindex), 24)
	bad := append([]byte(nil), timeindex...)
	binary.BigEndian.PutUint64(bad[12:], 4102444800000) // entry 1: 2100-01-01
	binary.BigEndian.PutUint64(bad[24:], 4102444800001)
	tc := NewIndexCheck(NewIndexReader(bytes.NewReader(bad), TimeIndex, 0))
	_, err := readAll(t, log, tc)
	require.NoError(t, err)
	require.NotZero(t, tc.Count)
	require.Equal(t, 1, tc.Problems[0].Entry)
	require.Contains(t, tc.Problems[0].Msg, "timestamp 4102444800000 is not the max timestamp of the batch holding offset")

	tc = NewIndexCheck(NewIndexReader(bytes.NewReader(timeindex), TimeIndex, 0))
	_, err = readAll(t, log, tc)
	require.NoError(t, err)
	require.Zero(t, tc.Count, "%v", tc.Problems)
}

// EndAlone checks an index with no segment read for its entries' order
// only: an index as Kafka writes it has no problem, an entry out of order
// has, and preallocated zeros at the end are unused.
func TestIndexCheckEndAlone(t *testing.T) {
	_, index, timeindex := testSegment(0, 10)
	for _, x := range []struct {
		kind IndexKind
		b    []byte
	}{{OffsetIndex, index}, {TimeIndex, timeindex}} {
		require.GreaterOrEqual(t, len(x.b), 3*x.kind.size())
		c := NewIndexCheck(NewIndexReader(bytes.NewReader(append(append([]byte(nil), x.b...), make([]byte, 4*x.kind.size())...)), x.kind, 0))
		n := 0
		c.OnEntry = func(IndexEntry, string) { n++ }
		c.EndAlone()
		require.Zero(t, c.Count, "%v: %v", x.kind, c.Problems)
		require.Equal(t, len(x.b)/x.kind.size(), n)
		require.Equal(t, 4, c.Unused)

		bad := append([]byte(nil), x.b...)
		copy(bad[x.kind.size():], bad[:x.kind.size()]) // entry 1 repeats entry 0
		c = NewIndexCheck(NewIndexReader(bytes.NewReader(bad), x.kind, 0))
		c.EndAlone()
		require.Equal(t, 1, c.Count, "%v: %v", x.kind, c.Problems)
		require.Equal(t, 1, c.Problems[0].Entry)
		require.Contains(t, c.Problems[0].Msg, "is not above the entry before")
	}
}

// An .index entry written by Kafka before 4.0 on a follower or by the
// log cleaner (one per append of many batches: the largest offset
// appended, the position of the first batch) names an offset of a later
// batch than the one at its position: a lookup through it still works,
// and it is no problem. An entry whose position is not a batch's start,
// whose batch starts after its offset, or whose offset no batch from its
// position up to the next entry's reaches (or the segment's end) is.
func TestIndexCheckAcceptsAppendChunkEntries(t *testing.T) {
	log, _, _ := testSegment(0, 10) // batches of offsets 3k to 3k+2 at 115k
	entries := func(es ...[2]uint32) []byte {
		var b []byte
		for _, e := range es {
			b = binary.BigEndian.AppendUint32(b, e[0])
			b = binary.BigEndian.AppendUint32(b, e[1])
		}
		return b
	}
	for _, c := range []struct {
		name  string
		index []byte
		want  []string // "entry: problem"
	}{
		{"appends of three batches", entries([2]uint32{11, 230}, [2]uint32{20, 575}, [2]uint32{29, 920}), nil},
		{"an offset two batches on", entries([2]uint32{11, 115}, [2]uint32{14, 460}), nil},
		{"its batch starts after its offset", entries([2]uint32{5, 115}, [2]uint32{7, 345}),
			[]string{"1: offset 7 is below the batch at position 345 (offsets 9-11)"}},
		{"not a batch's start", entries([2]uint32{11, 231}),
			[]string{"0: position 231 is not the start of an entry of the segment (it is inside the entry at 230)"}},
		{"not reached before the next entry", entries([2]uint32{14, 115}, [2]uint32{15, 345}),
			[]string{"0: offset 14 is in no batch from its position 115 to entry 1's position 345 (the batch at 345 ends at offset 11)"}},
		{"past the segment", entries([2]uint32{11, 230}, [2]uint32{30, 920}),
			[]string{"1: offset 30 is past the segment's last offset (29): in no batch from its position 920 on"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			oc := NewIndexCheck(NewIndexReader(bytes.NewReader(c.index), OffsetIndex, 0))
			n := 0
			oc.OnEntry = func(e IndexEntry, _ string) {
				require.Equal(t, n, e.N, "in order")
				n++
			}
			_, err := readAll(t, log, oc)
			require.NoError(t, err)
			require.Equal(t, len(c.index)/8, n, "every entry reported once")
			var got []string
			for _, p := range oc.Problems {
				got = append(got, fmt.Sprint(p.Entry, ": ", p.Msg))
			}
			require.Equal(t, c.want, got)
		})
	}

	// Cut after the batch at 345 (offsets 9-11): an entry waiting for
	// offset 14 points past where the damaged segment could be read.
	oc := NewIndexCheck(NewIndexReader(bytes.NewReader(entries([2]uint32{14, 230})), OffsetIndex, 0))
	_, err := readAll(t, log[:460+20], oc)
	require.Error(t, err)
	require.Zero(t, oc.Count, "%v", oc.Problems)
	require.Equal(t, 1, oc.Unchecked)
}

// SegmentOptions.MaxNodes bounds the tree Decode builds of one entry:
// past it the records are left undecoded, with a limit warning.
func TestSegmentMaxNodes(t *testing.T) {
	var recs []storagedata.Record
	for i := 0; i < 2000; i++ {
		recs = append(recs, storagedata.Record{Value: []byte("v")})
	}
	b := storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	for _, max := range []int{0, 1000} {
		s := NewSegment(bytes.NewReader(b), SegmentOptions{MaxNodes: max})
		e, err := s.Next()
		require.NoError(t, err)
		res, _, err := s.Decode(e)
		require.NoError(t, err)
		if max == 0 {
			require.Len(t, res.Records, 2000)
			require.False(t, s.Warned())
			continue
		}
		require.Less(t, len(res.Records), 2000)
		require.True(t, s.Warned())
		require.Contains(t, s.Warnings()[0].Message, "MaxNodes limit (1000 nodes)")
	}
}

// A check that has ended lets its reader go: kwire log keeps a summary a
// segment, each holding its index checks, and a partition of 3000
// segments held 3000 × 2 buffered readers of 64 KiB (545 MB) until its
// end.
func TestIndexCheckLetsItsReaderGo(t *testing.T) {
	log, index, _ := testSegment(0, 10)
	for _, alone := range []bool{false, true} {
		br := bufio.NewReaderSize(bytes.NewReader(index), 64<<10)
		gone := weak.Make(br)
		c := NewIndexCheck(NewIndexReader(br, OffsetIndex, 0))
		br = nil
		if alone {
			c.EndAlone()
		} else {
			_, err := readAll(t, log, c)
			require.NoError(t, err)
		}
		require.Zero(t, c.Count)
		runtime.GC()
		require.Nil(t, gone.Value(), "alone %v: the ended check still holds its reader", alone)
		runtime.KeepAlive(c)
	}
}

// SegmentHead tells a segment by its first bytes (kwire log and the
// playground's storage module both ask it): a batch's head passes, bytes
// too short, a length under an entry's least or a magic past 2 do not.
func TestSegmentHead(t *testing.T) {
	log, _, _ := testSegment(0, 1)
	require.True(t, SegmentHead(log[:SegmentHeadLen]))
	require.False(t, SegmentHead(log[:SegmentHeadLen-1]))
	short := append([]byte(nil), log[:SegmentHeadLen]...)
	binary.BigEndian.PutUint32(short[8:], 13)
	require.False(t, SegmentHead(short))
	magic3 := append([]byte(nil), log[:SegmentHeadLen]...)
	magic3[16] = 3
	require.False(t, SegmentHead(magic3))
}
