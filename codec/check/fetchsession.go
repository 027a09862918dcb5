package check

import "math"

// The fetch session rule, conv.fetch-session (KIP-227). A broker creates
// a session when it answers a full fetch that asks for one (epoch 0) with
// a session id; the client then continues it with incremental fetches
// naming that id at epochs 1, 2, 3... (FetchMetadata.nextEpoch: after the
// int32 maximum, 1), each one past the last the broker accepted
// (FetchManager.newContext answers INVALID_FETCH_SESSION_EPOCH otherwise,
// and FETCH_SESSION_ID_NOT_FOUND for an id it has no session of). A
// session is the broker's, not the connection's: it is followed by the
// broker and id, so a client may carry it to a new connection. The
// frame's own fields (session id 0 with an epoch above 0, forgotten
// topics in a full fetch) are frame.fetch-session and
// frame.fetch-forgotten (frame.go).

// Fetch session error codes.
const (
	errFetchSessionIDNotFound   = 70
	errInvalidFetchSessionEpoch = 71
	errFetchSessionTopicID      = 106 // FETCH_SESSION_TOPIC_ID_ERROR
)

// The two sides of Fetch v13 a session is created on (KIP-516): from v13
// a fetch names its topics by topic id, before it by name. Kafka's
// FullFetchContext creates a session with usesTopicIds = version >= 13,
// and FetchManager.newContext answers FETCH_SESSION_TOPIC_ID_ERROR to an
// incremental fetch of it, at its epoch, from the other side
// (conv.fetch-session-topic-ids).
const (
	sideNames int8 = 1 + iota // Fetch v7-12
	sideIDs                   // Fetch v13+
)

// sideOf is the side of Fetch v13 version v is on.
func sideOf(v int16) int8 {
	if v >= 13 {
		return sideIDs
	}
	return sideNames
}

// sideSays says how a fetch at version v names its topics.
func sideSays(v int16) string {
	if sideOf(v) == sideIDs {
		return "names topics by topic id"
	}
	return "names topics by name"
}

// sessionKey is a fetch session: its broker and id.
type sessionKey struct {
	broker string
	id     int32
}

// sessionState is what the capture holds of one fetch session of a
// broker: the answer that created it, or the first fetch seen naming it.
type sessionState struct {
	sessionStep
	// prev is the step before the last fetch's: a fetch handed out after
	// that one though sent before it (its answer not captured: its
	// connection closed with it in flight) is judged by it when it was
	// sent after prev's fetch (hasPrev), its side of Fetch v13 by
	// prevSide, the session's side then (see lateFetch).
	prev     sessionStep
	hasPrev  bool
	prevSide int8
	said     bool // a wrong epoch was said: once a session
	// used says a fetch named the session (continued or closed it):
	// the client did not leave it unused (conn.fetch-session-unused).
	used bool
	// side is the side of Fetch v13 the session was created on, by a
	// full fetch at version created (conv.fetch-session-topic-ids); 0:
	// not known (the capture did not hold its creation, or it was closed
	// since). sideSaid: a switch was said, once a session. createdAt is
	// where the answer that created it is (the client can name it only
	// after): a late fetch sent before it is of an older session of the
	// id.
	side      int8
	sideSaid  bool
	created   int16
	createdAt int
}

// sessionStep is where a session was after one of its fetches.
type sessionStep struct {
	// next is the epoch the session's next incremental fetch carries: 1
	// after the answer that created it, then one past the last fetch's.
	// 0 is not known: the last fetch was answered with an error, or not
	// answered, or closed the session, and a client starts again (Kafka's
	// and franz-go's close it and ask for another: epoch 0).
	next int32
	last int32 // the last fetch's epoch; 0: the answer that created it
	pos  int   // reqPos of the last fetch (or of the one the creating answer answered)
	lost int   // Checker.lost then
}

