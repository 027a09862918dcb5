package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"strconv"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// A .log segment is record batches one after another, nothing else
// (Kafka's LogSegment and FileRecords): each entry starts with an int64
// offset and an int32 length of the bytes after it, and its magic byte
// (0 and 1: the legacy message sets, 2: record batches) sits at byte 16.
// A segment is read as a stream, one entry at a time, so memory stays
// that of the largest entry read (at most MaxBatch; longer ones are
// streamed past) and of one decompression (at most MaxDecompressed, for
// what a header does not say: a legacy wrapper's messages, a compacted
// batch's first timestamp), whatever the file's size.

const (
	entryHead = 12 // offset int64 + length int32
	magicAt   = 16
	// Kafka's smallest entries, counted after the length: a legacy message
	// v0 (crc, magic, attributes, key and value lengths) and v1 (and a
	// timestamp), and a record batch's header.
	minMessageV0 = 14
	minMessageV1 = 22
	minBatch     = 49

	// DefaultMaxBatch is the largest entry Segment reads unless told
	// otherwise: far past Kafka's default message.max.bytes (1 MiB), and
	// what a hostile length may make it hold.
	DefaultMaxBatch = 64 << 20
	// DefaultMaxDecompressed bounds what one batch's decompression may
	// produce (the batch's own budget).
	DefaultMaxDecompressed = 32 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// SegmentOptions say how to read a segment.
type SegmentOptions struct {
	// Topic is the partition's topic: the records of Kafka's internal
	// topics (schema.InternalTopicByName) have their keys and values
	// decoded (DecodeTopicRecord).
	Topic string
	// Kafka leaves internal topics' keys and values as bytes.
	Kafka bool
	// MaxBatch is the largest entry read (DefaultMaxBatch when 0): a
	// longer one is skipped by its length and said to be.
	MaxBatch int
	// MaxDecompressed bounds what decompressing one batch may produce
	// (DefaultMaxDecompressed when 0): past it, its records stay
	// compressed, with a warning.
	MaxDecompressed int
	// MaxNodes bounds the nodes the decoding of one entry counts (the
	// records package's default when 0: 2 per byte of the entry plus
	// 2^20), so that what a batch declares cannot grow a tree: past it,
	// the entry's records are left undecoded from there, with a limit
	// warning. A tree drawn for people (Decode) wants fewer.
	MaxNodes int
	// Payload, when set, reads the keys and values of an ordinary topic's
	// records for what they carry (codec/payload's Decoder.Decode: text,
	// JSON, the schema registry's framing, Avro, Protobuf, JSON Schema),
	// told Topic, as codec.Options.Payload does in frames.
	Payload func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node)
	// Index, when set, gives the positions the segment's .index names
	// (NewIndexPositions over a reader of its own, not the one an
	// IndexCheck reads): where an entry's CRC fails and a batch whose CRC
	// holds starts inside it, a position named inside the entry says its
	// length is corrupt, one named where it ends that its length is
	// right (and the batch inside is stored in its bytes).
	Index *IndexPositions
}

// IndexPositions reads the positions an .index names for a Segment
// (SegmentOptions.Index): a resync asks where the next entry the index
// names after a position starts. Made by an IndexCheck (Positions), it
// reads the check's own entries, so the file is read once: the entries it
// reads ahead of the check are held for the check, at most
// MaxIndexAhead of them. Made alone (NewIndexPositions), it reads an
// index of its own, forward only. Either way the entries it looks at are
// charged to the resync's budget (indexEntryCost each, what the index
// holds of them), and its positions end at the first zero entry after
// entry 0 (preallocated space, or an index out of order): an enormous or
// hostile .index costs what the segment's damage allows, not its size.
// Where it could not answer within those limits, the resync goes on as
// without an index, and Note says so.
type IndexPositions struct {
	x          *IndexReader
	c          *IndexCheck
	next, last int64
	held, done bool
	// limited counts the resyncs that could not consult the index;
	// limitedAt and limitedWhy are the first's position and why.
	limited    int
	limitedAt  int64
	limitedWhy string
}

// MaxIndexAhead is the most .index entries an IndexPositions made by an
// IndexCheck holds for it, read ahead of the check.
const MaxIndexAhead = 1024

// indexEntryCost is what looking at an .index entry costs a resync's
// budget: its bytes.
const indexEntryCost = 8

// NewIndexPositions reads the positions of the .index x reads, an index
// read for nothing else (an IndexCheck of the same file gives them
// without reading it again: Positions).
func NewIndexPositions(x *IndexReader) *IndexPositions { return &IndexPositions{x: x, last: -1} }

// Positions gives the positions of the .index the check reads, for a
// Segment (SegmentOptions.Index) read with the check: nil when the check
// is not of an .index.
func (c *IndexCheck) Positions() *IndexPositions {
	if c.x.kind != OffsetIndex {
		return nil
	}
	return &IndexPositions{c: c, last: -1}
}

// After is the first position past pos the index names, false when it
// names none (or could not be read further). Positions asked for must
// rise. Nothing is charged: a Segment calls after.
func (p *IndexPositions) After(pos int64) (int64, bool) {
	at, st := p.after(pos, func(int64) bool { return true })
	return at, st == indexFound
}

// The answers of after.
const (
	indexNone    = iota // the index names no position past pos
	indexFound          // the position
	indexLimited        // reading the index further would pass the resync's budget
	indexAhead          // an IndexCheck's entries held ahead of it would pass MaxIndexAhead
)

// after is the first position past pos the index names (indexFound),
// each entry looked at paid for with spend, which says false when the
// budget cannot pay: indexLimited then, as when a check's entries to
// hold ahead of it would pass MaxIndexAhead (indexAhead).
func (p *IndexPositions) after(pos int64, spend func(int64) bool) (int64, int) {
	if p.c != nil {
		return p.c.positionAfter(pos, spend)
	}
	for !p.done {
		if !p.held {
			if !spend(indexEntryCost) {
				return 0, indexLimited
			}
			e, err := p.x.Next()
			if err != nil || e.Zero && e.N > 0 {
				p.done = true
				break
			}
			if e.Zero || int64(e.Position) <= p.last {
				continue
			}
			p.next, p.held = int64(e.Position), true
		}
		if p.next > pos {
			return p.next, indexFound
		}
		p.last, p.held = p.next, false
	}
	return 0, indexNone
}

// limit notes that the resync of the entry at pos could not consult the
// index, and why, and returns what a damage message says of it.
func (p *IndexPositions) limit(pos int64, why string) string {
	if p.limited == 0 {
		p.limitedAt, p.limitedWhy = pos, why
	}
	p.limited++
	return "; the .index was not consulted (" + why + "), so the entry was judged as without one"
}

// Note says when resyncs could not consult the index (the entries to read
// would pass the work allowed, or MaxIndexAhead), and went on as without
// one: "" when none.
func (p *IndexPositions) Note() string {
	if p == nil || p.limited == 0 {
		return ""
	}
	what, judged := "the damaged entry", "it was"
	if p.limited > 1 {
		what, judged = strconv.Itoa(p.limited)+" damaged entries, the first", "they were"
	}
	return "the .index was not consulted for " + what + " at " + strconv.FormatInt(p.limitedAt, 10) + ": " + p.limitedWhy +
		"; " + judged + " judged as without an index"
}

