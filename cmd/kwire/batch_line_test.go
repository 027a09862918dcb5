package main

import (
	"encoding/json"
	"strconv"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/stretchr/testify/require"
)

// TestLineErrorEscapesAsEncodingJSON: a batch line's error object escapes
// its strings as encoding/json did when it wrote them (<, > and &,
// U+2028 and U+2029, invalid UTF-8, quotes, control characters), now that
// jsontext.Writer writes it. (\b and \f differ: encoding/json writes them
// short, jsontext as \u0008 and \u000c; both are the same JSON string.)
func TestLineErrorEscapesAsEncodingJSON(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, s := range []string{"", "plain", `a "quoted" \ path`, "<script>&amp;</script>", "line\nbreak\ttab\rret\x00\x1f\x7f",
		"\u2028\u2029", "caf\xc3\xa9 \xff\xfe bad", "emoji \U0001F600", "nbsp\u00a0"} {
		de := &codec.DecodeError{Offset: 7, Path: "body." + s, Expected: "x" + s, Found: s + "y"}
		got := string(lineError(nil, 3, de, s))
		want := `{"line":3,"error":{"message":` + q(s) + `,"offset":7,"path":` + q(de.Path) + `,"expected":` + q(de.Expected) + `,"found":` + q(de.Found) + `}}`
		require.Equal(t, want, got, strconv.Quote(s))
		require.True(t, json.Valid([]byte(got)))
		require.Equal(t, `{"line":3,"error":{"message":`+q(s)+`}}`, string(lineError(nil, 3, nil, s)))
	}
}
