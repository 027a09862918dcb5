package site

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// xxd lays bytes out as xxd does: an offset, 16 bytes in groups of two,
// then the printable ASCII ("." for the rest). The caller escapes it.
func xxd(b []byte) string {
	const hexd = "0123456789abcdef"
	var out []byte
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		for s := 28; s >= 0; s -= 4 {
			out = append(out, hexd[(off>>s)&15])
		}
		out = append(out, ':', ' ')
		for i := 0; i < 16; i++ {
			if i < len(line) {
				out = append(out, hexd[line[i]>>4], hexd[line[i]&15])
			} else {
				out = append(out, ' ', ' ')
			}
			if i%2 == 1 {
				out = append(out, ' ')
			}
		}
		out = append(out, ' ')
		for _, c := range line {
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			out = append(out, c)
		}
		out = append(out, '\n')
	}
	return strings.TrimSuffix(string(out), "\n")
}

// schemaJSON writes the structure of the definition that lays out version
// v of m in the form of Kafka's message files (apiKey, type, name,
// validVersions, flexibleVersions, fields with their versions,
// nullability, tags, defaults and entity types), without the "about"
// texts, indented.
func schemaJSON(m *schema.Message, v int16) []byte {
	d := m.At(v)
	if d == nil {
		return nil
	}
	b := []byte("{\n")
	kv := func(ind, k, val string, last bool) {
		b = append(b, ind...)
		b = strconv.AppendQuote(b, k)
		b = append(b, ": "...)
		b = append(b, val...)
		if !last {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	q := strconv.Quote
	if m.APIKey >= 0 {
		kv("  ", "apiKey", strconv.Itoa(int(m.APIKey)), false)
	}
	kv("  ", "type", q(m.Kind), false)
	kv("  ", "name", q(m.Name), false)
	kv("  ", "validVersions", q(d.Versions.String()), false)
	kv("  ", "flexibleVersions", q(d.Flexible.String()), false)
	b = append(b, `  "fields": `...)
	b = appendFields(b, d.Root, "  ")
	b = append(b, "\n}\n"...)
	return b
}

func appendFields(b []byte, l *schema.Layout, ind string) []byte {
	if len(l.Fields) == 0 {
		return append(b, "[]"...)
	}
	b = append(b, "[\n"...)
	for i := range l.Fields {
		f := &l.Fields[i]
		in := ind + "  "
		b = append(b, in...)
		b = append(b, "{ "...)
		parts := []string{`"name": ` + strconv.Quote(f.Name), `"type": ` + strconv.Quote(f.Type), `"versions": ` + strconv.Quote(f.Versions.String())}
		if !f.Nullable.Empty() {
			parts = append(parts, `"nullableVersions": `+strconv.Quote(f.Nullable.String()))
		}
		if f.Tag >= 0 {
			parts = append(parts, `"taggedVersions": `+strconv.Quote(f.Tagged.String()), `"tag": `+strconv.Itoa(int(f.Tag)))
		}
		if f.FlexSet {
			parts = append(parts, `"flexibleVersions": `+strconv.Quote(f.Flexible.String()))
		}
		if f.Default != "" {
			parts = append(parts, `"default": `+strconv.Quote(f.Default))
		}
		if f.EntityType != "" {
			parts = append(parts, `"entityType": `+strconv.Quote(f.EntityType))
		}
		if f.MapKey {
			parts = append(parts, `"mapKey": true`)
		}
		if f.Ignorable {
			parts = append(parts, `"ignorable": true`)
		}
		b = append(b, strings.Join(parts, ", ")...)
		if f.Struct != nil {
			b = append(b, ",\n"...)
			b = append(b, in+`  "fields": `...)
			b = appendFields(b, f.Struct, in+"  ")
			b = append(b, '\n')
			b = append(b, in...)
			b = append(b, '}')
		} else {
			b = append(b, " }"...)
		}
		if i < len(l.Fields)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	b = append(b, ind...)
	return append(b, ']')
}
