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

// TestProtoMapLookup: Lookup names a Protobuf map's value as value JSON
// and warnings do, by its key ("byKey.k.x"): the last entry of a key, a
// key with no bytes its type's default ("" for a string, 0, false), a
// uint64 key its digits; a missing key, an index or a value with no
// bytes says so. The entries are nodes named by the field, so
// "byKey.k" asked the first entry for a child "k": an error, though
// warnings name values so ("value.decoded.byKey.k.x").
func TestProtoMapLookup(t *testing.T) {
	src := mapSource{ids: map[int]*Schema{3: {Type: TypeProtobuf, Text: `syntax = "proto3";
package p;
message M {
  map<string, N> by_key = 5;
  map<int32, N> by_num = 6;
  map<bool, string> flags = 7;
  map<uint64, string> big = 8;
  message N { int64 x = 1; }
}
`}}}
	data := []byte{
		0x2a, 7, 0x0a, 1, 'k', 0x12, 2, 0x08, 0x05, // byKey k: x 5
		0x2a, 7, 0x0a, 1, 'k', 0x12, 2, 0x08, 0x06, // byKey k again: x 6, the one kept
		0x2a, 4, 0x12, 2, 0x08, 0x07, // byKey with no key: ""
		0x2a, 9, 0x0a, 5, 'v', 'a', 'l', 'u', 'e', 0x12, 0, // byKey "value": an empty N
		0x32, 4, 0x12, 2, 0x08, 0x01, // byNum with no key: 0
		0x32, 8, 0x08, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x12, 0, // byNum -2
		0x3a, 2, 0x08, 1, // flags true, no value bytes
		0x42, 14, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x12, 1, 'u', // big 2^64-1
	}
	r := decodeBoth(t, NewDecoder(src, Config{}), framed(3, []byte{0}, data), false, "t", bigBudget())
	require.Empty(t, r.warnings)
	root := r.nodes[len(r.nodes)-1]
	var js struct {
		Decoded struct {
			ByKey map[string]struct{ X string }
			ByNum map[string]struct{ X string }
			Flags map[string]string
			Big   map[string]string
		}
	}
	require.NoError(t, json.Unmarshal([]byte("{"+strings.TrimPrefix(r.json, ",")+"}"), &js), r.json)
	require.Equal(t, map[string]struct{ X string }{"k": {"6"}, "": {"7"}, "value": {}}, js.Decoded.ByKey, r.json)
	for k, v := range js.Decoded.ByKey {
		if v.X == "" { // an empty message: no x
			continue
		}
		n, err := root.Lookup("byKey." + k + ".x")
		require.NoError(t, err, "key %q", k)
		require.Equal(t, v.X, strconv.FormatInt(n.Int, 10), "key %q", k)
	}
	for k, v := range js.Decoded.ByNum {
		if v.X == "" {
			continue
		}
		n, err := root.Lookup("byNum." + k + ".x")
		require.NoError(t, err, "key %q", k)
		require.Equal(t, v.X, strconv.FormatInt(n.Int, 10), "key %q", k)
	}
	require.Contains(t, js.Decoded.ByNum, "-2")
	n, err := root.Lookup("byKey.value")
	require.NoError(t, err)
	require.Equal(t, "protobuf p.M.N", n.Type, "the value of key \"value\", not the entry's value field")
	require.Equal(t, map[string]string{"18446744073709551615": "u"}, js.Decoded.Big)
	n, err = root.Lookup("big.18446744073709551615")
	require.NoError(t, err)
	require.Equal(t, "u", string(n.Raw))

	_, err = root.Lookup("byKey.nope.x")
	require.ErrorContains(t, err, `no key "nope" in map "byKey" (keys there: "k", "", "value") after byKey`)
	_, err = root.Lookup("byKey[0]")
	require.ErrorContains(t, err, `"byKey" is a map, whose values are named by their keys`)
	_, err = root.Lookup("flags.true")
	require.ErrorContains(t, err, `no bytes of the value of key "true" in map "flags"`)
	_, err = root.Lookup("nope")
	require.ErrorContains(t, err, "there: byKey, byNum, flags, big)", "a map's entries are named once")

	// A warning's path inside a map's value leads Lookup to the value
	// it names, the empty key's too (a payload that fails to read has no
	// "decoded" in value JSON, so only warnings that leave it whole).
	for _, tc := range []struct {
		data []byte
		path string
	}{
		// N's field 1 as fixed32, not its int64's varint: the value
		// holds a field the schema does not have.
		{[]byte{0x2a, 10, 0x0a, 1, 'k', 0x12, 5, 0x0d, 1, 0, 0, 0}, "value.decoded.byKey.k"},
		{[]byte{0x2a, 9, 0x0a, 0, 0x12, 5, 0x0d, 1, 0, 0, 0}, "value.decoded.byKey."},
		{[]byte{0x32, 9, 0x08, 0x03, 0x12, 5, 0x0d, 1, 0, 0, 0}, "value.decoded.byNum.3"},
	} {
		r := decodeBoth(t, NewDecoder(src, Config{}), framed(3, []byte{0}, tc.data), false, "t", bigBudget())
		require.Len(t, r.warnings, 1)
		require.Equal(t, tc.path, r.warnings[0].Path)
		n, err := r.nodes[len(r.nodes)-1].Lookup(strings.TrimPrefix(tc.path, "value.decoded."))
		require.NoError(t, err, tc.path)
		require.Equal(t, "protobuf p.M.N", n.Type, tc.path)
	}
}
