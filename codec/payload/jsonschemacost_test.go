package payload

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec/internal/budget"
)

// allOfSchema is a JSON Schema whose every level applies the next twice
// (allOf of two $refs to it), and data nested depth deep that reaches its
// last level: the validator applies 2^depth schemas to it.
func allOfSchema(depth int) (schema, data string) {
	var b strings.Builder
	b.WriteString(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/$defs/d0","$defs":{`)
	for i := 0; i < depth; i++ {
		n := strconv.Itoa(i + 1)
		b.WriteString(`"d` + strconv.Itoa(i) + `":{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/d` + n + `"},{"$ref":"#/$defs/d` + n + `"}]}}},`)
	}
	b.WriteString(`"d` + strconv.Itoa(depth) + `":{"type":"integer"}}}`)
	return b.String(), strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
}

// TestJSONSchemaValidateBounded: a schema whose subschemas apply to one
// value ever more times at each level of the data is not run past the
// payload's step budget: the data is shown, not validated, with a limit
// warning, at once (24 levels took the validator 50 s).
func TestJSONSchemaValidateBounded(t *testing.T) {
	schema, data := allOfSchema(24)
	start := time.Now()
	r := jsonCase(t, &Schema{Text: schema}, data, true)
	if len(r.warnings) != 1 || !r.warnings[0].Limit || !strings.Contains(r.warnings[0].Message, "not validated: validating costs more steps than the limit for the payload") {
		t.Fatalf("warnings %v, want one limit warning", r.warnings)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("validating took %v", d)
	}

	// Fewer levels fit, and are validated (a mismatch is found).
	schema, data = allOfSchema(3)
	noWarnings(t, jsonCase(t, &Schema{Text: schema}, data, true))
	r = jsonCase(t, &Schema{Text: schema}, strings.Replace(data, "1", `"x"`, 1), true)
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0].Message, "does not match the schema") {
		t.Fatalf("warnings %v, want a mismatch", r.warnings)
	}
}

// TestJSONSchemaValidateFrameBounded: each payload within its own budget,
// a frame of them still stops validating once the frame's steps are
// spent, saying so for each payload left.
func TestJSONSchemaValidateFrameBounded(t *testing.T) {
	schema, data := allOfSchema(6) // 2^7 applications for 40 bytes: fits a payload's budget
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Type: TypeJSON, Text: schema}}}, Config{Validate: true})
	b := bigBudget()
	var ws budget.Warnings
	p := framed(1, []byte(data))
	validated := 0
	for i := 0; i < 10000; i++ {
		n := len(ws.List)
		d.Decode(nil, &In{B: p, End: len(p), Path: valuePath, Budget: &b, Warnings: &ws})
		if len(ws.List) == n {
			validated++
		}
	}
	if validated == 10000 || validated < 100 {
		t.Fatalf("%d of 10000 payloads validated, want the frame's budget to stop it past some hundreds", validated)
	}
	if !strings.Contains(ws.List[0].Message, "left for the frame") || !ws.List[0].Limit {
		t.Fatalf("warning %+v", ws.List[0])
	}
}
