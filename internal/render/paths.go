package render

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Paths numbers value-JSON paths: "header.clientId",
// "body.topics[0].name", "body.topicData[0].partitionData[0].records[0].records[2].key".
// A path is a step from its parent path (a member's name, or an element's
// index), numbered once: the views link a node to its lines of value JSON
// through these numbers, with no path written out as text (a 1 MB frame
// has hundreds of thousands of them; as strings, built and hashed, they
// took the browser most of a second). The zero value holds the root path
// "", numbered 0.
type Paths struct {
	steps  stepTable // a step from a path -> the path it leads to
	parent []int32
	step   []int32  // each path's last step: a name's number, or -1-index
	names  []string // member names, by number
	nameID map[string]int32
	recent [256]int32 // names met lately, by a hash of their bytes: 1+number, or 0
}

// Root is the number of the root path "".
const Root = 0

// child numbers the path one step from parent: member name, or element idx
// when idx >= 0.
func (p *Paths) child(parent int32, name string, idx int32) int32 {
	if idx >= 0 {
		return p.next(parent, -1-idx)
	}
	h := recentHash(name)
	if r := p.recent[h] - 1; r >= 0 && p.names[r] == name {
		return p.next(parent, r)
	}
	id, ok := p.nameID[name]
	if !ok {
		id = p.newName(name)
	}
	p.recent[h] = id + 1
	return p.next(parent, id)
}

// recentHash is where name is kept among the names met lately (Paths'
// recent): a hash of its length and first and last bytes.
func recentHash[T string | []byte](name T) int {
	h := len(name)
	if h > 0 {
		h = h*31 + int(name[0])*7 + int(name[h-1])
	}
	return h & (len(Paths{}.recent) - 1)
}

// memberBytes numbers parent's member name, given as the bytes of its
// text. A JSON text repeats a few names many times: the last name of each
// hash is checked first, with no map.
func (p *Paths) memberBytes(parent int32, name []byte) int32 {
	h := recentHash(name)
	if r := p.recent[h] - 1; r >= 0 && p.names[r] == string(name) {
		return p.next(parent, r)
	}
	id, ok := p.nameID[string(name)]
	if !ok {
		id = p.newName(string(name))
	}
	p.recent[h] = id + 1
	return p.next(parent, id)
}

// newName numbers a member name.
func (p *Paths) newName(name string) int32 {
	if p.nameID == nil {
		p.nameID = map[string]int32{}
	}
	id := int32(len(p.names))
	p.names = append(p.names, name)
	p.nameID[name] = id
	return id
}

// next numbers the path one step from parent: a member name's number
// (>= 0), or an element's index as -1-idx.
func (p *Paths) next(parent, step int32) int32 {
	if p.parent == nil {
		p.parent, p.step = []int32{-1}, []int32{-1}
	}
	k := uint64(uint32(parent))<<32 | uint64(uint32(step))
	slot := p.steps.find(k)
	if slot.path > 0 {
		return slot.path
	}
	id := int32(len(p.parent))
	p.steps.put(slot, k, id)
	p.parent, p.step = append(p.parent, parent), append(p.step, step)
	return id
}

// stepTable maps steps to paths: open addressing, linear probing, a
// table of a power of two kept under three quarters full. (Go's map,
// compiled to WebAssembly, took the browser several times as long.)
type stepTable struct {
	slots []stepSlot
	n     int
}

type stepSlot struct {
	key  uint64
	path int32 // 0: empty (no step leads to the root)
}

// find returns the slot of k: its own, or the empty one it would take.
func (t *stepTable) find(k uint64) *stepSlot {
	if len(t.slots) == 0 {
		t.slots = make([]stepSlot, 1024)
	}
	mask := uint64(len(t.slots) - 1)
	for i := (k * 0x9e3779b97f4a7c15) >> 32 & mask; ; i = (i + 1) & mask {
		if s := &t.slots[i]; s.path == 0 || s.key == k {
			return s
		}
	}
}

