package storage

// TransactionStateName is the name Kafka's TransactionState gives the
// transactionStatus of a __transaction_state value (TransactionLogValue,
// an int8: the transaction coordinator's state of the transactional id),
// as its stateName says it ("Ongoing"), or "" for a value it does not
// have. The value JSON keeps the number (kwire encode reads it back); the
// views drawn for people name it beside the number, as they name error
// codes.
func TransactionStateName(v int64) string {
	if v < 0 || v >= int64(len(transactionStates)) {
		return ""
	}
	return transactionStates[v]
}

// transactionStates are TransactionState's ids and names
// (org.apache.kafka.coordinator.transaction.TransactionState).
var transactionStates = [...]string{
	0: "Empty",
	1: "Ongoing",
	2: "PrepareCommit",
	3: "PrepareAbort",
	4: "CompleteCommit",
	5: "CompleteAbort",
	6: "Dead",
	7: "PrepareEpochFence",
}

// ValueName is the name a view gives the value of an internal topic's
// field named field (Kafka's name, schema.Field.Name) holding v, beside
// the number, or "": a __transaction_state value's transactionStatus.
func ValueName(field string, v int64) string {
	if field == "TransactionStatus" {
		return TransactionStateName(v)
	}
	return ""
}
