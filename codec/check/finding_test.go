package check

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFindingJSONWhere pins a finding's JSON: every place it knows, in
// the order the consumers (kwire check --format json, SARIF) read, and
// none it does not know.
func TestFindingJSONWhere(t *testing.T) {
	for _, c := range []struct {
		where Where
		want  string
	}{
		{Where{Conn: 2, Frame: 3, Correlation: 7, HasCorr: true, Side: Request, Packet: 15, HasOffset: true, Offset: 63, Buf: 1, Path: "body.x"},
			`{"conn":2,"frame":3,"correlationId":7,"side":"request","packet":15,"offset":63,"buf":1,"path":"body.x"}`},
		{Where{HasCorr: true, HasOffset: true, Buf: 4}, `{"correlationId":0,"offset":0,"buf":4}`},
		{Where{Correlation: 7, Offset: 63, Buf: 1}, `{}`},
	} {
		f := &Finding{Rule: FrameSize, Severity: Error, Where: c.where, What: "w"}
		want := `{"rule":"frame.size","severity":"error","level":"frame","where":` + c.want + `,"what":"w"}`
		if got := string(f.AppendJSON(nil)); got != want {
			t.Errorf("AppendJSON(%+v)\n got %s\nwant %s", c.where, got, want)
		}
	}
}

// TestTrailingByteIsFrameSize: the codec says one trailing byte in the
// singular, which the plural's suffix did not match: a frame with one
// byte after its declared size broke no rule.
func TestTrailingByteIsFrameSize(t *testing.T) {
	for _, msg := range []string{"1 byte after the frame's declared size", "2 bytes after the frame's declared size"} {
		if got := classifyWarning(msg, false); got != FrameSize {
			t.Errorf("%q: %v, want frame.size", msg, got)
		}
	}
}

// A fetched record past its batch's lastOffsetDelta is one
// records.last-offset-delta finding, the batch's, though the decoder
// warns on the record too.
func TestRecordPastLastOffsetDeltaOnce(t *testing.T) {
	b := plain()
	b.lastDelta, b.keepLast = 0, true
	fs := Check(FromFrames(fr(fetchReq(11, 1, 2), fetchRsp(11, 1, 3, b.bytes()))))
	var got []string
	for _, f := range fs {
		if !f.Skipped {
			got = append(got, f.Rule.ID+" "+f.Where.Path)
		}
	}
	require.Equal(t, []string{"records.last-offset-delta body.responses[0].partitions[0].records[0].lastOffsetDelta"}, got)
}

// A frame that breaks one rule many times gives maxPerRule findings of it
// and one that counts the rest, whatever the rule: a crafted Produce of
// 65,000 topics, none with a batch, held 65,000 findings (270 MB).
func TestFindingsOfOneRuleAreCapped(t *testing.T) {
	r := kmsg.NewPtrProduceRequest()
	r.Acks, r.TimeoutMillis = -1, 30000
	for i := range 12 {
		tp := kmsg.NewProduceRequestTopic()
		tp.Topic = "t" + itoa(i)
		pt := kmsg.NewProduceRequestTopicPartition()
		pt.Records = []byte{} // no batch
		tp.Partitions = append(tp.Partitions, pt)
		r.Topics = append(r.Topics, tp)
	}
	fs := Check(FromFrames(fr(req(r, 9, 1), produceOK(9, 1, 0))))
	var magic []string
	for _, f := range fs {
		if f.Rule == RecordsMagic {
			magic = append(magic, f.Where.Path+": "+f.What)
		}
	}
	require.Len(t, magic, maxPerRule+1, findingLines(fs))
	require.Equal(t, "body.topicData[11].partitionData[0].records: 7 more in this frame, the last here", magic[maxPerRule])
}
