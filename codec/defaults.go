package codec

import (
	"strconv"
	"strings"

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
