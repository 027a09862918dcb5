package main

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestCheckSequenceAcrossAClientGap: an idempotent producer's request
// lost from the capture between two that were captured leaves the batch
// after it unjudged by conv.sequence (the batches between may be in the
// lost bytes), even though the exchange before the gap was handed to the
// rules only after the capture had found the gap (its answer waited while
// the broker's ACK showed client bytes missing). The rules took loss from
// the connection's count of gaps when each exchange was handed over, so
// the batch before the gap was recorded as after it, and the one after
// was an error: a probe's 300 MB capture with a few lost segments gave 72
// false conv.sequence errors, and kwire check exited 1.
func TestCheckSequenceAcrossAClientGap(t *testing.T) {
	req := func(corr, seq int32) []byte {
		r := produceReq(nil, recordBatch(7, seq, false, 1))
		r.SetVersion(9)
		return kmsg.NewRequestFormatter(kmsg.FormatterClientID("kwire")).AppendRequest(nil, r, corr)
	}
	rsp := func(corr int32, base int64) []byte {
		r := kmsg.NewPtrProduceResponse()
		r.SetVersion(9)
		tp := kmsg.NewProduceResponseTopic()
		tp.Topic = "orders"
		p := kmsg.NewProduceResponseTopicPartition()
		p.BaseOffset, p.LogAppendTime, p.LogStartOffset = base, -1, 0
		tp.Partitions = append(tp.Partitions, p)
		r.Topics = append(r.Topics, tp)
		b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(corr))
		b = append(b, 0) // the flexible response header's tags
		b = r.AppendTo(b)
		binary.BigEndian.PutUint32(b, uint32(len(b)-4))
		return b
	}
	ms := time.Millisecond
	segs := []segment{
		{true, 0, req(1, 0)},
		{true, ms, req(2, 1)}, // lost
		{true, 2 * ms, req(3, 2)},
		{false, 3 * ms, rsp(1, 0)},
		{false, 4 * ms, rsp(2, 1)},
		{false, 5 * ms, rsp(3, 2)},
	}
	file := connPcap(t, true, []int{1}, segs...)
	out, errOut, code := runCLI(t, []string{"check", file}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.NotContains(t, out, "conv.sequence error", "the batch after the lost one was judged against the one before")
	require.Contains(t, out, "conv.sequence skipped conn 1 correlation 3 request")
	require.Contains(t, out, "a producer's batch after bytes were lost from the capture is not judged")

	// With nothing lost, the same batches are judged: in sequence.
	out, errOut, code = runCLI(t, []string{"check", connPcap(t, true, nil, segs...)}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.NotContains(t, out, "conv.sequence")
}
