package payload

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// jsonCase decodes data framed with schema 1 (and its references) under
// Config{Validate: validate}, and returns the result.
func jsonCase(t *testing.T, s *Schema, data string, validate bool) result {
	t.Helper()
	s.Type = TypeJSON
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: s}}, Config{Validate: validate})
	r := decodeBoth(t, d, framed(1, []byte(data)), false, "t", bigBudget())
	if m := membersOf(t, r.json); string(m["format"]) != `"jsonschema"` || string(m["decoded"]) != data {
		t.Fatalf("%s: decoded %s, want the data as it is", data, r.json)
	}
	return r
}

func noWarnings(t *testing.T, r result) {
	t.Helper()
	if len(r.warnings) > 0 {
		t.Fatalf("warnings: %v", r.warnings)
	}
}

// TestJSONSchemaValidate: the data is checked when the Config asks, with
// the draft its $schema names, and only then.
func TestJSONSchemaValidate(t *testing.T) {
	order := `{"type":"object","required":["id"],"properties":{"id":{"type":"integer","maximum":9007199254740992},"tags":{"type":"array","items":{"type":"string"},"maxItems":2}}}`
	for _, c := range []struct {
		name, schema, data, has string
	}{
		{"valid", order, `{"id":7,"tags":["a"]}`, ""},
		{"missing", order, `{"tags":[]}`, "does not match the schema: "},
		{"nested", order, `{"id":7,"tags":["a",1]}`, "does not match the schema: "},
		{"too many", order, `{"id":7,"tags":["a","b","c"]}`, "maxItems"},
		// Numbers are compared as written: as float64 this id would
		// round down to the maximum and pass.
		{"big integer", order, `{"id":9007199254740993}`, "maximum"},
		{"draft 07 unspelt", `{"$schema":"http://json-schema.org/draft-07/schema","type":"string"}`, `1`, "does not match the schema: "},
		{"draft 07 https", `{"$schema":"https://json-schema.org/draft-07/schema#","type":"string"}`, `"a"`, ""},
		// Draft 07 ignores what stands beside a $ref; 2020-12 does not.
		{"draft 07 $ref", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"number"}},"$ref":"#/definitions/n","maximum":1}`, `5`, ""},
		{"draft 2020 $ref", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"n":{"type":"number"}},"$ref":"#/$defs/n","maximum":1}`, `5`, "maximum"},
		{"draft 04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"minimum":1,"exclusiveMinimum":true}}}`, `{"n":1}`,
			`not validated: $schema is "http://json-schema.org/draft-04/schema#"; kwire validates drafts 07 and 2020-12`},
		{"boolean schema", `false`, `{}`, "does not match the schema: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := jsonCase(t, &Schema{Text: c.schema}, c.data, true)
			if c.has == "" {
				noWarnings(t, r)
			} else {
				oneWarning(t, r, 5, c.has)
			}
			// Not asked: not checked, and nothing is said.
			noWarnings(t, jsonCase(t, &Schema{Text: c.schema}, c.data, false))
		})
	}
	// A schema that is not JSON is not read, asked or not.
	for _, validate := range []bool{false, true} {
		d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Type: TypeJSON, Text: `{"type":`}}}, Config{Validate: validate})
		r := decodeBoth(t, d, framed(1, []byte(`{}`)), false, "t", bigBudget())
		oneWarning(t, r, 1, "schema 1 not read: the JSON schema does not parse")
	}
}