// Batch is one entry of a segment: a record batch (magic 2) or a legacy
// message (magic 0 or 1, a compressed wrapper holding many).
type Batch struct {
	Position int64  // where it starts in the segment
	Bytes    []byte // the whole entry; valid until the next call to Next
	Magic    int8
	// BaseOffset and LastOffset are the offsets it holds. A legacy
	// wrapper stores only its last; its base is its first inner
	// message's (decompressed, within MaxDecompressed), or, when that
	// cannot be read, one past the entry before it.
	BaseOffset, LastOffset int64
	// FirstTimestamp is the timestamp of its first record: a batch's base
	// timestamp, its max timestamp under log-append time, the base plus
	// the first record's delta when the delete-horizon attribute is set
	// (the base is the horizon then; -1 when the record cannot be read);
	// a legacy message's own (-1 for magic 0), a wrapper's first inner
	// message's.
	FirstTimestamp int64
	MaxTimestamp   int64 // -1 when the entry has none (magic 0)
	// Records is the batch's record count (its header's); 1 for a plain
	// legacy message; a legacy wrapper's inner messages, 0 when they
	// cannot be decompressed or it was passed over.
	Records                int
	Compression            int // the attributes' codec bits
	Control, Transactional bool
	ProducerID             int64 // -1 for legacy messages
	CRCValid               bool  // the stored CRC matches the bytes (CRC-32C for batches, CRC-32 for messages)
	// Skipped is set when the entry was longer than MaxBatch: it was
	// passed over by its length, and Bytes holds only its first bytes
	// (a batch's 61-byte header and a little more, a legacy message's
	// header), which the fields above describe. Its CRC was computed as
	// it streamed past and matched (one that did not, or inside which a
	// batch whose CRC holds starts, is a corrupt length: a DamageError,
	// or a TailError when no batch follows; see skip).
	Skipped bool
	// Searched is set on the entry a resync found (the first after a
	// DamageError): its position came from searching the bytes after the
	// damage for a header whose CRC holds, not from following the lengths
	// of the entries before it. A batch stored inside a damaged entry's
	// bytes (a record whose value is itself a batch, as MirrorMaker or a
	// copied log may hold) passes that search too; the entries after it,
	// reached by its length, are what confirm it, and a damaged region
	// right after it says when none does.
	Searched bool
}

// Size is the entry's length in the segment.
func (b *Batch) Size() int64 { return entryHead + int64(binary.BigEndian.Uint32(b.Bytes[8:12])) }

// TailError ends a segment whose last bytes are not a whole entry: cut
// short (torn: the broker stopped while writing, or the file is being
// written), corrupt (a length or magic byte no entry has), or zeros to the
// end (Zero: space preallocated and never written, as a broker with
// file.preallocate leaves its active segment after a crash; not damage).
// What was read before it is good.
//
// A torn tail is a partial write: an entry whose header is there, its
// length one a segment can hold, cut short by the end of the input. An
// entry whose length no segment can hold (past 2^31-1 bytes from the
// segment's start: Kafka's positions are int32), or whose bytes after its
// length are zeros to the end (a write puts the CRC and magic byte that
// follow a length with it: what is left is damage, or preallocated space
// a stray length lies in), is a corrupt tail, not a torn one. ZeroFrom
// says where the zeros that end the input start, in every case.
//
// In a segment preallocated with zeros (file.preallocate) a partial write
// does not end the file: what was written of the last entry is followed
// by the zeros it was to overwrite, to the end. So an entry whose CRC
// fails, whose header is plausible and written (bytes other than zeros
// after it), whose last 12 bytes or more are zeros, and after which every
// byte to the end of the input is a zero (one at least), is a torn tail
// too, not an entry with a wrong CRC and a tail of zeros after it:
// ZeroFrom is where what was written of it ends. So is such an entry
// longer than MaxBatch, its CRC computed as it streams past.
type TailError struct {
	Position int64  // where the tail starts
	Size     int64  // its bytes, up to the end of the input
	Torn     bool   // cut short, rather than corrupt
	Zero     bool   // every byte of it is zero: preallocated space, neither torn nor corrupt
	Msg      string // what was found
	Batches  int64  // entries read before it
	// ZeroFrom is where the zeros that end the tail start: Position when
	// every byte is zero, Position+Size when its last byte is not.
	ZeroFrom int64
}

// Error says what the tail is (torn, corrupt or zero-filled), where it
// starts, its size, how many entries came before it, and what was found.
func (e *TailError) Error() string {
	kind := "corrupt"
	if e.Torn {
		kind = "torn"
	} else if e.Zero {
		kind = "zero-filled"
	}
	return "storage: " + kind + " tail at position " + strconv.FormatInt(e.Position, 10) + " (" + strconv.FormatInt(e.Size, 10) +
		" bytes, after " + strconv.FormatInt(e.Batches, 10) + " entries): " + e.Msg
}

// DamageError is a damaged region inside a segment: bytes from Position
// that are no entry (a corrupt length or magic byte, a batch whose length
// runs past the bytes that follow it or whose CRC fails because of it),
// with whole batches after them. Next reports it, then reads on from
// Resume, the next position where an entry's header is plausible and its
// CRC holds: a record batch, or a legacy message of magic 0 or 1 (a
// broker before 0.11 wrote them), so that damage in a segment of an old
// broker resumes at the next message, not at the first batch. Unlike a
// TailError it does not end the segment: a torn write can only be at the
// end of a file.
type DamageError struct {
	Position int64  // where the damage starts
	Size     int64  // its bytes, up to Resume
	Msg      string // what was found at Position
	Batches  int64  // entries read before it
}

// Resume is where reading resumed: the batch after the damage.
func (e *DamageError) Resume() int64 { return e.Position + e.Size }

// Error says which bytes are no batch, why, and where reading resumed.
func (e *DamageError) Error() string {
	return "storage: " + e.Text()
}

// Text is Error without its "storage: " prefix.
func (e *DamageError) Text() string {
	return "bytes " + strconv.FormatInt(e.Position, 10) + "-" + strconv.FormatInt(e.Resume()-1, 10) + " (" + strconv.FormatInt(e.Size, 10) +
		" bytes, after " + strconv.FormatInt(e.Batches, 10) + " entries) are no batch: " + e.Msg + "; read resumed at " +
		strconv.FormatInt(e.Resume(), 10) + ", the next entry whose CRC holds"
}

// Segment reads a segment's entries one at a time.
type Segment struct {
	r        io.Reader
	o        SegmentOptions
	pos      int64
	buf      []byte
	batches  int64
	prevLast int64
	done     bool
	// back holds bytes read from r and given back by a resync:
	// back[backAt:] are read before r. What is given back again goes in
	// front of them, into back[:backAt] where it fits (it does when it
	// was read from there), so that giving back costs what is given, not
	// what back holds besides.
	back   []byte
	backAt int
	// owed is a count of zeros read before back (tornInZeros read them
	// ahead, found they do not reach the end, and gave them back), and
	// zbuf the memory it read them into.
	owed int64
	zbuf []byte
	// goodLast is the last offset of the last entry whose CRC held: a
	// resync takes no entry below it.
	goodLast int64
	// budget is the bytes a resync may still read ahead for candidates
	// and compute CRCs of: MaxBatch to start with, and resyncCRCPerByte
	// more for every position scanned, so that a file of candidate
	// headers costs linear work.
	budget int64
	// resyncCRC counts the CRC bytes resyncs computed, looked the
	// positions a scan judged one at a time.
	resyncCRC, looked int64
	// indexRead is what looking at .index entries cost resyncs;
	// indexMiss what the last stored says of an index it could not
	// consult ("" when none).
	indexRead int64
	indexMiss string
	// unchecked counts the candidates the search under way passed over
	// unchecked, their key or CRC costing more than the budget held then;
	// uncheckedAt and uncheckedWork are the first's position and what it
	// would have cost.
	unchecked     int
	uncheckedAt   int64
	uncheckedWork string
	bufAt         int64 // where s.buf starts during a scan
	// dropNZ is where the bytes a scan dropped (from where it started to
	// s.bufAt) stop being zeros to their end: the position after the last
	// byte of them that is not zero, the scan's start when none is.
	dropNZ int64
	dec    decoding
	// resumed is set by a DamageError: the next entry was found by a
	// search (Batch.Searched). searchedEnd is where the last entry so
	// found ends, and searchedFloor goodLast before it: damage right
	// after it means nothing confirms it, and its offsets are then no
	// floor for the next search (a batch stored inside a damaged entry's
	// bytes may carry any offsets, and would hide every later batch).
	resumed       bool
	searchedAt    int64
	searchedEnd   int64
	searchedFloor int64
	// inflated is the memory describe decompresses a legacy wrapper's
	// messages (or a batch's first record) into, reused.
	inflated []byte
	// head holds the first bytes of an entry passed over for its size
	// (skip): Batch.Bytes.
	head []byte
}

