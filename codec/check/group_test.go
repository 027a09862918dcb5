package check

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// judged are the findings of rule id that are not skips.
func judged(fs []Finding, id string) []Finding {
	var out []Finding
	for _, f := range fs {
		if !f.Skipped && f.Rule.ID == id {
			out = append(out, f)
		}
	}
	return out
}

// groupCommit is an OffsetCommit to group billing at version v of member
// at generation gen, committing orders-0 at 2.
func groupCommit(v int16, corr int32, member string, gen int32) []byte {
	r := kmsg.NewPtrOffsetCommitRequest()
	r.Group, r.Generation, r.MemberID = "billing", gen, member
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewOffsetCommitRequestTopicPartition()
	p.Offset = 2
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return req(r, v, corr)
}

// groupCommitRsp answers it with code for orders-0.
func groupCommitRsp(v int16, corr int32, code int16) []byte {
	r := kmsg.NewPtrOffsetCommitResponse()
	t := kmsg.NewOffsetCommitResponseTopic()
	t.Topic = "orders"
	p := kmsg.NewOffsetCommitResponseTopicPartition()
	p.ErrorCode = code
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	return rsp(r, v, corr)
}

// TestGroupGenerationAcrossConnections: a classic member's JoinGroup and
// SyncGroup go over one connection and its Heartbeat and OffsetCommit
// over another (kgo's group and normal connections). A commit at the
// generation before the member's last JoinGroup answer is flagged at its
// generation field, in the first version that has one and a flexible
// one; one at the last
// generation is not, nor a simple commit (generation -1, no member id),
// nor a heartbeat the coordinator answered REBALANCE_IN_PROGRESS (it
// took the member and generation as current: the group rebalances).
func TestGroupGenerationAcrossConnections(t *testing.T) {
	group := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	normal := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	for _, tc := range []struct {
		v    int16
		path string
	}{{1, "body.generationIdOrMemberEpoch"}, {9, "body.generationIdOrMemberEpoch"}} {
		run := func(gen int32, code int16) []Finding {
			xs := exchangesOn(group, member()...)
			return Check(append(xs, exchangesOn(normal, groupCommit(tc.v, 7, "m1", gen), groupCommitRsp(tc.v, 7, code))...))
		}
		fs := judged(run(1, 22), "conv.group-generation")
		require.Len(t, fs, 1, "OffsetCommit v%d", tc.v)
		require.Equal(t, tc.path, fs[0].Where.Path)
		require.Equal(t, 2, fs[0].Where.Conn)
		require.Contains(t, fs[0].String(), `member "m1" of group "billing" sent generation 1, but its last JoinGroup answer gave it generation 2`)
		require.Contains(t, fs[0].String(), "expected generation 2, found generation 1")
		// Unanswered (the capture ended first): still judged.
		xs := exchangesOn(group, member()...)
		xs = append(xs, Exchange{Conn: normal, Request: groupCommit(tc.v, 7, "m1", 1)})
		require.Len(t, judged(Check(xs), "conv.group-generation"), 1)

		require.Empty(t, judged(run(2, 0), "conv.group-generation"))
		require.Empty(t, judged(run(-1, 0), "conv.group-generation"), "a generation -1 commit with member m1 is refused, but not for its generation: Kafka answers UNKNOWN_MEMBER_ID or ILLEGAL_GENERATION")
	}
	// A transactional producer commits the member's offsets
	// (TxnOffsetCommit v3+ carries the member and its generation).
	txnCommit := func(gen int32) []byte {
		r := kmsg.NewPtrTxnOffsetCommitRequest()
		r.TransactionalID, r.Group, r.ProducerID, r.Generation, r.MemberID = "tx-1", "billing", 8, gen, "m1"
		t := kmsg.NewTxnOffsetCommitRequestTopic()
		t.Topic = "orders"
		p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		p.Offset = 2
		t.Partitions = append(t.Partitions, p)
		r.Topics = append(r.Topics, t)
		return req(r, 3, 8)
	}
	for gen, n := range map[int32]int{1: 1, 2: 0} {
		xs := append(exchangesOn(group, member()...), Exchange{Conn: normal, Request: txnCommit(gen)})
		fs := judged(Check(xs), "conv.group-generation")
		require.Len(t, fs, n, "TxnOffsetCommit at generation %d", gen)
		if n > 0 {
			require.Equal(t, "body.generationId", fs[0].Where.Path)
		}
	}

	// A commit from outside group management.
	simple := exchangesOn(normal, groupCommit(8, 1, "", -1), groupCommitRsp(8, 1, 0))
	fs := Check(append(exchangesOn(group, member()...), simple...))
	require.Empty(t, ruleIDs(fs), findingLines(fs))

	// A second member joins: the coordinator answers the first's
	// heartbeat REBALANCE_IN_PROGRESS. Not the member's fault.
	xs := exchangesOn(group, member()...)
	xs = append(xs, exchangesOn(normal, heartbeatReq(6, "m1", 2), heartbeatRsp(6, 27))...)
	fs = Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.group-generation", findingLines(fs))
	// What the coordinator accepted is never flagged: it checks the
	// member and generation first, so an answer the capture lacks gave
	// them. It is said not judged.
	xs = append(xs, exchangesOn(normal, heartbeatReq(7, "m1", 1), heartbeatRsp(7, 27))...)
	fs = Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, findingLines(fs), "conv.group-generation skipped conn 2 correlation 7 request at byte 28 (body.generationId): a request the coordinator accepted")
}

