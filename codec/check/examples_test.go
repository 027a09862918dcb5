package check

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"hash/crc32"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec/check/ruledoc"
)

// The examples: for every rule, a conversation that breaks it and the
// same conversation without the fault, as frames (one per line, hex). They
// are laid out byte by byte with franz-go's kmsg (and a few bytes changed
// by hand where kmsg cannot write the fault), written to ruledoc/examples
// with -update (the rule pages show them), and checked by
// TestRuleExamples: the fault is flagged with exactly its rule, the clean
// twin with none.

var update = flag.Bool("update", false, "rewrite ruledoc/examples from the builders")

const clientID = "kwire"

// req is a request frame at version v with correlation id corr.
func req(r kmsg.Request, v int16, corr int32) []byte {
	r.SetVersion(v)
	return kmsg.NewRequestFormatter(kmsg.FormatterClientID(clientID)).AppendRequest(nil, r, corr)
}

// rsp is a response frame at version v with correlation id corr.
func rsp(r kmsg.Response, v int16, corr int32) []byte {
	r.SetVersion(v)
	b := binary.BigEndian.AppendUint32(make([]byte, 4), uint32(corr))
	if r.IsFlexible() && r.Key() != 18 {
		b = append(b, 0)
	}
	b = r.AppendTo(b)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// resize fixes a frame's size prefix after an edit.
func resize(b []byte) []byte {
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// splice replaces b[i:j] with r in a copy of b and fixes the size.
func splice(b []byte, i, j int, r ...byte) []byte {
	out := append(append(append([]byte(nil), b[:i]...), r...), b[j:]...)
	return resize(out)
}

// rec is one record of a built batch.
type rec struct {
	tsDelta, offDelta int64
	key, val          []byte
	extra             []byte // bytes inside the record after its headers
	nullVal           bool   // a null value (length -1), not val
}

// bat builds a magic-2 batch.
type bat struct {
	base              int64
	lastDelta         int32
	baseTS, maxTS     int64
	attrs             int16
	pid               int64
	epoch             int16
	seq               int32
	count             int32
	recs              []rec
	rawRecords        []byte // instead of recs
	badCRC            bool
	keepLast, keepMax bool // take lastDelta / maxTS as given
	keepCount         bool
}

func (b bat) bytes() []byte {
	var recs []byte
	if b.rawRecords != nil {
		recs = b.rawRecords
	}
	maxTS := b.baseTS
	for _, r := range b.recs {
		var body []byte
		body = append(body, 0)
		body = binary.AppendVarint(body, r.tsDelta)
		body = binary.AppendVarint(body, r.offDelta)
		body = binary.AppendVarint(body, int64(len(r.key)))
		body = append(body, r.key...)
		if r.nullVal {
			body = binary.AppendVarint(body, -1)
		} else {
			body = binary.AppendVarint(body, int64(len(r.val)))
			body = append(body, r.val...)
		}
		body = binary.AppendVarint(body, 0)
		body = append(body, r.extra...)
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
		maxTS = max(maxTS, b.baseTS+r.tsDelta)
	}
	if !b.keepLast {
		b.lastDelta = int32(len(b.recs)) - 1
	}
	if !b.keepMax {
		b.maxTS = maxTS
	}
	if !b.keepCount {
		b.count = int32(len(b.recs))
	}
	out := binary.BigEndian.AppendUint64(nil, uint64(b.base))
	out = binary.BigEndian.AppendUint32(out, 0) // length, below
	out = binary.BigEndian.AppendUint32(out, 0) // partition leader epoch
	out = append(out, 2)
	out = binary.BigEndian.AppendUint32(out, 0) // crc, below
	out = binary.BigEndian.AppendUint16(out, uint16(b.attrs))
	out = binary.BigEndian.AppendUint32(out, uint32(b.lastDelta))
	out = binary.BigEndian.AppendUint64(out, uint64(b.baseTS))
	out = binary.BigEndian.AppendUint64(out, uint64(b.maxTS))
	out = binary.BigEndian.AppendUint64(out, uint64(b.pid))
	out = binary.BigEndian.AppendUint16(out, uint16(b.epoch))
	out = binary.BigEndian.AppendUint32(out, uint32(b.seq))
	out = binary.BigEndian.AppendUint32(out, uint32(b.count))
	out = append(out, recs...)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	crc := crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli))
	if b.badCRC {
		crc ^= 0xdeadbeef
	}
	binary.BigEndian.PutUint32(out[17:], crc)
	return out
}

const ts0 = 1735732800000 // 2025-01-01T12:00:00Z

// plain is a two-record batch without a producer.
func plain() bat {
	return bat{baseTS: ts0, pid: -1, epoch: -1, seq: -1, recs: []rec{{0, 0, []byte("k0"), []byte("v0"), nil, false}, {1, 1, []byte("k1"), []byte("v1"), nil, false}}}
}

// produce is a Produce request of the given batches to orders-0.
func produce(v int16, corr int32, txn *string, batches ...[]byte) []byte {
	r := kmsg.NewPtrProduceRequest()
	r.Acks, r.TimeoutMillis, r.TransactionID = -1, 30000, txn
	t := kmsg.NewProduceRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewProduceRequestTopicPartition()
	p.Records = bytes.Join(batches, nil)
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return req(r, v, corr)
}

