package storage

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// decodeJSON decodes a record of topic and parses its JSON.
func decodeJSON(t *testing.T, topic string, key, value []byte) (*TopicRecord, map[string]any) {
	t.Helper()
	r := DecodeTopicRecord(topic, BytesPart(key), BytesPart(value))
	require.NotNil(t, r)
	v, err := parseJSON(r.AppendJSON(nil))
	require.NoError(t, err, "%s", r.AppendJSON(nil))
	return r, v.(map[string]any)
}

// roundTrip checks that the record's JSON encodes back to its bytes.
func roundTrip(t *testing.T, topic string, key, value []byte, js map[string]any) {
	t.Helper()
	k, v, err := EncodeTopicRecord(topic, js)
	require.NoError(t, err)
	require.Equal(t, key, k, "key")
	require.Equal(t, value, v, "value")
}

func num(v any) int64 {
	n, err := v.(interface{ Int64() (int64, error) }).Int64()
	if err != nil {
		panic(err)
	}
	return n
}

func str(r *rand.Rand, n int) string {
	b := make([]byte, r.Intn(n))
	for i := range b {
		b[i] = byte('a' + r.Intn(26))
	}
	return string(b)
}

func strp(r *rand.Rand) *string {
	if r.Intn(4) == 0 {
		return nil
	}
	s := str(r, 12)
	return &s
}

