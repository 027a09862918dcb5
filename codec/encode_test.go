package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// A tagged field a client sent holding its default is kept: the ApiVersions
// v3 response of issue 13 carries tag 1 (finalizedFeaturesEpoch) = -1.
func TestTaggedFieldPresentAtDefault(t *testing.T) {
	withTag := cleanHex(t, `0000001d 00000007   size 29, correlation 7 (response header v0)
		0000 02 0003 0000 000c 00   errorCode 0; apiKeys: one (Metadata 0-12), no tags
		00000000                    throttleTimeMs 0
		01 01 08 ffffffffffffffff   one tag: 1, 8 bytes, finalizedFeaturesEpoch -1`)
	f, err := Decode(withTag, Options{Response: true, APIKey: 18, Version: 3})
	require.NoError(t, err)
	tags := f.Body.Children[len(f.Body.Children)-1]
	require.Equal(t, tree.RoleTags, tags.Role)
	require.Len(t, tags.Children, 1)
	require.Equal(t, "FinalizedFeaturesEpoch", tags.Children[0].Name)
	env := valueOf(t, f)
	require.Equal(t, int64(-1), mustInt(t, env["body"].(map[string]any)["finalizedFeaturesEpoch"]))
	again, err := Encode(nil, env, EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(withTag), hex.EncodeToString(again), "the tag holding its default is written back")

	// Left out of the JSON, it stays out of the bytes.
	js := `{"direction":"response","apiKey":18,"apiVersion":3,"header":{"correlationId":7},
		"body":{"errorCode":0,"apiKeys":[{"apiKey":3,"minVersion":0,"maxVersion":12}],"throttleTimeMs":0}}`
	without, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, "00000013"+"00000007"+"0000020003"+"0000000c00"+"00000000"+"00", hex.EncodeToString(without))
	// Given, at its default, it is written.
	given, err := Encode(nil, []byte(strings.Replace(js, `"throttleTimeMs":0`, `"throttleTimeMs":0,"finalizedFeaturesEpoch":-1`, 1)), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, withTag, given)
}

func mustInt(t *testing.T, v any) int64 {
	t.Helper()
	i, ok := num(v)
	require.True(t, ok, "%#v is not an integer", v)
	return i
}

func num(v any) (int64, bool) {
	e := encoder{}
	i, err := e.intValue(v, "", -1<<63, 1<<63-1)
	return i, err == nil
}

// The envelope's "warnings" and "guess" (what the decoder adds about its
// reading) are accepted and ignored.
func TestEncodeIgnoresWarningsAndGuess(t *testing.T) {
	plain := `{"direction":"response","apiKey":18,"apiVersion":0,"header":{"correlationId":7},"body":{"errorCode":0,"apiKeys":[]}}`
	want, err := Encode(nil, []byte(plain), EncodeOptions{})
	require.NoError(t, err)
	annotated := strings.TrimSuffix(plain, "}") + `,"guess":{"confidence":0.93,"candidates":12,"runnersUp":[]},"warnings":[{"offset":4,"path":"body","message":"x","limit":true}]}`
	got, err := Encode(nil, []byte(annotated), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, want, got)
	_, err = Encode(nil, []byte(strings.Replace(plain, `"body"`, `"bdy"`, 1)), EncodeOptions{})
	require.ErrorContains(t, err, "bdy: unknown field; valid here: direction, apiKey, apiName, apiVersion, header, body, warnings, guess")
}

