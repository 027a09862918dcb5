package hostile

import (
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"strings"
)

// Kafka's storage files (kwire log, package codec/storage): each entry is
// a file named as Kafka names its kind, in a folder of its own under
// storage/ (named <topic>-<partition> when the topic matters), read by
// kwire log given the file.

// Storage is the Mode of kwire log's entries.
const Storage Mode = "storage"

// StorageFiles is the corpus's storage files.
func StorageFiles() []Entry { return entriesIf(func(m Mode) bool { return m == Storage }) }

// checkStorage checks what kwire log did with a storage entry: no panic,
// exit 0 or 1, and the output says what Expect.Says wants.
func (e Entry) checkStorage(o Outcome) []string {
	var bad []string
	if strings.Contains(o.Text, "panic:") || strings.Contains(o.Text, "goroutine ") {
		bad = append(bad, "kwire log panicked: "+firstLines(o.Text, 3))
	}
	if o.Exit != 0 && o.Exit != 1 {
		bad = append(bad, "exit status "+strconv.Itoa(o.Exit)+", want 0 or 1: "+firstLines(o.Text, 3))
	}
	if s := e.Expect.Says; s != "" && !saysAny(o.Text, s) {
		bad = append(bad, "the output does not say "+s+": "+firstLines(o.Text, 3))
	}
	return bad
}

// segmentName is the first segment's file name.
const segmentName = "00000000000000000000"

// placed is b with its base offset set (the CRC does not cover it).
func placed(b []byte, base int64) []byte {
	out := append([]byte(nil), b...)
	binary.BigEndian.PutUint64(out, uint64(base))
	return out
}

// smallBatch is a batch of one 7-byte record.
var smallBatch = batch(0, 0, 1, tinyRecord)

// indexEntries are .index entries (relative offset, position).
func indexEntries(n int, f func(i int) (int32, int32)) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		off, pos := f(i)
		b = be32(be32(b, off), pos)
	}
	return b
}

// heldAheadBatch is a batch at offset i of one record whose value is a
// batch at offset 2^40+i, its CRC right.
func heldAheadBatch(i int64) []byte {
	return placed(batch(0, 0, 1, record(0, 0, nil, placed(smallBatch, 1<<40+i))), i)
}

// producerSnapshot is a producer-state snapshot: version 1, CRC-32C of
// the rest, then body.
func producerSnapshot(body []byte) []byte {
	b := be16(nil, 1)
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(body, castagnoli))
	return append(b, body...)
}

// controlBatch is a control batch of one record with key (version 0, type)
// and value v.
func controlBatch(typ int16, v []byte) []byte {
	return batch(0x20, 0, 1, record(0, 0, controlKey(typ), v))
}