// step moves the session on by a fetch: its next epoch and last, and
// where that fetch was.
func (s *sessionState) step(next, last int32, pos, lost int) {
	s.prev, s.hasPrev, s.prevSide = s.sessionStep, true, s.side
	s.sessionStep = sessionStep{next, last, pos, lost}
}

// maxSessions bounds the sessions a Checker follows: past it, they are
// forgotten (Checker.sessionsForgot), and the sessions it held are
// followed again from their next fetch.
const maxSessions = 1 << 16

// nextEpoch is the epoch after e, as Kafka's FetchMetadata.nextEpoch
// counts: past the int32 maximum, 1.
func nextEpoch(e int32) int32 {
	if e == math.MaxInt32 {
		return 1
	}
	return e + 1
}

// fetchSession applies conv.fetch-session to a Fetch (v7+) and learns
// what its answer did to the session: created one, continued it, refused
// it.
func (c *Checker) fetchSession(a *analysis, cs *connState) {
	req, rsp := &a.req, &a.rsp
	if !req.HasSession {
		return
	}
	if cs.fetches == 0 {
		cs.fetches = 1 // a first fetch naming a session: the client had one before
		if req.SessionID == 0 {
			cs.fetches = 2
		}
		cs.fetchLost = c.lost
	}
	broker := brokerOf(a.x.Conn)
	id, epoch := req.SessionID, req.SessionEpoch
	k := sessionKey{broker, id}
	s := c.sessions[k]
	pos := reqPos(&a.x)
	answered := rsp.Present && rsp.Err == nil && !rsp.Guessed && rsp.HasSession
	if id != 0 && s != nil && pos < s.pos {
		s.used = true
		switched := c.lateFetch(a, k, s)
		if answered && req.Err == nil {
			c.fetchAnswer(a, cs, switched)
		}
		return
	}
	switched := false // an incremental fetch on the other side of v13 from its session's
	switch {
	case id == 0:
	case epoch == 0 || epoch == -1:
		// A full fetch naming a session closes it (0 asks for another).
		if s == nil {
			s = c.newSession(k)
		}
		s.step(0, epoch, pos, c.lost)
		s.side = 0
	case epoch > 0:
		if s != nil && s.side != 0 && sideOf(req.Version) != s.side {
			switched = s.lost == c.lost
			c.sessionSide(a, k, s, s.sessionStep, s.side)
		} else if s == nil && c.sessionsForgot {
			// The limit cut what the rules follow: the session may be
			// one whose creation they forgot.
			why := "a fetch session none of those followed holds is not judged: past " + itoa(maxSessions) + " sessions the ones followed were forgotten, and it may be one of them"
			c.skip(ConvFetchSessionTopicIDs, a.where(Request), why)
			c.skip(ConvFetchSessionAnswer, a.where(Request), why)
		}
		s = c.sessionEpoch(a, cs, k, s)
	}
	if id != 0 && s != nil {
		s.used = true
	}
	if epoch == 0 {
		// The client asks for a session: the one the broker handed
		// out over this connection before is left behind.
		c.unusedSession(a, cs, broker)
	}
	if answered && req.Err == nil {
		c.fetchAnswer(a, cs, switched)
	}
	switch {
	case !answered || rsp.ErrorCode != 0:
		// Not answered, or refused: the client starts again.
		if s != nil && id != 0 && epoch > 0 {
			s.next = 0
			if answered && rsp.ErrorCode == errFetchSessionIDNotFound {
				s.side = 0 // the broker holds no such session
			}
		}
	case epoch == 0 && rsp.SessionID != 0:
		// The answer created a session: its first incremental fetch
		// is at epoch 1, on the side of v13 the fetch was on.
		n := c.newSession(sessionKey{broker, rsp.SessionID})
		n.sessionStep = sessionStep{next: 1, pos: pos, lost: c.lost}
		n.side, n.created, n.createdAt = sideOf(req.Version), req.Version, respPos(&a.x)
		cs.given = rsp.SessionID
		cs.unused.handOut(rsp.SessionID, respPos(&a.x), c.lost)
	case id != 0 && epoch > 0 && rsp.SessionID != id && s != nil:
		// The broker closed the session (session id 0: it holds no
		// partition any more), a client starts again.
		s.next = 0
		s.side = 0
	}
}

