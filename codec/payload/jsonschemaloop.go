package payload

import (
	"errors"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// checkLoops refuses a schema that could apply itself to one value
// without end: $refs (with allOf, anyOf, oneOf, not, if, then, else and
// dependentSchemas, which apply to the same value) that come back to where
// they started without reading deeper into the data, like {"$ref":"#"}.
// google/jsonschema-go would recurse on such a schema until the stack
// overflowed, which ends the process (no recover catches it); a schema is
// registry input and must not do that.
//
// $refs are followed as the library follows them (Schema.Resolve): $id
// sets a base URI, draft 07 ignores $id beside $ref and takes "#name" ids
// as anchors, 2020-12 has $anchor and $dynamicAnchor; a fragment is a JSON
// pointer or an anchor. A $dynamicRef may land on any schema with its
// anchor, so it counts as leading to each. A $ref this cannot follow is
// refused: what cannot be checked is not run.
//
// docs are the schema and the references the library loaded, by URL,
// each with its $schema set.
func checkLoops(docs map[string]*jsonschema.Schema) error {
	l, err := newLoops(docs)
	if err != nil {
		return err
	}
	// Depth first along what applies to the same value, without
	// recursion (a long chain of $refs is no reason to grow the stack).
	type frame struct {
		s    *jsonschema.Schema
		next []*jsonschema.Schema
		via  []string
	}
	state := make(map[*jsonschema.Schema]int8, len(l.all)) // 1 on the path, 2 done
	for _, start := range l.all {
		if state[start] != 0 {
			continue
		}
		stack := []frame{}
		push := func(s *jsonschema.Schema) error {
			state[s] = 1
			f := frame{s: s}
			if err := l.inPlace(s, &f.next, &f.via); err != nil {
				return err
			}
			stack = append(stack, f)
			return nil
		}
		if err := push(start); err != nil {
			return err
		}
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if len(f.next) == 0 {
				state[f.s] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			t, via := f.next[0], f.via[0]
			f.next, f.via = f.next[1:], f.via[1:]
			switch state[t] {
			case 1:
				return errors.New("its references loop without reading deeper into the data (through " + strconv.Quote(via) + ")")
			case 0:
				if err := push(t); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// newLoops places docs' schemas: their base URIs and anchors, so that
// $refs can be followed (checkLoops, and what validating costs).
func newLoops(docs map[string]*jsonschema.Schema) (*loops, error) {
	l := &loops{
		uris:    map[string]*jsonschema.Schema{},
		base:    map[*jsonschema.Schema]*jsonschema.Schema{},
		baseURI: map[*jsonschema.Schema]*url.URL{},
		anchors: map[*jsonschema.Schema]map[string]*jsonschema.Schema{},
		dynamic: map[string][]*jsonschema.Schema{},
	}
	for _, u := range slices.Sorted(maps.Keys(docs)) {
		d := docs[u]
		du, err := url.Parse(u)
		if err != nil {
			return nil, err
		}
		l.uris[u] = d
		l.baseURI[d] = du
		l.draft07 = d.Schema == draft07
		l.place(d, d)
	}
	return l, nil
}

type loops struct {
	draft07 bool                                                 // of the document being placed
	all     []*jsonschema.Schema                                 // every schema, in document order
	uris    map[string]*jsonschema.Schema                        // base URI: its schema
	base    map[*jsonschema.Schema]*jsonschema.Schema            // schema: its base schema
	baseURI map[*jsonschema.Schema]*url.URL                      // base schema: its URI
	anchors map[*jsonschema.Schema]map[string]*jsonschema.Schema // base schema: its anchors
	dynamic map[string][]*jsonschema.Schema                      // $dynamicAnchor: schemas
}

// place gives s and its subschemas their base schemas, URIs and anchors.
func (l *loops) place(s, base *jsonschema.Schema) {
	l.all = append(l.all, s)
	if s.ID != "" && !(l.draft07 && s.Ref != "") {
		if id, err := url.Parse(s.ID); err == nil {
			if l.draft07 && id.Fragment != "" {
				l.anchor(base, strings.TrimPrefix(s.ID, "#"), s)
			} else if u := l.baseURI[base].ResolveReference(id); u.IsAbs() {
				l.uris[u.String()] = s
				l.baseURI[s] = u
				base = s
			}
		}
	}
	l.base[s] = base
	if !l.draft07 {
		l.anchor(base, s.Anchor, s)
		l.anchor(base, s.DynamicAnchor, s)
		if s.DynamicAnchor != "" {
			l.dynamic[s.DynamicAnchor] = append(l.dynamic[s.DynamicAnchor], s)
		}
	}
	eachChild(s, func(c *jsonschema.Schema, _ bool) { l.place(c, base) })
}

func (l *loops) anchor(base *jsonschema.Schema, name string, s *jsonschema.Schema) {
	if name == "" {
		return
	}
	if l.anchors[base] == nil {
		l.anchors[base] = map[string]*jsonschema.Schema{}
	}
	if l.anchors[base][name] == nil {
		l.anchors[base][name] = s
	}
}

// inPlace lists what applies to the same value as s, with the keyword
// or $ref that leads there.
func (l *loops) inPlace(s *jsonschema.Schema, next *[]*jsonschema.Schema, via *[]string) error {
	add := func(t *jsonschema.Schema, v string) {
		*next = append(*next, t)
		*via = append(*via, v)
	}
	for _, ref := range []string{s.Ref, s.DynamicRef} {
		if ref == "" {
			continue
		}
		t, err := l.follow(s, ref)
		if err != nil {
			return err
		}
		add(t, ref)
	}
	if s.DynamicRef != "" {
		if u, err := url.Parse(s.DynamicRef); err == nil && u.Fragment != "" {
			for _, d := range l.dynamic[u.Fragment] {
				add(d, s.DynamicRef)
			}
		}
	}
	eachChild(s, func(c *jsonschema.Schema, same bool) {
		if same {
			add(c, "an applicator")
		}
	})
	return nil
}

// follow finds the schema a $ref (or $dynamicRef, lexically) in s names.
func (l *loops) follow(s *jsonschema.Schema, ref string) (*jsonschema.Schema, error) {
	cannot := func(why string) error {
		return errors.New("cannot follow $ref " + strconv.Quote(ref) + " to check it for loops: " + why)
	}
	r, err := url.Parse(ref)
	if err != nil {
		return nil, cannot(err.Error())
	}
	u := l.baseURI[l.base[s]].ResolveReference(r)
	frag := u.Fragment
	u.Fragment = ""
	t := l.uris[u.String()]
	switch {
	case t == nil:
		return nil, cannot("no schema is " + strconv.Quote(u.String()))
	case frag == "":
		return t, nil
	case !strings.HasPrefix(frag, "/"):
		if a := l.anchors[t][frag]; a != nil {
			return a, nil
		}
		return nil, cannot("no anchor " + strconv.Quote(frag))
	}
	if t = pointAt(t, strings.Split(frag[1:], "/")); t == nil {
		return nil, cannot("the pointer names no schema")
	}
	return t, nil
}

// pointAt follows a JSON pointer's segments from s, or returns nil.
func pointAt(s *jsonschema.Schema, segs []string) *jsonschema.Schema {
	for i := 0; i < len(segs); i++ {
		if s == nil {
			return nil
		}
		var (
			one   *jsonschema.Schema
			list  []*jsonschema.Schema
			table map[string]*jsonschema.Schema
			kind  byte // 's', 'l' or 'm'
		)
		switch unescape(segs[i]) {
		case "$defs":
			table, kind = s.Defs, 'm'
		case "definitions":
			table, kind = s.Definitions, 'm'
		case "properties":
			table, kind = s.Properties, 'm'
		case "patternProperties":
			table, kind = s.PatternProperties, 'm'
		case "dependentSchemas":
			table, kind = s.DependentSchemas, 'm'
		case "dependencies":
			table, kind = s.DependencySchemas, 'm'
		case "allOf":
			list, kind = s.AllOf, 'l'
		case "anyOf":
			list, kind = s.AnyOf, 'l'
		case "oneOf":
			list, kind = s.OneOf, 'l'
		case "prefixItems":
			list, kind = s.PrefixItems, 'l'
		case "items":
			if s.Items != nil {
				one, kind = s.Items, 's'
			} else {
				list, kind = s.ItemsArray, 'l'
			}
		case "not":
			one, kind = s.Not, 's'
		case "if":
			one, kind = s.If, 's'
		case "then":
			one, kind = s.Then, 's'
		case "else":
			one, kind = s.Else, 's'
		case "additionalProperties":
			one, kind = s.AdditionalProperties, 's'
		case "propertyNames":
			one, kind = s.PropertyNames, 's'
		case "unevaluatedProperties":
			one, kind = s.UnevaluatedProperties, 's'
		case "additionalItems":
			one, kind = s.AdditionalItems, 's'
		case "contains":
			one, kind = s.Contains, 's'
		case "unevaluatedItems":
			one, kind = s.UnevaluatedItems, 's'
		case "contentSchema":
			one, kind = s.ContentSchema, 's'
		default:
			return nil
		}
		if kind == 's' {
			s = one
			continue
		}
		if i++; i == len(segs) {
			return nil
		}
		key := unescape(segs[i])
		if kind == 'm' {
			s = table[key]
			continue
		}
		n, err := strconv.Atoi(key)
		if err != nil || n < 0 || n >= len(list) || (len(key) > 1 && key[0] == '0') {
			return nil
		}
		s = list[n]
	}
	return s
}

func unescape(seg string) string {
	return strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
}

// eachChild calls f for each subschema of s, saying whether it applies
// to the same value as s or to a part of it (or to nothing: $defs).
func eachChild(s *jsonschema.Schema, f func(c *jsonschema.Schema, same bool)) {
	one := func(c *jsonschema.Schema, same bool) {
		if c != nil {
			f(c, same)
		}
	}
	all := func(cs []*jsonschema.Schema, same bool) {
		for _, c := range cs {
			one(c, same)
		}
	}
	table := func(m map[string]*jsonschema.Schema, same bool) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			one(m[k], same)
		}
	}
	all(s.AllOf, true)
	all(s.AnyOf, true)
	all(s.OneOf, true)
	one(s.Not, true)
	one(s.If, true)
	one(s.Then, true)
	one(s.Else, true)
	table(s.DependentSchemas, true)
	table(s.DependencySchemas, true)
	table(s.Defs, false)
	table(s.Definitions, false)
	table(s.Properties, false)
	table(s.PatternProperties, false)
	one(s.AdditionalProperties, false)
	one(s.PropertyNames, false)
	one(s.UnevaluatedProperties, false)
	all(s.PrefixItems, false)
	one(s.Items, false)
	all(s.ItemsArray, false)
	one(s.AdditionalItems, false)
	one(s.Contains, false)
	one(s.UnevaluatedItems, false)
	one(s.ContentSchema, false)
}
