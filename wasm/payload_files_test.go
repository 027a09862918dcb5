//go:build js && wasm && kwire_payload

package main

import (
	"encoding/json"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/codec/payload"
)

// TestSchemaFilesSaid: the page counts only the schema files a lookup can
// use, and says by name why each other cannot be: a name no lookup reads,
// a schema that does not parse (with where, when the parser says).
func TestSchemaFilesSaid(t *testing.T) {
	files := [][2]string{
		{"1.avsc", `{"type":"record","name":"R","fields":[{"name":"a","type":"long"}]}`},
		{"foo.txt", `{}`},
		{"2.json", `{bad`},
		{"3.avsc", `{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}`},
		{"4.proto", "syntax = \"proto3\";\nmessage O { int32 a = 1 }"},
	}
	var names, texts []any
	for _, f := range files {
		names, texts = append(names, f[0]), append(texts, f[1])
	}
	defer func() { module.payload = payload.NewDecoder(nil, payload.Config{}).Decode }()
	r := schemas(js.Undefined(), []js.Value{js.ValueOf(names), js.ValueOf(texts), js.ValueOf("")}).(string)
	var got struct {
		Files    int
		Problems []struct{ Name, Problem string }
	}
	if err := json.Unmarshal([]byte(r), &got); err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	want := [][2]string{
		{"2.json", "not JSON at line 1, column 2"},
		{"3.avsc", "the AVRO schema does not parse"},
		{"4.proto", "4.proto:2:25: syntax error"},
		{"foo.txt", "not a schema file's name"},
	}
	if got.Files != 1 || len(got.Problems) != len(want) {
		t.Fatal(r)
	}
	for i, w := range want {
		if p := got.Problems[i]; p.Name != w[0] || !strings.Contains(p.Problem, w[1]) {
			t.Errorf("problem %d: %+v, want %s saying %q", i, p, w[0], w[1])
		}
	}
}
