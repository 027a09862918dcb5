package check

// Severity says how bad breaking a rule is. Error: Kafka's broker or Java
// client refuses it (an error code, a closed connection, an exception).
// Warning: Kafka accepts it, repairs it or cannot see it, but it is a
// mistake a peer may trip on. Note: allowed and worth knowing.
type Severity uint8

// Severities, in increasing order.
const (
	Note Severity = 1 + iota
	Warning
	Error
)

// String names the severity as findings and ParseSeverity spell it:
// "note", "warning", "error", or "none" for 0.
func (s Severity) String() string {
	switch s {
	case Note:
		return "note"
	case Warning:
		return "warning"
	case Error:
		return "error"
	}
	return "none"
}

// ParseSeverity reads "note", "warning", "error" (and "none", which is 0).
func ParseSeverity(s string) (Severity, bool) {
	switch s {
	case "note":
		return Note, true
	case "warning":
		return Warning, true
	case "error":
		return Error, true
	case "none":
		return 0, true
	}
	return 0, false
}

// Level is what a rule reads: one frame, the records inside one frame, one
// connection's exchanges, or the conversation across connections.
type Level uint8

// Levels.
const (
	LevelFrame Level = 1 + iota
	LevelRecords
	LevelConnection
	LevelConversation
)

// String names the level: "frame", "records", "connection" or
// "conversation" ("" for 0).
func (l Level) String() string {
	switch l {
	case LevelFrame:
		return "frame"
	case LevelRecords:
		return "records"
	case LevelConnection:
		return "connection"
	case LevelConversation:
		return "conversation"
	}
	return ""
}

// Rule is one protocol rule: its stable id, what it reads, how bad breaking
// it is, and what it says in one line. Its page (what Kafka requires, where
// Kafka's code or a KIP says so, an example that breaks it) is in package
// ruledoc, keyed by ID.
type Rule struct {
	ID        string
	Level     Level
	Severity  Severity
	Statement string
}

