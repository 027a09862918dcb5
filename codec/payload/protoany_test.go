package payload

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// nestedAny is a message M whose field a holds an Any holding an Any ...
// n deep, the last holding an empty M.
func nestedAny(n int) []byte {
	ld := func(num protowire.Number, b []byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), b)
	}
	inner := ld(1, []byte("/t.M"))
	for i := 0; i < n; i++ {
		inner = append(ld(1, []byte("/google.protobuf.Any")), ld(2, inner)...)
	}
	return ld(1, inner)
}

// TestProtobufAnyBounded: protojson expands google.protobuf.Any values at
// any depth; kwire writes the JSON only when they nest within MaxDepth,
// else says the limit (both paths alike), and charges their bytes as work.
func TestProtobufAnyBounded(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{1: {Type: TypeProtobuf, Text: `syntax = "proto3"; package t; import "google/protobuf/any.proto"; message M { google.protobuf.Any a = 1; }`}}}
	d := NewDecoder(src, Config{MaxDepth: 32})

	r := decodeBoth(t, d, framed(1, []byte{0}, nestedAny(3)), false, "t", bigBudget())
	noWarnings(t, r)
	if !strings.Contains(r.json, `"decoded":{"a":{"@type":"/google.protobuf.Any","value":{"@type":"/google.protobuf.Any"`) {
		t.Fatalf("three Anys: %s", r.json)
	}

	data := nestedAny(2400)
	r = decodeBoth(t, d, framed(1, []byte{0}, data), false, "t", bigBudget())
	if strings.Contains(r.json, `"decoded"`) {
		t.Fatalf("Anys 2,400 deep written as JSON")
	}
	if len(r.warnings) != 1 || !r.warnings[0].Limit || !strings.Contains(r.warnings[0].Message, "MaxDepth limit (32)") || r.warnings[0].Offset != 6 {
		t.Fatalf("warnings %+v, want the MaxDepth limit at byte 6", r.warnings)
	}
	if r.spent.Work < 16*len(data) {
		t.Fatalf("work %d for Anys of %d bytes read some 30 levels deep", r.spent.Work, len(data))
	}
}
