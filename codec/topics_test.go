package codec

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/schema"
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
		recs := at(t, f.Body, "responses[0].partitions[0].records")
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

// produceOf is a Produce request of version v (3 to 12: topics by name)
// for one partition of topic holding batches.
func produceOf(v int16, topic string, batches []byte) []byte {
	r := kmsg.NewPtrProduceRequest()
	r.Version, r.Acks, r.TimeoutMillis = v, -1, 30000
	t := kmsg.NewProduceRequestTopic()
	t.Topic = topic
	p := kmsg.NewProduceRequestTopicPartition()
	p.Records = batches
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	b, _ := frameOf(r, 0, v, false, v >= 9)
	return b
}

// The segments of every internal topic in testdata/storage/logdir (kmsg's
// coordinator records; metadata-framed records of the cluster and remote
// log metadata), carried in Produce and Fetch: every record's key and
// value decodes into its schema's object, identically through the tree
// and the JSON walk at every MaxNodes, and the JSON encodes back to the
// same bytes.
func TestInternalTopicsInFrames(t *testing.T) {
	for _, tc := range []struct {
		topic string
		want  []string
	}{
		{"__consumer_offsets", []string{
			`"schema":"GroupMetadataValue","decoded":{"protocolType":"consumer","generation":4`,
			`"version":4,"schema":"OffsetCommitValue","decoded":{"offset":40,"leaderEpoch":1,"metadata":"","commitTimestamp":`,
			`"type":0,"schema":"LegacyOffsetCommitKey"`,
			`"schema":"ConsumerGroupMetadataKey","decoded":{"groupId":"payments"}`,
		}},
		{"__transaction_state", []string{
			`"type":0,"schema":"TransactionLogKey","decoded":{"transactionalId":"payments-tx"}`,
			`"version":1,"schema":"TransactionLogValue","decoded":{"producerId":12,`,
			// A tagged field declared among untagged ones stands there.
			`"decoded":{"producerId":12,"previousProducerId":11,"producerEpoch":0,`,
		}},
		{"__share_group_state", []string{
			`"schema":"ShareSnapshotKey","decoded":{"groupId":"share-1","topicId":"WlpaWlpaWlpaWlpaWlpaWg","partition":0}`,
			`"schema":"ShareUpdateValue"`,
		}},
		{"__cluster_metadata", []string{
			`"format":"kafka","frameVersion":1,"type":2,"version":0,"schema":"TopicRecord","decoded":{"name":"orders","topicId":"WlpaWlpaWlpaWlpaWlpaWg"}`,
			`"schema":"ConfigRecord","decoded":{"resourceType":2,"resourceName":"orders","name":"retention.ms","value":"604800000"}`,
		}},
		{"__remote_log_metadata", []string{
			`"schema":"RemoteLogSegmentMetadataRecord","decoded":{"remoteLogSegmentId":{"topicIdPartition":{"name":"orders"`,
			`"schema":"RemoteLogSegmentMetadataUpdateRecord"`,
		}},
	} {
		t.Run(tc.topic, func(t *testing.T) {
			log, err := os.ReadFile(filepath.Join("..", "testdata", "storage", "logdir", tc.topic+"-"+map[bool]string{true: "7", false: "0"}[tc.topic == "__consumer_offsets"], "00000000000000000000.log"))
			require.NoError(t, err)
			for _, fr := range []struct {
				b []byte
				o Options
			}{
				{produceOf(9, tc.topic, log), Options{}},
				{fetchOf(12, tc.topic, [16]byte{}, log), Options{Response: true, APIKey: 1, Version: 12}},
				{fetchOf(13, "", [16]byte{1, 2, 3}, log), Options{Response: true, APIKey: 1, Version: 13, TopicNames: func(id [16]byte) string {
					if id == ([16]byte{1, 2, 3}) {
						return tc.topic
					}
					return ""
				}}},
			} {
				f, err := Decode(fr.b, fr.o)
				require.NoError(t, err)
				// The LEADER_CHANGE control record kmsg wrote decodes whole
				// too: its value is the message alone, as Kafka writes it.
				require.Empty(t, f.Warnings)
				js := string(f.AppendJSON(nil))
				for _, w := range tc.want {
					require.Contains(t, js, w)
				}
				// Every key and value that is not null, outside control
				// records, is decoded.
				require.Equal(t, strings.Count(js, `"format":"kafka"`), strings.Count(js, `"decoded":{`), js)
				bothPaths(t, fr.b, fr.o)
				back, err := Encode(nil, []byte(js), EncodeOptions{})
				require.NoError(t, err)
				require.Equal(t, fr.b, back, "decode, then encode: the same bytes")
				o := fr.o
				for maxNodes := 10; maxNodes < 600; maxNodes += 13 {
					o.MaxNodes = maxNodes
					bothPaths(t, fr.b, o)
				}
			}
		})
	}
}

