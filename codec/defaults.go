package codec

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// nullDefault reports whether f's default at version v is null.
func nullDefault(f *schema.Field, v int16) bool {
	return f.Default == "null" && f.Nullable.Contains(v)
}

// defaultInt is the default of an integer or bool field.
func defaultInt(f *schema.Field) int64 {
	switch f.Default {
	case "", "null", "false":
		return 0
	case "true":
		return 1
	}
	if i, err := strconv.ParseInt(f.Default, 0, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(f.Default, 0, 64); err == nil {
		return int64(u)
	}
	return 0
}

func defaultFloat(f *schema.Field) float64 {
	x, _ := strconv.ParseFloat(f.Default, 64)
	return x
}

func defaultString(f *schema.Field) string {
	if f.Default == "null" {
		return ""
	}
	return f.Default
}

// isDefaultValue reports whether n, a value of f read at version v that
// is neither an array nor a struct, holds f's default.
func isDefaultValue(n *tree.Node, f *schema.Field, v int16) bool {
	switch n.Kind {
	case schema.Bool, schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		return n.Int == defaultInt(f)
	case schema.Float64:
		return n.Float == defaultFloat(f)
	case schema.String:
		if nullDefault(f, v) {
			return n.Null
		}
		return !n.Null && string(n.Raw) == defaultString(f)
	case schema.Bytes, schema.Records:
		if nullDefault(f, v) {
			return n.Null
		}
		return !n.Null && len(n.Raw) == 0
	case schema.UUID:
		for _, b := range n.Raw {
			if b != 0 {
				return false
			}
		}
		return true
	}
	return false
}

// isErrorCode reports whether f holds an error code: an int16 named
// ...ErrorCode (errorCode, partitionErrorCode, ...).
func isErrorCode(f *schema.Field) bool {
	return f.Kind == schema.Int16 && strings.HasSuffix(f.Name, "ErrorCode")
}

// appendDefault writes the value JSON of f's default at version v.
func appendDefault(dst []byte, f *schema.Field, k schema.Kind, v int16) []byte {
	switch k {
	case schema.Bool:
		return strconv.AppendBool(dst, defaultInt(f) != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		return jsontext.AppendInt(dst, defaultInt(f))
	case schema.Float64:
		return jsontext.AppendFloat(dst, defaultFloat(f))
	case schema.String:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		return jsontext.AppendString(dst, []byte(defaultString(f)))
	case schema.Bytes, schema.Records:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		return append(dst, `""`...)
	case schema.UUID:
		return append(dst, `"AAAAAAAAAAAAAAAAAAAAAA"`...)
	case schema.Array:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		return append(dst, "[]"...)
	case schema.Struct:
		if nullDefault(f, v) {
			return append(dst, "null"...)
		}
		dst = append(dst, '{')
		first := true
		for i := range f.Struct.Fields {
			sf := &f.Struct.Fields[i]
			if !sf.Versions.Contains(v) {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = append(append(append(dst, '"'), sf.JSON...), '"', ':')
			dst = appendDefault(dst, sf, sf.Kind, v)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}
