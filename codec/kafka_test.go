package codec

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// Kafka's own JSON form of every example of every API, version and
// direction: the nested form with every records field and every bytes
// field shown decoded turned into base64 (kafkaForm, the encoder tests'
// independent conversion from the tree), the same through the tree and
// without it, read back by the encoder to the same bytes.
func TestKafkaFormExamples(t *testing.T) {
	var dec Decoder
	nested := 0
	n := eachVersion(t, func(t *testing.T, api *schema.API, v int16, response bool) {
		b, err := ExampleFrame(api, v, response)
		require.NoError(t, err)
		o := Options{Response: response, APIKey: api.Key, Version: v}
		f, err := Decode(b, o)
		require.NoError(t, err)
		want, replaced := kafkaForm(t, f)
		nested += replaced
		ko := o
		ko.Kafka = true
		kf, err := Decode(b, ko)
		require.NoError(t, err)
		tree := kf.AppendJSON(nil)
		got, err := parseJSON(tree)
		require.NoError(t, err)
		require.Equal(t, want, got, "%s v%d response=%v", api.Name, v, response)
		fast, _, err := dec.AppendJSON(nil, b, ko)
		require.NoError(t, err)
		require.Equal(t, string(tree), string(fast))
		again, err := Encode(nil, fast, EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, hex.EncodeToString(b), hex.EncodeToString(again), "%s v%d response=%v", api.Name, v, response)
	})
	require.Greater(t, n, 700)
	require.Greater(t, nested, 30) // records, consumer-protocol metadata and assignments
}

// Kafka's form has no key of kwire's own inside the body: an unknown tag
// is left out (the warning names it), records, consumer-protocol bytes and
// the KRaft values inside records are base64.
func TestKafkaFormNoKwireKeys(t *testing.T) {
	// ApiVersions v3 request with an unknown tag 5 (1 byte, 0x2a) in the body.
	b := mustHex(t, "00000018 0012 0003 00000007 0005 6b77697265 00 02 61 02 31 01 05 01 2a")
	o := Options{}
	f, err := Decode(b, o)
	require.NoError(t, err)
	require.Contains(t, string(f.AppendJSON(nil)), `"_unknownTaggedFields":[{"tag":5,"data":"Kg=="}]`)
	kf, err := Decode(b, Options{Kafka: true})
	require.NoError(t, err)
	js := kf.AppendJSON(nil)
	require.Equal(t, `{"direction":"request","apiKey":18,"apiName":"ApiVersions","apiVersion":3,"header":{"requestApiKey":18,"requestApiVersion":3,"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"a","clientSoftwareVersion":"1"},"warnings":[{"offset":25,"path":"body._unknownTaggedFields","message":"unknown tag 5 at v3 (1 byte kept)"}]}`, string(js))
	bothPaths(t, b, Options{Kafka: true})

	// A Fetch response whose batch holds a KRaft control record: one
	// base64 string, the same bytes the field holds.
	api := schema.ByName("Fetch")
	for _, v := range []int16{4, 11, 16, api.Response.Valid.Hi} {
		fb, err := ExampleFrame(api, v, true)
		require.NoError(t, err)
		o := Options{Response: true, APIKey: api.Key, Version: v, Kafka: true}
		var dec Decoder
		out, _, err := dec.AppendJSON(nil, fb, o)
		require.NoError(t, err)
		body := strings.SplitN(string(out), `"body":`, 2)[1]
		require.NotRegexp(t, `"_[A-Za-z]+":`, body, "no key of kwire's own")
		require.NotContains(t, body, `"baseOffset"`)
		require.Contains(t, body, `"records":"`+exampleBatch+`"`)
	}
}