// NewSegment reads the segment r. Reads are the caller's to buffer.
func NewSegment(r io.Reader, o SegmentOptions) *Segment {
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.MaxDecompressed <= 0 {
		o.MaxDecompressed = DefaultMaxDecompressed
	}
	return &Segment{r: r, o: o, prevLast: -1, goodLast: -1, budget: int64(o.MaxBatch), searchedEnd: -1}
}

// resyncCRCPerByte is how many CRC bytes a resync may compute per byte it
// scans, beyond the MaxBatch it starts with.
const resyncCRCPerByte = 8

// src reads what a resync gave back, then the segment's reader.
type src struct{ s *Segment }

func (r src) Read(p []byte) (int, error) {
	if r.s.owed > 0 {
		n := int(min(int64(len(p)), r.s.owed))
		clear(p[:n])
		r.s.owed -= int64(n)
		return n, nil
	}
	if r.s.backAt < len(r.s.back) {
		n := copy(p, r.s.back[r.s.backAt:])
		r.s.backAt += n
		return n, nil
	}
	return r.s.r.Read(p)
}

// giveBack returns s.buf[from:] to be read again.
func (s *Segment) giveBack(from int) {
	rest := s.buf[from:]
	if len(rest) == 0 {
		return
	}
	switch {
	case s.owed > 0 && allZero(rest):
		// Read from the zeros owed: owed again.
		s.owed += int64(len(rest))
	case s.owed > 0:
		// Not read from them (no caller does this): they go behind.
		owed := s.owed
		s.owed = 0
		s.unread(make([]byte, owed))
		s.unread(rest)
	default:
		s.unread(rest)
	}
	s.pos -= int64(len(rest))
	s.buf = s.buf[:from]
}

// unread puts p in front of what is read next, after the zeros owed.
func (s *Segment) unread(p []byte) {
	if len(p) <= s.backAt {
		s.backAt -= len(p)
		copy(s.back[s.backAt:], p)
	} else {
		left := s.back[s.backAt:]
		back := make([]byte, len(p)+len(left))
		copy(back[copy(back, p):], left)
		s.back, s.backAt = back, 0
	}
}

// Position is how far the segment has been read.
func (s *Segment) Position() int64 { return s.pos }

// Next returns the next entry, io.EOF after the last, or a *TailError
// when the bytes after the last whole entry are not one (after which it
// returns io.EOF). Other errors are the reader's.
func (s *Segment) Next() (*Batch, error) {
	if s.done {
		return nil, io.EOF
	}
	start := s.pos
	searched := s.resumed
	s.resumed = false
	s.buf = s.buf[:0]
	n, err := s.fill(entryHead + 5)
	if n == 0 && errors.Is(err, io.EOF) {
		s.done = true
		return nil, io.EOF
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if n < entryHead {
		return nil, s.tail(start, true, -1, strconv.Itoa(n)+" bytes, less than an entry's offset and length (12)")
	}
	length := int64(int32(binary.BigEndian.Uint32(s.buf[8:12])))
	if length < minMessageV0 {
		return nil, s.resync(start, false, -1, "length "+strconv.FormatInt(length, 10)+", less than the smallest entry ("+strconv.Itoa(minMessageV0)+")")
	}
	if n < entryHead+5 {
		return nil, s.tail(start, true, length, "the entry declares "+strconv.FormatInt(length, 10)+" bytes after its length; "+strconv.Itoa(n-entryHead)+" are there")
	}
	magic := int8(s.buf[magicAt])
	if magic < 0 || magic > 2 {
		msg := "magic byte " + strconv.Itoa(int(magic)) + ", not 0, 1 or 2"
		// Its length first: when it leads to an entry whose CRC holds,
		// the damage is this entry, and a batch stored inside its bytes
		// is not searched for.
		if at, err := s.byLength(start, length); err != nil {
			return nil, err
		} else if at >= 0 {
			err := s.damage(start, at, "at "+strconv.FormatInt(start, 10)+", "+msg+"; its length ("+strconv.FormatInt(length, 10)+
				") leads to an entry whose CRC holds"+s.suspect(start))
			s.resumed = false // reached by a length, not a search
			return nil, err
		}
		return nil, s.resync(start, false, -1, msg)
	}
	if length < least[magic] {
		return nil, s.resync(start, false, -1, "length "+strconv.FormatInt(length, 10)+", less than the smallest magic "+strconv.Itoa(int(magic))+" entry ("+strconv.FormatInt(least[magic], 10)+")")
	}
	b := &Batch{Position: start, Magic: magic, Searched: searched}
	if length > int64(s.o.MaxBatch) {
		return s.skip(b, length)
	}
	if n, err = s.fill(entryHead + int(length)); err != nil {
		if !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, s.resync(start, true, length, "the entry declares "+strconv.FormatInt(length, 10)+" bytes after its length; "+strconv.Itoa(n-entryHead)+" are there")
	}
	b.CRCValid = entryCRC(b.Magic, s.buf[crcFrom(b.Magic):], 0) == storedCRC(b.Magic, s.buf)
	if !b.CRCValid {
		// A corrupt length that stays inside the file: the entry swallows
		// the entries after it. One whose CRC holds starting inside it
		// says so, unless the log confirms the length (stored); otherwise
		// it is an entry with a wrong CRC.
		size := len(s.buf)
		if !fills(magic, s.buf) {
			if at, err := s.scan(start, size); err != nil {
				return nil, err
			} else if at >= 0 {
				if in, err := s.stored(start, at, size); err != nil {
					return nil, err
				} else if !in {
					stored, computed := storedCRC(magic, s.buf), entryCRC(magic, s.buf[crcFrom(magic):size], 0)
					s.giveBack(int(at - start))
					return nil, s.damage(start, at, "the "+[...]string{"message", "message", "batch"}[magic]+" at "+strconv.FormatInt(start, 10)+" declares "+strconv.FormatInt(length, 10)+
						" bytes after its length and its CRC does not match them (stored "+hex32(stored)+", computed "+hex32(computed)+")"+s.suspect(start)+s.indexMiss)
				}
			}
		}
		s.giveBack(size)
		if err := s.tornInZeros(start, size); err != nil {
			return nil, err
		}
	}
	b.Bytes = s.buf
	s.describe(b)
	s.found(b)
	if b.CRCValid {
		s.goodLast = b.LastOffset
	}
	s.batches++
	return b, nil
}

// tornInZeros is the *TailError of the entry s.buf holds (size bytes from
// start, its CRC wrong) when it is a write cut short in a segment
// preallocated with zeros: its header is plausible (after the last entry
// whose CRC held) and written (bytes other than zeros follow it), its
// last bytes, at least entryHead of them (fewer are the ordinary end of a
// record: no headers, a 0), are zeros, and so is every byte after it to
// the end of the input, one at least (the space preallocated). The zeros after it are read ahead to
// find that out, and when they do not reach the end they are owed back
// (counted, not held: a preallocated segment's are a gigabyte), the byte
// after them given back; nil then. Reading them ahead costs what reading
// on would.
func (s *Segment) tornInZeros(start int64, size int) error {
	j := lastNonZero(s.buf[:size])
	magic := int8(s.buf[magicAt])
	head := candidateHead[magic]
	if j < head || size-1-j < entryHead || !plausibleHeader(magic, s.buf[:head], int64(size-entryHead), s.goodLast) {
		return nil
	}
	if s.zbuf == nil {
		s.zbuf = make([]byte, zeroChunk)
	}
	var zeros int64
	for chunk := 64; ; chunk = min(2*chunk, len(s.zbuf)) {
		p := s.zbuf[:chunk]
		n, err := io.ReadFull(src{s}, p)
		k := zeroPrefix(p[:n])
		zeros += int64(k)
		if k < n {
			s.unread(p[k:n])
			s.owed += zeros
			return nil
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				return err
			}
			break
		}
	}
	if zeros == 0 {
		return nil // no preallocated space after it
	}
	length := int64(size - entryHead)
	stored, computed := storedCRC(magic, s.buf), entryCRC(magic, s.buf[crcFrom(magic):size], 0)
	s.pos += zeros
	s.done = true
	te := &TailError{Position: start, Size: int64(size) + zeros, Torn: true, Batches: s.batches, ZeroFrom: start + int64(j) + 1}
	te.Msg = "the " + [...]string{"message", "message", "batch"}[magic] + " declares " + strconv.FormatInt(length, 10) +
		" bytes after its length and its CRC does not match them (stored " + hex32(stored) + ", computed " + hex32(computed) + "); its last " +
		strconv.Itoa(size-1-j) + " bytes are zeros, and so are the " + strconv.FormatInt(zeros, 10) + " after it, to the end of the input: a write cut short, the rest of the entry never written over space preallocated with zeros" +
		"; bytes " + strconv.FormatInt(te.ZeroFrom, 10) + "-" + strconv.FormatInt(s.pos-1, 10) + " (" + strconv.FormatInt(s.pos-te.ZeroFrom, 10) + " bytes) are zeros to the end"
	return te
}

