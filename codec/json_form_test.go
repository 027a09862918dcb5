package codec

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A records field has one JSON type: a list of batches, empty when the
// field holds zero bytes, as it does in every Fetch response for a
// partition with nothing new and in a Produce for a partition with
// nothing to send (issue 24: it was the string "" then, so a program
// reading the JSON had to handle two types for one field). null stays
// null, and the empty list encodes back to zero bytes.
func TestEmptyRecordsAreAnEmptyList(t *testing.T) {
	for _, c := range []struct {
		name, hex string
		o         Options
	}{
		// Produce v7: topic t's records null, topic u's zero bytes.
		{"produce v7", "00000035000000070000000700016bffffffff000003e8000000020001740000000100000000ffffffff000175000000010000000000000000", Options{}},
		// Produce v9 (flexible): compact records of length 0 (varint 1).
		{"produce v9", "0000001f000000090000000700016b0000ffff000003e8020275020000000001000000", Options{}},
		// Fetch v12 response (flexible): a partition with nothing new.
		{"fetch v12 response", "0000003a0000000700000000000000000000000202750200000000000000000000000000050000000000000005000000000000000000ffffffff01000000",
			Options{Response: true, APIKey: 1, Version: 12}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := hex.DecodeString(c.hex)
			require.NoError(t, err)
			var dec Decoder
			js, _, err := dec.AppendJSON(nil, b, c.o)
			require.NoError(t, err, "%s", js)
			require.Contains(t, string(js), `"records":[]`)
			require.NotContains(t, string(js), `"records":""`)
			f, err := Decode(b, c.o)
			require.NoError(t, err)
			require.JSONEq(t, string(js), string(f.AppendJSON(nil)))
			back, err := Encode(nil, js, EncodeOptions{})
			require.NoError(t, err)
			require.Equal(t, b, back, "the empty list encodes back to zero bytes")
			var v any
			require.NoError(t, json.Unmarshal(js, &v))
		})
	}
}

