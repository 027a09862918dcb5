package slab

import (
	"testing"

	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// A slab's nodes come zeroed with Index and Tag -1; Kids hands out empty
// slices of the capacity asked, which never overlap; Reset hands the same
// memory out again, cleared.
func TestSlab(t *testing.T) {
	var s Slab
	seen := map[*tree.Node]bool{}
	for i := 0; i < 5000; i++ {
		n := s.New()
		require.Equal(t, tree.Node{Index: -1, Tag: -1}, *n)
		require.False(t, seen[n], "a node handed out twice")
		seen[n] = true
		n.Name, n.Start, n.Warnings = "x", i, []string{"w"}
	}
	a, b := s.Kids(3), s.Kids(10000)
	require.Len(t, a, 0)
	require.Equal(t, 3, cap(a))
	require.Equal(t, 10000, cap(b), "a list bigger than a block gets its own")
	x, y := s.New(), s.New()
	a = append(a, x, x, x)
	c := s.Kids(2)
	c = append(c, y, y)
	require.Equal(t, []*tree.Node{x, x, x}, a, "the next list does not overwrite the last")
	a = append(a, y)
	require.Equal(t, []*tree.Node{y, y}, c, "appending past capacity reallocates, never overwrites")

	first := s.blocks[0]
	s.Reset()
	n := s.New()
	require.Same(t, &first[0], n, "Reset reuses the memory")
	require.Equal(t, tree.Node{Index: -1, Tag: -1}, *n, "cleared")
	for i := 1; i < len(first); i++ {
		require.Equal(t, tree.Node{}, first[i], "every used node cleared")
	}
}