// sessionSide applies conv.fetch-session-topic-ids to an incremental
// fetch of session k (s) on the other side of Fetch v13 (side, not 0)
// from the full fetch that created it, the session being at before when
// the fetch was sent: judged when nothing was lost since before's fetch
// (a fetch that closed the session may be in them), said once a session.
func (c *Checker) sessionSide(a *analysis, k sessionKey, s *sessionState, before sessionStep, side int8) {
	req := &a.req
	switch {
	case s.sideSaid:
	case before.lost != c.lost:
		c.skip(ConvFetchSessionTopicIDs, a.where(Request),
			"a fetch session's version "+c.afterLoss()+" is not judged (a fetch that closed the session may be in them)")
	default:
		s.sideSaid = true
		answer := sessionAnswer(a, errFetchSessionTopicID, "FETCH_SESSION_TOPIC_ID_ERROR")
		if before.next != 0 && req.SessionEpoch != before.next {
			// FetchManager checks the epoch first.
			answer = sessionAnswer(a, errInvalidFetchSessionEpoch, "INVALID_FETCH_SESSION_EPOCH, its epoch being wrong too; at the right epoch, FETCH_SESSION_TOPIC_ID_ERROR")
		}
		want := "Fetch v13 or later (topics by id)"
		if side == sideNames {
			want = "Fetch v12 or earlier (topics by name)"
		}
		c.add(ConvFetchSessionTopicIDs, a.where(Request),
			"the fetch continues session "+itoa(int(k.id))+" at Fetch v"+itoa(int(req.Version))+", which "+sideSays(req.Version)+
				", but a Fetch v"+itoa(int(s.created))+", which "+sideSays(s.created)+", created the session: a session keeps the side of v13 it was created on"+answer,
			want+", as the session was created, or a full fetch (epoch 0) for a new session", "Fetch v"+itoa(int(req.Version))+", session id "+itoa(int(k.id))+", epoch "+itoa(int(req.SessionEpoch)))
	}
}

// Answer kinds of conv.fetch-session-answer, each said once a
// connection (connState.answerSaid, a bit each).
const (
	answerTopicIDFull uint8 = 1 << iota // FETCH_SESSION_TOPIC_ID_ERROR to a full fetch
	answerSwitchTaken                   // a switch of sides accepted
	answerSessionless                   // a session id to a fetch at epoch -1
	answerOtherID                       // an incremental fetch accepted under another id
)

