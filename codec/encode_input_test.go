package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// A quoted int64 is taken only as Options.Int64Strings writes it: what
// "+5" or "05" would be written as is not the text given.
func TestQuotedInt64Canonical(t *testing.T) {
	enc := func(id any) error {
		_, err := Encode(nil, map[string]any{"transactionalId": "t", "producerId": id, "producerEpoch": 0, "committed": true},
			EncodeOptions{Body: true, APIKey: 26, Version: 0})
		return err
	}
	for _, ok := range []string{"0", "5", "-5", "9223372036854775807", "-9223372036854775808"} {
		require.NoError(t, enc(ok), ok)
	}
	for _, bad := range []string{"+5", "05", "-0", "-05", "00", "+0"} {
		require.EqualError(t, enc(bad), `body.producerId: expected an integer's digits as Int64Strings writes them (an optional '-', no '+', no leading zero), found `+quote(bad), bad)
	}
	for _, bad := range []string{"", "-", "+", " 5", "5 ", "0x5", "1e3", "soon"} {
		require.EqualError(t, enc(bad), `body.producerId: expected an integer, found `+quote(bad), bad)
	}
	require.ErrorContains(t, enc("9223372036854775808"), "body.producerId: expected an integer in -9223372036854775808..9223372036854775807")
	// In records too.
	batch := `{"baseOffset":"+5","partitionLeaderEpoch":0,"magic":2,"baseTimestamp":"05","producerId":-1,"producerEpoch":-1,"baseSequence":-1,"records":[]}`
	_, err := Encode(nil, `{"data":"records","value":[`+batch+`]}`, EncodeOptions{})
	require.ErrorContains(t, err, `value[0].baseOffset: expected an integer's digits as Int64Strings writes them (an optional '-', no '+', no leading zero), found "+5"`)
	_, err = Encode(nil, `{"data":"records","value":[`+strings.Replace(batch, `"+5"`, `"5"`, 1)+`]}`, EncodeOptions{})
	require.ErrorContains(t, err, `value[0].baseTimestamp: expected an integer's digits as Int64Strings writes them (an optional '-', no '+', no leading zero), found "05"`)
}

func quote(s string) string { return `"` + s + `"` }

// A UUID's text is the 22 characters Kafka prints: padding, or bits past
// the 16 bytes, would write bytes the text does not show.
func TestUUIDText(t *testing.T) {
	enc := func(id string) error {
		_, err := Encode(nil, map[string]any{"topics": []any{map[string]any{"name": nil, "topicId": id}}},
			EncodeOptions{Body: true, APIKey: 20, Version: 6})
		return err
	}
	require.NoError(t, enc("AAAAAAAAAAAAAAAAAAAAAA"))
	require.NoError(t, enc("_-_-_-_-_-_-_-_-_-_-_w"))
	for _, bad := range []string{"AAAAAAAAAAAAAAAAAAAAAA==", "AAAAAAAAAAAAAAAAAAAAAB", "AAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAA+/"} {
		require.EqualError(t, enc(bad), `body.topics[0].topicId: expected a UUID in Kafka's base64url form (22 characters, no padding), found `+quote(bad), bad)
	}
}

// A float64 the number cannot be is refused alike past either end: too
// big, or nonzero and so small it would be written as 0.
func TestFloatRange(t *testing.T) {
	enc := func(v string) error {
		_, err := Encode(nil, `{"entries":[{"entity":[{"entityType":"user","entityName":"u"}],"ops":[{"key":"k","value":`+v+`,"remove":false}]}],"validateOnly":false}`,
			EncodeOptions{Body: true, APIKey: 49, Version: 0})
		return err
	}
	for _, ok := range []string{"0", "-0", "0.0e5", "0e-999", "1e-300", "5e-324", "1.7976931348623157e308", "\"NaN\""} {
		require.NoError(t, enc(ok), ok)
	}
	require.EqualError(t, enc("1e400"), "body.entries[0].ops[0].value: expected a float64, found 1e400 (beyond float64's range)")
	require.EqualError(t, enc("-1e400"), "body.entries[0].ops[0].value: expected a float64, found -1e400 (beyond float64's range)")
	require.EqualError(t, enc("1e-400"), "body.entries[0].ops[0].value: expected a float64, found 1e-400 (too small for float64: it would be written as 0)")
	require.EqualError(t, enc("-2e-324"), "body.entries[0].ops[0].value: expected a float64, found -2e-324 (too small for float64: it would be written as 0)")
}

// JSON text whose strings are not UTF-8, or hold half a surrogate pair,
// is refused with the path to the string, where the encoder took U+FFFD
// for them and wrote bytes the text did not show.
func TestEncodeRefusesBadText(t *testing.T) {
	_, err := Encode(nil, `{"apiKey":18,"apiVersion":3,"header":{"correlationId":1,"clientId":"c"},"body":{"clientSoftwareName":"k\ud800","clientSoftwareVersion":"1"}}`, EncodeOptions{})
	require.EqualError(t, err, `invalid JSON at byte 103: a lone surrogate \ud800 in a string (half of a UTF-16 pair without its other half: no character) at body.clientSoftwareName`)
	_, err = Encode(nil, "{\"apiKey\":18,\"apiVersion\":3,\"header\":{\"correlationId\":1,\"clientId\":\"c\xff\"},\"body\":{}}", EncodeOptions{})
	require.ErrorContains(t, err, `invalid UTF-8 (byte 0xff) in a string at header.clientId`)
	// A pair is one character, and U+FFFD given is U+FFFD.
	b, err := Encode(nil, `{"clientSoftwareName":"\ud83d\ude00\ufffd","clientSoftwareVersion":"1"}`, EncodeOptions{Body: true, APIKey: 18, Version: 3})
	require.NoError(t, err)
	require.Equal(t, "\x08\U0001F600\uFFFD\x021", string(b[:len(b)-1]))
}

// TestEncodeRecordsSizeForm: the records form --records size writes
// (RecordsSize: {"sizeInBytes":N}) holds no bytes to write back; encoding
// it says so and what to decode with instead, at the field's path.
func TestEncodeRecordsSizeForm(t *testing.T) {
	b, err := ExampleFrame(schema.ByKey(schema.KeyProduce), 9, false)
	require.NoError(t, err)
	f, err := Decode(b, Options{Records: RecordsSize})
	require.NoError(t, err)
	js := f.AppendJSON(nil)
	require.Contains(t, string(js), `"records":{"sizeInBytes":`)
	_, err = Encode(nil, js, EncodeOptions{})
	var ee *EncodeError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, "body.topicData[0].partitionData[0].records", ee.Path)
	require.Contains(t, ee.Msg, `{"sizeInBytes":N} says how big the records were, not what they held, so it cannot be encoded; decode with --records decoded or base64`)
}
