package check

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// withGaps sets the connection's lost-bytes count on exchanges whose
// frames came after that many gaps, as kwire check hands it from the
// capture (Conn.Gaps so far, and the frames' own Gaps).
func withGaps(xs []Exchange, gaps int) []Exchange {
	for i := range xs {
		xs[i].Gaps, xs[i].StreamGaps = gaps, gaps
	}
	return xs
}

// skippedIDs lists the rules said not judged.
func skippedIDs(fs []Finding) []string {
	var ids []string
	for _, f := range fs {
		if f.Skipped {
			ids = append(ids, f.Rule.ID)
		}
	}
	return ids
}

// pid7Batch is an idempotent batch of producer id 7 at epoch, starting at
// sequence seq.
func pid7Batch(epoch int16, seq int32) []byte {
	x := plain()
	x.pid, x.epoch, x.seq = 7, epoch, seq
	return x.bytes()
}

// TestSequenceNotJudgedAcrossLostBytes: a producer's batch that follows
// bytes the capture lost (the batches between may be in them) is not
// judged by conv.sequence, and the finding says so; with no loss the same
// batches are an error.
func TestSequenceNotJudgedAcrossLostBytes(t *testing.T) {
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	batch := func(seq int32) []byte { return pid7Batch(0, seq) }
	// The first batch at a new epoch does not start at 0.
	first := func(gaps int) []Exchange {
		xs := exchangesOn(cn, initPIDReq(4, 1, nil), initPIDRsp(4, 1, 7),
			produce(9, 2, nil, batch(0)), produceOK(9, 2, 0))
		return append(xs, withGaps(exchangesOn(cn, produce(9, 3, nil, pid7Batch(1, 1)), produceOK(9, 3, 1)), gaps)...)
	}
	require.Contains(t, ruleIDs(Check(first(0))), "conv.sequence")
	fs := Check(first(1))
	require.NotContains(t, ruleIDs(fs), "conv.sequence")
	require.Contains(t, skippedIDs(fs), "conv.sequence")

	// A later batch leaves a gap in the sequence.
	later := func(gaps int) []Exchange {
		xs := exchangesOn(cn, initPIDReq(4, 1, nil), initPIDRsp(4, 1, 7),
			produce(9, 2, nil, batch(0)), produceOK(9, 2, 0))
		xs = append(xs, withGaps(exchangesOn(cn, produce(9, 4, nil, batch(5)), produceOK(9, 4, 2)), gaps)...)
		// and after the loss the producer is followed again
		return append(xs, withGaps(exchangesOn(cn, produce(9, 5, nil, batch(11)), produceOK(9, 5, 3)), gaps)...)
	}
	require.Contains(t, ruleIDs(Check(later(0))), "conv.sequence")
	fs = Check(later(1))
	require.Contains(t, skippedIDs(fs), "conv.sequence")
	n := 0
	for _, f := range fs {
		if !f.Skipped && f.Rule.ID == "conv.sequence" {
			n++
		}
	}
	require.Equal(t, 1, n, "the batch after the first one past the loss is judged: %v", fs)
}

// TestFetchOffsetNotJudgedAcrossLostBytes: a fetch offset that goes back
// after bytes were lost (a reset may be in them) is not judged by
// conv.fetch-offset, and the finding says so.
func TestFetchOffsetNotJudgedAcrossLostBytes(t *testing.T) {
	fetched := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	run := func(gaps int) []Finding {
		xs := exchangesOn(cn, fetchReq(11, 1, 10), fetchRsp(11, 1, 12, fetched(10)))
		// the coordinator connection lost bytes (an OffsetFetch, say)
		xs = append(xs, withGaps(exchangesOn(coord, initPIDReq(4, 1, nil), initPIDRsp(4, 1, 7)), gaps)...)
		xs = append(xs, exchangesOn(cn, fetchReq(11, 2, 5), fetchRsp(11, 2, 12, fetched(5)))...)
		return Check(xs)
	}
	require.Contains(t, ruleIDs(run(0)), "conv.fetch-offset")
	fs := run(1)
	require.NotContains(t, ruleIDs(fs), "conv.fetch-offset")
	require.Contains(t, skippedIDs(fs), "conv.fetch-offset")
}

