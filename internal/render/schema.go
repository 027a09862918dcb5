package render

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// snake turns a Kafka field name into the snake_case of Kafka's BNF, by
// the rule of Kafka's generator (MessageGenerator.toSnakeCase): an
// underscore before a capital that follows a lower-case letter or digit,
// none inside a run of capitals: "TransactionalId" -> "transactional_id",
// "IsKRaftController" -> "is_kraft_controller".
func snake(s string) string {
	var b strings.Builder
	prevCapital := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			if !prevCapital {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
			prevCapital = true
		} else {
			prevCapital = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// WireType names f's encoding as kind k at version v of a message that is
// (or is not) flexible there, the way Kafka's protocol guide does: INT32,
// COMPACT_NULLABLE_STRING, COMPACT_RECORDS, ARRAY(INT32), ...
func WireType(f *schema.Field, k schema.Kind, v int16, flexible bool) string {
	compact := f.CompactAt(v, flexible)
	nullable := k == f.Kind && f.Nullable.Contains(v) // an array's elements never are
	switch k {
	case schema.Bool:
		return "BOOLEAN"
	case schema.String, schema.Bytes:
		s := strings.ToUpper(k.String())
		if nullable {
			s = "NULLABLE_" + s
		}
		if compact {
			s = "COMPACT_" + s
		}
		return s
	case schema.Records:
		if compact {
			return "COMPACT_RECORDS"
		}
		return "RECORDS"
	case schema.Array:
		inner := f.Type[2:]
		if f.Elem != schema.Struct {
			inner = WireType(&schema.Field{Nullable: schema.Range{Lo: 1, Hi: 0}, Tag: -1, Flexible: f.Flexible, FlexSet: f.FlexSet, Type: inner}, f.Elem, v, flexible)
		}
		s := "ARRAY"
		if nullable {
			s = "NULLABLE_ARRAY"
		}
		if compact {
			s = "COMPACT_" + s
		}
		return s + "(" + inner + ")"
	case schema.Struct:
		if nullable {
			return "NULLABLE_STRUCT(" + f.Type + ")"
		}
		return "STRUCT(" + f.Type + ")"
	}
	return strings.ToUpper(k.String())
}

// BNFLine is one line of a message version in the style of Kafka's
// protocol guide: "name => a [b] TAG_BUFFER" or "name => INT32".
type BNFLine struct {
	Depth int
	Name  string // the left-hand side: the title, or the field's snake_case name
	Path  string // the field's JSON path, e.g. "topics.partitions" ("" for the title line)
	Tag   int32  // the field's tag when it is tagged at this version, else -1
	RHS   string
}

// BNFLines lays out the fields of l at version v of a message that is (or
// is not) flexible there: a title line naming the top-level fields, then
// one line per field, nested. Tagged fields are listed after the others
// of the struct that holds them, with their tag. An array of primitives is
// named in brackets on its parent's line and given its element's type on
// its own (with "(array nullable)" when the array may be null; its
// elements never may). A nullable struct's line starts with the byte that
// says whether it is there.
func BNFLines(title string, l *schema.Layout, v int16, flexible bool) []BNFLine {
	lines := []BNFLine{{Name: title, Tag: -1, RHS: bnfRHS(l, v, flexible)}}
	return bnfFields(lines, l, v, flexible, 1, "")
}

func bnfRHS(l *schema.Layout, v int16, flex bool) string {
	var parts []string
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) || flex && f.IsTagged(v) {
			continue
		}
		n := snake(f.Name)
		if f.Kind == schema.Array {
			n = "[" + n + "]"
		}
		parts = append(parts, n)
	}
	if flex {
		parts = append(parts, "TAG_BUFFER")
	}
	return strings.Join(parts, " ")
}

func bnfFields(lines []BNFLine, l *schema.Layout, v int16, flex bool, depth int, path string) []BNFLine {
	for pass := 0; pass < 2; pass++ {
		for i := range l.Fields {
			f := &l.Fields[i]
			tagged := flex && f.IsTagged(v)
			if !f.Versions.Contains(v) || tagged != (pass == 1) {
				continue
			}
			p := f.JSON
			if path != "" {
				p = path + "." + f.JSON
			}
			ln := BNFLine{Depth: depth, Name: snake(f.Name), Path: p, Tag: -1}
			if tagged {
				ln.Tag = f.Tag
			}
			if f.Struct != nil {
				ln.RHS = bnfRHS(f.Struct, v, flex)
				if f.Nullable.Contains(v) {
					if f.Kind == schema.Array {
						ln.RHS += " (array nullable)"
					} else {
						ln.RHS = "present " + ln.RHS + " (nullable struct: present is INT8, -1 for null with no fields after it, 1 before the fields)"
					}
				}
				lines = append(lines, ln)
				lines = bnfFields(lines, f.Struct, v, flex, depth+1, p)
				continue
			}
			k := f.Kind
			if k == schema.Array {
				k = f.Elem
			}
			ln.RHS = WireType(f, k, v, flex)
			if f.Kind == schema.Array && f.Nullable.Contains(v) {
				ln.RHS += " (array nullable)"
			}
			lines = append(lines, ln)
		}
	}
	return lines
}

// A BNFLine's text is Indent, Marker, Name and Rest, in that order: BNF
// writes it whole (the CLI and the API print it), the site with the name
// linked to its field's row, so that every schema reads the same
// wherever it is shown.

