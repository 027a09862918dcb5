package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetchResponse is a Fetch v11 response (correlation 7) of about size
// bytes: one partition whose records are batches of 1,000 records, each
// with a short key, a ~100-byte value and one header.
func fetchResponse(size int) []byte { return fetchResponseAt(size, 11) }

// fetchResponseAt is fetchResponse at version v; from v13 its topic is
// named by id and its partition carries currentLeader, a tagged field its
// layout declares before the records.
func fetchResponseAt(size int, v int16) []byte {
	var recs []byte
	var batch []byte
	for b := 0; len(recs) < size; b++ {
		batch = batch[:0]
		for i := 0; i < 1000; i++ {
			v := make([]byte, 100)
			for j := range v {
				v[j] = 'a' + byte((i+j+b)%26)
			}
			r := kmsg.Record{OffsetDelta: int32(i), TimestampDelta64: int64(i), Key: []byte("key-" + strconv.Itoa(i)), Value: v,
				Headers: []kmsg.Header{{Key: "trace", Value: []byte(strconv.Itoa(b*1000 + i))}}}
			r.Length = int32(len(r.AppendTo(nil)) - 1)
			batch = r.AppendTo(batch)
		}
		rb := kmsg.RecordBatch{FirstOffset: int64(b * 1000), Magic: 2, LastOffsetDelta: 999, FirstTimestamp: 1700000000000, MaxTimestamp: 1700000000999,
			ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: 1000, Records: batch}
		out := rb.AppendTo(nil)
		binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
		binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
		recs = append(recs, out...)
	}
	resp := kmsg.NewFetchResponse()
	resp.SetVersion(v)
	t := kmsg.NewFetchResponseTopic()
	t.Topic, t.TopicID = "orders", [16]byte{1}
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = 1<<40, 1<<40, recs
	if v >= 13 {
		p.CurrentLeader.LeaderID, p.CurrentLeader.LeaderEpoch = 2, 7
	}
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	body := resp.AppendTo(nil)
	hdr := binary.BigEndian.AppendUint32(nil, 7)
	if v >= 12 {
		hdr = append(hdr, 0) // the flexible response header's tag section
	}
	frame := binary.BigEndian.AppendUint32(nil, uint32(len(hdr)+len(body)))
	return append(append(frame, hdr...), body...)
}

// decodeRSS runs kwire with args through the maxrss helper (see
// testdata/maxrss: a child's peak counts its parent's, so a small process
// must start kwire), its output thrown away, and returns kwire's peak
// resident memory in bytes and its exit code.
func decodeRSS(t *testing.T, args ...string) (int64, int) {
	t.Helper()
	rss, code, _ := rssRun(t, args...)
	return rss, code
}

// maxrssHelper builds testdata/maxrss once, beside the kwire binary
// (removed with it), and returns its path.
func maxrssHelper(t *testing.T) string {
	t.Helper()
	rssHelperOnce.Do(func() {
		rssHelper = filepath.Join(filepath.Dir(kwireBin), "maxrss")
		if out, err := exec.Command("go", "build", "-o", rssHelper, "./testdata/maxrss").CombinedOutput(); err != nil {
			rssHelperErr = string(out)
		}
	})
	if rssHelperErr != "" {
		t.Fatalf("building testdata/maxrss: %s", rssHelperErr)
	}
	return rssHelper
}

var (
	rssHelperOnce sync.Once
	rssHelper     string
	rssHelperErr  string
)

// Issue 12: "a 64 MB Fetch response to NDJSON in at most 4 bytes of
// memory per input byte plus 64 MiB (today: 3.4 GB)". The records stream
// out as they are read; the peak is the input and the output buffers.
func TestStreamingFetchMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 64 MB frame")
	}
	size := 64 << 20
	// v13: the partition's tagged currentLeader stands before its records
	// in the JSON, and is read early, at that place, so the records still
	// stream. (A JSON writer that held the partition until its tag section
	// took 1.8 GB and 9.9 s here, against 105 MB and 1 s.)
	for _, v := range []int16{11, 13} {
		frame := fetchResponseAt(size, v)
		p := filepath.Join(t.TempDir(), "fetch.bin")
		require.NoError(t, os.WriteFile(p, frame, 0o644))
		for _, format := range []string{"ndjson", "json"} {
			rss, code := decodeRSS(t, "decode", "--format", format, "--response", "--api", "Fetch", "--version", strconv.Itoa(int(v)), p)
			require.Equal(t, 0, code)
			t.Logf("%d MB Fetch v%d response, --format %s: peak RSS %d MiB (%.2f bytes per input byte)", len(frame)>>20, v, format, rss>>20, float64(rss)/float64(len(frame)))
			require.LessOrEqual(t, rss, int64(4*len(frame)+64<<20))
		}
	}
}

