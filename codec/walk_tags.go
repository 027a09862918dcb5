package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Tagged fields travel in a section at the end of their struct but stand
// at their declared place in value JSON. The walk reads the section where
// it lies, so the budget and the warnings' document order are those of
// the bytes; a sink that writes in declared order keeps the section's
// values until the struct ends. Six layouts declare a tagged field before
// an untagged one (FetchRequest and Fetch partitions at v12+,
// UpdateMetadata v8, CreateTopics results v5, FetchSnapshot): there the
// JSON sink keeps the members' places too, and moves the tagged values
// before the members declared after them (taggedFirst, jsonSink.tagged).

// taggedFirst reports whether l declares, at version v, a tagged field
// before an untagged one.
func taggedFirst(l *schema.Layout, v int16) bool {
	tagged := false
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) {
			continue
		}
		if f.IsTagged(v) {
			tagged = true
		} else if tagged {
			return true
		}
	}
	return false
}

// tags reads a tag section, the struct's last part, whose layout is l, and
// its tagged fields; false when it holds an unknown tag or a value that is
// not its field's default.
func (w *walker) tags(l *schema.Layout) bool {
	r := &w.r
	if _, ok := w.s.(*jsonSink); ok && r.Off < len(r.B) && r.B[r.Off] == 0 && w.err == nil {
		// An empty section, the commonest: nothing for JSON to write, its
		// node charged all the same.
		w.charge()
		r.Off++
		return true
	}
	t := w.node()
	t.Name, t.Role, t.Type = "_tagged", tree.RoleTags, "tagged_fields"
	w.start(t)
	count, ok := w.tagCount(t)
	if !ok || count == 0 {
		t.End = r.Off
		w.s.leaf(t) // nothing inside
		return ok
	}
	w.s.begin(t, l, 0)
	allDef := true
	last := int64(-1)
	for i := 0; i < count && w.err == nil; i++ {
		c := w.node()
		c.Start = r.Off
		f, size, ok := w.tagHeader(c, l, &last)
		switch {
		case !ok: // the walk's error ends the section
			w.s.leaf(c)
		case f == nil:
			c.Name, c.Role, c.Kind, c.Type = "_unknown", tree.RoleUnknownTag, schema.Bytes, "unknown tag"
			c.Int = int64(uint32(c.Tag))
			c.Raw = r.Span(size, "tag")
			c.End = r.Off
			msg := "unknown tag"
			if !w.guessing || w.warned < maxDoubts {
				msg = "unknown tag " + strconv.FormatUint(uint64(uint32(c.Tag)), 10) + " at v" + decimal(int(w.v)) + " (" + counted(size, "byte", "bytes") + " kept)"
			}
			w.warn(c, c.Start, "_unknownTaggedFields", msg)
			w.s.leaf(c)
			allDef = false
		case !w.taggedValue(c, f, r.Off+size):
			allDef = false
		}
	}
	t.End = r.Off
	w.s.end(t)
	return allDef
}

// taggedValue reads known tagged field f's value (up to end) into c,
// whose tag and size are read, with the warnings a tagged value gets;
// it reports whether the value is f's default.
func (w *walker) taggedValue(c *tree.Node, f *schema.Field, end int) bool {
	r := &w.r
	c.Name, c.Role, c.Field = f.Name, tree.RoleField, f
	c.Flags |= tree.Tagged
	w.push(f.JSON)
	defer w.pop()
	full := r.B
	r.B = r.B[:end]
	mark := w.w.Mark()
	w.inTagged++
	w.value(c, f, f.Kind)
	w.inTagged--
	r.B = full
	if w.err != nil {
		return false
	}
	if w.wantCodes && c.Kind == schema.Int16 && c.Int != 0 && isErrorCode(f) {
		w.noteCode(c, w.pathString())
	}
	// Warnings learnt now go after the value's own (listed from mark,
	// with its path; a value reads its prefixes first), before its
	// children's.
	p := w.pathString()
	for mark < len(w.w.List) && w.w.List[mark].Path == p {
		mark++
	}
	if r.Off < end {
		w.warnAt(&mark, c, r.Off, "", decimal(end-r.Off)+" bytes after the value inside the tagged field", false)
		r.Off = end
		c.End = end
	}
	def := w.isDefault(c, f)
	if def {
		w.warnAt(&mark, c, c.Start, "", "tagged field present with its default value (encoders omit it)", false)
	}
	return def
}

// tagCount reads the count of the tagged-field section t (whose Start is
// set), warning when it is not minimal; false when the bytes fail or
// cannot hold that many fields.
func (w *walker) tagCount(t *tree.Node) (int, bool) {
	r := &w.r
	count, minimal := r.UvarintMinimal()
	if !w.check() {
		return 0, false
	}
	t.PrefixEnd = r.Off
	if !minimal {
		w.warn(t, t.Start, "_tagged", nonMinimal(r.Off-t.Start, uint64(count)))
	}
	if int(count) > r.Remaining()/2 || count > 1<<20 {
		w.failWith(t.Start, "a tagged-field count of at most "+decimal(r.Remaining()/2)+" (what the bytes left can hold)", strconv.FormatUint(uint64(count), 10), shortIf(int(count) > r.Remaining()/2))
		return 0, false
	}
	return int(count), true
}

// tagHeader reads one tagged field's tag and size into c (whose Start is
// set) and finds its field in l at this version (nil: an unknown tag),
// with the warnings a section gives: a tag or size not minimal, a tag out
// of order (last is the one before, updated). false, with c.End set, when
// the bytes fail or the size passes them.
func (w *walker) tagHeader(c *tree.Node, l *schema.Layout, last *int64) (*schema.Field, int, bool) {
	r := &w.r
	tag, tagMin := r.UvarintMinimal()
	c.TagEnd = r.Off
	size, sizeMin := r.UvarintMinimal()
	c.SizeEnd, c.PrefixEnd = r.Off, r.Off
	c.Tag = int32(tag)
	if !w.check() {
		c.End = r.Off
		return nil, 0, false
	}
	if int(size) > r.Remaining() || size > 1<<30 {
		w.failWith(c.TagEnd, "a tagged-field size of at most "+decimal(r.Remaining())+" (the bytes left)", strconv.FormatUint(uint64(size), 10), shortIf(int(size) > r.Remaining()))
		c.End = r.Off
		return nil, 0, false
	}
	f := taggedField(l, w.v, tag)
	name := "_unknownTaggedFields"
	if f != nil {
		name = f.JSON
	}
	if !tagMin {
		w.warn(c, c.Start, name, nonMinimal(c.TagEnd-c.Start, uint64(tag))+" (the tag number)")
	}
	if !sizeMin {
		w.warn(c, c.TagEnd, name, nonMinimal(c.SizeEnd-c.TagEnd, uint64(size))+" (the tagged field's size)")
	}
	if int64(tag) <= *last {
		how := " is out of order"
		if int64(tag) == *last {
			how = " is repeated"
		}
		w.warn(c, c.Start, name, "tag "+strconv.FormatUint(uint64(tag), 10)+how+" (tags must ascend)")
	}
	*last = int64(tag)
	return f, int(size), true
}

// taggedField is the field of l tagged tag at version v, or nil.
func taggedField(l *schema.Layout, v int16, tag uint32) *schema.Field {
	for j := range l.Fields {
		if x := &l.Fields[j]; x.Versions.Contains(v) && x.IsTagged(v) && x.Tag == int32(tag) {
			return x
		}
	}
	return nil
}
