package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEncodeWantsEveryMessage goes through every shape of message the
// encoder gives (codec's encode.go, datamsg.go and its records encoder,
// one line each, in their order there): each maps to what was expected
// and what was found, or, where expected is "", to its message alone on
// purpose (no JSON reaches it, or the message is its own hint).
func TestEncodeWantsEveryMessage(t *testing.T) {
	for _, tc := range []struct{ msg, path, expected, found string }{
		// codec/datamsg.go
		{"no data message X", "data", "a known name or key (GET /api/apis lists the APIs)", "X"},
		{"LeaderChangeMessage has no version 9", "value.version", "a version LeaderChangeMessage has", "9"},
		// codec/encode.go
		{"expected an object, found an array", "", "an object", "an array"},
		{`expected "request" or "response", found "x, found y"`, "direction", `"request" or "response"`, `"x, found y"`},
		{`unknown API "Nope"`, "apiName", "a known name or key (GET /api/apis lists the APIs)", `"Nope"`},
		{"unknown API key 999", "apiKey", "a known name or key (GET /api/apis lists the APIs)", "999"},
		{"is Metadata (key 3) but apiKey says 18 (ApiVersions)", "apiName", "what apiKey says: 18 (ApiVersions)", "Metadata (key 3)"},
		{"missing: give apiKey or apiName", "apiKey", "apiKey or apiName", "nothing"},
		{"missing", "apiVersion", "a value", "nothing"},
		{"is 2 but the envelope says 3", "header.requestApiVersion", "what the envelope says: 3", "2"},
		{"unknown field; valid here: direction, apiKey", "nope", "one of direction, apiKey", "nope"},
		{"expected a tag given once, found 7 again (given by _unknownTaggedFields[0] too)", "body._unknownTaggedFields[1].tag", "a tag given once", "7 again (given by _unknownTaggedFields[0] too)"},
		{"expected a tag no field has at v12, found 0, the tag of clusterId (give it by that name)", "body._unknownTaggedFields[0].tag", "a tag no field has at v12", "0, the tag of clusterId (give it by that name)"},
		{"invalid base64: illegal base64 data at input byte 0", "body.authBytes", "base64 text", "illegal base64 data at input byte 0"},
		{"expected no tagged fields (v0 is not a flexible version: it has none), found _unknownTaggedFields", "body._unknownTaggedFields", "no tagged fields (v0 is not a flexible version: it has none)", "_unknownTaggedFields"},
		{"unknown field; valid here: clientSoftwareName, _unknownTaggedFields (at v3)", "body.nope", "one of clientSoftwareName, _unknownTaggedFields at v3", "nope"},
		{"unknown field; valid here: correlationId (at response header v0)", "header.nope", "one of correlationId at response header v0", "nope"},
		{"a field of request header v1+ only; valid here: requestApiKey, requestApiVersion, correlationId (at request header v0)", "header.clientId", "one of requestApiKey, requestApiVersion, correlationId at request header v0", "clientId, a field of request header v1+ only"},
		{"null is not allowed here at request header v1", "header.clientId", "a value: this field is not nullable at request header v1", "null"},
		{"unknown field; none is valid here (at v0)", "body.nope", "no field (this struct has none at v0)", "nope"},
		{"a field of v4+ only; valid here: topics (at v0)", "body.allowAutoTopicCreation", "one of topics at v0", "allowAutoTopicCreation, a field of v4+ only"},
		{"a field of v4+ only; none is valid here (at v0)", "body.x", "no field (none is valid at v0)", "x, a field of v4+ only"},
		{`expected an integer, found the string "seven" (only int64 values may be quoted)`, "header.correlationId", "an integer", `the string "seven" (only int64 values may be quoted)`},
		{"expected an integer in -2147483648..2147483647, found 3000000000", "header.correlationId", "an integer in -2147483648..2147483647", "3000000000"},
		{"expected a bool, found a number", "body.x", "a bool", "a number"},
		{"cannot encode kind 99", "body.x", "", "cannot encode kind 99"}, // no JSON reaches it
		{"null is not allowed here at v3", "body.clientSoftwareName", "a value: this field is not nullable at v3", "null"},
		{`expected a UUID in Kafka's base64url form (22 characters, no padding), found "AAAAAAAAAAAAAAAAAAAAAA=="`, "body.topicId", "a UUID in Kafka's base64url form (22 characters, no padding)", `"AAAAAAAAAAAAAAAAAAAAAA=="`},
		{"string of 40000 bytes is longer than 32767", "header.clientId", "a string of at most 32767 bytes (its length is an int16)", "a string of 40000 bytes"},
		{"expected a float64, found 1e-400 (too small for float64: it would be written as 0)", "body.value", "a float64", "1e-400 (too small for float64: it would be written as 0)"},
		{"expected a float64, found 1e400 (beyond float64's range)", "body.value", "a float64", "1e400 (beyond float64's range)"},
		{`expected a number, "NaN", "Infinity" or "-Infinity", found "NaN!"`, "body.value", `a number, "NaN", "Infinity" or "-Infinity"`, `"NaN!"`},
		{"expected base64 text, bytes or an array of batches, found a number", "body.records", "base64 text, bytes or an array of batches", "a number"},
		{"ApiVersionsRequest has versions 0-4, not 99", "apiVersion", "a version of ApiVersionsRequest in 0-4", "99"},
		{`unknown data message "Nope"`, "data", "a known name or key (GET /api/apis lists the APIs)", `"Nope"`},
		// codec/internal/rec/encode.go
		{"expected message sets nested at most 16 deep, found deeper ones", "body.records[0]", "message sets nested at most 16 deep", "deeper ones"},
		{"expected 0, 1 or 2, found 5", "body.records[0].magic", "0, 1 or 2", "5"},
		{"unknown field; valid here: offset, magic (at magic 0)", "body.records[0].nope", "one of offset, magic at magic 0", "nope"},
		{"bad base64: illegal base64 data at input byte 0", "body.records[0]._raw", "base64 text", "illegal base64 data at input byte 0"},
		{`expected an integer's digits as Int64Strings writes them (an optional '-', no '+', no leading zero), found "+5"`, "body.producerId", "an integer's digits as Int64Strings writes them (an optional '-', no '+', no leading zero)", `"+5"`},
		{`expected an integer, found "05"`, "body.x", "an integer", `"05"`},
		{"expected none, gzip, snappy, lz4, zstd or a number 0-7, found \"brotli\"", "body.records[0].attributes.compression", "none, gzip, snappy, lz4, zstd or a number 0-7", `"brotli"`},
		{`expected {"text":...} or {"base64":...}, found both text and base64`, "body.records[0].records[0].key", `{"text":...} or {"base64":...}`, "both text and base64"},
		{`expected gzip, snappy or lz4 in a magic 1 wrapper, found "zstd": Kafka takes zstd only in record batches (magic 2)`, "x.attributes.compression", "gzip, snappy or lz4 in a magic 1 wrapper", `"zstd": Kafka takes zstd only in record batches (magic 2)`},
		{"cannot compress with codec 9", "x.attributes.compression", "", "cannot compress with codec 9"}, // a compressor's failure: its own words
		{"expected the compressed content as it was, found it changed: compressing it with zstd is not available in the browser build; encode it with the kwire CLI, or leave the compressed content as it was", "x.attributes.compression", "the compressed content as it was", "it changed: compressing it with zstd is not available in the browser build; encode it with the kwire CLI, or leave the compressed content as it was"},
	} {
		expected, found := encodeWants(tc.msg, tc.path)
		require.Equal(t, tc.expected, expected, tc.msg)
		require.Equal(t, tc.found, found, tc.msg)
	}
}