// Hostile frames of up to about 1 MiB, rebuilt from issue 11's table and
// the worst shapes for the tree: each is a limit warning or error, never
// a blow-up.
func hostileFrames(t *testing.T) map[string][]byte {
	msg := func(attrs byte, key, value []byte) []byte {
		m := make([]byte, 12, 64)
		m = append(m, 0, 0, 0, 0, 0, attrs)
		for _, b := range [][]byte{key, value} {
			if b == nil {
				m = binary.BigEndian.AppendUint32(m, 0xffffffff)
				continue
			}
			m = binary.BigEndian.AppendUint32(m, uint32(len(b)))
			m = append(m, b...)
		}
		binary.BigEndian.PutUint32(m[8:], uint32(len(m)-12))
		binary.BigEndian.PutUint32(m[12:], crc32.ChecksumIEEE(m[16:]))
		return m
	}
	batch := func(codec int16, count int32, recs []byte) []byte {
		rb := kmsg.RecordBatch{Magic: 2, Attributes: codec, LastOffsetDelta: count - 1, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: count, Records: recs}
		out := rb.AppendTo(nil)
		binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
		binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
		return out
	}
	produce := func(recs []byte) []byte {
		req := kmsg.NewProduceRequest()
		req.SetVersion(3)
		tp := kmsg.NewProduceRequestTopic()
		tp.Topic = "t"
		p := kmsg.NewProduceRequestTopicPartition()
		p.Records = recs
		tp.Partitions = append(tp.Partitions, p)
		req.Topics = append(req.Topics, tp)
		body := req.AppendTo(nil)
		hdr := []byte{0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1, 0, 1, 'c'}
		f := append(hdr, body...)
		binary.BigEndian.PutUint32(f, uint32(len(f)-4))
		return f
	}
	gz := func(b []byte, repeat int) []byte {
		var out bytes.Buffer
		w := gzip.NewWriter(&out)
		w.Write(b)
		w.Close()
		return bytes.Repeat(out.Bytes(), repeat)
	}
	zs := func(b []byte) []byte {
		e, _ := zstd.NewWriter(nil)
		defer e.Close()
		return e.EncodeAll(b, nil)
	}
	tiny := []byte{0x0c, 0, 0, 0, 0x01, 0x01, 0} // a 7-byte record
	small := bytes.Repeat(msg(0, []byte("k"), []byte("a small value of some bytes")), 1<<14)
	empty := bytes.Repeat(batch(0, 0, nil), (1<<20)/61)
	apiKeys := binary.AppendUvarint([]byte{0, 0, 0, 0, 0, 0, 0, 7, 0, 0}, uint64((1<<20)/7+1))
	apiKeys = append(apiKeys, bytes.Repeat([]byte{0, 1, 0, 0, 0, 9, 0}, (1<<20)/7)...)
	apiKeys = append(apiKeys, 0, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(apiKeys, uint32(len(apiKeys)-4))
	zeros := make([]byte, 16<<20)
	return map[string][]byte{
		"zstd message set of tiny messages":  produce(msg(4, nil, zs(bytes.Repeat(msg(0, nil, nil), 1<<20)))),
		"gzip message set of small messages": produce(msg(1, nil, gz(small, 30))),
		"empty batches in a gzip wrapper":    produce(msg(1, nil, gz(empty, 30))),
		"7-byte records, gzip":               produce(batch(1, 1<<20, gz(bytes.Repeat(tiny, 1<<20), 1))),
		"7-byte records, 1 MiB raw":          produce(batch(0, 1<<17, bytes.Repeat(tiny, (1<<20)/7-20))),
		"gzip bomb, 960 MiB":                 produce(batch(1, 1, gz(zeros, 60))),
		"1 MiB of ApiVersions keys":          apiKeys,
	}
}

// Issue 11: with the default limits, any frame of up to 1 MiB decodes in
// under 256 MiB peak in the CLI, in every output format.
func TestHostileFramesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("runs kwire 35 times on 1 MiB frames")
	}
	dir := t.TempDir()
	for name, frame := range hostileFrames(t) {
		require.LessOrEqual(t, len(frame), 1<<20+64, name)
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_"))
		require.NoError(t, os.WriteFile(p, frame, 0o644))
		args := []string{}
		if strings.HasPrefix(name, "1 MiB of ApiVersions") {
			args = []string{"--response", "--api", "ApiVersions", "--version", "3"}
		}
		for _, format := range []string{"ndjson", "json", "annotated", "tree", "grid"} {
			rss, code := decodeRSS(t, append([]string{"decode", "--format", format, p}, args...)...)
			t.Logf("%-36s %-9s %4d MiB (exit %d)", name, format, rss>>20, code)
			require.Less(t, rss, int64(256<<20), "%s, --format %s", name, format)
		}
	}
}
