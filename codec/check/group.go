package check

import (
	"strconv"
	"time"

	"github.com/kwire/kwire/codec/schema"
)

// The consumer group rules: conv.group-generation (the classic group
// protocol: a member's requests carry the generation and member id its
// latest JoinGroup answer gave it, and its rejoins that member id) and conv.member-epoch (KIP-848: a
// ConsumerGroupHeartbeat carries the member epoch its coordinator's last
// answer gave it). Both follow a member by its coordinator (the broker
// the answers came from), group and member id, across connections: kgo
// sends JoinGroup and SyncGroup over one connection, Heartbeat and
// OffsetCommit over another.

// memberKey is a group member at its coordinator; with no broker, a
// member id given at any coordinator (Checker.given); in joiners, a
// client (identity) in member.
type memberKey struct {
	broker, group, member string
}

// memberState is what the coordinator's answers gave a member: its
// generation (member epoch), the one before it, where the answer was
// and Checker.lost then.
type memberState struct {
	gen, prev int32 // -1: none
	at        answerAt
	lost      int
}

// answerAt is where an answer was: its position (packet or frame), and
// its time when it has no position (kwire proxy --check).
type answerAt struct {
	pos  int
	time time.Time
}

// answered is where a's response was.
func answered(a *analysis) answerAt {
	return answerAt{respPos(&a.x), a.x.ResponseTime}
}

// before reports whether an answer at at came before a's request was
// sent: by positions, or by the proxy's clock when there are none;
// exchanges with neither come in order.
func (at answerAt) before(a *analysis) bool {
	if pos := reqPos(&a.x); pos > 0 {
		return at.pos < pos
	}
	if t := a.x.RequestTime; !t.IsZero() && !at.time.IsZero() {
		return at.time.Before(t)
	}
	return true
}

// joinerState is a client's first JoinGroup answer seen for a group:
// whether that JoinGroup was a new member's (an empty member id, so
// every member id the client uses for the group after it was given in
// the capture), where and Checker.lost then.
type joinerState struct {
	fresh bool
	at    answerAt
	lost  int
	last  string // the member id its last JoinGroup answer gave
}

// maxMembers bounds the group state a Checker keeps (members, epochs,
// given, joiners each): past it, that state is forgotten, and what it
// would judge is said not judged.
const maxMembers = 1 << 16

// Error codes the group rules read.
const (
	errIllegalGeneration  = 22
	errUnknownMemberID    = 25
	errRebalanceInProcess = 27
	errMemberIDRequired   = 79
)

// groupAnswer is the error code a group request was answered with (the
// first partition's refusal for OffsetCommit), and whether the answer
// was captured and read.
func groupAnswer(rsp *frameFacts) (int16, bool) {
	if !rsp.Present || rsp.Err != nil || rsp.Guessed {
		return 0, false
	}
	code := rsp.ErrorCode
	for i := range rsp.Parts {
		if code == 0 {
			code = rsp.Parts[i].ErrorCode
		}
	}
	return code, true
}

// accepted reports whether the coordinator answered a group request
// without refusing its member id or generation: Kafka's coordinator
// checks them first (ClassicGroup.validateMember, then the generation),
// so an answer of no error, or REBALANCE_IN_PROGRESS (the member is
// current, the group rebalancing), says the member sent what it was
// given; a rule that would say otherwise missed an answer.
func accepted(a *analysis) bool {
	code, ok := groupAnswer(&a.rsp)
	return ok && (code == 0 || code == errRebalanceInProcess)
}

// flag adds a group rule's finding, unless the coordinator's answer
// accepted the request: then the capture lacks an answer that gave the
// member what it sent (a coordinator it does not see), and the request
// is said not judged.
func (c *Checker) flag(r *Rule, a *analysis, w Where, what, expected, found string) {
	if accepted(a) {
		c.skip(r, w, "a request the coordinator accepted (no error, or REBALANCE_IN_PROGRESS), though the answers captured gave the member otherwise, is not judged: an answer the capture does not hold gave it what it sent")
		return
	}
	c.add(r, w, what, expected, found)
}

func brokerOf(cn *Conn) string {
	if cn == nil {
		return ""
	}
	return cn.Broker
}

