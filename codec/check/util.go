package check

import "strconv"

func itoa(i int) string { return strconv.Itoa(i) }

func i64(v int64) string { return strconv.FormatInt(v, 10) }
