package check

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestTxnEndNeedsTheTransactionsStart: EndTxn goes to the transaction
// coordinator, which need not be the broker a capture covers. A capture
// of a three-broker cluster's bootstrap broker alone held a transactional
// producer's Produce (its partition's leader) but neither InitProducerId
// nor EndTxn (its coordinator, another broker): conv.txn-end warned
// "closed its connections with a transaction open". A transaction whose
// start was not captured is not judged; nor one whose coordinator said it
// moved (NOT_COORDINATOR), after which the producer may end it with a
// coordinator the capture does not see.
func TestTxnEndNeedsTheTransactionsStart(t *testing.T) {
	txn := kmsg.StringPtr("tx-1")
	leader := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true, Closed: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.8:9092", FromStart: true, Closed: true}
	batch := func() []byte {
		x := plain()
		x.pid, x.epoch, x.seq, x.attrs = 8, 0, 0, 0x10
		return x.bytes()
	}
	// The leader's connection alone.
	for _, v := range []int16{9, 12} {
		fs := Check(exchangesOn(leader, produce(v, 3, txn, batch()), produceOK(v, 3, 0)))
		require.NotContains(t, ruleIDs(fs), "conv.txn-end", "Produce v%d: %s", v, findingLines(fs))
		require.Contains(t, skippedIDs(fs), "conv.txn-end")
	}
	// With the coordinator's connection, the same transaction left open
	// is a warning.
	xs := exchangesOn(coord, initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8), addPartsReq(3, 2, "tx-1", 8), addPartsRsp(3, 2))
	xs = append(xs, exchangesOn(leader, produce(9, 3, txn, batch()), produceOK(9, 3, 0))...)
	require.Contains(t, ruleIDs(Check(xs)), "conv.txn-end")

	// The coordinator answers AddPartitionsToTxn NOT_COORDINATOR: the
	// producer finds another, unseen, adds the partition and ends the
	// transaction there. Neither the add nor the end is judged.
	for _, v := range []int16{3, 4} {
		moved := kmsg.NewPtrAddPartitionsToTxnResponse()
		tr := kmsg.NewAddPartitionsToTxnResponseTopic()
		tr.Topic = "orders"
		p := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
		p.ErrorCode = 16
		tr.Partitions = append(tr.Partitions, p)
		if v < 4 {
			moved.Topics = append(moved.Topics, tr)
		} else {
			rt := kmsg.NewAddPartitionsToTxnResponseTransaction()
			tt := kmsg.NewAddPartitionsToTxnResponseTransactionTopic()
			tt.Topic = "orders"
			tp := kmsg.NewAddPartitionsToTxnResponseTransactionTopicPartition()
			tp.ErrorCode = 16
			tt.Partitions = append(tt.Partitions, tp)
			rt.TransactionalID, rt.Topics = "tx-1", append(rt.Topics, tt)
			moved.Transactions = append(moved.Transactions, rt)
		}
		add := addPartsReq(3, 2, "tx-1", 8)
		if v >= 4 {
			r := kmsg.NewPtrAddPartitionsToTxnRequest()
			tx := kmsg.NewAddPartitionsToTxnRequestTransaction()
			tx.TransactionalID, tx.ProducerID = "tx-1", 8
			tt := kmsg.NewAddPartitionsToTxnRequestTransactionTopic()
			tt.Topic, tt.Partitions = "orders", []int32{0}
			tx.Topics = append(tx.Topics, tt)
			r.Transactions = append(r.Transactions, tx)
			add = req(r, v, 2)
		}
		xs := exchangesOn(coord, initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8), add, rsp(moved, v, 2))
		xs = append(xs, exchangesOn(leader, produce(9, 3, txn, batch()), produceOK(9, 3, 0))...)
		fs := Check(xs)
		require.NotContains(t, ruleIDs(fs), "conv.txn-end", "AddPartitionsToTxn v%d: %s", v, findingLines(fs))
		require.NotContains(t, ruleIDs(fs), "conv.txn-add", "AddPartitionsToTxn v%d: %s", v, findingLines(fs))
		require.Contains(t, skippedIDs(fs), "conv.txn-end")
	}
}

