package render

import (
	"strconv"

	"github.com/kwire/kwire/codec/tree"
)

// NodePaths gives every node of a decoded tree, numbered in pre-order as
// Cells numbers them, the value-JSON path of the value it shows:
// "header.clientId", "body.topics[0].name",
// "body.topicData[0].partitionData[0].records[0].records[2].key". Views use
// it to link a node to its lines of value JSON. Nodes the JSON does not
// show on their own (the size prefix, a tagged-field section, the
// decompressed bytes of a batch) get the path of what holds them, or a
// path no line has, so a lookup falls back to an ancestor.
func NodePaths(root *tree.Node) []string {
	var out []string
	var walk func(n *tree.Node, path string)
	walk = func(n *tree.Node, path string) {
		out = append(out, path)
		// Repeated record parts (batches, messages, records, headers)
		// are elements of an array in the JSON: number them in order.
		var seen map[string]int
		for _, k := range n.Children {
			p := childPath(n, k, path)
			if k.Role == tree.RoleRecord && repeated(k.Name) {
				if seen == nil {
					seen = map[string]int{}
				}
				p = path + "[" + strconv.Itoa(seen[k.Name]) + "]"
				seen[k.Name]++
			}
			walk(k, p)
		}
	}
	walk(root, "")
	return out
}

func repeated(name string) bool {
	switch name {
	case "batch", "message", "record", "header":
		return true
	}
	return false
}

func childPath(parent, n *tree.Node, path string) string {
	switch n.Role {
	case tree.RoleHeader, tree.RoleBody:
		return n.Name
	case tree.RoleTags:
		return path
	case tree.RoleElement:
		return path + "[" + strconv.Itoa(n.Index) + "]"
	case tree.RoleSize, tree.RoleTrailing, tree.RoleRaw:
		return n.Name
	case tree.RoleUnknownTag:
		return path + "._unknownTaggedFields"
	case tree.RoleRecord:
		if n.Name == "inflated" {
			return path
		}
	}
	name := n.Name
	if n.Field != nil {
		name = n.Field.JSON
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// JSONLines describes indented JSON (as jsontext.Indent writes it) line by
// line: Paths[i] is the path of the value that starts on line i (or, for
// a closing bracket, of the value it closes), and Spans maps a path to the
// first and last line of its value.
type JSONLines struct {
	Paths []string
	Spans map[string][2]int32
}

// ScanJSONLines reads the paths of indented JSON. It expects the layout
// jsontext.Indent writes: one member or element per line, a container's
// closing bracket on a line of its own.
func ScanJSONLines(js []byte) JSONLines {
	type frame struct {
		path  string
		array bool
		n     int
		start int32
	}
	out := JSONLines{Spans: map[string][2]int32{}}
	var stack []frame
	line := int32(0)
	for i := 0; i < len(js); {
		// One line: [indent] ["key": ] value-start ... [,]
		j := i
		for j < len(js) && js[j] != '\n' {
			j++
		}
		l := js[i:j]
		k := 0
		for k < len(l) && l[k] == ' ' {
			k++
		}
		l = l[k:]
		path := ""
		switch {
		case len(l) > 0 && (l[0] == '}' || l[0] == ']'):
			if len(stack) > 0 {
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				path = f.path
				out.Spans[path] = [2]int32{f.start, line}
			}
		default:
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				if top.array {
					path = top.path + "[" + strconv.Itoa(top.n) + "]"
					top.n++
				} else if key, rest, ok := memberKey(l); ok {
					if top.path == "" {
						path = key
					} else {
						path = top.path + "." + key
					}
					l = rest
				}
			}
			open := false
			if len(l) > 0 && (l[0] == '{' || l[0] == '[') {
				// "{}" and "[]" open and close on one line.
				open = len(l) == 1 || l[1] != '}' && l[1] != ']'
			}
			if open {
				stack = append(stack, frame{path: path, array: l[0] == '[', start: line})
			} else {
				out.Spans[path] = [2]int32{line, line}
			}
		}
		out.Paths = append(out.Paths, path)
		line++
		i = j + 1
	}
	return out
}

// memberKey splits `"key": rest` into the key's text and rest.
func memberKey(l []byte) (string, []byte, bool) {
	if len(l) < 2 || l[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(l); i++ {
		switch l[i] {
		case '\\':
			i++
		case '"':
			if i+2 < len(l) && l[i+1] == ':' && l[i+2] == ' ' {
				key, err := strconv.Unquote(string(l[:i+1]))
				if err != nil {
					key = string(l[1:i])
				}
				return key, l[i+3:], true
			}
			return "", nil, false
		}
	}
	return "", nil, false
}

// Resolve finds the value-JSON path p among known paths, or its nearest
// ancestor ("a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" -> ""), for which has
// reports true.
func Resolve(p string, has func(string) bool) string {
	for p != "" {
		if has(p) {
			return p
		}
		i := len(p) - 1
		for i > 0 && p[i] != '.' && p[i] != '[' {
			i--
		}
		p = p[:i]
	}
	return ""
}
