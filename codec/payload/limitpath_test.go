package payload

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestLimitCutPath: a limit that cuts a payload's data is said on the
// path of the member, element or field it cuts, as that node's other
// warnings are and as the tree names it, on both sinks (decodeBothCut
// compares their warnings): a JSON member or element at any level, an
// Avro record field, array element or map entry (by its key), a
// Protobuf field (a repeated one's element by its index in the field's
// array, a packed run by the array), packed element or
// message-index element (beside "decoded"). A closing bracket, an Avro
// block count and the first node of the data are said on their
// container's path. Each cut was said on the path of the container,
// the cut happening before the member's name was pushed (a top-level
// one said "value" where its other warnings say "value.decoded.a").
func TestLimitCutPath(t *testing.T) {
	const pathProto = `syntax = "proto3";
package p;
message M {
  int64 id = 1;
  repeated int64 vals = 2;
  N n = 3;
  repeated N ns = 4;
  message N { int64 x = 1; int64 y = 2; }
}
`
	src := mapSource{ids: map[int]*Schema{
		1: {Text: `{"type":"record","name":"R","fields":[{"name":"a","type":"long"},{"name":"r","type":{"type":"record","name":"S","fields":[{"name":"x","type":"long"},{"name":"y","type":"long"}]}},{"name":"arr","type":{"type":"array","items":"long"}},{"name":"m","type":{"type":"map","values":"string"}}]}`},
		3: {Type: TypeProtobuf, Text: pathProto},
		5: {Type: TypeJSON, Text: `{"type":"object"}`},
	}}
	d := NewDecoder(src, Config{})
	type cut struct {
		at   int
		path string
	}
	for _, tc := range []struct {
		name string
		p    []byte
		cuts []cut // by NestedNodes from 0 on, until the payload decodes whole
	}{
		{"avro", framed(1, []byte{2, 4, 6, 4, 14, 16, 0, 2, 2, 'k', 2, 'v', 0}), []cut{
			{0, "value"}, {0, "value"}, {5, "value"}, // the framing, the record
			{5, "value.decoded.a"}, {6, "value.decoded.r"}, {6, "value.decoded.r.x"}, {7, "value.decoded.r.y"},
			{8, "value.decoded.arr"}, {9, "value.decoded.arr[0]"}, {10, "value.decoded.arr[1]"},
			{11, "value.decoded.arr"}, // its closing zero count
			{12, "value.decoded.m"}, {13, "value.decoded.m.k"}, {13, "value.decoded.m.k"}, {13, "value.decoded.m.k"},
			{17, "value.decoded.m"},
		}},
		{"protobuf", framed(3, []byte{0, 0x08, 1, 0x12, 3, 1, 2, 3, 0x1a, 4, 0x08, 1, 0x10, 2, 0x22, 2, 0x08, 5, 0x22, 2, 0x08, 6}), []cut{
			{0, "value"}, {0, "value"}, {5, "value"}, {6, "value"}, // the framing, the indexes, the message
			{6, "value.decoded.id"}, {8, "value.decoded.vals"}, // a packed run: the array
			{10, "value.decoded.vals[0]"}, {11, "value.decoded.vals[1]"}, {12, "value.decoded.vals[2]"},
			{13, "value.decoded.n"}, {15, "value.decoded.n.x"}, {17, "value.decoded.n.y"},
			{19, "value.decoded.ns[0]"}, {21, "value.decoded.ns[0].x"}, {23, "value.decoded.ns[1]"}, {25, "value.decoded.ns[1].x"},
		}},
		{"protobuf indexes", framed(3, []byte{4, 0, 0, 0x08, 1}), []cut{
			{0, "value"}, {0, "value"}, {5, "value"},
			{6, "value.messageIndexes[0]"}, {7, "value.messageIndexes[1]"},
			{8, "value"}, {8, "value.decoded.x"}, // p.M.N
		}},
		{"json", []byte(`{"a":{"b":[1,{"c":2}]},"d":3}`), []cut{
			{0, "value"}, {1, "value.decoded.a"}, {6, "value.decoded.a.b"},
			{11, "value.decoded.a.b[0]"}, {12, "value.decoded.a.b[1]"}, {14, "value.decoded.a.b[1].c"},
			{19, "value.decoded.a.b[1]"}, {20, "value.decoded.a.b"}, {21, "value.decoded.a"}, // closing brackets
			{22, "value.decoded.d"}, {28, "value"},
		}},
		{"jsonschema", framed(5, []byte(` [ {"k" : 1} ] `)), []cut{
			{0, "value"}, {0, "value"}, {5, "value"},
			{8, "value.decoded[0]"}, {9, "value.decoded[0].k"}, {16, "value.decoded[0]"}, {17, "value"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []cut
			for n := 0; ; n++ {
				b := bigBudget()
				b.NestedNodes = n
				r := decodeBothCut(t, d, tc.p, false, "t", b)
				if len(r.warnings) == 0 {
					break
				}
				require.Len(t, r.warnings, 1, "NestedNodes %d: %+v", n, r.warnings)
				w := r.warnings[0]
				require.True(t, w.Limit, "NestedNodes %d: %+v", n, w)
				got = append(got, cut{w.Offset, w.Path})
				require.Less(t, n, 100, "never decoded whole")
			}
			require.Equal(t, fmt.Sprint(tc.cuts), fmt.Sprint(got))
		})
	}
}

// TestPackedElementFailPath: a packed element that does not read is said
// on its path, the element's index in the field's array as value JSON
// numbers it, as a limit that cuts it is; it was said on the field's.
func TestPackedElementFailPath(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: `syntax = "proto3";
package p;
message M { repeated int64 vals = 2; }
`}}}
	r := decodeBothCut(t, NewDecoder(src, Config{}), framed(3, []byte{0, 0x12, 2, 1, 0x80}), false, "t", bigBudget())
	require.Len(t, r.warnings, 1, "%+v", r.warnings)
	require.Contains(t, r.warnings[0].Message, "a packed element")
	require.Equal(t, 9, r.warnings[0].Offset)
	require.Equal(t, "value.decoded.vals[1]", r.warnings[0].Path)
}