// A broker's Go code hands the encoder Go values: every integer width,
// typed slices, []map[string]any, []byte, *string, nil. The bytes equal
// those of the same response given as JSON.
func TestEncodeNativeGoValues(t *testing.T) {
	rack := "eu-1"
	native := map[string]any{
		"direction": "response", "apiKey": int16(3), "apiVersion": 12,
		"header": map[string]any{"correlationId": int32(9)},
		"body": map[string]any{
			"throttleTimeMs": uint8(0),
			"brokers":        []map[string]any{{"nodeId": int32(1), "host": "localhost", "port": uint16(9092), "rack": &rack}},
			"clusterId":      nil,
			"controllerId":   int64(1),
			"topics": []map[string]any{{
				"errorCode": schema.CodeNone, "name": "orders", "topicId": [16]byte{1, 2, 3},
				"isInternal": false,
				"partitions": []map[string]any{{
					"errorCode": int16(schema.CodeNone), "partitionIndex": 0, "leaderId": int32(1), "leaderEpoch": uint32(7),
					"replicaNodes": []int32{1, 2, 3}, "isrNodes": []int{1, 2}, "offlineReplicas": []int64(nil),
				}},
				"topicAuthorizedOperations": float64(-2147483648),
			}},
		},
	}
	got, err := Encode(nil, native, EncodeOptions{})
	require.NoError(t, err)
	js := `{"direction":"response","apiKey":3,"apiVersion":12,"header":{"correlationId":9},"body":{"throttleTimeMs":0,
		"brokers":[{"nodeId":1,"host":"localhost","port":9092,"rack":"eu-1"}],"clusterId":null,"controllerId":1,
		"topics":[{"errorCode":0,"name":"orders","topicId":"` + base64.RawURLEncoding.EncodeToString([]byte{1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}) + `","isInternal":false,
		"partitions":[{"errorCode":0,"partitionIndex":0,"leaderId":1,"leaderEpoch":7,"replicaNodes":[1,2,3],"isrNodes":[1,2],"offlineReplicas":[]}],
		"topicAuthorizedOperations":-2147483648}]}}`
	want, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))

	// Bytes and records fields take []byte as their raw bytes.
	batch, err := base64.StdEncoding.DecodeString(exampleBatch)
	require.NoError(t, err)
	produce := map[string]any{"apiKey": schema.KeyProduce, "apiVersion": int8(9), "header": map[string]any{"correlationId": 1, "clientId": "c"},
		"body": map[string]any{"acks": -1, "timeoutMs": 1000, "topicData": []map[string]any{{"name": "t", "partitionData": []map[string]any{{"index": 0, "records": batch}}}}}}
	b, err := Encode(nil, produce, EncodeOptions{})
	require.NoError(t, err)
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	noWarnings(t, f.Root)

	// What the encoder cannot use is named with its path and Go type.
	for _, tc := range []struct {
		path string
		val  any
		want string
	}{
		{"body.throttleTimeMs", complex(1, 2), "body.throttleTimeMs: expected an integer, found a value of Go type complex128"},
		{"body.throttleTimeMs", uint64(1 << 63), "body.throttleTimeMs: expected an integer in -2147483648..2147483647, found 9223372036854775808 (Go uint64)"},
		{"body.throttleTimeMs", int64(1 << 40), "body.throttleTimeMs: expected an integer in -2147483648..2147483647, found 1099511627776 (Go int64)"},
		{"body.throttleTimeMs", 1.5, "body.throttleTimeMs: expected an integer, found 1.5"},
		{"body.throttleTimeMs", json.Number("9223372036854775808"), "body.throttleTimeMs: expected an integer in -2147483648..2147483647, found 9223372036854775808"},
		{"body.brokers", []uint8{1}, "body.brokers: expected an array, found bytes (Go []byte)"},
		{"body.brokers", map[string]int{}, "body.brokers: expected an array, found a value of Go type map[string]int"},
		{"body.clusterId", 7, "body.clusterId: expected a string, found a number (Go int)"},
		{"body.topics", []map[string]string{{}}, "body.topics: expected an array, found a value of Go type []map[string]string"},
		{"body.topics[0].partitions[0].replicaNodes", []int32{1 << 30, -1}, ""},
		{"body.topics[0].partitions[0].replicaNodes", []uint64{1 << 40}, "body.topics[0].partitions[0].replicaNodes[0]: expected an integer in -2147483648..2147483647, found 1099511627776 (Go uint64)"},
		{"body.topics[0].isInternal", 1, "body.topics[0].isInternal: expected a bool, found a number (Go int)"},
		{"body.topics[0].topicId", []byte{1}, "body.topics[0].topicId: expected a UUID in Kafka's base64url form, found bytes (Go []byte)"},
	} {
		env := cloneValue(native).(map[string]any)
		setPath(t, env, tc.path, tc.val)
		_, err := Encode(nil, env, EncodeOptions{})
		if tc.want == "" {
			require.NoError(t, err, tc.path)
			continue
		}
		require.EqualError(t, err, tc.want)
		var ee *EncodeError
		require.True(t, errors.As(err, &ee))
	}
}

