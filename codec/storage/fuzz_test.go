package storage

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/hostile"
)

// seeds adds the files of testdata/storage whose names match to f.
func seeds(f *testing.F, match func(name string) bool) {
	root := filepath.Join("..", "..", "testdata", "storage")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && match(d.Name()) {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
}

// fuzzBudget is what reading n bytes of a storage file may allocate: the
// codec's fuzz bound, one batch at a time.
func fuzzBudget(n int) uint64 { return hostile.FuzzAllocBound(n) + 64<<20 }

// FuzzSegment reads any bytes as a segment of __consumer_offsets and of a
// plain topic: every line is JSON, nothing panics, a tail error says
// where, and memory stays within the bound.
func FuzzSegment(f *testing.F) {
	// One entry a seed (and two), so minimizing what they grow into is quick.
	root := filepath.Join("..", "..", "testdata", "storage", "logdir")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".log") && !strings.HasSuffix(p, ".checkpoint")) {
			return err
		}
		b, _ := os.ReadFile(p)
		s := NewSegment(bytes.NewReader(b), SegmentOptions{})
		var prev []byte
		for {
			bt, err := s.Next()
			if err != nil {
				break
			}
			f.Add(append(prev, bt.Bytes...))
			prev = append([]byte(nil), bt.Bytes...)
		}
		return nil
	})
	// A batch whose last bytes are zeros, zeros, then a batch (the zeros
	// read ahead for a torn write are owed back), and the same cut short
	// in preallocated space.
	log, _, _ := testSegment(0, 2)
	at := starts(log)
	zeroed := append([]byte(nil), log...)
	clear(zeroed[at[1]-20 : at[1]])
	f.Add(append(append(append([]byte(nil), zeroed[:at[1]]...), make([]byte, 300)...), log[at[1]:]...))
	f.Add(append(append([]byte(nil), zeroed[:at[1]]...), make([]byte, 300)...))
	// An entry longer than the small MaxBatch of the last pass below, cut
	// short in preallocated space.
	big, last := bigLast()
	f.Add(append(append([]byte(nil), big[:last+200]...), make([]byte, int64(len(big))-last-200+64)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		// The last pass reads entries longer than 300 bytes as skip does,
		// streamed past.
		for _, c := range []struct {
			topic    string
			maxBatch int
		}{{"__consumer_offsets", 1 << 20}, {"orders", 1 << 20}, {"__cluster_metadata", 1 << 20}, {"orders", 300}} {
			topic := c.topic
			var got uint64
			got = hostile.Allocated(func() {
				s := NewSegment(bytes.NewReader(b), SegmentOptions{Topic: topic, MaxBatch: c.maxBatch, MaxDecompressed: hostile.FuzzMaxDecompressed})
				var last int64 = -1
				for {
					bt, err := s.Next()
					var de *DamageError
					if errors.As(err, &de) {
						if de.Position <= last || de.Size <= 0 || de.Resume() > int64(len(b)) {
							t.Fatalf("damage at %d, size %d, after a batch at %d, of %d bytes", de.Position, de.Size, last, len(b))
						}
						last = de.Position
						continue
					}
					if err != nil {
						var te *TailError
						if errors.As(err, &te) && (te.Position < 0 || te.Position+te.Size != int64(len(b)) || te.ZeroFrom < te.Position || te.ZeroFrom > int64(len(b))) {
							t.Fatalf("tail at %d of %d bytes, size %d, zeros from %d", te.Position, len(b), te.Size, te.ZeroFrom)
						}
						if err != io.EOF && !errors.As(err, &te) {
							t.Fatal(err)
						}
						break
					}
					if bt.Position <= last {
						t.Fatalf("positions go back: %d after %d", bt.Position, last)
					}
					last = bt.Position
					var out bytes.Buffer
					if err := s.WriteJSON(&out, nil, bt); err != nil {
						t.Fatal(err)
					}
					if !json.Valid(out.Bytes()) {
						t.Fatalf("not JSON: %s", out.Bytes())
					}
				}
			})
			if got > fuzzBudget(len(b)) {
				t.Fatalf("%d bytes allocated for %d bytes of input", got, len(b))
			}
		}
	})
}

