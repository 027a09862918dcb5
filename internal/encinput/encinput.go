// Package encinput recognises what an encoder is given that is not value
// JSON, so that kwire encode and POST /api/encode can say what it is
// rather than how it fails to parse or encode: a frame's hex (which
// kwire decode and /api/decode read), and annotated JSON (which kwire
// decode --format annotated and /api/decode?format=annotated write, and
// kwire encode reads back as the value JSON FromAnnotated makes of it).
package encinput

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

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

// annotatedMax is the largest bytes value annotated JSON carries (it
// gives only the size of a larger one).
const annotatedMax = 4096

// FromAnnotated turns annotated JSON (v as jsontext.Parse returns it, for
// which Annotated holds) into the value JSON of the same frame, which the
// encoder reads: annotated JSON holds every node's value by its JSON
// name, so the header and body are rebuilt from the tree, spans and
// sizes left aside (an edited value is encoded as edited). It fails for
// what annotated JSON does not carry whole: a bytes or records value of
// more than 4096 bytes (given by its size alone), a frame read in part
// (bytes left raw, a node cut short or broken), a data message.
func FromAnnotated(v any) (map[string]any, error) {
	m, _ := v.(map[string]any)
	root, _ := m["root"].(map[string]any)
	if m == nil || root == nil {
		return nil, errors.New("annotated JSON without its tree (root)")
	}
	if _, ok := m["data"]; ok {
		return nil, errors.New("annotated JSON of a data message, which kwire encode does not read back")
	}
	out := map[string]any{}
	for _, k := range [...]string{"direction", "apiKey", "apiName", "apiVersion"} {
		if x, ok := m[k]; ok {
			out[k] = x
		}
	}
	if a, ok := m["assumedLayout"]; ok {
		return nil, fmt.Errorf("annotated JSON of a version kwire does not know, read with v%v's layout", a)
	}
	children, _ := root["children"].([]any)
	for i, c := range children {
		cm, _ := c.(map[string]any)
		path := "root.children[" + strconv.Itoa(i) + "]"
		switch role, _ := cm["role"].(string); role {
		case "size":
		case "header", "body":
			obj, err := annotatedValue(cm, path)
			if err != nil {
				return nil, err
			}
			if obj != nil {
				out[role] = obj
			}
		default:
			return nil, annotatedError(path, cm, "")
		}
	}
	return out, nil
}

// annotatedValue is the value JSON of node n, at path in the annotated
// JSON.
func annotatedValue(n map[string]any, path string) (any, error) {
	if n == nil {
		return nil, fmt.Errorf("%s: expected a node (an object)", path)
	}
	for _, f := range [...]string{"truncated", "broken"} {
		if n[f] == true {
			return nil, annotatedError(path, n, f)
		}
	}
	if n["null"] == true {
		return nil, nil
	}
	if x, ok := n["value"]; ok {
		return x, nil
	}
	if size, ok := n["size"]; ok {
		return nil, fmt.Errorf("%s (%s): a value of %v bytes, which annotated JSON gives by its size alone (only values of up to %d bytes are written)", path, nodeName(n), size, annotatedMax)
	}
	children, _ := n["children"].([]any)
	if typ, _ := n["type"].(string); strings.HasPrefix(typ, "[]") {
		out := make([]any, len(children))
		for i, c := range children {
			cm, _ := c.(map[string]any)
			var err error
			if out[i], err = annotatedValue(cm, path+".children["+strconv.Itoa(i)+"]"); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	obj := map[string]any{}
	if err := annotatedFields(obj, children, path); err != nil {
		return nil, err
	}
	return obj, nil
}

// annotatedFields sets obj's fields from a struct's children (at path):
// each by its name, those of a tag section too, unknown tags as
// _unknownTaggedFields.
func annotatedFields(obj map[string]any, children []any, path string) error {
	for i, c := range children {
		cm, _ := c.(map[string]any)
		cp := path + ".children[" + strconv.Itoa(i) + "]"
		if cm == nil {
			return fmt.Errorf("%s: expected a node (an object)", cp)
		}
		switch role, _ := cm["role"].(string); role {
		case "tags":
			tags, _ := cm["children"].([]any)
			if err := annotatedFields(obj, tags, cp); err != nil {
				return err
			}
		case "unknownTag":
			data, ok := cm["value"]
			if !ok {
				if _, err := annotatedValue(cm, cp); err != nil {
					return err
				}
				return annotatedError(cp, cm, "")
			}
			u, _ := obj["_unknownTaggedFields"].([]any)
			obj["_unknownTaggedFields"] = append(u, map[string]any{"tag": cm["unknownTag"], "data": data})
		case "field":
			name, _ := cm["name"].(string)
			v, err := annotatedValue(cm, cp)
			if err != nil {
				return err
			}
			obj[name] = v
		default:
			return annotatedError(cp, cm, "")
		}
	}
	return nil
}

// nodeName is a node's name, or its role when it has none.
func nodeName(n map[string]any) string {
	if s, _ := n["name"].(string); s != "" {
		return s
	}
	s, _ := n["role"].(string)
	return s
}

// annotatedError says that node n at path holds what the encoder cannot
// be given: a part of a frame read in part (flag set), or bytes left
// raw.
func annotatedError(path string, n map[string]any, flag string) error {
	what := "bytes the decoder could not read as fields"
	if flag != "" {
		what = flag + ": the frame was read in part"
	}
	return fmt.Errorf("%s (%s): %s, which annotated JSON holds only as a span", path, nodeName(n), what)
}
