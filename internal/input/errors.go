package input

import (
	"errors"
	"strconv"
)

// Kinds of input error. An *Error wraps one of these, so callers can test
// with errors.Is(err, input.ErrOddDigits) and the like.
var (
	ErrEmpty     = errors.New("empty input")
	ErrMode      = errors.New("unknown mode")
	ErrChar      = errors.New("unexpected character")
	ErrOddDigits = errors.New("odd number of hex digits")
	ErrBase64    = errors.New("invalid base64")
	ErrEscape    = errors.New("invalid string escape")
	ErrDump      = errors.New("malformed hex dump")
	ErrTooLarge  = errors.New("output too large")
	ErrJSON      = errors.New("JSON, not bytes")
	ErrList      = errors.New("malformed byte list")
)

// Error is an error in the input text, with its position.
type Error struct {
	// Offset is the byte offset in the input where the problem is, or -1.
	Offset int
	// Line is the 1-based line of Offset, or 0 if not applicable.
	Line int
	// Column is the 1-based column (in characters) of Offset on Line, or 0.
	Column int
	// Msg says what is wrong, in lower case.
	Msg string
	// Err is the kind of error (ErrChar, ErrOddDigits, ...); may be nil.
	Err error
}

// Error returns "input: line L, column C: msg", or "input: msg" when there is
// no position.
func (e *Error) Error() string {
	if e == nil {
		return "input: <nil>"
	}
	if e.Line > 0 {
		return "input: line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + e.Msg
	}
	return "input: " + e.Msg
}

// Unwrap returns the kind of error.
func (e *Error) Unwrap() error { return e.Err }