// cloneValue deep-copies maps and []map[string]any, []any.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, e := range x {
			c[k] = cloneValue(e)
		}
		return c
	case []map[string]any:
		c := make([]map[string]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e).(map[string]any)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = cloneValue(e)
		}
		return c
	}
	return v
}

// setPath sets the value at a path such as "body.topics[0].name" in a
// generic value.
func setPath(t *testing.T, root map[string]any, path string, val any) {
	t.Helper()
	var cur any = root
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		name, idx := seg, -1
		if j := strings.IndexByte(seg, '['); j >= 0 {
			name = seg[:j]
			n, err := strconv.Atoi(strings.TrimSuffix(seg[j+1:], "]"))
			require.NoError(t, err)
			idx = n
		}
		obj, ok := cur.(map[string]any)
		require.True(t, ok, "%s: %T", seg, cur)
		last := i == len(segs)-1
		if idx < 0 {
			if last {
				obj[name] = val
				return
			}
			cur = obj[name]
			continue
		}
		switch arr := obj[name].(type) {
		case []any:
			if last {
				arr[idx] = val
				return
			}
			cur = arr[idx]
		case []map[string]any:
			require.False(t, last)
			cur = arr[idx]
		default:
			t.Fatalf("%s: %T", seg, obj[name])
		}
	}
}

// kafkaForm turns f's value JSON into Kafka's own form: every records field
// and every bytes field shown decoded (consumer-protocol metadata and
// assignments) becomes base64 of its bytes.
func kafkaForm(t *testing.T, f *Frame) (map[string]any, int) {
	env := valueOf(t, f)
	n := 0
	var walk func(x *tree.Node, path string)
	walk = func(x *tree.Node, path string) {
		for _, c := range x.Children {
			p := path
			switch {
			case c.Role == tree.RoleElement:
				p += "[" + strconv.Itoa(c.Index) + "]"
			case c.Field != nil:
				p += "." + c.Field.JSON
			case c.Role == tree.RoleTags:
			default:
				continue
			}
			if c.Field != nil && c.Role != tree.RoleElement && (c.Kind == schema.Records || c.Kind == schema.Bytes) && !c.Null && len(c.Children) > 0 {
				setPath(t, env, p, base64.StdEncoding.EncodeToString(f.Buffers[c.Buf][c.PrefixEnd:c.End]))
				n++
				continue
			}
			walk(c, p)
		}
	}
	walk(f.Body, "body")
	return env, n
}

