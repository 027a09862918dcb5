// Package textfmt formats a message as fmt.Sprintf does, for the few verbs
// and argument types kwire's capture notes use, without fmt: %d of an
// integer, %s and %v of a string, an error or a String method, %x and % x
// of a byte slice, %%; Wrap for fmt.Errorf's %w. fmt's printer reaches reflect and
// every type's formatting, and linking it cost capture.wasm 73 KB gzip,
// which internal/capture alone (its notes) and wasm/internal/glue made it
// link. An argument of another type, a verb it does not know, or a
// missing argument is written as fmt writes a wrong one, %!VERB(...),
// rather than panicking; an extra argument is left out.
package textfmt

import "strconv"

const hexDigits = "0123456789abcdef"

// Sprintf formats as fmt.Sprintf for the verbs and types above.
func Sprintf(format string, args ...any) string {
	b := make([]byte, 0, len(format)+16*len(args))
	n := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		i++
		space := false
		if i < len(format) && format[i] == ' ' {
			space = true
			i++
		}
		if i >= len(format) {
			b = append(b, "%!(NOVERB)"...)
			break
		}
		verb := format[i]
		if verb == '%' {
			b = append(b, '%')
			continue
		}
		if n >= len(args) {
			b = append(b, '%', '!', verb, '(', 'M', 'I', 'S', 'S', 'I', 'N', 'G', ')')
			continue
		}
		b = appendArg(b, verb, space, args[n])
		n++
	}
	return string(b)
}

// Wrap returns an error that says err, then format's text, and wraps err
// (fmt.Errorf("%w"+format, err, args...)). format has no %w: vet's
// printf check, told of Sprintf (.ci/run), checks it as a printf format.
func Wrap(err error, format string, args ...any) error {
	return &wrapError{err.Error() + Sprintf(format, args...), err}
}

type wrapError struct {
	msg string
	err error
}

func (e *wrapError) Error() string { return e.msg }
func (e *wrapError) Unwrap() error { return e.err }

func appendArg(b []byte, verb byte, space bool, a any) []byte {
	if a == nil {
		if verb == 'v' {
			return append(b, "<nil>"...)
		}
		return append(b, '%', '!', verb, '(', '<', 'n', 'i', 'l', '>', ')')
	}
	switch verb {
	case 'd':
		switch v := a.(type) {
		case int:
			return strconv.AppendInt(b, int64(v), 10)
		case int8:
			return strconv.AppendInt(b, int64(v), 10)
		case int16:
			return strconv.AppendInt(b, int64(v), 10)
		case int32:
			return strconv.AppendInt(b, int64(v), 10)
		case int64:
			return strconv.AppendInt(b, v, 10)
		case uint:
			return strconv.AppendUint(b, uint64(v), 10)
		case uint8:
			return strconv.AppendUint(b, uint64(v), 10)
		case uint16:
			return strconv.AppendUint(b, uint64(v), 10)
		case uint32:
			return strconv.AppendUint(b, uint64(v), 10)
		case uint64:
			return strconv.AppendUint(b, v, 10)
		}
	case 's', 'v':
		switch v := a.(type) {
		case error:
			return append(b, v.Error()...)
		case interface{ String() string }:
			return append(b, v.String()...)
		case string:
			return append(b, v...)
		}
	case 'x':
		if v, ok := a.([]byte); ok {
			for i, c := range v {
				if space && i > 0 {
					b = append(b, ' ')
				}
				b = append(b, hexDigits[c>>4], hexDigits[c&15])
			}
			return b
		}
	}
	return append(b, '%', '!', verb, '(', '?', ')')
}
