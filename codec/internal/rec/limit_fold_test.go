package rec

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"testing"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/wire"
	"github.com/stretchr/testify/require"
)

// TestDecompressionLimitIsOneWarning: a records field of many compressed
// batches that pass the MaxDecompressed limit (a 50 MB snappy Fetch
// through kwire proxy passed its 32 MiB in some thirty batches, a warning
// line each) has one warning for them, the first's, at its offset and
// path, counting the others and naming the last; a batch small enough
// for what is left between them still decompresses. The tree's and the
// JSON writer's warnings agree (bothWays), the tree's on the first's node.
func TestDecompressionLimitIsOneWarning(t *testing.T) {
	big := buildBatch(t, CodecSnappy, 0, 0, []tRec{{val: bytes.Repeat([]byte("x"), 100000)}})
	small := buildBatch(t, CodecSnappy, 0, 0, []tRec{{val: bytes.Repeat([]byte("y"), 1000)}})
	var p []byte
	var starts []int
	for i := range 8 {
		b := big
		if i == 5 {
			b = small
		}
		starts = append(starts, len(p))
		p = append(p, b...)
	}
	opts := Options{MaxDecompressed: 250000}
	bothWays(t, p, opts)
	var s slab.Slab
	w := &budget.Warnings{}
	res, err := Decode(&s, p, Options{MaxDecompressed: 250000, Warnings: w, Path: func() string { return "records" }})
	require.NoError(t, err)
	require.Len(t, res.Derived, 3, "two big batches and the small one")
	require.Len(t, w.List, 1, "%v", w.List)
	x := w.List[0]
	require.True(t, x.Limit)
	require.Equal(t, starts[2]+batchHeader, x.Offset, "the first batch left compressed")
	require.Equal(t, "records[2].records", x.Path)
	require.Regexp(t, `^not decompressed: it holds more than the \d+ bytes left of the MaxDecompressed limit; `+
		`4 more batches after it were not decompressed either, the last at byte `+strconv.Itoa(starts[7]+batchHeader)+`$`, x.Message)
	require.Equal(t, []string{"records: " + x.Message}, warnings(res))

	// Legacy wrappers (magic 1) likewise.
	var q []byte
	for range 4 {
		q = append(q, legacyWrapper(t, CodecGzip, 100000)...)
	}
	bothWays(t, q, Options{MaxDecompressed: 150000})
	w = &budget.Warnings{}
	_, err = Decode(&s, q, Options{MaxDecompressed: 150000, Warnings: w, Path: func() string { return "records" }})
	require.NoError(t, err)
	require.Len(t, w.List, 1, "%v", w.List)
	require.Regexp(t, `^not decompressed: it holds more than the \d+ bytes left of the MaxDecompressed limit; 2 more compressed wrapper messages after it were not decompressed either, the last at byte \d+$`, w.List[0].Message)
}

// legacyWrapper is a magic 1 wrapper message, compressed with codec,
// around one message whose value is n bytes.
func legacyWrapper(t *testing.T, codec, n int) []byte {
	m := wire.AppendInt64(nil, 0)
	m = wire.AppendInt32(m, 0)
	m = wire.AppendInt32(m, 0)
	m = append(m, 1, 0)
	m = wire.AppendInt64(m, 1700000000005)
	m = wire.AppendInt32(m, -1)
	m = wire.AppendInt32(m, int32(n))
	m = append(m, bytes.Repeat([]byte("z"), n)...)
	binary.BigEndian.PutUint32(m[8:], uint32(len(m)-12))
	binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
	return wrapMessages(t, 1, codec, 0, 1700000000005, m)
}

// TestLogAppendTimeWrapperBothWays: a magic 1 wrapper stamped with its
// log-append time gives its messages its timestamp ("logAppendTime"
// beside each one's stored "timestamp"), the same through the tree's JSON
// and the stream's.
func TestLogAppendTimeWrapperBothWays(t *testing.T) {
	w := legacyWrapper(t, CodecGzip, 10)
	w[17] |= 8 // attributes: LogAppendTime
	binary.BigEndian.PutUint64(w[18:], 1700000099999)
	binary.BigEndian.PutUint32(w[12:], crc32.ChecksumIEEE(w[16:]))
	js := bothWays(t, w, Options{})
	require.Contains(t, string(js), `"timestamp":1700000000005,"logAppendTime":1700000099999,`)
}
