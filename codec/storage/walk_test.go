package storage

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// fetchFrame is a Fetch response v12 (topics by name) whose one partition
// of topic holds a batch of one record, key and value (nil is null).
func fetchFrame(t *testing.T, topic string, key, value []byte) []byte {
	t.Helper()
	return fetchFrameOf(t, topic, oneRecordBatch(t, false, key, value))
}

// oneRecordBatch is a batch (a control batch when control) of one record,
// key and value (nil is null).
func oneRecordBatch(t *testing.T, control bool, key, value []byte) []byte {
	t.Helper()
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return b
	}
	batch, err := rec.Encode(nil, []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": "none", "control": control}, "lastOffsetDelta": 0, "baseTimestamp": 1700000000000, "maxTimestamp": 1700000000000,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1,
		"records": []any{map[string]any{"attributes": 0, "timestampDelta": 0, "offsetDelta": 0, "key": part(key), "value": part(value), "headers": []any{}}}}})
	require.NoError(t, err)
	return batch
}

// fetchFrameOf is fetchFrame for a batch given whole.
func fetchFrameOf(t *testing.T, topic string, batch []byte) []byte {
	t.Helper()
	r := kmsg.NewPtrFetchResponse()
	r.Version = 12
	tp := kmsg.NewFetchResponseTopic()
	tp.Topic = topic
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = 1, 1, batch
	tp.Partitions = append(tp.Partitions, p)
	r.Topics = append(r.Topics, tp)
	body := append(wire.AppendInt32(nil, 7), 0) // correlation id, no header tags
	body = r.AppendTo(body)
	return append(wire.AppendInt32(nil, int32(len(body))), body...)
}