// The coordinator records franz-go's kmsg has types for (GroupMetadata,
// OffsetCommit, TxnMetadata keys and values) decode to the values kmsg
// wrote, at every version, with random values; their JSON encodes back to
// kmsg's bytes, and kmsg reads those as the values it started from.
func TestCoordinatorRecordsAgreeWithKmsg(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		// GroupMetadata, values v0-v4, members with consumer-protocol bytes.
		k := kmsg.GroupMetadataKey{Version: 2, Group: str(r, 20)}
		v := kmsg.NewGroupMetadataValue()
		v.Version = int16(i % 5)
		v.ProtocolType = []string{"consumer", "connect", ""}[r.Intn(3)]
		v.Generation, v.Protocol, v.Leader = r.Int31(), strp(r), strp(r)
		if v.Version >= 2 {
			v.CurrentStateTimestamp = r.Int63()
		}
		for j := 0; j < r.Intn(3); j++ {
			sub := kmsg.ConsumerMemberMetadata{Version: int16(r.Intn(4)), Topics: []string{str(r, 8)}, UserData: []byte(str(r, 4))}
			if sub.Version >= 1 {
				sub.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: str(r, 6), Partitions: []int32{r.Int31()}}}
			}
			if sub.Version >= 2 {
				sub.Generation = r.Int31()
			}
			asg := kmsg.ConsumerMemberAssignment{Version: int16(r.Intn(2)), Topics: []kmsg.ConsumerMemberAssignmentTopic{{Topic: str(r, 6), Partitions: []int32{r.Int31()}}}}
			m := kmsg.GroupMetadataValueMember{MemberID: str(r, 10), ClientID: str(r, 10), ClientHost: str(r, 10), SessionTimeoutMillis: r.Int31(),
				Subscription: sub.AppendTo(nil), Assignment: asg.AppendTo(nil)}
			if v.Version >= 1 {
				m.RebalanceTimeoutMillis = r.Int31()
			}
			if v.Version >= 3 {
				m.InstanceID = strp(r)
			}
			v.Members = append(v.Members, m)
		}
		kb, vb := k.AppendTo(nil), v.AppendTo(nil)
		rec, js := decodeJSON(t, "__consumer_offsets", kb, vb)
		require.NoError(t, rec.Err)
		require.Empty(t, rec.Warnings())
		require.EqualValues(t, 2, num(js["type"]))
		require.Equal(t, k.Group, js["key"].(map[string]any)["group"])
		val := js["value"].(map[string]any)
		require.Equal(t, v.ProtocolType, val["protocolType"])
		require.EqualValues(t, v.Generation, num(val["generation"]))
		members, _ := val["members"].([]any)
		require.Len(t, members, len(v.Members))
		for j, m := range members {
			mo := m.(map[string]any)
			require.Equal(t, v.Members[j].MemberID, mo["memberId"])
			if v.ProtocolType == "consumer" {
				var sub kmsg.ConsumerMemberMetadata
				require.NoError(t, sub.ReadFrom(v.Members[j].Subscription))
				so := mo["subscription"].(map[string]any)
				require.EqualValues(t, sub.Version, num(so["version"]), "the consumer protocol is decoded")
				require.Equal(t, sub.Topics[0], so["topics"].([]any)[0])
			} else {
				require.IsType(t, "", mo["subscription"], "another protocol's bytes stay bytes")
			}
		}
		roundTrip(t, "__consumer_offsets", kb, vb, js)
		var back kmsg.GroupMetadataValue
		_, vb2, _ := EncodeTopicRecord("__consumer_offsets", js)
		require.NoError(t, back.ReadFrom(vb2))
		require.Equal(t, v.Generation, back.Generation)

		// OffsetCommit, values v0-v4 (v4 flexible), key types 1 and 0.
		ok := kmsg.OffsetCommitKey{Version: 1, Group: str(r, 12), Topic: str(r, 12), Partition: r.Int31()}
		ov := kmsg.NewOffsetCommitValue()
		ov.Version = int16(i % 5)
		ov.Offset, ov.Metadata, ov.CommitTimestamp = r.Int63(), str(r, 16), r.Int63()
		if ov.Version >= 3 {
			ov.LeaderEpoch = r.Int31()
		}
		if ov.Version == 1 {
			ov.ExpireTimestamp = r.Int63()
		}
		if i%7 == 0 {
			ok.Version, ov.Version = 0, 0 // the legacy key type and its value
		}
		kb, vb = ok.AppendTo(nil), ov.AppendTo(nil)
		rec, js = decodeJSON(t, "__consumer_offsets", kb, vb)
		require.NoError(t, rec.Err)
		require.Empty(t, rec.Warnings())
		val = js["value"].(map[string]any)
		require.EqualValues(t, ov.Offset, num(val["offset"]))
		require.EqualValues(t, ov.CommitTimestamp, num(val["commitTimestamp"]))
		require.Equal(t, ov.Metadata, val["metadata"])
		if ov.Version == 1 {
			require.EqualValues(t, ov.ExpireTimestamp, num(val["expireTimestamp"]))
		}
		require.Equal(t, ok.Topic, js["key"].(map[string]any)["topic"])
		roundTrip(t, "__consumer_offsets", kb, vb, js)

		// TxnMetadata, values v0 and v1 (tagged fields).
		tk := kmsg.TxnMetadataKey{Version: 0, TransactionalID: str(r, 16)}
		tv := kmsg.NewTxnMetadataValue()
		tv.Version = int16(i % 2)
		tv.ProducerID, tv.ProducerEpoch, tv.TimeoutMillis, tv.State = r.Int63(), int16(r.Intn(100)), r.Int31(), kmsg.TransactionState(r.Intn(8))
		tv.LastUpdateTimestamp, tv.StartTimestamp = r.Int63(), r.Int63()
		if r.Intn(2) == 0 {
			tv.Topics = []kmsg.TxnMetadataValueTopic{{Topic: str(r, 8), Partitions: []int32{1, 2}}}
		}
		if tv.Version == 1 {
			tv.PreviousProducerID, tv.ClientTransactionVersion = r.Int63(), 2
		}
		kb, vb = tk.AppendTo(nil), tv.AppendTo(nil)
		rec, js = decodeJSON(t, "__transaction_state", kb, vb)
		require.NoError(t, rec.Err)
		require.Empty(t, rec.Warnings())
		val = js["value"].(map[string]any)
		require.EqualValues(t, tv.ProducerID, num(val["producerId"]))
		require.EqualValues(t, tv.State, num(val["transactionStatus"]))
		if tv.Version == 1 {
			require.EqualValues(t, tv.PreviousProducerID, num(val["previousProducerId"]), "a tagged field")
		}
		require.Equal(t, tk.TransactionalID, js["key"].(map[string]any)["transactionalId"])
		roundTrip(t, "__transaction_state", kb, vb, js)
	}
}

// A TransactionLogValue v1's previousProducerId, a tagged field declared
// after producerId, stands there in the record's JSON, as kwire log and
// the playground's storage view write it, not after the untagged fields.
func TestTaggedFieldAtItsDeclaredPlace(t *testing.T) {
	tv := kmsg.NewTxnMetadataValue()
	tv.Version, tv.ProducerID, tv.PreviousProducerID, tv.ClientTransactionVersion = 1, 12, 11, 2
	k := kmsg.TxnMetadataKey{TransactionalID: "t"}
	r := DecodeTopicRecord("__transaction_state", BytesPart(k.AppendTo(nil)), BytesPart(tv.AppendTo(nil)))
	require.NoError(t, r.Err)
	require.Contains(t, string(r.AppendJSON(nil)), `{"producerId":12,"previousProducerId":11,"producerEpoch":`)
}