func storageCorpus() []Entry {
	seg := "/" + segmentName
	return []Entry{
		{Name: "storage/segment-length-max" + seg + ".log", Mode: Storage,
			Attacks: "a segment whose second entry declares 2,147,483,647 bytes and holds 64 KiB of zeros (allocation by declared length; a corrupt tail, not a torn one: no segment holds that entry)",
			Expect:  Expect{Says: "declares 2147483647 bytes after its length; 65536 are there: more than a segment holds", Survive: true},
			gen: func() []byte {
				b := append([]byte(nil), smallBatch...)
				head := be32(be64(nil, 1), 0x7fffffff)
				return append(append(b, head...), make([]byte, 64<<10)...)
			}},
		{Name: "storage/segment-length-negative" + seg + ".log", Mode: Storage,
			Attacks: "a segment entry whose length is -1",
			Expect:  Expect{Says: "less than the smallest entry", Survive: true},
			gen:     func() []byte { return append(append([]byte(nil), smallBatch...), be32(be64(nil, 1), -1)...) }},
		{Name: "storage/segment-magic-9" + seg + ".log", Mode: Storage,
			Attacks: "a segment entry whose magic byte is 9",
			Expect:  Expect{Says: "magic byte 9", Survive: true},
			gen: func() []byte {
				b := placed(smallBatch, 1)
				b[16] = 9
				return append(append([]byte(nil), smallBatch...), b...)
			}},
		{Name: "storage/segment-zstd-bomb" + seg + ".log", Mode: Storage,
			Attacks: "a segment of one zstd batch inflating to 1 GiB of zeros (8192 RLE blocks)",
			Expect:  Expect{Says: "MaxDecompressed|decompress", Survive: true},
			gen:     func() []byte { return batch(4, 0, 1, zstdRLE(0, 8192, -1)) }},
		{Name: "storage/segment-gzip-tiny-records" + seg + ".log", Mode: Storage,
			Attacks: "a segment of one gzip batch of 7 MiB of 7-byte records (1,048,576 records, one line of JSON)",
			Expect:  Expect{Says: `"records"`, Survive: true},
			gen:     func() []byte { return batch(1, 1<<20-1, 1<<20, gz(repeat(tinyRecord, 1<<20))) }},
		{Name: "storage/segment-many-batches" + seg + ".log", Mode: Storage,
			Attacks: "a segment of 3,500 small batches at one offset (a line each; the index check and summary hold none of them)",
			Expect:  Expect{Says: `"batches":3500`, Survive: true},
			gen:     func() []byte { return repeat(smallBatch, 3500) }},
		{Name: "storage/segment-damaged-candidates" + seg + ".log", Mode: Storage,
			Attacks: "a segment of 2,621 entries of 100 bytes, their CRCs wrong, each holding a header that passes for a batch's declaring 64 MiB (each read the rest of the file ahead and gave it back: 354 MB for 256 KiB, quadratic)",
			Expect:  Expect{Says: `"batches":2621`, Survive: true},
			gen: func() []byte {
				b := make([]byte, 256<<10)
				for at := 0; at+100 <= len(b); at += 100 {
					binary.BigEndian.PutUint64(b[at:], uint64(at))
					binary.BigEndian.PutUint32(b[at+8:], 88)
					b[at+16] = 2
					c := b[at+24:]
					binary.BigEndian.PutUint64(c, uint64(at+1))
					binary.BigEndian.PutUint32(c[8:], 64<<20)
					c[16] = 2
				}
				return b
			}},
		{Name: "storage/segment-phantom-batches" + seg + ".log", Mode: Storage,
			Attacks: "a segment of 1,500 batches of one record whose value is itself a batch (at offset 2^40 and on, its CRC right), every other outer batch's record count wrong (a resync listed each inner batch as an entry, 1,499 of them, and the outer batches after the first as damage)",
			Expect:  Expect{Says: `"lastOffset":1499,"firstTimestamp"`, Survive: true},
			gen: func() []byte {
				var b []byte
				for i := 0; i < 1500; i++ {
					inner := placed(smallBatch, 1<<40+int64(i))
					outer := placed(batch(0, 0, 1, record(0, 0, nil, inner)), int64(i))
					if i%2 == 1 {
						binary.BigEndian.PutUint32(outer[57:], 2)
					}
					b = append(b, outer...)
				}
				return b
			}},
		{Name: "storage/index-past-the-end" + seg + ".index", Mode: Storage,
			Attacks: "an .index of 30,000 entries past the end of its one-batch segment (every one a problem, held one at a time)",
			Expect:  Expect{Says: "past the segment's last entry", Survive: true},
			gen: func() []byte {
				return indexEntries(30000, func(i int) (int32, int32) { return int32(i + 1), int32(1000 + 100*i) })
			}},
		{Name: "storage/index-past-the-end" + seg + ".log", Mode: Storage,
			Attacks: "the segment beside index-past-the-end's .index: one small batch",
			Expect:  Expect{Says: `"batches":1`, Survive: true},
			gen:     func() []byte { return append([]byte(nil), smallBatch...) }},
		{Name: "storage/index-backwards" + seg + ".index", Mode: Storage,
			Attacks: "an .index whose 20,000 entries go backwards (positions and offsets falling)",
			Expect:  Expect{Says: "is not above the entry before", Survive: true},
			gen: func() []byte {
				return indexEntries(20000, func(i int) (int32, int32) { return int32(40000 - i), int32(80000 - 4*i) })
			}},
		{Name: "storage/index-held-ahead" + seg + ".index", Mode: Storage,
			Attacks: "an .index whose 20,000 entries after its first name the position of the segment's damaged second batch (a resync asks it for the next position past that batch: it read every entry, outside any limit, from a second reader of the file)",
			Expect:  Expect{Says: "is not above the entry before", Survive: true},
			gen: func() []byte {
				at := int32(len(heldAheadBatch(0)))
				return append(indexEntries(1, func(int) (int32, int32) { return 0, 0 }), indexEntries(20000, func(int) (int32, int32) { return 1, at })...)
			}},
		{Name: "storage/index-held-ahead" + seg + ".log", Mode: Storage,
			Attacks: "the segment beside index-held-ahead's .index: a batch, one whose record count is wrong (its CRC fails) with a batch stored in its record's value, one whose magic byte is 9, and a batch",
			Expect:  Expect{Says: "indexNotConsulted", Survive: true},
			gen: func() []byte {
				damaged := heldAheadBatch(1)
				binary.BigEndian.PutUint32(damaged[57:], 2)
				bad := placed(smallBatch, 2)
				bad[16] = 9
				return append(append(append(heldAheadBatch(0), damaged...), bad...), placed(smallBatch, 3)...)
			}},
		{Name: "storage/timeindex-absurd" + seg + ".timeindex", Mode: Storage,
			Attacks: "a .timeindex whose entries name the largest offsets and timestamps there are, and a partial entry",
			Expect:  Expect{Says: "is past the segment's last offset|after entry", Survive: true},
			gen: func() []byte {
				var b []byte
				for i := 0; i < 1000; i++ {
					b = be32(be64(b, 1<<62+int64(i)), int32(0x7fffff00+i))
				}
				return append(b, 1, 2, 3)
			}},
		{Name: "storage/timeindex-absurd" + seg + ".log", Mode: Storage,
			Attacks: "the segment beside timeindex-absurd's .timeindex: one small batch",
			Expect:  Expect{Says: `"batches":1`, Survive: true},
			gen:     func() []byte { return append([]byte(nil), smallBatch...) }},
		{Name: "storage/txnindex-bad" + seg + ".txnindex", Mode: Storage,
			Attacks: "a .txnindex of 5,000 entries at version -1 whose first offsets pass their last, and a partial entry",
			Expect:  Expect{Says: "version -1, not 0", Survive: true},
			gen: func() []byte {
				var b []byte
				for i := 0; i < 5000; i++ {
					b = be64(be64(be64(be64(be16(b, -1), int64(i)), 1<<62), 0), -1)
				}
				return append(b, 0, 0, 0)
			}},
		{Name: "storage/snapshot-count-max/" + segmentName + ".snapshot", Mode: Storage,
			Attacks: "a producer snapshot declaring 2,147,483,647 producers and holding two (allocation by declared count)",
			Expect:  Expect{Says: `"error"`, Survive: true},
			gen: func() []byte {
				return producerSnapshot(append(be32(nil, 0x7fffffff), make([]byte, 2*46)...))
			}},
		{Name: "storage/snapshot-crc-bad/" + segmentName + ".snapshot", Mode: Storage,
			Attacks: "a producer snapshot whose CRC does not match its bytes",
			Expect:  Expect{Says: `"crcValid":false`, Survive: true},
			gen: func() []byte {
				b := producerSnapshot(append(be32(nil, 1), make([]byte, 46)...))
				b[3] ^= 0xff
				return b
			}},
		{Name: "storage/checkpoint-count-absurd/leader-epoch-checkpoint", Mode: Storage,
			Attacks: "a leader-epoch-checkpoint declaring 2,147,483,647 entries and holding two",
			Expect:  Expect{Says: "says 2147483647 entries; the file has 2", Survive: true},
			gen:     func() []byte { return []byte("0\n2147483647\n0 0\n1 10\n") }},
		{Name: "storage/checkpoint-cyclic/leader-epoch-checkpoint", Mode: Storage,
			Attacks: "a leader-epoch-checkpoint whose epochs and start offsets cycle back (5000 lines)",
			Expect:  Expect{Says: "is not above the line before", Survive: true},
			gen: func() []byte {
				var b strings.Builder
				b.WriteString("0\n5000\n")
				for i := 0; i < 5000; i++ {
					b.WriteString(strconv.Itoa(i%3) + " " + strconv.Itoa(i%3*10) + "\n")
				}
				return []byte(b.String())
			}},
		{Name: "storage/checkpoint-long-line/recovery-point-offset-checkpoint", Mode: Storage,
			Attacks: "an offset checkpoint whose one entry is a 200 KB line",
			Expect:  Expect{Says: "longer than", Survive: true},
			gen:     func() []byte { return []byte("0\n1\n" + strings.Repeat("t", 200<<10) + " 0 1\n") }},
		{Name: "storage/meta-properties-garbage/meta.properties", Mode: Storage,
			Attacks: "a meta.properties of binary garbage",
			Expect:  Expect{Says: "key=value|no version", Survive: true},
			gen:     func() []byte { return repeat([]byte{0, 0xff, 0x3d, 0x0a, 0x80}, 2000) }},
		{Name: "storage/quorum-state-deep/quorum-state", Mode: Storage,
			Attacks: "a quorum-state of 100,000 nested JSON arrays",
			Expect:  Expect{Says: "not JSON", Survive: true},
			gen:     func() []byte { return []byte(strings.Repeat("[", 100000) + strings.Repeat("]", 100000)) }},
		{Name: "storage/partition-metadata-garbage/partition.metadata", Mode: Storage,
			Attacks: "a partition.metadata of 100 KB on one line",
			Expect:  Expect{Says: "expected two lines", Survive: true},
			gen:     func() []byte { return []byte(strings.Repeat("version: 0 ", 10000)) }},
		{Name: "storage/kraft-snapshot-unframed/00000000000000000010-0000000001.checkpoint", Mode: Storage,
			Attacks: "a KRaft snapshot of 2,000 data batches with no header or footer control records",
			Expect:  Expect{Says: "does not start with a SnapshotHeaderRecord", Survive: true},
			gen:     func() []byte { return repeat(smallBatch, 2000) }},
		{Name: "storage/kraft-snapshot-two-footers/00000000000000000010-0000000001.checkpoint", Mode: Storage,
			Attacks: "a KRaft snapshot with a header, then footer, data, footer (records after the end)",
			Expect:  Expect{Says: "a batch after the SnapshotFooterRecord", Survive: true},
			gen: func() []byte {
				head := controlBatch(3, be64(be16(be16(nil, 0), 0), 1700000000000)) // value version, Version, LastContainedLogTimestamp
				foot := controlBatch(4, be16(be16(nil, 0), 0))
				return concat(head, foot, smallBatch, foot)
			}},
		{Name: "storage/__consumer_offsets-0/" + segmentName + ".log", Mode: Storage,
			Attacks: "__consumer_offsets records lying about counts: a GroupMetadataValue declaring 2,147,483,647 members, an OffsetCommitKey whose group length is 32,767, an unknown record type",
			Expect:  Expect{Says: `"error"`, Survive: true},
			gen: func() []byte {
				gk := str16(be16(nil, 2), "g")
				gv := str16(be16(nil, 3), "consumer")          // version 3, protocolType
				gv = be16(be16(be32(gv, 0), -1), -1)           // generation, null protocol, null leader
				gv = be32(be64(gv, 1700000000000), 0x7fffffff) // currentStateTimestamp, members
				ok := be16(be16(nil, 1), 0x7fff)
				recs := concat(record(0, 0, gk, gv), record(0, 1, ok, be16(nil, 3)), record(0, 2, be16(nil, 999), nil))
				return batch(0, 2, 3, recs)
			}},
		{Name: "storage/__cluster_metadata-0/" + segmentName + ".log", Mode: Storage,
			Attacks: "__cluster_metadata records with overlong varints in their frame, frame version 0, an apiKey no schema has, and a TopicRecord whose name declares 2 GiB",
			Expect:  Expect{Says: `"error"`, Survive: true},
			gen: func() []byte {
				recs := concat(
					record(0, 0, nil, []byte{0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0}),
					record(0, 1, nil, []byte{0, 2, 0}),
					record(0, 2, nil, []byte{1, 0x7f, 0}),
					record(0, 3, nil, append([]byte{1, 2, 0}, 0xff, 0xff, 0xff, 0x7f)))
				return batch(0, 3, 4, recs)
			}},
	}
}
