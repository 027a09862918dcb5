package storage

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/wire"
)

// FileKind is which of Kafka's files a file is, by its name.
type FileKind uint8

// The kinds of file KindOf tells apart, by name.
const (
	// UnknownFile is a name that is none of Kafka's files below.
	UnknownFile           FileKind = iota
	SegmentFile                    // 00000000000000000000.log
	OffsetIndexFile                // .index
	TimeIndexFile                  // .timeindex
	TxnIndexFile                   // .txnindex
	ProducerSnapshotFile           // <offset>.snapshot
	KRaftSnapshotFile              // <endOffset>-<epoch>.checkpoint, bootstrap.checkpoint
	LeaderEpochFile                // leader-epoch-checkpoint
	OffsetCheckpointFile           // recovery-point-offset-checkpoint and the others
	PartitionMetadataFile          // partition.metadata
	MetaPropertiesFile             // meta.properties
	QuorumStateFile                // quorum-state
)

var fileKindNames = [...]string{"unknown", "segment", "index", "timeindex", "txnindex", "producer-snapshot", "kraft-snapshot",
	"leader-epoch-checkpoint", "offset-checkpoint", "partition-metadata", "meta-properties", "quorum-state"}

// String names the kind in a word or two ("segment", "index",
// "producer-snapshot", ...): "unknown" for UnknownFile or a value past
// the last kind.
func (k FileKind) String() string {
	if int(k) < len(fileKindNames) {
		return fileKindNames[k]
	}
	return "unknown"
}

// Named is what a file's name says: its kind, the offset its name holds
// (segment files' base offset, a snapshot's offset, a KRaft snapshot's end
// offset; -1 otherwise), a KRaft snapshot's epoch, and the suffix Kafka
// adds to files being deleted, cleaned, swapped or written (".deleted",
// ".cleaned", ".swap", ".part"), or "".
type Named struct {
	Kind   FileKind
	Offset int64
	Epoch  int32
	Suffix string
}

// SegmentHeadLen is how many of a file's first bytes SegmentHead reads.
const SegmentHeadLen = entryHead + 5

// SegmentHead reports whether head, a file's first SegmentHeadLen bytes,
// starts a segment's entry: a length no entry is shorter than and a magic
// byte from 0 to 2. It tells a segment by its bytes when its name is not
// Kafka's (KindOf says UnknownFile); an index's entries can pass it, so
// bytes that must be a segment are read whole too (a CRC that matches).
func SegmentHead(head []byte) bool {
	if len(head) < SegmentHeadLen {
		return false
	}
	length := int32(binary.BigEndian.Uint32(head[8:]))
	return length >= 14 && head[16] <= 2
}

// KindOf recognises a file by its base name, as Kafka names them
// (LogFileUtils, Snapshots, CheckpointFile users).
func KindOf(name string) Named {
	n := Named{Offset: -1}
	for _, s := range [...]string{".deleted", ".cleaned", ".swap", ".part"} {
		if base, ok := strings.CutSuffix(name, s); ok {
			name, n.Suffix = base, s
			break
		}
	}
	switch name {
	case "leader-epoch-checkpoint":
		n.Kind = LeaderEpochFile
	case "recovery-point-offset-checkpoint", "replication-offset-checkpoint", "log-start-offset-checkpoint", "cleaner-offset-checkpoint":
		n.Kind = OffsetCheckpointFile
	case "partition.metadata":
		n.Kind = PartitionMetadataFile
	case "meta.properties":
		n.Kind = MetaPropertiesFile
	case "quorum-state":
		n.Kind = QuorumStateFile
	case "bootstrap.checkpoint":
		n.Kind = KRaftSnapshotFile
	}
	if n.Kind != UnknownFile {
		return n
	}
	stem, ext, ok := strings.Cut(name, ".")
	if !ok {
		return n
	}
	kinds := map[string]FileKind{"log": SegmentFile, "index": OffsetIndexFile, "timeindex": TimeIndexFile, "txnindex": TxnIndexFile, "snapshot": ProducerSnapshotFile}
	if k, ok := kinds[ext]; ok && len(stem) == 20 {
		if off, err := strconv.ParseInt(stem, 10, 64); err == nil {
			n.Kind, n.Offset = k, off
		}
		return n
	}
	if ext == "checkpoint" {
		off, ep, ok := strings.Cut(stem, "-")
		o, err1 := strconv.ParseInt(off, 10, 64)
		e, err2 := strconv.ParseInt(ep, 10, 32)
		if ok && len(off) == 20 && len(ep) == 10 && err1 == nil && err2 == nil {
			n.Kind, n.Offset, n.Epoch = KRaftSnapshotFile, o, int32(e)
		}
	}
	return n
}