// The encoder reads Kafka's own form (bytes fields as base64) as well as
// the decoded, nested form: both give the same frame.
func TestEncodeKafkaForm(t *testing.T) {
	lc := schema.DataMessage("LeaderChangeMessage")
	lcv := lc.Valid.Hi
	leaderChange, err := encodeStruct(nil, lc.At(lcv).Root, lcv, lc.Flexible(lcv),
		map[string]any{"version": lcv, "leaderId": 3, "voters": []map[string]any{{"voterId": 3}}, "grantingVoters": []any{}}, "", EncodeOptions{})
	require.NoError(t, err)
	controlBatch := `{"baseOffset":10,"partitionLeaderEpoch":2,"magic":2,"attributes":{"compression":"none","timestampType":"CreateTime","transactional":false,"control":true},
		"lastOffsetDelta":0,"baseTimestamp":1700000000000,"maxTimestamp":1700000000000,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,
		"records":[{"attributes":0,"timestampDelta":0,"offsetDelta":0,"key":{"base64":"AAAAAg=="},"value":{"base64":"` + base64.StdEncoding.EncodeToString(leaderChange) + `"},"headers":[]}]}`
	for _, tc := range []struct {
		name     string
		js       string
		opts     Options
		replaced int
	}{
		{"JoinGroup request, consumer-protocol subscription", `{"apiName":"JoinGroup","apiVersion":9,"header":{"correlationId":3,"clientId":"c"},"body":{
			"groupId":"billing","sessionTimeoutMs":45000,"rebalanceTimeoutMs":60000,"memberId":"","groupInstanceId":null,
			"protocolType":"consumer","protocols":[{"name":"range","metadata":{"version":1,"topics":["orders"],"userData":null,"ownedPartitions":[]}}],"reason":null}}`,
			Options{}, 1},
		{"SyncGroup request and response, consumer-protocol assignments", `{"apiName":"SyncGroup","apiVersion":5,"header":{"correlationId":3,"clientId":"c"},"body":{
			"groupId":"g","generationId":1,"memberId":"m","groupInstanceId":null,"protocolType":"consumer","protocolName":"range",
			"assignments":[{"memberId":"m","assignment":{"version":0,"assignedPartitions":[{"topic":"orders","partitions":[0,1]}],"userData":null}}]}}`,
			Options{}, 1},
		{"Fetch response, a record batch holding a KRaft LeaderChange control record", `{"direction":"response","apiName":"Fetch","apiVersion":16,"header":{"correlationId":3},"body":{
			"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","partitions":[{"partitionIndex":0,"errorCode":0,
			"highWatermark":11,"lastStableOffset":11,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":[` + controlBatch + `]}]}]}}`,
			Options{Response: true, APIKey: 1, Version: 16}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nested, err := Encode(nil, []byte(tc.js), EncodeOptions{})
			require.NoError(t, err)
			f, err := Decode(nested, tc.opts)
			require.NoError(t, err)
			noWarnings(t, f.Root)
			kafka, n := kafkaForm(t, f)
			require.Equal(t, tc.replaced, n)
			got, err := Encode(nil, kafka, EncodeOptions{})
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(nested), hex.EncodeToString(got))
		})
	}
}

// Decoding errors keep their cause: a header cut short is wire.ErrShort,
// through the *wire.Error that found it, and names the field.
func TestDecodeErrorCause(t *testing.T) {
	for _, tc := range []struct {
		hex, path string
	}{
		{"0000000a 00", "header.requestApiKey"},
		{"0000000a 0012 00", "header.requestApiVersion"},
		{"0000000a 0012 0000 0000", "header.correlationId"},
		{"0000000a 0012 0000 00000001 0004 6b", "header.clientId"},
		{"0000000a 0012 0003 00000001 ffff", "header._tagged"},
		{"0000", "size"},
	} {
		_, err := ParseRequestHeader(mustHex(t, tc.hex), Options{})
		require.ErrorIs(t, err, wire.ErrShort, tc.hex)
		var de *DecodeError
		require.True(t, errors.As(err, &de))
		require.Equal(t, tc.path, de.Path, tc.hex)
		var we *wire.Error
		require.True(t, errors.As(err, &we), "the *wire.Error is in the chain")
		require.Equal(t, de.Offset, we.Offset)
	}
	// Wrong but present bytes have no cause.
	_, err := ParseRequestHeader(mustHex(t, "0000000a 0012 0000 00000001 fffe"), Options{})
	var de *DecodeError
	require.True(t, errors.As(err, &de))
	require.Nil(t, errors.Unwrap(err))
	require.Equal(t, "header.clientId", de.Path)
	require.NotErrorIs(t, err, wire.ErrShort)

	require.ErrorIs(t, newDecodeError(3, 0, "body", "x", "y", wire.ErrShort), wire.ErrShort)
}