// TestJSONSchemaReferences: $refs within the schema (JSON pointers,
// anchors, recursion that reads deeper into the data) and to the
// schema's references, by the names the registry gives them, relative or
// absolute, and references of references.
func TestJSONSchemaReferences(t *testing.T) {
	address := &Schema{Type: TypeJSON, Text: `{"type":"object","required":["street"],"properties":{"street":{"type":"string"},"zip":{"$ref":"zip.json"}}}`}
	zip := &Schema{Type: TypeJSON, Text: `{"type":"string","pattern":"^[0-9]{5}$"}`}
	address.References = []Reference{{Name: "zip.json", Schema: zip}}
	for _, c := range []struct {
		name   string
		schema *Schema
		good   string
		bad    string
	}{
		{"pointer", &Schema{Text: `{"$defs":{"id":{"type":"integer"}},"properties":{"a":{"$ref":"#/$defs/id"},"b":{"$ref":"#/properties/a"}}}`},
			`{"a":1,"b":2}`, `{"a":1,"b":"x"}`},
		{"escaped pointer", &Schema{Text: `{"$defs":{"a/b~c":{"type":"integer"}},"items":{"$ref":"#/$defs/a~1b~0c"}}`},
			`[1,2]`, `[1,"x"]`},
		{"anchor", &Schema{Text: `{"$defs":{"id":{"$anchor":"id","type":"integer"}},"items":{"$ref":"#id"}}`},
			`[1]`, `[true]`},
		{"draft 07 id anchor", &Schema{Text: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"id":{"$id":"#id","type":"integer"}},"items":{"$ref":"#id"}}`},
			`[1]`, `[true]`},
		{"tree", &Schema{Text: `{"type":"object","required":["v"],"properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#"}}}}`},
			`{"v":1,"kids":[{"v":2,"kids":[{"v":3}]}]}`, `{"v":1,"kids":[{"v":2,"kids":[{"w":3}]}]}`},
		{"relative name", &Schema{Text: `{"properties":{"ship":{"$ref":"address.json"}}}`, References: []Reference{{Name: "address.json", Schema: address}}},
			`{"ship":{"street":"Main St","zip":"12345"}}`, `{"ship":{"street":"Main St","zip":"1234"}}`},
		{"beside the $id", &Schema{Text: `{"$id":"https://acme.example/order.json","properties":{"ship":{"$ref":"address.json"}}}`, References: []Reference{{Name: "address.json", Schema: address}}},
			`{"ship":{"street":"Main St"}}`, `{"ship":{}}`},
		{"absolute name", &Schema{Text: `{"$id":"https://acme.example/order.json","properties":{"ship":{"$ref":"https://acme.example/address.json"}}}`,
			References: []Reference{{Name: "https://acme.example/address.json", Schema: address}}},
			`{"ship":{"street":"Main St"}}`, `{"ship":{"street":5}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			noWarnings(t, jsonCase(t, c.schema, c.good, true))
			oneWarning(t, jsonCase(t, c.schema, c.bad, true), 5, "does not match the schema")
		})
	}
}

// TestJSONSchemaLoadsNoURL: a $ref that names no reference of the schema
// is not fetched; the payload says it was not validated, and why.
func TestJSONSchemaLoadsNoURL(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.Write([]byte(`{"type":"integer"}`))
	}))
	defer srv.Close()
	for _, ref := range []string{srv.URL + "/x.json", "x.json", "file:///etc/passwd"} {
		r := jsonCase(t, &Schema{Text: `{"properties":{"a":{"$ref":"` + ref + `"}}}`}, `{"a":"s"}`, true)
		oneWarning(t, r, 5, "jsonschema: not validated: ")
		if !strings.Contains(r.warnings[0].Message, "kwire loads no URL") {
			t.Errorf("%s: %s", ref, r.warnings[0].Message)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the schema server was asked %d times", n)
	}
}