// at sets where an exchange's request was, and drops its response (lost
// from the capture, so the exchange ends late: when the connection
// closes, after later exchanges of its connection).
func at(xs []Exchange, pkt int, answered bool) []Exchange {
	for i := range xs {
		xs[i].RequestPacket = pkt
		if !answered {
			xs[i].Response, xs[i].Gaps = nil, 1
		}
	}
	return xs
}

// TestLateEndedExchangeNotJudged: kwire check takes exchanges in the
// order they end, and a request whose response the capture lost ends
// after the requests sent after it. Its batch or fetch offset, older
// than the state the later ones left, is not judged (said so), and does
// not move that state back.
func TestLateEndedExchangeNotJudged(t *testing.T) {
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	batch := func(seq int32) []byte { return pid7Batch(0, seq) }
	xs := at(exchangesOn(cn, initPIDReq(4, 1, nil), initPIDRsp(4, 1, 7)), 1, true)
	xs = append(xs, at(exchangesOn(cn, produce(9, 2, nil, batch(0)), produceOK(9, 2, 0)), 3, true)...)
	late := at(exchangesOn(cn, produce(9, 3, nil, batch(2)), produceOK(9, 3, 2)), 5, false)
	xs = append(xs, withGaps(at(exchangesOn(cn, produce(9, 4, nil, batch(4)), produceOK(9, 4, 4)), 7, true), 1)...)
	xs = append(xs, late...)
	xs = append(xs, withGaps(at(exchangesOn(cn, produce(9, 5, nil, batch(6)), produceOK(9, 5, 6)), 9, true), 1)...)
	fs := Check(xs)
	require.NotContains(t, ruleIDs(fs), "conv.sequence")
	require.Contains(t, skippedIDs(fs), "conv.sequence")

	fetched := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	xs = at(exchangesOn(cn, fetchReq(11, 1, 10), fetchRsp(11, 1, 12, fetched(10))), 1, true)
	late = at(exchangesOn(cn, fetchReq(11, 2, 12), fetchRsp(11, 2, 14, fetched(12))), 3, false)
	xs = append(xs, withGaps(at(exchangesOn(cn, fetchReq(11, 3, 14), fetchRsp(11, 3, 16, fetched(14))), 5, true), 1)...)
	xs = append(xs, late...)
	xs = append(xs, withGaps(at(exchangesOn(cn, fetchReq(11, 4, 16), fetchRsp(11, 4, 16)), 7, true), 1)...)
	fs = Check(xs)
	require.NotContains(t, ruleIDs(fs), "conv.fetch-offset")
	require.Contains(t, skippedIDs(fs), "conv.fetch-offset")
}

// checkMissed checks xs as kwire proxy --check does when its decoding
// falls behind: n exchanges left out before xs[i] (i == len(xs): after
// the last, before End), said to the checker with Missed. Every
// connection is closed at the end, as when the proxy stops.
func checkMissed(xs []Exchange, i, n int) []Finding {
	var z Analyzer
	c := NewChecker()
	var out []Finding
	for j := range xs {
		if j == i {
			c.Missed(n)
		}
		out = append(out, c.Add(z.Analyze(&xs[j]))...)
	}
	if i == len(xs) {
		c.Missed(n)
	}
	for j := range xs {
		xs[j].Conn.Closed = true
	}
	return append(out, c.End()...)
}

