package codec

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/tree"
)

// topicBatch is a record batch (compression given) holding records with
// the keys and values kv (nil is null).
func topicBatch(tb testing.TB, compression string, kv ...[]byte) []byte {
	tb.Helper()
	var recs []any
	for i := 0; i+1 < len(kv); i += 2 {
		part := func(b []byte) any {
			if b == nil {
				return nil
			}
			return b
		}
		recs = append(recs, map[string]any{"attributes": 0, "timestampDelta": 0, "offsetDelta": i / 2, "key": part(kv[i]), "value": part(kv[i+1]), "headers": []any{}})
	}
	b, err := rec.Encode(nil, []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": compression}, "lastOffsetDelta": len(recs) - 1, "baseTimestamp": 1700000000000, "maxTimestamp": 1700000000000,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}})
	require.NoError(tb, err)
	return b
}

// fetchOf is a Fetch response of version v for one partition of topic
// (named, or by id at v13+) holding batches.
func fetchOf(v int16, topic string, id [16]byte, batches []byte) []byte {
	r := kmsg.NewPtrFetchResponse()
	r.Version = v
	t := kmsg.NewFetchResponseTopic()
	t.Topic, t.TopicID = topic, id
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = 10, 10, batches
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	b, _ := frameOf(r, 1, v, true, v >= 12)
	return b
}

// consumerOffsetsRecords are a classic group's metadata and an offset
// commit, as kmsg writes them.
func consumerOffsetsRecords(tb testing.TB) [][]byte {
	gk := kmsg.GroupMetadataKey{Version: 2, Group: "billing"}
	gv := kmsg.NewGroupMetadataValue()
	gv.Version, gv.ProtocolType, gv.Generation = 3, "consumer", 4
	proto, leader := "range", "consumer-1"
	gv.Protocol, gv.Leader = &proto, &leader
	sub := kmsg.ConsumerMemberMetadata{Version: 1, Topics: []string{"orders"}}
	asg := kmsg.ConsumerMemberAssignment{Version: 1, Topics: []kmsg.ConsumerMemberAssignmentTopic{{Topic: "orders", Partitions: []int32{0, 1}}}}
	gv.Members = []kmsg.GroupMetadataValueMember{{MemberID: "consumer-1", ClientID: "c", ClientHost: "/10.0.0.7", SessionTimeoutMillis: 45000, RebalanceTimeoutMillis: 300000,
		Subscription: sub.AppendTo(nil), Assignment: asg.AppendTo(nil)}}
	ok := kmsg.OffsetCommitKey{Version: 1, Group: "billing", Topic: "orders", Partition: 1}
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset, ov.LeaderEpoch, ov.Metadata, ov.CommitTimestamp = 3, 42, 5, "m", 1700000000000
	return [][]byte{gk.AppendTo(nil), gv.AppendTo(nil), ok.AppendTo(nil), ov.AppendTo(nil), ok.AppendTo(nil), nil}
}

// The records of __consumer_offsets in a Fetch response decode into the
// schemas' named objects, with spans, in the tree and in value JSON; the
// tree and both JSON walks agree (warnings, budget, JSON) at every
// MaxNodes, and the JSON encodes back to the same bytes.
func TestConsumerOffsetsInFetch(t *testing.T) {
	kv := consumerOffsetsRecords(t)
	for _, compression := range []string{"none", "gzip"} {
		b := fetchOf(12, "__consumer_offsets", [16]byte{}, topicBatch(t, compression, kv...))
		o := Options{Response: true, APIKey: 1, Version: 12}
		f, err := Decode(b, o)
		require.NoError(t, err)
		require.Empty(t, f.Warnings)
		bothPaths(t, b, o)
		js := f.AppendJSON(nil)
		for _, want := range []string{
			`"format":"kafka","type":2,"schema":"GroupMetadataKey","decoded":{"group":"billing"}`,
			`"format":"kafka","version":3,"schema":"GroupMetadataValue","decoded":{"protocolType":"consumer","generation":4,"protocol":"range","leader":"consumer-1"`,
			`"subscription":{"version":1,"topics":["orders"]`,
			`"format":"kafka","type":1,"schema":"OffsetCommitKey","decoded":{"group":"billing","topic":"orders","partition":1}`,
			`"format":"kafka","version":3,"schema":"OffsetCommitValue","decoded":{"offset":42,"leaderEpoch":5,"metadata":"m","commitTimestamp":1700000000000}`,
			`"value":null`,
		} {
			require.Contains(t, string(js), want)
		}
		// Spans: the key's nodes cover its bytes, in order.
		recs := f.Body.Get("responses").Elem(0).Get("partitions").Elem(0).Get("records")
		require.NotNil(t, recs)
		var keys []string
		walkTree(f.Root, func(n *tree.Node) {
			if n.Name == "key" && len(n.Children) > 0 && n.Children[0].Name == "type" {
				at := n.DataStart()
				for _, c := range n.Children {
					require.Equal(t, at, c.Start, c.Name)
					at = c.End
				}
				require.Equal(t, n.End, at)
				keys = append(keys, n.Children[1].Name)
			}
		})
		require.Equal(t, []string{"GroupMetadataKey", "OffsetCommitKey", "OffsetCommitKey"}, keys)
		back, err := Encode(nil, js, EncodeOptions{})
		require.NoError(t, err)
		require.Equal(t, b, back, "decode, then encode: the same bytes")
		for maxNodes := 20; maxNodes < 400; maxNodes += 7 {
			o.MaxNodes = maxNodes
			bothPaths(t, b, o)
		}
	}
}

func walkTree(n *tree.Node, fn func(*tree.Node)) {
	fn(n)
	for _, c := range n.Children {
		walkTree(c, fn)
	}
}
