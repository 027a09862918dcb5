package storage

import (
	"sort"
	"strconv"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
)

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// errorf is an encoding error at path.
func errorf(path, msg string) error { return &codec.EncodeError{Path: path, Msg: msg} }

// AppendJSONValue appends a value parsed from JSON (codec.ParseJSON:
// objects, arrays, strings, exact numbers, booleans, null) as compact
// JSON, object members sorted by key.
func AppendJSONValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case string:
		return jsontext.AppendString(dst, []byte(x))
	case interface{ String() string }: // json.Number
		return append(dst, x.String()...)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendJSONValue(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendString(dst, []byte(k))
			dst = append(dst, ':')
			dst = AppendJSONValue(dst, x[k])
		}
		return append(dst, '}')
	case float64:
		return strconv.AppendFloat(dst, x, 'g', -1, 64)
	case int64:
		return jsontext.AppendInt(dst, x)
	}
	return append(dst, "null"...)
}
