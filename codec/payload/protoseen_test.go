package payload

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestProtobufRepeatedAllocates: counting a repeated field's occurrences
// costs what the fields met take, not what the message declares: 16,000
// occurrences of a 10,000-field message, each holding one element of a
// repeated field, allocated 1.3 GB (a count for every declared field each).
func TestProtobufRepeatedAllocates(t *testing.T) {
	var s strings.Builder
	s.WriteString(`syntax = "proto3"; message Outer { repeated Inner xs = 1; } message Inner { repeated int32 r = 1;`)
	for i := 2; i <= 10000; i++ {
		s.WriteString(" int32 f" + strconv.Itoa(i) + " = " + strconv.Itoa(i) + ";")
	}
	s.WriteString("}")
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Type: TypeProtobuf, Text: s.String()}}}, Config{})
	inner := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 1)
	var data []byte
	for i := 0; i < 16000; i++ {
		data = protowire.AppendBytes(protowire.AppendTag(data, 1, protowire.BytesType), inner)
	}
	p := framed(1, []byte{0}, data)
	d.DecodeBytes(p, false, "t") // compile the schema first
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, ws := d.DecodeBytes(p, false, "t")
	runtime.ReadMemStats(&after)
	if len(ws) > 0 {
		t.Fatalf("warnings: %v", ws)
	}
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes allocated", n)
	if n > 256<<20 {
		t.Fatalf("decoding %d bytes allocated %d MiB", len(p), n>>20)
	}
}
