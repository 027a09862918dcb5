package check

import "time"

// Conn is a connection as the caller knows it.
type Conn struct {
	// ID numbers the connection (from 1). 0 means frames read from a
	// file: they are taken as one connection, in order.
	ID int
	// Client and Broker are the endpoints ("10.0.0.1:40000"), "" when
	// unknown. A broker's ApiVersions answer and whether its listener
	// speaks SASL are remembered by Broker.
	Client, Broker string
	// FromStart is set when the connection was seen from its first byte
	// (a capture with its SYN, a proxy, a file of frames): rules that
	// need the whole conversation judge it only then.
	FromStart bool
	// Closed is set once the connection is known to have closed (a FIN
	// or RST, a proxy's close); the caller may set it late.
	Closed bool
}

// Exchange is a request and its response as the caller paired them (by
// correlation id), either side possibly missing. Frames are whole, their
// 4-byte size prefix included.
type Exchange struct {
	Conn              *Conn
	Request, Response []byte
	// Where each frame was: the 1-based packet that completed it in a
	// capture, or its 1-based number in a file (0 when unknown).
	RequestPacket, ResponsePacket int
	RequestFrame, ResponseFrame   int
	// NoResponseExpected marks a Produce with acks=0.
	NoResponseExpected bool
	// Evicted marks a request given up on (too many were waiting);
	// ConnClosed one still waiting when its connection closed.
	Evicted, ConnClosed bool
	// Overtook counts the requests sent before this one on its connection
	// still waiting when its response came; Overtaken the later requests
	// answered while this one waited, the first being OvertakenBy.
	Overtook    int
	Overtaken   int
	OvertakenBy int32
	// ReusedCorrelation marks a request whose correlation id was that of
	// a request of its connection still waiting.
	ReusedCorrelation bool
	// SASLToken marks raw SASL tokens, which a client and broker exchange
	// after a SaslHandshake v0 (KIP-43): Request is the client's token and
	// Response the broker's answer, each its 4-byte size then the token,
	// with no Kafka header. Only the SASL rules read them (frame.sasl,
	// conn.sasl-exchange), as they read SaslAuthenticate's authBytes.
	SASLToken bool
	// GuessResponse reads a response with no request (Request nil) as
	// the likeliest response of any API and version, as kwire decode
	// does, and judges its frame rules: a caller that was handed it alone
	// (a file's frames) sets it. Unset, such a response is not decoded:
	// a capture's flood of them would guess each.
	GuessResponse bool
	// cut marks a frame of a file (Response) cut short that answers no
	// request and does not start as a client's request (FromFrames): it
	// is said to be cut, and nothing else of it is judged.
	cut bool
	// RequestTime is when the request was sent: a capture's packet time,
	// the proxy's clock; zero when unknown (frames from a file).
	// frame.sasl reads it, for a bearer token's expiry, and the group
	// rules, with ResponseTime.
	RequestTime time.Time
	// ResponseTime is when the response came, on the proxy's clock; zero
	// when unknown. With RequestTime, it orders exchanges that have no
	// packet positions (RequestPacket, RequestFrame): the group rules
	// judge a member's request only by answers that came before it was
	// sent.
	ResponseTime time.Time
	// Gaps counts the bytes lost from the connection's capture so far,
	// or the connection's exchanges a proxy skipped so far (any loss
	// makes an unanswered request, a stray response or the connection's
	// SASL order unjudgeable; exchanges skipped on any connection are
	// told with Checker.Missed).
	Gaps int
	// StreamGaps counts the gaps of the connection's streams before this
	// exchange's frames, in stream order: before its request in the
	// client's, before its response in the broker's. The conversation
	// rules, which judge a producer's batch or a consumer's fetch against
	// the ones before it, take loss from it: an exchange whose frames
	// came before a gap, but that ended after the capture found it, lost
	// nothing between it and those before (it was 72 false conv.sequence
	// errors in a capture that lost a client's bytes).
	StreamGaps int
}

// decodeFailure is why a frame did not decode: where, what was expected
// and found.
type decodeFailure struct {
	Offset, Buf     int
	Path            string
	Expected, Found string
	Limit           bool // a decoding limit stopped it, not the bytes
}

// warning is a lenient reading the decoder reported.
type warning struct {
	Offset, Buf int
	Path        string
	Message     string
	Limit       bool
}

