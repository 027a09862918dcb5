package storage

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/stretchr/testify/require"
)

// legacyMessage lays out a magic 0 or 1 message at offset, as Kafka's
// LegacyRecord writes it: offset, size, CRC-32 over magic to the end,
// magic, attributes, (magic 1) timestamp, key and value.
func legacyMessage(magic int8, offset int64, attrs byte, ts int64, key, value []byte) []byte {
	m := []byte{byte(magic), attrs}
	if magic == 1 {
		m = binary.BigEndian.AppendUint64(m, uint64(ts))
	}
	for _, b := range [][]byte{key, value} {
		if b == nil {
			m = binary.BigEndian.AppendUint32(m, 0xffffffff)
			continue
		}
		m = binary.BigEndian.AppendUint32(m, uint32(len(b)))
		m = append(m, b...)
	}
	out := binary.BigEndian.AppendUint64(nil, uint64(offset))
	out = binary.BigEndian.AppendUint32(out, uint32(4+len(m)))
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(m))
	return append(out, m...)
}

// gzipWrapper is a gzip wrapper message at offset holding inner.
func gzipWrapper(magic int8, offset, ts int64, inner ...[]byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(bytes.Join(inner, nil))
	w.Close()
	return legacyMessage(magic, offset, 1, ts, nil, z.Bytes())
}

// A compressed legacy wrapper stores only its last offset; what it holds
// is read from the messages inside: a magic 1 wrapper's relative offsets
// (0, 1, 2 under offset 52: 50-52), a magic 0 wrapper's absolute ones,
// their count and the first one's timestamp, the first entry of the segment included.
func TestLegacyWrapperHasItsMessagesCountAndFirstOffset(t *testing.T) {
	var inner1, inner0 [][]byte
	for i := 0; i < 3; i++ {
		inner1 = append(inner1, legacyMessage(1, int64(i), 0, 1700000000000+int64(i), []byte("k"), []byte("v")))
	}
	for i := 53; i < 57; i++ {
		inner0 = append(inner0, legacyMessage(0, int64(i), 0, 0, []byte("k"), []byte("v")))
	}
	log := append(gzipWrapper(1, 52, 1700000000002, inner1...), gzipWrapper(0, 56, 0, inner0...)...)
	log = append(log, legacyMessage(1, 57, 0, 1700000000003, nil, []byte("plain"))...)
	bs, err := readAll(t, log)
	require.NoError(t, err)
	require.Len(t, bs, 3)
	for i, want := range []struct {
		base, last, firstTS int64
		records             int
	}{{50, 52, 1700000000000, 3}, {53, 56, -1, 4}, {57, 57, 1700000000003, 1}} {
		require.Equal(t, want.firstTS, bs[i].FirstTimestamp, "entry %d", i)
		require.True(t, bs[i].CRCValid, "entry %d", i)
		require.Equal(t, want.base, bs[i].BaseOffset, "entry %d", i)
		require.Equal(t, want.last, bs[i].LastOffset, "entry %d", i)
		require.Equal(t, want.records, bs[i].Records, "entry %d", i)
	}
}

// A magic 1 wrapper stamped with its log-append time (attributes bit 3)
// gives its messages its own timestamp, as Kafka's LegacyRecordBatch
// reads them: the JSON showed only each message's stored timestamp and
// CreateTime. Their "logAppendTime" says the time in effect, and the JSON
// still encodes back to the same bytes.
func TestLegacyWrapperLogAppendTime(t *testing.T) {
	const wrapTS = 1700000099999
	var inner [][]byte
	for i := 0; i < 2; i++ {
		inner = append(inner, legacyMessage(1, int64(i), 0, 1700000000020+int64(i), []byte("k"), []byte("v")))
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(bytes.Join(inner, nil))
	zw.Close()
	log := legacyMessage(1, 8, 1|8, wrapTS, nil, z.Bytes()) // gzip, LogAppendTime

	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	b, err := s.Next()
	require.NoError(t, err)
	require.EqualValues(t, wrapTS, b.FirstTimestamp)
	var out bytes.Buffer
	require.NoError(t, s.WriteJSON(&out, nil, b))
	require.Contains(t, out.String(), `"timestamp":1700000000020,"logAppendTime":1700000099999,`)
	require.Contains(t, out.String(), `"timestamp":1700000000021,"logAppendTime":1700000099999,`)
	v, err := parseJSON(out.Bytes())
	require.NoError(t, err)
	again, err := encodeBatches(nil, v.(map[string]any)["batch"])
	require.NoError(t, err)
	require.Equal(t, log, again)

	// CreateTime wrappers add nothing.
	out.Reset()
	s = NewSegment(bytes.NewReader(gzipWrapper(1, 8, wrapTS, inner...)), SegmentOptions{})
	b, err = s.Next()
	require.NoError(t, err)
	require.NoError(t, s.WriteJSON(&out, nil, b))
	require.NotContains(t, out.String(), "logAppendTime")
}