// PartitionDir reads a partition directory's name, <topic>-<partition>,
// as Kafka names them (a directory being deleted or moved ends in
// ".<id>-delete" or ".<id>-future", the topic and partition before it).
func PartitionDir(name string) (topic string, partition int32, ok bool) {
	if dot := strings.LastIndexByte(name, '.'); dot > 0 && (strings.HasSuffix(name, "-delete") || strings.HasSuffix(name, "-future") || strings.HasSuffix(name, "-stray")) {
		name = name[:dot]
	}
	dash := strings.LastIndexByte(name, '-')
	if dash <= 0 {
		return "", 0, false
	}
	p, err := strconv.ParseInt(name[dash+1:], 10, 32)
	if err != nil || p < 0 {
		return "", 0, false
	}
	return name[:dash], int32(p), true
}

// ControlTypes lists the control record types (the int16 after the key's
// version: ControlRecordType) of an uncompressed control batch's records,
// in order, reading at most max of them. Broken records end the list.
func ControlTypes(b *Batch, max int) []int16 {
	if b.Magic != 2 || !b.Control || b.Compression != 0 || len(b.Bytes) < 61 {
		return nil
	}
	var out []int16
	p := b.Bytes[61:]
	for len(p) > 0 && len(out) < max {
		length, n, _ := wire.Varint(p)
		if n <= 0 || length < 0 || int(length) > len(p)-n {
			break
		}
		rec := p[n : n+int(length)]
		p = p[n+int(length):]
		// attributes int8, timestampDelta varlong, offsetDelta varint, key
		if len(rec) < 1 {
			break
		}
		q := rec[1:]
		_, m, _ := wire.Varlong(q)
		if m <= 0 {
			break
		}
		q = q[m:]
		_, m, _ = wire.Varint(q)
		if m <= 0 {
			break
		}
		q = q[m:]
		kl, m, _ := wire.Varint(q)
		if m <= 0 || kl < 4 || int(kl) > len(q)-m {
			break
		}
		out = append(out, int16(binary.BigEndian.Uint16(q[m+2:])))
	}
	return out
}

// Control record types (ControlRecordType) a KRaft snapshot is framed by.
const (
	controlSnapshotHeader = 3
	controlSnapshotFooter = 4
)

// SnapshotCheck checks a KRaft snapshot's framing while its batches are
// read (Snapshots, RecordsSnapshotWriter): the first batch is a control
// batch starting with a SnapshotHeaderRecord, the last one a control batch
// with a SnapshotFooterRecord, and neither appears anywhere else.
type SnapshotCheck struct {
	Problems []string
	n        int
	footerAt int64 // position of a footer seen, -1 when none
	last     []int16
}

// NewSnapshotCheck starts checking a snapshot.
func NewSnapshotCheck() *SnapshotCheck { return &SnapshotCheck{footerAt: -1} }

// Batch checks the next batch.
func (c *SnapshotCheck) Batch(b *Batch) {
	types := ControlTypes(b, 16)
	at := " (position " + strconv.FormatInt(b.Position, 10) + ")"
	if c.n == 0 && (len(types) == 0 || types[0] != controlSnapshotHeader) {
		c.Problems = append(c.Problems, "the first batch does not start with a SnapshotHeaderRecord control record"+at)
	}
	if c.footerAt >= 0 {
		c.Problems = append(c.Problems, "a batch after the SnapshotFooterRecord at position "+strconv.FormatInt(c.footerAt, 10)+at)
		c.footerAt = -2
	}
	for i, t := range types {
		if t == controlSnapshotHeader && (c.n > 0 || i > 0) {
			c.Problems = append(c.Problems, "a SnapshotHeaderRecord after the first record"+at)
		}
		if t == controlSnapshotFooter && c.footerAt == -1 {
			c.footerAt = b.Position
		}
	}
	c.n++
}

// End checks the snapshot's end.
func (c *SnapshotCheck) End() {
	if c.n == 0 {
		c.Problems = append(c.Problems, "no batches: a snapshot has at least its header and footer")
	} else if c.footerAt == -1 {
		c.Problems = append(c.Problems, "no SnapshotFooterRecord: the snapshot is incomplete")
	}
}