// enumValue is an integer field whose values come from an enumeration.
type enumValue struct {
	Offset int
	Path   string
	Enum   string // the enumeration's name
	Value  int64
	Named  bool // Value is one of the enumeration's
}

// frameFacts is what the rules read of one decoded frame: nothing in it
// points into the decoder's memory, so it outlives the next decode.
type frameFacts struct {
	Present  bool
	Response bool
	Len      int   // bytes, size prefix included
	Size     int32 // the size prefix
	APIKey   int16
	Version  int16
	Known    bool // the API key is one Kafka defines
	Newer    bool // the version is newer than any kwire knows
	Flexible bool
	Corr     int32
	Guessed  bool // a response read without its request, by guessing
	ClientID string

	Err      *decodeFailure
	Warnings []warning
	Enums    []enumValue
	// HeaderVersionOff is set when the frame reads cleanly with the other
	// header version (0/1 for requests' 1/2 and responses' 0/1): the
	// header version it was written with.
	HeaderMismatch bool
	HeaderWritten  int16
	HeaderExpected int16

	ErrorCode int16 // the body's top-level errorCode (0 when none; AddPartitionsToTxn's answer: NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE for any partition)
	Acks      int16
	AcksAt    int // acks' offset in the frame
	HasAcks   bool

	TxnID         string // transactionalId (Produce, InitProducerId, EndTxn, AddPartitionsToTxn v0-3, AddOffsetsToTxn)
	HasTxnID      bool
	ProducerID    int64
	ProducerEpoch int16
	Commit        bool      // EndTxn
	Group         string    // group id (OffsetCommit, OffsetFetch, AddOffsetsToTxn)
	Mechanism     string    // SaslHandshake's request
	Mechanisms    []string  // SaslHandshake's answer: the mechanisms it lists
	MechanismsAt  int       // their array's offset in the frame
	SASL          saslFacts // SaslAuthenticate's authBytes
	ReplicaID     int32     // Fetch request (-1 for consumers)
	MemberEpoch   int32

	// A Fetch request's session (v7+, KIP-227): its id and epoch, where
	// each is, and how many forgotten topics it lists and where; a Fetch
	// response's session id and where it is, where its top-level
	// errorCode (ErrorCode) is, and its throttleTimeMs. HasSession says
	// the version has them.
	HasSession                  bool
	SessionID, SessionEpoch     int32
	SessionIDAt, SessionEpochAt int
	Forgotten, ForgottenAt      int
	ErrorCodeAt                 int
	ThrottleMs                  int32

	// A group member's request (JoinGroup, SyncGroup, Heartbeat,
	// LeaveGroup v0-2, OffsetCommit, TxnOffsetCommit, ConsumerGroupHeartbeat)
	// or JoinGroup's and ConsumerGroupHeartbeat's answer: its member id,
	// its generation (ConsumerGroupHeartbeat's member epoch, OffsetCommit
	// v9+'s generationIdOrMemberEpoch) with its offset and value-JSON
	// path, and its group instance id (conv.group-generation,
	// conv.member-epoch).
	MemberID      string
	MemberIDAt    int // its offset in the frame (a request's)
	Generation    int32
	HasGeneration bool
	GenerationAt  int
	GenPath       string
	HasInstanceID bool
	Leaving       []leavingFacts // LeaveGroup v3+: the members that leave

	Ranges []apiRange  // ApiVersions response
	Topics []topicName // Metadata response: names and ids
	Parts  []partFacts
	Txns   []txnFacts // AddPartitionsToTxn v4+: one per transaction
}

// saslFacts is what a SaslAuthenticate's authBytes, or a raw SASL
// token, said when the codec read them as a SASL message (Mechanism
// empty: it did not).
type saslFacts struct {
	Mechanism, Kind string
	At              int    // the message's offset in the frame
	Path            string // its value-JSON path: "body.authBytes", or a raw token's "value"
	Parts           []saslPart
}

// saslPart is one part of a SASL message: its text and offset.
type saslPart struct {
	Name, Text string
	At         int
}

// part is the text and offset of the message's part name.
func (s *saslFacts) part(name string) (string, int, bool) {
	for _, p := range s.Parts {
		if p.Name == name {
			return p.Text, p.At, true
		}
	}
	return "", s.At, false
}