// put fills slot s, which find returned for k, with path, growing the
// table when it passes three quarters full.
func (t *stepTable) put(s *stepSlot, k uint64, path int32) {
	s.key, s.path = k, path
	t.n++
	if 4*t.n <= 3*len(t.slots) {
		return
	}
	old := t.slots
	t.slots = make([]stepSlot, 2*len(old))
	for _, o := range old {
		if o.path != 0 {
			*t.find(o.key) = o
		}
	}
}

// reset forgets every path but the root, keeping the tables' memory.
func (p *Paths) reset() {
	clear(p.steps.slots)
	p.steps.n = 0
	if p.parent != nil {
		p.parent, p.step = p.parent[:1], p.step[:1]
	}
	clear(p.names)
	p.names = p.names[:0]
	clear(p.nameID)
	p.recent = [256]int32{}
}

// Len is how many paths are numbered: every number is below it.
func (p *Paths) Len() int { return max(len(p.parent), 1) }

// String writes path id out: "body.topics[0].name".
func (p *Paths) String(id int32) string {
	if id <= Root || int(id) >= len(p.step) {
		return ""
	}
	return p.join(p.String(p.parent[id]), id)
}

// join writes path id out given its parent's text up: up with id's last
// step after it.
func (p *Paths) join(up string, id int32) string {
	s := p.step[id]
	if s < 0 {
		var b [20]byte // the index's digits, with no string of their own
		return up + "[" + string(strconv.AppendInt(b[:0], int64(-1-s), 10)) + "]"
	}
	if up == "" {
		return p.names[s]
	}
	return up + "." + p.names[s]
}

// Parent is the path one step up from id ("a.b[2]" from "a.b[2].c"),
// -1 for the root.
func (p *Paths) Parent(id int32) int32 {
	if id <= Root || int(id) >= len(p.parent) {
		return -1
	}
	return p.parent[id]
}

// Member is the name of path id's last step when that step is a member
// ("c" of "a.b[2].c"), false when it is an element's index or id is the
// root.
func (p *Paths) Member(id int32) (string, bool) {
	if id <= Root || int(id) >= len(p.step) || p.step[id] < 0 {
		return "", false
	}
	return p.names[p.step[id]], true
}

// Steps writes path id out a step at a time, each member with the
// indexes that follow it ("topics[0]"), joined by sep: "body › topics[0]
// › name" with sep " › ". A member name is written as it is, so a step
// is never split at a dot or bracket a name holds.
func (p *Paths) Steps(id int32, sep string) string {
	if id <= Root || int(id) >= len(p.parent) {
		return ""
	}
	up, s := p.Steps(p.parent[id], sep), p.step[id]
	switch {
	case s < 0:
		return up + "[" + strconv.Itoa(int(-1-s)) + "]"
	case up == "":
		return p.names[s]
	}
	return up + sep + p.names[s]
}

// Resolve finds path id among known paths, or its nearest ancestor
// ("a.b[2].c" -> "a.b[2]" -> "a.b" -> "a" -> ""), for which has reports
// true; the root when none is.
func (p *Paths) Resolve(id int32, has func(int32) bool) int32 {
	for id > Root {
		if has(id) {
			return id
		}
		id = p.parent[id]
	}
	return Root
}

// NodePaths gives every node of a decoded tree, numbered in pre-order as
// Cells numbers them, the number in p of the value-JSON path of the value
// it shows. Nodes the JSON does not show on their own (the size prefix, a
// tagged-field section, the decompressed bytes of a batch) get the path
// of what holds them, or a path no line has, so a lookup falls back to an
// ancestor. Bytes left undecoded (a raw node) get the path of the member
// that shows them: an entry of records that is bytes alone,
// {"_raw": ...}, its "_raw"; inside a batch or a legacy message, the
// entry's "_raw"; inside a record's key or value (a payload, an internal
// topic's record), the key or value; elsewhere, what holds them. An
// entry cut short is {"_truncated": ...}: its nodes all get that path.
//
// What the records reader made (batches, messages, records, headers,
// "inflated") is told by its type and place, not by its name alone: a
// record's key or value read by a payload decoder (codec/payload) holds
// nodes named after the payload's own members, which may be "record",
// "header" or "inflated" as well.
//
// A root that is a record's key or value, drawn on its own (the
// playground's storage view draws a record's), is named as the record's
// value JSON names it: "key", "value.decoded.group".
func NodePaths(root *tree.Node, p *Paths) []int32 { return nodePaths(root, p, 0, nil) }

