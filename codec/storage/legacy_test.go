package storage

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/storagedata"
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

// mixedSegment is a segment a broker before 0.11 started and a later one
// went on with: messages of magic 0 and 1 (a gzip wrapper among them),
// then record batches; at is where each entry starts.
func mixedSegment() (log []byte, at []int64) {
	var inner [][]byte
	for i := 0; i < 3; i++ {
		inner = append(inner, legacyMessage(1, int64(i), 0, 1700000000002+int64(i), []byte("k"), []byte("wrapped")))
	}
	entries := [][]byte{
		legacyMessage(0, 0, 0, 0, []byte("k0"), []byte("magic zero")),
		legacyMessage(1, 1, 0, 1700000000001, nil, []byte("magic one")),
		gzipWrapper(1, 4, 1700000000004, inner...),
		legacyMessage(1, 5, 0, 1700000000005, []byte("k5"), []byte("the last legacy message")),
	}
	for i := int64(0); i < 2; i++ {
		b := storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}, {Key: []byte("k"), Value: []byte("w"), TimestampDelta: 1}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000006 + 2*i, ProducerID: -1})
		storagedata.Place(b, 6+2*i, 0)
		entries = append(entries, b)
	}
	for _, e := range entries {
		at = append(at, int64(len(log)))
		log = append(log, e...)
	}
	return log, at
}

// Damage among legacy messages resumes at the next legacy message whose
// CRC-32 holds, not only at a record batch: a resync knew magic 2 alone,
// and a corrupt byte in a segment of an old broker hid every message
// after it (a corrupt tail), or, before its batches, all of them up to
// the first batch.
func TestResyncFindsLegacyMessages(t *testing.T) {
	log, at := mixedSegment()
	bs, err := readAll(t, log)
	require.NoError(t, err)
	require.Len(t, bs, 6)
	for i, b := range bs {
		require.True(t, b.CRCValid, "entry %d", i)
		require.Equal(t, at[i], b.Position)
	}

	for _, c := range []struct {
		name       string
		damage     func(b []byte)
		at, resume int64
		entries    []int // the entries read, by number
		msg        string
	}{
		{"a magic byte", func(b []byte) { b[at[1]+16] = 7 }, at[1], at[2], []int{0, 2, 3, 4, 5}, "magic byte 7"},
		{"a length too small", func(b []byte) { binary.BigEndian.PutUint32(b[at[1]+8:], 3) }, at[1], at[2], []int{0, 2, 3, 4, 5}, "less than the smallest entry"},
		{"a length swallowing the next message", func(b []byte) { binary.BigEndian.PutUint32(b[at[0]+8:], uint32(at[2]-at[0]-12)) }, at[0], at[1], []int{1, 2, 3, 4, 5}, "the message at 0 declares"},
		{"a length ending inside the wrapper", func(b []byte) { binary.BigEndian.PutUint32(b[at[1]+8:], uint32(at[2]-at[1]+8)) }, at[1], at[2], []int{0, 2, 3, 4, 5}, "its CRC does not match"},
		{"the last legacy message's length past the end", func(b []byte) { binary.BigEndian.PutUint32(b[at[3]+8:], 4096) }, at[3], at[4], []int{0, 1, 2, 4, 5}, "runs past the bytes there"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := append([]byte(nil), log...)
			c.damage(b)
			bs, damage, err := readAllDamage(t, b)
			require.NoError(t, err)
			require.Len(t, damage, 1)
			require.Equal(t, c.at, damage[0].Position)
			require.Equal(t, c.resume, damage[0].Resume(), damage[0].Error())
			require.Contains(t, damage[0].Msg, c.msg)
			require.Contains(t, damage[0].Error(), "read resumed at "+strconv.FormatInt(c.resume, 10)+", the next entry whose CRC holds")
			var got []int
			for _, e := range bs {
				for i := range at {
					if at[i] == e.Position {
						got = append(got, i)
						require.True(t, e.CRCValid, "entry %d", i)
					}
				}
			}
			require.Equal(t, c.entries, got)
			require.Equal(t, bs[len(bs)-1].LastOffset, int64(9))
		})
	}
}

// A resync takes no legacy message at or below the last offset read
// whose CRC held (a copy of one, as a batch at such an offset is not
// taken), and no message whose key and value do not fill it.
func TestResyncLegacyMessageMustBePlausible(t *testing.T) {
	log, at := mixedSegment()
	// Damage, then the second message again: offset 1, already read.
	b := append(append([]byte(nil), log[:at[2]]...), []byte("junk-junk-junk")...)
	b = append(b, log[at[1]:at[2]]...)
	b = append(b, log[at[2]:]...)
	bs, damage, err := readAllDamage(t, b)
	require.NoError(t, err)
	require.Len(t, damage, 1)
	require.Equal(t, at[2], damage[0].Position)
	require.Equal(t, at[2]+14+(at[2]-at[1]), damage[0].Resume(), "past the copy of offset 1")
	require.Len(t, bs, 6)

	// A message whose value's length says one byte fewer than there are.
	m := legacyMessage(1, 1, 0, 1700000000001, nil, []byte("magic one"))
	binary.BigEndian.PutUint32(m[len(m)-13:], 8)
	binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
	b = append(append(append(append([]byte(nil), log[:at[1]]...), []byte("junk-junk-junk")...), m...), log[at[2]:]...)
	bs, damage, err = readAllDamage(t, b)
	require.NoError(t, err)
	require.Len(t, damage, 1)
	require.Equal(t, at[1], damage[0].Position)
	require.Equal(t, at[1]+14+int64(len(m)), damage[0].Resume(), "not at the message that does not fill itself")
	require.Len(t, bs, 5)
}
