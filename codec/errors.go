package codec

import (
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/encerr"
	"github.com/kwire/kwire/codec/wire"
)

// DecodeError is a decoding failure: where it happened, in which field, what
// the codec expected and what it found. The partial tree decoded up to that
// point is returned beside it. Err keeps the cause, so
// errors.Is(err, wire.ErrShort) tells truncated input from corrupt input.
type DecodeError struct {
	Offset   int    // byte offset in the buffer
	Buf      int    // 0 for the input, n for derived buffer n
	Path     string // e.g. "body.topics[2].partitions[0].records"; "" at no field (bytes after the body, inside the frame's size)
	Expected string // what the codec expected, e.g. "the end of the message"
	Found    string // what it found, perhaps with a note on the frame: "(the frame is cut short: ...)"
	Err      error  // the cause: a *wire.Error (whose cause is wire.ErrShort or wire.ErrVarint), wire.ErrShort, ErrLimit (a limit, not the bytes, stopped decoding), or nil
}

// Error formats the failure as "at byte N (path): expected X, found Y".
func (e *DecodeError) Error() string {
	b := budget.AppendWhere(nil, e.Offset, e.Buf, e.Path)
	b = append(b, ": expected "...)
	b = append(b, e.Expected...)
	if e.Found != "" {
		b = append(b, ", found "...)
		b = append(b, e.Found...)
	}
	return string(b)
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

// newDecodeError is how the decoder makes its errors: at offset off of
// buffer buf, in the field at path, with the cause (nil when the bytes are
// there but wrong; wire.ErrShort when they are missing).
func newDecodeError(off, buf int, path, expected, found string, cause error) *DecodeError {
	return &DecodeError{Offset: off, Buf: buf, Path: path, Expected: expected, Found: found, Err: cause}
}

// wireDecodeError turns a reader's failure into a DecodeError at path,
// keeping the *wire.Error (and through it wire.ErrShort or wire.ErrVarint)
// as the cause.
func wireDecodeError(we *wire.Error, buf int, path string) *DecodeError {
	return &DecodeError{Offset: we.Offset, Buf: buf, Path: path, Expected: we.Expected, Found: we.Found, Err: we}
}

// EncodeError is a failure to encode value JSON or Go values. Its fields
// (the type is defined in an internal package, which go doc does not
// show):
//
//	Path string // where, e.g. "body.topics[0].name", "value[0].records[2].value"; "" for the whole input
//	Msg  string // what is wrong, e.g. "expected a string, found a number (Go int)"
//	Err  error  // the underlying failure (a base64 or compression error), or nil
//
// Error writes it as "path: message"; Unwrap returns Err.
type EncodeError = encerr.Error
