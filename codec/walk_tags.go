package codec

import (
	"slices"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Tagged fields travel in a section at the end of their struct but stand
// at their declared place in value JSON. Most layouts declare them after
// every untagged field: the section is read where it lies, and a sink
// writing in declared order keeps its values until the struct ends. Six
// layouts declare one before an untagged field (FetchRequest and Fetch
// partitions at v12+, UpdateMetadata v8, CreateTopics results v5,
// FetchSnapshot): there the walk first reads ahead, dry, to the section
// (prescan), then reads each such value at its declared place (early).
// What an early value costs (nodes, warnings) is spent where the section
// lies, so the budget and the warnings' order are the bytes'; a value
// that would pass MaxNodes there is read again there, to fail where it
// lies. A value that fails early is dropped: the section meets the failure.

// preTag is a tag the prescan found: where its header and value are, and
// what its early reading left for the section.
type preTag struct {
	tag                         uint32
	start, tagEnd, sizeEnd, end int
	node                        *tree.Node // what it was read into early, at its declared place
	warnings                    []Warning  // its value's, for the section's place
	nodes                       int        // what its value spent, for the section's place
}

// findTag is the index of tag in pre, or -1.
func findTag(pre []preTag, tag uint32) int {
	return slices.IndexFunc(pre, func(t preTag) bool { return t.tag == tag })
}

// needsPrescan reports whether l declares, at version v, a tagged field
// before an untagged one.
func needsPrescan(l *schema.Layout, v int16) bool {
	tagged := false
	for i := range l.Fields {
		switch f := &l.Fields[i]; {
		case !f.Versions.Contains(v):
		case f.IsTagged(v):
			tagged = true
		case tagged:
			return true
		}
	}
	return false
}

// prescan reads ahead over the struct's untagged fields, with nothing
// nested decoded, to its tag section and lists the tags there (first
// occurrences), giving back all it spent or said. nil when the struct
// does not read that far: its tagged values are then read where they lie.
func (w *walker) prescan(l *schema.Layout) []preTag {
	for len(w.pre) <= w.depth {
		w.pre = append(w.pre, nil)
	}
	pre := w.pre[w.depth][:0]
	saved := *w
	budget := *w.b
	mark := w.w.Mark()
	w.dry, w.s = true, &w.null
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(w.v) || f.IsTagged(w.v) {
			continue
		}
		c := w.node()
		c.Field = f
		w.start(c)
		w.value(c, f, f.Kind)
		if w.err != nil {
			break
		}
	}
	ok := w.err == nil && w.scanSection(l, &pre)
	w.w.Truncate(mark)
	*w.b = budget
	path, pathText := w.path, w.pathText
	*w = saved
	w.path, w.pathText = path[:len(saved.path)], pathText
	w.pre[w.depth] = pre // its memory, for the next
	if !ok {
		return nil
	}
	return pre
}

// scanSection lists in *pre the tags of the section at the reader, read as
// the walk reads a section into a scratch node that counts nothing.
func (w *walker) scanSection(l *schema.Layout, pre *[]preTag) bool {
	c := w.null.take()
	count, ok := w.tagCount(c)
	last := int64(-1)
	for i := 0; ok && i < count; i++ {
		var size int
		if _, size, ok = w.tagHeader(c, l, &last); ok && findTag(*pre, uint32(c.Tag)) < 0 {
			*pre = append(*pre, preTag{tag: uint32(c.Tag), start: c.Start, tagEnd: c.TagEnd, sizeEnd: c.SizeEnd, end: w.r.Off + size})
		}
		w.r.Off += size
	}
	return ok
}

// earlyTag reads tagged field f at its declared place when the
// prescanned section holds it; false when it was read and does not hold
// its default. What the value costs is measured, given back and kept for
// the section's place. (These early fields hold no records or
// consumer-protocol bytes, whose own limits would see the early count:
// TestOutOfOrderTaggedNothingNested.)
func (w *walker) earlyTag(f *schema.Field, pre []preTag) bool {
	i := findTag(pre, uint32(f.Tag))
	if i < 0 || w.err != nil {
		return true
	}
	p := &pre[i]
	r := &w.r
	m := w.s.mark()
	mark, codes := w.w.Mark(), len(w.codes)
	spent := *w.b
	c := w.s.node() // the section charges the tag's node
	c.Buf = w.buf
	c.Start, c.TagEnd, c.SizeEnd, c.PrefixEnd = p.start, p.tagEnd, p.sizeEnd, p.sizeEnd
	c.Tag = int32(p.tag)
	off, full := r.Off, r.B
	r.Off = p.sizeEnd
	def := w.taggedValue(c, f, p.end)
	r.Off, r.B = off, full
	p.nodes = w.b.Nodes - spent.Nodes
	*w.b = spent
	if w.err != nil {
		w.err, r.Err, w.limitHit = nil, nil, false
		w.w.Truncate(mark)
		w.codes = w.codes[:codes]
		w.s.rollback(m)
		return true
	}
	w.s.commit(m)
	p.warnings = append(p.warnings[:0], w.w.List[mark:]...)
	w.w.Truncate(mark)
	p.node = c
	return def
}

// tags reads a tag section, the struct's last part, whose layout is l and
// prescanned section pre (or none), and its tagged fields; false when it
// holds an unknown tag or a value that is not its field's default.
func (w *walker) tags(l *schema.Layout, pre []preTag) bool {
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
	pi := 0 // the next prescanned tag
	for i := 0; i < count && w.err == nil; i++ {
		var p *preTag // the tag as prescanned, when it was read early
		if pi < len(pre) && pre[pi].start == r.Off {
			if pre[pi].node != nil {
				p = &pre[pi]
			}
			pi++
		}
		c := w.node()
		f, size, ok := w.tagHeader(c, l, &last)
		switch {
		case !ok: // the walk's error ends the section
			w.s.leaf(c)
		case p != nil && w.b.Nodes+p.nodes <= w.nodeLimit():
			// Read early: its tag's node and header are read here, where
			// they lie, and what its value cost is spent here too, in one
			// step (each check is then passed: the count only grows).
			w.b.Nodes += p.nodes
			for _, x := range p.warnings {
				w.w.Add(x)
			}
			r.Off = p.end
			w.s.attach(c, p.node)
		case p != nil:
			// Else it is read again here, to meet the limit where it
			// lies (a sink writing in declared order keeps the first
			// reading).
			codes := len(w.codes)
			w.taggedValue(c, f, r.Off+size)
			w.codes = w.codes[:codes] // noted at the declared place
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

// tagCount reads the count of section t (whose Start is set), warning
// when it is not minimal; false when the bytes fail or cannot hold it.
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

// tagHeader reads one tagged field's tag and size into c and finds its
// field in l at this version (nil: an unknown tag), with the warnings a
// section gives: a tag or size not minimal, a tag out of order (last is
// the one before, updated). false, with c.End set, when the bytes fail or
// the size passes them.
func (w *walker) tagHeader(c *tree.Node, l *schema.Layout, last *int64) (*schema.Field, int, bool) {
	r := &w.r
	c.Start = r.Off
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