// Keys and values of internal topics that do not read as their schemas
// say keep their bytes, and a warning says why at the byte where reading
// stopped, the same through the tree and the JSON walk; the rest of the
// frame decodes; a declared count costs nothing it does not hold.
func TestInternalTopicsBroken(t *testing.T) {
	ok := kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "t", Partition: 0}
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset = 3, 7
	full := ov.AppendTo(nil)
	hugeMembers := append([]byte{0, 3, 0, 8, 'c', 'o', 'n', 's', 'u', 'm', 'e', 'r', 0, 0, 0, 1, 0, 1, 'r', 0, 1, 'l', 0, 0, 0, 0, 0, 0, 0, 0}, 0x7f, 0xff, 0xff, 0xff)
	gk := kmsg.GroupMetadataKey{Version: 2, Group: "g"}
	for _, tc := range []struct {
		name, topic string
		key, value  []byte
		want        string // in a warning
	}{
		{"unknown key type", "__consumer_offsets", []byte{0, 99, 0, 1, 'g'}, full, "expected a record type of __consumer_offsets, found 99"},
		{"short key", "__consumer_offsets", []byte{0}, full, "expected an int16 record type, found 1 bytes"},
		{"truncated value", "__consumer_offsets", ok.AppendTo(nil), full[:len(full)-3], "not decoded as OffsetCommitValue"},
		{"trailing bytes", "__consumer_offsets", ok.AppendTo(nil), append(full[:len(full):len(full)], 1, 2), "not decoded as OffsetCommitValue"},
		{"null key", "__consumer_offsets", nil, full, "this one's key is null"},
		{"value version unknown", "__consumer_offsets", ok.AppendTo(nil), append([]byte{0x7f, 0}, full[2:]...), "version 32512 is newer than any known"},
		{"members count max", "__consumer_offsets", gk.AppendTo(nil), hugeMembers, "not decoded as GroupMetadataValue"},
		{"metadata frame version", "__cluster_metadata", nil, []byte{2, 2, 0, 7, 'o', 'r', 'd', 'e', 'r', 's'}, "expected frame version 1, found 2"},
		{"metadata type unknown", "__cluster_metadata", nil, []byte{1, 0x7f, 0, 0}, "a record type (apiKey) of __cluster_metadata, found 127"},
		{"metadata varint", "__cluster_metadata", nil, []byte{1, 0xff, 0xff, 0xff}, "an unsigned varint below 32768"},
		{"metadata key", "__cluster_metadata", []byte("k"), nil, "has a key, where its records' keys are null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := fetchOf(12, tc.topic, [16]byte{}, topicBatch(t, "none", tc.key, tc.value, ok.AppendTo(nil), full))
			o := Options{Response: true, APIKey: 1, Version: 12}
			f, err := Decode(b, o)
			require.NoError(t, err)
			require.NotEmpty(t, f.Warnings)
			found := false
			for _, w := range f.Warnings {
				if strings.Contains(w.Message, tc.want) {
					found = true
					// The key's or value's own place, named only now that
					// a warning asks (the reader's path is lazy).
					require.Regexp(t, `^body\.responses\[0\]\.partitions\[0\]\.records\[0\]\.records\[[01]\]\.(key|value)(\.|$)`, w.Path)
					require.Greater(t, w.Offset, 0)
				}
			}
			require.True(t, found, "%v", f.Warnings)
			js := string(f.AppendJSON(nil))
			// The second record reads whole in __consumer_offsets.
			if tc.topic == "__consumer_offsets" {
				require.Contains(t, js, `"version":3,"schema":"OffsetCommitValue","decoded":{"offset":7`)
			}
			back, err := Encode(nil, []byte(js), EncodeOptions{})
			require.NoError(t, err)
			require.Equal(t, b, back, "the bytes not decoded are kept")
			bothPaths(t, b, o)
			for maxNodes := 5; maxNodes < 120; maxNodes += 3 {
				o.MaxNodes = maxNodes
				bothPaths(t, b, o)
			}
		})
	}
}

