package codec

import (
	"encoding/hex"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// metadataResponse is a Metadata v12 response with error codes at three
// depths: the second topic unknown (3), a partition whose leader moved (6).
func metadataResponse(t *testing.T) *Frame {
	t.Helper()
	body := map[string]any{
		"throttleTimeMs": 0,
		"brokers":        []map[string]any{{"nodeId": 1, "host": "b1", "port": 9092, "rack": nil}},
		"clusterId":      "c", "controllerId": 1,
		"topics": []map[string]any{
			{"errorCode": schema.CodeNone, "name": "orders", "isInternal": false, "topicAuthorizedOperations": -2147483648,
				"partitions": []map[string]any{
					{"errorCode": schema.CodeNone, "partitionIndex": 0, "leaderId": 1, "leaderEpoch": 4, "replicaNodes": []int32{1}, "isrNodes": []int32{1}, "offlineReplicas": []int32{}},
					{"errorCode": schema.CodeNotLeaderOrFollower, "partitionIndex": 1, "leaderId": -1, "leaderEpoch": 4, "replicaNodes": []int32{1}, "isrNodes": []int32{}, "offlineReplicas": []int32{}},
				}},
			{"errorCode": schema.CodeUnknownTopicOrPartition, "name": "nope", "isInternal": false, "partitions": []map[string]any{}, "topicAuthorizedOperations": -2147483648},
		},
	}
	b, err := EncodeResponse(nil, RequestHeader{APIKey: schema.KeyMetadata, Version: 12, CorrelationID: 5}, 12, body, EncodeOptions{})
	require.NoError(t, err)
	f, err := Decode(b, Options{Response: true, APIKey: schema.KeyMetadata, Version: 12})
	require.NoError(t, err)
	noWarnings(t, f.Root)
	return f
}

func TestErrorCodes(t *testing.T) {
	f := metadataResponse(t)
	var got []string
	for _, e := range f.ErrorCodes() {
		got = append(got, e.Path+" "+itoa(int(e.Code))+" "+e.Name)
		require.Same(t, at(t, f.Root, e.Path), e.Node)
	}
	require.Equal(t, []string{
		"body.topics[0].errorCode 0 NONE",
		"body.topics[0].partitions[0].errorCode 0 NONE",
		"body.topics[0].partitions[1].errorCode 6 NOT_LEADER_OR_FOLLOWER",
		"body.topics[1].errorCode 3 UNKNOWN_TOPIC_OR_PARTITION",
	}, got)

	// Fields named ...ErrorCode count, in tagged sections too, and a code
	// Kafka does not define has no name.
	js := `{"direction":"response","apiName":"ShareAcknowledge","apiVersion":1,"header":{"correlationId":1},"body":{"throttleTimeMs":0,"errorCode":-77,"errorMessage":null,
		"responses":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","partitions":[{"partitionIndex":0,"errorCode":0,"errorMessage":null,"currentLeader":{"leaderId":1,"leaderEpoch":1}}]}],"nodeEndpoints":[]}}`
	b, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	f, err = Decode(b, Options{Response: true, APIKey: schema.KeyShareAcknowledge, Version: 1})
	require.NoError(t, err)
	codes := f.ErrorCodes()
	require.Len(t, codes, 2)
	require.Equal(t, ErrorCode{Path: "body.errorCode", Code: -77, Name: "", Node: codes[0].Node}, codes[0])

	// A request that carries none.
	b, err = ExampleFrame(schema.ByKey(schema.KeyApiVersions), 3, false)
	require.NoError(t, err)
	f, err = Decode(b, Options{})
	require.NoError(t, err)
	require.Empty(t, f.ErrorCodes())
}

func TestLookup(t *testing.T) {
	f := metadataResponse(t)
	p := at(t, f.Root, "body.topics[0].partitions[1]")
	require.NotNil(t, p)
	require.Equal(t, tree.RoleElement, p.Role)
	_, err := f.Root.Lookup("body.Topics[0].Partitions[1]")
	require.EqualError(t, err, `tree: path "body.Topics[0].Partitions[1]": no "Topics" (there: throttleTimeMs, brokers, clusterId, controllerId, topics) after body`, "JSON names only")
	require.Equal(t, int64(1), at(t, p, "partitionIndex").Int)
	require.NotNil(t, p.Get("leaderId"))
	require.Equal(t, int64(-1), p.Get("leaderId").Int)
	require.Nil(t, p.Get("LeaderId"), "Get takes JSON names only")
	require.Equal(t, int64(5), at(t, f.Root, "header.correlationId").Int)
	require.Equal(t, "b1", string(at(t, f.Root, "body.brokers[0].host").Raw))
	topics := at(t, f.Root, "body.topics")
	require.Same(t, topics.Children[1], at(t, topics, "[1]"))
	for _, bad := range []string{"", "body.topics[2]", "body.nope", "body..topics", "body.topics[", "body.topics[x]", "body.topics[0", "body.", "body.topics[-1]"} {
		n, err := f.Root.Lookup(bad)
		require.Nil(t, n, bad)
		require.Error(t, err, bad)
	}
	_, err = f.Root.Lookup("body.topics[2]")
	require.EqualError(t, err, `tree: path "body.topics[2]": no item 2 (2 there) after body.topics`, "the error names the failing step")
	// A name after a list says to index it; a nil node (Get's answer for
	// a name not there) is an error, not a panic, so calls chain.
	_, err = f.Root.Lookup("body.topics.name")
	require.EqualError(t, err, `tree: path "body.topics.name": no "name" (a list: index it, as [0]) after body.topics`)
	n, err := f.Root.Get("nope").Lookup("x")
	require.Nil(t, n)
	require.EqualError(t, err, `tree: path "x": no node to start from (nil)`)

	// A tagged field.
	b := cleanHex(t, `0000001d 00000007 0000 02 0003 0000 000c 00 00000000 01 01 08 ffffffffffffffff`)
	f, err = Decode(b, Options{Response: true, APIKey: 18, Version: 3})
	require.NoError(t, err)
	n = at(t, f.Root, "body.finalizedFeaturesEpoch")
	require.NotNil(t, n)
	require.Equal(t, int64(-1), n.Int)
	n, err = f.Root.Lookup("body.zkMigrationReady")
	require.Nil(t, n, "absent tagged fields have no node")
	require.Error(t, err)

	// Into records: a compressed batch, and a message-set wrapper.
	js := `{"apiName":"Produce","apiVersion":9,"header":{"correlationId":1,"clientId":"c"},"body":{"acks":1,"timeoutMs":1,
		"topicData":[{"name":"t","partitionData":[{"index":0,"records":[{"baseOffset":0,"partitionLeaderEpoch":0,"magic":2,"attributes":{"compression":"gzip"},
		"lastOffsetDelta":2,"baseTimestamp":0,"maxTimestamp":0,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,
		"records":[{"value":{"text":"a"}},{"value":{"text":"b"},"headers":[{"key":"h","value":{"text":"x"}}]},{"value":{"text":"c"}}]}]}]}]}}`
	b, err = Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	f, err = Decode(b, Options{})
	require.NoError(t, err)
	require.Equal(t, "b", string(at(t, f.Root, "body.topicData[0].partitionData[0].records[0].records[1].value").Raw))
	require.Equal(t, "x", string(at(t, f.Root, "body.topicData[0].partitionData[0].records[0].records[1].headers[0].value").Raw))
	require.Equal(t, int64(2), at(t, f.Root, "body.topicData[0].partitionData[0].records[0].magic").Int)
	n, err = f.Root.Lookup("body.topicData[0].partitionData[0].records[0].records[3]")
	require.Nil(t, n)
	require.Error(t, err)

	inner := `{"offset":0,"magic":1,"attributes":{"compression":"none"},"timestamp":5,"key":null,"value":{"text":"v`
	wrapper := `{"offset":1,"magic":1,"attributes":{"compression":"snappy"},"timestamp":5,"key":null,"messages":[` + inner + `0"}},` + inner + `1"}}]}`
	b, err = Encode(nil, []byte(`{"apiName":"Produce","apiVersion":2,"header":{"correlationId":1,"clientId":"c"},"body":{"acks":1,"timeoutMs":1,
		"topicData":[{"name":"t","partitionData":[{"index":0,"records":[`+wrapper+`]}]}]}}`), EncodeOptions{})
	require.NoError(t, err)
	f, err = Decode(b, Options{})
	require.NoError(t, err)
	require.Equal(t, "v1", string(at(t, f.Root, "body.topicData[0].partitionData[0].records[0].messages[1].value").Raw))

	// Into consumer-protocol metadata.
	js = `{"apiName":"JoinGroup","apiVersion":9,"header":{"correlationId":3,"clientId":"c"},"body":{
		"groupId":"g","sessionTimeoutMs":1,"rebalanceTimeoutMs":1,"memberId":"","groupInstanceId":null,
		"protocolType":"consumer","protocols":[{"name":"range","metadata":{"version":1,"topics":["orders","payments"],"userData":null,"ownedPartitions":[]}}],"reason":null}}`
	b, err = Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	f, err = Decode(b, Options{})
	require.NoError(t, err)
	require.Equal(t, "payments", string(at(t, f.Root, "body.protocols[0].metadata.topics[1]").Raw))
}

// at is the node at path from n, which must be there.
func at(t *testing.T, n *tree.Node, path string) *tree.Node {
	t.Helper()
	x, err := n.Lookup(path)
	require.NoError(t, err, path)
	return x
}

// The response header is the correlation id, plus an empty tag section
// where the response is flexible, except for ApiVersions (always v0).
func TestAppendResponseHeader(t *testing.T) {
	for _, tc := range []struct {
		key, version int16
		want         string
	}{
		{schema.KeyApiVersions, 3, "00000007"},
		{schema.KeyApiVersions, 99, "00000007"},
		{schema.KeyMetadata, 8, "00000007"},
		{schema.KeyMetadata, 9, "0000000700"},
		{schema.KeyMetadata, 99, "0000000700"},
		{-5, 0, "00000007"},
	} {
		require.Equal(t, tc.want, hex.EncodeToString(appendResponseHeader(nil, tc.key, tc.version, 7)), "%d v%d", tc.key, tc.version)
	}
	// EncodeResponse writes what Encode writes for the same envelope.
	for _, tc := range []struct {
		key, version int16
	}{{schema.KeyApiVersions, 3}, {schema.KeyMetadata, 12}, {schema.KeyProduce, 3}} {
		ex := Example(schema.ByKey(tc.key), tc.version, true)
		want, err := Encode(nil, ex, EncodeOptions{})
		require.NoError(t, err)
		got, err := EncodeResponse([]byte("keep"), RequestHeader{APIKey: tc.key, Version: tc.version, CorrelationID: 7}, tc.version, ex["body"].(map[string]any), EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, "keep"+string(want), string(got))
	}
	_, err := EncodeResponse(nil, RequestHeader{APIKey: schema.KeyMetadata, Version: 12}, 12, map[string]any{"topics": 5}, EncodeOptions{})
	require.EqualError(t, err, "body.topics: expected an array, found a number (Go int)")
	_, err = EncodeResponse(nil, RequestHeader{APIKey: 999}, 0, nil, EncodeOptions{})
	require.EqualError(t, err, "apiKey: unknown API key 999")
}