// Int64 values past 2^53 (producer ids, here 7095166877077007636) are
// numbers in Kafka's form, which jq and JavaScript round; Int64Strings
// writes every int64 as a string of its digits instead, in Kafka's int64
// fields and in the records' alike, and the encoder reads both forms back
// to the same bytes (issue 24).
func TestInt64Strings(t *testing.T) {
	const pid = "7095166877077007636"
	produce := `{"apiKey":0,"apiVersion":9,"header":{"correlationId":7,"clientId":"k"},"body":{"transactionalId":null,"acks":-1,"timeoutMs":1000,` +
		`"topicData":[{"name":"t","partitionData":[{"index":0,"records":[{"baseOffset":0,"partitionLeaderEpoch":-1,"magic":2,"attributes":{"compression":"none","transactional":true},` +
		`"lastOffsetDelta":0,"baseTimestamp":1764633600000,"maxTimestamp":1764633600000,"producerId":"` + pid + `","producerEpoch":2,"baseSequence":0,` +
		`"records":[{"offsetDelta":0,"timestampDelta":0,"key":{"text":"k"},"value":{"text":"v"}}]}]}]}]}}`
	b, err := Encode(nil, []byte(produce), EncodeOptions{})
	require.NoError(t, err)
	initPID, err := hex.DecodeString("000000160000000300000000000000627718aed24aed14000200")
	require.NoError(t, err)

	for _, c := range []struct {
		name   string
		b      []byte
		o      Options
		quoted []string // members that must be strings with the switch
	}{
		{"records", b, Options{}, []string{`"producerId":"` + pid + `"`, `"baseOffset":"0"`, `"baseTimestamp":"1764633600000"`, `"timestamp":"1764633600000"`, `"offset":"0"`, `"timestampDelta":"0"`}},
		{"InitProducerId response", initPID, Options{Response: true, APIKey: 22, Version: 4}, []string{`"producerId":"` + pid + `"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var dec Decoder
			plain, _, err := dec.AppendJSON(nil, c.b, c.o)
			require.NoError(t, err)
			require.Contains(t, string(plain), `"producerId":`+pid, "Kafka's form by default")

			o := c.o
			o.Int64Strings = true
			js, _, err := dec.AppendJSON(nil, c.b, o)
			require.NoError(t, err)
			for _, q := range c.quoted {
				require.Contains(t, string(js), q)
			}
			require.NotContains(t, string(js), `"producerEpoch":"`, "int16 stays a number")
			f, err := Decode(c.b, o)
			require.NoError(t, err)
			require.Equal(t, string(js), string(f.AppendJSON(nil)), "the tree's JSON says the same")

			// A float64 reader (JavaScript's, jq's) rounds the number and
			// keeps the string.
			var rounded, exact map[string]any
			require.NoError(t, json.Unmarshal(plain, &rounded))
			require.NoError(t, json.Unmarshal(js, &exact))
			require.Contains(t, string(mustJSON(t, exact)), `"`+pid+`"`)
			require.NotContains(t, string(mustJSON(t, rounded)), pid)

			for _, form := range [][]byte{plain, js} {
				back, err := Encode(nil, form, EncodeOptions{})
				require.NoError(t, err)
				require.Equal(t, c.b, back, "encodes back to the same bytes")
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// Each batch says its size on the wire and, compressed, how far it
// inflated (as Wireshark shows a batch's size and compression; issue 24),
// as kwire's annotations, which the encoder ignores.
func TestBatchSizeAnnotations(t *testing.T) {
	value := `{"text":"` + strings.Repeat("order 1042 shipped; ", 20) + `"}`
	batch := func(compression string) string {
		return `{"baseOffset":0,"partitionLeaderEpoch":-1,"magic":2,"attributes":{"compression":"` + compression + `"},` +
			`"lastOffsetDelta":1,"baseTimestamp":1764633600000,"maxTimestamp":1764633600000,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,` +
			`"records":[{"offsetDelta":0,"timestampDelta":0,"key":null,"value":` + value + `},{"offsetDelta":1,"timestampDelta":0,"key":null,"value":` + value + `}]}`
	}
	produce := `{"apiKey":0,"apiVersion":9,"header":{"correlationId":7,"clientId":"k"},"body":{"transactionalId":null,"acks":-1,"timeoutMs":1000,` +
		`"topicData":[{"name":"t","partitionData":[{"index":0,"records":[` + batch("none") + `,` + batch("gzip") + `]}]}]}}`
	b, err := Encode(nil, []byte(produce), EncodeOptions{})
	require.NoError(t, err)
	var dec Decoder
	js, _, err := dec.AppendJSON(nil, b, Options{})
	require.NoError(t, err)
	var v struct {
		Body struct {
			TopicData []struct {
				PartitionData []struct {
					Records []map[string]any
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(js, &v))
	batches := v.Body.TopicData[0].PartitionData[0].Records
	require.Len(t, batches, 2)
	// A batch's size is its 12 bytes of offset and length plus the length.
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	recs, err := f.Root.Lookup("body.topicData[0].partitionData[0].records")
	require.NoError(t, err)
	for i, want := range []bool{false, true} {
		bn := at(t, recs, "["+strconv.Itoa(i)+"]")
		require.NotNil(t, bn)
		size := bn.End - bn.Start
		require.EqualValues(t, size, batches[i]["_sizeInBytes"], "batch %d", i)
		_, has := batches[i]["_uncompressedBytes"]
		require.Equal(t, want, has, "batch %d", i)
	}
	gz := batches[1]
	compressed := gz["_sizeInBytes"].(float64) - 61
	unc := gz["_uncompressedBytes"].(float64)
	require.Greater(t, unc, 2*compressed, "20 repeats of a phrase compress well")
	require.InDelta(t, unc/compressed, gz["_compressionRatio"].(float64), 0.005)
	require.Equal(t, string(js), string(f.AppendJSON(nil)), "the tree's JSON says the same")
	// The encoder ignores the annotations: the JSON encodes back to the bytes.
	back, err := Encode(nil, js, EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, b, back)
}

// A request cut short before its API key or version says nothing of them:
// the envelope used to show "apiKey":0 and "apiVersion":0 (a Produce v0,
// to anyone reading it) for bytes that were never there. What the bytes
// hold is still shown, the tree and the walk alike.
func TestPartialRequestShowsOnlyTheKeyAndVersionItHolds(t *testing.T) {
	for _, c := range []struct {
		name, hex    string
		o            Options
		key, version string // the members expected, "" for none
	}{
		{"size only", "00000001", Options{}, "", ""},
		{"one byte of key", "0000000100", Options{}, "", ""},
		{"key, no version", "000000020003", Options{}, `"apiKey":3`, ""},
		{"key, half a version", "00000003000300", Options{}, `"apiKey":3`, ""},
		{"key and version, cut after them", "0000000a00030009", Options{}, `"apiKey":3`, `"apiVersion":9`},
		{"no size prefix, key alone", "0012", Options{NoSizePrefix: true}, `"apiKey":18`, ""},
		{"a response's come from the caller", "00000001", Options{Response: true, APIKey: 3, Version: 12}, `"apiKey":3`, `"apiVersion":12`},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := hex.DecodeString(c.hex)
			require.NoError(t, err)
			bothPaths(t, b, c.o)
			var dec Decoder
			js, _, err := dec.AppendJSON(nil, b, c.o)
			require.Error(t, err)
			for member, want := range map[string]string{`"apiKey":`: c.key, `"apiVersion":`: c.version} {
				if want == "" {
					require.NotContains(t, string(js), member)
				} else {
					require.Contains(t, string(js), want)
				}
			}
			require.True(t, json.Valid(js), "%s", js)
		})
	}
}
