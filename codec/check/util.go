package check

import "strconv"

func itoa(i int) string { return strconv.Itoa(i) }

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

func i64(v int64) string { return strconv.FormatInt(v, 10) }
