//go:build !js

package rec

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// sampleBatchJSON is the decoded JSON of a plain batch of three records,
// parsed afresh for each edit.
func sampleBatchJSON(t *testing.T) []any {
	t.Helper()
	_, v := decodeJSON(t, buildBatch(t, CodecNone, 40, 0, sampleRecs(3)))
	return v
}

// sampleMessageJSON is the decoded JSON of a magic 1 message set of two
// messages.
func sampleMessageJSON(t *testing.T) []any {
	t.Helper()
	_, v := decodeJSON(t, append(withOffset(msgV1, 0), withOffset(msgV1, 1)...))
	return v
}

// encodeErr encodes v and returns its error's text, failing the test
// when there is none.
func encodeErr(t *testing.T, v any) string {
	t.Helper()
	_, err := Encode(nil, v)
	if err == nil {
		t.Fatal("no error")
	}
	return err.Error()
}

// Errors in records say what was expected and what was found, as the
// schema fields' errors do ("expected an integer in A..B, found X"), so
// that /api/encode fills both.
func TestEncodeErrorsSayExpectedAndFound(t *testing.T) {
	batch := func(v []any) map[string]any { return v[0].(map[string]any) }
	rec0 := func(v []any) map[string]any { return batch(v)["records"].([]any)[0].(map[string]any) }
	attrs := func(v []any) map[string]any { return batch(v)["attributes"].(map[string]any) }
	for _, tc := range []struct {
		edit func(v []any)
		want string
	}{
		{func(v []any) { rec0(v)["offsetDelta"] = "x" }, `[0].records[0].offsetDelta: expected an integer, found the string "x" (only int64 values may be quoted)`},
		{func(v []any) { rec0(v)["offsetDelta"] = num64("1.5") }, `[0].records[0].offsetDelta: expected an integer, found "1.5"`},
		{func(v []any) { rec0(v)["offsetDelta"] = true }, `[0].records[0].offsetDelta: expected an integer, found a bool`},
		{func(v []any) { rec0(v)["offsetDelta"] = num64("3000000000") }, `[0].records[0].offsetDelta: expected an integer in -2147483648..2147483647, found 3000000000`},
		{func(v []any) { rec0(v)["timestampDelta"] = "soon" }, `[0].records[0].timestampDelta: expected an integer, found "soon"`},
		{func(v []any) { rec0(v)["attributes"] = 200 }, `[0].records[0].attributes: expected an integer in -128..127, found 200 (Go int)`},
		{func(v []any) { rec0(v)["key"] = map[string]any{} }, `[0].records[0].key: expected null, a string, {"text":...} or {"base64":...}, found {}`},
		{func(v []any) { rec0(v)["key"] = 5 }, `[0].records[0].key: expected null, a string, {"text":...} or {"base64":...}, found a number (Go int)`},
		{func(v []any) { rec0(v)["value"] = map[string]any{"text": 5} }, `[0].records[0].value.text: expected a string, found a number (Go int)`},
		{func(v []any) { rec0(v)["headers"] = "none" }, `[0].records[0].headers: expected an array, found a string`},
		{func(v []any) { rec0(v)["headers"] = []any{1} }, `[0].records[0].headers[0]: expected an object, found a number (Go int)`},
		{func(v []any) { batch(v)["records"].([]any)[0] = "r" }, `[0].records[0]: expected an object, found a string`},
		{func(v []any) { batch(v)["producerEpoch"] = 40000 }, `[0].producerEpoch: expected an integer in -32768..32767, found 40000 (Go int)`},
		{func(v []any) { batch(v)["producerEpoch"] = num64("40000") }, `[0].producerEpoch: expected an integer in -32768..32767, found 40000`},
		{func(v []any) { batch(v)["producerId"] = num64("1e30") }, `[0].producerId: expected an integer in -9223372036854775808..9223372036854775807, found 1e30`},
		{func(v []any) { batch(v)["producerId"] = num64("92233720368547758070") }, `[0].producerId: expected an integer in -9223372036854775808..9223372036854775807, found 92233720368547758070`},
		{func(v []any) { batch(v)["producerId"] = uint64(math.MaxUint64) }, `[0].producerId: expected an integer in -9223372036854775808..9223372036854775807, found 18446744073709551615 (Go uint64)`},
		{func(v []any) { batch(v)["producerId"] = "p" }, `[0].producerId: expected an integer, found "p"`},
		{func(v []any) { batch(v)["baseOffset"] = 1.5 }, `[0].baseOffset: expected an integer, found 1.5`},
		{func(v []any) { batch(v)["magic"] = 3 }, `[0].magic: expected 0, 1 or 2, found 3`},
		{func(v []any) { batch(v)["records"] = map[string]any{} }, `[0].records: expected an array, found {}`},
		{func(v []any) { batch(v)["attributes"] = "gzip" }, `[0].attributes: expected an object or an integer, found a string`},
		{func(v []any) { batch(v)["attributes"] = 70000 }, `[0].attributes: expected an integer in -32768..65535, found 70000 (Go int)`},
		{func(v []any) { attrs(v)["compression"] = "brotli" }, `[0].attributes.compression: expected none, gzip, snappy, lz4, zstd or a number 0-7, found "brotli"`},
		{func(v []any) { attrs(v)["compression"] = 9 }, `[0].attributes.compression: expected an integer in 0..7, found 9 (Go int)`},
		{func(v []any) { attrs(v)["compression"] = 5 }, `[0].attributes.compression: expected a codec to compress the content with (gzip, snappy, lz4, zstd), found 5`},
		{func(v []any) { attrs(v)["timestampType"] = "Now" }, `[0].attributes.timestampType: expected CreateTime or LogAppendTime, found "Now"`},
		{func(v []any) { attrs(v)["transactional"] = "yes" }, `[0].attributes.transactional: expected true or false, found a string`},
		{func(v []any) { attrs(v)["otherBits"] = 0x10000 }, `[0].attributes.otherBits: expected an integer in -32768..65535, found 65536 (Go int)`},
		{func(v []any) { v[0] = 7 }, `[0]: expected an object, found a number (Go int)`},
		{func(v []any) { batch(v)["_compressed"] = 7 }, `[0]._compressed: expected a base64 string, found a number (Go int)`},
	} {
		v := sampleBatchJSON(t)
		tc.edit(v)
		if got := encodeErr(t, v); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	msg := func(v []any) map[string]any { return v[0].(map[string]any) }
	for _, tc := range []struct {
		edit func(v []any)
		want string
	}{
		{func(v []any) { msg(v)["attributes"] = 300 }, `[0].attributes: expected an integer in -128..255, found 300 (Go int)`},
		{func(v []any) { msg(v)["timestamp"] = "t" }, `[0].timestamp: expected an integer, found "t"`},
		{func(v []any) { msg(v)["offset"] = nil }, `[0].offset: missing`},
	} {
		v := sampleMessageJSON(t)
		tc.edit(v)
		if got := encodeErr(t, v); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if got := encodeErr(t, map[string]any{}); got != "$: expected an array of batches or messages, found {}" {
		t.Errorf("got %s", got)
	}
}

// num64 is a JSON number as the parser gives it.
func num64(s string) any { return json.Number(s) }

// A key or value gives its bytes once: text and base64 together are
// refused (text won, silently). A header's key is never null in Kafka
// (a null one was written as ""), so a null or missing one is refused.
func TestBytesGivenOnceAndHeaderKeyNotNull(t *testing.T) {
	rec0 := func(v []any) map[string]any { return v[0].(map[string]any)["records"].([]any)[0].(map[string]any) }
	for _, tc := range []struct {
		edit func(v []any)
		want string
	}{
		{func(v []any) { rec0(v)["key"] = map[string]any{"text": "a", "base64": "Yg=="} },
			`[0].records[0].key: expected {"text":...} or {"base64":...}, found both text and base64`},
		{func(v []any) { rec0(v)["value"] = map[string]any{"base64": "Yg==", "text": "a", "format": "json"} },
			`[0].records[0].value: expected {"text":...} or {"base64":...}, found both text and base64`},
		{func(v []any) {
			rec0(v)["headers"] = []any{map[string]any{"key": "h", "value": map[string]any{"text": "a", "base64": "Yg=="}}}
		},
			`[0].records[0].headers[0].value: expected {"text":...} or {"base64":...}, found both text and base64`},
		{func(v []any) { rec0(v)["headers"] = []any{map[string]any{"key": nil, "value": nil}} },
			`[0].records[0].headers[0].key: expected a string or {"base64":...}, found null: Kafka has no null header key`},
		{func(v []any) { rec0(v)["headers"] = []any{map[string]any{"value": map[string]any{"text": "v"}}} },
			`[0].records[0].headers[0].key: expected a string or {"base64":...}, found null: Kafka has no null header key`},
	} {
		v := sampleBatchJSON(t)
		tc.edit(v)
		if got := encodeErr(t, v); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	// Legacy messages' keys and values too.
	v := sampleMessageJSON(t)
	v[0].(map[string]any)["value"] = map[string]any{"text": "a", "base64": "Yg=="}
	if got, want := encodeErr(t, v), `[0].value: expected {"text":...} or {"base64":...}, found both text and base64`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A member the decoder never writes (a misspelt one, most often) is
// refused with its path and the members valid there, as the schema fields
// refuse an unknown field, in batches, records, headers, attributes,
// keys and values, legacy messages at each magic, and entries cut short.
func TestUnknownFieldsRefused(t *testing.T) {
	batch := func(v []any) map[string]any { return v[0].(map[string]any) }
	rec0 := func(v []any) map[string]any { return batch(v)["records"].([]any)[0].(map[string]any) }
	rec2 := func(v []any) map[string]any { return batch(v)["records"].([]any)[2].(map[string]any) }
	const valid = "unknown field; valid here: "
	for _, tc := range []struct {
		edit       func(v []any)
		path, want string
	}{
		{func(v []any) { batch(v)["attributes"].(map[string]any)["transactionl"] = true }, "[0].attributes.transactionl",
			"compression, timestampType, transactional, control, deleteHorizon, otherBits"},
		{func(v []any) { batch(v)["attributes"].(map[string]any)["compresion"] = "gzip" }, "[0].attributes.compresion", ""},
		{func(v []any) { batch(v)["producerID"] = 77 }, "[0].producerID", "baseOffset, partitionLeaderEpoch, magic, crc, attributes, lastOffsetDelta"},
		{func(v []any) { batch(v)["bogus"] = 1 }, "[0].bogus", ""},
		{func(v []any) { rec0(v)["Headers"] = []any{} }, "[0].records[0].Headers",
			"attributes, timestampDelta, offsetDelta, offset, timestamp, key, value, headers, control"},
		{func(v []any) { rec0(v)["timestampdelta"] = 5 }, "[0].records[0].timestampdelta", ""},
		{func(v []any) { rec2(v)["headers"].([]any)[0].(map[string]any)["vlaue"] = nil }, "[0].records[2].headers[0].vlaue", "key, value"},
		{func(v []any) {
			rec2(v)["headers"].([]any)[0].(map[string]any)["value"].(map[string]any)["format"] = "json"
		},
			"[0].records[2].headers[0].value.format", "text, base64"},
		{func(v []any) { rec0(v)["key"].(map[string]any)["txt"] = "k" }, "[0].records[0].key.txt", "text, base64, format, schemaId"},
		{func(v []any) { rec0(v)["value"] = map[string]any{"base64": "AA==", "decode": 1} }, "[0].records[0].value.decode", ""},
		{func(v []any) { delete(batch(v), "magic"); batch(v)["magik"] = 2 }, "[0].magik", "a batch's and a legacy message's"},
	} {
		v := sampleBatchJSON(t)
		tc.edit(v)
		got := encodeErr(t, v)
		if !strings.HasPrefix(got, tc.path+": "+valid) || !strings.Contains(got, tc.want) {
			t.Errorf("got  %s\nwant %s: %s...%s", got, tc.path, valid, tc.want)
		}
	}
	msg := func(v []any) map[string]any { return v[0].(map[string]any) }
	for _, tc := range []struct {
		magic      int8
		edit       func(v []any)
		path, want string
	}{
		{1, func(v []any) { msg(v)["timestmap"] = 5 }, "[0].timestmap",
			"offset, absoluteOffset, magic, crc, attributes, timestamp, logAppendTime, key, value, messages, _compressed, _raw (at magic 1)"},
		{0, func(v []any) { msg(v)["timestamp"] = 5 }, "[0].timestamp",
			"offset, absoluteOffset, magic, crc, attributes, key, value, messages, _compressed, _raw (at magic 0)"},
		{1, func(v []any) { msg(v)["attributes"].(map[string]any)["transactional"] = false }, "[0].attributes.transactional",
			"compression, timestampType, otherBits (at magic 1)"},
		{0, func(v []any) { msg(v)["attributes"].(map[string]any)["timestampType"] = "CreateTime" }, "[0].attributes.timestampType",
			"compression, otherBits (at magic 0)"},
		{1, func(v []any) { msg(v)["value"].(map[string]any)["bytes"] = "x" }, "[0].value.bytes", "text, base64"},
		{1, func(v []any) { v[0] = map[string]any{"_truncated": "AAAA", "offset": 5} }, "[0].offset", "_truncated (an entry cut short)"},
	} {
		p := append(withOffset(msgV1, 0), withOffset(msgV1, 1)...)
		if tc.magic == 0 {
			p = append(withOffset(msgV0, 0), withOffset(msgV0, 1)...)
		}
		_, v := decodeJSON(t, p)
		tc.edit(v)
		got := encodeErr(t, v)
		if !strings.HasPrefix(got, tc.path+": "+valid) || !strings.Contains(got, tc.want) {
			t.Errorf("got  %s\nwant %s: %s...%s", got, tc.path, valid, tc.want)
		}
	}
	// In an entry that carries "_raw" (it decoded with warnings), an
	// unknown member is no longer the entry as it came: it is refused, not
	// passed over with the bytes written as they came.
	badCRC := buildBatch(t, CodecNone, 0, 0, sampleRecs(3))
	badCRC[20] ^= 0xff
	for _, edit := range []func(v []any){
		func(v []any) { batch(v)["bogus"] = 1 },
		func(v []any) { rec0(v)["key"].(map[string]any)["txt"] = "k" },
		func(v []any) {
			rec2(v)["headers"].([]any)[0].(map[string]any)["value"].(map[string]any)["format"] = "json"
		},
		func(v []any) { rec0(v)["key"].(map[string]any)["base64"] = "AA==" },
	} {
		_, v := decodeJSON(t, badCRC)
		if _, ok := batch(v)["_raw"]; !ok {
			t.Fatal("no _raw")
		}
		edit(v)
		if _, err := Encode(nil, v); err == nil {
			t.Error("an unknown member of an entry with _raw was passed over")
		}
	}
}

// The record encoder reads a record's members in one pass, by name: every
// member recordKeys lists (the ones an error names as valid) is taken
// there.
func TestRecordMembersAllTaken(t *testing.T) {
	r := map[string]any{}
	for _, k := range recordKeys.names {
		r[k] = nil
	}
	v := sampleBatchJSON(t)
	v[0].(map[string]any)["records"] = []any{r}
	if _, err := Encode(nil, v); err != nil {
		t.Fatal(err)
	}
}

// TestNullHeaderKeyWarns: a record header whose key is null (length -1)
// has no place in Kafka's record format, and the encoder refuses one; the
// decoder says so, so the batch carries _raw and comes back byte for
// byte, as every frame that decodes with warnings does.
func TestNullHeaderKeyWarns(t *testing.T) {
	// attributes, timestampDelta, offsetDelta, key null, value "x", one
	// header: key null, value "v".
	body := []byte{0, 0, 0, 0x01, 0x02, 'x', 0x02, 0x01, 0x02, 'v'}
	rec := append([]byte{byte(len(body) << 1)}, body...)
	b := kmsg.RecordBatch{Magic: 2, FirstTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: 1, Records: rec}
	out := b.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], castagnoli))
	res, js := roundTrip(t, out, false)
	found := false
	for _, w := range warnings(res) {
		found = found || strings.Contains(w, nullHeaderKey)
	}
	if !found {
		t.Fatalf("no warning for the null header key: %q", warnings(res))
	}
	if !strings.Contains(string(js), `"_raw":`) {
		t.Fatalf("the batch carries no _raw: %s", js)
	}
	// The JSON sink says the same.
	var w []byte
	if _, err := WriteJSON(&w, out, Options{}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(w), `"_raw":`) {
		t.Fatalf("the JSON sink's batch carries no _raw: %s", w)
	}
}
