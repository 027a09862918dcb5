package tree

import (
	"errors"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// Names: Get, Lookup and paths name a node as value JSON does: a schema
// field by its JSON name ("topicId", "errorCode"), the parts of record
// batches, records and messages by theirs ("baseOffset", "key",
// "headers"), the frame's parts "size", "header" and "body". (Node.Name
// holds Kafka's name of a field, "TopicId", for display.) Value JSON's
// names that no bytes hold have no node: a record's "offset" (the record
// node's Int) and "timestamp" (in its batch's Value), a batch's
// "_sizeInBytes" and the like; the framing Encode computes has nodes
// that value JSON leaves out: "batchLength", "recordCount", a record's
// "length", a message's "messageSize". What a payload reader
// (codec/payload) decoded from a record's or message's key or value is
// that key's or value's "decoded", as in value JSON (its Name, "avro",
// "protobuf" or "json", says its format, for display); the payload's
// framing has its own names ("magic", "schemaId", "messageIndexes") and
// the payload's members theirs, whatever they are ("json" and "decoded"
// too). So is the message of an internal topic's key or value, as
// "__consumer_offsets" records hold ("OffsetCommitKey"), after the
// integers that frame it ("type", "version"). A control record's key
// and value hold their fields as children ("version", "type",
// "coordinatorEpoch", a KRaft data message), which value JSON shows in
// the record's "control" member instead. A Protobuf repeated field's
// occurrences are nodes of the field's name, each with Index its (first)
// element's index in the field's array (a packed run holds elements):
// Get gives the first, and Lookup's "name[i]" element i of the array
// value JSON shows, over all occurrences. A Protobuf map field's entries
// are nodes of the field's name too (of type "protobuf map<K, V>
// entry"), each holding its "key" and "value": Get gives the first
// entry, and Lookup's "name.k" the value of the entry whose key is k,
// the member value JSON shows (the last entry of a key, as Protobuf
// parsers keep it).

// Get returns the child of n that holds the value named name, looking
// inside n's tagged-field section too, or nil. A wrapper message's
// "messages" is its decompressed message set, as value JSON shows it.
func (n *Node) Get(name string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if n.childName(c) == name && c.Role != RoleFraming {
			return c
		}
	}
	for _, c := range n.Children {
		if c.Role == RoleTags {
			if t := c.Get(name); t != nil {
				return t
			}
		}
	}
	if name == "messages" && n.Role == RoleRecord && n.Type == "Message" {
		if v := n.Get("value"); v != nil && len(v.Children) == 1 && v.Children[0].inflated() {
			return v.Children[0]
		}
	}
	return nil
}

// name is n's name in value JSON: a field's JSON name, else Name.
func (n *Node) name() string {
	if n.Field != nil && n.Role != RoleElement {
		return n.Field.JSON
	}
	return n.Name
}

// childName is the name of c, a child of n, in value JSON: "decoded"
// for the data a payload reader decoded from n (see decoded), else c's
// own.
func (n *Node) childName(c *Node) string {
	if n.decoded(c) {
		return "decoded"
	}
	return c.name()
}

// decoded reports whether c, a child of n, is what was decoded from n, a
// record's or legacy message's key or value: the node value JSON shows
// as n's member "decoded". That is the data a payload reader read
// (codec/payload names it "avro", "protobuf" or "json"), or the message
// of an internal topic's key or value (named after its schema,
// "OffsetCommitKey"). It is told by place and type, not by name: n is
// the records reader's key or value, bytes of type "varbytes" or
// "bytes" (a payload's own nodes have types that start with its
// format's name); c's type names a payload format ("avro record Order",
// "protobuf message pkg.Order", "json object"), as the payload's
// framing's (magic "int8", schemaId "int32", messageIndexes "varints")
// and decompressed bytes' ("gzip inflated") do not; or c is a struct the
// codec's walk read (a field's role) after the integers that frame an
// internal topic's part (its "type", "version"), which a control
// record's data message, its value's only child and shown as its
// "control"'s "data", is not. The members are below c, so one named
// "json" or "decoded" keeps its own name.
func (n *Node) decoded(c *Node) bool {
	if n.Role != RoleRecord || n.Kind != schema.Bytes || n.Name != "key" && n.Name != "value" || n.Type != "varbytes" && n.Type != "bytes" {
		return false
	}
	if c.Role == RoleField {
		return c.Kind == schema.Struct && len(n.Children) > 1 && n.Children[0] != c && n.Children[0].Role == RoleRecord
	}
	if c.Role != RoleRecord {
		return false
	}
	switch format, _, ok := strings.Cut(c.Type, " "); {
	case !ok:
		return false
	case format == "avro", format == "protobuf", format == "json":
		return true
	}
	return false
}

