// Package rectest is test support for the records reader
// (codec/internal/rec): the reference writer of the records JSON from a
// decoded tree, which the differential tests hold the reader's JSON sink
// to. Only tests import it.
package rectest

import (
	"github.com/kwire/kwire/codec/internal/rec/recjson"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/tree"
)

// Mode selects how a records field is shown (rec.JSONMode's values).
type Mode int

const (
	Decoded Mode = iota // the decoded form: an array of batches / messages
	Base64              // the whole records field as one base64 string
	Size                // {"sizeInBytes":N}
)

// TreeInfo gives a record's or message's absolute offset and timestamp.
type TreeInfo func(n *tree.Node) (offset, timestamp int64, ok bool)

// TreePart writes the members a payload hook made of a key or value node
// n (one with children of its own, outside control records) into its
// object: ",\"format\":...".
type TreePart func(dst []byte, n *tree.Node) []byte

// AppendTreeJSON appends the JSON form of a records field (the form
// rec.WriteJSON's doc lays out) from its decoded tree, without the
// reader: the reference the differential tests hold the reader's JSON
// sink to. Its leaves are the sink's own (recjson's): what it checks is
// the structure. raw is the field's bytes (used by Base64 and Size;
// Decoded reads nodes). A nil info in Decoded mode writes null. part,
// when set, writes the members a payload hook read of keys and values.
func AppendTreeJSON(dst []byte, nodes []*tree.Node, info TreeInfo, raw []byte, mode Mode, part TreePart) []byte {
	w := &jsontext.Writer{B: dst}
	switch {
	case mode == Size:
		w.BeginObject()
		w.Key("sizeInBytes")
		w.Int(int64(len(raw)))
		w.EndObject()
	case mode == Base64:
		w.Base64(raw)
	case info == nil:
		w.Null()
	default:
		j := treeWriter{w: w, info: info, part: part}
		j.entries(nodes)
	}
	return w.B
}

type treeWriter struct {
	w    *jsontext.Writer
	info TreeInfo
	part TreePart
}

// bytesJSON writes a record's or message's key or value, with the
// members a payload hook made of it (hooked).
func (j *treeWriter) bytesJSON(n *tree.Node, hooked bool) {
	w := j.w
	if n == nil || n.Null {
		w.Null()
		return
	}
	recjson.Bytes(w, n.Raw, false)
	if !hooked || j.part == nil || len(n.Children) == 0 {
		return
	}
	if members := j.part(nil, n); len(members) > 0 {
		w.B = append(append(w.B[:len(w.B)-1], members...), '}')
	}
}

func (j *treeWriter) entries(nodes []*tree.Node) {
	w := j.w
	w.BeginArray()
	for _, n := range nodes {
		switch {
		case n.Role == tree.RoleRaw:
			j.bytesOnly("_raw", n.Raw)
		case n.Flags&tree.Truncated != 0:
			j.bytesOnly("_truncated", n.Raw)
		case n.Name == "batch":
			j.batch(n)
		default:
			j.message(n)
		}
	}
	w.EndArray()
}

// bytesOnly writes {"<key>":"<base64 of b>"}.
func (j *treeWriter) bytesOnly(key string, b []byte) {
	j.w.BeginObject()
	j.w.Key(key)
	j.w.Base64(b)
	j.w.EndObject()
}

// hasWarnings reports whether the records reader said a warning inside
// entry n (or left bytes raw): what a payload hook made under a key or
// value (and said there) is not the entry's.
func hasWarnings(n *tree.Node) bool {
	if len(n.Warnings) > 0 || n.Role == tree.RoleRaw {
		return true
	}
	hooked := n.Role == tree.RoleRecord && (n.Name == "key" || n.Name == "value")
	for _, c := range n.Children {
		if hooked && c.Name != "inflated" {
			continue
		}
		if hasWarnings(c) {
			return true
		}
	}
	return false
}

// ints writes the members names with the Int of n's children so named
// (0 when there is none).
func (j *treeWriter) ints(n *tree.Node, names ...string) {
	for _, name := range names {
		j.w.Key(name)
		if c := child(n, name); c != nil {
			j.w.Int(c.Int)
		} else {
			j.w.Int(0)
		}
	}
}