// TestGroupGenerationNotJudged: a capture that began after the member
// joined holds no JoinGroup answer: its requests are not judged (said
// once); nor one after bytes were lost since the answer; nor one sent
// before the answer that gave the newer generation came (it was in
// flight).
func TestGroupGenerationNotJudged(t *testing.T) {
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	mid := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092"}
	fs := Check(exchangesOn(mid, heartbeatReq(6, "m1", 1), heartbeatRsp(6, 22), groupCommit(8, 7, "m9", 1), groupCommitRsp(8, 7, 25)))
	require.Empty(t, judged(fs, "conv.group-generation"), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.group-generation")
	require.Contains(t, findingLines(fs), "a group member whose JoinGroup answer was not captured")

	run := func(gaps int) []Finding {
		xs := exchangesOn(cn, member()...)
		return Check(append(xs, withGaps(exchangesOn(cn, heartbeatReq(6, "m1", 1), heartbeatRsp(6, 22)), gaps)...))
	}
	require.Len(t, judged(run(0), "conv.group-generation"), 1)
	fs = run(1)
	require.Empty(t, judged(fs, "conv.group-generation"), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.group-generation")
	require.Contains(t, findingLines(fs), "after bytes were lost from the capture")

	// The heartbeat at generation 1 was sent (packet 20) before the
	// rejoin's answer came (packet 21): its answer came after.
	xs := exchangesOn(cn, member()...)
	for i := range xs {
		xs[i].RequestPacket, xs[i].ResponsePacket = 10*i+1, 10*i+2
	}
	xs[3].ResponsePacket = 31 // the rejoin (generation 2) answered late
	hb := exchangesOn(cn, heartbeatReq(6, "m1", 1), heartbeatRsp(6, 22))
	hb[0].RequestPacket, hb[0].ResponsePacket = 30, 32
	fs = Check(append(xs, hb...))
	require.Empty(t, judged(fs, "conv.group-generation"), findingLines(fs))

	// kwire proxy --check has no packet positions, only its clock: the
	// heartbeat, over another connection, was sent a millisecond before
	// the rejoin's answer came, and ended after it. Sent a millisecond
	// after, it is flagged.
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	proxied := func(sent time.Duration) []Finding {
		xs := exchangesOn(cn, member()...)
		for i := range xs {
			xs[i].RequestTime, xs[i].ResponseTime = t0.Add(time.Duration(10*i)*time.Millisecond), t0.Add(time.Duration(10*i+5)*time.Millisecond)
		}
		hb := exchangesOn(other, heartbeatReq(6, "m1", 1), heartbeatRsp(6, 22))
		hb[0].RequestTime, hb[0].ResponseTime = xs[3].ResponseTime.Add(sent), xs[4].ResponseTime.Add(time.Millisecond)
		return Check(append(xs, hb...))
	}
	fs = proxied(-time.Millisecond)
	require.Empty(t, judged(fs, "conv.group-generation"), findingLines(fs))
	require.Len(t, judged(proxied(time.Millisecond), "conv.group-generation"), 1)
}

// TestGroupMemberIDNeverGiven: a client that joined the group in the
// capture as a new member, and then uses a member id no JoinGroup
// answer gave, is flagged; a client whose member predates the capture
// (it used the id before it joined, or its first JoinGroup seen rejoins
// with a member id) is not. A static member removed by its instance id
// (LeaveGroup v3+ with no member id) is no member id at all.
func TestGroupMemberIDNeverGiven(t *testing.T) {
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	fs := Check(exchangesOn(cn, append(member(), heartbeatReq(6, "m9", 2), heartbeatRsp(6, 25))...))
	got := judged(fs, "conv.group-generation")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, "body.generationId", got[0].Where.Path)
	require.Contains(t, got[0].String(), `member id "m9" of group "billing" was never given by the coordinator: the client's last JoinGroup answer gave it "m1"`)
	require.Contains(t, got[0].String(), `expected member id "m1", found member id "m9"`)

	// LeaveGroup v3+: each member at its own path.
	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Group = "billing"
	for _, id := range []string{"m1", "m9"} {
		m := kmsg.NewLeaveGroupRequestMember()
		m.MemberID = id
		leave.Members = append(leave.Members, m)
	}
	static := kmsg.NewLeaveGroupRequestMember()
	static.InstanceID = kmsg.StringPtr("pod-1")
	leave.Members = append(leave.Members, static)
	leaveRsp := func(codes ...int16) []byte {
		r := kmsg.NewPtrLeaveGroupResponse()
		for _, c := range codes {
			m := kmsg.NewLeaveGroupResponseMember()
			m.ErrorCode = c
			r.Members = append(r.Members, m)
		}
		return rsp(r, 3, 6)
	}
	fs = Check(exchangesOn(cn, append(member(), req(leave, 3, 6), leaveRsp(0, 25, 0))...))
	got = judged(fs, "conv.group-generation")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, "body.members[1].memberId", got[0].Where.Path)

	// The same client used m9 before it joined: a member of its own
	// that predates the capture (two consumers with one client id).
	xs := exchangesOn(cn, heartbeatReq(1, "m9", 4), heartbeatRsp(1, 0))
	xs = append(xs, exchangesOn(cn, append(member(), heartbeatReq(6, "m9", 4), heartbeatRsp(6, 25))...)...)
	fs = Check(xs)
	require.Empty(t, judged(fs, "conv.group-generation"), findingLines(fs))

	// Its first JoinGroup seen rejoins as m0: it joined before.
	rejoin := fr(joinReq(1, "m0"), joinRsp(1, 0, "m0", 3), heartbeatReq(2, "m9", 3), heartbeatRsp(2, 25))
	fs = Check(exchangesOn(cn, rejoin...))
	require.Empty(t, judged(fs, "conv.group-generation"), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.group-generation")
}

// TestMemberEpoch: a ConsumerGroupHeartbeat at the epoch before the
// member's last is accepted (Kafka accepts it when the answer that
// bumped the epoch may have been lost); older than that is flagged, as
// is one newer than any given. Epochs 0, -1 and -2 are a join and
// leaves. A member whose answers were not captured, or after bytes were
// lost, is not judged.
func TestMemberEpoch(t *testing.T) {
	cn := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	life := fr(cghReq(1, 0), cghRsp(1, 0, 1), cghReq(2, 1), cghRsp(2, 0, 2), cghReq(3, 2), cghRsp(3, 0, 3))
	run := func(epoch int32, code int16, gaps int) []Finding {
		xs := exchangesOn(cn, life...)
		return Check(append(xs, withGaps(exchangesOn(cn, cghReq(4, epoch), cghRsp(4, code, epoch)), gaps)...))
	}
	for _, e := range []int32{3, 2, 0, -1, -2} {
		fs := run(e, 110, 0)
		require.Empty(t, judged(fs, "conv.member-epoch"), "epoch %d: %s", e, findingLines(fs))
	}
	for _, e := range []int32{1, 4} {
		fs := judged(run(e, 110, 0), "conv.member-epoch")
		require.Len(t, fs, 1, "epoch %d", e)
		require.Equal(t, "body.memberEpoch", fs[0].Where.Path)
		require.Contains(t, fs[0].String(), "expected epoch 3 (or 2), 0 to join, -1 or -2 to leave, found epoch "+itoa(int(e)))
	}
	fs := run(1, 110, 1)
	require.Empty(t, judged(fs, "conv.member-epoch"), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.member-epoch")
	// Accepted by the coordinator: not flagged, said not judged.
	fs = run(1, 0, 0)
	require.Empty(t, judged(fs, "conv.member-epoch"))
	require.Contains(t, findingLines(fs), "conv.member-epoch skipped conn 1 correlation 4 request at byte 31 (body.memberEpoch): a request the coordinator accepted")

	mid := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092"}
	fs = Check(exchangesOn(mid, cghReq(4, 7), cghRsp(4, 110, 0)))
	require.Empty(t, judged(fs, "conv.member-epoch"), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.member-epoch")

	// After leaving (-1, answered -1), the member's epochs are forgotten.
	xs := exchangesOn(cn, life...)
	xs = append(xs, exchangesOn(cn, cghReq(4, -1), cghRsp(4, 0, -1), cghReq(5, 0), cghRsp(5, 0, 5), cghReq(6, 5), cghRsp(6, 0, 5))...)
	fs = Check(xs)
	require.Empty(t, judged(fs, "conv.member-epoch"), findingLines(fs))
}

// TestJoinGroupMemberID: a JoinGroup's own member id was never judged. A
// client that joined the group in the capture as a new member rejoins
// with a member id no JoinGroup answer gave it: flagged at the request's
// memberId, saying what its last answer gave (Kafka answers
// UNKNOWN_MEMBER_ID; for a static member, FENCED_INSTANCE_ID when its
// instance id is another member id's). A first join (no member id), a
// rejoin with the id MEMBER_ID_REQUIRED gave (on another connection too),
// and a static member's join after a restart (no member id, its instance
// id) are not; nor a client whose first JoinGroup seen carries a member
// id (it joined before the capture began).
func TestJoinGroupMemberID(t *testing.T) {
	group := &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	static := func(corr int32, member string) []byte {
		r := kmsg.NewPtrJoinGroupRequest()
		r.Group, r.SessionTimeoutMillis, r.RebalanceTimeoutMillis, r.MemberID, r.ProtocolType = "billing", 45000, 60000, member, "consumer"
		r.InstanceID = kmsg.StringPtr("pod-1")
		p := kmsg.NewJoinGroupRequestProtocol()
		p.Name, p.Metadata = "range", subscription()
		r.Protocols = append(r.Protocols, p)
		return req(r, 5, corr)
	}

	fs := Check(exchangesOn(group, append(member(), joinReq(6, "m9"), joinRsp(6, 25, "", -1))...))
	got := judged(fs, "conv.group-generation")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, "body.memberId", got[0].Where.Path)
	require.True(t, got[0].Where.HasOffset)
	require.Equal(t, 6, int(got[0].Where.Correlation))
	require.Contains(t, got[0].String(), `member id "m9" of group "billing" was never given by the coordinator: the client's last JoinGroup answer gave it "m1" (Kafka answers UNKNOWN_MEMBER_ID)`)
	require.Contains(t, got[0].String(), `expected member id "m1", found member id "m9"`)

	// A static member: the answer Kafka gives depends on its instance id.
	fs = Check(exchangesOn(group, append(member(), static(6, "m9"), joinRsp(6, 82, "", -1))...))
	got = judged(fs, "conv.group-generation")
	require.Len(t, got, 1, findingLines(fs))
	require.Contains(t, got[0].String(), "FENCED_INSTANCE_ID")

	// Clean: member() itself (a first join, then the id given), its
	// rejoin over another connection, a static member's join after a
	// restart with no member id.
	for _, xs := range [][]Exchange{
		exchangesOn(group, member()...),
		append(exchangesOn(group, member()...), exchangesOn(other, joinReq(6, "m1"), joinRsp(6, 0, "m1", 3))...),
		exchangesOn(group, append(member(), static(6, ""), joinRsp(6, 0, "m2", 3), static(7, "m2"), joinRsp(7, 0, "m2", 3))...),
	} {
		fs := Check(xs)
		require.Empty(t, ruleIDs(fs), findingLines(fs))
		require.NotContains(t, skippedIDs(fs), "conv.group-generation", findingLines(fs))
	}

	// Its first JoinGroup seen carries a member id: not judged.
	fs = Check(exchangesOn(group, joinReq(1, "m0"), joinRsp(1, 25, "", -1)))
	require.Empty(t, judged(fs, "conv.group-generation"), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.group-generation")
}
