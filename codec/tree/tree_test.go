package tree

import (
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// node makes a node spanning [start, end) of buffer 0 with children.
func node(name string, role Role, start, end int, kids ...*Node) *Node {
	n := &Node{Name: name, Role: role, Index: -1, Tag: -1, Start: start, TagEnd: start, SizeEnd: start, PrefixEnd: start, End: end}
	n.Children = kids
	return n
}

// field makes a schema field node whose JSON name differs from Kafka's.
func field(kafka, json string, start, end int, kids ...*Node) *Node {
	n := node(kafka, RoleField, start, end, kids...)
	n.Field = &schema.Field{Name: kafka, JSON: json, Tag: -1}
	return n
}

func elem(i, start, end int, kids ...*Node) *Node {
	n := node("", RoleElement, start, end, kids...)
	n.Index = i
	return n
}

// frame is a small Metadata-like response:
//
//	frame [0,40)
//	  size [0,4)
//	  header [4,8)  CorrelationId [4,8)
//	  body [8,40)
//	    ThrottleTimeMs [8,12)
//	    Topics [12,38) (count prefix to 13)
//	      [0] [13,25)  Name [13,19), ErrorCode [19,21), _tagged [21,25) { TopicId [22,25) tagged }
//	      [1] [25,38)  Name [25,31), ErrorCode [31,33), _tagged [33,38)
//	    _tagged [38,40)
func frame() *Node {
	tagged := field("TopicId", "topicId", 22, 25)
	tagged.Flags |= Tagged
	tagged.Tag, tagged.TagEnd, tagged.SizeEnd, tagged.PrefixEnd = 0, 23, 24, 24
	t0 := elem(0, 13, 25, field("Name", "name", 13, 19), field("ErrorCode", "errorCode", 19, 21),
		node("_tagged", RoleTags, 21, 25, tagged))
	t1 := elem(1, 25, 38, field("Name", "name", 25, 31), field("ErrorCode", "errorCode", 31, 33),
		node("_tagged", RoleTags, 33, 38))
	topics := field("Topics", "topics", 12, 38, t0, t1)
	topics.PrefixEnd = 13
	return node("frame", RoleFrame, 0, 40,
		node("size", RoleSize, 0, 4),
		node("header", RoleHeader, 4, 8, field("CorrelationId", "correlationId", 4, 8)),
		node("body", RoleBody, 8, 40, field("ThrottleTimeMs", "throttleTimeMs", 8, 12), topics, node("_tagged", RoleTags, 38, 40)))
}

func TestRoleString(t *testing.T) {
	want := map[Role]string{RoleField: "field", RoleElement: "element", RoleFrame: "frame", RoleSize: "size",
		RoleHeader: "header", RoleBody: "body", RoleTags: "tags", RoleUnknownTag: "unknownTag",
		RoleTrailing: "trailing", RoleRaw: "raw", RoleRecord: "record", RoleFraming: "framing"}
	for r, s := range want {
		require.Equal(t, s, r.String())
	}
	require.Equal(t, "role", Role(200).String(), "an unknown role still prints")
}

// Spans: Size, ValueStart after a tagged field's tag and size, DataStart
// after a length or count prefix unless a child covers the prefix.
func TestSpans(t *testing.T) {
	f := frame()
	body := f.Get("body")
	topics := body.Get("topics")
	require.Equal(t, 40, f.Size())
	require.Equal(t, 26, topics.Size())
	require.Equal(t, 12, topics.ValueStart(), "untagged: the value starts at Start")
	require.Equal(t, 13, topics.DataStart(), "after the count prefix")

	id := topics.Children[0].Get("_tagged").Get("topicId")
	require.Equal(t, 24, id.ValueStart(), "after the tag number and size")
	require.Equal(t, 24, id.DataStart(), "no prefix of its own")

	// A record whose length child covers its prefix: the data starts with
	// the child, not after the prefix.
	rec := node("record", RoleRecord, 50, 60, node("length", RoleRecord, 50, 51), node("attributes", RoleRecord, 51, 52))
	rec.PrefixEnd = 51
	require.Equal(t, 50, rec.DataStart())
	// A child in another buffer (decompressed) does not count.
	inflated := node("inflated", RoleRecord, 0, 100)
	inflated.Buf = 1
	recs := node("records", RoleRecord, 70, 90, inflated)
	recs.PrefixEnd = 74
	require.Equal(t, 74, recs.DataStart())
}

func TestBitView(t *testing.T) {
	attr := node("attributes", RoleRecord, 10, 12,
		&Node{Name: "compression", Type: "bits 0-2", Start: 10, End: 12},
		&Node{Name: "timestampType", Type: "bit 3", Start: 10, End: 12})
	require.True(t, attr.BitView())
	require.False(t, node("x", RoleRecord, 10, 12).BitView(), "no children")
	attr.Children[1].End = 11
	require.False(t, attr.BitView(), "a child with its own span")
	attr.Children[1].End, attr.Children[1].Type = 12, "int8"
	require.False(t, attr.BitView(), "a child that is not a bit")
	attr.Children[1].Type = "bit 3"
	attr.Children[1].Buf = 1
	require.False(t, attr.BitView(), "a child in another buffer")
}

// Get looks at n's own children (and its tag section), not deeper, and
// takes the first of two of the same name.
func TestGetDirectChildren(t *testing.T) {
	f := frame()
	require.Equal(t, RoleHeader, f.Get("header").Role)
	require.Nil(t, f.Get("topics"), "Get looks at direct children only")
	dup := node("p", RoleBody, 0, 2, node("a", RoleField, 0, 1), node("a", RoleField, 1, 2))
	require.Equal(t, 0, dup.Get("a").Start, "the first of two")
}

func TestWalk(t *testing.T) {
	f := frame()
	var names []string
	require.True(t, Walk(f, func(n *Node) bool { names = append(names, n.Name); return true }))
	require.Equal(t, []string{"frame", "size", "header", "CorrelationId", "body", "ThrottleTimeMs", "Topics",
		"", "Name", "ErrorCode", "_tagged", "TopicId", "", "Name", "ErrorCode", "_tagged", "_tagged"}, names, "depth first, in order")

	var seen int
	require.False(t, Walk(f, func(n *Node) bool { seen++; return n.Name != "Topics" }), "stopped")
	require.Equal(t, 7, seen, "nothing after the node that said stop")
	require.True(t, Walk(nil, func(*Node) bool { panic("called") }))
}

// Get takes JSON names only (not Kafka's), looks into the tagged-field
// section, and finds a wrapper message's "messages".
func TestGet(t *testing.T) {
	f := frame()
	body := f.Get("body")
	topics := body.Children[1]
	require.Same(t, topics, body.Get("topics"))
	require.Nil(t, body.Get("Topics"), "Kafka's name is not the JSON name")
	t0 := body.Get("topics").elem(0)
	require.Equal(t, 22, t0.Get("topicId").Start, "inside _tagged")
	require.Nil(t, t0.Get("TopicId"))
	require.Nil(t, t0.Get("nope"))
	require.Nil(t, (*Node)(nil).Get("x"))

	// As the records reader makes them: a message of type Message, its
	// decompressed bytes of type "gzip inflated".
	inflated := node("inflated", RoleRecord, 0, 30)
	inflated.Kind, inflated.Type = schema.Bytes, "gzip inflated"
	msg := node("message", RoleRecord, 0, 60, node("offset", RoleRecord, 0, 8), node("value", RoleRecord, 30, 60, inflated))
	msg.Kind, msg.Type = schema.Struct, "Message"
	require.Equal(t, inflated, msg.Get("messages"))
	empty := node("message", RoleRecord, 0, 60, node("value", RoleRecord, 30, 60))
	empty.Type = "Message"
	require.Nil(t, empty.Get("messages"))
	// A payload's object with a member "value" whose one member is
	// "inflated" (an Avro record's field, of a record type "inflated" too)
	// has no "messages".
	member := node("inflated", RoleRecord, 0, 30)
	member.Kind, member.Type = schema.Struct, "avro record inflated"
	obj := node("avro", RoleRecord, 0, 60, node("value", RoleRecord, 30, 60, member))
	obj.Kind, obj.Type = schema.Struct, "avro record R"
	require.Nil(t, obj.Get("messages"))
}

// Elem, Elems and Count list what value JSON lists: array elements; a
// records field's batches, messages and raw rest; a batch's records only
// (inside "inflated" when compressed); a record's headers; a wrapper's
// messages. A batch, record or header, objects in value JSON, list none.
func TestElem(t *testing.T) {
	f := frame()
	topics := f.Get("body").Get("topics")
	require.Equal(t, 25, topics.elem(1).Start)
	require.Nil(t, topics.elem(2))
	require.Nil(t, topics.elem(-1))
	require.Nil(t, (*Node)(nil).elem(0))
	require.Equal(t, 2, topics.Count())
	require.Zero(t, (*Node)(nil).Count())
	var starts []int
	for i, e := range topics.Elems() {
		require.Equal(t, len(starts), i)
		starts = append(starts, e.Start)
	}
	require.Equal(t, []int{13, 25}, starts)

	kind := func(n *Node, k schema.Kind) *Node { n.Kind = k; return n }
	leaf := func(name string, start, end int) *Node { return kind(node(name, RoleRecord, start, end), schema.Int32) }
	header := func(start int) *Node {
		h := kind(node("header", RoleRecord, start, start+4, leaf("key", start, start+2), leaf("value", start+2, start+4)), schema.Struct)
		h.Type = "Header"
		return h
	}
	headers := kind(node("headers", RoleRecord, 0, 9, header(1), header(5)), schema.Array)
	headers.Type = "[]Header"
	require.Equal(t, 5, headers.elem(1).Start, "a record's header i")
	require.Equal(t, 2, headers.Count())
	rec := func(start int) *Node {
		r := kind(node("record", RoleRecord, start, start+10, leaf("length", start, start+1), leaf("attributes", start+1, start+2), headers), schema.Struct)
		r.Type = "Record"
		return r
	}
	gz := kind(node("inflated", RoleRecord, 0, 30, rec(0), rec(10), node("partial", RoleRaw, 20, 30)), schema.Bytes)
	gz.Type = "gzip inflated"
	batchRecords := kind(node("records", RoleRecord, 61, 100, gz), schema.Records)
	require.Equal(t, 10, batchRecords.elem(1).Start, "inside inflated")
	require.Nil(t, batchRecords.elem(2), "a batch's records list records only")
	require.Equal(t, 2, batchRecords.Count())
	batch := kind(node("batch", RoleRecord, 0, 80, leaf("baseOffset", 0, 8), leaf("batchLength", 8, 12), batchRecords), schema.Struct)

	recordsField := kind(field("Records", "records", 0, 100, batch, node("raw", RoleRaw, 80, 100)), schema.Records)
	require.Equal(t, 80, recordsField.elem(1).Start, "bytes left undecoded are an entry")
	require.Equal(t, 2, recordsField.Count())

	// What value JSON shows as an object holds no list: a batch's records
	// are its "records", a record's headers its "headers".
	for _, n := range []*Node{batch, rec(0), header(0), batch.Get("baseOffset")} {
		require.Zero(t, n.Count(), n.Name)
		require.Nil(t, n.elem(0), n.Name)
	}
	require.Equal(t, 2, batch.Get("records").Count())
	require.Equal(t, 2, rec(0).Get("headers").Count())
	inflated := kind(node("inflated", RoleRecord, 0, 30, kind(node("message", RoleRecord, 0, 20, leaf("offset", 0, 8)), schema.Struct)), schema.Bytes)
	inflated.Type = "gzip inflated"
	msg := kind(node("message", RoleRecord, 0, 60, leaf("offset", 0, 8), kind(node("value", RoleRecord, 30, 60, inflated), schema.Bytes)), schema.Struct)
	msg.Type = "Message"
	require.Zero(t, msg.Count())
	require.Equal(t, 1, msg.Get("messages").Count(), "a wrapper's messages")
}

func TestLookup(t *testing.T) {
	f := frame()
	for path, start := range map[string]int{
		"body.topics[1].name":          25,
		"body.topics[0].errorCode":     19,
		"body.topics[0].topicId":       22,
		"header.correlationId":         4,
		"body.topics[1]":               25,
		"body.throttleTimeMs":          8,
		"body.topics[0000000001].name": 25,
	} {
		n, err := f.Lookup(path)
		require.NoError(t, err, path)
		require.NotNil(t, n, path)
		require.Equal(t, start, n.Start, path)
	}
	topic, err := f.Lookup("body.topics[0]")
	require.NoError(t, err)
	n, err := topic.Lookup("errorCode")
	require.NoError(t, err)
	require.Equal(t, 19, n.Start, "relative to any node")
	for _, path := range []string{"", ".", "body.", "body..topics", "body.[0]", "body.topics[", "body.topics[]",
		"body.topics[x]", "body.topics[0", "body.topics[2]", "body.nope", "body.topics[99999999999999999999]",
		"body.Topics[0].ErrorCode"} {
		n, err := f.Lookup(path)
		require.Nil(t, n, "%q", path)
		require.Error(t, err, "%q", path)
	}
	// The error names the step that failed and what was there instead.
	for path, msg := range map[string]string{
		"body.nope":                `tree: path "body.nope": no "nope" (there: throttleTimeMs, topics) after body`,
		"body.Topics[0].ErrorCode": `tree: path "body.Topics[0].ErrorCode": no "Topics" (there: throttleTimeMs, topics) after body`,
		"body.topics[2]":           `tree: path "body.topics[2]": no item 2 (2 there) after body.topics`,
		"body.topics[0].nope":      `tree: path "body.topics[0].nope": no "nope" (there: name, errorCode, topicId) after body.topics[0]`,
		"nope":                     `tree: path "nope": no "nope" (there: size, header, body) after the start`,
		"":                         `tree: path "": an empty path after the start`,
	} {
		_, err := f.Lookup(path)
		require.EqualError(t, err, msg)
	}
}

// A payload reader's nodes keep their own values: a JSON member named
// "record" or "batch" is no Kafka record or batch (the records reader's
// are told by their types).
func TestValuePayloadNamesLikeRecords(t *testing.T) {
	num := node("qty", RoleRecord, 5, 6)
	num.Kind, num.Int = schema.Int64, 2
	obj := node("record", RoleRecord, 0, 10, num)
	obj.Kind, obj.Type = schema.Struct, "json object"
	require.Equal(t, map[string]any{"qty": int64(2)}, obj.Value())
	obj.Name = "batch"
	require.Equal(t, map[string]any{"qty": int64(2)}, obj.Value())
	require.Zero(t, obj.Count())
}