// Indent is a line's indent: two spaces a level of nesting.
func (l BNFLine) Indent() string { return strings.Repeat("  ", l.Depth) }

// Marker is what comes before a tagged field's name, "tag N: ", or "".
func (l BNFLine) Marker() string {
	if l.Tag < 0 {
		return ""
	}
	return "tag " + strconv.Itoa(int(l.Tag)) + ": "
}

// Rest is what follows the name: " => " and the right-hand side.
func (l BNFLine) Rest() string { return " => " + l.RHS }

// Text is the line as BNF writes it.
func (l BNFLine) Text() string { return l.Indent() + l.Marker() + l.Name + l.Rest() }

// BNF writes version v of message m as text, one BNFLine a line (Text),
// nested lines indented two spaces a level and tagged fields marked
// "tag N: name".
func BNF(m *schema.Message, v int16, title string) string {
	d := m.At(v)
	if d == nil {
		return ""
	}
	var b strings.Builder
	for _, l := range BNFLines(title, d.Root, v, d.Flexible.Contains(v)) {
		b.WriteString(l.Text() + "\n")
	}
	return b.String()
}

// FieldRow is one line of a schema's field table.
type FieldRow struct {
	Path       string // e.g. "topics.partitions.index"
	Depth      int
	Type       string // the schema type, e.g. "[]TopicData"
	Versions   string
	Nullable   string
	Tag        string // "" or the tag number and tagged versions
	Default    string
	EntityType string
	MapKey     bool
}

// FieldTable lists the fields of version v of m, nested fields after
// their parent, as the site's page for that version shows them: only the
// fields v has, each with the versions it occurs in (FieldSpans) and its
// nullable and tagged versions cut to those, since a field "0+" inside a
// struct "12+" occurs only from version 12 (Kafka's schema files leave
// that to the reader).
func FieldTable(m *schema.Message, v int16) []FieldRow {
	d := m.At(v)
	if d == nil {
		return nil
	}
	spans := FieldSpans(m)
	var rows []FieldRow
	var walk func(l *schema.Layout, prefix string, depth int, in schema.Range)
	walk = func(l *schema.Layout, prefix string, depth int, in schema.Range) {
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(v) {
				continue
			}
			occurs := spans.At(prefix+f.JSON, v, Clip(f.Versions, in))
			r := FieldRow{Path: prefix + f.JSON, Depth: depth, Type: f.Type, Versions: occurs.String(),
				Default: f.Default, EntityType: f.EntityType, MapKey: f.MapKey}
			if n := Clip(f.Nullable, occurs); !n.Empty() {
				r.Nullable = n.String()
			}
			if f.Tag >= 0 {
				r.Tag = strconv.Itoa(int(f.Tag)) + " (" + Clip(f.Tagged, occurs).String() + ")"
			}
			rows = append(rows, r)
			if f.Struct != nil {
				walk(f.Struct, r.Path+".", depth+1, occurs)
			}
		}
	}
	walk(d.Root, "", 0, schema.Range{Lo: 0, Hi: schema.Open})
	return rows
}

// Clip is the versions both a and b hold.
func Clip(a, b schema.Range) schema.Range {
	return schema.Range{Lo: max(a.Lo, b.Lo), Hi: min(a.Hi, b.Hi)}
}

// FieldSpans says, for each field of m (by its path, "topics.partitions"),
// the versions it occurs in, over every definition of m. A definition
// lays out only some of m's versions (Produce v0-2 come from a file
// older than v13, v3-13 from a newer one), and an older file's "0+"
// means "every version that file knew": a field's range is cut to the
// versions its definition lays out, except where no definition follows
// (the newest one's "0+" stays open) or none comes before, then the runs
// that meet are joined. So Produce's topicData.name reads 0-12 on every
// page from v0 to v12, not 0+ on the pages v0-2 whose file predates v13.
func FieldSpans(m *schema.Message) Spans {
	s := Spans{}
	for i := range m.Versions {
		d := &m.Versions[i]
		in := d.Versions
		if i == 0 {
			in.Lo = 0
		}
		if i == len(m.Versions)-1 {
			in.Hi = schema.Open
		}
		var walk func(l *schema.Layout, prefix string, in schema.Range)
		walk = func(l *schema.Layout, prefix string, in schema.Range) {
			for j := range l.Fields {
				f := &l.Fields[j]
				r := Clip(f.Versions, in)
				if r.Empty() {
					continue
				}
				p := prefix + f.JSON
				s.add(p, r)
				if f.Struct != nil {
					walk(f.Struct, p+".", r)
				}
			}
		}
		walk(d.Root, "", in)
	}
	return s
}

// Spans are FieldSpans: each path's runs of versions, in order.
type Spans map[string][]schema.Range

func (s Spans) add(path string, r schema.Range) {
	runs := s[path]
	if n := len(runs); n > 0 && int(r.Lo) <= int(runs[n-1].Hi)+1 {
		runs[n-1].Hi = max(runs[n-1].Hi, r.Hi)
		return
	}
	s[path] = append(runs, r)
}

// At is the run of path's versions that holds v, or else (a path or a
// version the definitions do not lay out) the range given.
func (s Spans) At(path string, v int16, otherwise schema.Range) schema.Range {
	for _, r := range s[path] {
		if r.Contains(v) {
			return r
		}
	}
	return otherwise
}
