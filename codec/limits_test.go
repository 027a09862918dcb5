package codec

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/schema"
)

// nestedFrames are frames whose nested payloads (records of every format,
// compressed batches and wrappers, consumer-protocol data, a KRaft value)
// sit before fields of the frame's own, with how many nested fields each
// holds.
func nestedFrames(t *testing.T) []struct {
	name   string
	b      []byte
	o      Options
	nested int
} {
	type frame = struct {
		name   string
		b      []byte
		o      Options
		nested int
	}
	var out []frame
	example := func(api string, v int16, resp bool) {
		a := schema.ByName(api)
		b, err := ExampleFrame(a, v, resp)
		require.NoError(t, err)
		out = append(out, frame{api + " v" + decimal(int(v)) + map[bool]string{false: " request", true: " response"}[resp], b,
			Options{Response: resp, APIKey: a.Key, Version: v}, 1})
	}
	example("Produce", 9, false) // issue: MaxNodes 20, 35, 40 failed where 25, 30, 45 warned
	example("Produce", 0, false)
	example("Produce", 2, false)
	example("Produce", 3, false)
	example("Fetch", 0, true)
	example("Fetch", 2, true)
	example("Fetch", 4, true)
	example("Fetch", 11, true)
	// Fetch partitions at v12+ declare tagged fields before
	// abortedTransactions and records, as FetchRequest v12+ declares
	// clusterId before its untagged fields: the tree-less path decodes
	// them at their declared place but must spend their nodes at the tag
	// section, as the tree does.
	for v := int16(12); v <= schema.ByName("Fetch").Response.Valid.Hi; v++ {
		example("Fetch", v, true)
	}
	example("Fetch", 12, false)
	out[len(out)-1].nested = 0 // nothing nested: the limit only fails it
	example("Fetch", schema.ByName("Fetch").Request.Valid.Hi, false)
	out[len(out)-1].nested = 0
	encode := func(name, js string, o Options, nested int) {
		b, err := Encode(nil, []byte(js), EncodeOptions{})
		require.NoError(t, err, name)
		out = append(out, frame{name, b, o, nested})
	}
	encode("Fetch v11 response, gzip batch and gzip wrapper", `{"direction":"response","apiName":"Fetch","apiVersion":11,"header":{"correlationId":3},"body":{
		"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topic":"orders","partitions":[{"partitionIndex":0,"errorCode":0,
		"highWatermark":11,"lastStableOffset":11,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":[
		{"baseOffset":10,"partitionLeaderEpoch":2,"magic":2,"attributes":{"compression":"gzip"},
		"lastOffsetDelta":2,"baseTimestamp":1700000000000,"maxTimestamp":1700000000000,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,
		"records":[{"attributes":0,"timestampDelta":0,"offsetDelta":0,"key":"a","value":"v1","headers":[{"key":"h","value":"x"},{"key":"i","value":null}]},
		{"attributes":0,"timestampDelta":0,"offsetDelta":1,"key":"b","value":"v2","headers":[]},
		{"attributes":0,"timestampDelta":0,"offsetDelta":2,"key":null,"value":"v3","headers":[]}]}]},
		{"partitionIndex":1,"errorCode":0,"highWatermark":11,"lastStableOffset":11,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":[
		{"offset":5,"magic":1,"attributes":{"compression":"gzip"},"timestamp":1700000000000,"key":null,"messages":[
		  {"offset":0,"magic":1,"attributes":{"compression":"none"},"timestamp":1700000000000,"key":"k","value":"v"},
		  {"offset":1,"magic":1,"attributes":{"compression":"none"},"timestamp":1700000000000,"key":"k2","value":"v2"}]}]}]}]}}`,
		Options{Response: true, APIKey: 1, Version: 11}, 2)
	lc := schema.DataMessage("LeaderChangeMessage")
	lcv := lc.Valid.Hi
	leaderChange, err := encodeStruct(nil, lc.At(lcv).Root, lcv, lc.Flexible(lcv),
		map[string]any{"version": lcv, "leaderId": 3, "voters": []map[string]any{{"voterId": 3}, {"voterId": 4}}, "grantingVoters": []any{}}, "", EncodeOptions{})
	require.NoError(t, err)
	encode("Fetch v11 response, KRaft control record with headers", `{"direction":"response","apiName":"Fetch","apiVersion":11,"header":{"correlationId":3},"body":{
		"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topic":"__cluster_metadata","partitions":[{"partitionIndex":0,"errorCode":0,
		"highWatermark":11,"lastStableOffset":11,"logStartOffset":0,"abortedTransactions":null,"preferredReadReplica":-1,"records":[
		{"baseOffset":10,"partitionLeaderEpoch":2,"magic":2,"attributes":{"compression":"none","timestampType":"CreateTime","transactional":false,"control":true},
		"lastOffsetDelta":0,"baseTimestamp":1700000000000,"maxTimestamp":1700000000000,"producerId":-1,"producerEpoch":-1,"baseSequence":-1,
		"records":[{"attributes":0,"timestampDelta":0,"offsetDelta":0,"key":{"base64":"AAAAAg=="},"value":{"base64":"`+base64.StdEncoding.EncodeToString(leaderChange)+`"},
		"headers":[{"key":"a","value":"1"},{"key":"b","value":"2"},{"key":"c","value":"3"}]}]}]}]}]}}`,
		Options{Response: true, APIKey: 1, Version: 11}, 1)
	encode("JoinGroup v9 request, consumer subscription", `{"apiName":"JoinGroup","apiVersion":9,"header":{"correlationId":3,"clientId":"c"},"body":{
		"groupId":"billing","sessionTimeoutMs":45000,"rebalanceTimeoutMs":60000,"memberId":"","groupInstanceId":null,
		"protocolType":"consumer","protocols":[{"name":"cooperative-sticky","metadata":
		{"version":3,"topics":["orders","payments"],"userData":"AAAAAA==","ownedPartitions":[{"topic":"orders","partitions":[0,2]}],"generationId":4,"rackId":"eu-1"}},
		{"name":"range","metadata":{"version":1,"topics":["orders"],"userData":null,"ownedPartitions":[]}}],"reason":"r"}}`,
		Options{}, 2)
	encode("SyncGroup v5 response, consumer assignment", `{"direction":"response","apiName":"SyncGroup","apiVersion":5,"header":{"correlationId":3},"body":{"throttleTimeMs":0,"errorCode":0,
		"protocolType":"consumer","protocolName":"range","assignment":{"version":1,"assignedPartitions":[{"topic":"orders","partitions":[1,2,3]},{"topic":"b","partitions":[0]}],"userData":null}}}`,
		Options{Response: true, APIKey: 14, Version: 5}, 1)
	return out
}

