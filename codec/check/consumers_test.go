package check

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// exchangesOn pairs frames (request, response, request, ...) into
// exchanges on connection cn.
func exchangesOn(cn *Conn, frames ...[]byte) []Exchange {
	var xs []Exchange
	for i := 0; i+1 < len(frames); i += 2 {
		xs = append(xs, Exchange{Conn: cn, Request: frames[i], Response: frames[i+1]})
	}
	return xs
}

// outOfRange answers a fetch with OFFSET_OUT_OF_RANGE.
func outOfRange(v int16, corr int32) []byte {
	r := kmsg.NewPtrFetchResponse()
	t := kmsg.NewFetchResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchResponseTopicPartition()
	p.ErrorCode = 1
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, v, corr)
}

// A consumer whose committed offset is past the log's end (the topic was
// recreated, the log truncated) gets OFFSET_OUT_OF_RANGE, resets with
// ListOffsets and fetches from the start: what it then commits lies
// within what it fetched, though before where it first fetched. It was a
// conv.commit-offset warning ("before where the consumer started
// fetching": kgo with a reset to the start, found by a tester).
func TestCommitAfterAResetIsWithinWhatWasFetched(t *testing.T) {
	fetched := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	leader := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	xs := exchangesOn(leader,
		fetchReq(11, 1, 100000), outOfRange(11, 1),
		listOffsets(0), listOffsetsRsp(1),
		fetchReq(11, 3, 0), fetchRsp(11, 3, 12, fetched(0)))
	xs = append(xs, exchangesOn(coord, commitReq(8, 1, 2), commitRsp(8, 1))...)
	require.NotContains(t, ruleIDs(Check(xs)), "conv.commit-offset")
	// A commit before the new start is still one.
	xs[len(xs)-1] = exchangesOn(coord, commitReq(8, 1, 100), commitRsp(8, 1))[0]
	require.Contains(t, ruleIDs(Check(xs)), "conv.commit-offset")
}

// Two consumers on one host with one client id (kgo's default "kgo",
// say), each over its own connection, fetch the same partition at their
// own offsets: neither goes back. It was a conv.fetch-offset warning; a
// consumer going back over its own connection still is one.
func TestConsumersSharingAClientIDAreNotOne(t *testing.T) {
	fetched := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	a := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	b := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	xs := exchangesOn(a, fetchReq(11, 1, 16), fetchRsp(11, 1, 20, fetched(16)))
	xs = append(xs, exchangesOn(b, fetchReq(11, 1, 8), fetchRsp(11, 1, 20, fetched(8)))...)
	xs = append(xs, exchangesOn(a, fetchReq(11, 2, 18), fetchRsp(11, 2, 20))...)
	require.NotContains(t, ruleIDs(Check(xs)), "conv.fetch-offset")
	xs = append(xs, exchangesOn(a, fetchReq(11, 3, 4), fetchRsp(11, 3, 20))...)
	require.Contains(t, ruleIDs(Check(xs)), "conv.fetch-offset")
}

// listOffsetsRsp answers listOffsets: offset 0.
func listOffsetsRsp(corr int32) []byte {
	r := kmsg.NewPtrListOffsetsResponse()
	t := kmsg.NewListOffsetsResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewListOffsetsResponseTopicPartition()
	p.Timestamp = -1
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, 2, corr)
}

// listOffsetsAt answers listOffsets with offset.
func listOffsetsAt(corr int32, offset int64) []byte {
	r := kmsg.NewPtrListOffsetsResponse()
	t := kmsg.NewListOffsetsResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewListOffsetsResponseTopicPartition()
	p.Timestamp, p.Offset = -1, offset
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, 2, corr)
}

