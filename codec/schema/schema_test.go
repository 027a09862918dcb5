package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCoverage(t *testing.T) {
	require.Len(t, APIs(), 95, "API keys 0-94")
	for i, a := range APIs() {
		require.Equal(t, int16(i), a.Key)
		require.NotZero(t, a.Category, "%s has no category", a.Name)
		require.NotNil(t, a.Request.At(a.Request.Valid.Hi))
		require.Equal(t, a.Request.Valid, a.Response.Valid, a.Name)
		for v := a.Request.Valid.Lo; v <= a.Request.Valid.Hi; v++ {
			require.NotNil(t, a.Request.At(v), "%s v%d", a.Name, v)
			require.NotNil(t, a.Response.At(v), "%s v%d", a.Name, v)
		}
	}
	for name, hi := range map[string]int16{"Produce": 13, "Fetch": 18, "Metadata": 13, "ApiVersions": 5, "LeaderAndIsr": 7} {
		a := ByName(name)
		require.Equal(t, int16(0), a.Request.Valid.Lo, name)
		require.Equal(t, hi, a.Request.Valid.Hi, name)
	}
	require.Equal(t, Range{0, 2}, RequestHeader().Valid)
	require.Equal(t, Range{0, 1}, ResponseHeader().Valid)
	for _, n := range []string{"ConsumerProtocolSubscription", "ConsumerProtocolAssignment", "LeaderChangeMessage", "SnapshotHeaderRecord", "SnapshotFooterRecord", "KRaftVersionRecord", "VotersRecord", "DefaultPrincipalData"} {
		require.NotNil(t, DataMessage(n), n)
	}
}

func TestLookups(t *testing.T) {
	for _, n := range []string{"Produce", "produce", "ProduceRequest", "produceresponse", "0", " PRODUCE "} {
		a := ByName(n)
		require.NotNil(t, a, n)
		require.Equal(t, int16(0), a.Key)
	}
	require.Equal(t, int16(74), ByName("ListClientMetricsResources").Key, "old names still work")
	require.Equal(t, "ListConfigResources", ByKey(74).Name)
	require.Nil(t, ByName("nope"))
	require.Nil(t, ByKey(-1))
	require.Nil(t, ByKey(500))
	require.Equal(t, "request", ByKey(3).Request.Kind)
	require.Equal(t, "response", ByKey(3).Response.Kind)
	require.Equal(t, "header", RequestHeader().Kind)
	require.Equal(t, "data", DataMessage("ConsumerProtocolSubscription").Kind)
}

func TestHeaderVersions(t *testing.T) {
	p := ByName("Produce")
	require.Equal(t, int16(1), p.Request.HeaderVersion(8))
	require.Equal(t, int16(2), p.Request.HeaderVersion(9))
	require.Equal(t, int16(0), p.Response.HeaderVersion(8))
	require.Equal(t, int16(1), p.Response.HeaderVersion(9))
	av := ByName("ApiVersions")
	require.Equal(t, int16(0), av.Response.HeaderVersion(3), "ApiVersions responses always use header v0")
	require.Equal(t, int16(2), av.Request.HeaderVersion(3))
	require.Equal(t, int16(0), ByName("ControlledShutdown").Request.HeaderVersion(0))
	require.Equal(t, int16(1), ByName("ControlledShutdown").Request.HeaderVersion(1))
}

func TestUnstableAndRemoved(t *testing.T) {
	require.True(t, ByName("InitProducerId").Request.Unstable.Contains(6))
	require.Equal(t, Range{0, 2}, ByName("Produce").Removed40)
	require.Equal(t, Range{0, 7}, ByName("LeaderAndIsr").Removed40, "Kafka 4.0 dropped ZooKeeper-era APIs")
	require.True(t, ByName("DeleteShareGroupOffsets").Removed40.Empty())
}

func TestRanges(t *testing.T) {
	require.Equal(t, "none", none.String())
	require.Equal(t, "3+", Range{3, Open}.String())
	require.Equal(t, "1-4", Range{1, 4}.String())
	require.Equal(t, "0", Range{0, 0}.String())
	require.False(t, none.Contains(0))
}

func TestErrorsAndEnums(t *testing.T) {
	require.Equal(t, "NONE", ErrorName(0))
	require.Equal(t, "UNKNOWN_SERVER_ERROR", ErrorName(-1))
	require.Equal(t, "", ErrorName(30000))
	c, ok := ErrorCodeByName("STREAMS_TOPOLOGY_FENCED")
	require.True(t, ok)
	require.Equal(t, int16(132), c)
	require.Equal(t, "TOPIC", enumByName("ResourceType").ValueName(2))
	f := &Field{Name: "ResourceType", Kind: Int8}
	require.Equal(t, "ConfigResourceType", EnumFor(32, f).Name)
	require.Equal(t, "ResourceType", EnumFor(29, f).Name)
}