// ParseRequestHeader takes the size prefix's polarity of Options and
// EncodeOptions: noSizePrefix false reads past the prefix, true starts at
// the header.
func TestParseRequestHeaderNoSizePrefix(t *testing.T) {
	frame := mustHex(t, "0000000e 0012 0000 00000007 0004 6b636174")
	with, err := ParseRequestHeader(frame, Options{})
	require.NoError(t, err)
	without, err := ParseRequestHeader(frame[4:], Options{NoSizePrefix: true})
	require.NoError(t, err)
	require.Equal(t, with, without)
	require.Equal(t, int16(18), with.APIKey)
	require.Equal(t, int32(7), with.CorrelationID)
	require.Equal(t, "kcat", *with.ClientID)
	// Read the wrong way, the prefix is taken for the key and version.
	wrong, err := ParseRequestHeader(frame, Options{NoSizePrefix: true})
	require.NoError(t, err)
	require.Equal(t, int16(0), wrong.APIKey)
	require.Equal(t, int16(14), wrong.Version)
}

// There is one EncodeError type: the records package's errors are codec's,
// with the records field's path in front.
func TestOneEncodeError(t *testing.T) {
	_, err := rec.Encode(nil, []any{map[string]any{"magic": 2, "baseOffset": "x"}})
	var ce *EncodeError
	require.True(t, errors.As(err, &ce))
	require.Equal(t, "[0].baseOffset", ce.Path)
	var re *EncodeError = ce // the same type
	require.Contains(t, re.Msg, "expected an integer")

	js := `{"apiName":"Produce","apiVersion":9,"header":{"correlationId":1,"clientId":"c"},"body":{"acks":1,"timeoutMs":1,
		"topicData":[{"name":"t","partitionData":[{"index":0,"records":[{"magic":2,"baseTimestamp":0,"records":[{"value":{"base64":"!"}}]}]}]}]}}`
	_, err = Encode(nil, []byte(js), EncodeOptions{})
	require.True(t, errors.As(err, &ce))
	require.Equal(t, "body.topicData[0].partitionData[0].records[0].records[0].value.base64", ce.Path)
	_, err = Encode(nil, []byte(`{"apiName":"ApiVersions","apiVersion":3,"body":{"clientSoftwareName":`), EncodeOptions{})
	require.True(t, errors.As(err, &ce))
	require.Contains(t, ce.Msg, "invalid JSON at byte")
}