// found notes where an entry a search found (b.Searched) ends, and the
// offsets' floor before it (suspect).
func (s *Segment) found(b *Batch) {
	if b.Searched {
		s.searchedAt, s.searchedEnd, s.searchedFloor = b.Position, b.Position+b.Size(), s.goodLast
	}
}

// suspect is said of damage starting at start: when it starts where an
// entry found by a search ends, nothing confirms that entry (it may be a
// batch stored inside a damaged entry's bytes), and its offsets are no
// longer the floor a search takes candidates above.
func (s *Segment) suspect(start int64) string {
	if start != s.searchedEnd {
		return ""
	}
	s.searchedEnd = -1
	s.goodLast = s.searchedFloor
	return "; the entry before it, at " + strconv.FormatInt(s.searchedAt, 10) + ", was found by searching and no entry follows it: it may be a batch stored inside a damaged entry's bytes"
}

// least is the smallest length an entry of each magic declares.
var least = [...]int64{minMessageV0, minMessageV1, minBatch}

// fills says whether the entry p (all of it) is its records exactly, so
// that its length is right whatever its CRC says: an uncompressed
// batch's records, as many as its header counts, each as long as its
// length says, end where it ends; a legacy message's key and value fill
// it. A compressed batch's records say nothing before they are
// decompressed.
func fills(magic int8, p []byte) bool {
	if magic < 2 {
		head := candidateHead[magic]
		if len(p) < head {
			return false
		}
		key := legacyKey(p)
		return key >= -1 && int64(head)+max(key, 0)+4 <= int64(len(p)) && legacyFills(p, int64(len(p))-entryHead)
	}
	if len(p) < entryHead+minBatch || binary.BigEndian.Uint16(p[21:])&7 != 0 {
		return false
	}
	count := int64(int32(binary.BigEndian.Uint32(p[57:])))
	at := entryHead + minBatch
	for ; count > 0 && at < len(p); count-- {
		l, n, _ := wire.Varint(p[at:])
		if n <= 0 || l < 0 || int64(len(p)-at-n) < int64(l) {
			return false
		}
		at += n + int(l)
	}
	return count == 0 && at == len(p)
}

// stored says whether the entry whose CRC holds that a search found at
// at, inside the entry at start (s.buf holding its size bytes, its CRC
// wrong), is stored in that entry's bytes (a record's value) rather than
// the next entry of the log after a corrupt length. Following the lengths
// from at (each header plausible after the one before): entries that run
// past the entry's end mean a corrupt length; entries that end where it
// ends, one whose offsets do not come after its own (when its header is
// plausible); entries that stop inside it, one whose length the log
// confirms: the index names where it ends (SegmentOptions.Index), the
// input ends there, or zeros or a plausible header follow it (followed).
// A position the index names inside it means a corrupt length.
func (s *Segment) stored(start, at int64, size int) (bool, error) {
	end := start + int64(size)
	indexed := false
	s.indexMiss = ""
	if s.o.Index != nil {
		spend := func(n int64) bool {
			if n > s.budget {
				return false
			}
			s.budget -= n
			s.indexRead += n
			return true
		}
		switch q, st := s.o.Index.after(start, spend); st {
		case indexFound:
			if q < end {
				return false, nil // by the index, an entry starts inside it
			}
			indexed = q == end // by the index, the next entry starts where it ends
		case indexLimited:
			s.indexMiss = s.o.Index.limit(start, "reading its entries would pass the work a resync is allowed ("+strconv.Itoa(s.o.MaxBatch)+" bytes and "+
				strconv.Itoa(resyncCRCPerByte)+" per byte scanned, an entry costing "+strconv.Itoa(indexEntryCost)+")")
		case indexAhead:
			s.indexMiss = s.o.Index.limit(start, "more than "+strconv.Itoa(MaxIndexAhead)+" of its entries would be held ahead of its check")
		}
	}
	p, last := at, s.goodLast
	for p < end {
		i := int(p - start)
		if i+entryHead+5 > size {
			break
		}
		m := int8(s.buf[i+magicAt])
		l := int64(int32(binary.BigEndian.Uint32(s.buf[i+8:])))
		if m < 0 || m > 2 || l < least[m] || i+candidateHead[m] > size || !plausibleHeader(m, s.buf[i:i+candidateHead[m]], l, last) {
			break
		}
		last = headerLast(m, s.buf[i:])
		p += entryHead + l
	}
	if p > end {
		return false, nil
	}
	magic := int8(s.buf[magicAt])
	if p == end {
		length := int64(size - entryHead)
		return plausibleHeader(magic, s.buf[:candidateHead[magic]], length, s.goodLast) &&
			int64(binary.BigEndian.Uint64(s.buf[at-start:])) <= headerLast(magic, s.buf), nil
	}
	if indexed {
		return true, nil
	}
	return s.followed(size)
}

// headerLast is the last offset the header of the entry p (of magic
// magic) says.
func headerLast(magic int8, p []byte) int64 {
	if magic < 2 {
		return int64(binary.BigEndian.Uint64(p))
	}
	return int64(binary.BigEndian.Uint64(p)) + int64(int32(binary.BigEndian.Uint32(p[23:])))
}

// followed says whether what follows the first size bytes of s.buf (an
// entry starting at s.bufAt) confirms its length: the end of the input,
// zeros (preallocated space), or an entry whose header is plausible. The
// header it reads ahead for is charged to the resync's budget, and given
// back by the caller.
func (s *Segment) followed(size int) (bool, error) {
	if !s.spend(entryHead+minBatch, size, "reading the header after it") {
		return false, nil
	}
	if ok, err := s.has(size + entryHead + 5); err != nil {
		return false, err
	} else if !ok {
		return allZero(s.buf[size:]), nil
	}
	p := s.buf[size:]
	if allZero(p[:entryHead]) {
		return true, nil
	}
	m := int8(p[magicAt])
	l := int64(int32(binary.BigEndian.Uint32(p[8:])))
	if m < 0 || m > 2 || l < least[m] {
		return false, nil
	}
	if ok, err := s.has(size + candidateHead[m]); !ok {
		return false, err
	}
	return plausibleHeader(m, s.buf[size:size+candidateHead[m]], l, s.goodLast), nil
}