// joinGroup learns what a JoinGroup answer gave its member: a member id
// (MEMBER_ID_REQUIRED gives one without a generation, KIP-394) and a
// generation.
func (c *Checker) joinGroup(a *analysis, who string) {
	req, rsp := &a.req, &a.rsp
	code, ok := groupAnswer(rsp)
	if !ok || rsp.MemberID == "" || code != 0 && code != errMemberIDRequired {
		return
	}
	broker := brokerOf(a.x.Conn)
	if len(c.members) >= maxMembers || len(c.given) >= maxMembers || len(c.joiners) >= maxMembers {
		clear(c.members)
		clear(c.given)
		clear(c.joiners)
	}
	k := memberKey{broker, req.Group, rsp.MemberID}
	m := c.members[k]
	if m == nil {
		m = &memberState{gen: -1, prev: -1}
		c.members[k] = m
	}
	if code == 0 && rsp.HasGeneration {
		if rsp.Generation != m.gen {
			m.prev = m.gen
		}
		m.gen = rsp.Generation
	}
	m.at, m.lost = answered(a), c.lost
	c.given[memberKey{"", req.Group, rsp.MemberID}] = true
	jk := memberKey{broker, req.Group, who}
	j := c.joiners[jk]
	if j == nil {
		j = &joinerState{fresh: req.MemberID == "", at: answered(a), lost: c.lost}
		c.joiners[jk] = j
	}
	j.last = rsp.MemberID
}

// joinMember applies conv.group-generation to a JoinGroup's own member
// id, before its answer is learnt: empty on a member's first join (from
// v4 Kafka answers MEMBER_ID_REQUIRED with the id to join with, KIP-394),
// otherwise an id a JoinGroup answer gave the client, as in its other
// requests. A static member (a group instance id, KIP-345) joins with no
// member id too after a restart, and is given a new one; its instance id
// is not its member id. A JoinGroup carries no generation.
func (c *Checker) joinMember(a *analysis, who string) {
	req := &a.req
	if req.MemberID == "" {
		return
	}
	c.groupMember(a, who, req.MemberID, 0, false, a.at(Request, req.MemberIDAt, 0, "body.memberId"))
}

// groupGeneration applies conv.group-generation to a classic group
// member's request: SyncGroup, Heartbeat, OffsetCommit v1+,
// TxnOffsetCommit v3+ (generation and member id) and LeaveGroup (member
// ids).
func (c *Checker) groupGeneration(a *analysis, who string) {
	req := &a.req
	switch a.key {
	case schema.KeyOffsetCommit, schema.KeyTxnOffsetCommit:
		if !req.HasGeneration {
			return // v0, TxnOffsetCommit v0-2: no member
		}
		if req.MemberID == "" && req.Generation < 0 && !req.HasInstanceID {
			// A commit from outside group management (an admin
			// client, assign() without a group): Kafka stores it
			// when the group is empty (ClassicGroup.validateOffsetCommit).
			return
		}
	case schema.KeyLeaveGroup:
		if len(req.Leaving) > 0 || req.MemberID == "" {
			for _, l := range req.Leaving {
				if l.MemberID == "" && l.HasInstanceID {
					continue // a static member removed by its instance id (KIP-345)
				}
				c.groupMember(a, who, l.MemberID, 0, false, a.at(Request, l.At, 0, "body.members["+itoa(l.i)+"].memberId"))
			}
			return
		}
	}
	w := a.atPath(Request, "body.memberId")
	if req.HasGeneration {
		w = a.at(Request, req.GenerationAt, 0, req.GenPath)
	}
	c.groupMember(a, who, req.MemberID, req.Generation, req.HasGeneration, w)
}