// fetchAnswer applies conv.fetch-session-answer to a Fetch's answer,
// as Kafka's FetchManager.newContext and its FetchContexts make it: a
// full fetch (epoch 0 or -1) never gets FETCH_SESSION_TOPIC_ID_ERROR; an
// incremental fetch that switched sides of v13 (switched: its session's
// creation captured, nothing lost since) is never accepted; a fetch at
// epoch -1 (SessionlessFetchContext) is answered with session id 0; an
// incremental fetch accepted (IncrementalFetchContext) carries its
// session's id, or 0 when it left the session empty and closed it. An
// answer with throttleTimeMs above 0 may be a throttled one, which Kafka
// sends with error code 0 whatever the fetch (getThrottledResponse): a
// switch so answered is not judged.
func (c *Checker) fetchAnswer(a *analysis, cs *connState, switched bool) {
	req, rsp := &a.req, &a.rsp
	id, epoch := req.SessionID, req.SessionEpoch
	errAt := a.at(Response, rsp.ErrorCodeAt, 0, "body.errorCode")
	idAt := a.at(Response, rsp.SessionIDAt, 0, "body.sessionId")
	say := func(kind uint8, w Where, what, expected, found string) {
		if cs.answerSaid&kind != 0 {
			return
		}
		cs.answerSaid |= kind
		c.add(ConvFetchSessionAnswer, w, what, expected, found)
	}
	full := "no session error: a full fetch closes the session it names and may be given a new one"
	if epoch == -1 {
		full = "no session error: a full fetch at epoch -1 closes the session it names and asks for none"
	}
	switch {
	case (epoch == 0 || epoch == -1) && rsp.ErrorCode == errFetchSessionTopicID:
		say(answerTopicIDFull, errAt,
			"the broker answers a full fetch (epoch "+itoa(int(epoch))+") FETCH_SESSION_TOPIC_ID_ERROR: a full fetch continues no session, and Kafka gives that error only to an incremental fetch whose version is on the other side of v13 from its session's (said once a connection)",
			full, "error code 106 (FETCH_SESSION_TOPIC_ID_ERROR)")
	case switched && rsp.ErrorCode == 0 && rsp.ThrottleMs == 0:
		say(answerSwitchTaken, errAt,
			"the broker accepts an incremental fetch of session "+itoa(int(id))+" at Fetch v"+itoa(int(req.Version))+", which "+sideSays(req.Version)+", in a session created on the other side of v13: Kafka answers FETCH_SESSION_TOPIC_ID_ERROR (said once a connection)",
			"error code 106 (FETCH_SESSION_TOPIC_ID_ERROR)", "error code 0")
	case switched && rsp.ErrorCode == 0:
		c.skip(ConvFetchSessionAnswer, errAt,
			"a fetch that switched sides of v13, answered with a throttle time, is not judged: Kafka answers a throttled fetch with error code 0 whatever its session")
	case epoch == -1 && rsp.ErrorCode == 0 && rsp.SessionID != 0:
		say(answerSessionless, idAt,
			"the broker answers a fetch at epoch -1, which asks for no session, with session id "+itoa(int(rsp.SessionID))+": Kafka answers it without a session (said once a connection)",
			"session id 0", "session id "+itoa(int(rsp.SessionID)))
	case id != 0 && epoch > 0 && rsp.ErrorCode == 0 && rsp.SessionID != 0 && rsp.SessionID != id:
		say(answerOtherID, idAt,
			"the broker accepts an incremental fetch of session "+itoa(int(id))+" under session id "+itoa(int(rsp.SessionID))+": Kafka answers an incremental fetch it accepts with its session's id, or 0 when the fetch left the session empty and closed it (said once a connection)",
			"session id "+itoa(int(id))+" or 0", "session id "+itoa(int(rsp.SessionID)))
	}
}

// The unused session rule, conn.fetch-session-unused. A full fetch at
// epoch 0 asks the broker for a session, and Kafka's broker keeps each
// it creates in its fetch session cache (FetchSessionCache,
// max.incremental.fetch.session.cache.slots, 1000 by default) until a
// fetch closes it or a newer session evicts it. A client that asks again
// and again over one connection, and never uses a session it was given,
// fills the cache: other clients' sessions are evicted, or new ones
// refused. Each time a fetch over a connection asks for a session, the
// one the broker last handed out over it is judged: used when a fetch
// over any connection named it (an incremental fetch, or a full fetch
// that closed it). The rule says, once a connection, when
// unusedSessionsSaid of them were left unused.

// unusedSessionsSaid is how many sessions left unused over a connection
// make the rule say so.
const unusedSessionsSaid = 3

// unusedSessions is what the rule holds of one connection: a few
// counters, whatever the number of sessions.
type unusedSessions struct {
	id     int32 // the last session handed out over the connection, not yet judged; 0: none
	at     int   // respPos of the answer that handed it out
	lost   int   // Checker.lost then
	handed int   // the sessions handed out over the connection
	count  int   // of them, those left unused
	said   bool
}