// TestTxnThroughAProxyIsNotEndedTwice: a capture holding both legs of
// kwire proxy (client to proxy on 19092, proxy to broker on 9092) carries
// each exchange twice, the broker's leg completing first. The second
// EndTxn found the transaction the first had ended, and conv.txn-end
// warned "EndTxn for producer id 8 ends a transaction that holds
// nothing". An EndTxn that repeats the one that ended the producer's
// transaction (same epoch, same commit or abort, nothing in it since) is
// that transaction's end again (a client's retry is too: the coordinator
// answers it as it answered the first), not an empty transaction.
func TestTxnThroughAProxyIsNotEndedTwice(t *testing.T) {
	txn := kmsg.StringPtr("tx-1")
	client := &Conn{ID: 1, Client: "127.0.0.1:50000", Broker: "127.0.0.1:19092", FromStart: true, Closed: true}
	broker := &Conn{ID: 2, Client: "127.0.0.1:50001", Broker: "127.0.0.1:9092", FromStart: true, Closed: true}
	batch := func(seq int32) []byte {
		x := plain()
		x.pid, x.epoch, x.seq, x.attrs = 8, 0, seq, 0x10
		return x.bytes()
	}
	// Each exchange as the proxy relays it: the broker's leg ends first.
	var xs []Exchange
	both := func(frames ...[]byte) {
		xs = append(xs, exchangesOn(broker, frames...)...)
		xs = append(xs, exchangesOn(client, frames...)...)
	}
	both(initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8))
	for i, corr := range []int32{2, 5} {
		both(addPartsReq(3, corr, "tx-1", 8), addPartsRsp(3, corr))
		both(produce(9, corr+1, txn, batch(int32(2*i))), produceOK(9, corr+1, int64(2*i)))
		both(endTxnReq(3, corr+2, "tx-1", 8), endTxnRsp(3, corr+2))
	}
	fs := Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))

	// One leg alone: the same.
	fs = Check(exchangesOn(client, initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8),
		addPartsReq(3, 2, "tx-1", 8), addPartsRsp(3, 2), produce(9, 3, txn, batch(0)), produceOK(9, 3, 0),
		endTxnReq(3, 4, "tx-1", 8), endTxnRsp(3, 4)))
	require.Empty(t, ruleIDs(fs), findingLines(fs))

	// An EndTxn of nothing is still an empty transaction, on either leg,
	// said once.
	xs = nil
	both(initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8))
	both(endTxnReq(3, 2, "tx-1", 8), endTxnRsp(3, 2))
	fs = Check(xs)
	n := 0
	for _, f := range fs {
		if f.Rule == ConvTxnEnd && !f.Skipped {
			n++
		}
	}
	require.Equal(t, 1, n, findingLines(fs))
	// A second EndTxn that aborts what the first committed is no repeat.
	abort := kmsg.NewPtrEndTxnRequest()
	abort.TransactionalID, abort.ProducerID, abort.ProducerEpoch, abort.Commit = "tx-1", 8, 0, false
	fs = Check(exchangesOn(client, initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8),
		addPartsReq(3, 2, "tx-1", 8), addPartsRsp(3, 2), produce(9, 3, txn, batch(0)), produceOK(9, 3, 0),
		endTxnReq(3, 4, "tx-1", 8), endTxnRsp(3, 4), req(abort, 3, 5), endTxnRsp(3, 5)))
	require.Equal(t, []string{"conv.txn-end"}, ruleIDs(fs), findingLines(fs))
}