// produceOK is Produce's answer: orders-0 appended at base.
func produceOK(v int16, corr int32, base int64) []byte {
	r := kmsg.NewPtrProduceResponse()
	t := kmsg.NewProduceResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewProduceResponseTopicPartition()
	p.BaseOffset = base
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, v, corr)
}

func apiVersionsReq(v int16, corr int32) []byte {
	r := kmsg.NewPtrApiVersionsRequest()
	r.ClientSoftwareName, r.ClientSoftwareVersion = "kwire", "1.0"
	return req(r, v, corr)
}

// apiVersionsRsp advertises ranges ({key, lo, hi}...).
func apiVersionsRsp(v int16, corr int32, code int16, ranges ...[3]int16) []byte {
	r := kmsg.NewPtrApiVersionsResponse()
	r.ErrorCode = code
	for _, k := range ranges {
		x := kmsg.NewApiVersionsResponseApiKey()
		x.ApiKey, x.MinVersion, x.MaxVersion = k[0], k[1], k[2]
		r.ApiKeys = append(r.ApiKeys, x)
	}
	return rsp(r, v, corr)
}

func metadataReq(v int16, corr int32, topics ...string) []byte {
	r := kmsg.NewPtrMetadataRequest()
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		r.Topics = append(r.Topics, rt)
	}
	return req(r, v, corr)
}

func metadataRsp(v int16, corr int32) []byte {
	r := kmsg.NewPtrMetadataResponse()
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = 1, "127.0.0.1", 9092
	r.Brokers = append(r.Brokers, b)
	return rsp(r, v, corr)
}

func initPIDReq(v int16, corr int32, txn *string) []byte {
	r := kmsg.NewPtrInitProducerIDRequest()
	r.TransactionalID, r.TransactionTimeoutMillis = txn, 60000
	return req(r, v, corr)
}

func initPIDRsp(v int16, corr int32, pid int64) []byte {
	r := kmsg.NewPtrInitProducerIDResponse()
	r.ProducerID, r.ProducerEpoch = pid, 0
	return rsp(r, v, corr)
}

func addPartsReq(v int16, corr int32, txn string, pid int64) []byte {
	r := kmsg.NewPtrAddPartitionsToTxnRequest()
	r.TransactionalID, r.ProducerID, r.ProducerEpoch = txn, pid, 0
	t := kmsg.NewAddPartitionsToTxnRequestTopic()
	t.Topic, t.Partitions = "orders", []int32{0}
	r.Topics = append(r.Topics, t)
	return req(r, v, corr)
}

func addPartsRsp(v int16, corr int32) []byte {
	r := kmsg.NewPtrAddPartitionsToTxnResponse()
	t := kmsg.NewAddPartitionsToTxnResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, v, corr)
}

func endTxnReq(v int16, corr int32, txn string, pid int64) []byte {
	r := kmsg.NewPtrEndTxnRequest()
	r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.Commit = txn, pid, 0, true
	return req(r, v, corr)
}

func endTxnRsp(v int16, corr int32) []byte { return rsp(kmsg.NewPtrEndTxnResponse(), v, corr) }

func fetchReq(v int16, corr int32, offset int64) []byte {
	r := kmsg.NewPtrFetchRequest()
	r.ReplicaID, r.MaxWaitMillis, r.MinBytes, r.MaxBytes = -1, 500, 1, 1<<20
	t := kmsg.NewFetchRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchRequestTopicPartition()
	p.FetchOffset, p.PartitionMaxBytes = offset, 1<<20
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return req(r, v, corr)
}

// fetchRsp answers a fetch with the given batches.
func fetchRsp(v int16, corr int32, hw int64, batches ...[]byte) []byte {
	r := kmsg.NewPtrFetchResponse()
	t := kmsg.NewFetchResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset = hw, hw
	p.RecordBatches = bytes.Join(batches, nil)
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, v, corr)
}

func commitReq(v int16, corr int32, offset int64) []byte {
	r := kmsg.NewPtrOffsetCommitRequest()
	r.Group, r.Generation, r.MemberID = "billing", 1, "m1"
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewOffsetCommitRequestTopicPartition()
	p.Offset = offset
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return req(r, v, corr)
}

func commitRsp(v int16, corr int32) []byte {
	r := kmsg.NewPtrOffsetCommitResponse()
	t := kmsg.NewOffsetCommitResponseTopic()
	t.Topic = "orders"
	t.Partitions = append(t.Partitions, kmsg.NewOffsetCommitResponseTopicPartition())
	r.Topics = append(r.Topics, t)
	return rsp(r, v, corr)
}

// The group "billing": a classic member joins, syncs and heartbeats;
// a KIP-848 member heartbeats.

// subscription is a consumer's JoinGroup metadata: it reads orders.
func subscription() []byte {
	m := kmsg.NewConsumerMemberMetadata()
	m.Topics = []string{"orders"}
	return m.AppendTo(nil)
}

// joinReq is JoinGroup v5 for member (empty for a new member).
func joinReq(corr int32, member string) []byte {
	r := kmsg.NewPtrJoinGroupRequest()
	r.Group, r.SessionTimeoutMillis, r.RebalanceTimeoutMillis, r.MemberID, r.ProtocolType = "billing", 45000, 60000, member, "consumer"
	p := kmsg.NewJoinGroupRequestProtocol()
	p.Name, p.Metadata = "range", subscription()
	r.Protocols = append(r.Protocols, p)
	return req(r, 5, corr)
}

