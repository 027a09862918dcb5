package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/internal/budget"
)

// Limits bound what decoding one frame may spend. One budget per frame is
// shared by every level: the frame's own fields, its records (record
// batches, message-set wrappers at any depth), consumer-protocol metadata
// and assignments, KRaft control values, and every reading tried while
// guessing a response's API. A limit that cuts decoding short is a
// Warning with Limit set where it happened (or, inside the frame's own
// fields, the DecodeError), never silent. Zero means the default: for a
// frame of n bytes, 2^19 + n/8 nodes, 32 MiB decompressed, nesting 32,
// record nesting 4, 256 MiB + 4n bytes of work.
type Limits struct {
	// MaxNodes bounds the tree's nodes (about 220 bytes each). The JSON
	// writers count the nodes the tree would have, so both stop at the
	// same place. Nested payloads stop short of it,
	// leaving room for the frame's own fields after them (up to 4 nodes
	// a byte, at most half the limit) and a margin of 16 + 8 ×
	// (MaxRecordNesting + 1) nodes for the unit a payload ends on: a
	// limit met inside records, consumer-protocol data or a KRaft value
	// is a warning, and the frame decodes whenever its own fields fit.
	MaxNodes int
	// MaxDecompressed bounds the bytes decompression may produce, all
	// records fields and wrappers of the frame together.
	MaxDecompressed int
	// MaxDepth bounds struct and array nesting.
	MaxDepth int
	// MaxRecordNesting bounds compressed message-set wrappers inside wrappers.
	MaxRecordNesting int
	// MaxWork bounds the bytes scanned: the frame, every nested payload
	// (decompressed bytes included) and every guessing candidate.
	MaxWork int
}

// The defaults (Limits' doc). With them any frame of up to 1 MiB decodes
// in well under 256 MiB (ARCHITECTURE.md, "Limits", has the arithmetic);
// bigger frames get proportionally more nodes and work, since a frame's
// own bytes are work already done.
const (
	defaultMaxDepth         = 32
	defaultMaxNodes         = 1 << 19  // plus one node per 8 input bytes
	defaultMaxDecompressed  = 32 << 20 // per frame, all records together
	defaultMaxRecordNesting = 4
	defaultMaxWork          = 256 << 20 // plus 4 bytes per input byte
)

// resolve returns l with every zero limit replaced by its default for a
// frame of n bytes.
func (l Limits) resolve(n int) Limits {
	l.MaxNodes = budget.Limit(l.MaxNodes, defaultMaxNodes+n/8)
	l.MaxDecompressed = budget.Limit(l.MaxDecompressed, defaultMaxDecompressed)
	l.MaxDepth = budget.Limit(l.MaxDepth, defaultMaxDepth)
	l.MaxRecordNesting = budget.Limit(l.MaxRecordNesting, defaultMaxRecordNesting)
	l.MaxWork = budget.Limit(l.MaxWork, defaultMaxWork+4*n)
	return l
}

// budget starts the one budget a frame (and all its guessing candidates)
// spends from.
func (l Limits) budget() *budget.Budget {
	b := l.budgetValue()
	return &b
}

func (l Limits) budgetValue() budget.Budget {
	return budget.Budget{MaxNodes: l.MaxNodes, NestedNodes: l.MaxNodes, MaxDecompressed: l.MaxDecompressed, MaxWork: l.MaxWork}
}

// ErrLimit is the cause (errors.Is) of a DecodeError when a limit, not
// the bytes, stopped decoding: the input may be valid, and a larger limit
// would read it.
var ErrLimit = budget.ErrLimit

// Warning is a lenient reading or a limit hit. Its fields (the type is
// defined in an internal package, which go doc does not show):
//
//	Offset  int    // byte offset in buffer Buf
//	Buf     int    // 0 for the input, n for the nth decompressed buffer
//	Path    string // the field path in value JSON, e.g. "body.topics[0].partitions[1].records"
//	Message string // what happened, in words
//	Limit   bool   // a limit cut decoding short here
//
// Its String method writes it as "at byte N (path): message", as a
// DecodeError is written.
type Warning = budget.Warning

// decimal formats i for a message. Messages are cold; strconv.Itoa's fast
// path inlined at each of their call sites cost the wasm build kilobytes.
//
//go:noinline
func decimal(i int) string { return strconv.Itoa(i) }

// counted writes n and the words that go with it, one's or many's:
// counted(1, "byte", "bytes") is "1 byte".
//
//go:noinline
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return decimal(n) + " " + many
}
