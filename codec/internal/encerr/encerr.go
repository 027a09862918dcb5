// Package encerr holds the one encoding error of the codec, which package
// codec exports as EncodeError and the records encoder returns too.
package encerr

// Error is a failure to encode a value given in generic form (value JSON,
// or Go maps and slices): the path of the value, such as
// "body.topics[0].name" or "[0].records[2].value", and what is wrong with
// it.
type Error struct {
	Path string // where: a JSON path; "" for the whole input
	Msg  string // what is wrong, e.g. "expected a string, found a number (Go int)"
	Err  error  // the underlying failure (a base64 or compression error), or nil
}

// Error formats the error as "path: message", or the message alone for
// the whole input.
func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Unwrap returns the underlying failure, if any.
func (e *Error) Unwrap() error { return e.Err }
