package tree_test

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/tree"
)

// Walk a decoded frame's tree: every byte of the input belongs to a node,
// and each node knows its span, its prefix and its value.
func ExampleWalk() {
	b, _ := hex.DecodeString("0000001b00120003000000070005" + "6b77697265" + "00" + "066b77697265" + "04312e30" + "00")
	f, err := codec.Decode(b, codec.Options{})
	if err != nil {
		panic(err)
	}
	depth := map[*tree.Node]int{}
	tree.Walk(f.Root, func(n *tree.Node) bool {
		for _, c := range n.Children {
			depth[c] = depth[n] + 1
		}
		line := fmt.Sprintf("%-28s [%2d,%2d) %s", strings.Repeat("  ", depth[n])+n.Name, n.Start, n.End, show(n))
		fmt.Println(strings.TrimRight(line, " "))
		return true
	})
	// Output:
	// frame                        [ 0,31)
	//   size                       [ 0, 4) 27
	//   header                     [ 4,20)
	//     RequestApiKey            [ 4, 6) 18
	//     RequestApiVersion        [ 6, 8) 3
	//     CorrelationId            [ 8,12) 7
	//     ClientId                 [12,19) "kwire", after a length prefix ending at 14
	//     _tagged                  [19,20)
	//   body                       [20,31)
	//     ClientSoftwareName       [20,26) "kwire", after a length prefix ending at 21
	//     ClientSoftwareVersion    [26,30) "1.0", after a length prefix ending at 27
	//     _tagged                  [30,31)
}

func show(n *tree.Node) string {
	switch {
	case len(n.Children) > 0 || n.Role == tree.RoleTags || n.Role == tree.RoleFrame:
		return ""
	case n.Raw != nil:
		return fmt.Sprintf("%q, after a length prefix ending at %d", n.Raw, n.PrefixEnd)
	}
	return fmt.Sprint(n.Int)
}
