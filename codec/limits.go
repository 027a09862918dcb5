package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/wire"
)

// Limits bound what decoding one frame may spend. One budget per frame is
// shared by every level: the frame's own fields, its records (record
// batches, message-set wrappers at any depth), consumer-protocol metadata
// and assignments, KRaft control values, and every reading tried while
// guessing a response's API. A limit that cuts decoding short is a
// Warning with Limit set where it happened (or, inside the frame's own
// fields, the DecodeError), never silent. Zero means the default.
type Limits struct {
	// MaxNodes bounds the tree's nodes (about 220 bytes each). The
	// tree-less JSON path counts the nodes it would have built, so both
	// paths stop at the same place. Nested payloads stop short of it,
	// leaving room for the frame's own fields after them: a limit met
	// inside records, consumer-protocol data or a KRaft value is a
	// warning, and the frame decodes whenever its own fields fit.
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

// The defaults. With them any frame of up to 1 MiB decodes in well under
// 256 MiB (ARCHITECTURE.md, "Limits", has the arithmetic); bigger frames
// get proportionally more nodes and work, since a frame's own bytes are
// work already done.
const (
	DefaultMaxDepth         = 32
	DefaultMaxNodes         = 1 << 19  // plus one node per 8 input bytes
	DefaultMaxDecompressed  = 32 << 20 // per frame, all records together
	DefaultMaxRecordNesting = 4
	DefaultMaxWork          = 256 << 20 // plus 4 bytes per input byte
)

// Resolve returns l with every zero limit replaced by its default for a
// frame of n bytes.
func (l Limits) Resolve(n int) Limits {
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes + n/8
	}
	if l.MaxDecompressed <= 0 {
		l.MaxDecompressed = DefaultMaxDecompressed
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxRecordNesting <= 0 {
		l.MaxRecordNesting = DefaultMaxRecordNesting
	}
	if l.MaxWork <= 0 {
		l.MaxWork = DefaultMaxWork + 4*n
	}
	return l
}

// budget starts the one budget a frame (and all its guessing candidates)
// spends from.
func (l Limits) budget() *wire.Budget {
	b := l.budgetValue()
	return &b
}

func (l Limits) budgetValue() wire.Budget {
	return wire.Budget{MaxNodes: l.MaxNodes, NestedNodes: l.MaxNodes, MaxDecompressed: l.MaxDecompressed, MaxWork: l.MaxWork}
}

// Warning is a lenient reading or a limit hit: where (Offset in buffer
// Buf, 0 for the input and n for the nth decompressed buffer), the field
// path in value-JSON terms (e.g. "body.topics[0].partitions[1].records"),
// what, and whether a limit cut decoding short there.
type Warning = wire.Warning

// Warnings lists every warning of the frame in document order: the order
// of the nodes they are attached to in a depth-first walk of the tree.
func (f *Frame) Warnings() []Warning { return f.warnings }

// decimal formats i for a message. Messages are cold; strconv.Itoa's fast
// path inlined at each of their call sites cost the wasm build kilobytes.
//
//go:noinline
func decimal(i int) string { return strconv.Itoa(i) }