// byLength says where the entry at start (its magic byte wrong, s.buf
// holding its first bytes) ends when its length leads to an entry whose
// header is plausible and whose CRC holds: -1 when it does not (or the
// resync's budget cannot pay for reading it). What it read is left in
// s.buf, which then holds the bytes from start on.
func (s *Segment) byLength(start, length int64) (int64, error) {
	if length < minMessageV0 || length > int64(s.o.MaxBatch) {
		return -1, nil
	}
	size := entryHead + int(length)
	s.bufAt = start
	s.unchecked = 0
	if !s.spend(int64(size+entryHead+5), 0, "reading it by its length") {
		return -1, nil
	}
	if ok, err := s.has(size + entryHead + 5); !ok {
		return -1, err
	}
	p := s.buf[size:]
	m := int8(p[magicAt])
	l := int64(int32(binary.BigEndian.Uint32(p[8:])))
	if m < 0 || m > 2 || l < least[m] || l > int64(s.o.MaxBatch) {
		return -1, nil
	}
	if ok, err := s.has(size + candidateHead[m]); !ok {
		return -1, err
	}
	if !plausibleHeader(m, s.buf[size:size+candidateHead[m]], l, s.goodLast) {
		return -1, nil
	}
	cost := entryHead + l - int64(crcFrom(m))
	if !s.spend(cost, size, "its CRC") {
		return -1, nil
	}
	if ok, err := s.has(size + entryHead + int(l)); !ok {
		return -1, err
	}
	p = s.buf[size : size+entryHead+int(l)]
	s.resyncCRC += cost
	if entryCRC(m, p[crcFrom(m):], 0) != storedCRC(m, p) {
		return -1, nil
	}
	s.giveBack(size)
	return start + int64(size), nil
}

// candidateHead is how much of a candidate entry scan judges before
// reading ahead by its length: a legacy message up to its key's length
// (22 bytes for magic 0, 30 for magic 1), a batch's 61-byte header.
var candidateHead = [...]int{entryHead + 10, entryHead + 18, entryHead + minBatch}

// plausibleHeader says whether p, the first candidateHead[magic] bytes of
// an entry declaring length bytes after its length, could be an entry's
// after one whose last offset was goodLast. A batch: its base offset past
// goodLast, its last offset delta, record count and partition leader
// epoch not negative (-1 for the epoch), a known compression codec and no
// attribute bit Kafka does not define (7 to 15), timestamps, producer id,
// epoch and base sequence of -1 or more. A legacy message (magic 0 or 1,
// as a broker before 0.11 wrote them): its offset past goodLast, a codec
// legacy messages have (none, gzip, snappy, lz4) and no attribute bit
// past the timestamp type's, a timestamp of -1 or more (magic 1), a key
// length of -1 or more that fits in the length. A candidate in a batch's
// bytes (the records of one passed over for its length) passes for a
// header at fewer than one random position in 10^9, and only then is
// read ahead by its length.
func plausibleHeader(magic int8, p []byte, length, goodLast int64) bool {
	if magic < 2 {
		key := legacyKey(p)
		return int64(binary.BigEndian.Uint64(p)) > goodLast && p[17]&7 <= 3 && p[17]&0xf0 == 0 && (magic == 0 || int64(binary.BigEndian.Uint64(p[18:])) >= -1) &&
			key >= -1 && int64(candidateHead[magic])+max(key, 0)+4 <= entryHead+length
	}
	base := int64(binary.BigEndian.Uint64(p))
	attrs := binary.BigEndian.Uint16(p[21:])
	return base > goodLast && int32(binary.BigEndian.Uint32(p[12:])) >= -1 && attrs&7 <= 4 && attrs>>7 == 0 &&
		int32(binary.BigEndian.Uint32(p[23:])) >= 0 && int64(binary.BigEndian.Uint64(p[27:])) >= -1 && int64(binary.BigEndian.Uint64(p[35:])) >= -1 &&
		int64(binary.BigEndian.Uint64(p[43:])) >= -1 && int16(binary.BigEndian.Uint16(p[51:])) >= -1 && int32(binary.BigEndian.Uint32(p[53:])) >= -1 &&
		int32(binary.BigEndian.Uint32(p[57:])) >= 0
}

// legacyKey is the key length of the legacy message p starts (magic 0 or
// 1, p holding it to that length: candidateHead).
func legacyKey(p []byte) int64 {
	return int64(int32(binary.BigEndian.Uint32(p[candidateHead[p[magicAt]]-4:])))
}

// maxResyncKey is the longest key of a legacy message scan finds: a key's
// length is judged only by reading the key, and in a batch's bytes a
// header that passes for a legacy message's is common enough (its magic
// byte a zero) that reading ahead by what its key's length says, up to
// MaxBatch, cost megabytes. Legacy keys are short (a compressed
// wrapper's is null).
const maxResyncKey = 64 << 10

// legacyFills says whether the legacy message p declaring length bytes
// after its length (its header plausible, p holding it to its value's
// length) is its key and value exactly: its value's length, -1 or more,
// ends it.
func legacyFills(p []byte, length int64) bool {
	v := candidateHead[p[magicAt]] + int(max(legacyKey(p), 0))
	value := int64(int32(binary.BigEndian.Uint32(p[v:])))
	return value >= -1 && int64(v)+4+max(value, 0) == entryHead+length
}

// damage reports the bytes from start to at as no batch, read on from at.
func (s *Segment) damage(start, at int64, msg string) error {
	s.resumed = true
	return &DamageError{Position: start, Size: at - start, Msg: msg, Batches: s.batches}
}

// resync looks past the entry at start, whose damage msg says, for the
// next batch (scan): found, the bytes before it are a damaged region and
// reading resumes there; not found, they are the segment's tail, torn or
// corrupt as the damage says (or zeros; tail, told the entry's length
// when torn).
func (s *Segment) resync(start int64, torn bool, length int64, msg string) error {
	msg += s.suspect(start)
	at, err := s.scan(start, -1)
	if err != nil {
		return err
	}
	if at >= 0 {
		s.giveBack(int(at - s.bufAt))
		what := msg
		if torn {
			what = "a batch that runs past the bytes there: " + msg
		}
		return s.damage(start, at, "at "+strconv.FormatInt(start, 10)+", "+what+s.uncheckedNote())
	}
	return s.tail(start, torn, length, msg+s.uncheckedNote())
}

// scan looks for the first entry after start whose header is plausible
// (plausibleHeader: a batch, or a legacy message of a broker before 0.11
// whose key and value fill it; a length from the smallest entry's to
// MaxBatch that fits in the bytes there, an offset past the last good
// entry's) and whose CRC holds (CRC-32C, CRC-32), reading on from
// s.buf, which holds the bytes from start. With limit >= 0 only batches
// starting fewer than limit bytes after start are looked for, and s.buf
// keeps every byte; otherwise bytes behind the scan are dropped (s.bufAt
// is then where s.buf starts, s.zero whether every byte dropped was
// zero), so that memory stays that of the largest candidate. It returns
// the batch's position, or -1. A candidate whose key or CRC costs more
// than the budget holds is passed over unchecked (counted in
// s.unchecked, which uncheckedNote says) and the search goes on: the
// budget grows with every position scanned, so later candidates are
// checked, and work stays linear.
func (s *Segment) scan(start int64, limit int) (at int64, err error) {
	s.bufAt, s.dropNZ = start, start
	s.unchecked = 0
	return s.scanFrom(1, limit, nil)
}

