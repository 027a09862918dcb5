// Package render lays decoded frames out for people: the RFC-style byte
// grid (4 bytes a row, every field a labelled cell spanning its bytes) as
// cells and rows, shared by the docs site (pre-rendered HTML), the
// playground (rows as JSON, drawn in the browser) and the CLI (a terminal
// grid). It holds no decoding logic and writes no HTML from untrusted text
// without escaping it.
package render

import (
	"encoding/base64"
	"strconv"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Cell kinds: what part of the wire a run of bytes is.
const (
	KindValue    = "value"    // a fixed-size value or the data of a string/bytes
	KindPrefix   = "prefix"   // a length or count prefix (int16/int32 or uvarint)
	KindMarker   = "marker"   // a nullable struct's presence byte
	KindTag      = "tag"      // a tagged field's tag number (uvarint)
	KindTagSize  = "tagsize"  // a tagged field's size (uvarint)
	KindTags     = "tags"     // a tagged-field section's count (uvarint)
	KindUnknown  = "unknown"  // an unknown tagged field's payload
	KindSize     = "size"     // the frame's size prefix
	KindTrailing = "trailing" // bytes after the frame
	KindRaw      = "raw"      // bytes left undecoded after an error
	KindVarint   = "varint"   // a (zig-zag) varint value
)

// Cell is one run of bytes with one meaning.
type Cell struct {
	Node   int    // pre-order index of the node it belongs to (0 = root)
	Start  int    // first byte
	End    int    // one past the last
	Kind   string // one of the Kind constants
	Label  string // the field's name, e.g. "clientId", "topics[0]", "topics count"
	Path   string // the node's value-JSON path, as NodePaths gives it: "body.topics[0].name", "body.topicData[0].partitionData[0].records[0].baseOffset"
	Value  string // a short display value; untrusted text, escape before use
	Type   string // the wire type, e.g. "int32", "compact_string"
	Warn   bool   // the node carries a warning
	Broken bool   // decoding failed here
}

// Cells lists the cells of buffer buf (0 for the input) in byte order.
func Cells(f *codec.Frame, buf int) []Cell { return cells(f, buf, true) }

// CellsWithoutPaths is Cells with every Path left empty, for a caller
// that names cells by their node (the playground, which names the cells
// it draws through NodePaths): a path is a string per node, as long as
// the node is deep (a fifth of the playground's heap for a frame of 2^18
// JSON payload values).
func CellsWithoutPaths(f *codec.Frame, buf int) []Cell { return cells(f, buf, false) }

func cells(f *codec.Frame, buf int, paths bool) []Cell {
	c := &collector{buf: buf, apiKey: f.APIKey}
	if buf >= 0 && buf < len(f.Buffers) {
		c.bytes = f.Buffers[buf]
	}
	// Counted first, so the cells take one allocation of their exact size:
	// appended, a frame's hundreds of thousands of cells would be copied
	// as the slice grows by a quarter at a time, some five times their
	// final size in garbage (a 1 KB JSON flood cost the playground 400 MiB
	// of heap).
	c.counting = true
	c.walk(f.Root, "")
	c.cells = make([]Cell, 0, c.count)
	if paths && c.count > 0 {
		// A cell is named by its node's value-JSON path, the one value
		// JSON, warnings, errors, codec's Lookup and the playground's
		// breadcrumb use: each path written out once, from its parent's.
		c.names = gridNames.Get().(*names)
		c.names.paths.reset()
		c.pathOf = nodePaths(f.Root, &c.names.paths, c.next, c.names.pathOf)
		c.paths = &c.names.paths
		if n := c.paths.Len(); cap(c.names.text) >= n {
			c.text = c.names.text[:n]
			clear(c.text)
		} else {
			c.text = make([]string, n)
		}
	}
	c.counting, c.next = false, 0
	c.walk(f.Root, "")
	if c.names != nil && c.next <= maxPooled {
		c.names.pathOf, c.names.text = c.pathOf, c.text
		clear(c.text) // the cells hold the strings they need
		gridNames.Put(c.names)
	}
	return c.cells
}

type collector struct {
	buf    int
	bytes  []byte // the buffer's bytes, to read prefixes back
	apiKey int16
	next   int
	cells  []Cell
	// counting: the walk only counts the cells it would add, in count.
	counting bool
	count    int
	// The nodes' paths (pathOf, by pre-order number, in paths), and each
	// path written out (text, by path number, "" until needed); nil
	// without paths.
	names  *names // where paths, pathOf and text come from
	paths  *Paths
	pathOf []int32
	text   []string
}

// names holds the tables that name a frame's cells: kept between calls of
// Cells for frames of up to maxPooled nodes (a page of the docs site
// draws hundreds of grids, each taking them anew otherwise).
type names struct {
	paths  Paths
	pathOf []int32
	text   []string
}

const maxPooled = 1 << 12

var gridNames = sync.Pool{New: func() any { return new(names) }}

// path is the text of node id's path; "" without paths.
func (c *collector) path(id int) string {
	if id >= len(c.pathOf) {
		return ""
	}
	return c.pathText(c.pathOf[id])
}

// pathText writes path p out ("body.topics[0].name") once, from its
// parent's text, as Paths.String writes it.
func (c *collector) pathText(p int32) string {
	if p <= Root {
		return ""
	}
	if s := c.text[p]; s != "" {
		return s
	}
	s := c.paths.join(c.pathText(c.paths.parent[p]), p)
	c.text[p] = s
	return s
}

// TreeName is how a tree view names n: an element by its index ("[3]"),
// a field by its JSON name, a Protobuf repeated field's occurrence as
// the element of the field's array it is ("tags[3]"; a packed run by the
// field, its elements by their indexes), anything else by its own name.
func TreeName(n *tree.Node) string { return nodeName(n, "") }

func nodeName(n *tree.Node, parentName string) string {
	if n.Role == tree.RoleElement {
		var b [20]byte // the index's digits, with no string of their own
		return parentName + "[" + string(strconv.AppendInt(b[:0], int64(n.Index), 10)) + "]"
	}
	if protoRepeated(n) && n.Kind != schema.Array {
		return n.Name + "[" + strconv.Itoa(n.Index) + "]"
	}
	if n.Field != nil {
		return n.Field.JSON
	}
	return n.Name
}

// add adds a cell, or counts it when counting; it reports whether it
// did.
func (c *collector) add(id int, n *tree.Node, start, end int, kind, label, path string) bool {
	if end <= start || n.Buf != c.buf {
		return false
	}
	if c.counting {
		c.count++
		return true
	}
	typ := n.Type
	value := ""
	switch kind {
	case KindPrefix, KindMarker, KindTags, KindTag, KindTagSize:
		typ, value = prefixValue(c.bytes, start, end, kind, n.Flags&tree.Compact != 0)
	}
	c.cells = append(c.cells, Cell{Node: id, Start: start, End: end, Kind: kind, Label: label, Path: path,
		Type: typ, Value: value, Warn: len(n.Warnings) > 0, Broken: n.Flags&tree.Broken != 0})
	return true
}

// prefixValue reads back the bytes of a length, count, null-marker, tag or
// tag-size cell and says what they hold, the way the types page does:
// "5", "6 = 5 + 1" (a compact length), "-1 (null)", "0 (null)". It returns
// the prefix's own wire type and the text; "" when the bytes are not there
// (a truncated frame).
func prefixValue(b []byte, start, end int, kind string, compact bool) (string, string) {
	if start < 0 || end > len(b) || end <= start {
		return "", ""
	}
	p := b[start:end]
	// A record's lengths and counts are zig-zag varints, two bytes from 64
	// on. The bytes tell them from an int16 or int32 prefix: a varint's
	// bytes but its last have their high bit set and its last has not,
	// which in an int16 or int32 is a negative length other than -1 (ff
	// ff, ff ff ff ff), none that Kafka writes.
	varint := p[len(p)-1] < 0x80
	for _, c := range p[:len(p)-1] {
		varint = varint && c >= 0x80
	}
	switch {
	case kind == KindMarker && len(p) == 1:
		v := int8(p[0])
		if v < 0 {
			return "int8", "-1 (null)"
		}
		return "int8", strconv.Itoa(int(v)) + " (present)"
	case kind == KindPrefix && len(p) == 2 && !compact && !varint:
		return "int16", fixedLength(int64(int16(uint16(p[0])<<8 | uint16(p[1]))))
	case kind == KindPrefix && len(p) == 4 && !compact && !varint:
		return "int32", fixedLength(int64(int32(uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3]))))
	}
	u, ok := uvarint(p)
	if !ok {
		return "", ""
	}
	switch {
	case kind != KindPrefix:
		// Tags, tag numbers and sizes are plain unsigned varints.
		return "uvarint", strconv.FormatUint(u, 10)
	case compact:
		if u == 0 {
			return "uvarint", "0 (null)"
		}
		return "uvarint", strconv.FormatUint(u, 10) + " = " + strconv.FormatUint(u-1, 10) + " + 1"
	}
	// Inside records, lengths and counts are zig-zag varints.
	return "varint", fixedLength(int64(u>>1) ^ -int64(u&1))
}