// groupMember judges one member id (and generation, when hasGen) of a
// request at w.
func (c *Checker) groupMember(a *analysis, who, member string, gen int32, hasGen bool, w Where) {
	req := &a.req
	broker := brokerOf(a.x.Conn)
	if _, ok := c.epochs[memberKey{broker, req.Group, member}]; ok && member != "" {
		return // a KIP-848 member's commit: its epoch, not a generation
	}
	m := c.members[memberKey{broker, req.Group, member}]
	given := m != nil || c.given[memberKey{"", req.Group, member}]
	j := c.joiners[memberKey{broker, req.Group, who}]
	if !given && (j == nil || !j.at.before(a)) {
		if member != "" && len(c.given) < maxMembers {
			// A member id the client used before it joined: its member
			// may have joined before the capture began (two consumers
			// with one client id).
			c.given[memberKey{"", req.Group, member}] = true
		}
		c.skip(ConvGroupGeneration, w, "a group member whose JoinGroup answer was not captured (the capture began after it joined, or it joined through a coordinator the capture does not see) is not judged")
		return
	}
	switch {
	case m != nil:
		if !hasGen || m.gen < 0 || gen >= m.gen || !m.at.before(a) {
			// The generation given, or one newer (given by a
			// coordinator the capture does not see), or a request
			// sent before the answer came.
			return
		}
		if m.lost != c.lost {
			c.skip(ConvGroupGeneration, w, "a group member's request "+c.afterLoss()+" is not judged (a JoinGroup answer may be in them)")
			return
		}
		c.flag(ConvGroupGeneration, a, w,
			"member "+strconv.Quote(member)+" of group "+strconv.Quote(req.Group)+" sent generation "+itoa(int(gen))+", but its last JoinGroup answer gave it generation "+itoa(int(m.gen))+" (Kafka answers ILLEGAL_GENERATION)",
			"generation "+itoa(int(m.gen)), "generation "+itoa(int(gen)))
	case given:
		// Given by another coordinator.
	case !j.fresh:
		c.skip(ConvGroupGeneration, w, "a member id of a client whose first JoinGroup seen rejoined with a member id (it joined before the capture began) is not judged")
	case j.lost != c.lost:
		c.skip(ConvGroupGeneration, w, "a member id "+c.afterLoss()+" is not judged (the JoinGroup answer that gave it may be in them)")
	default:
		answer := "UNKNOWN_MEMBER_ID"
		if a.key == schema.KeyJoinGroup && req.HasInstanceID {
			// ClassicGroup: a static member whose instance id another
			// member id holds is fenced.
			answer += ", or FENCED_INSTANCE_ID when its group instance id is another member id's"
		}
		c.flag(ConvGroupGeneration, a, w,
			"member id "+strconv.Quote(member)+" of group "+strconv.Quote(req.Group)+" was never given by the coordinator: the client's last JoinGroup answer gave it "+strconv.Quote(j.last)+" (Kafka answers "+answer+")",
			"member id "+strconv.Quote(j.last), "member id "+strconv.Quote(member))
	}
}

// memberEpoch applies conv.member-epoch to a ConsumerGroupHeartbeat
// (KIP-848) and learns the epoch its answer gives: a member sends 0 to
// join, -1 to leave, -2 for a static member's leave, and otherwise the
// epoch its coordinator's last answer gave it, or the one before it,
// which Kafka accepts when the answer that bumped it may have been lost
// (GroupMetadataManager.throwIfMemberEpochIsInvalid).
func (c *Checker) memberEpoch(a *analysis) {
	req, rsp := &a.req, &a.rsp
	broker := brokerOf(a.x.Conn)
	k := memberKey{broker, req.Group, req.MemberID}
	m := c.epochs[k]
	e := req.Generation
	w := a.at(Request, req.GenerationAt, 0, req.GenPath)
	switch {
	case !req.HasGeneration || e == 0 || e == -1 || e == -2:
	case m == nil || m.gen < 0:
		c.skip(ConvMemberEpoch, w, "a member whose ConsumerGroupHeartbeat answers were not captured (the capture began after it joined, or its coordinator is not in the capture) is not judged")
	case !m.at.before(a) || e == m.gen || e == m.prev:
	case m.lost != c.lost:
		c.skip(ConvMemberEpoch, w, "a member epoch "+c.afterLoss()+" is not judged (an answer that gave it may be in them)")
	default:
		what := "older than its coordinator last gave it"
		want := "epoch " + itoa(int(m.gen))
		if m.prev >= 0 {
			want += " (or " + itoa(int(m.prev)) + ")"
		}
		if e > m.gen {
			what = "newer than any its coordinator gave it"
		}
		c.flag(ConvMemberEpoch, a, w,
			"member "+strconv.Quote(req.MemberID)+" of group "+strconv.Quote(req.Group)+" sent member epoch "+itoa(int(e))+", "+what+" (Kafka answers FENCED_MEMBER_EPOCH)",
			want+", 0 to join, -1 or -2 to leave", "epoch "+itoa(int(e)))
	}
	code, ok := groupAnswer(rsp)
	if !ok || code != 0 || !rsp.HasGeneration {
		return
	}
	id := rsp.MemberID
	if id == "" {
		id = req.MemberID
	}
	if len(c.epochs) >= maxMembers {
		clear(c.epochs)
	}
	k.member = id
	m = c.epochs[k]
	if m == nil {
		m = &memberState{gen: -1, prev: -1}
		c.epochs[k] = m
	}
	if rsp.Generation < 0 {
		delete(c.epochs, k) // it left
		return
	}
	if rsp.Generation != m.gen {
		m.prev = m.gen
	}
	m.gen, m.at, m.lost = rsp.Generation, answered(a), c.lost
}