// topicName pairs a topic's name with its id (Kafka's base64).
type topicName struct{ Name, ID string }

// apiRange is one API's versions as ApiVersions advertises them.
type apiRange struct {
	Key    int16
	Lo, Hi int16
}

// partLoc is where a partition entry is: body.<topics>[ti].<parts>[pi];
// its path is made only when a finding needs it.
type partLoc struct {
	topics, parts string
	ti, pi        int
}

func (l partLoc) path() string {
	return "body." + l.topics + "[" + itoa(l.ti) + "]." + l.parts + "[" + itoa(l.pi) + "]"
}

// partFacts is one partition entry of a request or response.
type partFacts struct {
	Topic     string // name, or the topic id as Kafka's base64
	Partition int32
	loc       partLoc
	ErrorCode int16
	// Offset is the fetch offset (Fetch request), the committed offset
	// (OffsetCommit request), the offset (OffsetFetch response, ListOffsets
	// response) or the timestamp asked for (ListOffsets request).
	Offset        int64
	HighWatermark int64 // Fetch response
	// Truncate is the end offset a consumer's position may go back to
	// (KIP-320): an OffsetForLeaderEpoch answer's endOffset, or a Fetch
	// response's divergingEpoch.endOffset (v12+); -1 is undefined (the
	// consumer resets). HasTruncate says one was answered.
	Truncate    int64
	HasTruncate bool
	// LeaderEpoch is a Fetch request's currentLeaderEpoch (v9+; -1 if
	// none).
	LeaderEpoch int32
	HasRecords  bool
	Batches     []batchFacts
}

// leavingFacts is one member of a LeaveGroup v3+ request.
type leavingFacts struct {
	MemberID      string
	HasInstanceID bool
	At            int // its memberId's offset
	i             int // its index in members
}

// txnFacts is one transaction of AddPartitionsToTxn (v4+ batches them).
type txnFacts struct {
	TxnID      string
	ProducerID int64
	Epoch      int16
	VerifyOnly bool
	Parts      []partFacts
}

// batchFacts is one record batch (magic 2) or legacy message (magic 0/1).
type batchFacts struct {
	Offset, Buf     int // where the batch starts
	loc             partLoc
	bi              int // its index in the records field
	Magic           int8
	Partial         bool // the input ends inside it
	BaseOffset      int64
	LastOffsetDelta int32
	BaseTimestamp   int64
	MaxTimestamp    int64
	Attributes      int16
	ProducerID      int64
	ProducerEpoch   int16
	BaseSequence    int32
	RecordCount     int32
	Parsed          int  // records read
	AllRead         bool // every record was read (no limit, no failure, decompressed)
	// Of the records read: the first's timestampDelta, the largest
	// timestamp, whether offset deltas count 0, 1, 2..., whether they
	// ascend, and the last one.
	FirstTSDelta     int64
	MaxRecordTS      int64
	DeltasCount      bool
	DeltasAscend     bool
	LastDelta        int64
	FirstDeltaOffset int // byte where the first out-of-line delta is
	FirstDeltaBad    int // its index, -1 when none
	// The first transaction marker (a control record of type ABORT or
	// COMMIT) whose value is no EndTxnMarker: what it is ("" when none:
	// "null", "2 bytes", "version -1"), its record's index and where its
	// value is.
	BadMarker                     string
	BadMarkerRec                  int
	BadMarkerOffset, BadMarkerBuf int
}

// path is the batch's value-JSON path.
func (b *batchFacts) path() string { return b.loc.path() + ".records[" + itoa(b.bi) + "]" }

// codec is the compression codec a batch's attributes name.
func (b *batchFacts) codec() int { return int(b.Attributes & 7) }

func (b *batchFacts) transactional() bool { return b.Attributes&0x10 != 0 }
func (b *batchFacts) control() bool       { return b.Attributes&0x20 != 0 }
func (b *batchFacts) logAppendTime() bool { return b.Attributes&0x08 != 0 }

// analysis is one exchange read: both frames' facts, and the frame- and
// records-level findings.
type analysis struct {
	x        Exchange
	req, rsp frameFacts
	key, ver int16 // the exchange's API and version (request's, else the guess)
	findings []Finding
	counts   []ruleCount // the findings of each rule and side (add)
}