// nodePaths is NodePaths given the number of nodes, when known (> 0), so
// that the paths and the table of steps take their size at once, and a
// slice to reuse for the result: the grid names the cells of every
// example on a page of the docs site through it.
func nodePaths(root *tree.Node, p *Paths, nodes int, out []int32) []int32 {
	w := pathWalk{p: p, out: out[:0]}
	if nodes > 0 {
		if cap(w.out) < nodes {
			w.out = make([]int32, 0, nodes)
		}
		if p.parent == nil {
			p.parent, p.step = make([]int32, 1, nodes+1), make([]int32, 1, nodes+1)
			p.parent[0], p.step[0] = -1, -1
		}
		if p.nameID == nil {
			// Most of a small frame's nodes have a name of their own; a
			// big one's repeat.
			p.nameID = make(map[string]int32, min(nodes, 256))
		}
		size := 16
		for 3*size < 4*nodes+4 { // under three quarters full with a path per node
			size *= 2
		}
		if len(p.steps.slots) < size {
			p.steps.slots, p.steps.n = make([]stepSlot, size), 0
		}
	}
	if root.Role == tree.RoleRecord && (root.Name == "key" || root.Name == "value") {
		at := p.child(Root, root.Name, -1)
		w.walk(root, at, scope{in: inKV, at: at})
		return w.out
	}
	w.walk(root, Root, scope{at: -1})
	return w.out
}

// pathWalk is NodePaths' walk: the paths, in pre-order.
type pathWalk struct {
	p   *Paths
	out []int32
}

// scope is what the paths of a node's children depend on, besides the
// node and its path.
type scope struct {
	in   where
	list bool  // the node lists entries (batches, messages): bytes left undecoded among them are an entry {"_raw": ...}
	raw  bool  // bytes left undecoded below are in the "_raw" of the entry at path at (a batch, a legacy message)
	at   int32 // where bytes left undecoded below are shown (with raw, the entry's path), or -1: the parent's path
}

func (w *pathWalk) walk(n *tree.Node, path int32, s scope) {
	p := w.p
	w.out = append(w.out, path)
	// The entries of records (batches, messages, records, headers)
	// are elements of an array in the JSON: number them in order.
	entries := int32(0)
	var decoded *tree.Node // a key's or value's "decoded", as tree's Get finds it
	if s.in == inKV {
		decoded = n.Get("decoded")
	}
	for _, k := range n.Children {
		var c int32
		ks := scope{in: s.in.child(n, k, decoded), raw: s.raw, at: s.at}
		switch {
		case k.Role == tree.RoleRaw:
			switch {
			case s.list:
				c = p.child(p.child(path, "", entries), "_raw", -1)
				entries++
			case s.raw:
				c = p.child(s.at, "_raw", -1)
			case s.at >= 0:
				c = s.at
			default:
				c = path
			}
		case s.in != inPayload && IsEntry(k):
			c = p.child(path, "", entries)
			entries++
			if k.Flags&tree.Truncated != 0 {
				// An entry cut short is {"_truncated": ...}, all of it.
				w.out = append(w.out, c)
				w.all(k.Children, p.child(c, "_truncated", -1))
				continue
			}
			if k.Type != "Record" && k.Type != "Header" {
				ks.raw, ks.at = true, c // a batch, a legacy message
			}
		case s.in == inControlKV:
			c = controlPath(p, n, k, path)
		case ks.in == inPayload && s.in != inPayload, s.in == inKV && k.Role == tree.RoleField && k == decoded:
			// The data a payload decoder read (its node "avro",
			// "protobuf" or "json"), or the message an internal
			// topic's record holds (its node named after its schema):
			// the key's or value's "decoded", as tree's Get names it.
			c = p.child(path, "decoded", -1)
		case s.in == inPayload:
			c = payloadPath(p, n, k, path)
		case ks.in == inKV && n.Type == "Message" && k.Name == "value" && n.Get("messages") != nil:
			// A wrapper message's value: the JSON lists the messages
			// it decompressed to as its "messages".
			c = p.child(path, "messages", -1)
			ks.list = true
		default:
			c = childPath(p, n, k, path)
		}
		if ks.in == inKV {
			ks.raw, ks.at = false, c
		}
		if s.in != inPayload && k.Kind == schema.Records && k.Role != tree.RoleRecord || s.list && k.Role == tree.RoleRecord && k.Name == "inflated" {
			// A records field, or what a wrapper message decompressed
			// to, lists entries; a batch's records (and what it
			// decompressed to), records alone.
			ks.list = true
		}
		w.walk(k, c, ks)
	}
}

