package site

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/render"
)

// bnfLine is one line of a Kafka-guide-style schema, as render lays it
// out and writes it ("name => a [b] TAG_BUFFER", "tag 0: name => INT32"),
// with the field row it describes (Href, "" for the title line).
type bnfLine struct {
	render.BNFLine
	Href string
}

// bnf is render's BNF of one message version, each field's line linked to
// href + "-f-" + its path (a field table row made with fieldRows and the
// same prefix). The "bnf" template writes each line's text as
// render.BNFLine.Text does, the CLI's and the API's.
func bnf(title string, l *schema.Layout, v int16, flex bool, href string) []bnfLine {
	rl := render.BNFLines(title, l, v, flex)
	lines := make([]bnfLine, len(rl))
	for i, r := range rl {
		lines[i] = bnfLine{BNFLine: r}
		if r.Path != "" {
			lines[i].Href = href + "-f-" + r.Path
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
	Meaning    string // what the field is, from field-meanings.tsv
}

// fieldRows is the field table of version v of m, laid out by l (m's
// name keys the field meanings).
func fieldRows(apiKey int16, m *schema.Message, l *schema.Layout, v int16, flex bool, prefix string) []fieldRow {
	mt := fieldMeanings()
	msg := m.Name
	spans := render.FieldSpans(m)
	var rows []fieldRow
	// A nested field occurs only where every struct enclosing it does: its
	// ranges are shown cut to theirs (in), as Kafka's schema files do not
	// (a field "0+" inside a struct "3+" occurs from v3); and a field's
	// versions are those of every definition of m, as render.FieldTable
	// shows them (render.FieldSpans).
	var walk func(l *schema.Layout, depth int, path string, in schema.Range)
	walk = func(l *schema.Layout, depth int, path string, in schema.Range) {
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(v) {
				continue
			}
			p := joinField(path, f.JSON)
			occurs := spans.At(p, v, intersect(f.Versions, in))
			r := fieldRow{Depth: depth, Anchor: prefix + "-f-" + p, Path: p, JSON: f.JSON, Name: f.Name, Type: f.Type,
				Wire: render.WireType(f, f.Kind, v, flex), Versions: occurs.String(), EntityType: f.EntityType,
				MapKey: f.MapKey, Ignorable: f.Ignorable, Tagged: flex && f.IsTagged(v)}
			if n := intersect(f.Nullable, occurs); !n.Empty() {
				r.Nullable = n.String()
			}
			if f.Tag >= 0 {
				r.Tag = strconv.Itoa(int(f.Tag)) + " (" + intersect(f.Tagged, occurs).String() + ")"
			}
			r.Default = f.Default
			if e := schema.EnumFor(apiKey, f); e != nil {
				r.Enum = e.Name
			}
			r.ErrorCode = f.Kind == schema.Int16 && strings.HasSuffix(f.Name, "ErrorCode")
			r.Meaning = mt.of(msg, p, f.JSON)
			rows = append(rows, r)
			if f.Struct != nil {
				walk(f.Struct, depth+1, p, occurs)
			}
		}
	}
	walk(l, 0, "", schema.Range{Lo: 0, Hi: schema.Open})
	return rows
}

// intersect is the versions both a and b hold.
func intersect(a, b schema.Range) schema.Range {
	return schema.Range{Lo: max(a.Lo, b.Lo), Hi: min(a.Hi, b.Hi)}
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
