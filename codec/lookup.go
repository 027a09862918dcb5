package codec

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// ErrorCode is one error code a frame carries: where, which, and its name.
type ErrorCode struct {
	Path string // the value-JSON path, e.g. "body.topics[0].partitions[2].errorCode"
	Code int16
	Name string     // Kafka's name ("NOT_LEADER_OR_FOLLOWER"); "" for a code Kafka does not define
	Node *tree.Node // nil from the JSON writers
}

// ErrorCodes returns every error code in the frame's header and body, in
// document order: each int16 field whose name ends in "ErrorCode"
// (errorCode, partitionErrorCode, acknowledgeErrorCode, ...), at any depth,
// tagged fields included. NONE (0) is listed too, so a response that is
// all success still shows where its codes are; keep those with Code != 0
// for the failures. A Frame from the JSON writers, which has no tree,
// lists the failures alone, without their nodes.
func (f *Frame) ErrorCodes() []ErrorCode {
	if f.Root == nil {
		return f.codes
	}
	var out []ErrorCode
	var walk func(n *tree.Node, path string)
	walk = func(n *tree.Node, path string) {
		for _, c := range n.Children {
			p := path
			switch {
			case c.Role == tree.RoleTags:
			case c.Role == tree.RoleElement:
				p += "[" + strconv.Itoa(c.Index) + "]"
			case c.Field != nil:
				p += "." + c.Field.JSON
			default:
				continue // records, raw and trailing bytes hold no error codes
			}
			if c.Field != nil && c.Role != tree.RoleElement && c.Kind == schema.Int16 && strings.HasSuffix(c.Field.Name, "ErrorCode") && c.Flags&tree.Broken == 0 {
				code := int16(c.Int)
				out = append(out, ErrorCode{Path: p, Code: code, Name: schema.ErrorName(code), Node: c})
				continue
			}
			walk(c, p)
		}
	}
	if f.Header != nil {
		walk(f.Header, "header")
	}
	if f.Body != nil {
		walk(f.Body, "body")
	}
	return out
}