// all gives nodes and everything below them path.
func (w *pathWalk) all(nodes []*tree.Node, path int32) {
	for _, k := range nodes {
		w.out = append(w.out, path)
		w.all(k.Children, path)
	}
}

// where says what made a node: the codec's walk and the records reader,
// or a payload decoder.
type where uint8

const (
	inFrame     where = iota
	inKV              // a record's or message's key or value, as the records reader made it
	inPayload         // under a key or value, what a payload decoder read
	inControl         // inside a control batch, above its records' keys and values
	inControlKV       // a control record's key or value, whose fields the JSON shows in its "control"
)

// child says what made k, a child of n, which in says of n; decoded is
// n's "decoded" when n is a key or value (inKV).
func (in where) child(n, k, decoded *tree.Node) where {
	switch in {
	case inPayload:
		return inPayload
	case inKV:
		if k.Role == tree.RoleRecord && k == decoded {
			// The data a payload decoder read, told as tree's Get
			// tells it (by its place and type): the JSON shows it as
			// the member "decoded". The payload's framing (magic,
			// schemaId, messageIndexes) has members of its own names.
			return inPayload
		}
		return inFrame
	case inControlKV:
		return inFrame // a KRaft data message's fields: the codec's walk made them
	}
	if k.Role == tree.RoleRecord && (k.Name == "key" || k.Name == "value") && IsEntry(n) && n.Type != "Header" {
		if in == inControl && n.Type == "Record" {
			return inControlKV
		}
		return inKV
	}
	if in == inControl || k.Type == "RecordBatch" && IsEntry(k) && controlBatch(k) {
		return inControl
	}
	return inFrame
}

// controlBatch reports whether batch b has its attributes' control bit
// set: its records are control records.
func controlBatch(b *tree.Node) bool {
	a := b.Get("attributes")
	return a != nil && a.Int&0x20 != 0
}

// controlPath is the path of k, a child of n, a control record's key or
// value at path: the JSON shows the fields of both as members of the
// record's "control" ("keyVersion", "type"; "valueVersion" and
// "coordinatorEpoch" of a marker, "data" of a KRaft value); what follows
// them ("rest") has no member, and takes the key's or value's own path.
func controlPath(p *Paths, n, k *tree.Node, path int32) int32 {
	name := ""
	switch {
	case n.Name == "key" && k.Name == "version":
		name = "keyVersion"
	case n.Name == "key" && k.Name == "type":
		name = "type"
	case n.Name == "value" && k.Name == "version":
		name = "valueVersion"
	case n.Name == "value" && k.Name == "coordinatorEpoch":
		name = "coordinatorEpoch"
	case n.Name == "value" && (k.Kind == schema.Struct || k.Name == "data"):
		name = "data"
	default:
		return path
	}
	return p.child(p.child(p.parent[path], "control", -1), name, -1)
}