// A consumer that fetched records 0-1, then sought to the end (ListOffsets
// answering 41: kafka-python's seek_to_end and position()) commits 41, the
// position the reset gave it: within the rule, as the offset a reset
// answered. It was a conv.commit-offset warning ("past what the consumer
// fetched, expected at most 2"). An offset no reset answered is still one.
func TestCommitTheOffsetAResetAnswered(t *testing.T) {
	leader := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	xs := exchangesOn(leader,
		fetchReq(11, 1, 0), fetchRsp(11, 1, 41, plain().bytes()),
		listOffsets(0), listOffsetsAt(2, 41))
	commit := func(off int64) []Exchange {
		return append(xs[:len(xs):len(xs)], exchangesOn(coord, commitReq(8, 1, off), commitRsp(8, 1))...)
	}
	require.Empty(t, ruleIDs(Check(commit(41))))
	require.Empty(t, ruleIDs(Check(commit(2))), "what was fetched, as before")
	require.Equal(t, []string{"conv.commit-offset"}, ruleIDs(Check(commit(42))))
	// Seeking to the start the same way (ListOffsets answering 0 after
	// fetching from 10) allows committing 0.
	xs = exchangesOn(leader,
		fetchReq(11, 1, 10), fetchRsp(11, 1, 41, func() []byte { x := plain(); x.base = 10; return x.bytes() }()),
		listOffsets(0), listOffsetsAt(2, 0))
	require.Empty(t, ruleIDs(Check(commit(0))))
	require.Equal(t, []string{"conv.commit-offset"}, ruleIDs(Check(commit(5))))
	// A fetch since the reset is what the commit is judged by again.
	xs = append(xs, exchangesOn(leader, fetchReq(11, 3, 12), fetchRsp(11, 3, 41))...)
	require.Equal(t, []string{"conv.commit-offset"}, ruleIDs(Check(commit(0))))
}

// An application's seek back (no reset on the wire) is one
// conv.fetch-offset warning; committing where it sought to is not a
// second one for the same seek (conv.commit-offset "before where the
// consumer started fetching"): the consumer fetched from there.
func TestASeekBackIsOneFinding(t *testing.T) {
	at := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	leader := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	xs := exchangesOn(leader,
		fetchReq(11, 1, 10), fetchRsp(11, 1, 20, at(10)),
		fetchReq(11, 2, 12), fetchRsp(11, 2, 20, at(12)),
		fetchReq(11, 3, 5), fetchRsp(11, 3, 20, at(5)))
	xs = append(xs, exchangesOn(coord, commitReq(8, 1, 7), commitRsp(8, 1))...)
	fs := Check(xs)
	n := 0
	for _, f := range fs {
		if !f.Skipped {
			n++
		}
	}
	require.Equal(t, []string{"conv.fetch-offset"}, ruleIDs(fs))
	require.Equal(t, 1, n, "one seek, one finding")
	// Before where it sought to is still one.
	xs[len(xs)-1] = exchangesOn(coord, commitReq(8, 1, 4), commitRsp(8, 1))[0]
	require.Equal(t, []string{"conv.commit-offset", "conv.fetch-offset"}, ruleIDs(Check(xs)))
}

// fencedRsp answers a fetch (v12) with FENCED_LEADER_EPOCH.
func fencedRsp(corr int32) []byte {
	r := kmsg.NewPtrFetchResponse()
	t := kmsg.NewFetchResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchResponseTopicPartition()
	p.ErrorCode = 74
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, 12, corr)
}

// divergingRsp answers a fetch (v12) with a divergingEpoch ending at end.
func divergingRsp(corr int32, end int64) []byte {
	r := kmsg.NewPtrFetchResponse()
	t := kmsg.NewFetchResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset = end, end
	p.DivergingEpoch.Epoch, p.DivergingEpoch.EndOffset = 3, end
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, 12, corr)
}

// fetchAtEpoch is a fetch (v12) at offset with currentLeaderEpoch epoch.
func fetchAtEpoch(corr int32, offset int64, epoch int32) []byte {
	r := kmsg.NewPtrFetchRequest()
	r.ReplicaID, r.MaxWaitMillis, r.MinBytes, r.MaxBytes = -1, 500, 1, 1<<20
	t := kmsg.NewFetchRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchRequestTopicPartition()
	p.FetchOffset, p.PartitionMaxBytes, p.CurrentLeaderEpoch = offset, 1<<20, epoch
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return req(r, 12, corr)
}

