package codec

import (
	"encoding/json"
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

// jsonKind is rec.KindOf, with the Go slices the encoder takes as arrays
// said to be arrays.
func jsonKind(v any) string {
	if _, ok := sliceLen(v); ok {
		if _, plain := v.([]any); !plain {
			return "an array (Go " + rec.GoTypeName(v) + ")"
		}
	}
	return rec.KindOf(v)
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