// TestRulesNotJudgedAcrossMissedExchanges: an exchange kwire proxy
// --check skipped (its decoding was behind) is lost data for every rule
// that follows a connection or a conversation, as bytes lost from a
// capture are: what the rule expects may be in it, so it is not judged,
// and its line says why. Each case is a fault when nothing is missed,
// and the exchange missed is the one that would have made it right. It
// was 265 false conv.sequence errors in a run of kgo's idempotent
// producer through the proxy at the default --decode-cpu.
func TestRulesNotJudgedAcrossMissedExchanges(t *testing.T) {
	txn := kmsg.StringPtr("tx-1")
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	seqBatch := func(seq int32, attrs int16) []byte {
		x := plain()
		x.pid, x.epoch, x.seq, x.attrs = 8, 0, seq, attrs
		return x.bytes()
	}
	fetched := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	hs := req(&kmsg.SASLHandshakeRequest{Mechanism: "PLAIN"}, 1, 1)
	hsOK := rsp(&kmsg.SASLHandshakeResponse{SupportedMechanisms: []string{"PLAIN"}}, 1, 1)
	for _, tc := range []struct {
		rule string
		xs   func() []Exchange
		at   int // where the exchange that would make it right was left out
	}{
		// produce at sequence 2 missed
		{"conv.sequence", func() []Exchange {
			return exchangesOn(cn, initPIDReq(4, 1, nil), initPIDRsp(4, 1, 8),
				produce(9, 2, nil, seqBatch(0, 0)), produceOK(9, 2, 0),
				produce(9, 4, nil, seqBatch(4, 0)), produceOK(9, 4, 4))
		}, 2},
		// AddPartitionsToTxn missed
		{"conv.txn-add", func() []Exchange {
			xs := exchangesOn(coord, initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8))
			xs = append(xs, exchangesOn(cn, produce(9, 3, txn, seqBatch(0, 0x10)), produceOK(9, 3, 0))...)
			return append(xs, exchangesOn(coord, endTxnReq(3, 4, "tx-1", 8), endTxnRsp(3, 4))...)
		}, 1},
		// AddPartitionsToTxn and the transactional produce missed: EndTxn
		// seems to end an empty transaction
		{"conv.txn-end", func() []Exchange {
			return exchangesOn(coord, initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8),
				endTxnReq(3, 4, "tx-1", 8), endTxnRsp(3, 4))
		}, 1},
		// the EndTxn missed, the last exchange: the transaction seems left open
		{"conv.txn-end", func() []Exchange {
			xs := exchangesOn(coord, initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8), addPartsReq(3, 2, "tx-1", 8), addPartsRsp(3, 2))
			return append(xs, exchangesOn(cn, produce(9, 3, txn, seqBatch(0, 0x10)), produceOK(9, 3, 0))...)
		}, 3},
		// a ListOffsets reset missed
		{"conv.fetch-offset", func() []Exchange {
			return exchangesOn(cn, fetchReq(11, 1, 10), fetchRsp(11, 1, 12, fetched(10)), fetchReq(11, 3, 5), fetchRsp(11, 3, 12, fetched(5)))
		}, 1},
		// the fetch that returned offsets 12-13 missed
		{"conv.commit-offset", func() []Exchange {
			xs := exchangesOn(cn, fetchReq(11, 1, 10), fetchRsp(11, 1, 14, fetched(10)))
			return append(xs, exchangesOn(coord, commitReq(8, 1, 14), commitRsp(8, 1))...)
		}, 1},
		// the first fetch, from offset 0, missed
		{"conv.commit-offset", func() []Exchange {
			xs := exchangesOn(cn, fetchReq(11, 2, 10), fetchRsp(11, 2, 12, fetched(10)))
			return append(xs, exchangesOn(coord, commitReq(8, 1, 2), commitRsp(8, 1))...)
		}, 0},
		// the JoinGroup answer that gave member id m9 missed
		{"conv.group-generation", func() []Exchange {
			return exchangesOn(coord, append(member(), heartbeatReq(6, "m9", 2), heartbeatRsp(6, 25))...)
		}, 5},
		// the ConsumerGroupHeartbeat answer that gave epoch 7 missed
		{"conv.member-epoch", func() []Exchange {
			return exchangesOn(coord, cghReq(1, 0), cghRsp(1, 0, 1), cghReq(2, 1), cghRsp(2, 0, 2), cghReq(3, 7), cghRsp(3, 110, 0))
		}, 2},
	} {
		fs := checkMissed(tc.xs(), tc.at, 0)
		require.Contains(t, ruleIDs(fs), tc.rule, "%s, nothing missed: the fault", tc.rule)
		fs = checkMissed(tc.xs(), tc.at, 1)
		require.NotContains(t, ruleIDs(fs), tc.rule, "%s, an exchange missed: %s", tc.rule, findingLines(fs))
		said := false
		for _, f := range fs {
			if f.Skipped && f.Rule.ID == tc.rule {
				require.Contains(t, f.What, "after exchanges were left out unchecked", tc.rule)
				said = true
			}
		}
		require.True(t, said, "%s: not judged, and said so: %s", tc.rule, findingLines(fs))
	}

	// conn.sasl follows one connection: its exchanges left out (the
	// proxy counts them per connection, as Exchange.Gaps) may be the
	// SaslAuthenticate.
	xs := exchangesOn(cn, hs, hsOK, metadataReq(9, 3, "orders"), metadataRsp(9, 3))
	require.Contains(t, ruleIDs(Check(xs)), "conn.sasl")
	xs[1].Gaps = 1
	fs := Check(xs)
	require.NotContains(t, ruleIDs(fs), "conn.sasl")
	require.Contains(t, skippedIDs(fs), "conn.sasl")
}