// okle is an OffsetForLeaderEpoch (v3) exchange answering end offset end
// (leader epoch -1 with end -1: undefined, KIP-320).
func okle(corr int32, end int64) []byte {
	r := kmsg.NewPtrOffsetForLeaderEpochResponse()
	t := kmsg.NewOffsetForLeaderEpochResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
	p.LeaderEpoch, p.EndOffset = 4, end
	if end < 0 {
		p.LeaderEpoch = -1
	}
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, 3, corr)
}

func okleReq(corr int32) []byte {
	r := kmsg.NewPtrOffsetForLeaderEpochRequest()
	r.ReplicaID = -1
	t := kmsg.NewOffsetForLeaderEpochRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewOffsetForLeaderEpochRequestTopicPartition()
	p.CurrentLeaderEpoch, p.LeaderEpoch = 5, 4
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return req(r, 3, corr)
}

// KIP-320: a consumer whose fetch was answered FENCED_LEADER_EPOCH
// validates its position with OffsetForLeaderEpoch (over another
// connection) and truncates it to the end offset answered; an undefined
// one (-1, leader epoch -1) resets it, and kgo fetches at -1 to be
// answered OFFSET_OUT_OF_RANGE. It was a conv.fetch-offset warning ("went
// back without a reset, expected at least 256, found -1": kgo against
// kfake with leader shuffles, found by a probe). Going back past the end
// offset answered still is one; a position validated through an answer
// the capture does not hold is said not judged.
func TestFetchOffsetTruncatedToTheEndOffsetAnswered(t *testing.T) {
	at := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	leader := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.8:9092", FromStart: true}
	run := func(end int64, refetch int64) []Finding {
		xs := exchangesOn(leader,
			fetchAtEpoch(1, 250, 4), fetchRsp(12, 1, 256, at(250)),
			fetchAtEpoch(2, 256, 4), fencedRsp(2))
		xs = append(xs, exchangesOn(other, okleReq(1), okle(1, end))...)
		return Check(append(xs, exchangesOn(leader, fetchAtEpoch(3, refetch, 5), outOfRange(12, 3))...))
	}
	fs := run(-1, -1)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-offset", findingLines(fs))
	fs = run(200, 200)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-offset", findingLines(fs))
	require.Equal(t, []string{"conv.fetch-offset"}, ruleIDs(run(200, 100)), "past the end offset answered")

	// The answer not captured: not judged, and said so.
	xs := exchangesOn(leader,
		fetchAtEpoch(1, 250, 4), fetchRsp(12, 1, 256, at(250)),
		fetchAtEpoch(2, 256, 4), fencedRsp(2),
		fetchAtEpoch(3, -1, 5), outOfRange(12, 3))
	fs = Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.fetch-offset")

	// A Fetch response's divergingEpoch (v12+) truncates the same way.
	div := func(refetch int64) []Finding {
		return Check(exchangesOn(leader,
			fetchAtEpoch(1, 250, 4), fetchRsp(12, 1, 256, at(250)),
			fetchAtEpoch(2, 256, 4), divergingRsp(2, 240),
			fetchAtEpoch(3, refetch, 4), fetchRsp(12, 3, 240)))
	}
	fs = div(240)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-offset", findingLines(fs))
	require.Equal(t, []string{"conv.fetch-offset"}, ruleIDs(div(230)))
}