// Elems iterates over the items of the list n holds, as value JSON lists
// them: an array's elements (a record's "headers" among them), a records
// field's or message set's entries (batches, messages, bytes left
// undecoded; a wrapper message's "messages", as Get gives them), the
// records of a batch's "records" (inside their decompressed buffer when
// compressed). A node value JSON shows as an object or a single value
// holds no list: a struct, a batch, a message, a record, a header, a key
// or value (whatever nodes a payload reader hung under it), so Elems of
// a batch yields nothing: its records are Get("records").Elems().
func (n *Node) Elems() iter.Seq2[int, *Node] {
	return func(yield func(int, *Node) bool) {
		if n == nil {
			return
		}
		kids := n.Children
		onlyRecords := n.Role == RoleRecord && n.Kind == schema.Records // a batch's records: JSON lists only the records
		entries := !onlyRecords && (n.Kind == schema.Records || n.inflated())
		headers := n.Role == RoleRecord && n.Kind == schema.Array && n.Type == "[]Header" // a record's headers, not a payload's member "headers"
		if (entries || onlyRecords) && len(kids) == 1 && kids[0].inflated() {
			kids = kids[0].Children
		}
		i := 0
		for _, c := range kids {
			switch {
			case c.Role == RoleElement:
			case onlyRecords:
				if c.Type != "Record" {
					continue
				}
			case entries && (c.Role == RoleRecord || c.Role == RoleRaw):
			case headers && c.Role == RoleRecord:
			default:
				continue
			}
			if !yield(i, c) {
				return
			}
			i++
		}
	}
}

// inflated reports whether n is the records reader's node of
// decompressed bytes ("gzip inflated"), not a payload's member of that
// name: its type is a compression codec's name and " inflated", which no
// payload's type is (theirs start "avro ", "json ", "protobuf "; an Avro
// record or enum named "inflated" is of type "avro record inflated").
func (n *Node) inflated() bool {
	if n.Role != RoleRecord || n.Kind != schema.Bytes || n.Name != "inflated" {
		return false
	}
	codec, ok := strings.CutSuffix(n.Type, " inflated")
	if !ok {
		return false
	}
	switch codec {
	case "gzip", "snappy", "lz4", "zstd":
		return true
	}
	return false
}

// elem returns item i of the list n holds (see Elems), or nil: Lookup's
// step "[i]". Not exported: it walks i items to find one, so a loop over
// it would be quadratic where Elems is linear.
func (n *Node) elem(i int) *Node {
	for j, c := range n.Elems() {
		if j == i {
			return c
		}
	}
	return nil
}

// Count is the number of items of the list n holds (see Elems).
func (n *Node) Count() int {
	k := 0
	for range n.Elems() {
		k++
	}
	return k
}

// Lookup follows a path from n: names joined by dots, each optionally
// followed by [i] indexes, as in error paths and value JSON:
// "body.topics[0].partitions[2]" from a frame's root,
// "partitions[2].errorCode" from a topic. When a step is missing the error
// says which, and what was there instead. On a nil n (what Get gives for
// a name not there) it is an error too, so calls chain.
func (n *Node) Lookup(path string) (*Node, error) {
	cur, done := n, ""
	var up *Node // cur's parent, when a name step reached cur
	fail := func(msg string) (*Node, error) {
		if done == "" {
			done = "the start"
		}
		return nil, errors.New("tree: path " + strconv.Quote(path) + ": " + msg + " after " + done)
	}
	if n == nil {
		return nil, errors.New("tree: path " + strconv.Quote(path) + ": no node to start from (nil)")
	}
	if path == "" {
		return fail("an empty path")
	}
	// mapStep steps from cur, an entry of a Protobuf map (up its
	// parent), to the value of the entry whose key is path[i:j].
	i := 0
	mapStep := func(j int) string {
		key := path[i:j]
		entry := up.protoMapEntryOf(cur.Name, key)
		if entry == nil {
			return "no key " + strconv.Quote(key) + " in map " + strconv.Quote(cur.Name) + " (keys there: " + up.protoMapKeys(cur.Name) + ")"
		}
		if cur = entry.Get("value"); cur == nil {
			return "no bytes of the value of key " + strconv.Quote(key) + " in map " + strconv.Quote(entry.Name) + " (value JSON shows its type's default)"
		}
		done, up = path[:j], entry
		return ""
	}
	for i < len(path) {
		switch path[i] {
		case '.':
			i++
			switch empty := i == len(path) || path[i] == '.' || path[i] == '['; {
			case empty && up != nil && cur.protoMapEntry():
				// The empty key, a map's default one ("byKey..x").
				if msg := mapStep(i); msg != "" {
					return fail(msg)
				}
			case empty:
				return fail("a name missing")
			}
		case '[':
			j := i + 1
			idx := 0
			for j < len(path) && path[j] >= '0' && path[j] <= '9' && idx < 1<<30 {
				idx = idx*10 + int(path[j]-'0')
				j++
			}
			if j == i+1 || j == len(path) || path[j] != ']' {
				return fail("a malformed index")
			}
			if up != nil && cur.protoMapEntry() {
				return fail("no item: " + strconv.Quote(cur.Name) + " is a map, whose values are named by their keys (" + up.protoMapKeys(cur.Name) + ")")
			}
			next, count := cur.elem(idx), -1
			if up != nil && cur.protoRepeated() {
				next, count = up.protoElem(cur.Name, idx)
			}
			if next == nil {
				if count < 0 {
					count = cur.Count()
				}
				return fail("no item " + strconv.Itoa(idx) + " (" + strconv.Itoa(count) + " there)")
			}
			cur, done, up = next, path[:j+1], nil
			i = j + 1
		default:
			j := i
			for j < len(path) && path[j] != '.' && path[j] != '[' {
				j++
			}
			if up != nil && cur.protoMapEntry() {
				if msg := mapStep(j); msg != "" {
					return fail(msg)
				}
				i = j
				continue
			}
			next := cur.Get(path[i:j])
			if next == nil {
				why := ""
				if name := path[i:j]; cur.Type == "Record" && (name == "offset" || name == "timestamp") {
					why = "a record's offset and timestamp are no bytes of its own: its Int is its offset, its batch's Value gives both; "
				}
				there := "there: " + strings.Join(cur.names(), ", ")
				if cur.Kind == schema.Array {
					there = "a list: index it, as [0]"
				}
				return fail("no " + strconv.Quote(path[i:j]) + " (" + why + there + ")")
			}
			cur, done, up = next, path[:j], cur
			i = j
		}
	}
	return cur, nil
}

