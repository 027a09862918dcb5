package site

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// bnfLine is one line of a Kafka-guide-style schema: "name => a [b] TAG_BUFFER".
type bnfLine struct {
	Depth int
	Name  string // the left-hand side
	Href  string // the field row it describes ("" for the title line)
	Tag   string // "tag 3" for a tagged field
	RHS   string
}

// snake writes a schema name the way Kafka's protocol guide does:
// "TransactionalId" -> "transactional_id", "ApiKey" -> "api_key".
func snake(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				p := s[i-1]
				nextLower := i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z'
				if p >= 'a' && p <= 'z' || p >= '0' && p <= '9' || (p >= 'A' && p <= 'Z' && nextLower) {
					b.WriteByte('_')
				}
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// compactAt says whether f uses compact lengths at version v of a message
// that is (or is not) flexible there.
func compactAt(f *schema.Field, v int16, flex bool) bool {
	return flex && (!f.FlexSet || f.Flexible.Contains(v))
}

// wireType is the protocol guide's type name for f at version v:
// INT32, COMPACT_NULLABLE_STRING, ARRAY(INT32), ...
func wireType(f *schema.Field, k schema.Kind, v int16, flex bool) string {
	compact := compactAt(f, v, flex)
	nullable := f.Nullable.Contains(v)
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
			inner = wireType(&schema.Field{Nullable: schema.Range{Lo: 1, Hi: 0}, Tag: -1, Flexible: f.Flexible, FlexSet: f.FlexSet, Type: inner}, f.Elem, v, flex)
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

// bnf lays out one message version as the protocol guide does: a title
// line naming the top-level fields, then one line per field, nested.
// Tagged fields are listed under the struct that holds them, marked with
// their tag. Each field links to href + "-f-" + its path (a field table
// row made with fieldRows and the same prefix).
func bnf(title string, l *schema.Layout, v int16, flex bool, href string) []bnfLine {
	lines := []bnfLine{{Name: title, RHS: bnfRHS(l, v, flex)}}
	return bnfFields(lines, l, v, flex, 1, href, "")
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

func bnfFields(lines []bnfLine, l *schema.Layout, v int16, flex bool, depth int, href, path string) []bnfLine {
	for pass := 0; pass < 2; pass++ {
		for i := range l.Fields {
			f := &l.Fields[i]
			tagged := flex && f.IsTagged(v)
			if !f.Versions.Contains(v) || tagged != (pass == 1) {
				continue
			}
			p := joinField(path, f.JSON)
			ln := bnfLine{Depth: depth, Name: snake(f.Name), Href: href + "-f-" + p}
			if tagged {
				ln.Tag = "tag " + strconv.Itoa(int(f.Tag))
			}
			if f.Struct != nil {
				ln.RHS = bnfRHS(f.Struct, v, flex)
				lines = append(lines, ln)
				lines = bnfFields(lines, f.Struct, v, flex, depth+1, href, p)
				continue
			}
			k := f.Kind
			if k == schema.Array {
				k = f.Elem
			}
			ln.RHS = wireType(f, k, v, flex)
			if f.Kind == schema.Array && f.Nullable.Contains(v) {
				ln.RHS += " (array nullable)"
			}
			lines = append(lines, ln)
		}
	}
	return lines
}

func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

func joinField(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// fieldRow is one row of a message version's field table.
type fieldRow struct {
	Depth      int
	Anchor     string
	Path       string
	JSON       string
	Name       string
	Type       string // the schema's type text
	Wire       string // the guide's wire type at this version
	Versions   string
	Nullable   string
	Tag        string // "3 (versions 2+)" or ""
	Tagged     bool   // tagged at this version
	Default    string
	EntityType string
	MapKey     bool
	Ignorable  bool
	Enum       string // the enumeration whose values the field carries
	ErrorCode  bool
}

func fieldRows(apiKey int16, l *schema.Layout, v int16, flex bool, prefix string) []fieldRow {
	var rows []fieldRow
	var walk func(l *schema.Layout, depth int, path string)
	walk = func(l *schema.Layout, depth int, path string) {
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(v) {
				continue
			}
			p := joinField(path, f.JSON)
			r := fieldRow{Depth: depth, Anchor: prefix + "-f-" + p, Path: p, JSON: f.JSON, Name: f.Name, Type: f.Type,
				Wire: wireType(f, f.Kind, v, flex), Versions: f.Versions.String(), EntityType: f.EntityType,
				MapKey: f.MapKey, Ignorable: f.Ignorable, Tagged: flex && f.IsTagged(v)}
			if !f.Nullable.Empty() {
				r.Nullable = f.Nullable.String()
			}
			if f.Tag >= 0 {
				r.Tag = strconv.Itoa(int(f.Tag)) + " (" + f.Tagged.String() + ")"
			}
			r.Default = f.Default
			if e := schema.EnumFor(apiKey, f); e != nil {
				r.Enum = e.Name
			}
			r.ErrorCode = f.Kind == schema.Int16 && strings.HasSuffix(f.Name, "ErrorCode")
			rows = append(rows, r)
			if f.Struct != nil {
				walk(f.Struct, depth+1, p)
			}
		}
	}
	walk(l, 0, "")
	return rows
}

// change is one difference between a message version and the one before.
type change struct {
	Kind   string // added, removed, nullable, not-nullable, tagged, untagged, type, flexible, header
	Path   string
	Anchor string // the field row in this version's table, when it has one
	Detail string
}

type flatField struct {
	f    *schema.Field
	path string
}

func flatten(l *schema.Layout, v int16) []flatField {
	var out []flatField
	var walk func(l *schema.Layout, path string)
	walk = func(l *schema.Layout, path string) {
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(v) {
				continue
			}
			p := joinField(path, f.JSON)
			out = append(out, flatField{f, p})
			if f.Struct != nil {
				walk(f.Struct, p)
			}
		}
	}
	walk(l, "")
	return out
}

// changes lists what version v of m changes from version v-1, computed
// from the schema tables: fields added and removed, nullability and tags
// gained or lost, type changes, the switch to the flexible encoding and a
// new header version.
func changes(m *schema.Message, v int16, prefix string) []change {
	prev := v - 1
	if prev < m.Valid.Lo || m.At(prev) == nil || m.At(v) == nil {
		return nil
	}
	var out []change
	fv, fp := m.Flexible(v), m.Flexible(prev)
	if fv && !fp {
		out = append(out, change{Kind: "flexible", Detail: "flexible from here: compact strings, bytes and arrays (unsigned varint length + 1) and a tagged-field section after every struct"})
	}
	if hv, hp := m.HeaderVersion(v), m.HeaderVersion(prev); hv != hp {
		out = append(out, change{Kind: "header", Detail: "header version " + strconv.Itoa(int(hp)) + " → " + strconv.Itoa(int(hv))})
	}
	old := map[string]*schema.Field{}
	before := flatten(m.At(prev).Root, prev)
	for _, x := range before {
		old[x.path] = x.f
	}
	cur := flatten(m.At(v).Root, v)
	seen := map[string]bool{}
	added := map[string]bool{}
	for _, x := range cur {
		seen[x.path] = true
		f, o := x.f, old[x.path]
		a := prefix + "-f-" + x.path
		if o == nil {
			added[x.path] = true
			if added[parentPath(x.path)] {
				continue // part of a struct added as a whole
			}
			d := "added (" + f.Type + ")"
			if fv && f.IsTagged(v) {
				d = "added as tagged field " + strconv.Itoa(int(f.Tag)) + " (" + f.Type + ")"
			}
			out = append(out, change{Kind: "added", Path: x.path, Anchor: a, Detail: d})
			continue
		}
		if o.Type != f.Type {
			out = append(out, change{Kind: "type", Path: x.path, Anchor: a, Detail: "type " + o.Type + " → " + f.Type})
		}
		if n, p := f.Nullable.Contains(v), o.Nullable.Contains(prev); n && !p {
			out = append(out, change{Kind: "nullable", Path: x.path, Anchor: a, Detail: "nullable from here"})
		} else if !n && p {
			out = append(out, change{Kind: "not-nullable", Path: x.path, Anchor: a, Detail: "no longer nullable"})
		}
		if t, p := fv && f.IsTagged(v), fp && o.IsTagged(prev); t && !p {
			out = append(out, change{Kind: "tagged", Path: x.path, Anchor: a, Detail: "now tagged field " + strconv.Itoa(int(f.Tag))})
		} else if !t && p {
			out = append(out, change{Kind: "untagged", Path: x.path, Anchor: a, Detail: "no longer tagged"})
		}
	}
	removed := map[string]bool{}
	for _, x := range before {
		if !seen[x.path] {
			removed[x.path] = true
			if removed[parentPath(x.path)] {
				continue
			}
			out = append(out, change{Kind: "removed", Path: x.path, Detail: "removed (was " + x.f.Type + ")"})
		}
	}
	return out
}