// FuzzIndexCheck checks any bytes as an .index and a .timeindex against a
// segment of the fuzzer's making, read past its damage with the .index's
// positions: entries reported in order, once each.
func FuzzIndexCheck(f *testing.F) {
	log, index, timeindex := testSegment(0, 6)
	f.Add(index, log)
	f.Add(timeindex, log)
	// An entry 0 past the segment, the entries after it right (the check
	// reads one ahead), and a partial entry at the end.
	past := append([]byte(nil), index...)
	binary.BigEndian.PutUint32(past[4:], 99999)
	f.Add(append(past, 1, 2, 3), log)
	pastT := append([]byte(nil), timeindex...)
	binary.BigEndian.PutUint32(pastT[8:], 99999)
	f.Add(pastT, log)
	// A damaged batch holding a batch, the batch after it damaged too: a
	// resync asks the .index where the next entry starts.
	mlog, at, _ := mirrored(6, 2, 1000)
	binary.BigEndian.PutUint32(mlog[at[2]+57:], 4)
	mlog[at[3]+16] = 9
	f.Add(offsetIndex(2, at[1], 8, at[2], 11, at[3], 14, at[4]), mlog)
	f.Fuzz(func(t *testing.T, idx, log []byte) {
		for _, kind := range []IndexKind{OffsetIndex, TimeIndex} {
			c := NewIndexCheck(NewIndexReader(bytes.NewReader(idx), kind, 0))
			next := 0
			c.OnEntry = func(e IndexEntry, _ string) {
				if e.N != next {
					t.Fatalf("entry %d reported, want %d", e.N, next)
				}
				next++
			}
			// The segment's resyncs ask the check for the positions the
			// .index names (Positions): the entries they read ahead are
			// reported all the same, in order, once.
			s := NewSegment(bytes.NewReader(log), SegmentOptions{MaxBatch: 1 << 20, Index: c.Positions()})
			var end, last int64 = 0, -1
			var stop error
			for {
				b, err := s.Next()
				var de *DamageError
				if errors.As(err, &de) {
					c.Damage(de)
					continue
				}
				if err != nil {
					stop = err
					break
				}
				c.Batch(b)
				end, last = b.Position+b.Size(), b.LastOffset
			}
			c.End(end, last, stop)
			if next+c.Unused != len(idx)/kind.size() || c.Entries != next+c.Unused {
				t.Fatalf("%d entries reported, %d unused, of %d", next, c.Unused, len(idx)/kind.size())
			}
		}
	})
}

// FuzzTopicRecord decodes any key and value as a record of every internal
// topic: no panic, JSON out, and what decodes without error encodes back
// to the same bytes.
func FuzzTopicRecord(f *testing.F) {
	f.Add([]byte{0, 2, 0, 1, 'g'}, []byte{0, 3, 0, 8, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r'})
	f.Add([]byte(nil), []byte{1, 2, 0, 7, 'o', 'r', 'd', 'e', 'r', 's', 0})
	f.Add([]byte{0, 1, 0, 1, 'g', 0, 1, 't', 0, 0, 0, 1}, []byte{0, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, key, value []byte) {
		for _, topic := range schema.InternalTopics() {
			r := DecodeTopicRecord(topic.Name, BytesPart(key), BytesPart(value))
			js := r.AppendJSON(nil)
			if !json.Valid(js) {
				t.Fatalf("not JSON: %s", js)
			}
			if r.Err != nil || len(r.Warnings()) > 0 {
				continue
			}
			v, err := parseJSON(js)
			if err != nil {
				t.Fatal(err)
			}
			k, val, err := EncodeTopicRecord(topic.Name, v.(map[string]any))
			if err != nil {
				t.Fatalf("%s: %s: %v", topic.Name, js, err)
			}
			if !bytes.Equal(k, key) || !bytes.Equal(val, value) {
				t.Fatalf("%s: %s encodes to %x %x, not %x %x", topic.Name, js, k, val, key, value)
			}
		}
	})
}

// FuzzTextFiles reads any bytes as each of Kafka's text files and a
// producer snapshot: no panic, and what a snapshot decodes to encodes
// back.
func FuzzTextFiles(f *testing.F) {
	seeds(f, func(n string) bool {
		k := KindOf(n).Kind
		return k == LeaderEpochFile || k == OffsetCheckpointFile || k == PartitionMetadataFile || k == MetaPropertiesFile || k == QuorumStateFile || k == ProducerSnapshotFile
	})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, kind := range []CheckpointKind{LeaderEpochCheckpoint, OffsetCheckpoint} {
			r := NewCheckpointReader(bytes.NewReader(b), kind)
			for i := 0; ; i++ {
				e, err := r.Next()
				if err != nil {
					break
				}
				if !json.Valid(e.AppendJSON(nil, kind)) {
					t.Fatal("not JSON")
				}
			}
		}
		ReadPartitionMetadata(b)
		ReadMetaProperties(bytes.NewReader(b))
		if q, err := ReadQuorumState(b); err == nil && !json.Valid(AppendJSONValue(nil, q.Value)) {
			t.Fatal("quorum-state not JSON")
		}
		p := ReadProducerSnapshot(b)
		js := p.AppendJSON(nil)
		if !json.Valid(js) {
			t.Fatalf("not JSON: %s", js)
		}
		v, err := parseJSON(js)
		if err != nil {
			t.Fatal(err)
		}
		again, err := EncodeProducerSnapshot(v.(map[string]any))
		if err == nil && p.Err == nil && !bytes.Equal(again, b) {
			t.Fatalf("%s encodes to %x, not %x", js, again, b)
		}
	})
}
