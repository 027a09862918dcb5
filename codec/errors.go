package codec

import (
	"strconv"
	"strings"
)

// DecodeError is a decoding failure: where it happened, in which field, what
// the codec expected and what it found. The partial tree decoded up to that
// point is returned beside it.
type DecodeError struct {
	Offset   int    // byte offset in the buffer
	Buf      int    // 0 for the input, n for derived buffer n
	Path     string // e.g. "body.topics[2].partitions[0].records"
	Expected string
	Found    string
}

func (e *DecodeError) Error() string {
	var b strings.Builder
	b.WriteString("at byte ")
	b.WriteString(strconv.Itoa(e.Offset))
	if e.Buf > 0 {
		b.WriteString(" of derived buffer ")
		b.WriteString(strconv.Itoa(e.Buf))
	}
	if e.Path != "" {
		b.WriteString(" (")
		b.WriteString(e.Path)
		b.WriteString(")")
	}
	b.WriteString(": expected ")
	b.WriteString(e.Expected)
	if e.Found != "" {
		b.WriteString(", found ")
		b.WriteString(e.Found)
	}
	return b.String()
}

// EncodeError is a failure to encode value JSON: the JSON path and what is wrong.
type EncodeError struct {
	Path string // e.g. "body.topics[0].name"
	Msg  string
}

func (e *EncodeError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}
