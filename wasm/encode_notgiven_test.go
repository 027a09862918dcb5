//go:build js && wasm

package main

import (
	"syscall/js"
	"testing"
)

// TestEncodeNamesFieldsNotGiven: the playground's encode names the
// fields a frame's JSON leaves out, which are written as their defaults,
// as kwire encode names them; JSON that gives every field names none.
func TestEncodeNamesFieldsNotGiven(t *testing.T) {
	call := func(text string) map[string]any {
		return encode(js.Undefined(), []js.Value{js.ValueOf(text), js.ValueOf(false)}).(map[string]any)
	}
	r := call(`{"direction":"request","apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire"}}`)
	if r["bytes"] == nil {
		t.Fatalf("not encoded: %v", r)
	}
	if got, want := r["notGiven"], "not given, written as its default (Kafka's JSON reader requires it): body.clientSoftwareVersion"; got != want {
		t.Fatalf("notGiven %q, want %q", got, want)
	}
	r = call(`{"direction":"request","apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}`)
	if _, ok := r["notGiven"]; ok || r["bytes"] == nil {
		t.Fatalf("every field given: %v", r)
	}
}
