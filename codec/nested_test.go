package codec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// The consumer protocol's subscription inside a JoinGroup request decodes
// into a nested tree and encodes back to the same bytes.
func TestConsumerProtocolJoinGroup(t *testing.T) {
	js := `{"apiName":"JoinGroup","apiVersion":9,"header":{"correlationId":3,"clientId":"c"},"body":{
		"groupId":"billing","sessionTimeoutMs":45000,"rebalanceTimeoutMs":60000,"memberId":"","groupInstanceId":null,
		"protocolType":"consumer","protocols":[{"name":"cooperative-sticky","metadata":
		{"version":3,"topics":["orders","payments"],"userData":"AAAAAA==","ownedPartitions":[{"topic":"orders","partitions":[0,2]}],"generationId":4,"rackId":"eu-1"}}],"reason":null}}`
	b, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	noWarnings(t, f.Root)
	coverage(t, f.Root, len(b))
	out := string(f.AppendJSON(nil))
	require.Contains(t, out, `"metadata":{"version":3,"topics":["orders","payments"],"userData":"AAAAAA==","ownedPartitions":[{"topic":"orders","partitions":[0,2]}],"generationId":4,"rackId":"eu-1"}`)
	again, err := Encode(nil, []byte(out), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, b, again)
	// The nested nodes carry spans inside the metadata bytes.
	md := nodeAt(f.Root, "body.protocols[0].metadata")
	require.NotNil(t, md)
	require.Equal(t, "version", md.Children[0].Name)
	require.Equal(t, md.PrefixEnd, md.Children[0].Start)
	require.Equal(t, md.End, md.Children[len(md.Children)-1].End)
}

// Bytes that are not a valid subscription stay bytes, with a warning
// where the group says it speaks the consumer protocol, silently where not.
func TestConsumerProtocolGarbageStaysRaw(t *testing.T) {
	mk := func(protocolType string) *Frame {
		js := `{"apiName":"JoinGroup","apiVersion":5,"header":{"correlationId":3,"clientId":"c"},"body":{
			"groupId":"g","sessionTimeoutMs":1,"rebalanceTimeoutMs":1,"memberId":"","groupInstanceId":null,
			"protocolType":"` + protocolType + `","protocols":[{"name":"range","metadata":"AAMAAAAB"}]}}`
		b, err := Encode(nil, []byte(js), EncodeOptions{})
		require.NoError(t, err)
		f, err := Decode(b, Options{})
		require.NoError(t, err)
		require.Contains(t, string(f.AppendJSON(nil)), `"metadata":"AAMAAAAB"`)
		return f
	}
	require.Contains(t, strings.Join(warnings(mk("consumer").Root), "\n"), "not a valid ConsumerProtocolSubscription")
	require.Empty(t, warnings(mk("connect").Root))
}

// A SyncGroup response's assignment, and an empty one (followers get it).
func TestConsumerProtocolAssignment(t *testing.T) {
	js := `{"direction":"response","apiName":"SyncGroup","apiVersion":5,"header":{"correlationId":3},"body":{"throttleTimeMs":0,"errorCode":0,
		"protocolType":"consumer","protocolName":"range","assignment":{"version":1,"assignedPartitions":[{"topic":"orders","partitions":[1]}],"userData":null}}}`
	b, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	f, err := Decode(b, Options{Response: true, APIKey: 14, Version: 5})
	require.NoError(t, err)
	require.Contains(t, string(f.AppendJSON(nil)), `"assignment":{"version":1,"assignedPartitions":[{"topic":"orders","partitions":[1]}],"userData":null}`)
	again, err := Encode(nil, f.AppendJSON(nil), EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, b, again)

	empty := strings.Replace(js, `{"version":1,"assignedPartitions":[{"topic":"orders","partitions":[1]}],"userData":null}`, `""`, 1)
	b, err = Encode(nil, []byte(empty), EncodeOptions{})
	require.NoError(t, err)
	f, err = Decode(b, Options{Response: true, APIKey: 14, Version: 5})
	require.NoError(t, err)
	require.Contains(t, string(f.AppendJSON(nil)), `"assignment":""`)
	require.Empty(t, warnings(f.Root))
}

// KRaft control records decode through the data-message schemas.
func TestDecodeDataMessage(t *testing.T) {
	m := schema.DataMessage("LeaderChangeMessage")
	v := m.Valid.Hi
	val := map[string]any{"version": jsonNum(v), "leaderId": jsonNum(3), "voters": []any{map[string]any{"voterId": jsonNum(3)}}, "grantingVoters": []any{}}
	body, err := encodeStruct(nil, m.At(v).Root, v, m.Flexible(v), val, "", EncodeOptions{})
	require.NoError(t, err)
	f, err := Decode(body, Options{Data: "LeaderChangeMessage", Version: v})
	require.NoError(t, err)
	n := f.Body
	require.Equal(t, "value", n.Name)
	require.Equal(t, len(body), n.End)
	require.Equal(t, int64(3), n.Get("leaderId").Int)
	_, err = Decode(body[:len(body)-1], Options{Data: "LeaderChangeMessage", Version: v})
	require.Error(t, err)
	_, err = Decode(body, Options{Data: "NoSuchMessage", Version: 0})
	require.Error(t, err)
}

func jsonNum(v any) any {
	switch x := v.(type) {
	case int16:
		return jsonNumber(itoa(int(x)))
	case int:
		return jsonNumber(itoa(x))
	}
	return v
}

type jsonNumber = json.Number

// Compressed message-set wrappers nest no deeper than MaxRecordNesting.
func TestMaxRecordNesting(t *testing.T) {
	inner := `{"offset":0,"magic":1,"attributes":{"compression":"none","timestampType":"CreateTime"},"timestamp":5,"key":null,"value":{"text":"v"}}`
	wrap := func(m string) string {
		return `{"offset":0,"magic":1,"attributes":{"compression":"gzip","timestampType":"CreateTime"},"timestamp":5,"key":null,"messages":[` + m + `]}`
	}
	js := `{"apiName":"Produce","apiVersion":2,"header":{"correlationId":1,"clientId":"c"},"body":{"acks":1,"timeoutMs":100,
		"topicData":[{"name":"t","partitionData":[{"index":0,"records":[` + wrap(wrap(inner)) + `]}]}]}}`
	b, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	f, err := Decode(b, Options{})
	require.NoError(t, err)
	require.Empty(t, warnings(f.Root))
	require.Contains(t, string(f.AppendJSON(nil)), `"value":{"text":"v"}`)
	f, _ = Decode(b, Options{Limits: Limits{MaxRecordNesting: 1}})
	require.NotEmpty(t, warnings(f.Root), "the inner wrapper is past the limit")
	require.NotContains(t, string(f.AppendJSON(nil)), `"value":{"text":"v"}`)
}