func fixedLength(v int64) string {
	if v == -1 {
		return "-1 (null)"
	}
	return strconv.FormatInt(v, 10)
}

// uvarint reads an unsigned varint that fills p exactly.
func uvarint(p []byte) (uint64, bool) {
	var u uint64
	for i, c := range p {
		if i == 10 {
			return 0, false
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, i == len(p)-1
		}
	}
	return 0, false
}

func (c *collector) walk(n *tree.Node, parentName string) {
	id := c.next
	c.next++
	var name, path string
	if !c.counting && n.Role != tree.RoleFrame { // the names and paths are the cells' text only
		name, path = nodeName(n, parentName), c.path(id)
	}
	if n.Buf == c.buf {
		if n.TagEnd > n.Start {
			c.add(id, n, n.Start, n.TagEnd, KindTag, name+" tag", path)
			c.add(id, n, n.TagEnd, n.SizeEnd, KindTagSize, name+" size", path)
		}
		if n.DataStart() > n.ValueStart() {
			kind, label := KindPrefix, name+" length"
			switch {
			case n.Role == tree.RoleTags:
				kind, label = KindTags, "tagged fields"
			case n.Kind == schema.Array:
				label = name + " count"
			case n.Kind == schema.Struct:
				kind, label = KindMarker, name+" present"
			}
			c.add(id, n, n.ValueStart(), n.PrefixEnd, kind, label, path)
		}
	}
	leaf := len(n.Children) == 0 || n.BitView() || (n.Kind == schema.Records || n.Kind == schema.Bytes) && !hasSameBufChildren(n)
	if leaf {
		if n.Buf == c.buf && n.End > n.DataStart() && n.Role != tree.RoleFrame {
			kind := KindValue
			switch n.Role {
			case tree.RoleSize:
				kind = KindSize
			case tree.RoleUnknownTag:
				kind = KindUnknown
			case tree.RoleTrailing:
				kind = KindTrailing
			case tree.RoleRaw:
				kind = KindRaw
			}
			if n.Flags&tree.Varint != 0 {
				kind = KindVarint
			}
			if c.add(id, n, n.DataStart(), n.End, kind, name, path) && !c.counting {
				c.cells[len(c.cells)-1].Value = ShortValue(n, c.apiKey)
			}
		}
	}
	for _, k := range n.Children {
		if n.BitView() {
			c.next++ // numbered as in the tree, drawn as the parent's cell
			continue
		}
		c.walk(k, name)
	}
}