// TestEncodeHints posts what the encoder and the JSON parser before it
// refuse, the strict checks first among them (a number's form, UTF-8, a
// lone surrogate, a UUID's padding, unknown fields, null where a field
// is not nullable), and reads the hint each answer carries.
func TestEncodeHints(t *testing.T) {
	h := New(Options{})
	for _, tc := range []struct {
		body, path, expected, found string
		offset                      float64
	}{
		{`{"apiKey":+5}`, "", "a JSON number, with no '+' (5, not +5)", "'+'", 10},
		{`{"apiKey":05}`, "", "a JSON number, with no leading zero (5, not 05)", "a number with a leading zero", 10},
		{"{\"apiKey\":18,\"header\":{\"clientId\":\"\xff\"}}", "", "UTF-8 text in strings (bytes as base64 where a field is bytes)", "invalid UTF-8 (byte 0xff) in a string at header.clientId", 35},
		{`{"apiKey":18,"header":{"clientId":"\ud800"}}`, "", `a \u escape of a UTF-16 surrogate followed by its other half (\ud83d\ude00), or the character itself`, `a lone surrogate \ud800 in a string (half of a UTF-16 pair without its other half: no character) at header.clientId`, 35},
		{`{"apiKey":18,"apiKey":18}`, "", "each key once in an object", `duplicate key "apiKey" in an object`, 13},
		{`{"apiKey":18,}`, "", "a string key", "'}'", 13},
		{`{"apiKey":18`, "", "',' or '}' in an object", "the end of the input", 12},
		{`{"a":"\q"}`, "", `an escape JSON has: \" \\ \/ \b \f \n \r \t or \u and four hex digits`, `bad escape \q`, 8},
		{"{\"a\":\"\x01\"}", "", `control characters in strings escaped (\n, \u0001)`, "control character in a string", 6},
		{`{"a":"x`, "", `a closing '"'`, "the end of the input", 7},
		{`{"a":@}`, "", "a JSON value", "character '@'", 5},
		{`{"apiKey":18} 1`, "", "one JSON value", "more than one value", 14},
		{`{"apiKey":3,"apiVersion":12,"header":{"correlationId":7},"body":{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAA==","name":"orders"}]}}`,
			"body.topics[0].topicId", "a UUID in Kafka's base64url form (22 characters, no padding)", `"AAAAAAAAAAAAAAAAAAAAAA=="`, -1},
		{`{"apiKey":49,"apiVersion":1,"header":{"correlationId":7},"body":{"entries":[{"entity":[],"ops":[{"key":"k","value":1e-400,"remove":false}]}]}}`,
			"body.entries[0].ops[0].value", "a float64", "1e-400 (too small for float64: it would be written as 0)", -1},
		{`{"apiKey":18,"apiVersion":3,"body":{"clientSoftwareName":null}}`, "body.clientSoftwareName", "a value: this field is not nullable at v3", "null", -1},
		{`{"apiKey":18,"apiVersion":3,"body":{"nope":1}}`, "body.nope", "one of clientSoftwareName, clientSoftwareVersion, _unknownTaggedFields at v3", "nope", -1},
		// A header's fields are valid at the header's version, not the API's.
		{`{"direction":"response","apiKey":18,"apiVersion":3,"header":{"correlationId":7,"foo":1},"body":{}}`, "header.foo", "one of correlationId at response header v0", "foo", -1},
		{`{"apiKey":18,"apiVersion":3,"header":{"correlationId":7,"foo":1},"body":{}}`, "header.foo", "one of requestApiKey, requestApiVersion, correlationId, clientId, _unknownTaggedFields at request header v2", "foo", -1},
		{`{"apiKey":18,"apiVersion":0,"body":{"nope":1}}`, "body.nope", "no field (this struct has none at v0)", "nope", -1},
		{`{"apiKey":3,"apiVersion":0,"body":{"allowAutoTopicCreation":true}}`, "body.allowAutoTopicCreation", "one of topics at v0", "allowAutoTopicCreation, a field of v4+ only", -1},
		{`{"apiKey":18,"apiVersion":0,"header":{"clientId":"` + strings.Repeat("x", 40000) + `"}}`, "header.clientId", "a string of at most 32767 bytes (its length is an int16)", "a string of 40000 bytes", -1},
		{`{"apiKey":60,"apiVersion":0,"body":{"includeClusterAuthorizedOperations":"yes"}}`, "body.includeClusterAuthorizedOperations", "a bool", "a string", -1},
		{`{"apiKey":0,"apiVersion":9,"header":{"correlationId":7},"body":{"acks":-1,"timeoutMs":1,"topicData":[{"name":"t","partitionData":[{"index":0,"records":[{"magic":2,"baseOffset":"+5"}]}]}]}}`,
			"body.topicData[0].partitionData[0].records[0].baseOffset", "an integer's digits as Int64Strings writes them (an optional '-', no '+', no leading zero)", `"+5"`, -1},
	} {
		w := do(t, h, "POST", "/api/encode", "application/json", []byte(tc.body))
		require.Equal(t, http.StatusBadRequest, w.Code, tc.body)
		m := errorBody(t, w)
		require.Equal(t, tc.path, m["path"], tc.body)
		require.Equal(t, tc.expected, m["expected"], tc.body)
		require.Equal(t, tc.found, m["found"], tc.body)
		if tc.offset >= 0 {
			require.Equal(t, tc.offset, m["offset"], tc.body)
		}
	}
}
