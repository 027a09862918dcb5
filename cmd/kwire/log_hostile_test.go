package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/internal/hostile"
)

// hostileLogPeak bounds kwire log's peak resident set on a hostile storage
// file: one batch's budget (32 MiB decompressed, a 64 MiB batch at most)
// and what the runtime keeps, whatever the file declares.
const hostileLogPeak = 160 << 20

// The hostile corpus's storage files through kwire log: no panic, exit 0
// or 1, the problem said, memory bounded.
func TestHostileLog(t *testing.T) {
	for _, e := range hostile.StorageFiles() {
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			var out cappedBuffer
			out.n = hostileStderrCap
			stderr, u := hostileRun(t, &out, "log", filepath.Join(hostile.Dir(), e.File()))
			t.Logf("kwire log %s: %v", e.File(), u)
			o := hostile.Outcome{Exit: u.Exit, Text: out.String() + "\n" + string(stderr)}
			if u.Signal != "" {
				o.Exit = 128 + 9
			}
			for _, p := range e.Check(o) {
				t.Error(p)
			}
			if u.MaxRSS > hostileLogPeak {
				t.Errorf("peak RSS %s; the bound is %s", hostile.MiB(u.MaxRSS), hostile.MiB(hostileLogPeak))
			}
		})
	}
}

// hostileLogTreePeak bounds kwire log --format tree's peak on a hostile
// segment: a batch's tree holds at most 2^17 nodes and 8 MiB decompressed
// (it was a floor of 2^20 nodes, 290 MB for a 723-byte segment).
const hostileLogTreePeak = 80 << 20

// zstdTinyRecords is a segment of one zstd batch of 1.1 million 7-byte
// records: 723 bytes on disk.
func zstdTinyRecords() []byte {
	const n = 1_100_000
	enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
	defer enc.Close()
	recs := enc.EncodeAll(bytes.Repeat([]byte{0x0c, 0, 0, 0, 0x01, 0x01, 0}, n), nil)
	rb := kmsg.RecordBatch{Magic: 2, Attributes: 4, LastOffsetDelta: n - 1, FirstTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: n, Records: recs}
	out := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

// TestHostileLogTreeMemory: --format tree on the hostile segments (and a
// zstd batch of a million tiny records) peaks near what ndjson does, not
// at a million nodes' worth, and says where the tree was cut.
func TestHostileLogTreeMemory(t *testing.T) {
	files := map[string]string{"zstd tiny records": writeFile(t, t.TempDir(), "zbomb-0/00000000000000000000.log", zstdTinyRecords())}
	for _, e := range hostile.StorageFiles() {
		if strings.HasSuffix(e.File(), ".log") {
			files[e.Name] = filepath.Join(hostile.Dir(), e.File())
		}
	}
	for name, p := range files {
		t.Run(name, func(t *testing.T) {
			peak := map[string]int64{}
			for _, format := range []string{"ndjson", "tree"} {
				var out cappedBuffer
				out.n = hostileStderrCap
				stderr, u := hostileRun(t, &out, "log", "--format", format, p)
				if u.Signal != "" || u.Exit > 1 {
					t.Fatalf("--format %s: %v: %s", format, u, stderr)
				}
				peak[format] = u.MaxRSS
				if format == "tree" && name == "zstd tiny records" && !strings.Contains(out.String(), "MaxNodes limit (131072 nodes) is reached") {
					t.Errorf("the tree's cut is not said: %.300s", out.String())
				}
			}
			t.Logf("peak RSS: ndjson %s, tree %s", hostile.MiB(peak["ndjson"]), hostile.MiB(peak["tree"]))
			if peak["tree"] > hostileLogTreePeak {
				t.Errorf("--format tree peaks at %s; the bound is %s (ndjson: %s)", hostile.MiB(peak["tree"]), hostile.MiB(hostileLogTreePeak), hostile.MiB(peak["ndjson"]))
			}
		})
	}
}
