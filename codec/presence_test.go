package codec

import (
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// presentValue is f's value JSON in generic form with exactly the tagged
// fields the bytes carry: the form the encoder writes back byte for byte.
// (Value JSON that shows tagged fields only when present needs no
// filtering; this keeps the encoder's tests independent of that.)
func presentValue(t *testing.T, f *Frame) map[string]any {
	t.Helper()
	v, err := ParseJSON(f.JSON())
	require.NoError(t, err)
	env := v.(map[string]any)
	if hdr, ok := env["header"].(map[string]any); ok && f.Header != nil {
		hm := schema.RequestHeader()
		if f.Response {
			hm = schema.ResponseHeader()
		}
		if d := hm.At(f.HeaderVersion); d != nil {
			dropAbsentTags(f.Header, d.Root, hdr, f.HeaderVersion, hm.Flexible(f.HeaderVersion))
		}
	}
	if body, ok := env["body"].(map[string]any); ok && f.Body != nil && f.Message != nil {
		dropAbsentTags(f.Body, f.Message.At(f.Layout).Root, body, f.Layout, f.Flexible)
	}
	return env
}

// dropAbsentTags deletes from obj the tagged fields node n's bytes lack,
// at every depth.
func dropAbsentTags(n *tree.Node, l *schema.Layout, obj map[string]any, v int16, flex bool) {
	present := map[*schema.Field]*tree.Node{}
	for _, c := range n.Children {
		if c.Role == tree.RoleTags {
			for _, t := range c.Children {
				if t.Field != nil {
					present[t.Field] = t
				}
			}
			continue
		}
		if c.Field != nil {
			dropInValue(c, c.Field, obj[c.Field.JSON], v, flex)
		}
	}
	if !flex {
		return
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) || !f.IsTagged(v) {
			continue
		}
		if c := present[f]; c != nil {
			dropInValue(c, f, obj[f.JSON], v, flex)
		} else {
			delete(obj, f.JSON)
		}
	}
}

func dropInValue(n *tree.Node, f *schema.Field, val any, v int16, flex bool) {
	switch {
	case n.Null:
	case f.Kind == schema.Struct:
		if obj, ok := val.(map[string]any); ok {
			dropAbsentTags(n, f.Struct, obj, v, flex)
		}
	case f.Kind == schema.Array && f.Elem == schema.Struct:
		arr, _ := val.([]any)
		i := 0
		for _, el := range n.Children {
			if el.Role != tree.RoleElement || i >= len(arr) {
				continue
			}
			if obj, ok := arr[i].(map[string]any); ok {
				dropAbsentTags(el, f.Struct, obj, v, flex)
			}
			i++
		}
	}
}
