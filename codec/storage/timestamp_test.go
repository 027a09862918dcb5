package storage

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
)

// patchBatch sets a batch's attribute bits and max timestamp, gzips its
// records when asked, and computes its length and CRC again.
func patchBatch(b []byte, attrs uint16, maxTS int64, gz bool) []byte {
	b = append([]byte(nil), b...)
	if gz {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b[61:])
		w.Close()
		b = append(b[:61], z.Bytes()...)
		attrs |= 1
	}
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	binary.BigEndian.PutUint16(b[21:], binary.BigEndian.Uint16(b[21:])|attrs)
	binary.BigEndian.PutUint64(b[35:], uint64(maxTS))
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
	return b
}

// A batch the log cleaner rewrote with a delete horizon (attribute 0x40)
// keeps the horizon in its base timestamp, after every record's time: the
// first timestamp is the first record's, the base plus its delta,
// compressed or not, passed over for its size or not. Under log-append
// time every record's timestamp is the batch's max.
func TestFirstTimestampIsTheFirstRecords(t *testing.T) {
	const real, horizon = int64(1700000000000), int64(1700086400000)
	var recs []storagedata.Record
	for i := 0; i < 3; i++ {
		recs = append(recs, storagedata.Record{Key: []byte("k"), Value: []byte("v"), TimestampDelta: real + int64(i)*1000 - horizon})
	}
	cleaned := storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: horizon, ProducerID: -1})
	appended := storagedata.Batch(recs[:1], storagedata.BatchOptions{FirstTimestamp: real, ProducerID: -1, LogAppendTime: true})
	for name, c := range map[string]struct {
		b        []byte
		maxBatch int
		want     int64
	}{
		"delete horizon":                    {patchBatch(cleaned, 0x40, real+2000, false), 0, real},
		"delete horizon, gzip":              {patchBatch(cleaned, 0x40, real+2000, true), 0, real},
		"delete horizon, passed over":       {patchBatch(cleaned, 0x40, real+2000, false), 60, real},
		"delete horizon, gzip, passed over": {patchBatch(cleaned, 0x40, real+2000, true), 60, -1},
		"log-append time":                   {patchBatch(appended, 0, real+5000, false), 0, real + 5000},
	} {
		s := NewSegment(bytes.NewReader(c.b), SegmentOptions{MaxBatch: c.maxBatch})
		b, err := s.Next()
		require.NoError(t, err, name)
		require.True(t, b.CRCValid, name)
		require.Equal(t, c.maxBatch > 0, b.Skipped, name)
		require.Equal(t, c.want, b.FirstTimestamp, name)
	}
}