// A capture holding both legs of kwire proxy (client to proxy, proxy to
// broker) has each fetch twice, over two connections of one host and
// client id, alternating; so do two consumers with one host and client
// id fetching a partition. The rule took a fetch over another connection
// as a new start, and said it judged none of them. Each connection's
// fetches being one consumer's, a fetch over a connection is judged
// against that connection's last: one that goes back on either leg is
// flagged there, a truncation (divergingEpoch) answered on both legs lets
// both go back, and a single move to another connection (a new leader) is
// still a new start.
func TestAlternatingFetchConnectionsJudged(t *testing.T) {
	at := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	client := &Conn{ID: 1, Client: "127.0.0.1:40001", Broker: "127.0.0.1:9192", FromStart: true}
	proxy := &Conn{ID: 2, Client: "127.0.0.1:40002", Broker: "127.0.0.1:9092", FromStart: true}
	// legs lays out fetches at offs over both legs as a capture holds
	// them: the client's request, the proxy's, the broker's answer, the
	// proxy's answer (rsp answers each).
	legs := func(offs []int64, rsp func(corr int32, off int64) []byte, back int) []Exchange {
		var xs []Exchange
		for i, off := range offs {
			corr := int32(i + 1)
			clientOff := off
			if i == back {
				clientOff = offs[i-1] - 1
			}
			n := 10 * (i + 1)
			p := exchangesOn(proxy, fetchAtEpoch(corr, off, 4), rsp(corr, off))
			p[0].RequestPacket, p[0].ResponsePacket = n+1, n+2
			c := exchangesOn(client, fetchAtEpoch(corr, clientOff, 4), rsp(corr, off))
			c[0].RequestPacket, c[0].ResponsePacket = n, n+3
			xs = append(xs, p[0], c[0])
		}
		return xs
	}
	data := func(corr int32, off int64) []byte { return fetchRsp(12, corr, 20, at(off)) }
	fs := Check(legs([]int64{10, 12, 14}, data, -1))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-offset", findingLines(fs))

	// The client's third fetch goes back (to 11): flagged on its leg.
	fs = Check(legs([]int64{10, 12, 14}, data, 2))
	got := judged(fs, "conv.fetch-offset")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, 1, got[0].Where.Conn)
	require.Contains(t, got[0].String(), "expected at least 12, found 11")

	// The broker answers the second fetch divergingEpoch 240: both legs
	// fetch at 240 next.
	fs = Check(legs([]int64{250, 256, 240, 241}, func(corr int32, off int64) []byte {
		if off == 256 {
			return divergingRsp(corr, 240)
		}
		return fetchRsp(12, corr, 256, at(off))
	}, -1))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-offset", findingLines(fs))

	// A new leader: one move, followed from there.
	xs := exchangesOn(client, fetchReq(11, 1, 10), fetchRsp(11, 1, 20, at(10)))
	xs = append(xs, exchangesOn(proxy, fetchReq(11, 1, 12), fetchRsp(11, 1, 20, at(12)), fetchReq(11, 2, 14), fetchRsp(11, 2, 20))...)
	fs = Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-offset", findingLines(fs))
	// ... and back to the first, behind where it was fetched over it.
	xs = append(xs, exchangesOn(client, fetchReq(11, 2, 8), fetchRsp(11, 2, 20, at(8)))...)
	fs = Check(xs)
	require.Equal(t, []string{"conv.fetch-offset"}, ruleIDs(fs), findingLines(fs))
}

// offsetFetch is an OffsetFetch (v5) exchange answering committed offset
// off for orders-0.
func offsetFetch(corr int32, off int64) (request, response []byte) {
	r := kmsg.NewPtrOffsetFetchRequest()
	r.Group = "billing"
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic, rt.Partitions = "orders", []int32{0}
	r.Topics = append(r.Topics, rt)
	a := kmsg.NewPtrOffsetFetchResponse()
	t := kmsg.NewOffsetFetchResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewOffsetFetchResponseTopicPartition()
	p.Offset, p.LeaderEpoch = off, -1
	t.Partitions = append(t.Partitions, p)
	a.Topics = append(a.Topics, t)
	return req(r, 5, corr), rsp(a, 5, corr)
}

// A consumer that rejoins its group reads its committed offset
// (OffsetFetch, over its coordinator's connection) and fetches from it,
// back from where it was. The OffsetFetch request was read without its
// client id, so the reset counted for another consumer and the fetch was
// a conv.fetch-offset warning.
func TestOffsetFetchResetsTheConsumer(t *testing.T) {
	at := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	leader := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.8:9092", FromStart: true}
	xs := exchangesOn(leader, fetchReq(11, 1, 100), fetchRsp(11, 1, 120, at(100)))
	q, a := offsetFetch(1, 50)
	xs = append(xs, exchangesOn(coord, q, a)...)
	xs = append(xs, exchangesOn(leader, fetchReq(11, 2, 50), fetchRsp(11, 2, 120, at(50)))...)
	fs := Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
}
