package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
)

// OffsetCheck is kwire log's and the playground's one check of a
// segment's offsets: entries going back, below the file name's base,
// past the next segment's base.
func TestOffsetCheck(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 3; i++ {
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Value: []byte("a")}, {Value: []byte("b")}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1}))
	}
	log, _, _ := storagedata.Segment(10, 0, batches, 1)
	seg := NewSegment(bytes.NewReader(append(append([]byte(nil), log...), log...)), SegmentOptions{})
	c := NewOffsetCheck(12)
	var msgs []string
	var records int64
	for {
		b, err := seg.Next()
		if err != nil {
			break
		}
		n, ps := c.Batch(nil, b)
		records += n
		for _, p := range ps {
			msgs = append(msgs, p.Msg)
		}
	}
	require.EqualValues(t, 12, records)
	require.Equal(t, []string{
		"base offset 10 is below the segment's base offset 12 (its file name)",
		"base offset 10 is below the segment's base offset 12 (its file name)",
		"offsets 10-11 go back below the entries before it, which reached offset 15",
		"offsets 12-13 go back below the entries before it, which reached offset 15",
		"offsets 14-15 go back below the entries before it, which reached offset 15",
	}, msgs)
	p, ok := c.Next(15)
	require.True(t, ok)
	require.Equal(t, OffsetProblem{Position: int64(2 * len(log) / 3), BaseOffset: 14, LastOffset: 15,
		Msg: "the segment runs to offset 15, past the next segment's base offset 15"}, p)
	_, ok = c.Next(16)
	require.False(t, ok)
}

// A batch whose header's recordCount was damaged on disk (a byte flipped:
// -16777212): its line's warnings name it "batch", as its line's key does,
// not "[0]"; and the segment counts the records its offsets hold, saying
// why, not none.
func TestDamagedRecordCount(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 3; i++ {
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Value: []byte("a")}, {Value: []byte("b")}, {Value: []byte("c")}, {Value: []byte("d")}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1}))
	}
	batches[1][57] ^= 0xff // recordCount's first byte
	log, _, _ := storagedata.Segment(0, 0, batches, 1)
	seg := NewSegment(bytes.NewReader(log), SegmentOptions{})
	c := NewOffsetCheck(0)
	var records int64
	var msgs, paths []string
	for {
		b, err := seg.Next()
		if err != nil {
			break
		}
		n, ps := c.Batch(nil, b)
		records += n
		for _, p := range ps {
			msgs = append(msgs, p.Msg)
		}
		var out bytes.Buffer
		require.NoError(t, seg.WriteJSON(&out, nil, b))
		var line struct {
			Warnings []struct{ Path string } `json:"warnings"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
		for _, w := range line.Warnings {
			paths = append(paths, w.Path)
		}
		_, _, err = seg.Decode(b)
		require.NoError(t, err)
		for _, w := range seg.Warnings() {
			require.Contains(t, paths, w.Path, "the tree's warnings name it as the line does")
		}
	}
	require.EqualValues(t, 12, records)
	require.Equal(t, []string{"the header declares -16777212 records: counted as 4, what its offsets hold"}, msgs)
	require.Equal(t, []string{"batch.crc", "batch.recordCount"}, paths)
}

// A batch whose records lie past its lastOffsetDelta (its header written
// wrong, its CRC right): each such record's offsetDelta is warned on, in
// the line and in the tree alike, as its offset is the next batch's.
func TestRecordPastLastOffsetDelta(t *testing.T) {
	b := storagedata.Batch([]storagedata.Record{{Value: []byte("a")}, {Value: []byte("b")}, {Value: []byte("c")}},
		storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	binary.BigEndian.PutUint32(b[23:], 1) // lastOffsetDelta 1 of 0, 1, 2
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
	log, _, _ := storagedata.Segment(0, 0, [][]byte{b}, 1)
	seg := NewSegment(bytes.NewReader(log), SegmentOptions{})
	e, err := seg.Next()
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, seg.WriteJSON(&out, nil, e))
	var line struct {
		Warnings []struct{ Path, Message string } `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
	want := []struct{ Path, Message string }{{"batch.records[2].offsetDelta", "offsetDelta 2 is past the batch's lastOffsetDelta 1"}}
	require.Equal(t, want, line.Warnings)
	_, _, err = seg.Decode(e)
	require.NoError(t, err)
	require.Len(t, seg.Warnings(), 1)
	require.Equal(t, want[0].Message, seg.Warnings()[0].Message)
}