// An integer quoted as a string is taken for an int64 field only (JSON
// that keeps int64 exact); elsewhere it is an error naming the field, as
// a Go string "9092" for a port is, where it once encoded silently.
func TestEncodeQuotedIntegerOnlyForInt64(t *testing.T) {
	o := EncodeOptions{Body: true, Response: true, APIKey: schema.KeyMetadata, Version: 12}
	broker := func(port any) map[string]any {
		return map[string]any{"brokers": []map[string]any{{"nodeId": 1, "host": "b1", "port": port}}, "topics": []any{}}
	}
	want, err := Encode(nil, broker(9092), o)
	require.NoError(t, err)
	_, err = Encode(nil, broker("9092"), o)
	var ee *EncodeError
	require.True(t, errors.As(err, &ee), "%v", err)
	require.Equal(t, "body.brokers[0].port", ee.Path)
	_, err = Encode(nil, broker(json.Number("9092")), o)
	require.NoError(t, err, "a JSON number is a number")
	got, err := Encode(nil, []byte(`{"brokers":[{"nodeId":1,"host":"b1","port":9092}],"topics":[]}`), o)
	require.NoError(t, err)
	require.Equal(t, want, got)
	_, err = Encode(nil, []byte(`{"brokers":[{"nodeId":1,"host":"b1","port":"9092"}],"topics":[]}`), o)
	require.Error(t, err, "JSON text quoting an int32")

	// An int64 field takes its value quoted.
	fo := EncodeOptions{Body: true, APIKey: schema.KeyListOffsets, Version: 1}
	list := func(ts any) map[string]any {
		return map[string]any{"replicaId": -1, "topics": []map[string]any{{"name": "t", "partitions": []map[string]any{{"partitionIndex": 0, "timestamp": ts}}}}}
	}
	want, err = Encode(nil, list(int64(9007199254740993)), fo)
	require.NoError(t, err)
	got, err = Encode(nil, list("9007199254740993"), fo)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// TestNaNIsJavas: "NaN" is encoded as Java's Double.NaN, so that NaN
// decodes clean and comes back byte for byte; a NaN of other bits (Go's
// math.NaN(), x86's default NaN) decodes with a warning naming its bits,
// on both paths, and is written back as Java's.
func TestNaNIsJavas(t *testing.T) {
	api := schema.ByKey(schema.KeyDescribeClientQuotas)
	ex, err := ExampleFrame(api, 1, true)
	require.NoError(t, err)
	one := hex.EncodeToString(wire.AppendFloat64(nil, 1048576))
	require.Equal(t, 1, strings.Count(hex.EncodeToString(ex), one), "the example carries one float64")
	o := Options{Response: true, APIKey: api.Key, Version: 1}
	with := func(bits string) []byte {
		b, err := hex.DecodeString(strings.Replace(hex.EncodeToString(ex), one, bits, 1))
		require.NoError(t, err)
		return b
	}
	java := with("7ff8000000000000")
	f, err := Decode(java, o)
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
	js := f.AppendJSON(nil)
	require.Contains(t, string(js), `"value":"NaN"`)
	again, err := Encode(nil, js, EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(java), hex.EncodeToString(again))
	bothPaths(t, java, o)

	at := strings.Index(hex.EncodeToString(java), "7ff8000000000000") / 2
	for _, bits := range []string{"7ff8000000000001", "fff8000000000000", "7ff0000000000001"} {
		b := with(bits)
		f, err := Decode(b, o)
		require.NoError(t, err)
		require.Len(t, f.Warnings, 1, bits)
		w := f.Warnings[0]
		require.Equal(t, at, w.Offset, bits)
		require.Equal(t, "body.entries[0].values[0].value", w.Path)
		require.Equal(t, "NaN with bits 0x"+bits+", not Java's Double.NaN 0x7ff8000000000000, which encoding writes", w.Message)
		bothPaths(t, b, o)
		again, err := Encode(nil, f.AppendJSON(nil), EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, hex.EncodeToString(java), hex.EncodeToString(again), bits)
	}

	// A NaN built in Go is written as Java's too.
	body := map[string]any{"entries": []any{map[string]any{
		"entity": []any{map[string]any{"entityType": "user", "entityName": "alice"}},
		"values": []any{map[string]any{"key": "producer_byte_rate", "value": math.NaN()}},
	}}}
	b, err := Encode(nil, body, EncodeOptions{Body: true, Response: true, APIKey: api.Key, Version: 1})
	require.NoError(t, err)
	require.Contains(t, hex.EncodeToString(b), "7ff8000000000000")
}

// TestUnknownTaggedFieldsAreUnknown: _unknownTaggedFields takes tags no
// field has, each once: a known field's tag there would be read back as
// that field (Fetch v17's tag 0 is clusterId), and a tag twice makes a
// section no encoder writes; both are refused at the element's tag.
func TestUnknownTaggedFieldsAreUnknown(t *testing.T) {
	api := schema.ByKey(schema.KeyFetch)
	env := Example(api, 17, false)
	js, err := json.Marshal(env)
	require.NoError(t, err)
	with := func(unknown string) ([]byte, error) {
		s := strings.Replace(string(js), `"body":{`, `"body":{"_unknownTaggedFields":`+unknown+`,`, 1)
		require.NotEqual(t, string(js), s)
		return Encode(nil, s, EncodeOptions{})
	}
	refused := func(unknown, path, msg string) {
		t.Helper()
		_, err := with(unknown)
		var ee *EncodeError
		require.ErrorAs(t, err, &ee, unknown)
		require.Equal(t, path, ee.Path, unknown)
		require.Equal(t, msg, ee.Msg, unknown)
	}
	refused(`[{"tag":0,"data":"AAM="}]`, "body._unknownTaggedFields[0].tag",
		"expected a tag no field has at v17, found 0, the tag of clusterId (give it by that name)")
	refused(`[{"tag":7,"data":""},{"tag":1,"data":""}]`, "body._unknownTaggedFields[1].tag",
		"expected a tag no field has at v17, found 1, the tag of replicaState (give it by that name)")
	refused(`[{"tag":9,"data":"AA=="},{"tag":9,"data":"AQ=="}]`, "body._unknownTaggedFields[1].tag",
		"expected a tag given once, found 9 again (given by _unknownTaggedFields[0] too)")
	refused(`[{"tag":9,"data":""},{"tag":10,"data":""},{"tag":10,"data":""},{"tag":9,"data":""}]`, "body._unknownTaggedFields[2].tag",
		"expected a tag given once, found 10 again (given by _unknownTaggedFields[1] too)")

	// Tags no field has, each once, are written in order, and read back
	// as unknown tags.
	b, err := with(`[{"tag":10,"data":"AQ=="},{"tag":9,"data":"AA=="}]`)
	require.NoError(t, err)
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	var got []string
	for _, w := range f.Warnings {
		got = append(got, w.Path+": "+w.Message)
	}
	require.Equal(t, []string{
		"body._unknownTaggedFields: unknown tag 9 at v17 (1 byte kept)",
		"body._unknownTaggedFields: unknown tag 10 at v17 (1 byte kept)",
	}, got)
	// A tag is known by the version: replicaState (tag 1) came at v15.
	js, err = json.Marshal(Example(api, 14, false))
	require.NoError(t, err)
	_, err = with(`[{"tag":1,"data":""}]`)
	require.NoError(t, err)
	refused(`[{"tag":0,"data":""}]`, "body._unknownTaggedFields[0].tag",
		"expected a tag no field has at v14, found 0, the tag of clusterId (give it by that name)")
}

// TestNullWhereNotNullable: a null is refused, with its path, wherever
// the field is not nullable at the version (strings, bytes, arrays and
// their elements), as a null struct always was and as Kafka's writers
// throw, instead of being written for the decoder to warn about. Where
// the field is nullable, it is written.
func TestNullWhereNotNullable(t *testing.T) {
	js, err := json.Marshal(Example(schema.ByKey(schema.KeyMetadata), 12, true))
	require.NoError(t, err)
	var nilString *string
	for _, c := range []struct {
		api     int16
		version int16
		body    map[string]any // nil: the Metadata v12 response example with null at path
		path    string
		refused bool
	}{
		{schema.KeyMetadata, 12, nil, "body.brokers[0].host", true},
		{schema.KeyMetadata, 12, nil, "body.topics[0].partitions[0].replicaNodes", true},
		{schema.KeyMetadata, 12, nil, "body.brokers[0].rack", false},
		{schema.KeyMetadata, 12, nil, "body.topics[0].name", false}, // nullable from v12
		{schema.KeyMetadata, 0, map[string]any{"topics": nil}, "body.topics", true},
		{schema.KeyMetadata, 1, map[string]any{"topics": nil}, "body.topics", false},
		{schema.KeySaslAuthenticate, 2, map[string]any{"authBytes": nil}, "body.authBytes", true},
		{schema.KeySaslAuthenticate, 2, map[string]any{"authBytes": []byte(nil)}, "", false}, // a nil Go slice is empty
		{schema.KeyDescribeGroups, 5, map[string]any{"groups": nil}, "body.groups", true},
		{schema.KeyDescribeGroups, 5, map[string]any{"groups": []any{"a", nil}}, "body.groups[1]", true},
		{schema.KeyDescribeGroups, 5, map[string]any{"groups": []any{nilString}}, "body.groups[0]", true},
		{schema.KeyDescribeGroups, 5, map[string]any{"groups": []string(nil)}, "", false},
		// A nullable array's elements are not nullable: Kafka's readers
		// throw "element was serialized as null" (kmsg cannot read it).
		{schema.KeyConsumerGroupHeartbeat, 0, map[string]any{"subscribedTopicNames": []any{nil, "orders"}}, "body.subscribedTopicNames[0]", true},
		{schema.KeyConsumerGroupHeartbeat, 0, map[string]any{"subscribedTopicNames": nil}, "", false},
		{schema.KeyDescribeConfigs, 4, map[string]any{"resources": []any{map[string]any{"resourceType": 2, "resourceName": "t", "configurationKeys": []any{"a", nil}}}}, "body.resources[0].configurationKeys[1]", true},
	} {
		var err error
		if c.body == nil {
			var env map[string]any
			require.NoError(t, json.Unmarshal(js, &env))
			setPath(t, env, c.path, nil)
			_, err = Encode(nil, env, EncodeOptions{})
		} else {
			_, err = Encode(nil, c.body, EncodeOptions{Body: true, APIKey: c.api, Version: c.version})
		}
		if !c.refused {
			require.NoError(t, err, c.path)
			continue
		}
		var ee *EncodeError
		require.ErrorAs(t, err, &ee, c.path)
		require.Equal(t, c.path, ee.Path)
		require.Equal(t, "null is not allowed here at v"+strconv.Itoa(int(c.version)), ee.Msg)
	}
}

// A string longer than 32767 bytes is refused compact or not, as Kafka's
// generated code refuses it on write; decoded, a compact one is warned
// on, as Kafka's reader refuses it.
func TestLongCompactString(t *testing.T) {
	body := func(name string) map[string]any {
		return map[string]any{"topics": []any{map[string]any{"topicId": [16]byte{}, "name": name}},
			"allowAutoTopicCreation": true, "includeTopicAuthorizedOperations": false}
	}
	long := strings.Repeat("t", 40000)
	for _, v := range []int16{8, 12} {
		_, err := Encode(nil, map[string]any{"apiKey": 3, "apiVersion": v, "header": map[string]any{"correlationId": 1}, "body": body(long)}, EncodeOptions{Lenient: true})
		require.EqualError(t, err, "body.topics[0].name: string of 40000 bytes is longer than 32767", "v%d", v)
	}
	short, err := Encode(nil, map[string]any{"apiKey": 3, "apiVersion": 12, "header": map[string]any{"correlationId": 1}, "body": body("ab")}, EncodeOptions{})
	require.NoError(t, err)
	i := bytes.Index(short, []byte("\x03ab"))
	require.Positive(t, i)
	b := append(append(append([]byte(nil), short[:i]...), binary.AppendUvarint(nil, 40001)...), long...)
	b = append(b, short[i+3:]...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	require.Len(t, f.Warnings, 1)
	require.Equal(t, "body.topics[0].name", f.Warnings[0].Path)
	require.Equal(t, "string of 40000 bytes is longer than 32767, which Kafka's reader refuses", f.Warnings[0].Message)
}

// A consumer-protocol object without its version is said to miss it,
// not to hold a null.
func TestConsumerProtocolVersionMissing(t *testing.T) {
	_, err := Encode(nil, map[string]any{"apiKey": 11, "apiVersion": 9, "header": map[string]any{"correlationId": 1},
		"body": map[string]any{"groupId": "g", "sessionTimeoutMs": 1, "rebalanceTimeoutMs": 1, "memberId": "", "protocolType": "consumer",
			"protocols": []any{map[string]any{"name": "range", "metadata": map[string]any{"topics": []any{"orders"}}}}}}, EncodeOptions{})
	require.ErrorContains(t, err, "body.protocols[0].metadata.version: missing: the ")
}

// Unpadded base64 in a bytes field is taken, as Kafka's Java decoder
// takes it.
func TestUnpaddedBase64(t *testing.T) {
	b, err := Encode(nil, map[string]any{"authBytes": "AQ"}, EncodeOptions{Body: true, APIKey: schema.KeySaslAuthenticate, Version: 1})
	require.NoError(t, err)
	require.Equal(t, []byte{0, 0, 0, 1, 1}, b)
}
