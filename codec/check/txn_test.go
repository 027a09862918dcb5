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