// scanFrom is scan from s.buf[i] on, s.bufAt being where s.buf starts.
// With over set (an entry longer than MaxBatch being passed over), the
// bytes dropped are first added to its CRC, and the scan stops, returning
// -1, at the entry's end: what follows it is looked at only once the
// entry is known to be no entry.
func (s *Segment) scanFrom(i, limit int, over *passing) (at int64, err error) {
	for ; limit < 0 || i < limit; i++ {
		if over != nil && s.bufAt+int64(i) >= over.end {
			return -1, nil
		}
		s.budget += resyncCRCPerByte
		if limit < 0 && i >= 64<<10 && i >= len(s.buf)/2 {
			if over != nil {
				over.feed(s, s.bufAt+int64(i))
			}
			if j := lastNonZero(s.buf[:i]); j >= 0 {
				s.dropNZ = s.bufAt + int64(j) + 1
			}
			n := copy(s.buf, s.buf[i:])
			s.buf = s.buf[:n]
			s.bufAt += int64(i)
			i = 0
		}
		if len(s.buf) < i+entryHead+5 {
			if _, err := s.fill(max(i+entryHead+5, len(s.buf)+64<<10)); err != nil && len(s.buf) < i+entryHead+5 {
				if !errors.Is(err, io.EOF) {
					return -1, err
				}
				return -1, nil
			}
		}
		p := s.buf[i:]
		if binary.BigEndian.Uint32(p[8:12]) == 0 {
			// No entry is that short, nor is one whose length's bytes
			// are in the zeros that follow: past them at once (a
			// preallocated segment's tail is gigabytes of zeros).
			if z := zeroPrefix(p[12:]); z > 0 {
				s.budget += resyncCRCPerByte * int64(z)
				i += z
			}
			continue
		}
		s.looked++
		magic := int8(p[magicAt])
		if magic < 0 || magic > 2 {
			continue
		}
		length := int64(int32(binary.BigEndian.Uint32(p[8:12])))
		if length < least[magic] || length > int64(s.o.MaxBatch) {
			continue
		}
		// The header first, so that a length is only read ahead for a
		// header that is plausible all through.
		head := candidateHead[magic]
		if ok, err := s.has(i + head); !ok {
			if err != nil {
				return -1, err
			}
			continue // it does not fit in the bytes there
		}
		if !plausibleHeader(magic, s.buf[i:i+head], length, s.goodLast) {
			continue
		}
		if magic < 2 {
			// Then its key, so that only a message whose value's length
			// ends it exactly is read ahead by its length; a key longer
			// than maxResyncKey is not read ahead for.
			key := legacyKey(s.buf[i:])
			if key > maxResyncKey {
				continue
			}
			ahead := head + int(max(key, 0)) + 4
			if !s.spend(int64(ahead), i, "reading its key") {
				continue
			}
			if ok, err := s.has(i + ahead); !ok {
				if err != nil {
					return -1, err
				}
				continue
			}
			if !legacyFills(s.buf[i:], length) {
				continue
			}
		}
		// Charged before it is read ahead, whether the input holds it
		// or not: each damaged entry of a file of small ones holding a
		// candidate that declares MaxBatch read the rest of the input
		// ahead again, and gave it back, for nothing.
		cost := entryHead + length - int64(crcFrom(magic))
		if !s.spend(cost, i, "its CRC") {
			continue
		}
		if ok, err := s.has(i + entryHead + int(length)); !ok {
			if err != nil {
				return -1, err
			}
			continue // it does not fit in the bytes there
		}
		p = s.buf[i : i+entryHead+int(length)]
		s.resyncCRC += cost
		if entryCRC(magic, p[crcFrom(magic):], 0) == storedCRC(magic, p) {
			return s.bufAt + int64(i), nil
		}
	}
	return -1, nil
}

// spend takes n bytes of work (work says what: "its CRC") from the
// budget for the candidate at s.buf[i]; when the budget holds less, it
// takes nothing, counts the candidate unchecked and returns false.
func (s *Segment) spend(n int64, i int, work string) bool {
	if n > s.budget {
		if s.unchecked == 0 {
			s.uncheckedAt, s.uncheckedWork = s.bufAt+int64(i), work
		}
		s.unchecked++
		return false
	}
	s.budget -= n
	return true
}

// uncheckedNote says, after a damage message, the candidates the search
// passed over unchecked (a batch may start at one of them); "" when
// none.
func (s *Segment) uncheckedNote() string {
	if s.unchecked == 0 {
		return ""
	}
	what := "1 candidate for a batch was passed over unchecked, at "
	if s.unchecked > 1 {
		what = strconv.Itoa(s.unchecked) + " candidates for a batch were passed over unchecked, the first at "
	}
	return "; " + what + strconv.FormatInt(s.uncheckedAt, 10) + ", where " + s.uncheckedWork + " would pass the work allowed (" +
		strconv.FormatInt(int64(s.o.MaxBatch), 10) + " bytes and " + strconv.Itoa(resyncCRCPerByte) + " per byte scanned)"
}

// passing is an entry longer than MaxBatch being passed over: where it
// ends, and its CRC so far, computed up to fed.
type passing struct {
	end, fed int64
	h        crcHash
}

// feed adds the bytes of s.buf up to the position upto (the entry's end
// at most) to the entry's CRC.
func (p *passing) feed(s *Segment, upto int64) {
	upto = min(upto, p.end, s.bufAt+int64(len(s.buf)))
	if upto > p.fed {
		p.h.Write(s.buf[p.fed-s.bufAt : upto-s.bufAt])
		p.fed = upto
	}
}

// skippedHead is how much of an entry passed over for its size is held: a
// batch's header (61 bytes) and the start of its first record, a legacy
// message's header up to its key (26 bytes for magic 0, 34 for magic 1).
var skippedHead = [...]int64{26, 34, 61 + 32}