// joinRsp answers JoinGroup v5: member at generation gen, its leader.
func joinRsp(corr int32, code int16, member string, gen int32) []byte {
	r := kmsg.NewPtrJoinGroupResponse()
	r.ErrorCode, r.Generation, r.MemberID, r.Protocol = code, gen, member, kmsg.StringPtr("range")
	if code == 0 {
		r.LeaderID = member
		m := kmsg.NewJoinGroupResponseMember()
		m.MemberID, m.ProtocolMetadata = member, subscription()
		r.Members = append(r.Members, m)
	}
	return rsp(r, 5, corr)
}

// syncReq is the leader's SyncGroup v3 at generation gen, giving itself orders-0.
func syncReq(corr int32, member string, gen int32) []byte {
	r := kmsg.NewPtrSyncGroupRequest()
	r.Group, r.Generation, r.MemberID = "billing", gen, member
	as := kmsg.NewConsumerMemberAssignment()
	t := kmsg.NewConsumerMemberAssignmentTopic()
	t.Topic, t.Partitions = "orders", []int32{0}
	as.Topics = append(as.Topics, t)
	a := kmsg.NewSyncGroupRequestGroupAssignment()
	a.MemberID, a.MemberAssignment = member, as.AppendTo(nil)
	r.GroupAssignment = append(r.GroupAssignment, a)
	return req(r, 3, corr)
}

func syncRsp(corr int32, code int16) []byte {
	r := kmsg.NewPtrSyncGroupResponse()
	r.ErrorCode = code
	if code == 0 {
		as := kmsg.NewConsumerMemberAssignment()
		t := kmsg.NewConsumerMemberAssignmentTopic()
		t.Topic, t.Partitions = "orders", []int32{0}
		as.Topics = append(as.Topics, t)
		r.MemberAssignment = as.AppendTo(nil)
	}
	return rsp(r, 3, corr)
}

// heartbeatReq is Heartbeat v3.
func heartbeatReq(corr int32, member string, gen int32) []byte {
	r := kmsg.NewPtrHeartbeatRequest()
	r.Group, r.Generation, r.MemberID = "billing", gen, member
	return req(r, 3, corr)
}

func heartbeatRsp(corr int32, code int16) []byte {
	return rsp(&kmsg.HeartbeatResponse{ErrorCode: code}, 3, corr)
}

// member is a classic member's life: JoinGroup twice (MEMBER_ID_REQUIRED
// giving it m1, then generation 1), SyncGroup, a rejoin to generation 2
// and its SyncGroup.
func member() [][]byte {
	return fr(joinReq(1, ""), joinRsp(1, 79, "m1", -1), joinReq(2, "m1"), joinRsp(2, 0, "m1", 1), syncReq(3, "m1", 1), syncRsp(3, 0),
		joinReq(4, "m1"), joinRsp(4, 0, "m1", 2), syncReq(5, "m1", 2), syncRsp(5, 0))
}

// cghReq is ConsumerGroupHeartbeat v0 of member m1 at epoch (a join
// subscribes to orders).
func cghReq(corr int32, epoch int32) []byte {
	r := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	r.Group, r.MemberEpoch, r.RebalanceTimeoutMillis = "billing", epoch, -1
	if epoch == 0 {
		r.RebalanceTimeoutMillis, r.SubscribedTopicNames, r.Topics = 45000, []string{"orders"}, []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	} else {
		r.MemberID = "m1"
	}
	return req(r, 0, corr)
}

// cghRsp answers ConsumerGroupHeartbeat v0: member m1 at epoch.
func cghRsp(corr int32, code int16, epoch int32) []byte {
	r := kmsg.NewPtrConsumerGroupHeartbeatResponse()
	r.ErrorCode, r.MemberID, r.MemberEpoch, r.HeartbeatIntervalMillis = code, kmsg.StringPtr("m1"), epoch, 5000
	if code != 0 {
		r.MemberID, r.MemberEpoch = nil, 0
	}
	return rsp(r, 0, corr)
}

// withBodyTags replaces a flexible request's empty body tag section (its
// last byte) with the given section.
func withBodyTags(b []byte, section ...byte) []byte {
	return splice(b, len(b)-1, len(b), section...)
}

// example is a rule's fault and its clean twin.
type example struct{ bad, good [][]byte }

func fr(frames ...[]byte) [][]byte { return frames }