// handOut notes that an answer at pos handed out session id.
func (u *unusedSessions) handOut(id int32, pos, lost int) {
	u.id, u.at, u.lost = id, pos, lost
	u.handed++
}

// unusedSession judges, at a fetch over cs that asks for a session, the
// session the broker last handed out over cs.
func (c *Checker) unusedSession(a *analysis, cs *connState, broker string) {
	u := &cs.unused
	id := u.id
	if id == 0 {
		return
	}
	u.id = 0
	if reqPos(&a.x) < u.at {
		// Sent before the answer that handed the session out came:
		// the client could not use it yet.
		return
	}
	where := a.at(Request, a.req.SessionEpochAt, 0, "body.sessionEpoch")
	s := c.sessions[sessionKey{broker, id}]
	switch {
	case s == nil:
		c.skip(ConnFetchSessionUnused, where,
			"a fetch session left behind is not judged when the sessions followed were forgotten: past "+itoa(maxSessions)+" sessions, and a fetch that used it may have been among them")
	case s.used:
	case u.lost != c.lost:
		c.skip(ConnFetchSessionUnused, where,
			"a fetch session left behind "+c.afterLoss()+" is not judged (a fetch that used it may be in them)")
	default:
		u.count++
		if u.count < unusedSessionsSaid || u.said {
			return
		}
		u.said = true
		c.add(ConnFetchSessionUnused, where,
			"the client asks the broker for another fetch session (epoch 0), and "+itoa(u.count)+" of the "+itoa(u.handed)+
				" sessions the broker handed out over this connection were left unused: no fetch named them, to continue or close them. Kafka keeps each in its fetch session cache until it is evicted, so a client that does this fills the cache (said once a connection)",
			"an incremental fetch of session "+itoa(int(id))+" (session id "+itoa(int(id))+", epoch 1)",
			"session id "+itoa(int(a.req.SessionID))+", epoch 0: a new session asked for, "+itoa(u.count)+" left unused")
	}
}

// newSession starts following session k, with nothing known of it yet.
func (c *Checker) newSession(k sessionKey) *sessionState {
	if len(c.sessions) >= maxSessions {
		clear(c.sessions)
		c.sessionsForgot = true
	}
	s := &sessionState{}
	c.sessions[k] = s
	return s
}

// sessionEpoch judges an incremental fetch's session and epoch against
// what the capture holds of the session (s, nil when none) and returns
// the session's state after it.
func (c *Checker) sessionEpoch(a *analysis, cs *connState, k sessionKey, s *sessionState) *sessionState {
	req := &a.req
	epoch := req.SessionEpoch
	pos := reqPos(&a.x)
	if s == nil {
		s = c.newSession(k)
		cn := cs.conn
		if c.sessionsForgot {
			// The limit cut what the rule follows: this session may be
			// one it forgot, its epoch and id judged from here on.
			c.skip(ConvFetchSession, a.at(Request, req.SessionIDAt, 0, "body.sessionId"),
				"a fetch session none of those followed holds is not judged: past "+itoa(maxSessions)+" sessions the ones followed were forgotten, and it may be one of them")
		} else if cn.FromStart && cs.fetches == 2 && cs.fetchLost == c.lost && a.x.Gaps == 0 {
			// The client's fetches over this connection began with no
			// session, nothing was lost since, and no answer of this
			// broker in the capture gave the id, nor did a fetch name it.
			want := "session id 0 and epoch 0, to ask for a session"
			if cs.given != 0 {
				want = "session id " + itoa(int(cs.given)) + ", the last this broker gave over this connection, or " + want
			}
			c.add(ConvFetchSession, a.at(Request, req.SessionIDAt, 0, "body.sessionId"),
				"the fetch continues session "+itoa(int(k.id))+", which the broker never gave: the client's fetches over this connection began without a session, and no Fetch answer in the capture created it"+
					sessionAnswer(a, errFetchSessionIDNotFound, "FETCH_SESSION_ID_NOT_FOUND"),
				want, "session id "+itoa(int(k.id))+", epoch "+itoa(int(epoch)))
			s.said = true
		}
		// Otherwise followed from here: a session the capture did not
		// see begin.
	} else {
		c.judgeEpoch(a, k, s, s.sessionStep)
	}
	s.step(nextEpoch(epoch), epoch, pos, c.lost)
	return s
}