// IsEntry reports whether n is an entry of records as the records reader
// makes it: a batch, a legacy message, a record or a header, each a struct
// of its own type (a payload's nodes have types "avro ...", "json ...",
// "protobuf ..."), not a payload's member of such a name.
func IsEntry(n *tree.Node) bool {
	if n.Role != tree.RoleRecord || n.Kind != schema.Struct {
		return false
	}
	switch n.Type {
	case "RecordBatch", "Message", "Record", "Header":
		return true
	}
	return false
}

// payloadPath is the path of k, a node a payload decoder made under n at
// path: a member by its name, an element by its index, framing (a
// closing bracket, block counts) and a map entry's key and value on their
// container's path. A Protobuf repeated field's nodes, each named by its
// field, its Index the index of its (first) element, are elements of the
// field's array in the JSON (a packed run is several, each element with
// its index in the field's array: the run gets the array's path); a map
// field's entry is the member of its key in the field's object.
func payloadPath(p *Paths, n, k *tree.Node, path int32) int32 {
	switch {
	case k.Role == tree.RoleFraming:
		return path
	case k.Role == tree.RoleElement:
		return p.child(path, "", int32(k.Index))
	case n.Type == "avro map entry", protoMapEntry(n) && protoKnown(k):
		return path // the entry's key and value: the member the entry is
	case protoMapEntry(k):
		arr := p.child(path, k.Name, -1)
		if key, ok := protoMapKey(k); ok {
			return p.child(arr, key, -1)
		}
		return arr
	}
	if !protoRepeated(k) {
		return p.child(path, k.Name, -1)
	}
	arr := p.child(path, k.Name, -1)
	if k.Kind == schema.Array {
		return arr // a packed run: its elements have their own indexes
	}
	return p.child(arr, "", int32(k.Index))
}

// protoKnown reports whether k is a field of a Protobuf message its
// schema has (of a wire type that carries it), which the JSON shows:
// protojson leaves unknown fields out.
func protoKnown(k *tree.Node) bool {
	return strings.HasPrefix(k.Type, "protobuf ") && !strings.HasPrefix(k.Type, "protobuf unknown field")
}

// protoRepeated reports whether k is an occurrence of a repeated field of
// a Protobuf message (codec/payload gives its node, named by the field's
// JSON name, the Index of its first element in the field's array, -1 to
// any other).
func protoRepeated(k *tree.Node) bool {
	return protoKnown(k) && k.Role != tree.RoleElement && k.Index >= 0
}

// protoMapEntry reports whether n is an entry of a Protobuf map field
// (codec/payload's type "protobuf map<K, V> entry").
func protoMapEntry(n *tree.Node) bool {
	return strings.HasPrefix(n.Type, "protobuf map<") // no message's full name starts "map<"
}

// protoMapKey is the key of map entry e as protojson writes it, a member
// name: a string as it is, an integer in decimal, a bool as true or
// false; the last key read, as Protobuf parsers take it. An entry with no
// key read has its type's default, as Protobuf parsers take it: "", false
// or 0, by the key type its node's type names ("protobuf map<K, V>
// entry").
func protoMapKey(e *tree.Node) (string, bool) {
	var key *tree.Node
	for _, c := range e.Children {
		if c.Name == "key" && protoKnown(c) {
			key = c
		}
	}
	switch {
	case key != nil:
	case strings.HasPrefix(e.Type, "protobuf map<string,"):
		return "", true
	case strings.HasPrefix(e.Type, "protobuf map<bool,"):
		return "false", true
	default:
		return "0", true
	}
	switch key.Kind {
	case schema.String:
		return string(key.Raw), true
	case schema.Bool:
		return strconv.FormatBool(key.Int != 0), true
	case schema.Int64:
		return strconv.FormatInt(key.Int, 10), true
	}
	return "", false
}