func hasSameBufChildren(n *tree.Node) bool {
	for _, k := range n.Children {
		if k.Buf == n.Buf {
			return true
		}
	}
	return false
}

// ShortValue is a one-line display of a node's value (untrusted text).
func ShortValue(n *tree.Node, apiKey int16) string {
	if n.Flags&tree.Broken != 0 && len(n.Children) == 0 && n.Kind != schema.Struct && n.Kind != schema.Array {
		// Decoding failed in this value: what its fields hold (0, "")
		// was never read.
		return "(not read)"
	}
	if n.Null {
		return "null"
	}
	switch n.Kind {
	case schema.Bool:
		return strconv.FormatBool(n.Int != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		s := strconv.FormatInt(n.Int, 10)
		if name := codec.ValueName(n, apiKey); name != "" {
			s += " " + name
		}
		return s
	case schema.Float64:
		return strconv.FormatFloat(n.Float, 'g', -1, 64)
	case schema.String:
		return strconv.Quote(Truncate(string(n.Raw), 40))
	case schema.UUID:
		return base64.RawURLEncoding.EncodeToString(n.Raw)
	case schema.Records:
		return strconv.Itoa(len(n.Raw)) + " bytes"
	case schema.Bytes:
		// Text where it is text (record keys, values, header values):
		// quoted, with its length, so the choice shows.
		if len(n.Raw) > 0 && Printable(n.Raw) {
			return strconv.Quote(Truncate(string(n.Raw), 40)) + " (" + plural(len(n.Raw), "byte") + ")"
		}
		return plural(len(n.Raw), "byte")
	}
	return ""
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

// Printable reports whether b is valid UTF-8 of printable characters,
// tab, CR and LF: bytes shown as text (the rule of records' value JSON).
func Printable(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 || !unicode.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// Truncate is s cut to at most max bytes, at a character's start, with
// "…" after when it was cut: how every view and message of kwire
// shortens a text (the grid's cells, kwire pcap's and kwire proxy's
// client ids).
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Segment is the part of a cell that falls in one row.
type Segment struct {
	Cell  int // index into the cells
	Col   int // first byte column in the row (0-3)
	Span  int // columns covered
	First bool
	Last  bool
}

// Row is one line of the grid: Width bytes starting at Offset, or, when
// Elided > 0, a stand-in for that many bytes of one long cell.
type Row struct {
	Offset int
	Segs   []Segment
	Elided int
	Cell   int // the elided cell, when Elided > 0
}

// Layout arranges cells into rows of width bytes. A cell longer than
// elideOver bytes (0: never) keeps its first and last rows and stands in
// for the rest with one elided row, unless expanded[cell] is true.
func Layout(cells []Cell, width, elideOver int, expanded map[int]bool) []Row {
	if width <= 0 {
		width = 4
	}
	// Counted first, then laid out into rows and one array of segments of
	// their exact sizes: grown by appending, the rows and each row's
	// segments of a big frame made several times their size in garbage.
	var l layout
	l.run(cells, width, elideOver, expanded)
	l.rows, l.segs = make([]Row, 0, l.nrows), make([]Segment, 0, l.nsegs)
	l.run(cells, width, elideOver, expanded)
	return l.rows
}

// layout is Layout's pass: counting (rows nil) or filling.
type layout struct {
	rows         []Row
	segs         []Segment // every row's segments, in order
	nrows, nsegs int
}

func (l *layout) run(cells []Cell, width, elideOver int, expanded map[int]bool) {
	fill := l.rows != nil
	last := -1 // the offset of the current row, -1 when there is none or it is elided
	first := 0 // the current row's first segment in segs
	newRow := func(r Row) {
		l.nrows++
		if fill {
			l.rows = append(l.rows, r)
			first = len(l.segs)
		}
	}
	for i, c := range cells {
		pos := c.Start
		for pos < c.End {
			rowStart := pos - pos%width
			if last < 0 || last != rowStart {
				newRow(Row{Offset: rowStart})
				last = rowStart
			}
			end := min(c.End, rowStart+width)
			l.nsegs++
			if fill {
				l.segs = append(l.segs, Segment{Cell: i, Col: pos - rowStart, Span: end - pos, First: pos == c.Start, Last: end == c.End})
				l.rows[len(l.rows)-1].Segs = l.segs[first:len(l.segs):len(l.segs)]
			}
			pos = end
			// Elide the middle of a long cell: jump to its last row.
			if elideOver > 0 && c.End-c.Start > elideOver && !expanded[i] && pos < c.End {
				lastRow := (c.End - 1) - (c.End-1)%width
				if lastRow > pos {
					newRow(Row{Offset: pos, Elided: lastRow - pos, Cell: i})
					last = -1
					pos = lastRow
				}
			}
		}
	}
}