// shape is what a node's children show, offsets left out (the two readers
// place the same bytes at different offsets).
func shape(n *tree.Node) []string {
	var out []string
	var walk func(n *tree.Node, depth int)
	walk = func(n *tree.Node, depth int) {
		out = append(out, strings.Repeat(" ", depth)+n.Name+" "+n.Type+" "+strconv.Itoa(n.End-n.Start)+" bytes")
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	for _, c := range n.Children {
		walk(c, 0)
	}
	return out
}

// kwire log and kwire decode read an internal topic's record through one
// walk: a record that does not read fails with the text the frame's
// warning has, at the same place, and a record that reads has the same
// nodes (names and types) under its key and value.
func TestLogReadsRecordsAsFramesDo(t *testing.T) {
	gk := kmsg.GroupMetadataKey{Version: 2, Group: "g"}
	ok := kmsg.OffsetCommitKey{Version: 1, Group: "g", Topic: "t", Partition: 0}
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset = 3, 7
	full := ov.AppendTo(nil)
	kv := [][]byte{}
	for _, b := range consumerGroupRecord() {
		kv = append(kv, b)
	}
	for name, tc := range map[string]struct {
		topic      string
		key, value []byte
		fails      bool
	}{
		"short key":       {"__consumer_offsets", []byte{0}, full, true},
		"unknown type":    {"__consumer_offsets", []byte{0, 99, 0, 1, 'g'}, full, true},
		"key cut short":   {"__consumer_offsets", gk.AppendTo(nil)[:4], nil, true},
		"null key":        {"__consumer_offsets", nil, full, true},
		"truncated value": {"__consumer_offsets", ok.AppendTo(nil), full[:len(full)-3], true},
		"frame version 0": {"__cluster_metadata", nil, []byte{0, 2, 0}, true},
		"unknown apiKey":  {"__cluster_metadata", nil, []byte{1, 99, 0}, true},
		"bad varint":      {"__cluster_metadata", nil, []byte{1, 0xff, 0xff, 0xff, 0xff, 0xff}, true},
		"trailing bytes":  {"__cluster_metadata", nil, []byte{1, 20, 0, 0, 9}, true},
		"offset commit":   {"__consumer_offsets", ok.AppendTo(nil), full, false},
		"classic group":   {"__consumer_offsets", kv[0], kv[1], false},
	} {
		t.Run(name, func(t *testing.T) {
			r := DecodeTopicRecord(tc.topic, BytesPart(tc.key), BytesPart(tc.value))
			f, err := codec.Decode(fetchFrame(t, tc.topic, tc.key, tc.value), codec.Options{Response: true, APIKey: 1, Version: 12})
			require.NoError(t, err)
			if !tc.fails {
				require.NoError(t, r.Err)
				require.Empty(t, f.Warnings)
				recNode, err := f.Root.Lookup("body.responses[0].partitions[0].records[0].records[0]")
				require.NoError(t, err)
				require.Equal(t, shape(recNode.Get("key")), shape(r.KeyNode))
				require.Equal(t, shape(recNode.Get("value")), shape(r.ValueNode))
				return
			}
			var re *RecordError
			require.ErrorAs(t, r.Err, &re)
			var said []string
			for _, w := range f.Warnings {
				said = append(said, w.Path+": "+w.Message)
				if w.Message == re.Msg && strings.HasSuffix(strings.Replace(w.Path, ".decoded", "", 1), re.Path) {
					return
				}
			}
			t.Fatalf("kwire log says %q at %q; the frame says %q", re.Msg, re.Path, said)
		})
	}
}

// A KRaft control record's value is written by the codec's walk, in a
// segment as in a frame: the same JSON, with an unknown tagged field.
// (The records package's own writer of data messages, which both used
// before, left it out.)
func TestLogWritesKRaftControlValuesAsFramesDo(t *testing.T) {
	value := wire.AppendInt16(nil, 0)                           // SnapshotHeaderRecord's Version
	value = wire.AppendInt64(value, 1700000002000)              // LastContainedLogTimestamp
	value = append(value, 1, 9, 2, 0xab, 0xcd)                  // a tag section: tag 9, 2 bytes
	batch := oneRecordBatch(t, true, []byte{0, 0, 0, 3}, value) // key: version 0, SNAPSHOT_HEADER
	f, err := codec.Decode(fetchFrameOf(t, "__cluster_metadata", batch), codec.Options{Response: true, APIKey: 1, Version: 12})
	require.NoError(t, err)
	var frame struct {
		Body struct {
			Responses []struct {
				Partitions []struct {
					Records []struct {
						Records []struct{ Control map[string]json.RawMessage }
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal(f.AppendJSON(nil), &frame))
	fromFrame := frame.Body.Responses[0].Partitions[0].Records[0].Records[0].Control["data"]

	s := NewSegment(bytes.NewReader(batch), SegmentOptions{})
	b, err := s.Next()
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, s.WriteJSON(&out, nil, b))
	var line struct {
		Batch struct {
			Records []struct{ Control map[string]json.RawMessage }
		}
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &line), out.String())
	fromLog := line.Batch.Records[0].Control["data"]

	require.JSONEq(t, `{"version":0,"lastContainedLogTimestamp":1700000002000,"_unknownTaggedFields":[{"tag":9,"data":"q80="}]}`, string(fromFrame))
	require.Equal(t, string(fromFrame), string(fromLog))
}

// consumerGroupRecord is a classic group's metadata record (key, value)
// with a member's consumer-protocol subscription and assignment.
func consumerGroupRecord() [][]byte {
	k := kmsg.GroupMetadataKey{Version: 2, Group: "billing"}
	v := kmsg.NewGroupMetadataValue()
	v.Version, v.ProtocolType, v.Generation = 3, "consumer", 4
	sub := kmsg.ConsumerMemberMetadata{Version: 1, Topics: []string{"orders"}}
	asg := kmsg.ConsumerMemberAssignment{Version: 1, Topics: []kmsg.ConsumerMemberAssignmentTopic{{Topic: "orders", Partitions: []int32{0}}}}
	v.Members = []kmsg.GroupMetadataValueMember{{MemberID: "m", ClientID: "c", ClientHost: "/h", Subscription: sub.AppendTo(nil), Assignment: asg.AppendTo(nil)}}
	return [][]byte{k.AppendTo(nil), v.AppendTo(nil)}
}