// FuzzInternalTopics: any key and value in a record of any internal topic,
// carried in a Fetch response, decode without a panic, identically
// through the tree and the JSON walk (warnings, budget, JSON), and the
// JSON encodes back to the same bytes.
func FuzzInternalTopics(f *testing.F) {
	ok := kmsg.OffsetCommitKey{Version: 1, Group: "billing", Topic: "orders", Partition: 1}
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset = 3, 42
	kv := consumerOffsetsRecords(f)
	for i := 0; i+1 < len(kv); i += 2 {
		f.Add(uint8(0), kv[i], kv[i+1])
	}
	tk := kmsg.TxnMetadataKey{Version: 0, TransactionalID: "tx"}
	tv := kmsg.NewTxnMetadataValue()
	tv.Version, tv.Topics = 1, []kmsg.TxnMetadataValueTopic{{Topic: "orders", Partitions: []int32{0, 1}}}
	f.Add(uint8(1), tk.AppendTo(nil), tv.AppendTo(nil))
	f.Add(uint8(2), []byte(nil), []byte{1, 2, 0, 7, 'o', 'r', 'd', 'e', 'r', 's', 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0})
	f.Add(uint8(2), []byte(nil), []byte{1, 29, 0, 0x0b, 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A', 0})
	f.Add(uint8(3), []byte{0, 0}, []byte{0, 0})
	f.Add(uint8(4), []byte(nil), []byte{1, 0, 0})
	f.Add(uint8(0), ok.AppendTo(nil), ov.AppendTo(nil))
	topics := schema.InternalTopics()
	f.Fuzz(func(t *testing.T, which uint8, key, value []byte) {
		topic := topics[int(which)%len(topics)].Name
		recs, err := rec.Encode(nil, []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "attributes": map[string]any{"compression": "none"},
			"lastOffsetDelta": 0, "baseTimestamp": 0, "maxTimestamp": 0, "producerId": -1, "producerEpoch": -1, "baseSequence": -1,
			"records": []any{map[string]any{"attributes": 0, "timestampDelta": 0, "offsetDelta": 0, "key": nilIfEmpty(key), "value": nilIfEmpty(value), "headers": []any{}}}}})
		if err != nil {
			t.Fatal(err)
		}
		b := fetchOf(12, topic, [16]byte{}, recs)
		o := Options{Response: true, APIKey: 1, Version: 12, Limits: Limits{MaxNodes: 1 << 14, MaxWork: 1 << 20}}
		if which&0x80 != 0 {
			o.MaxNodes = 10 + int(which&0x3f)
		}
		bothPaths(t, b, o)
		f, err := Decode(b, o)
		if err == nil && len(f.Warnings) == 0 {
			back, err := Encode(nil, f.AppendJSON(nil), EncodeOptions{})
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if string(back) != string(b) {
				t.Fatalf("decode, then encode: other bytes")
			}
		}
	})
}

func nilIfEmpty(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// KRaft's voters fetch __cluster_metadata by its fixed id (Kafka's
// Uuid.METADATA_TOPIC_ID, AAAAAAAAAAAAAAAAAAAAAQ): its records decode
// with no id lookup, and a topic after it with an unknown id does not.
func TestClusterMetadataFetchedByFixedID(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("..", "testdata", "storage", "logdir", "__cluster_metadata-0", "00000000000000000000.log"))
	require.NoError(t, err)
	r := kmsg.NewPtrFetchResponse()
	r.Version = 17
	for _, id := range [][16]byte{{15: 1}, {15: 2}} {
		tp := kmsg.NewFetchResponseTopic()
		tp.TopicID = id
		p := kmsg.NewFetchResponseTopicPartition()
		p.HighWatermark, p.LastStableOffset, p.RecordBatches = 10, 10, log
		tp.Partitions = append(tp.Partitions, p)
		r.Topics = append(r.Topics, tp)
	}
	b, _ := frameOf(r, 1, 17, true, true)
	o := Options{Response: true, APIKey: 1, Version: 17}
	f, err := Decode(b, o)
	require.NoError(t, err)
	js := string(f.AppendJSON(nil))
	first := js[:strings.Index(js, `"AAAAAAAAAAAAAAAAAAAAAg"`)]
	require.Contains(t, first, `"schema":"TopicRecord","decoded":{"name":"orders"`)
	require.NotContains(t, js[len(first):], `"schema"`, "the second topic's id names nothing")
	bothPaths(t, b, o)
}

// BenchmarkInternalTopicsFetch: a Fetch response of 1,000 offset commits
// read to value JSON, as records of __consumer_offsets (keys and values
// decoded through their schemas) and, for scale, as an ordinary topic's
// (keys and values as text or base64).
func BenchmarkInternalTopicsFetch(b *testing.B) {
	var kv [][]byte
	for i := 0; i < 1000; i++ {
		ok := kmsg.OffsetCommitKey{Version: 1, Group: "billing-" + strconv.Itoa(i%7), Topic: "orders", Partition: int32(i % 12)}
		ov := kmsg.NewOffsetCommitValue()
		ov.Version, ov.Offset, ov.LeaderEpoch, ov.CommitTimestamp = 3, int64(1000+i), 5, 1700000000000+int64(i)
		kv = append(kv, ok.AppendTo(nil), ov.AppendTo(nil))
	}
	batch := topicBatch(b, "none", kv...)
	for _, topic := range []string{"__consumer_offsets", "orders"} {
		fr := fetchOf(12, topic, [16]byte{}, batch)
		b.Run(topic, func(b *testing.B) {
			var d Decoder
			o := Options{Response: true, APIKey: 1, Version: 12}
			var out []byte
			b.SetBytes(int64(len(fr)))
			b.ReportAllocs()
			for b.Loop() {
				out, _, _ = d.AppendJSON(out[:0], fr, o)
			}
		})
		b.Run(topic+"/tree", func(b *testing.B) {
			var d Decoder
			o := Options{Response: true, APIKey: 1, Version: 12}
			b.SetBytes(int64(len(fr)))
			b.ReportAllocs()
			for b.Loop() {
				d.Decode(fr, o)
			}
		})
	}
}
