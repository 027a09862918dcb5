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
)

// sessionKey is a fetch session: its broker and id.
type sessionKey struct {
	broker string
	id     int32
}

// sessionState is what the capture holds of one fetch session of a
// broker: the answer that created it, or the first fetch seen naming it.
type sessionState struct {
	// next is the epoch the session's next incremental fetch carries: 1
	// after the answer that created it, then one past the last fetch's.
	// 0 is not known: the last fetch was answered with an error, or not
	// answered, or closed the session, and a client starts again (Kafka's
	// and franz-go's close it and ask for another: epoch 0).
	next int32
	last int32 // the last fetch's epoch; 0: the answer that created it
	pos  int   // reqPos of the last fetch (or of the one the creating answer answered)
	lost int   // Checker.lost then
	said bool  // a wrong epoch was said: once a session
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
	if id != 0 && s != nil && pos < s.pos {
		// An older fetch handed out after later ones (its answer lost,
		// or given up on): the session has moved past it.
		c.skip(ConvFetchSession, a.at(Request, req.SessionEpochAt, 0, "body.sessionEpoch"),
			"a fetch whose exchange ended after later fetches' of its session (its answer was not captured) is not judged")
		return
	}
	switch {
	case id == 0:
	case epoch == 0 || epoch == -1:
		// A full fetch naming a session closes it (0 asks for another).
		if s == nil {
			s = c.newSession(k)
		}
		s.next, s.pos, s.lost = 0, pos, c.lost
	case epoch > 0:
		s = c.sessionEpoch(a, cs, k, s)
	}
	answered := rsp.Present && rsp.Err == nil && !rsp.Guessed && rsp.HasSession
	switch {
	case !answered || rsp.ErrorCode != 0:
		// Not answered, or refused: the client starts again.
		if s != nil && id != 0 && epoch > 0 {
			s.next = 0
		}
	case epoch == 0 && rsp.SessionID != 0:
		// The answer created a session: its first incremental fetch
		// is at epoch 1.
		*c.newSession(sessionKey{broker, rsp.SessionID}) = sessionState{next: 1, pos: pos, lost: c.lost}
		cs.given = rsp.SessionID
	case id != 0 && epoch > 0 && rsp.SessionID != id && s != nil:
		// The broker closed the session (session id 0: it holds no
		// partition any more), a client starts again.
		s.next = 0
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
		if cn.FromStart && cs.fetches == 2 && cs.fetchLost == c.lost && a.x.Gaps == 0 && !c.sessionsForgot {
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
		switch {
		case s.next == 0 || epoch == s.next || s.said:
		case s.lost != c.lost:
			c.skip(ConvFetchSession, a.at(Request, req.SessionEpochAt, 0, "body.sessionEpoch"),
				"a fetch session's epoch "+c.afterLoss()+" is not judged (fetches of the session may be in them)")
		default:
			what := "skips"
			if epoch < s.next && epoch > 0 {
				what = "repeats or goes back from"
			}
			after := "its last fetch was at epoch " + itoa(int(s.last))
			if s.last == 0 {
				after = "the answer that created the session makes its first incremental fetch epoch 1"
			}
			c.add(ConvFetchSession, a.at(Request, req.SessionEpochAt, 0, "body.sessionEpoch"),
				"the fetch "+what+" an epoch of session "+itoa(int(k.id))+": "+after+sessionAnswer(a, errInvalidFetchSessionEpoch, "INVALID_FETCH_SESSION_EPOCH"),
				"epoch "+itoa(int(s.next)), "epoch "+itoa(int(epoch)))
			s.said = true
		}
	}
	s.next, s.last, s.pos, s.lost = nextEpoch(epoch), epoch, pos, c.lost
	return s
}

// sessionAnswer says how Kafka answers a fetch a session rule flags:
// as the captured answer did, or as Kafka's broker would.
func sessionAnswer(a *analysis, code int16, name string) string {
	if rsp := &a.rsp; rsp.Present && rsp.Err == nil && !rsp.Guessed && rsp.ErrorCode == code {
		return " (the broker answered " + name + ")"
	}
	return " (Kafka answers " + name + ")"
}