// Three vectors from kafka-python's own tests (dpkp/kafka-python,
// test/protocol/consumer/test_group.py and
// test/protocol/new/messages/test_new_group.py: test_join_group_request_
// roundtrip, test_join_group_response_roundtrip and test_sync_group_
// {request,response}_roundtrip), whose bytes fields hold plain text, not
// consumer-protocol data: JoinGroup's protocols[].metadata
// b"protocol-metadata", its members[].metadata b"member-metadata", and
// SyncGroup's assignment b"test-assignment". The frames below are built
// by hand from those values (field by field, from the schemas). Kafka's
// form shows the bytes as kafka-python holds them, base64, without trying
// to decode them; the default form tries them as consumer-protocol data,
// which they are not, so they stay bytes there too, with a warning where
// the group says it speaks the consumer protocol (protocolType). Each
// reads back to the same frame.
func TestKafkaFormKafkaPythonGroupVectors(t *testing.T) {
	str := func(s string) string {
		return hex.EncodeToString([]byte{0, byte(len(s))}) + hex.EncodeToString([]byte(s))
	}
	byts := func(s string) string {
		return hex.EncodeToString([]byte{0, 0, 0, byte(len(s))}) + hex.EncodeToString([]byte(s))
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	frame := func(body string) []byte {
		b := mustHex(t, body)
		return append(mustHex(t, hex.EncodeToString([]byte{0, 0, byte(len(b) >> 8), byte(len(b))})), b...)
	}
	for _, tc := range []struct {
		name string
		b    []byte
		o    Options
		body string // Kafka's form of the body
		warn bool   // the default form warns: not consumer-protocol data
	}{
		{
			"JoinGroup v1 request: protocols[0].metadata = b\"protocol-metadata\"",
			frame("000b 0001 00000001" + str("kafka-python") +
				str("test-group") + "00007530" + "0000ea60" + str("test-member") + str("consumer") +
				"00000001" + str("range") + byts("protocol-metadata")),
			Options{},
			`{"groupId":"test-group","sessionTimeoutMs":30000,"rebalanceTimeoutMs":60000,"memberId":"test-member","protocolType":"consumer","protocols":[{"name":"range","metadata":"` + b64("protocol-metadata") + `"}]}`,
			true,
		},
		{
			"JoinGroup v2 response: members[0].metadata = b\"member-metadata\"",
			frame("00000001" + "00000064" + "0000" + "00000001" + str("range") + str("test-member") + str("test-member") +
				"00000001" + str("test-member") + byts("member-metadata")),
			Options{Response: true, APIKey: 11, Version: 2},
			`{"throttleTimeMs":100,"errorCode":0,"generationId":1,"protocolName":"range","leader":"test-member","memberId":"test-member","members":[{"memberId":"test-member","metadata":"` + b64("member-metadata") + `"}]}`,
			false,
		},
		{
			"SyncGroup v1 request: assignments[0].assignment = b\"test-assignment\"",
			frame("000e 0001 00000002" + str("kafka-python") +
				str("test-group") + "00000001" + str("test-member") +
				"00000001" + str("test-member") + byts("test-assignment")),
			Options{},
			`{"groupId":"test-group","generationId":1,"memberId":"test-member","assignments":[{"memberId":"test-member","assignment":"` + b64("test-assignment") + `"}]}`,
			false,
		},
		{
			"SyncGroup v1 response: assignment = b\"test-assignment\"",
			frame("00000002" + "00000064" + "0000" + byts("test-assignment")),
			Options{Response: true, APIKey: 14, Version: 1},
			`{"throttleTimeMs":100,"errorCode":0,"assignment":"` + b64("test-assignment") + `"}`,
			false,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var dec Decoder
			ko := tc.o
			ko.Kafka = true
			js, info, err := dec.AppendJSON(nil, tc.b, ko)
			require.NoError(t, err)
			require.Empty(t, info.Warnings)
			v, err := parseJSON(js)
			require.NoError(t, err)
			got, err := jsonOf(v.(map[string]any)["body"])
			require.NoError(t, err)
			require.JSONEq(t, tc.body, got)
			bothPaths(t, tc.b, ko)
			again, err := Encode(nil, js, EncodeOptions{})
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(tc.b), hex.EncodeToString(again))

			// The default form: the same values, the bytes not being
			// consumer-protocol data.
			f, err := Decode(tc.b, tc.o)
			require.NoError(t, err)
			v, err = parseJSON(f.AppendJSON(nil))
			require.NoError(t, err)
			def, err := jsonOf(v.(map[string]any)["body"])
			require.NoError(t, err)
			require.JSONEq(t, tc.body, def)
			if tc.warn {
				require.Len(t, f.Warnings, 1)
				require.Contains(t, f.Warnings[0].Message, "not a valid ConsumerProtocolSubscription")
			} else {
				require.Empty(t, f.Warnings)
			}
		})
	}
}

// jsonOf writes a generic value back as JSON, for comparing a part of an
// envelope.
func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// A Fetch response whose batch holds a KRaft LeaderChange control record:
// the default form shows its value decoded, Kafka's form the records field
// as one base64 string of its bytes; both paths agree in every mode. (The
// tree-less path panicked here: the KRaft value, decoded as a small tree,
// still went to the JSON sink, which had no output.)
func TestKafkaFormKRaftValue(t *testing.T) {
	lc := schema.DataMessage("LeaderChangeMessage")
	lcv := lc.Valid.Hi
	leaderChange, err := encodeStruct(nil, lc.At(lcv).Root, lcv, lc.Flexible(lcv),
		map[string]any{"version": lcv, "leaderId": 3, "voters": []map[string]any{{"voterId": 3}}, "grantingVoters": []any{}}, "", EncodeOptions{})
	require.NoError(t, err)
	js := `{"direction":"response","apiName":"Fetch","apiVersion":16,"header":{"correlationId":3},"body":{
		"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","partitions":[{"partitionIndex":0,"errorCode":0,
		"highWatermark":11,"lastStableOffset":11,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":[
		{"baseOffset":10,"partitionLeaderEpoch":2,"magic":2,"attributes":{"compression":"none","timestampType":"CreateTime","transactional":false,"control":true},
		"lastOffsetDelta":0,"baseTimestamp":1700000000000,"maxTimestamp":1700000000000,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,
		"records":[{"attributes":0,"timestampDelta":0,"offsetDelta":0,"key":{"base64":"AAAAAg=="},"value":{"base64":"` + base64.StdEncoding.EncodeToString(leaderChange) + `"},"headers":[]}]}]}]}]}}`
	b, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	o := Options{Response: true, APIKey: 1, Version: 16}
	for _, m := range jsonModes {
		bothPaths(t, b, inMode(o, m))
	}
	f, err := Decode(b, o)
	require.NoError(t, err)
	require.Contains(t, string(f.AppendJSON(nil)), `"type":"LEADER_CHANGE"`)
	var dec Decoder
	ko := o
	ko.Kafka = true
	kafka, _, err := dec.AppendJSON(nil, b, ko)
	require.NoError(t, err)
	rec, err := f.Root.Lookup("body.responses[0].partitions[0].records")
	require.NoError(t, err)
	require.Contains(t, string(kafka), `"records":"`+base64.StdEncoding.EncodeToString(rec.Raw)+`"`)
	require.NotContains(t, string(kafka), "LEADER_CHANGE")
}