// skip passes over the entry b starts, longer than MaxBatch, without
// holding it: its header is read and described, its CRC computed over the
// bytes as they stream past. On the way it looks for a batch starting
// inside it (scanFrom), as a resync does, holding only the bytes around
// the candidate in view, so that a corrupt length (a high bit flipped
// makes any entry longer than the limit) is told from a long entry:
//
//   - a batch whose CRC holds starts inside it, its offsets after the
//     entry's own (when its header is a plausible batch's; one at or
//     below them is stored in its bytes, and passed by): unless the entry ends within
//     MaxBatch of that batch, is whole there and its CRC matches (a long
//     entry that holds a batch's bytes), the entry's length is corrupt,
//     and the bytes up to that batch are a damaged region (DamageError),
//     read on from the batch; but when the entry is whole within MaxBatch
//     of it, its CRC wrong, and its length leads to an entry whose header
//     is plausible, whose CRC holds and whose offsets are below that
//     batch's (leadsOn), the batch is stored in its bytes (its offsets
//     later than what follows it) and the entry, its length right, is the
//     damaged region, read on where it ends;
//   - none does, and the input ends inside it: a torn tail (the broker
//     stopped while writing it);
//   - none does, and its CRC does not match the bytes it spans: a
//     corrupt length, the damage reaching to the next batch after its
//     end, or the end of the input (a corrupt tail; but a torn one when
//     it is a write cut short in preallocated space, as tornInZeros says
//     of a shorter entry: its header plausible and written, its last 12
//     bytes or more zeros, and every byte after it, one at least);
//   - otherwise it is passed over (Skipped).
//
// The rule for a batch inside it reaches MaxBatch from that batch, no
// further: past that, the length is judged corrupt at the batch, the
// entry's end not waited for. Waiting would mean holding the bytes from
// the batch to the end, to read them again from the batch when the
// length is corrupt (the segment is a stream, read once), and more than
// MaxBatch of them is what MaxBatch forbids holding; the resync's budget
// bounds work, not what is held. So a whole long entry whose CRC is right
// and which holds, more than MaxBatch before its end, a batch whose
// offsets are later than its own reads as damage up to that batch, the
// batch (Searched), and damage after it that says the batch may be
// stored in a damaged entry's bytes: a false alarm that says so, rather
// than a corrupt length swallowing the log's batches after it unread.
func (s *Segment) skip(b *Batch, length int64) (*Batch, error) {
	start := b.Position
	note := s.suspect(start)
	keep := min(entryHead+length, skippedHead[b.Magic])
	if n, err := s.fill(int(keep)); err != nil {
		if !errors.Is(err, io.EOF) {
			return nil, err
		}
		return nil, s.resync(start, true, length, "the entry declares "+strconv.FormatInt(length, 10)+" bytes after its length; "+strconv.Itoa(n-entryHead)+" are there"+note)
	}
	s.head = append(s.head[:0], s.buf[:keep]...)
	stored := storedCRC(b.Magic, s.head)
	over := &passing{end: start + entryHead + length, fed: start + keep, h: crcHash{magic: b.Magic, sum: entryCRC(b.Magic, s.head[crcFrom(b.Magic):], 0)}}
	long := "the entry declares " + strconv.FormatInt(length, 10) + " bytes after its length, more than the limit (" + strconv.Itoa(s.o.MaxBatch) + ")"
	crcMismatch := func() string {
		return ", and its CRC does not match them (stored " + hex32(stored) + ", computed " + hex32(over.h.sum) + ")"
	}
	crcWrong := func() string { return crcMismatch() + ": a corrupt length" }
	s.bufAt, s.dropNZ = start, start
	s.unchecked = 0
	// The entry after this one comes after its offsets: a batch inside it
	// at or below them, when its header is a batch's and plausible (a
	// legacy message's passes by chance too often), is stored in its
	// bytes (a record's value), not the entry after a corrupt length, and
	// is passed by.
	floor := s.goodLast
	plausible := plausibleHeader(b.Magic, s.head[:candidateHead[b.Magic]], length, floor)
	if b.Magic == 2 && plausible {
		s.goodLast = max(floor, headerLast(b.Magic, s.head))
	}
	own := s.goodLast // the floor of the entries after it
	at, err := s.scanFrom(1, -1, over)
	s.goodLast = floor
	if err != nil {
		return nil, err
	}
	if at >= 0 {
		// A batch whose CRC holds starts inside the entry: unless the
		// entry is whole within MaxBatch of it and its CRC matches, its
		// length is corrupt.
		over.feed(s, at)
		n := copy(s.buf, s.buf[at-s.bufAt:])
		s.buf, s.bufAt = s.buf[:n], at
		why := ", and a batch whose CRC holds starts inside it, " + strconv.FormatInt(over.end-at, 10) + " bytes before its end: a corrupt length"
		if over.end-at <= int64(s.o.MaxBatch) {
			if _, err := s.fill(int(over.end - at)); err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			if held := s.bufAt + int64(len(s.buf)); held < over.end {
				why = ", and the input ends " + strconv.FormatInt(held-start-entryHead, 10) + " bytes after its length: a corrupt length"
			} else if over.feed(s, over.end); over.h.sum == stored {
				return s.skipped(b, over.end)
			} else if next, ok, err := s.leadsOn(over.end, own); err != nil {
				return nil, err
			} else if ok {
				// Damaged, its length right: the batch inside it is
				// stored in its bytes.
				inner := int64(binary.BigEndian.Uint64(s.buf))
				s.giveBack(int(over.end - s.bufAt))
				err := s.damage(start, over.end, "at "+strconv.FormatInt(start, 10)+", "+long+crcMismatch()+", but its length leads to an entry whose CRC holds (at "+
					strconv.FormatInt(over.end, 10)+", up to offset "+strconv.FormatInt(next, 10)+"), below the offsets of the batch whose CRC holds inside it (at "+
					strconv.FormatInt(at, 10)+", from offset "+strconv.FormatInt(inner, 10)+"): that batch is stored in its bytes, and the entry is damaged, its length right"+note+s.uncheckedNote())
				s.resumed = false // reached by a length, not a search
				return nil, err
			} else {
				why = crcWrong()
			}
		}
		s.giveBack(0)
		return nil, s.damage(start, at, "at "+strconv.FormatInt(start, 10)+", "+long+why+note+s.uncheckedNote())
	}
	// No batch starts inside it: the scan reached its end, or the input's.
	over.feed(s, over.end)
	if over.fed < over.end {
		msg := "the entry declares " + strconv.FormatInt(length, 10) + " bytes after its length; " + strconv.FormatInt(over.fed-start-entryHead, 10) + " are there"
		return nil, s.tail(start, true, length, msg+note+s.uncheckedNote())
	}
	if over.h.sum == stored {
		return s.skipped(b, over.end)
	}
	// Read on past its end for the next batch.
	msg := long + crcWrong() + note
	if at, err = s.scanFrom(int(over.end-s.bufAt), -1, nil); err != nil {
		return nil, err
	} else if at >= 0 {
		s.giveBack(int(at - s.bufAt))
		return nil, s.damage(start, at, "at "+strconv.FormatInt(start, 10)+", "+msg+s.uncheckedNote())
	}
	unchecked := s.uncheckedNote()
	err = s.tail(start, false, length, msg+unchecked)
	if te, ok := err.(*TailError); ok && plausible && te.ZeroFrom > start+int64(candidateHead[b.Magic]) && te.ZeroFrom <= over.end-entryHead && s.pos > over.end {
		// A write cut short in preallocated space, as tornInZeros
		// finds of a shorter entry: its header plausible and written,
		// its last bytes and every byte after it zeros, one at least.
		te.Torn = true
		te.Msg = long + crcMismatch() + "; its last " +
			strconv.FormatInt(over.end-te.ZeroFrom, 10) + " bytes are zeros, and so are the " + strconv.FormatInt(s.pos-over.end, 10) +
			" after it, to the end of the input: a write cut short, the rest of the entry never written over space preallocated with zeros" + note + unchecked +
			"; bytes " + strconv.FormatInt(te.ZeroFrom, 10) + "-" + strconv.FormatInt(s.pos-1, 10) + " (" + strconv.FormatInt(s.pos-te.ZeroFrom, 10) + " bytes) are zeros to the end"
	}
	return nil, err
}

// leadsOn says whether an entry longer than MaxBatch, its CRC wrong, a
// batch whose CRC holds found inside it (s.buf holds the bytes from that
// batch, at s.bufAt, to end, where the entry's length says it ends), is
// damaged with its length right rather than cut short by a corrupt
// length: at end an entry starts whose header is plausible after own
// (the last good offset, or the entry's own last when its header is a
// plausible batch's), whose CRC holds, and whose last offset (next) is
// below the inner batch's base offset. Taking the inner batch for the
// entry after a corrupt length would then make the log's offsets go back
// at the entry its length leads to; the inner batch's offsets being
// later than what follows, it is stored in the entry's bytes (a record's
// value).
// Reading that entry is charged to the resync's budget; what was read
// past end is left in s.buf, for the caller to give back.
func (s *Segment) leadsOn(end, own int64) (next int64, ok bool, err error) {
	i := int(end - s.bufAt)
	if !s.spend(entryHead+minBatch, i, "reading the entry its length leads to") {
		return 0, false, nil
	}
	if ok, err := s.has(i + entryHead + 5); !ok {
		return 0, false, err
	}
	p := s.buf[i:]
	m := int8(p[magicAt])
	l := int64(int32(binary.BigEndian.Uint32(p[8:])))
	if m < 0 || m > 2 || l < least[m] || l > int64(s.o.MaxBatch) {
		return 0, false, nil
	}
	if ok, err := s.has(i + candidateHead[m]); !ok {
		return 0, false, err
	}
	if !plausibleHeader(m, s.buf[i:i+candidateHead[m]], l, own) {
		return 0, false, nil
	}
	next = headerLast(m, s.buf[i:])
	if next >= int64(binary.BigEndian.Uint64(s.buf)) {
		return 0, false, nil // its offsets do not come before the inner batch's
	}
	cost := entryHead + l - int64(crcFrom(m))
	if !s.spend(cost, i, "its CRC") {
		return 0, false, nil
	}
	if ok, err := s.has(i + entryHead + int(l)); !ok {
		return 0, false, err
	}
	q := s.buf[i : i+entryHead+int(l)]
	s.resyncCRC += cost
	return next, entryCRC(m, q[crcFrom(m):], 0) == storedCRC(m, q), nil
}

// skipped gives the entry b, passed over to end and its CRC found to
// match, back: described by its header, the bytes read past its end
// given back.
func (s *Segment) skipped(b *Batch, end int64) (*Batch, error) {
	if s.bufAt+int64(len(s.buf)) > end {
		s.giveBack(int(end - s.bufAt))
	}
	b.Bytes, b.Skipped, b.CRCValid = s.head, true, true
	s.describe(b)
	s.batches++
	return b, nil
}

