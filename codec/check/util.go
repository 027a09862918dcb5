package check

import (
	"strconv"

	"github.com/kwire/kwire/codec/jsontext"
)

func itoa(i int) string { return strconv.Itoa(i) }

func appendInt(b []byte, v int64) []byte { return jsontext.AppendInt(b, v) }

func i64(v int64) string { return strconv.FormatInt(v, 10) }