// TestSequenceFollowsEpochs: conv.sequence judges as Kafka's
// ProducerAppendInfo.checkSequence does. Sequences were kept per epoch,
// so a new epoch that did not start at 0, and an epoch that went back,
// were never compared with the batches before them ("earlier batches
// were not captured", though they were); and the first batch of a
// producer just granted its id was held to sequence 0, which Kafka does
// not demand of a producer it holds no state of for the partition.
func TestSequenceFollowsEpochs(t *testing.T) {
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	run := func(batches ...[]byte) []Finding {
		xs := exchangesOn(cn, initPIDReq(4, 1, nil), initPIDRsp(4, 1, 7))
		for i, b := range batches {
			xs = append(xs, exchangesOn(cn, produce(9, int32(2+i), nil, b), produceOK(9, int32(2+i), int64(2*i)))...)
		}
		return Check(xs)
	}
	judged := func(fs []Finding) []Finding {
		var out []Finding
		for _, f := range fs {
			if !f.Skipped && f.Rule.ID == "conv.sequence" {
				out = append(out, f)
			}
		}
		return out
	}

	// A first batch may start anywhere: said not judged, no error.
	fs := run(pid7Batch(0, 5), pid7Batch(0, 7))
	require.Empty(t, judged(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.sequence")

	// A new epoch starts at 0.
	require.Empty(t, judged(run(pid7Batch(0, 0), pid7Batch(1, 0), pid7Batch(1, 2))))
	fs = judged(run(pid7Batch(0, 0), pid7Batch(1, 2)))
	require.Len(t, fs, 1)
	require.Equal(t, "body.topicData[0].partitionData[0].records[0].baseSequence", fs[0].Where.Path)
	require.Contains(t, fs[0].String(), "at its new epoch 1 (after 0) does not start at sequence 0")

	// An epoch never goes back; the batch refused, the state stays.
	fs = judged(run(pid7Batch(1, 0), pid7Batch(0, 2), pid7Batch(1, 2)))
	require.Len(t, fs, 1, "the batch after the refused one follows the state before it")
	require.Equal(t, "body.topicData[0].partitionData[0].records[0].producerEpoch", fs[0].Where.Path)
	require.Contains(t, fs[0].String(), "went back to an older epoch")
}