// kmsg writes TxnMetadataValue's tag 3 (NextProducerEpoch), which the
// schemas here do not have: it decodes as an unknown tag, with a warning,
// and comes back in the bytes.
func TestUnknownTaggedFieldRoundTrips(t *testing.T) {
	tv := kmsg.NewTxnMetadataValue()
	tv.Version, tv.NextProducerEpoch = 1, 7
	k := kmsg.TxnMetadataKey{TransactionalID: "t"}
	kb, vb := k.AppendTo(nil), tv.AppendTo(nil)
	rec, js := decodeJSON(t, "__transaction_state", kb, vb)
	require.NoError(t, rec.Err)
	require.NotEmpty(t, rec.Warnings())
	require.Contains(t, js["value"].(map[string]any), "_unknownTaggedFields")
	roundTrip(t, "__transaction_state", kb, vb, js)
}

// Every record type of every internal topic, at every version of its
// value, round-trips: bytes laid out from the schema decode without
// error, and their JSON encodes to the same bytes.
func TestEveryInternalRecordRoundTrips(t *testing.T) {
	n := 0
	for _, topic := range schema.InternalTopics() {
		for _, rec := range topic.Records {
			for ver := rec.Value.Valid.Lo; ver <= rec.Value.Valid.Hi; ver++ {
				name := fmt.Sprintf("%s/%d/%s/v%d", topic.Name, rec.Type, rec.Value.Name, ver)
				key, value, err := ExampleTopicRecord(topic, &rec, ver)
				require.NoError(t, err, name)
				r, js := decodeJSON(t, topic.Name, key, value)
				require.NoError(t, r.Err, name)
				if len(topic.RecordType(rec.Type)) == 1 {
					require.Same(t, rec.Value, r.Schema.Value, name)
				}
				roundTrip(t, topic.Name, key, value, js)
				n++
			}
		}
	}
	require.Greater(t, n, 80)
}

// What a record of an internal topic can get wrong, each an error with
// the part, offset and path, and the partial result.
func TestTopicRecordErrors(t *testing.T) {
	gk := kmsg.GroupMetadataKey{Version: 2, Group: "g"}
	for name, tc := range map[string]struct {
		topic      string
		key, value []byte
		part, msg  string
	}{
		"short key":          {"__consumer_offsets", []byte{0}, nil, "key", "an int16 record type"},
		"unknown type":       {"__consumer_offsets", []byte{0, 99, 0, 1, 'g'}, nil, "key", "found 99"},
		"key cut short":      {"__consumer_offsets", gk.AppendTo(nil)[:4], nil, "key", "expected"},
		"null key":           {"__consumer_offsets", nil, []byte{0, 0}, "value", "this one's key is null"},
		"value version only": {"__consumer_offsets", gk.AppendTo(nil), []byte{0}, "value", "an int16 version"},
		"frame version 0":    {"__cluster_metadata", nil, []byte{0, 2, 0}, "value", "frame version 1, found 0"},
		"unknown apiKey":     {"__cluster_metadata", nil, []byte{1, 99, 0}, "value", "found 99"},
		"bad varint":         {"__cluster_metadata", nil, []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff}, "value", "unsigned varint"},
		"null value":         {"__cluster_metadata", nil, nil, "value", "has a value"},
		"trailing bytes":     {"__cluster_metadata", nil, []byte{1, 20, 0, 0, 9}, "value", "more bytes"},
	} {
		t.Run(name, func(t *testing.T) {
			r, js := decodeJSON(t, tc.topic, tc.key, tc.value)
			var re *RecordError
			require.ErrorAs(t, r.Err, &re)
			require.Equal(t, tc.part, re.Part)
			require.Contains(t, re.Error(), tc.msg)
			require.Contains(t, js, "error")
			// Undecodable parts stay bytes in the JSON, so it encodes back.
			k, v, err := EncodeTopicRecord(tc.topic, js)
			if err == nil {
				require.Equal(t, tc.key, k)
				require.Equal(t, tc.value, v)
			}
		})
	}
	require.Nil(t, DecodeTopicRecord("orders", BytesPart([]byte("k")), BytesPart([]byte("v"))), "not an internal topic")
	short, _ := decodeJSON(t, "__consumer_offsets", []byte{0}, nil)
	require.Equal(t, int16(-1), short.Type, "a key too short for its type leaves Type unknown (-1), not 0 (OffsetCommitKey v0)")
}

