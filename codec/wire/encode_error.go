package wire

// EncodeError is a failure to encode a value given in generic form (value
// JSON, or Go maps and slices): the path of the value, such as
// "body.topics[0].name" or "[0].records[2].value", and what is wrong with
// it. It is the one encoding error of kwire: codec.EncodeError and the
// records package's errors are this type.
type EncodeError struct {
	Path string // where: a JSON path; "" for the whole input
	Msg  string // what is wrong, e.g. "expected a string, found a number (Go int)"
	Err  error  // the underlying failure (a base64 or compression error), or nil
}

// Error formats the error as "path: message", or the message alone for
// the whole input.
func (e *EncodeError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Unwrap returns the underlying failure, if any.
func (e *EncodeError) Unwrap() error { return e.Err }