// The rules, in the order of the table. A new rule goes here (see the
// package doc: "Adding a rule").
var (
	FrameSize = &Rule{"frame.size", LevelFrame, Error,
		"A frame's size prefix covers exactly its header and body."}
	FrameAPI = &Rule{"frame.api", LevelFrame, Error,
		"A request names an API key Kafka defines, at a version that API has."}
	FrameHeaderVersion = &Rule{"frame.header-version", LevelFrame, Error,
		"A header is v2 (request) or v1 (response), with tagged fields, exactly when the API version is flexible."}
	FrameDecode = &Rule{"frame.decode", LevelFrame, Error,
		"A frame follows its API version's schema to its last byte."}
	FrameNegative = &Rule{"frame.negative", LevelFrame, Error,
		"Lengths and counts are never negative, except -1 for null where a field is nullable."}
	FrameNull = &Rule{"frame.null", LevelFrame, Error,
		"Only a nullable field is null."}
	FrameSASL = &Rule{"frame.sasl", LevelFrame, Error,
		"A SASL message is one Kafka reads: an authorization id names the user itself, SCRAM asks no channel binding and at least 4,096 iterations, and escapes its username's ',' and '=', and an OAUTHBEARER JWT names its subject, says when it was issued and when it expires (after it was issued), and was sent while valid."}
	FrameEnum = &Rule{"frame.enum", LevelFrame, Error,
		"Enumerated fields (acks, isolation level, resource and ACL types, coordinator key type, ...) hold one of their values."}
	FrameFetchSession = &Rule{"frame.fetch-session", LevelFrame, Error,
		"A Fetch request (v7+) with no session (session id 0) is a full fetch, epoch 0 (ask for a session) or -1 (none); no epoch is below -1."}
	FrameFetchForgotten = &Rule{"frame.fetch-forgotten", LevelFrame, Warning,
		"A Fetch request lists forgotten topics only when it continues a fetch session (an incremental fetch: epoch 1 or more), not in a full fetch (epoch 0 or -1)."}
	FrameTags = &Rule{"frame.tags", LevelFrame, Warning,
		"Tagged fields are written once each, in ascending tag order."}
	FrameTagSize = &Rule{"frame.tag-size", LevelFrame, Error,
		"A known tagged field's size is exactly its value's."}
	FrameUnknownTag = &Rule{"frame.unknown-tag", LevelFrame, Note,
		"A tagged field the API version does not define is skipped by its reader."}
	FrameTagDefault = &Rule{"frame.tag-default", LevelFrame, Note,
		"A tagged field holding its default value is left out."}
	FrameVarint = &Rule{"frame.varint", LevelFrame, Warning,
		"Varints are written in their shortest form."}
	FrameLenient = &Rule{"frame.lenient", LevelFrame, Warning,
		"Values are in their canonical form: bools 0 or 1, strings UTF-8, struct presence bytes 1 or -1."}

	RecordsCRC = &Rule{"records.crc", LevelRecords, Error,
		"A batch's CRC-32C (a legacy message's CRC-32) matches its bytes."}
	RecordsCount = &Rule{"records.count", LevelRecords, Error,
		"A batch holds the number of records its recordCount says."}
	RecordsOffsetDelta = &Rule{"records.last-offset-delta", LevelRecords, Error,
		"A produced batch's baseOffset is 0, its lastOffsetDelta is its recordCount less one, and its records' offsetDeltas count 0, 1, 2..."}
	RecordsMaxTimestamp = &Rule{"records.max-timestamp", LevelRecords, Warning,
		"A batch's maxTimestamp is the largest of its records' timestamps."}
	RecordsFirstTimestamp = &Rule{"records.first-timestamp", LevelRecords, Warning,
		"A produced batch's firstTimestamp is its first record's timestamp (that record's timestampDelta is 0)."}
	RecordsCodec = &Rule{"records.codec", LevelRecords, Error,
		"The codec a batch's attributes name is the codec its records are compressed with, and zstd needs Produce v7."}
	RecordsMagic = &Rule{"records.magic", LevelRecords, Error,
		"Produce v3 and later carry exactly one batch of magic 2 per partition; a Fetch response carries no magic newer than its version allows."}
	RecordsControl = &Rule{"records.control", LevelRecords, Error,
		"Clients produce no control batches; a control record's key is a version and a known type."}
	RecordsMarker = &Rule{"records.marker", LevelRecords, Warning,
		"A transaction marker's value is an EndTxnMarker: an int16 version of 0 or more and the coordinator's int32 epoch."}
	RecordsProducer = &Rule{"records.producer", LevelRecords, Error,
		"A produced batch with a producer id has an epoch and a base sequence; a transactional one has a producer id and a transactional id in its request."}
	RecordsRecord = &Rule{"records.record", LevelRecords, Error,
		"Each record parses to its declared length: lengths, varints and headers fit."}
	RecordsTruncated = &Rule{"records.truncated", LevelRecords, Error,
		"A produced batch is whole (only a Fetch response may end inside one)."}
	RecordsLenient = &Rule{"records.lenient", LevelRecords, Warning,
		"Unused attribute bits are zero and a compressed wrapper holds a value."}

	ConnVersion = &Rule{"conn.version", LevelConnection, Error,
		"A request's API version is within the range the broker advertised in ApiVersions."}
	ConnCorrelation = &Rule{"conn.correlation", LevelConnection, Error,
		"A correlation id is unique among a connection's requests in flight, and every response answers one."}
	ConnOrder = &Rule{"conn.order", LevelConnection, Error,
		"A broker answers a connection's requests in the order they came."}
	ConnSASL = &Rule{"conn.sasl", LevelConnection, Error,
		"On a SASL listener, SaslHandshake and SaslAuthenticate come before any API but ApiVersions."}
	ConnSASLExchange = &Rule{"conn.sasl-exchange", LevelConnection, Error,
		"SaslAuthenticate (or a raw token after SaslHandshake v0) speaks the mechanism SaslHandshake chose, and SCRAM's nonces chain from message to message."}
	ConnSASLHandshake = &Rule{"conn.sasl-handshake", LevelConnection, Warning,
		"A SaslHandshake answer lists the mechanisms the broker enables: the one asked for among them when it accepts it, at least one and not that one when it refuses it (UNSUPPORTED_SASL_MECHANISM)."}
	ConnRetryVersion = &Rule{"conn.retry-version", LevelConnection, Error,
		"After UNSUPPORTED_VERSION, a client does not send the same API at the same version again."}
	ConnFetchSessionUnused = &Rule{"conn.fetch-session-unused", LevelConnection, Note,
		"A client that asks a broker for a fetch session (session id 0, epoch 0) uses the one it is given before asking for another: each session left unused stays in the broker's fetch session cache until evicted."}

	ConvSequence = &Rule{"conv.sequence", LevelConversation, Error,
		"An idempotent producer's sequence numbers continue per producer id, epoch and partition: no gap, no overlap, a new epoch from 0, no epoch going back."}
	ConvTxnAdd = &Rule{"conv.txn-add", LevelConversation, Error,
		"A transactional producer adds a partition to its transaction before producing to it."}
	ConvTxnWrite = &Rule{"conv.txn-write", LevelConversation, Error,
		"A producer with a transaction open on a partition writes it only transactional batches until the transaction ends."}
	ConvTxnEnd = &Rule{"conv.txn-end", LevelConversation, Warning,
		"A transaction with records is ended by EndTxn before its producer leaves or starts another."}
	ConvFetchOffset = &Rule{"conv.fetch-offset", LevelConversation, Warning,
		"A consumer's fetch offset for a partition never goes back without a reset."}
	ConvCommitOffset = &Rule{"conv.commit-offset", LevelConversation, Warning,
		"A committed offset lies within what the consumer fetched of that partition."}
	ConvFetchSession = &Rule{"conv.fetch-session", LevelConversation, Error,
		"A consumer's incremental fetch names a fetch session its broker gave (KIP-227), at the epoch after its last fetch's: 1 after the answer that created the session, then 2, 3... (wrapping to 1)."}
	ConvFetchSessionTopicIDs = &Rule{"conv.fetch-session-topic-ids", LevelConversation, Error,
		"An incremental fetch names topics as the full fetch that created its session did: by topic id (Fetch v13 and later) or by name (v12 and earlier), never switching sides of v13 within a session."}
	ConvFetchSessionAnswer = &Rule{"conv.fetch-session-answer", LevelConversation, Warning,
		"A broker answers fetch sessions as Kafka's FetchManager does: FETCH_SESSION_TOPIC_ID_ERROR only to an incremental fetch, which it gives to one that switches sides of Fetch v13; no session id to a fetch at epoch -1; an incremental fetch it accepts under that fetch's own session id, or 0."}
	ConvGroupGeneration = &Rule{"conv.group-generation", LevelConversation, Warning,
		"A classic group member's SyncGroup, Heartbeat, OffsetCommit and LeaveGroup carry the member id and generation its latest JoinGroup answer gave it, and a JoinGroup that rejoins carries that member id."}
	ConvMemberEpoch = &Rule{"conv.member-epoch", LevelConversation, Warning,
		"A ConsumerGroupHeartbeat's member epoch is 0 (join), -1 or -2 (leave), or the epoch the coordinator's last answer gave the member (or the one before it)."}
)

