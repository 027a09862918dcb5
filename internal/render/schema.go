package render

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// snake turns a Kafka field name into the snake_case of Kafka's BNF:
// "TransactionalId" -> "transactional_id", "ISRNodes" -> "isr_nodes".
func snake(s string) string {
	var b strings.Builder
	r := []rune(s)
	for i, c := range r {
		up := c >= 'A' && c <= 'Z'
		if up && i > 0 {
			prevLower := r[i-1] >= 'a' && r[i-1] <= 'z' || r[i-1] >= '0' && r[i-1] <= '9'
			nextLower := i+1 < len(r) && r[i+1] >= 'a' && r[i+1] <= 'z'
			if prevLower || (nextLower && r[i-1] >= 'A' && r[i-1] <= 'Z') {
				b.WriteByte('_')
			}
		}
		if up {
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// WireType names a field's encoding at version v the way Kafka's guide
// does: INT32, COMPACT_NULLABLE_STRING, UNSIGNED_VARINT, ...
func WireType(f *schema.Field, k schema.Kind, v int16, flexible bool) string {
	compact := flexible && (!f.FlexSet || f.Flexible.Contains(v))
	nullable := f.Nullable.Contains(v)
	s := strings.ToUpper(k.String())
	switch k {
	case schema.Float64:
		s = "FLOAT64"
	case schema.Bool:
		s = "BOOLEAN"
	case schema.String, schema.Bytes, schema.Records:
		if nullable {
			s = "NULLABLE_" + s
		}
		if compact {
			s = "COMPACT_" + s
		}
	}
	return s
}

// BNF writes version v of message m in the BNF style of Kafka's protocol
// guide: the top line lists the fields, then each field's type, nested
// structs indented under their field. Tagged fields follow, marked with
// their tag numbers.
func BNF(m *schema.Message, v int16, title string) string {
	d := m.At(v)
	if d == nil {
		return ""
	}
	flex := d.Flexible.Contains(v)
	var b strings.Builder
	var write func(l *schema.Layout, head string, depth int)
	field := func(f *schema.Field, label string, depth int) {
		ind := strings.Repeat("  ", depth)
		switch {
		case f.Kind == schema.Struct || f.Kind == schema.Array && f.Elem == schema.Struct:
			if f.Kind == schema.Struct && f.Nullable.Contains(v) {
				label = "(nullable) " + label
			}
			write(f.Struct, label, depth)
		case f.Kind == schema.Array:
			arr := "ARRAY"
			if flex {
				arr = "COMPACT_ARRAY"
			}
			if f.Nullable.Contains(v) {
				arr = "NULLABLE_" + arr
			}
			b.WriteString(ind + label + " => " + arr + "(" + WireType(f, f.Elem, v, flex) + ")\n")
		default:
			b.WriteString(ind + label + " => " + WireType(f, f.Kind, v, flex) + "\n")
		}
	}
	write = func(l *schema.Layout, head string, depth int) {
		var names []string
		var tagged []*schema.Field
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(v) {
				continue
			}
			if flex && f.IsTagged(v) {
				tagged = append(tagged, f)
				continue
			}
			n := snake(f.Name)
			if f.Kind == schema.Array {
				n = "[" + n + "]"
			}
			names = append(names, n)
		}
		if flex {
			names = append(names, "TAG_BUFFER")
		}
		b.WriteString(strings.Repeat("  ", depth) + head + " => " + strings.Join(names, " ") + "\n")
		for i := range l.Fields {
			if f := &l.Fields[i]; f.Versions.Contains(v) && !(flex && f.IsTagged(v)) {
				field(f, snake(f.Name), depth+1)
			}
		}
		for _, f := range tagged {
			field(f, "tag "+strconv.Itoa(int(f.Tag))+": "+snake(f.Name), depth+1)
		}
	}
	write(d.Root, title, 0)
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

// FieldTable lists every field of m across all the versions the
// definition used at v covers, nested fields after their parent.
func FieldTable(m *schema.Message, v int16) []FieldRow {
	d := m.At(v)
	if d == nil {
		return nil
	}
	var rows []FieldRow
	var walk func(l *schema.Layout, prefix string, depth int)
	walk = func(l *schema.Layout, prefix string, depth int) {
		for i := range l.Fields {
			f := &l.Fields[i]
			r := FieldRow{Path: prefix + f.JSON, Depth: depth, Type: f.Type, Versions: f.Versions.String(),
				Nullable: f.Nullable.String(), Default: f.Default, EntityType: f.EntityType, MapKey: f.MapKey}
			if r.Nullable == "none" {
				r.Nullable = ""
			}
			if f.Tag >= 0 {
				r.Tag = strconv.Itoa(int(f.Tag)) + " (" + f.Tagged.String() + ")"
			}
			rows = append(rows, r)
			if f.Struct != nil {
				walk(f.Struct, r.Path+".", depth+1)
			}
		}
	}
	walk(d.Root, "", 0)
	return rows
}