// A MaxNodes limit met inside a nested payload is a warning, never the
// frame's failure: once the frame's own fields fit, every larger MaxNodes
// decodes the frame (records, consumer-protocol data, KRaft values cut
// short with a limit warning), spending no more than the limit, and both
// paths agree at every limit (same JSON, warnings and error). Before, the
// Produce v9 example failed at MaxNodes 32-44 and 52 but decoded at
// 23-31 and 45-51: a unit of records (a batch's header, a record) was
// taken whole once the nested budget had a node left, so it could pass
// the budget into the reserve of the frame's own fields.
func TestMaxNodesMonotonic(t *testing.T) {
	for _, fr := range nestedFrames(t) {
		t.Run(fr.name, func(t *testing.T) {
			// The frame's own fields alone (nothing nested decoded).
			own := 0
			for n := 1; own == 0; n++ {
				o := fr.o
				o.raw, o.Limits = true, Limits{MaxNodes: n}
				if _, err := Decode(fr.b, o); err == nil {
					own = n
				}
				require.Less(t, n, 10000)
			}
			full, err := Decode(fr.b, fr.o)
			require.NoError(t, err)
			require.Empty(t, full.Warnings)
			first, cut := 0, false
			for n := 1; n <= max(200, full.Spent.MaxNodes+100); n++ {
				o := fr.o
				o.Limits = Limits{MaxNodes: n}
				bothPaths(t, fr.b, o)
				f, err := Decode(fr.b, o)
				if err != nil {
					require.Zero(t, first, "MaxNodes %d fails after %d decoded: %v", n, first, err)
					require.Contains(t, err.Error(), "the MaxNodes limit", "MaxNodes %d", n)
					require.ErrorIs(t, err, budget.ErrLimit, "MaxNodes %d", n)
					continue
				}
				if first == 0 {
					first = n
				}
				require.LessOrEqual(t, f.Spent.MaxNodes, n, "MaxNodes %d: spent past the limit", n)
				limited := false
				for _, w := range f.Warnings {
					require.True(t, w.Limit, "MaxNodes %d: only limit warnings on a clean frame: %v", n, w)
					limited = true
				}
				if limited {
					cut = true
				}
				if n >= full.Spent.MaxNodes+budget.NestedSlack(defaultMaxRecordNesting)+4*len(fr.b) {
					require.False(t, limited, "MaxNodes %d: the whole frame fits but was cut", n)
				}
			}
			require.NotZero(t, first)
			require.LessOrEqual(t, first, own+fr.nested, "the frame's own fields fit at %d, the frame decodes only from %d", own, first)
			if fr.nested > 0 {
				require.True(t, cut, "no limit between the frame's own fields and the whole frame")
			}
			t.Logf("own fields fit at MaxNodes %d, the frame decodes from %d, whole at %d", own, first, full.Spent.MaxNodes)
		})
	}
}