// judgeEpoch judges an incremental fetch's epoch against the session's
// step before it.
func (c *Checker) judgeEpoch(a *analysis, k sessionKey, s *sessionState, before sessionStep) {
	req := &a.req
	epoch := req.SessionEpoch
	switch {
	case before.next == 0 || epoch == before.next || s.said:
	case before.lost != c.lost:
		c.skip(ConvFetchSession, a.at(Request, req.SessionEpochAt, 0, "body.sessionEpoch"),
			"a fetch session's epoch "+c.afterLoss()+" is not judged (fetches of the session may be in them)")
	default:
		what := "skips"
		if epoch < before.next && epoch > 0 {
			what = "repeats or goes back from"
		}
		after := "its last fetch was at epoch " + itoa(int(before.last))
		if before.last == 0 {
			after = "the answer that created the session makes its first incremental fetch epoch 1"
		}
		c.add(ConvFetchSession, a.at(Request, req.SessionEpochAt, 0, "body.sessionEpoch"),
			"the fetch "+what+" an epoch of session "+itoa(int(k.id))+": "+after+sessionAnswer(a, errInvalidFetchSessionEpoch, "INVALID_FETCH_SESSION_EPOCH"),
			"epoch "+itoa(int(before.next)), "epoch "+itoa(int(epoch)))
		s.said = true
	}
}

// lateFetch judges a fetch handed out after a later fetch of its session
// though sent before it: its answer was not captured (its connection
// closed with it in flight, as a consumer's does when it leaves and
// closes its session over another). Sent after the fetch before that
// one, it is judged by the step that fetch left (the session has moved
// on from it, and stays): its epoch by that step's next, and its side of
// Fetch v13 by the session's side after that fetch and its answer
// (prevSide). No fetch of the session came between that one and it (the
// next is the session's last, sent after it), and a session's side only
// ever goes from the one it was created on to none (a close, a refusal):
// a side there is the one the session had when the fetch was sent, none
// is not judged, as for a fetch in order. Sent earlier still, it is said
// not judged. A full fetch tells the session nothing more. It reports
// whether the fetch switched sides of v13, judged so (for
// conv.fetch-session-answer, should its answer be captured all the same).
func (c *Checker) lateFetch(a *analysis, k sessionKey, s *sessionState) (switched bool) {
	req := &a.req
	pos := reqPos(&a.x)
	switch {
	case req.SessionEpoch <= 0:
	case s.hasPrev && s.prev.pos < pos:
		if s.prevSide != 0 && pos > s.createdAt && sideOf(req.Version) != s.prevSide {
			switched = s.prev.lost == c.lost
			c.sessionSide(a, k, s, s.prev, s.prevSide)
		}
		c.judgeEpoch(a, k, s, s.prev)
	default:
		why := "a fetch whose exchange ended after later fetches' of its session (its answer was not captured) is not judged"
		c.skip(ConvFetchSession, a.at(Request, req.SessionEpochAt, 0, "body.sessionEpoch"), why)
		if s.created != 0 {
			c.skip(ConvFetchSessionTopicIDs, a.where(Request), why)
		}
	}
	return switched
}

// sessionAnswer says how Kafka answers a fetch a session rule flags:
// as the captured answer did, or as Kafka's broker would.
func sessionAnswer(a *analysis, code int16, name string) string {
	if rsp := &a.rsp; rsp.Present && rsp.Err == nil && !rsp.Guessed && rsp.ErrorCode == code {
		return " (the broker answered " + name + ")"
	}
	return " (Kafka answers " + name + ")"
}
