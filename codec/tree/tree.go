// Package tree is the decoded form of Kafka bytes: a tree of nodes in which
// every byte of the input belongs to a node with [Start, End) offsets.
package tree

import "github.com/kwire/kwire/codec/schema"

// Role says what part of a frame a node is.
type Role uint8

const (
	RoleField      Role = iota // a schema field (Field is set)
	RoleElement                // an array element (Index is set)
	RoleFrame                  // the whole frame
	RoleSize                   // the 4-byte size prefix
	RoleHeader                 // the request or response header
	RoleBody                   // the message body
	RoleTags                   // a tagged-field section
	RoleUnknownTag             // a tagged field the schema does not know at this version
	RoleTrailing               // bytes after the message
	RoleRaw                    // bytes left undecoded after an error
	RoleRecord                 // a synthetic node inside records (batch, record, header, ...)
	// RoleFraming is a container's own bytes between or after its
	// members, in what a payload reader decoded (a JSON object's or
	// array's closing bracket, "end"; an Avro array's or map's later
	// block counts, "count", and closing zero count, "end"): a node so
	// that the container's children tile its bytes. It holds no value
	// and is no member: Get does not find it, and its path is its
	// container's, so a member named "end" or "count" never shares it.
	RoleFraming
)

var roleNames = [...]string{"field", "element", "frame", "size", "header", "body", "tags", "unknownTag", "trailing", "raw", "record", "framing"}

// String names the role ("field", "element", "frame", ...).
func (r Role) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role"
}

// Flags mark how a node was read.
type Flags uint8

const (
	Tagged    Flags = 1 << iota // the node came from a tagged-field section
	Assumed                     // decoded with a layout assumed for an unknown version
	Truncated                   // the input ended inside the node; Children hold what was there
	Compact                     // lengths and counts are unsigned varints (flexible versions)
	Varint                      // the value itself is a (zig-zag) varint
	Broken                      // decoding failed inside this node; what it holds is partial
)

// Node is one decoded value or structural part of the input.
type Node struct {
	Name  string        // field name (Kafka's), or a fixed name for structural nodes
	Field *schema.Field // the schema field, when Role is RoleField or the node is a tagged field
	Type  string        // display type: "int32", "compact_string", "[]TopicData", "tagged_fields", ...
	Index int           // element index for RoleElement, else -1

	Start int // first byte
	// For a tagged field, Start..TagEnd is the tag number and TagEnd..SizeEnd
	// its size; the value follows. Elsewhere TagEnd == SizeEnd == Start.
	TagEnd, SizeEnd int
	PrefixEnd       int // end of the value's length, count or null-marker prefix; == SizeEnd when none
	End             int // one past the last byte
	Buf             int // 0 for the input; n > 0 for derived buffer n (decompressed bytes)

	Int   int64   // bool, integer kinds, unknown tag number
	Float float64 // float64
	Raw   []byte  // string, bytes, uuid, records, unknown-tag payload: a sub-slice of the buffer

	// The small fields sit together so the struct packs without padding.
	Tag   int32       // tag number for tagged fields (as uint32: tags go to 2^32-1), -1 otherwise
	Role  Role        //
	Kind  schema.Kind // wire kind of the value
	Null  bool        // a null string, bytes, array, records or struct
	Flags Flags

	Children []*Node
	Warnings []string
}

// ValueStart is where the value's own bytes (its prefix included) begin:
// after the tag number and size of a tagged field, else Start.
func (n *Node) ValueStart() int { return max(n.SizeEnd, n.Start) }

// DataStart is where the value's data begins, after any length, count or
// marker prefix. When a child node itself covers the prefix (as record
// lengths do), the data starts with that child.
func (n *Node) DataStart() int {
	vs := n.ValueStart()
	if n.PrefixEnd <= vs {
		return vs
	}
	for _, c := range n.Children {
		if c.Buf == n.Buf {
			if c.Start < n.PrefixEnd {
				return vs
			}
			break
		}
	}
	return n.PrefixEnd
}

// BitView reports whether n's children are views of bits of n's own bytes
// (record attributes): they share n's span exactly and their types name
// their bits ("bits 0-2", "bit 3").
func (n *Node) BitView() bool {
	if len(n.Children) == 0 {
		return false
	}
	for _, c := range n.Children {
		if c.Start != n.Start || c.End != n.End || c.Buf != n.Buf || len(c.Type) < 4 || c.Type[:3] != "bit" {
			return false
		}
	}
	return true
}

// Size is the number of bytes the node covers (Count is its elements').
func (n *Node) Size() int { return n.End - n.Start }

// Walk calls fn for n and every node below it, depth first, until fn returns false.
func Walk(n *Node, fn func(*Node) bool) bool {
	if n == nil {
		return true
	}
	if !fn(n) {
		return false
	}
	for _, c := range n.Children {
		if !Walk(c, fn) {
			return false
		}
	}
	return true
}
