package codec

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// ParseJSON agrees with encoding/json (UseNumber) on what both accept.
func TestParseJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0.5e+10`, `123456789012345678901234567890`,
		`{"a":[1,{"b":null}],"c":"x\"y\\z\/\b\f\n\r\t\u00e9\ud83d\ude00"}`,
		` { "k" : [ 1 , 2 ] } `, `"\ud800"`, `"é"`,
	} {
		got, err := parseJSON([]byte(s))
		require.NoError(t, err, s)
		var want any
		d := json.NewDecoder(stringsReader(s))
		d.UseNumber()
		require.NoError(t, d.Decode(&want))
		require.True(t, reflect.DeepEqual(want, got), "%s: %#v vs %#v", s, want, got)
	}
	for _, s := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `01`, `1.`, `-`, `"abc`, `"\x"`, `tru`, `{} {}`, "\"a\x01\"", `{"a":1,}`} {
		_, err := parseJSON([]byte(s))
		require.Error(t, err, s)
		require.Contains(t, err.Error(), "invalid JSON at byte")
	}
	deep := make([]byte, 0, 5000)
	for i := 0; i < 2000; i++ {
		deep = append(deep, '[')
	}
	_, err := parseJSON(deep)
	require.ErrorContains(t, err, "nested too deeply")
}

func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":null}],"c":"\u00e9"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseJSON(b)
		var want any
		d := json.NewDecoder(bytesReader(b))
		d.UseNumber()
		d.Decode(&want)
		valid := json.Valid(b)
		if err != nil && strings.Contains(err.Error(), "nested too deeply") {
			return
		}
		if (err == nil) != valid {
			t.Fatalf("disagree on %q: ours %v, json.Valid %v", b, err, valid)
		}
		if err == nil && !reflect.DeepEqual(want, got) {
			t.Fatalf("different values for %q", b)
		}
	})
}

func stringsReader(s string) *bytesReaderT { return &bytesReaderT{b: []byte(s)} }
func bytesReader(b []byte) *bytesReaderT   { return &bytesReaderT{b: b} }

type bytesReaderT struct{ b []byte }

func (r *bytesReaderT) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