func childPath(p *Paths, parent, n *tree.Node, path int32) int32 {
	switch n.Role {
	case tree.RoleHeader, tree.RoleBody, tree.RoleSize, tree.RoleTrailing, tree.RoleRaw:
		return p.child(Root, n.Name, -1)
	case tree.RoleTags, tree.RoleFraming:
		return path // a tag section's fields are the struct's; a closing bracket, its container's
	case tree.RoleElement:
		return p.child(path, "", int32(n.Index))
	case tree.RoleUnknownTag:
		return p.child(path, "_unknownTaggedFields", -1)
	case tree.RoleRecord:
		if n.Name == "inflated" { // what a batch or wrapper message decompressed: the payload's own nodes never get here
			return path
		}
	}
	name := n.Name
	if n.Field != nil {
		name = n.Field.JSON
	}
	return p.child(path, name, -1)
}

// JSONLines describes indented JSON (as jsontext.Indent writes it) line by
// line: Paths[i] is the number of the path of the value that starts on
// line i (or, for a closing bracket, of the value it closes), and Span
// gives a path's first and last line.
type JSONLines struct {
	Paths []int32
	spans [][2]int32 // by path number; {-1, -1}: no line
}

// Has reports whether path id has lines.
func (l *JSONLines) Has(id int32) bool { return int(id) < len(l.spans) && l.spans[id][0] >= 0 }

// Span is the first and last line of path id's value: {0, 0} when it has
// none.
func (l *JSONLines) Span(id int32) [2]int32 {
	if !l.Has(id) {
		return [2]int32{}
	}
	return l.spans[id]
}

func (l *JSONLines) set(id int32, first, last int32) {
	for int(id) >= len(l.spans) {
		l.spans = append(l.spans, [2]int32{-1, -1})
	}
	l.spans[id] = [2]int32{first, last}
}

// ScanJSONLines reads the paths of indented JSON, numbering them in p. It
// expects the layout jsontext.Indent writes: one member or element per
// line, a container's closing bracket on a line of its own.
func ScanJSONLines(js []byte, p *Paths) JSONLines {
	type frame struct {
		path  int32
		array bool
		n     int32
		start int32
	}
	var out JSONLines
	var stack []frame
	line := int32(0)
	for i := 0; i < len(js); {
		// One line: [indent] ["key": ] value-start ... [,]
		j := bytes.IndexByte(js[i:], '\n')
		if j < 0 {
			j = len(js)
		} else {
			j += i
		}
		l := js[i:j]
		k := 0
		for k < len(l) && l[k] == ' ' {
			k++
		}
		l = l[k:]
		path := int32(Root)
		switch {
		case len(l) > 0 && (l[0] == '}' || l[0] == ']'):
			if len(stack) > 0 {
				f := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				path = f.path
				out.set(path, f.start, line)
			}
		default:
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				if top.array {
					path = p.child(top.path, "", top.n)
					top.n++
				} else if key, rest, ok := memberKey(l); ok {
					path = p.memberBytes(top.path, key)
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
				out.set(path, line, line)
			}
		}
		out.Paths = append(out.Paths, path)
		line++
		i = j + 1
	}
	return out
}

// memberKey splits `"key": rest` into the key's text and rest.
func memberKey(l []byte) ([]byte, []byte, bool) {
	if len(l) < 2 || l[0] != '"' {
		return nil, nil, false
	}
	escaped := false
	for i := 1; i < len(l); i++ {
		switch l[i] {
		case '\\':
			i++
			escaped = true
		case '"':
			if i+2 < len(l) && l[i+1] == ':' && l[i+2] == ' ' {
				key := l[1:i]
				if escaped {
					if s, err := strconv.Unquote(string(l[:i+1])); err == nil {
						key = []byte(s)
					}
				}
				return key, l[i+3:], true
			}
			return nil, nil, false
		}
	}
	return nil, nil, false
}
