package codec

import (
	"encoding/json"
	"reflect"
	"strconv"

	"github.com/kwire/kwire/codec/internal/rec"
)

// The encoder's view of Go values: what ParseJSON makes (map[string]any,
// []any, json.Number, string, bool, nil) and what a Go program builds by
// hand (every integer width, floats, []byte, typed slices). Type switches
// only, so encoding value JSON never reaches reflection; reflect names a Go
// type only in an error message.

// goIntText formats a Go integer exactly, unsigned ones included.
func goIntText(v any) string {
	switch x := v.(type) {
	case uint:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	}
	i, _, _ := rec.GoInt(v)
	return strconv.FormatInt(i, 10)
}

// goTypeName names v's Go type for an error message.
func goTypeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// jsonKind says what v is, in JSON's terms, adding the Go type for values
// that did not come from JSON: "a string", "a number (Go int32)", "a value
// of Go type chan int".
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a bool"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case float32:
		return "a number (Go float32)"
	case []byte:
		return "bytes (Go []byte)"
	case *string:
		return "a string (Go *string)"
	}
	if _, ok, _ := rec.GoInt(v); ok {
		return "a number (Go " + goTypeName(v) + ")"
	}
	if _, ok := sliceLen(v); ok {
		return "an array (Go " + goTypeName(v) + ")"
	}
	return "a value of Go type " + goTypeName(v)
}

// sliceLen reports whether v is an array value and its length; -1 for a
// nil typed slice (which a nullable field writes as null).
func sliceLen(v any) (int, bool) {
	n, isNil := 0, false
	switch x := v.(type) {
	case []any:
		n, isNil = len(x), x == nil
	case []map[string]any:
		n, isNil = len(x), x == nil
	case []string:
		n, isNil = len(x), x == nil
	case []bool:
		n, isNil = len(x), x == nil
	case []int:
		n, isNil = len(x), x == nil
	case []int8:
		n, isNil = len(x), x == nil
	case []int16:
		n, isNil = len(x), x == nil
	case []int32:
		n, isNil = len(x), x == nil
	case []int64:
		n, isNil = len(x), x == nil
	case []uint16:
		n, isNil = len(x), x == nil
	case []uint32:
		n, isNil = len(x), x == nil
	case []uint64:
		n, isNil = len(x), x == nil
	case []float64:
		n, isNil = len(x), x == nil
	case [][]byte:
		n, isNil = len(x), x == nil
	case [][16]byte:
		n, isNil = len(x), x == nil
	case []json.Number:
		n, isNil = len(x), x == nil
	default:
		return 0, false
	}
	if isNil {
		return -1, true
	}
	return n, true
}

// sliceAt returns element i of an array value sliceLen accepted.
func sliceAt(v any, i int) any {
	switch x := v.(type) {
	case []any:
		return x[i]
	case []map[string]any:
		return x[i]
	case []string:
		return x[i]
	case []bool:
		return x[i]
	case []int:
		return x[i]
	case []int8:
		return x[i]
	case []int16:
		return x[i]
	case []int32:
		return x[i]
	case []int64:
		return x[i]
	case []uint16:
		return x[i]
	case []uint32:
		return x[i]
	case []uint64:
		return x[i]
	case []float64:
		return x[i]
	case [][]byte:
		return x[i]
	case [][16]byte:
		return x[i]
	case []json.Number:
		return x[i]
	}
	return nil
}
