// Package slab hands out tree nodes from blocks, so a tree of many nodes
// costs a few allocations, and again after a Reset.
package slab

import "github.com/kwire/kwire/codec/tree"

// Slab hands out nodes from blocks, so a tree of many nodes costs a few
// allocations. Blocks start small and double, so small frames stay cheap;
// Reset makes a slab hand out its blocks again, so a decoder that keeps
// one allocates almost nothing once warm.
type Slab struct {
	blocks  [][]tree.Node
	bi, ni  int // current block and the next node in it
	kblocks [][]*tree.Node
	kbi, ki int
}

// New returns a zeroed node (Index and Tag -1).
func (s *Slab) New() *tree.Node {
	for s.bi < len(s.blocks) && s.ni == len(s.blocks[s.bi]) {
		s.bi++
		s.ni = 0
	}
	if s.bi == len(s.blocks) {
		size := 16
		if k := len(s.blocks); k > 0 {
			size = min(2*len(s.blocks[k-1]), 4096)
		}
		s.blocks = append(s.blocks, make([]tree.Node, size))
		s.ni = 0
	}
	n := &s.blocks[s.bi][s.ni] // zeroed: new, or cleared by Reset
	s.ni++
	n.Index, n.Tag = -1, -1
	return n
}

// Kids returns an empty slice with capacity c for a node's children.
func (s *Slab) Kids(c int) []*tree.Node {
	for s.kbi < len(s.kblocks) && len(s.kblocks[s.kbi])-s.ki < c {
		s.kbi++
		s.ki = 0
	}
	if s.kbi == len(s.kblocks) {
		size := 64
		if k := len(s.kblocks); k > 0 {
			size = min(2*len(s.kblocks[k-1]), 8192)
		}
		s.kblocks = append(s.kblocks, make([]*tree.Node, max(size, c)))
		s.ki = 0
	}
	k := s.kblocks[s.kbi][s.ki : s.ki : s.ki+c]
	s.ki += c
	return k
}

// Reset lets the slab hand out its memory again. Nodes handed out before
// must no longer be used.
func (s *Slab) Reset() {
	for i := 0; i <= s.bi && i < len(s.blocks); i++ {
		if i < s.bi {
			clear(s.blocks[i])
		} else {
			clear(s.blocks[i][:s.ni])
		}
	}
	s.bi, s.ni, s.kbi, s.ki = 0, 0, 0, 0
}