// names lists the names Get finds among n's children, a Protobuf
// repeated field once (by its occurrence of the first element).
func (n *Node) names() []string {
	var out []string
	for _, c := range n.Children {
		switch {
		case c.Role == RoleTags:
			out = append(out, c.names()...)
		case c.Role == RoleElement || c.Role == RoleRaw || c.Role == RoleUnknownTag || c.Role == RoleTrailing || c.Role == RoleFraming:
		case c.protoRepeated() && c.Index > 0:
		case c.protoMapEntry() && slices.Contains(out, c.Name): // a map's entries, once
		default:
			out = append(out, n.childName(c))
		}
	}
	return out
}

// protoRepeated reports whether n is an occurrence of a Protobuf repeated
// field: codec/payload gives such a node (its type "protobuf ...") the
// Index of its first element in the field's array, -1 to its others.
func (n *Node) protoRepeated() bool {
	return n.Role == RoleRecord && n.Index >= 0 && strings.HasPrefix(n.Type, "protobuf ")
}

// protoElem returns element i of the array value JSON shows for the
// Protobuf repeated field whose occurrences are n's children named name,
// or nil; and how many elements there are. Each occurrence's Index is its
// (first) element's: the last that starts at or before i holds it, if
// any does (a packed run holds elements, its children).
func (n *Node) protoElem(name string, i int) (e *Node, count int) {
	for _, c := range n.Children {
		if c.Name == name && c.Role == RoleRecord && c.Index >= 0 { // an occurrence: a Protobuf message's children of a name are one field's
			k := 1
			if c.Kind == schema.Array {
				k = len(c.Children)
			}
			if c.Index <= i && i < c.Index+k {
				e = c
				if c.Kind == schema.Array {
					e = c.Children[i-c.Index]
				}
			}
			count = c.Index + k
		}
	}
	return e, count
}

// protoMapEntry reports whether n is an entry of a Protobuf map field:
// codec/payload types it "protobuf map<K, V> entry".
func (n *Node) protoMapEntry() bool {
	return n.Role == RoleRecord && strings.HasPrefix(n.Type, "protobuf map<") && strings.HasSuffix(n.Type, "> entry")
}

// protoMapKey is the key of map entry n as value JSON writes it, a
// member name: a string as it is, an integer in decimal (an unsigned
// 64-bit one's digits are its Raw), a bool as true or false; a key with
// no bytes is its type's default.
func (n *Node) protoMapKey() string {
	k := n.Get("key")
	switch {
	case k == nil && strings.HasPrefix(n.Type, "protobuf map<string,"):
		return ""
	case k == nil && strings.HasPrefix(n.Type, "protobuf map<bool,"):
		return "false"
	case k == nil:
		return "0"
	case k.Kind == schema.Bool:
		return strconv.FormatBool(k.Int != 0)
	case k.Kind == schema.Int64:
		return strconv.FormatInt(k.Int, 10)
	}
	return string(k.Raw)
}

// protoMapEntryOf returns the entry whose key is key among the entries
// of Protobuf map field name, n's children: the last, as Protobuf
// parsers keep a key that comes twice; nil when there is none.
func (n *Node) protoMapEntryOf(name, key string) *Node {
	var e *Node
	for _, c := range n.Children {
		if c.Name == name && c.protoMapEntry() && c.protoMapKey() == key {
			e = c
		}
	}
	return e
}

// protoMapKeys lists the keys of Protobuf map field name, n's children,
// quoted, each once, for an error.
func (n *Node) protoMapKeys(name string) string {
	var keys []string
	for _, c := range n.Children {
		if c.Name != name || !c.protoMapEntry() {
			continue
		}
		if q := strconv.Quote(c.protoMapKey()); !slices.Contains(keys, q) {
			keys = append(keys, q)
		}
	}
	return strings.Join(keys, ", ")
}