func (j *treeWriter) batch(n *tree.Node) {
	w := j.w
	w.BeginObject()
	j.ints(n, "baseOffset", "partitionLeaderEpoch", "magic", "crc")
	attrs := 0
	if a := child(n, "attributes"); a != nil {
		attrs = int(a.Int)
	}
	w.Key("attributes")
	recjson.Attrs(w, attrs, 2)
	j.ints(n, "lastOffsetDelta", "baseTimestamp", "maxTimestamp", "producerId", "producerEpoch", "baseSequence")
	recs := child(n, "records")
	w.Key("records")
	if recs == nil {
		w.Null()
	} else {
		list := recs.Children
		ok := true
		if attrs&7 != 0 {
			ok = len(list) == 1 && list[0].Name == "inflated"
			if ok {
				list = list[0].Children
			}
		}
		if !ok {
			w.Null()
		} else {
			w.BeginArray()
			for _, r := range list {
				if r.Name == "record" {
					j.record(r, attrs&0x20 != 0)
				}
			}
			w.EndArray()
		}
		if attrs&7 != 0 {
			w.Key("_compressed")
			w.Base64(recs.Raw)
		}
	}
	// The batch's size, and the compression's when its records were
	// decompressed: from the tree's spans, not from the reader's counts.
	inflated := -1
	if recs != nil && attrs&7 != 0 && len(recs.Children) == 1 && recs.Children[0].Name == "inflated" {
		inflated = recs.Children[0].End - recs.Children[0].Start
	}
	compressed := 0
	if recs != nil {
		compressed = len(recs.Raw)
	}
	recjson.BatchSize(w, n.End-n.Start, compressed, inflated)
	j.rawOf(n)
	w.EndObject()
}

// rawOf writes "_raw" with the bytes of the entry n (kept in n.Raw) when
// it has warnings.
func (j *treeWriter) rawOf(n *tree.Node) {
	if n.Raw == nil || !hasWarnings(n) {
		return
	}
	j.w.Key("_raw")
	j.w.Base64(n.Raw)
}

func (j *treeWriter) record(r *tree.Node, control bool) {
	w := j.w
	off, ts, _ := j.info(r)
	w.BeginObject()
	j.ints(r, "attributes", "timestampDelta", "offsetDelta")
	w.Key("offset")
	w.Int(off)
	w.Key("timestamp")
	w.Int(ts)
	k, v := child(r, "key"), child(r, "value")
	w.Key("key")
	j.bytesJSON(k, !control)
	w.Key("value")
	j.bytesJSON(v, !control)
	w.Key("headers")
	w.BeginArray()
	if hs := child(r, "headers"); hs != nil {
		for _, h := range hs.Children {
			w.BeginObject()
			w.Key("key")
			if hk := child(h, "key"); hk != nil {
				recjson.HeaderKey(w, hk.Raw, hk.Null)
			} else {
				w.Null()
			}
			w.Key("value")
			j.bytesJSON(child(h, "value"), false)
			w.EndObject()
		}
	}
	w.EndArray()
	if control && k != nil && len(k.Children) >= 2 {
		w.Key("control")
		w.BeginObject()
		w.Key("keyVersion")
		w.Int(k.Children[0].Int)
		w.Key("type")
		recjson.Name(w, recjson.ControlTypeName, int(k.Children[1].Int))
		if v != nil {
			for _, c := range v.Children {
				switch c.Name {
				case "version":
					w.Key("valueVersion")
					w.Int(c.Int)
				case "coordinatorEpoch":
					w.Key("coordinatorEpoch")
					w.Int(c.Int)
				case "rest":
				default:
					w.Key("data")
					recjson.Node(w, c)
				}
			}
		}
		w.EndObject()
	}
	w.EndObject()
}

func (j *treeWriter) message(m *tree.Node) {
	w := j.w
	off, _, ok := j.info(m)
	w.BeginObject()
	j.ints(m, "offset")
	if o := child(m, "offset"); o != nil && o.Int != off && ok {
		w.Key("absoluteOffset")
		w.Int(off)
	}
	j.ints(m, "magic", "crc")
	magic := 0
	if c := child(m, "magic"); c != nil {
		magic = int(c.Int)
	}
	attrs := 0
	if a := child(m, "attributes"); a != nil {
		attrs = int(a.Int) & 0xff
	}
	w.Key("attributes")
	recjson.Attrs(w, attrs, magic)
	if magic == 1 {
		j.ints(m, "timestamp")
	}
	if k := child(m, "key"); k != nil {
		w.Key("key")
		j.bytesJSON(k, true)
	}
	if v := child(m, "value"); v != nil {
		if attrs&7 != 0 && !v.Null {
			w.Key("messages")
			if len(v.Children) == 1 && v.Children[0].Name == "inflated" {
				j.entries(v.Children[0].Children)
			} else {
				w.Null()
			}
			w.Key("_compressed")
			w.Base64(v.Raw)
		} else {
			w.Key("value")
			j.bytesJSON(v, true)
		}
	}
	j.rawOf(m)
	w.EndObject()
}

// child is the first child of n named name, or nil.
func child(n *tree.Node, name string) *tree.Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}