// Three producers with one transactional id are given epochs 0, 1 and 2
// of one producer id (kgo against kfake, found by a probe). The first two
// are fenced: their produces are refused (INVALID_PRODUCER_EPOCH) and
// their aborting EndTxns too (PRODUCER_FENCED). conv.txn-end warned that
// the epoch-1 EndTxn "ends a transaction that holds nothing" (the
// epoch-0 one had ended the current transaction, wiping it), and
// conv.sequence called both old-epoch produces errors. A refused EndTxn
// ends nothing, an older epoch's is not the current transaction's end,
// and a zombie sending its old epoch before it is told is fencing at
// work. Told, sending that epoch again is an error.
func TestFencedProducersEndNothing(t *testing.T) {
	txn := kmsg.StringPtr("tx-1")
	const pid = 8
	cn := func(id int) *Conn {
		return &Conn{ID: id, Client: "10.0.0.1:4000" + itoa(id), Broker: "10.0.0.9:9092", FromStart: true}
	}
	initAt := func(epoch int16) []byte {
		r := kmsg.NewPtrInitProducerIDResponse()
		r.ProducerID, r.ProducerEpoch = pid, epoch
		return rsp(r, 4, 1)
	}
	batch := func(epoch int16, seq int32) []byte {
		x := plain()
		x.pid, x.epoch, x.seq, x.attrs = pid, epoch, seq, 0x10
		return x.bytes()
	}
	refusedProduce := func(corr int32, code int16) []byte {
		r := kmsg.NewPtrProduceResponse()
		tp := kmsg.NewProduceResponseTopic()
		tp.Topic = "orders"
		p := kmsg.NewProduceResponseTopicPartition()
		p.ErrorCode, p.BaseOffset = code, -1
		tp.Partitions = append(tp.Partitions, p)
		r.Topics = append(r.Topics, tp)
		return rsp(r, 12, corr)
	}
	endAt := func(corr int32, epoch int16, commit bool) []byte {
		r := kmsg.NewPtrEndTxnRequest()
		r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.Commit = "tx-1", pid, epoch, commit
		return req(r, 3, corr)
	}
	endRsp := func(corr int32, code int16) []byte {
		r := kmsg.NewPtrEndTxnResponse()
		r.ErrorCode = code
		return rsp(r, 3, corr)
	}
	var xs []Exchange
	for i := range 3 {
		xs = append(xs, exchangesOn(cn(1+i), initPIDReq(4, 1, txn), initAt(int16(i)))...)
	}
	xs = append(xs, exchangesOn(cn(5), produce(12, 1, txn, batch(2, 0)), produceOK(12, 1, 0))...)
	xs = append(xs, exchangesOn(cn(6), produce(12, 1, txn, batch(1, 0)), refusedProduce(1, 47))...)
	xs = append(xs, exchangesOn(cn(4), produce(12, 1, txn, batch(0, 0)), refusedProduce(1, 47))...)
	xs = append(xs, exchangesOn(cn(1), endAt(2, 0, false), endRsp(2, 90))...)
	xs = append(xs, exchangesOn(cn(2), endAt(2, 1, false), endRsp(2, 90))...)
	xs = append(xs, exchangesOn(cn(5), produce(12, 2, txn, batch(2, 2)), produceOK(12, 2, 2))...)
	// Another refusal (CONCURRENT_TRANSACTIONS, retried) ends nothing
	// either: the retry ends the transaction.
	xs = append(xs, exchangesOn(cn(3), endAt(2, 2, true), endRsp(2, 51), endAt(3, 2, true), endRsp(3, 0))...)
	fs := Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))

	// A fenced producer told so (INVALID_PRODUCER_EPOCH) that sends its
	// old epoch again is an error.
	told := append(xs[:len(xs):len(xs)], exchangesOn(cn(6), produce(12, 2, txn, batch(1, 1)), refusedProduce(2, 47))...)
	fs = Check(told)
	require.Equal(t, []string{"conv.sequence"}, ruleIDs(fs), findingLines(fs))
	require.Contains(t, findingLines(fs), "after being told it is fenced")

	// The current epoch's EndTxn of an empty transaction still is one.
	empty := append(xs[:len(xs):len(xs)], exchangesOn(cn(3), endAt(4, 2, false), endRsp(4, 0))...)
	require.Equal(t, []string{"conv.txn-end"}, ruleIDs(Check(empty)))
}

// TestEndSaysEveryOpenTransaction: End said one transaction not judged
// per rule, and none once the rule had been said not judged before (an
// EndTxn after an exchange left out): a capture that ended with four
// transactions open said nothing of them, or of one. Each reason is now
// said once, at the first transaction, with every producer id.
func TestEndSaysEveryOpenTransaction(t *testing.T) {
	txn := kmsg.StringPtr("tx-1")
	leader := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	coord := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.8:9092", FromStart: true}
	batch := func(pid int64) []byte {
		x := plain()
		x.pid, x.epoch, x.seq, x.attrs = pid, 0, 0, 0x10
		return x.bytes()
	}
	// tx-2's EndTxn comes after an exchange left out: conv.txn-end is
	// said not judged there, before the capture ends.
	xs := exchangesOn(coord, initPIDReq(4, 1, kmsg.StringPtr("tx-2")), initPIDRsp(4, 1, 30),
		endTxnReq(3, 2, "tx-2", 30), endTxnRsp(3, 2),
		initPIDReq(4, 3, txn), initPIDRsp(4, 3, 8), addPartsReq(3, 4, "tx-1", 8), addPartsRsp(3, 4))
	// Producer 8's transaction began where the capture saw it; those of
	// 20, 21 and 22 began before it.
	xs = append(xs, exchangesOn(leader, produce(9, 5, txn, batch(8)), produceOK(9, 5, 0),
		produce(9, 6, txn, batch(20)), produceOK(9, 6, 2),
		produce(9, 7, txn, batch(21)), produceOK(9, 7, 4),
		produce(9, 8, txn, batch(22)), produceOK(9, 8, 6))...)
	var z Analyzer
	c := NewChecker()
	var before []Finding
	for i := range xs {
		if i == 1 {
			c.Missed(1)
		}
		before = append(before, c.Add(z.Analyze(&xs[i]))...)
	}
	require.Contains(t, skippedIDs(before), "conv.txn-end", findingLines(before))
	var end []string
	for _, f := range c.End() {
		require.True(t, f.Skipped, f.String())
		require.Equal(t, "conv.txn-end", f.Rule.ID)
		end = append(end, f.What)
	}
	require.Equal(t, []string{
		"a transaction still open when the capture ended, its producer connected, is not judged: producer id 8",
		"a transaction whose start was not captured (no InitProducerId, AddPartitionsToTxn or earlier EndTxn of its producer: its coordinator's connection may not be in the capture) is not judged, nor are 2 more like it: producer ids 20, 21 and 22, the first here",
	}, end)
}