func ruleExamples() map[string]example {
	txn := kmsg.StringPtr("tx-1")
	av3 := apiVersionsReq(3, 1)
	// ApiVersions v3 request: its header's tag byte is at 14 + len("kwire").
	hdrEnd := 14 + len(clientID)
	fetch15 := func() []byte {
		r := kmsg.NewPtrFetchRequest()
		r.MaxWaitMillis, r.MinBytes = 500, 1
		return req(r, 15, 1)
	}
	replicaState := []byte{0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0} // replicaId 1, replicaEpoch 1, no tags
	m4 := metadataReq(4, 1, "orders")
	ex := map[string]example{
		"frame.size": {bad: fr(splice(av3, len(av3), len(av3), 0, 0)), good: fr(av3)},
		"frame.api":  {bad: fr(resize(append(binary.BigEndian.AppendUint16(append([]byte(nil), av3[:4]...), 109), av3[6:]...))), good: fr(av3)},
		// v3 is flexible: header v2. Without the header's tag byte it is v1.
		"frame.header-version": {bad: fr(splice(av3, hdrEnd, hdrEnd+1)), good: fr(av3)},
		// Metadata v1: topics [string]; a topic name length of 200 runs past the frame.
		"frame.decode":   {bad: fr(splice(metadataReq(1, 1, "orders"), hdrEnd+4, hdrEnd+6, 0, 200)), good: fr(metadataReq(1, 1, "orders"))},
		"frame.negative": {bad: fr(splice(metadataReq(1, 1), hdrEnd, hdrEnd+4, 0xff, 0xff, 0xff, 0xfe)), good: fr(metadataReq(1, 1))},
		// SaslHandshake v1: mechanism is a non-nullable string.
		"frame.null": {bad: fr(splice(req(&kmsg.SASLHandshakeRequest{Mechanism: "PLAIN"}, 1, 1), hdrEnd, hdrEnd+7, 0xff, 0xff)), good: fr(req(&kmsg.SASLHandshakeRequest{Mechanism: "PLAIN"}, 1, 1))},
		"frame.enum": {bad: fr(listOffsets(2)), good: fr(listOffsets(1))},
		// Fetch v15: tag 0 clusterId, tag 1 replicaState, written 1 then 0.
		"frame.tags": {bad: fr(withBodyTags(fetch15(), append(append([]byte{2, 1, byte(len(replicaState))}, replicaState...), 0, 1, 1)...)),
			good: fr(withBodyTags(fetch15(), append([]byte{2, 0, 1, 1, 1, byte(len(replicaState))}, replicaState...)...))},
		"frame.tag-size":    {bad: fr(withBodyTags(fetch15(), 1, 0, 3, 2, 'a', 0)), good: fr(withBodyTags(fetch15(), 1, 0, 2, 2, 'a'))},
		"frame.unknown-tag": {bad: fr(withBodyTags(av3, 1, 7, 1, 0)), good: fr(av3)},
		// clusterId's default is null: a tag 0 holding null is left out.
		"frame.tag-default": {bad: fr(withBodyTags(fetch15(), 1, 0, 1, 0)), good: fr(fetch15())},
		// clientSoftwareName "kwire": compact length 6 as two bytes.
		"frame.varint": {bad: fr(splice(av3, hdrEnd+1, hdrEnd+2, 0x86, 0x00)), good: fr(av3)},
		// Metadata v4: allowAutoTopicCreation, the last byte, as 2.
		"frame.lenient": {bad: fr(splice(m4, len(m4)-1, len(m4), 2)), good: fr(m4)},
	}
	b := plain()
	produced := func(x bat) [][]byte { return fr(produce(9, 1, nil, x.bytes()), produceOK(9, 1, 0)) }
	good := produced(b)
	mod := func(f func(*bat)) [][]byte {
		x := plain()
		f(&x)
		return produced(x)
	}
	ex["records.crc"] = example{mod(func(x *bat) { x.badCRC = true }), good}
	ex["records.count"] = example{mod(func(x *bat) { x.count, x.lastDelta, x.keepCount, x.keepLast = 3, 2, true, true }), good}
	ex["records.last-offset-delta"] = example{mod(func(x *bat) { x.lastDelta, x.keepLast = 5, true }), good}
	ex["records.max-timestamp"] = example{mod(func(x *bat) { x.maxTS, x.keepMax = ts0+500, true }), good}
	ex["records.first-timestamp"] = example{mod(func(x *bat) { x.recs[0].tsDelta, x.recs[1].tsDelta = 5, 6 }), good}
	// gzip named, the records left uncompressed.
	ex["records.codec"] = example{mod(func(x *bat) { x.attrs = 1 }), good}
	ex["records.magic"] = example{fr(produce(9, 1, nil, plain().bytes(), plain().bytes()), produceOK(9, 1, 0)), good}
	// A COMMIT control record: key version 0, type 1; value version 0, coordinator epoch 0.
	ex["records.control"] = example{mod(func(x *bat) {
		x.attrs = 0x20
		x.recs = []rec{{0, 0, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0}, nil, false}}
	}), good}
	// A COMMIT marker fetched, its value null (as franz-go's kfake writes
	// it) and as Kafka's broker writes it.
	markerFetch := func(val []byte, null bool) [][]byte {
		m := bat{baseTS: ts0, pid: 9, epoch: 0, seq: -1, attrs: 0x30, base: 2, recs: []rec{{0, 0, []byte{0, 0, 0, 1}, val, nil, null}}}
		return fr(fetchReq(11, 1, 2), fetchRsp(11, 1, 3, m.bytes()))
	}
	ex["records.marker"] = example{markerFetch(nil, true), markerFetch([]byte{0, 0, 0, 0, 0, 5}, false)}
	ex["records.producer"] = example{mod(func(x *bat) { x.pid, x.epoch, x.seq = 5, 0, -1 }), good}
	ex["records.record"] = example{mod(func(x *bat) { x.recs[1].extra = []byte{0} }), good}
	cut := plain().bytes()
	cut = cut[:len(cut)-3]
	ex["records.truncated"] = example{fr(produce(9, 1, nil, cut), produceOK(9, 1, 0)), good}
	ex["records.lenient"] = example{mod(func(x *bat) { x.attrs = 0x80 }), good}

	ex["conn.version"] = example{
		fr(apiVersionsReq(3, 1), apiVersionsRsp(3, 1, 0, [3]int16{3, 0, 9}, [3]int16{18, 0, 3}), metadataReq(12, 2, "orders"), metadataRsp(12, 2)),
		fr(apiVersionsReq(3, 1), apiVersionsRsp(3, 1, 0, [3]int16{3, 0, 9}, [3]int16{18, 0, 3}), metadataReq(9, 2, "orders"), metadataRsp(9, 2))}
	ex["conn.correlation"] = example{
		fr(metadataReq(9, 5, "orders"), metadataReq(9, 5, "orders"), metadataRsp(9, 5), metadataRsp(9, 5)),
		fr(metadataReq(9, 5, "orders"), metadataReq(9, 6, "orders"), metadataRsp(9, 5), metadataRsp(9, 6))}
	ex["conn.order"] = example{
		fr(metadataReq(9, 1, "orders"), metadataReq(9, 2, "orders"), metadataRsp(9, 2), metadataRsp(9, 1)),
		fr(metadataReq(9, 1, "orders"), metadataReq(9, 2, "orders"), metadataRsp(9, 1), metadataRsp(9, 2))}
	hs := req(&kmsg.SASLHandshakeRequest{Mechanism: "PLAIN"}, 1, 1)
	hsOK := rsp(&kmsg.SASLHandshakeResponse{SupportedMechanisms: []string{"PLAIN"}}, 1, 1)
	auth := req(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: []byte("\x00user\x00pass")}, 1, 2)
	authOK := rsp(&kmsg.SASLAuthenticateResponse{}, 1, 2)
	ex["conn.sasl"] = example{
		fr(hs, hsOK, metadataReq(9, 2, "orders"), metadataRsp(9, 2)),
		fr(hs, hsOK, auth, authOK, metadataReq(9, 3, "orders"), metadataRsp(9, 3))}
	authzid := req(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: []byte("admin\x00alice\x00pass")}, 1, 2)
	authFailed := rsp(&kmsg.SASLAuthenticateResponse{ErrorCode: 58}, 1, 2)
	ex["frame.sasl"] = example{fr(hs, hsOK, authzid, authFailed), fr(hs, hsOK, auth, authOK)}
	scramHS := req(&kmsg.SASLHandshakeRequest{Mechanism: "SCRAM-SHA-256"}, 1, 1)
	scramHSOK := rsp(&kmsg.SASLHandshakeResponse{SupportedMechanisms: []string{"SCRAM-SHA-256"}}, 1, 1)
	scram := func(serverNonce string) [][]byte {
		first := req(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: []byte("n,,n=alice,r=fyko+d2lbbFgONRv9qkxdawL")}, 1, 2)
		serverFirst := rsp(&kmsg.SASLAuthenticateResponse{SASLAuthBytes: []byte("r=" + serverNonce + ",s=QSXCR+Q6sek8bf92,i=4096")}, 1, 2)
		final := req(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: []byte("c=biws,r=" + serverNonce + ",p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=")}, 1, 3)
		serverFinal := rsp(&kmsg.SASLAuthenticateResponse{SASLAuthBytes: []byte("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")}, 1, 3)
		return fr(scramHS, scramHSOK, first, serverFirst, final, serverFinal)
	}
	ex["conn.sasl-exchange"] = example{scram("3rfcNHYJY1ZVvWVs7j"), scram("fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j")}
	hsNone := rsp(&kmsg.SASLHandshakeResponse{}, 1, 1) // as franz-go's kfake answers
	ex["conn.sasl-handshake"] = example{fr(hs, hsNone, auth, authOK), fr(hs, hsOK, auth, authOK)}
	dc := func(corr int32, code int16) [][]byte {
		return fr(req(kmsg.NewPtrDescribeClusterRequest(), 1, corr), rsp(&kmsg.DescribeClusterResponse{ErrorCode: code}, 1, corr))
	}
	dc0 := func(corr int32) [][]byte {
		return fr(req(kmsg.NewPtrDescribeClusterRequest(), 0, corr), rsp(&kmsg.DescribeClusterResponse{}, 0, corr))
	}
	ex["conn.retry-version"] = example{append(dc(1, 35), dc(2, 0)...), append(dc(1, 35), dc0(2)...)}

	seqBatch := func(pid int64, seq int32, attrs int16) []byte {
		x := plain()
		x.pid, x.epoch, x.seq, x.attrs = pid, 0, seq, attrs
		return x.bytes()
	}
	idem := func(second int32) [][]byte {
		return fr(initPIDReq(4, 1, nil), initPIDRsp(4, 1, 7),
			produce(9, 2, nil, seqBatch(7, 0, 0)), produceOK(9, 2, 0),
			produce(9, 3, nil, seqBatch(7, second, 0)), produceOK(9, 3, 2))
	}
	ex["conv.sequence"] = example{idem(3), idem(2)}
	txnConv := func(add, end bool) [][]byte {
		out := fr(initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8))
		if add {
			out = append(out, addPartsReq(3, 2, "tx-1", 8), addPartsRsp(3, 2))
		}
		out = append(out, produce(9, 3, txn, seqBatch(8, 0, 0x10)), produceOK(9, 3, 0))
		if end {
			out = append(out, endTxnReq(3, 4, "tx-1", 8), endTxnRsp(3, 4))
		}
		return out
	}
	ex["conv.txn-add"] = example{txnConv(false, true), txnConv(true, true)}
	// The same producer's plain batch to orders-0, inside its transaction
	// there or after EndTxn.
	txnWrite := func(after bool) [][]byte {
		out := fr(initPIDReq(4, 1, txn), initPIDRsp(4, 1, 8), addPartsReq(3, 2, "tx-1", 8), addPartsRsp(3, 2),
			produce(9, 3, txn, seqBatch(8, 0, 0x10)), produceOK(9, 3, 0))
		end := fr(endTxnReq(3, 4, "tx-1", 8), endTxnRsp(3, 4))
		plain := fr(produce(9, 5, nil, seqBatch(8, 2, 0)), produceOK(9, 5, 2))
		if after {
			return append(append(out, end...), plain...)
		}
		return append(append(out, plain...), end...)
	}
	ex["conv.txn-write"] = example{txnWrite(false), txnWrite(true)}
	ex["conv.txn-end"] = example{txnConv(true, false), txnConv(true, true)}
	fetched := func(off int64) []byte { x := plain(); x.base = off; return x.bytes() }
	ex["conv.fetch-offset"] = example{
		fr(fetchReq(11, 1, 10), fetchRsp(11, 1, 12, fetched(10)), fetchReq(11, 2, 5), fetchRsp(11, 2, 12, fetched(5))),
		fr(fetchReq(11, 1, 10), fetchRsp(11, 1, 12, fetched(10)), fetchReq(11, 2, 12), fetchRsp(11, 2, 12))}
	ex["conv.commit-offset"] = example{
		fr(fetchReq(11, 1, 10), fetchRsp(11, 1, 12, fetched(10)), commitReq(8, 2, 100), commitRsp(8, 2)),
		fr(fetchReq(11, 1, 10), fetchRsp(11, 1, 12, fetched(10)), commitReq(8, 2, 12), commitRsp(8, 2))}
	// Session 5 created, continued at 1, then at 3.
	ex["conv.fetch-session"] = example{
		fr(sessReq(1, 0, 0, false), sessRsp(1, 0, 5), sessReq(2, 5, 1, false), sessRsp(2, 0, 5), sessReq(3, 5, 3, false), sessRsp(3, 71, 0)),
		fr(sessReq(1, 0, 0, false), sessRsp(1, 0, 5), sessReq(2, 5, 1, false), sessRsp(2, 0, 5), sessReq(3, 5, 2, false), sessRsp(3, 0, 5))}
	// Four asks for a session, none used; the twin uses each.
	ex["conn.fetch-session-unused"] = example{
		fr(sessReq(1, 0, 0, false), sessRsp(1, 0, 5), sessReq(2, 0, 0, false), sessRsp(2, 0, 6), sessReq(3, 0, 0, false), sessRsp(3, 0, 7), sessReq(4, 0, 0, false), sessRsp(4, 0, 8)),
		fr(sessReq(1, 0, 0, false), sessRsp(1, 0, 5), sessReq(2, 5, 1, false), sessRsp(2, 0, 5), sessReq(3, 0, 0, false), sessRsp(3, 0, 6), sessReq(4, 6, 1, false), sessRsp(4, 0, 6),
			sessReq(5, 0, 0, false), sessRsp(5, 0, 7), sessReq(6, 7, 1, false), sessRsp(6, 0, 7), sessReq(7, 0, 0, false), sessRsp(7, 0, 8))}
	// Session 5 created by a Fetch v12, continued at v13 (topic ids):
	// FETCH_SESSION_TOPIC_ID_ERROR; the twin stays at v12.
	ex["conv.fetch-session-topic-ids"] = example{
		fr(sessReq(1, 0, 0, false), sessRsp(1, 0, 5), sessReqV(13, 2, 5, 1, false), sessRspV(13, 2, 106, 0, 0)),
		fr(sessReq(1, 0, 0, false), sessRsp(1, 0, 5), sessReq(2, 5, 1, false), sessRsp(2, 0, 5))}
	// A fetch at epoch -1 (no session) answered with session id 9.
	ex["conv.fetch-session-answer"] = example{
		fr(sessReq(1, 0, -1, false), sessRsp(1, 0, 9)),
		fr(sessReq(1, 0, -1, false), sessRsp(1, 0, 0))}
	ex["frame.fetch-session"] = example{fr(sessReq(1, 0, 3, false), sessRsp(1, 70, 0)), fr(sessReq(1, 0, 0, false), sessRsp(1, 0, 5))}
	ex["frame.fetch-forgotten"] = example{fr(sessReq(1, 5, 0, true), sessRsp(1, 0, 6)), fr(sessReq(1, 5, 0, false), sessRsp(1, 0, 6))}
	// The member, at generation 2, heartbeats at 1: ILLEGAL_GENERATION.
	ex["conv.group-generation"] = example{
		append(member(), heartbeatReq(6, "m1", 1), heartbeatRsp(6, 22)),
		append(member(), heartbeatReq(6, "m1", 2), heartbeatRsp(6, 0))}
	// Joined at epoch 1, bumped to 2, then epoch 3: FENCED_MEMBER_EPOCH.
	cgh := fr(cghReq(1, 0), cghRsp(1, 0, 1), cghReq(2, 1), cghRsp(2, 0, 2))
	ex["conv.member-epoch"] = example{
		append(cgh, cghReq(3, 3), cghRsp(3, 110, 0)),
		append(cgh, cghReq(3, 2), cghRsp(3, 0, 2))}
	return ex
}