// TestCompactAt covers the rule every reader and writer of lengths asks:
// a field is compact where its message is flexible, unless it narrows
// that with its own flexibleVersions.
func TestCompactAt(t *testing.T) {
	hdr := RequestHeader()
	clientID := &hdr.At(2).Root.Fields[3]
	require.Equal(t, "ClientId", clientID.Name)
	require.True(t, clientID.FlexSet, "the request header's ClientId has its own flexibleVersions")
	require.False(t, clientID.CompactAt(2, hdr.Flexible(2)), "ClientId stays a classic string in the flexible header v2")
	require.True(t, hdr.Flexible(2))

	produce := ByName("Produce").Request
	var txn *Field
	for i, f := range produce.At(9).Root.Fields {
		if f.Name == "TransactionalId" {
			txn = &produce.At(9).Root.Fields[i]
		}
	}
	require.NotNil(t, txn)
	require.False(t, txn.FlexSet)
	require.False(t, txn.CompactAt(8, produce.Flexible(8)), "Produce v8 is not flexible")
	require.True(t, txn.CompactAt(9, produce.Flexible(9)), "Produce v9 is")

	own := &Field{Flexible: Range{3, Open}, FlexSet: true}
	for _, c := range []struct {
		v        int16
		flexible bool
		want     bool
	}{{2, true, false}, {3, true, true}, {3, false, false}, {5, true, true}} {
		require.Equal(t, c.want, own.CompactAt(c.v, c.flexible), "v%d flexible=%v", c.v, c.flexible)
	}
}

// The internal topics' record types, as Kafka's serdes select them: the
// key's int16 in coordinator topics, the frame's apiKey in metadata
// topics.
func TestInternalTopics(t *testing.T) {
	for topic, want := range map[string]map[int16][2]string{
		"__consumer_offsets": {
			0: {"LegacyOffsetCommitKey", "LegacyOffsetCommitValue"}, 1: {"OffsetCommitKey", "OffsetCommitValue"},
			2: {"GroupMetadataKey", "GroupMetadataValue"}, 3: {"ConsumerGroupMetadataKey", "ConsumerGroupMetadataValue"},
			7:  {"ConsumerGroupTargetAssignmentMemberKey", "ConsumerGroupTargetAssignmentMemberValue"},
			11: {"ShareGroupMetadataKey", "ShareGroupMetadataValue"}, 16: {"ConsumerGroupRegularExpressionKey", "ConsumerGroupRegularExpressionValue"},
			17: {"StreamsGroupMetadataKey", "StreamsGroupMetadataValue"}, 24: {"StreamsGroupTargetAssignmentResolvedTopicIdsKey", "StreamsGroupTargetAssignmentResolvedTopicIdsValue"},
		},
		"__transaction_state":   {0: {"TransactionLogKey", "TransactionLogValue"}},
		"__share_group_state":   {0: {"ShareSnapshotKey", "ShareSnapshotValue"}, 1: {"ShareUpdateKey", "ShareUpdateValue"}},
		"__cluster_metadata":    {0: {"", "RegisterBrokerRecord"}, 2: {"", "TopicRecord"}, 3: {"", "PartitionRecord"}, 12: {"", "FeatureLevelRecord"}, 28: {"", "ClearElrRecord"}},
		"__remote_log_metadata": {0: {"", "RemoteLogSegmentMetadataRecord"}, 3: {"", "RemoteLogSegmentMetadataSnapshotRecord"}},
	} {
		it := InternalTopicByName(topic)
		require.NotNil(t, it, topic)
		for typ, names := range want {
			rs := it.RecordType(typ)
			require.Len(t, rs, 1, "%s type %d", topic, typ)
			if names[0] != "" {
				require.Equal(t, names[0], rs[0].Key.Name)
				require.NotNil(t, rs[0].Key.At(rs[0].KeyVersion), "%s is read at a version it has", names[0])
			} else {
				require.Nil(t, rs[0].Key)
			}
			require.Equal(t, names[1], rs[0].Value.Name)
			require.Same(t, rs[0].Value, DataMessage(names[1]), "the codec finds it by name")
		}
	}
	require.Equal(t, CoordinatorFraming, InternalTopicByName("__consumer_offsets").Framing)
	require.Equal(t, MetadataFraming, InternalTopicByName("__cluster_metadata").Framing)
	require.Nil(t, InternalTopicByName("orders"))
	require.Empty(t, InternalTopicByName("__consumer_offsets").RecordType(99))
	both := InternalTopicByName("__cluster_metadata").RecordType(29)
	require.Len(t, both, 2, "apiKey 29: ClusterIdRecord and UnregisterControllerRecord")
	// Tried in CLASHES' order, which says why.
	require.Equal(t, "ClusterIdRecord", both[0].Value.Name)
	require.Equal(t, "UnregisterControllerRecord", both[1].Value.Name)
	for _, r := range both {
		require.Contains(t, r.Clash, "ClusterIdRecord is tried first because")
	}
	require.Empty(t, InternalTopicByName("__cluster_metadata").RecordType(28)[0].Clash)
	require.Equal(t, Range{0, 4}, DataMessage("OffsetCommitValue").Valid)
	require.True(t, DataMessage("OffsetCommitValue").Flexible(4))
	require.False(t, DataMessage("OffsetCommitValue").Flexible(3))
	for _, n := range []string{"ProducerSnapshot", "QuorumStateData", "SubscriptionInfoData"} {
		require.NotNil(t, DataMessage(n), n)
	}
}
