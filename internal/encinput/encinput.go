// Package encinput recognises what an encoder is given that is not value
// JSON, so that kwire encode and POST /api/encode can say what it is
// rather than how it fails to parse or encode: a frame's hex (which
// kwire decode and /api/decode read), and annotated JSON (which kwire
// decode --format annotated and /api/decode?format=annotated write, and
// no encoder reads).
package encinput

import (
	"bytes"

	"github.com/kwire/kwire/codec/jsontext"
)

// HexLine is the end (its newline, or the end of b) of the line that
// starts at start when it is hex: at least 8 hex digits, an even number,
// and nothing else but trailing blanks, which is no JSON (a number of
// decimal digits is); else -1.
func HexLine(b []byte, start int) int {
	end := bytes.IndexByte(b[start:], '\n')
	if end < 0 {
		end = len(b)
	} else {
		end += start
	}
	h := bytes.TrimRight(b[start:end], " \t\r")
	if len(h) < 8 || len(h)%2 != 0 {
		return -1
	}
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return -1
		}
	}
	if _, err := jsontext.Parse(h); err == nil {
		return -1
	}
	return end
}

// Annotated reports whether v, a JSON document as jsontext.Parse returns
// it, is annotated JSON: an object with the "buffers" and "root" (the
// tree, an object) members that annotated JSON has and value JSON never
// does.
func Annotated(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, buffers := m["buffers"]
	root, _ := m["root"].(map[string]any)
	return buffers && root != nil
}