// listOffsets is a ListOffsets v2 request with isolation level iso.
func listOffsets(iso int8) []byte {
	r := kmsg.NewPtrListOffsetsRequest()
	r.ReplicaID, r.IsolationLevel = -1, iso
	t := kmsg.NewListOffsetsRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewListOffsetsRequestTopicPartition()
	p.Timestamp = -1
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return req(r, 2, 1)
}

// hexLines is frames as the example files hold them: one per line.
func hexLines(frames [][]byte) []byte {
	var b []byte
	for _, f := range frames {
		b = hex.AppendEncode(b, f)
		b = append(b, '\n')
	}
	return b
}

const examplesDir = "ruledoc/examples"

// TestRuleExamples: every rule has an example; its fault is flagged with
// exactly that rule and its clean twin with none; the files the rule
// pages show are the builders' bytes (-update rewrites them).
func TestRuleExamples(t *testing.T) {
	ex := ruleExamples()
	for _, r := range Rules() {
		e, ok := ex[r.ID]
		if !ok {
			t.Errorf("%s has no example", r.ID)
			continue
		}
		for _, side := range []struct {
			name   string
			frames [][]byte
			want   []string
		}{{"bad", e.bad, []string{r.ID}}, {"good", e.good, nil}} {
			file := filepath.Join(examplesDir, r.ID+"."+side.name+".hex")
			b := hexLines(side.frames)
			if *update {
				if err := os.WriteFile(file, b, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if old, err := os.ReadFile(file); err != nil || !bytes.Equal(old, b) {
				t.Errorf("%s is stale (go test ./codec/check -run TestRuleExamples -update)", file)
			}
			fs := Check(FromFrames(side.frames))
			if got := ruleIDs(fs); !equalStrings(got, side.want) {
				t.Errorf("%s %s: rules %v, want %v\n%s", r.ID, side.name, got, side.want, findingLines(fs))
			}
		}
	}
	if len(ex) != len(Rules()) {
		t.Errorf("%d examples for %d rules", len(ex), len(Rules()))
	}
}

// ruleIDs are the distinct rules of the findings that are not skips.
func ruleIDs(fs []Finding) []string {
	seen := map[string]bool{}
	var ids []string
	for _, f := range fs {
		if !f.Skipped && !seen[f.Rule.ID] {
			seen[f.Rule.ID] = true
			ids = append(ids, f.Rule.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func findingLines(fs []Finding) string {
	var s []string
	for i := range fs {
		s = append(s, "  "+fs[i].String())
	}
	return strings.Join(s, "\n")
}

// TestRulePages: every rule has a page that says what Kafka requires,
// where, and what its example's fault is, and the page's examples are
// the builders'.
func TestRulePages(t *testing.T) {
	for _, r := range Rules() {
		p, ok := ruledoc.ByID(r.ID)
		if !ok {
			t.Errorf("%s has no page", r.ID)
			continue
		}
		if p.Requires == "" || len(p.Kafka) == 0 || p.Fault == "" || p.Allowed == "" {
			t.Errorf("%s: page incomplete: %+v", r.ID, p)
		}
		bad, good := ruledoc.Example(r.ID)
		e := ruleExamples()[r.ID]
		if len(bad) != len(e.bad) || len(good) != len(e.good) {
			t.Errorf("%s: the page's example has %d/%d frames, the builder %d/%d", r.ID, len(bad), len(good), len(e.bad), len(e.good))
		}
	}
	if n := len(ruledoc.Pages()); n != len(Rules()) {
		t.Errorf("%d pages for %d rules", n, len(Rules()))
	}
}

// TestResponsesAloneInAFile: a file holding a response alone (what
// kwire check reads from a paste of one frame, or from kwire encode of a
// response's JSON) is read as the likeliest response, as kwire decode
// reads it, not as the request its correlation id looks like (7 reads
// as Produce v7): a clean Fetch response has nothing to say, and a
// batch's bad CRC in one is said where it is. None of them is a stray:
// responses alone are not a conversation from its start.
func TestResponsesAloneInAFile(t *testing.T) {
	good := fetchRsp(11, 7, 2, plain().bytes())
	fs := Check(FromFrames(fr(good)))
	require.Empty(t, ruleIDs(fs), findingLines(fs))

	b := plain()
	b.badCRC = true
	fs = Check(FromFrames(fr(fetchRsp(11, 7, 2, b.bytes()), good)))
	require.Equal(t, []string{"records.crc"}, ruleIDs(fs), findingLines(fs))
	for _, f := range fs {
		if !f.Skipped {
			require.Equal(t, Response, f.Where.Side, findingLines(fs))
			require.Equal(t, "body.responses[0].partitions[0].records[0].crc", f.Where.Path, findingLines(fs))
		}
	}
}

// TestBrokenRequestAloneInAFile: a request broken in its body, alone in a
// file, is that request and its error, not the response a guess finds
// for its bytes: an ApiVersions v3 request whose clientSoftwareName
// length is a 6-byte varint was read as a response to no request
// (correlation 1179651, its api key and version), and nothing was said.
// Produce is left to the guess: a response's correlation id 7 reads as
// Produce v7.
func TestBrokenRequestAloneInAFile(t *testing.T) {
	b, err := hex.DecodeString("000000200012000300000001000570726f62650086808080800070726f626504312e3000")
	require.NoError(t, err)
	xs := FromFrames([][]byte{b})
	require.Len(t, xs, 1)
	require.NotNil(t, xs[0].Request)
	require.Nil(t, xs[0].Response)
	fs := Check(xs)
	require.Equal(t, []string{"frame.decode"}, ruleIDs(fs), findingLines(fs))
	require.Equal(t, "body.clientSoftwareName", fs[0].Where.Path)
	require.Equal(t, Request, fs[0].Where.Side)
}

// TestRepeatedTagSaysSo: a tag written twice was said to be out of order,
// which sends a reader looking for two tags swapped.
func TestRepeatedTagSaysSo(t *testing.T) {
	r := kmsg.NewPtrFetchRequest()
	r.MaxWaitMillis, r.MinBytes = 500, 1
	fs := Check(FromFrames(fr(withBodyTags(req(r, 15, 1), 2, 0, 1, 0, 0, 1, 0))))
	var tags []string
	for _, f := range fs {
		if f.Rule.ID == "frame.tags" {
			tags = append(tags, f.String())
		}
	}
	require.Len(t, tags, 1, findingLines(fs))
	require.Contains(t, tags[0], "tag 0 is repeated (tags must ascend)")
}

// TestSecondHandshakeBeforeAuthenticating: a SaslHandshake sent again
// before SaslAuthenticate completed the first's closes the connection
// (SaslServerAuthenticator: "Unexpected Kafka request of type
// SASL_HANDSHAKE during SASL authentication"), and kwire said nothing.
// After authenticating, a handshake starts re-authentication (KIP-368).
func TestSecondHandshakeBeforeAuthenticating(t *testing.T) {
	hs := func(corr int32) []byte { return req(&kmsg.SASLHandshakeRequest{Mechanism: "PLAIN"}, 1, corr) }
	hsOK := func(corr int32) []byte {
		return rsp(&kmsg.SASLHandshakeResponse{SupportedMechanisms: []string{"PLAIN"}}, 1, corr)
	}
	auth := func(corr int32) []byte {
		return req(&kmsg.SASLAuthenticateRequest{SASLAuthBytes: []byte("\x00user\x00pass")}, 1, corr)
	}
	authOK := func(corr int32) []byte { return rsp(&kmsg.SASLAuthenticateResponse{}, 1, corr) }

	fs := Check(FromFrames(fr(hs(1), hsOK(1), hs(2), hsOK(2), auth(3), authOK(3))))
	require.Equal(t, []string{"conn.sasl"}, ruleIDs(fs), findingLines(fs))
	for _, f := range fs {
		if !f.Skipped {
			require.Equal(t, int32(2), f.Where.Correlation, findingLines(fs))
			require.Contains(t, f.String(), "a second SaslHandshake before SaslAuthenticate completed the first's")
		}
	}

	fs = Check(FromFrames(fr(hs(1), hsOK(1), auth(2), authOK(2), hs(3), hsOK(3), auth(4), authOK(4))))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
}

// TestProducedBaseOffsetIsZero: the broker refuses a client's append whose
// first batch has a baseOffset other than 0 (UnifiedLog
// .analyzeAndValidateRecords: "should be 0"); kwire said nothing.
func TestProducedBaseOffsetIsZero(t *testing.T) {
	b := plain()
	b.base = 42
	fs := Check(FromFrames(fr(produce(9, 1, nil, b.bytes()), produceOK(9, 1, 0))))
	require.Equal(t, []string{"records.last-offset-delta"}, ruleIDs(fs), findingLines(fs))
	for _, f := range fs {
		if !f.Skipped {
			require.Equal(t, "body.topicData[0].partitionData[0].records[0].baseOffset", f.Where.Path)
			require.Contains(t, f.String(), "expected 0, found 42")
		}
	}
	b.base = 0
	fs = Check(FromFrames(fr(produce(9, 1, nil, b.bytes()), produceOK(9, 1, 0))))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
}

// TestOrderCountsLaterRequests: conn.order's found counts the later
// requests answered first in words that agree with the count ("1 later
// request"), not "1 later request(s)".
func TestOrderCountsLaterRequests(t *testing.T) {
	for _, c := range []struct {
		frames [][]byte
		found  string
	}{
		{fr(metadataReq(9, 1, "orders"), metadataReq(9, 2, "orders"), metadataRsp(9, 2), metadataRsp(9, 1)), "answered after 1 later request"},
		{fr(metadataReq(9, 1, "orders"), metadataReq(9, 2, "orders"), metadataReq(9, 3, "orders"), metadataRsp(9, 2), metadataRsp(9, 3), metadataRsp(9, 1)), "answered after 2 later requests"},
	} {
		fs := Check(FromFrames(c.frames))
		var found []string
		for _, f := range fs {
			if f.Rule.ID == "conn.order" && !f.Skipped {
				found = append(found, f.Found)
			}
		}
		require.Equal(t, []string{c.found}, found, findingLines(fs))
	}
}