// TestJSONSchemaLoops: a schema whose $refs come back to the same value
// without reading deeper into the data would have the validator recurse
// until the stack overflows and the process dies. It is not run: the
// payload says why, and its data is shown.
func TestJSONSchemaLoops(t *testing.T) {
	loop := &Schema{Type: TypeJSON, Text: `{"allOf":[{"$ref":"main.json"}]}`}
	for _, c := range []struct {
		name   string
		schema *Schema
		data   string // (one that would crash the validator)
	}{
		{"self", &Schema{Text: `{"$ref":"#"}`}, `{"a":[1]}`},
		{"pair", &Schema{Text: `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`}, `{"x":1}`},
		{"through anyOf and not", &Schema{Text: `{"$defs":{"a":{"anyOf":[{"type":"string"},{"not":{"$ref":"#/$defs/a"}}]}},"items":{"$ref":"#/$defs/a"}}`}, `[1]`},
		{"through if", &Schema{Text: `{"if":{"$ref":"#"},"then":true}`}, `{"a":[1]}`},
		{"draft 07 dependencies", &Schema{Text: `{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":{"$ref":"#"}}}`}, `{"a":[1]}`},
		{"anchor", &Schema{Text: `{"$defs":{"a":{"$anchor":"a","oneOf":[{"$ref":"#a"}]}},"$ref":"#a"}`}, `{"a":[1]}`},
		{"dynamic", &Schema{Text: `{"$dynamicAnchor":"n","$defs":{"d":{"$dynamicRef":"#n"}},"allOf":[{"$ref":"#/$defs/d"}]}`}, `{"a":[1]}`},
		{"across references", &Schema{Text: `{"$id":"https://acme.example/main.json","$ref":"other.json"}`, References: []Reference{
			{Name: "other.json", Schema: loop}, {Name: "main.json", Schema: &Schema{Type: TypeJSON, Text: `{"$ref":"other.json"}`}}}}, `{"a":[1]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := jsonCase(t, c.schema, c.data, true)
			oneWarning(t, r, 5, "jsonschema: not validated: its references loop without reading deeper into the data")
		})
	}
}

// TestJSONSchemaEveryViolation: a value that breaks two properties' rules
// is said the same way every time, naming both in order (the validator
// stops at the first it meets, in Go's map order), a $ref'd subschema
// included; a value whose properties all pass says what the whole breaks.
func TestJSONSchemaEveryViolation(t *testing.T) {
	s := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"count":{"type":"integer"}},
"properties":{"kind":{"type":"string","enum":["click","view"]},"a/b":{"type":"string"},"n":{"$ref":"#/definitions/count"},"ok":{"type":"boolean"}},"required":["kind","n"]}`
	want := `validating /properties/a~1b: type: 1 has type "integer", want "string"; ` +
		`validating /properties/kind: enum: nope does not equal any of: [click view]; ` +
		`validating /properties/n: `
	for i := 0; i < 20; i++ {
		r := jsonCase(t, &Schema{Text: s}, `{"n":"x","ok":true,"kind":"nope","a/b":1}`, true)
		if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, "does not match the schema: "+want) || !strings.Contains(r.warnings[0].Message, `x has type "string", want "integer"`) {
			t.Fatalf("run %d: %+v", i, r.warnings)
		}
	}
	r := jsonCase(t, &Schema{Text: s}, `{"kind":"view"}`, true)
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, `required: missing properties: ["n"]`) {
		t.Fatalf("%+v", r.warnings)
	}
}

// TestJSONSchemaEveryViolationBelowTheRoot: below the root's properties
// the validator said only the first violation it met, in Go's map order
// (so the tree's path and the JSON's could say different ones); each
// property that breaks its rules is said, by name in order, down through
// objects whose subschema lists properties, a $ref'd one included, and
// an object whose properties all pass says what it breaks itself.
func TestJSONSchemaEveryViolationBelowTheRoot(t *testing.T) {
	s := `{"type":"object","$defs":{"city":{"type":"object","properties":{"name":{"type":"string"},"pop":{"type":"integer"}}}},
"properties":{"addr":{"type":"object","required":["zip"],"properties":{"zip":{"type":"string"},"city":{"$ref":"#/$defs/city"}}},"n":{"type":"integer"}}}`
	want := `validating /properties/addr/properties/city/properties/name: type: 2 has type "integer", want "string"; ` +
		`validating /properties/addr/properties/city/properties/pop: type: p has type "string", want "integer"; ` +
		`validating /properties/addr/properties/zip: type: 1 has type "integer", want "string"; ` +
		`validating /properties/n: type: x has type "string", want "integer"`
	for i := 0; i < 20; i++ {
		r := jsonCase(t, &Schema{Text: s}, `{"n":"x","addr":{"zip":1,"city":{"name":2,"pop":"p"}}}`, true)
		if len(r.warnings) != 1 || !strings.HasSuffix(r.warnings[0].Message, "does not match the schema: "+want) {
			t.Fatalf("run %d: %+v", i, r.warnings)
		}
	}
	r := jsonCase(t, &Schema{Text: s}, `{"addr":{"city":{"name":"Oslo"}}}`, true)
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, `validating /properties/addr: required: missing properties: ["zip"]`) {
		t.Fatalf("%+v", r.warnings)
	}
}