var rules = []*Rule{
	FrameSize, FrameAPI, FrameHeaderVersion, FrameDecode, FrameNegative, FrameNull, FrameEnum, FrameSASL, FrameFetchSession, FrameFetchForgotten,
	FrameTags, FrameTagSize, FrameUnknownTag, FrameTagDefault, FrameVarint, FrameLenient,
	RecordsCRC, RecordsCount, RecordsOffsetDelta, RecordsMaxTimestamp, RecordsFirstTimestamp,
	RecordsCodec, RecordsMagic, RecordsControl, RecordsMarker, RecordsProducer, RecordsRecord, RecordsTruncated, RecordsLenient,
	ConnVersion, ConnCorrelation, ConnOrder, ConnSASL, ConnSASLExchange, ConnSASLHandshake, ConnRetryVersion, ConnFetchSessionUnused,
	ConvSequence, ConvTxnAdd, ConvTxnWrite, ConvTxnEnd, ConvFetchOffset, ConvCommitOffset, ConvFetchSession, ConvFetchSessionTopicIDs, ConvFetchSessionAnswer,
	ConvGroupGeneration, ConvMemberEpoch,
}

// Rules returns every rule, in table order. The slice is a copy.
func Rules() []*Rule { return append([]*Rule(nil), rules...) }

// RuleByID returns the rule with id, or nil.
func RuleByID(id string) *Rule {
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}
