package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// Every line of exampleTable parses and names a field the schemas have
// (a message's struct's field, a struct's field, or a field name some
// struct has), once.
func TestExampleTable(t *testing.T) {
	fields := map[string]bool{}
	var walk func(m string, l *schema.Layout)
	walk = func(m string, l *schema.Layout) {
		for i := range l.Fields {
			f := &l.Fields[i]
			fields[l.Name+"."+f.Name], fields[f.Name] = true, true
			fields[m+":"+l.Name+"."+f.Name] = true
			if f.Struct != nil {
				walk(m, f.Struct)
			}
		}
	}
	var msgs []*schema.Message
	for _, a := range schema.APIs() {
		msgs = append(msgs, a.Request, a.Response)
	}
	msgs = append(msgs, schema.DataMessages()...)
	for _, m := range msgs {
		for _, d := range m.Versions {
			walk(m.Name, d.Root)
		}
	}
	seen := map[string]bool{}
	n := 0
	for _, line := range strings.Split(exampleTable, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		key, _, ok := strings.Cut(line, "\t")
		require.True(t, ok, "%q: no tab", line)
		require.False(t, seen[key], "%s: given twice", key)
		seen[key] = true
		if !fields[key] {
			t.Errorf("%s: no field of that name", key)
		}
		_, found := exampleValue(key) // panics on JSON that does not parse
		require.True(t, found, key)
		n++
	}
	require.Greater(t, n, 300)
}