// A tombstone (null value) decodes its key and says the value is null.
func TestTombstone(t *testing.T) {
	k := kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "t", Partition: 3}
	r, js := decodeJSON(t, "__consumer_offsets", k.AppendTo(nil), nil)
	require.NoError(t, r.Err)
	require.Nil(t, r.ValueNode)
	require.Nil(t, js["value"])
	require.Contains(t, js, "value")
	roundTrip(t, "__consumer_offsets", k.AppendTo(nil), nil, js)
}

// Consumer-protocol bytes that do not read as such stay bytes, with a
// warning, and the record still decodes.
func TestBadConsumerProtocolBytesStayBytes(t *testing.T) {
	v := kmsg.NewGroupMetadataValue()
	v.Version, v.ProtocolType = 3, "consumer"
	v.Members = []kmsg.GroupMetadataValueMember{{MemberID: "m", Subscription: []byte{0, 1, 0xff, 0xff, 0xff}, Assignment: []byte{}}}
	k := kmsg.GroupMetadataKey{Version: 2, Group: "g"}
	r, js := decodeJSON(t, "__consumer_offsets", k.AppendTo(nil), v.AppendTo(nil))
	require.NoError(t, r.Err)
	require.NotEmpty(t, r.Warnings())
	m := js["value"].(map[string]any)["members"].([]any)[0].(map[string]any)
	require.Equal(t, "AAH///8=", m["subscription"])
	roundTrip(t, "__consumer_offsets", k.AppendTo(nil), v.AppendTo(nil), js)
}

// apiKey 29 of __cluster_metadata is two records in Kafka's files: the
// one the bytes read as whole is taken, and the choice is said.
func TestAmbiguousMetadataRecordIsReadByItsBytes(t *testing.T) {
	rs := schema.InternalTopicByName("__cluster_metadata").RecordType(29)
	require.Len(t, rs, 2)
	for _, rec := range rs {
		_, value, err := ExampleTopicRecord(schema.InternalTopicByName("__cluster_metadata"), &rec, 0)
		require.NoError(t, err)
		r, js := decodeJSON(t, "__cluster_metadata", nil, value)
		require.NoError(t, r.Err, rec.Value.Name)
		require.Equal(t, rec.Value.Name, js["schema"], "the bytes pick %s", rec.Value.Name)
		require.Contains(t, fmt.Sprint(r.Warnings()), "apiKey 29 is")
		roundTrip(t, "__cluster_metadata", nil, value, js)
	}
}

// Spans: the nodes of a record placed inside a caller's buffer point into
// it, and every byte of key and value belongs to a node.
func TestTopicRecordNodesCoverTheirBytes(t *testing.T) {
	k := kmsg.OffsetCommitKey{Version: 1, Group: "group", Topic: "orders", Partition: 2}
	v := kmsg.OffsetCommitValue{Version: 3, Offset: 42, LeaderEpoch: 1, Metadata: "m", CommitTimestamp: 7}
	buf := append(append([]byte("prefix"), k.AppendTo(nil)...), v.AppendTo(nil)...)
	ks, ke := 6, 6+len(k.AppendTo(nil))
	r := DecodeTopicRecord("__consumer_offsets", Part{Buf: buf, Index: 3, Start: ks, End: ke}, Part{Buf: buf, Index: 3, Start: ke, End: len(buf)})
	require.NoError(t, r.Err)
	for _, n := range []*tree.Node{r.KeyNode, r.ValueNode} {
		require.Equal(t, 3, n.Buf)
		at := n.Start
		for _, c := range n.Children {
			require.Equal(t, at, c.Start, "%s starts where the one before ends", c.Name)
			at = c.End
		}
		require.Equal(t, n.End, at)
	}
	require.Equal(t, ks, r.KeyNode.Start)
	require.Equal(t, "type", r.KeyNode.Children[0].Name)
	off := r.ValueMessage.Get("offset")
	require.EqualValues(t, 42, off.Int)
	require.Equal(t, ke+2, off.Start, "the offset follows the value's version")
}
