package payload

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProtoElementPaths: a warning inside a Protobuf repeated field names
// the element as value JSON indexes the field's array, over all its
// occurrences, a packed run's elements counted (protojson writes
// "vals":[7,1,2]); a map entry's names its key's member once the key is
// read ("byKey":{"k":...}), before that the field. They named the
// occurrence ("vals[1][1]", "ns[1].x") and the entry's own fields
// ("byKey[0].value.x").
func TestProtoElementPaths(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: `syntax = "proto3";
package p;
message M {
  repeated int64 vals = 2;
  repeated N ns = 4;
  map<string, N> by_key = 5;
  map<int32, N> by_num = 6;
  message N { int64 x = 1; }
}
`}}}
	d := NewDecoder(src, Config{})
	for _, tc := range []struct {
		name string
		data []byte
		at   int
		path string
	}{
		{"packed run after an element", []byte{0x10, 7, 0x12, 2, 1, 0x80}, 11, "value.decoded.vals[2]"},
		{"element after a packed run", []byte{0x12, 2, 1, 2, 0x10, 0x80}, 11, "value.decoded.vals[2]"},
		{"second message", []byte{0x22, 0, 0x22, 2, 0x08, 0x80}, 11, "value.decoded.ns[1].x"},
		{"map value after its key", []byte{0x2a, 5, 0x0a, 1, 'k', 0x12, 0}, 0, ""},
		{"map value after its key, broken", []byte{0x2a, 7, 0x0a, 1, 'k', 0x12, 2, 0x08, 0x80}, 14, "value.decoded.byKey.k.x"},
		{"integer key", []byte{0x32, 7, 0x08, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x80}, 15, "value.decoded.byNum.-2"},
		{"map value before its key", []byte{0x2a, 4, 0x12, 2, 0x08, 0x80}, 11, "value.decoded.byKey"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := decodeBoth(t, d, framed(3, []byte{0}, tc.data), false, "t", bigBudget())
			if tc.path == "" {
				require.Empty(t, r.warnings)
				return
			}
			require.Len(t, r.warnings, 1, "%+v", r.warnings)
			require.Equal(t, tc.at, r.warnings[0].Offset, "%+v", r.warnings[0])
			require.Equal(t, tc.path, r.warnings[0].Path, "%+v", r.warnings[0])
		})
	}
}

// TestProtoRepeatedLookup: Get and Lookup name a Protobuf repeated field
// as value JSON does: Get("vals") finds the field (its first
// occurrence), "vals[i]" element i of the JSON's array over all the
// occurrences, a packed run's elements counted, "ns[i]" a message of the
// field. Nodes were named by occurrence ("vals[1]"): Get("vals") found
// nothing, and "vals[2]" no element.
func TestProtoRepeatedLookup(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: `syntax = "proto3";
package p;
message M {
  int64 id = 1;
  repeated int64 vals = 2;
  repeated N ns = 4;
  message N { int64 x = 1; }
}
`}}}
	// vals: 7, then a packed run 1, 2, then 9 (protojson: [7,1,2,9]); ns: two.
	data := []byte{0x10, 7, 0x08, 5, 0x12, 2, 1, 2, 0x22, 2, 0x08, 3, 0x10, 9, 0x22, 2, 0x08, 4}
	r := decodeBoth(t, NewDecoder(src, Config{}), framed(3, []byte{0}, data), false, "t", bigBudget())
	require.Empty(t, r.warnings)
	root := r.nodes[len(r.nodes)-1]
	require.Equal(t, "protobuf message p.M", root.Type)
	var js struct {
		Decoded struct {
			Vals []string
			Ns   []struct{ X string }
		}
	}
	require.NoError(t, json.Unmarshal([]byte("{"+strings.TrimPrefix(r.json, ",")+"}"), &js), r.json)
	require.Equal(t, []string{"7", "1", "2", "9"}, js.Decoded.Vals)
	require.NotNil(t, root.Get("vals"))
	require.Equal(t, int64(7), root.Get("vals").Int)
	for i, want := range js.Decoded.Vals {
		n, err := root.Lookup("vals[" + strconv.Itoa(i) + "]")
		require.NoError(t, err)
		require.Equal(t, want, strconv.FormatInt(n.Int, 10), "vals[%d]", i)
	}
	for i, want := range js.Decoded.Ns {
		n, err := root.Lookup("ns[" + strconv.Itoa(i) + "].x")
		require.NoError(t, err)
		require.Equal(t, want.X, strconv.FormatInt(n.Int, 10), "ns[%d].x", i)
	}
	_, err := root.Lookup("vals[4]")
	require.ErrorContains(t, err, "no item 4 (4 there)")
	_, err = root.Lookup("nope")
	require.ErrorContains(t, err, "there: vals, id, ns)")
}
