package payload

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// Validating is outside the walk: google/jsonschema-go applies a schema
// to a value, and each subschema that applies to it (allOf, anyOf, $ref,
// ...) again, with no memory and no limit, so a schema whose levels each
// apply the next twice costs 2^depth on a value nested depth deep (22
// levels: 12 s for a 200-byte payload). Before the validator runs,
// validationSteps counts what it would do on the payload's value, and
// the payload is validated only when that fits a step budget: per payload
// payloadSteps plus stepsPerByte a byte of the data, and per frame
// frameSteps plus frameStepsPerByte a byte of the data validated in it.
// Past it the data is shown, not validated, with a limit warning.
const (
	payloadSteps      = 1024
	stepsPerByte      = 16
	frameSteps        = 1 << 17
	frameStepsPerByte = 2
)

// validateWithin validates data (JSON no deeper than the walker's
// MaxDepth) against js when what it costs fits the step budgets: the
// mismatch, why it could not check, or which limit stopped it.
func (w *walker) validateWithin(js *jsonSchema, data []byte) (mismatch error, failed, limit string) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var inst any
	if err := d.Decode(&inst); err != nil {
		return nil, err.Error(), ""
	}
	inst = exactNumbers(inst)
	if js.l == nil {
		return nil, "its schema was not placed", ""
	}
	f := frameOf(w.b)
	f.stepsEarned += frameStepsPerByte * len(data)
	room := min(payloadSteps+stepsPerByte*len(data), frameSteps+f.stepsEarned-f.stepsSpent)
	c := costWalk{l: js.l, limit: room, refs: map[*jsonschema.Schema]*jsonschema.Schema{}, re: map[string]*regexp.Regexp{}}
	root := js.l.uris[mainURL]
	ok := root != nil && c.walk(root, inst)
	if !ok {
		// All of it, however far the count got (maps are walked in no
		// fixed order): the next payload's room must not depend on it.
		f.stepsSpent += room
		which := "for the payload ("
		if room < payloadSteps+stepsPerByte*len(data) {
			which = "left for the frame ("
		}
		return nil, "", "validating costs more steps than the limit " + which + strconv.Itoa(max(room, 0)) +
			" steps: a schema's subschemas applying to one value, again at each level of the data)"
	}
	f.stepsSpent += c.steps
	return validateValue(js, inst)
}

// validateValue checks inst against rs: the mismatch, or why it could
// not check.
func validateValue(js *jsonSchema, inst any) (mismatch error, failed, limit string) {
	defer func() {
		if r := recover(); r != nil {
			mismatch, failed = nil, "the validator failed: "+panicText(r)
		}
	}()
	return js.validate(inst), "", ""
}

// costWalk counts the validator's steps: each application of a schema to
// a value is a step, plus one for each member or element of the value
// (which the keywords read). It follows
// everything the validator may apply (every branch of anyOf and oneOf,
// unevaluated keywords over every member, and all of them where the
// validator stops at the first mismatch), so it counts at least what the
// validator does, and stops once past its limit.
type costWalk struct {
	l     *loops
	steps int
	limit int
	refs  map[*jsonschema.Schema]*jsonschema.Schema // $refs followed
	re    map[string]*regexp.Regexp                 // patternProperties
}

// walk counts applying s to v; false once the steps pass the limit.
func (c *costWalk) walk(s *jsonschema.Schema, v any) bool {
	if s == nil {
		return true
	}
	c.steps++
	switch x := v.(type) {
	case map[string]any:
		c.steps += len(x)
	case []any:
		c.steps += len(x) // uniqueItems too: the validator hashes the items
	}
	if c.steps > c.limit {
		return false
	}
	if s.Ref != "" && !c.walk(c.follow(s, s.Ref), v) {
		return false
	}
	if s.DynamicRef != "" && !c.walk(c.follow(s, s.DynamicRef), v) {
		return false
	}
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, {s.Not, s.If, s.Then, s.Else}} {
		for _, t := range list {
			if !c.walk(t, v) {
				return false
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, m := range []map[string]*jsonschema.Schema{s.DependentSchemas, s.DependencySchemas} {
			for k, t := range m {
				if _, ok := x[k]; ok && !c.walk(t, v) {
					return false
				}
			}
		}
		for k, e := range x {
			matched := false
			if t, ok := s.Properties[k]; ok {
				matched = true
				if !c.walk(t, e) {
					return false
				}
			}
			for p, t := range s.PatternProperties {
				if r := c.pattern(p); r == nil || r.MatchString(k) {
					matched = true
					if !c.walk(t, e) {
						return false
					}
				}
			}
			if !matched && !c.walk(s.AdditionalProperties, e) {
				return false
			}
			if !c.walk(s.PropertyNames, k) || !c.walk(s.UnevaluatedProperties, e) {
				return false
			}
		}
	case []any:
		prefix := s.PrefixItems
		if len(prefix) == 0 {
			prefix = s.ItemsArray
		}
		for i, e := range x {
			t := s.Items
			if i < len(prefix) {
				t = prefix[i]
			} else if len(s.ItemsArray) > 0 {
				t = s.AdditionalItems
			}
			if !c.walk(t, e) || !c.walk(s.Contains, e) || !c.walk(s.UnevaluatedItems, e) {
				return false
			}
		}
	}
	return true
}

// follow is the schema a $ref of s names (nil when it cannot be
// followed: the validator's resolution refused such schemas already).
func (c *costWalk) follow(s *jsonschema.Schema, ref string) *jsonschema.Schema {
	if t, ok := c.refs[s]; ok && ref == s.Ref {
		return t
	}
	t, err := c.l.follow(s, ref)
	if err != nil {
		t = nil
	}
	if ref == s.Ref {
		c.refs[s] = t
	}
	return t
}

// pattern is p compiled (nil when it does not compile: counted as
// matching).
func (c *costWalk) pattern(p string) *regexp.Regexp {
	if r, ok := c.re[p]; ok {
		return r
	}
	r, _ := regexp.Compile(p)
	c.re[p] = r
	return r
}
