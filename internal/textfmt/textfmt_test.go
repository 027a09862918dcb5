package textfmt

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

// TestSameAsFmt: each verb and argument type textfmt takes reads as
// fmt.Sprintf writes it.
func TestSameAsFmt(t *testing.T) {
	err := errors.New("bad thing")
	cases := []struct {
		format string
		args   []any
	}{
		{"plain, 100%% sure", nil},
		{"%d %d %d %d %d", []any{0, -7, int8(-8), int16(300), int32(-1 << 31)}},
		{"%d %d %d %d %d %d", []any{int64(-1 << 63), uint(7), uint8(255), uint16(65535), uint32(1 << 31), uint64(1<<64 - 1)}},
		{"%s and %v", []any{"text", "more"}},
		{"%v / %s", []any{err, io.ErrUnexpectedEOF}},
		{"%s %v", []any{time.Duration(1500) * time.Millisecond, time.Duration(3)}},
		{"header % x, random %x, none % x%x.", []any{[]byte{0, 1, 0xab, 0xff}, []byte{0xde, 0xad, 0xbe, 0xef}, []byte{}, []byte(nil)}},
		{"gap: %d bytes missing at stream offset %d (%s)", []any{12, int64(1 << 40), "why"}},
		{"%v", []any{nil}},
		{"trailing %", nil},
		{"%d and %s", []any{1}},
	}
	for _, c := range cases {
		want := fmt.Sprintf(c.format, c.args...)
		if got := Sprintf(c.format, c.args...); got != want {
			t.Errorf("Sprintf(%q): got %q, want %q", c.format, got, want)
		}
	}
}

// TestWrongArgumentIsSaid: a type or verb textfmt does not know is said
// in the text, never a panic.
func TestWrongArgumentIsSaid(t *testing.T) {
	// Formats in variables: vet, told Sprintf is a printf (.ci/run),
	// would refuse these wrong ones as constants.
	wrong, nilArg := "a %d b %x c %q", "%s"
	if got, want := Sprintf(wrong, "s", 5, 1.5), "a %!d(?) b %!x(?) c %!q(?)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := Sprintf(nilArg, nil), "%!s(<nil>)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWrapWraps(t *testing.T) {
	base := errors.New("format")
	err := Wrap(base, ": %v", io.ErrUnexpectedEOF)
	want := fmt.Errorf("%w: %v", base, io.ErrUnexpectedEOF)
	if err.Error() != want.Error() || !errors.Is(err, base) || errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("got %v (is base %v), want %v wrapping base only", err, errors.Is(err, base), want)
	}
}