// crcFrom is where an entry's CRC starts: a batch's covers its attributes
// to its end, a legacy message's its magic byte to its end.
func crcFrom(magic int8) int {
	if magic == 2 {
		return 21
	}
	return 16
}

// storedCRC is the CRC an entry's header stores.
func storedCRC(magic int8, p []byte) uint32 {
	if magic == 2 {
		return binary.BigEndian.Uint32(p[17:])
	}
	return binary.BigEndian.Uint32(p[12:])
}

// entryCRC carries an entry's CRC (crc32.Update's sum) over p: CRC-32C for
// batches, CRC-32 for legacy messages.
func entryCRC(magic int8, p []byte, sum uint32) uint32 {
	if magic == 2 {
		return crc32.Update(sum, castagnoli, p)
	}
	return crc32.Update(sum, crc32.IEEETable, p)
}

// crcHash is an io.Writer that carries an entry's CRC over what it is
// given.
type crcHash struct {
	magic int8
	sum   uint32
}

func (h *crcHash) Write(p []byte) (int, error) {
	h.sum = entryCRC(h.magic, p, h.sum)
	return len(p), nil
}

func hex32(v uint32) string {
	const digits = "0123456789abcdef"
	b := []byte("0x00000000")
	for i := 9; i >= 2; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b)
}

// fill reads into s.buf until it holds want bytes, growing it with the
// bytes that actually arrive, never by what a length declares. It returns
// how many it holds.
func (s *Segment) fill(want int) (int, error) {
	for len(s.buf) < want {
		chunk := min(want-len(s.buf), max(len(s.buf), 64<<10))
		at := len(s.buf)
		if cap(s.buf) < at+chunk {
			grown := make([]byte, at, max(at+chunk, 2*cap(s.buf)))
			copy(grown, s.buf)
			s.buf = grown
		}
		n, err := io.ReadFull(src{s}, s.buf[at:at+chunk])
		s.buf = s.buf[:at+n]
		s.pos += int64(n)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return len(s.buf), err
		}
	}
	return len(s.buf), nil
}

// has makes s.buf hold n bytes when the input has them: false when it
// ends first, with an error only when reading failed.
func (s *Segment) has(n int) (bool, error) {
	if _, err := s.fill(n); err != nil {
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// tail ends the segment at start with what was found there (torn: the
// entry declaring length bytes after its length, -1 when its length is
// not there, runs past the end); the rest of the input is counted, not
// held, and looked at for where the zeros that end it start.
func (s *Segment) tail(start int64, torn bool, length int64, msg string) error {
	held := s.pos - int64(len(s.buf)) // where s.buf starts
	z := zeroEnd{at: held, nz: start}
	if held > start {
		z.nz = s.dropNZ // a scan from start dropped the bytes before s.buf
	}
	z.Write(s.buf)
	rest, err := io.Copy(&z, src{s})
	s.pos += rest
	s.done = true
	if err != nil {
		return err
	}
	te := &TailError{Position: start, Size: s.pos - start, Torn: torn, Msg: msg, Batches: s.batches, ZeroFrom: z.nz}
	switch {
	case z.nz == start && te.Size >= entryHead:
		// Fewer than an entry head's zeros may be a torn entry's offset.
		te.Torn, te.Zero = false, true
		te.Msg = "every byte to the end is zero: space preallocated for entries and never written"
		return te
	case !torn || length < 0:
	case start+entryHead+length > math.MaxInt32:
		te.Torn = false
		te.Msg += ": more than a segment holds (an entry ends within " + strconv.Itoa(math.MaxInt32) + " bytes of the segment's start, Kafka's positions being int32), so a corrupt length, not a partial write"
	case z.nz <= start+entryHead && te.Size >= entryHead+5:
		te.Torn = false
		te.Msg += ": every byte after its length is zero, which no partial write leaves (the CRC and magic byte after a length are written with it), so damage or preallocated space, not a partial write"
	}
	if s.pos-z.nz >= entryHead { // fewer are the ordinary end of a record (no headers: a 0)
		te.Msg += "; bytes " + strconv.FormatInt(z.nz, 10) + "-" + strconv.FormatInt(s.pos-1, 10) + " (" + strconv.FormatInt(s.pos-z.nz, 10) + " bytes) are zeros to the end"
	}
	return te
}

// zeroEnd is an io.Writer that notes where the zeros that end what it
// was given start: nz, the position after its last byte that is not zero
// (at being where the next byte given is).
type zeroEnd struct{ at, nz int64 }

func (z *zeroEnd) Write(p []byte) (int, error) {
	if j := lastNonZero(p); j >= 0 {
		z.nz = z.at + int64(j) + 1
	}
	z.at += int64(len(p))
	return len(p), nil
}

// lastNonZero is the index of the last byte of b that is not zero, -1
// when every byte is (whole blocks at a time).
func lastNonZero(b []byte) int {
	for len(b) >= len(zeroBlock) && bytes.Equal(b[len(b)-len(zeroBlock):], zeroBlock[:]) {
		b = b[:len(b)-len(zeroBlock)]
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] != 0 {
			return i
		}
	}
	return -1
}

// describe fills in what the entry's header says.
func (s *Segment) describe(b *Batch) {
	p := b.Bytes
	if b.Magic == 2 {
		b.BaseOffset = int64(binary.BigEndian.Uint64(p[0:]))
		attrs := binary.BigEndian.Uint16(p[21:])
		b.Compression = int(attrs & 7)
		b.Transactional = attrs&0x10 != 0
		b.Control = attrs&0x20 != 0
		b.LastOffset = b.BaseOffset + int64(int32(binary.BigEndian.Uint32(p[23:])))
		b.FirstTimestamp = int64(binary.BigEndian.Uint64(p[27:]))
		b.MaxTimestamp = int64(binary.BigEndian.Uint64(p[35:]))
		b.ProducerID = int64(binary.BigEndian.Uint64(p[43:]))
		b.Records = int(int32(binary.BigEndian.Uint32(p[57:])))
		switch {
		case attrs&0x08 != 0:
			// Log-append time: every record's timestamp is the max.
			b.FirstTimestamp = b.MaxTimestamp
		case attrs&0x40 != 0:
			// The base timestamp is the delete horizon; the records'
			// deltas are from it.
			b.FirstTimestamp = -1
			if !b.Skipped || b.Compression == 0 {
				if ts, ok := firstRecordTimestamp(p, s.o.MaxDecompressed, &s.inflated); ok {
					b.FirstTimestamp = ts
				}
			}
		}
	} else {
		b.LastOffset = int64(binary.BigEndian.Uint64(p[0:]))
		b.Compression = int(p[17] & 7)
		b.ProducerID, b.MaxTimestamp, b.FirstTimestamp, b.BaseOffset, b.Records = -1, -1, -1, b.LastOffset, 1
		if b.Magic == 1 {
			b.MaxTimestamp = int64(binary.BigEndian.Uint64(p[18:]))
			b.FirstTimestamp = b.MaxTimestamp
		}
		if b.Compression != 0 {
			b.Records = 0
			if first, ts, n, ok := s.wrapperSpan(b); ok {
				b.BaseOffset, b.FirstTimestamp, b.Records = first, ts, n
			} else if s.prevLast >= 0 && s.prevLast < b.LastOffset {
				b.BaseOffset = s.prevLast + 1
			}
		}
	}
	s.prevLast = b.LastOffset
}

// wrapperSpan reads the messages inside the legacy wrapper b: the first's
// offset and timestamp and how many there are, when they can be decompressed (not when
// b was passed over for its size).
func (s *Segment) wrapperSpan(b *Batch) (first, firstTS int64, n int, ok bool) {
	if b.Skipped {
		return 0, 0, 0, false
	}
	return wrapperSpan(b.Bytes, s.o.MaxDecompressed, &s.inflated)
}
