package check

import (
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// Checker applies the connection and conversation rules to analysed
// exchanges, in the order they completed (a response came, or a request
// could no longer be answered): the order capture.ReadFunc and a proxy
// hand them out. Its memory follows the connections, producers and
// partitions it has seen, not the exchanges.
type Checker struct {
	conns     map[int]*connState
	brokers   map[string]*brokerState
	cluster   []apiRange // the last ApiVersions answer seen from any broker
	producers map[seqKey]*seqState
	txns      map[int64]*txnState // by producer id
	fetchers  map[partKey]*fetchState
	resets    map[string]int // per consumer identity: resets seen (all partitions)
	// resetTo holds, per consumer partition, the offsets its resets
	// (ListOffsets and OffsetFetch answers) gave since it last fetched
	// it, the last maxResetOffsets: positions it may commit.
	resetTo map[partKey][]int64
	// fenced holds the producer ids and epochs a Produce or EndTxn was
	// refused at with INVALID_PRODUCER_EPOCH or PRODUCER_FENCED, and
	// where that answer was: the producer of that epoch was told it is
	// fenced.
	fenced map[pidEpoch]int
	// The group rules' state (group.go): what JoinGroup answers gave
	// each classic group member (members), every member id they gave
	// (given), each client's first JoinGroup answer per group
	// (joiners), and what ConsumerGroupHeartbeat answers gave each
	// KIP-848 member (epochs).
	members   map[memberKey]*memberState
	given     map[memberKey]bool
	joiners   map[memberKey]*joinerState
	epochs    map[memberKey]*memberState
	topicByID map[string]string
	// sessions are the fetch sessions followed (fetchsession.go), by
	// broker and id; sessionsForgot says they were forgotten once, past
	// maxSessions, so an id none of them holds may have been given.
	sessions       map[sessionKey]*sessionState
	sessionsForgot bool
	skipped        map[*Rule]bool
	out            []Finding
	// lost counts the gaps (bytes missing from the capture) seen on all
	// connections so far, and the exchanges the caller left out (Missed):
	// a rule that follows state across exchanges does not judge an
	// exchange when anything was lost since the state's last exchange
	// (what it expects may be in it).
	lost int
	// missed counts the exchanges the caller left out, for the words of
	// what was not judged.
	missed int
}

// NewChecker returns a Checker with nothing seen yet.
func NewChecker() *Checker {
	return &Checker{
		conns: map[int]*connState{}, brokers: map[string]*brokerState{}, producers: map[seqKey]*seqState{},
		txns: map[int64]*txnState{}, fetchers: map[partKey]*fetchState{}, resets: map[string]int{}, resetTo: map[partKey][]int64{}, fenced: map[pidEpoch]int{},
		topicByID: map[string]string{}, skipped: map[*Rule]bool{}, sessions: map[sessionKey]*sessionState{},
		members: map[memberKey]*memberState{}, given: map[memberKey]bool{}, joiners: map[memberKey]*joinerState{}, epochs: map[memberKey]*memberState{},
	}
}

type connState struct {
	conn       *Conn
	ranges     []apiRange
	sasl       bool // a SaslHandshake was sent on this connection
	saslMech   bool // SaslHandshake answered without error
	authedAt   int  // position of the successful SaslAuthenticate answer; 0: not authenticated
	handshakeV int16
	// handshakeAt is the position of the last SaslHandshake request; 0:
	// none.
	handshakeAt int
	others      string // the first API other than ApiVersions sent before any SaslHandshake
	mechanism   string // the mechanism a successful SaslHandshake chose
	// The SCRAM nonces of the connection's exchange so far: the client's
	// first, then the server's (conn.sasl-exchange).
	clientNonce, serverNonce string
	unsupp                   map[[2]int16]bool
	gaps                     int // the most of the connection's Exchange.StreamGaps seen
	// fetches says how the connection's first Fetch (v7+) began: 0,
	// none yet; 1, naming a session; 2, with none (session id 0), so
	// the client had no session then. fetchLost is Checker.lost then,
	// and given the last session id a Fetch answer over it gave
	// (conv.fetch-session).
	fetches   int8
	fetchLost int
	given     int32
	// unused follows the sessions the broker handed out over the
	// connection that the client left unused (conn.fetch-session-unused,
	// fetchsession.go).
	unused unusedSessions
	// answerSaid says which of a broker's fetch session answers were
	// said over the connection (conv.fetch-session-answer), a bit each.
	answerSaid uint8
}

type brokerState struct {
	ranges []apiRange
	sasl   bool
}

// Add applies the connection and conversation rules to an exchange and
// returns every finding of it, the frame and records ones first. The
// slice is reused by the next call.
func (c *Checker) Add(an *Analysis) []Finding {
	a := &an.a
	c.out = c.out[:0]
	for _, f := range a.findings {
		if f.Skipped {
			c.skip(f.Rule, f.Where, f.What)
		} else {
			c.out = append(c.out, f)
		}
	}
	cs := c.conn(a.x.Conn)
	if a.x.StreamGaps > cs.gaps {
		c.lost += a.x.StreamGaps - cs.gaps
		cs.gaps = a.x.StreamGaps
	}
	if a.x.cut {
		// A frame cut short, of no known direction or API: it tells
		// the connection and the conversation nothing.
		return c.out
	}
	if a.x.SASLToken {
		// Raw SASL tokens: no Kafka frames, but a step of the SASL
		// exchange the handshake began.
		c.saslExchange(a, cs)
		return c.out
	}
	c.connRules(a, cs)
	c.conversation(a, cs)
	return c.out
}

// Missed tells the Checker that n exchanges ended, since the last one it
// was given, that it will never be given: kwire proxy skips those its
// decoding cannot keep up with. The rules that follow a connection or a
// conversation take them as lost, as they take bytes lost from a capture
// (Exchange.Gaps): they judge nothing that depends on them, and say so.
// A caller that leaves out exchanges at the end says so before End.
func (c *Checker) Missed(n int) {
	if n > 0 {
		c.lost += n
		c.missed += n
	}
}

// afterLoss says, for a rule not judged, what was lost: bytes of a
// capture, or exchanges left out.
func (c *Checker) afterLoss() string {
	if c.missed > 0 {
		return "after exchanges were left out unchecked (decoding was behind)"
	}
	return "after bytes were lost from the capture"
}

func (c *Checker) conn(cn *Conn) *connState {
	id := 0
	if cn != nil {
		id = cn.ID
	}
	cs := c.conns[id]
	if cs == nil {
		if cn == nil {
			cn = &Conn{FromStart: true}
		}
		cs = &connState{conn: cn}
		c.conns[id] = cs
	}
	return cs
}

func (c *Checker) add(r *Rule, w Where, what, expected, found string) {
	c.out = append(c.out, Finding{Rule: r, Severity: r.Severity, Where: w, What: what, Expected: expected, Found: found})
}

// skip says once per rule that it could not be judged, and why.
func (c *Checker) skip(r *Rule, w Where, why string) {
	if c.skipped[r] {
		return
	}
	c.skipped[r] = true
	c.out = append(c.out, Finding{Rule: r, Where: w, What: why, Skipped: true})
}

// reqPos is where a request was (packet or frame number), for ordering.
func reqPos(x *Exchange) int  { return max(x.RequestPacket, x.RequestFrame) }
func respPos(x *Exchange) int { return max(x.ResponsePacket, x.ResponseFrame) }

// Error codes the rules read.
const (
	errOffsetOutOfRange         = 1
	errCoordinatorUnavailable   = 15
	errNotCoordinator           = 16
	errUnsupportedVersion       = 35
	errUnsupportedSaslMechanism = 33
	errInvalidProducerEpoch     = 47
	errProducerFenced           = 90
	errFencedLeaderEpoch        = 74
	errUnknownLeaderEpoch       = 76
)

func (c *Checker) connRules(a *analysis, cs *connState) {
	x := &a.x
	cn := cs.conn
	req := &a.req
	if x.ReusedCorrelation {
		c.add(ConnCorrelation, a.where(Request), "correlation id "+itoa(int(req.Corr))+" is already used by a request in flight on this connection",
			"a correlation id no request in flight has", itoa(int(req.Corr)))
	}
	if x.Request == nil && x.Response != nil {
		if cn.FromStart && x.Gaps == 0 {
			c.add(ConnCorrelation, a.where(Response), "a response answers no request in flight", "the correlation id of a request in flight", itoa(int(a.where(Response).Correlation)))
		} else {
			c.skip(ConnCorrelation, a.where(Response), "a response whose request was not captured (the capture started in the middle of a connection, or lost bytes) is not judged")
		}
	}
	if x.Overtaken > 0 {
		switch {
		case x.Response != nil:
			c.add(ConnOrder, a.where(Response), "the response came after the response to correlation id "+itoa(int(x.OvertakenBy))+", a later request",
				"responses in request order", "answered after "+later(x.Overtaken))
		case !x.Evicted && x.Gaps == 0 && cn.FromStart:
			c.add(ConnOrder, a.where(Request), "the request was never answered, though later requests were (the first with correlation id "+itoa(int(x.OvertakenBy))+")",
				"responses in request order", "no response")
		}
	}
	if !req.Present || !req.Known && len(x.Request) < 8 {
		c.learn(a, cs)
		return
	}
	key, ver := a.key, a.ver
	// conn.sasl
	sasl := func(what, expected, found string) {
		if x.Gaps > 0 {
			c.skip(ConnSASL, a.where(Request), "a request on a connection that lost bytes or exchanges before it (its SASL exchanges may be in them) is not judged for SASL order")
		} else {
			c.add(ConnSASL, a.where(Request), what, expected, found)
		}
	}
	if cn.FromStart {
		switch key {
		case schema.KeyApiVersions:
		case schema.KeySaslHandshake:
			switch {
			case cs.others != "":
				sasl("SaslHandshake came after "+cs.others+" on this connection", "SaslHandshake before any API but ApiVersions", cs.others+" first")
			case cs.handshakeAt > 0 && cs.handshakeV >= 1 && cs.authedAt < cs.handshakeAt:
				// Kafka closes the connection: "Unexpected Kafka request
				// of type SASL_HANDSHAKE during SASL authentication".
				// After authenticating, a handshake starts re-authentication
				// (KIP-368).
				sasl("a second SaslHandshake before SaslAuthenticate completed the first's", "SaslAuthenticate after a SaslHandshake", "SaslHandshake again")
			}
			cs.sasl = true
			cs.handshakeV, cs.handshakeAt = ver, max(reqPos(x), 1)
		case schema.KeySaslAuthenticate:
			if !cs.saslMech {
				sasl("SaslAuthenticate before a successful SaslHandshake", "SaslHandshake first", "SaslAuthenticate")
			}
		default:
			saslListener := cs.sasl
			if b := c.brokers[cn.Broker]; b != nil && cn.Broker != "" && b.sasl {
				saslListener = true
			}
			authed := cs.authedAt > 0 && (reqPos(x) == 0 || reqPos(x) > cs.authedAt) || cs.saslMech && cs.handshakeV == 0
			if saslListener && !authed {
				sasl(apiName(key)+" before SASL authentication completed", "SaslHandshake and SaslAuthenticate first", apiName(key))
			} else if !cs.sasl && cs.others == "" {
				cs.others = apiName(key)
			}
		}
	} else if key != schema.KeyApiVersions {
		c.skip(ConnSASL, a.where(Request), "a connection captured from its middle is not judged for SASL order")
	}
	if key == schema.KeySaslAuthenticate {
		c.saslExchange(a, cs)
	}
	if key == schema.KeySaslHandshake {
		c.saslHandshake(a)
	}
	// conn.retry-version
	if cs.unsupp[[2]int16{key, ver}] {
		c.add(ConnRetryVersion, a.where(Request), "the broker answered UNSUPPORTED_VERSION to "+apiName(key)+" v"+itoa(int(ver))+" on this connection, and it is sent again",
			"another version", "v"+itoa(int(ver)))
	}
	// conn.version
	if key != schema.KeyApiVersions {
		ranges := cs.ranges
		if ranges == nil && cn.Broker != "" {
			if b := c.brokers[cn.Broker]; b != nil {
				ranges = b.ranges
			}
		}
		if ranges == nil {
			ranges = c.cluster
		}
		newer := a.versionUnknown()
		if ranges == nil {
			c.skip(ConnVersion, a.where(Request), "no ApiVersions answer was captured before this request: versions are not judged until one is")
			if newer != nil {
				newest := itoa(int(newer.Valid().Hi))
				c.add(FrameAPI, a.at(Request, 6, 0, "header.requestApiVersion"),
					newer.Name+" has no version "+itoa(int(ver))+" (kwire's schemas end at v"+newest+"): the frame was read with the v"+newest+" layout, and its layout is not judged",
					newer.Request.Name+" version "+newer.Valid().String(), "version "+itoa(int(ver)))
			}
		} else if r, ok := findRange(ranges, key); !ok {
			c.add(ConnVersion, a.where(Request), "the broker does not advertise "+apiName(key), "an API the broker advertised", apiName(key)+" v"+itoa(int(ver)))
		} else if ver < r.Lo || ver > r.Hi {
			c.add(ConnVersion, a.where(Request), apiName(key)+" v"+itoa(int(ver))+" is outside what the broker advertised",
				"v"+itoa(int(r.Lo))+"-"+itoa(int(r.Hi)), "v"+itoa(int(ver)))
		} else if newer != nil {
			// The broker serves a version kwire's schemas do not have.
			c.skip(FrameAPI, a.at(Request, 6, 0, "header.requestApiVersion"), newer.Name+" v"+itoa(int(ver))+", which the broker advertised, is past kwire's schemas (v"+
				itoa(int(newer.Valid().Hi))+"): the frame's layout is not judged (a newer kwire knows it)")
		}
	}
	c.learn(a, cs)
}

// saslExchange applies conn.sasl-exchange to a SaslAuthenticate, or a raw
// SASL token after a SaslHandshake v0: its message is of the mechanism
// SaslHandshake chose (one kwire reads), and
// SCRAM's nonces chain, the server's first continuing the client's, the
// client's final repeating the server's.
func (c *Checker) saslExchange(a *analysis, cs *connState) {
	if a.x.Gaps > 0 {
		cs.clientNonce, cs.serverNonce = "", ""
		c.skip(ConnSASLExchange, a.where(Request), "a SASL exchange on a connection that lost bytes or exchanges is not judged")
		return
	}
	q, r := &a.req.SASL, &a.rsp.SASL
	if want := saslFamily(cs.mechanism); want != "" && q.Mechanism != "" && q.Mechanism != want {
		c.add(ConnSASLExchange, a.at(Request, q.At, 0, q.Path), "a "+q.Mechanism+" message after SaslHandshake chose "+cs.mechanism+": Kafka's broker reads it as "+cs.mechanism,
			"a "+want+" message", q.Mechanism+" "+q.Kind)
		return
	}
	if q.Mechanism != "SCRAM" && r.Mechanism != "SCRAM" {
		return
	}
	switch q.Kind {
	case "client-first":
		cs.clientNonce, _, _ = q.part("nonce")
		cs.serverNonce = ""
	case "client-final":
		if n, at, _ := q.part("nonce"); cs.serverNonce != "" && n != cs.serverNonce {
			c.add(ConnSASLExchange, a.at(Request, at, 0, q.Path+".nonce"), "SCRAM's final message does not repeat the server's nonce: Kafka's broker refuses it",
				strconv.Quote(cs.serverNonce), strconv.Quote(n))
		}
	}
	if r.Kind == "server-first" && cs.clientNonce != "" {
		n, at, _ := r.part("nonce")
		if !strings.HasPrefix(n, cs.clientNonce) {
			c.add(ConnSASLExchange, a.at(Response, at, 0, r.Path+".nonce"), "the server's SCRAM nonce does not continue the client's: the Java client refuses it",
				"a nonce starting "+strconv.Quote(cs.clientNonce), strconv.Quote(n))
		}
		cs.serverNonce = n
	}
}

// saslHandshake applies conn.sasl-handshake to a SaslHandshake answered:
// Kafka's broker lists every mechanism it enables, whether it accepts the
// one asked for (then among them) or refuses it with
// UNSUPPORTED_SASL_MECHANISM (then not; a SASL listener enables at least
// one), which the Java client's error names to its user.
func (c *Checker) saslHandshake(a *analysis) {
	q, r := &a.req, &a.rsp
	if !r.Present || r.Err != nil || r.Guessed || q.Err != nil {
		return
	}
	at := a.at(Response, r.MechanismsAt, 0, "body.mechanisms")
	listed := "[" + strings.Join(r.Mechanisms, ", ") + "]"
	mech := q.Mechanism
	has := false
	for _, m := range r.Mechanisms {
		has = has || m == mech
	}
	switch {
	case r.ErrorCode == 0 && len(r.Mechanisms) == 0:
		c.add(ConnSASLHandshake, at, "SaslHandshake accepted "+mech+" (error code 0) but lists no enabled mechanism: Kafka's broker lists every mechanism it enables, the one accepted among them",
			"the enabled mechanisms, "+mech+" among them", listed)
	case r.ErrorCode == 0 && !has:
		c.add(ConnSASLHandshake, at, "SaslHandshake accepted "+mech+" (error code 0) but does not list it among the enabled mechanisms",
			"the enabled mechanisms, "+mech+" among them", listed)
	case r.ErrorCode == errUnsupportedSaslMechanism && len(r.Mechanisms) == 0:
		c.add(ConnSASLHandshake, at, "SaslHandshake refused "+mech+" (UNSUPPORTED_SASL_MECHANISM) but lists no enabled mechanism: the client cannot say which to use",
			"the enabled mechanisms", listed)
	case r.ErrorCode == errUnsupportedSaslMechanism && has:
		c.add(ConnSASLHandshake, at, "SaslHandshake refused "+mech+" (UNSUPPORTED_SASL_MECHANISM) but lists it among the enabled mechanisms",
			"the enabled mechanisms, "+mech+" not among them", listed)
	}
}

// saslFamily is the mechanism the codec names the SASL messages of a
// SaslHandshake mechanism by ("" for one not judged). GSSAPI's messages
// are never read (they stay bytes), so after a GSSAPI handshake any
// message that reads is of another mechanism.
func saslFamily(mechanism string) string {
	switch mechanism {
	case "PLAIN", "OAUTHBEARER", "GSSAPI":
		return mechanism
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		return "SCRAM"
	}
	return ""
}

// learn keeps what a response tells later exchanges: advertised versions,
// SASL progress, versions refused.
func (c *Checker) learn(a *analysis, cs *connState) {
	rsp := &a.rsp
	if !rsp.Present || rsp.Err != nil || rsp.Guessed {
		return
	}
	cn := cs.conn
	switch a.key {
	case schema.KeyApiVersions:
		if rsp.ErrorCode == 0 && len(rsp.Ranges) > 0 {
			cs.ranges = rsp.Ranges
			c.cluster = rsp.Ranges
			if cn.Broker != "" {
				c.broker(cn.Broker).ranges = rsp.Ranges
			}
		}
	case schema.KeySaslHandshake:
		if rsp.ErrorCode == 0 {
			cs.saslMech = true
			cs.mechanism = a.req.Mechanism
		}
		if cn.Broker != "" {
			c.broker(cn.Broker).sasl = true
		}
	case schema.KeySaslAuthenticate:
		if rsp.ErrorCode == 0 {
			cs.authedAt = max(respPos(&a.x), 1)
		}
	}
	if rsp.ErrorCode == errUnsupportedVersion && a.key >= 0 {
		if cs.unsupp == nil {
			cs.unsupp = map[[2]int16]bool{}
		}
		cs.unsupp[[2]int16{a.key, a.ver}] = true
	}
}

func (c *Checker) broker(addr string) *brokerState {
	b := c.brokers[addr]
	if b == nil {
		b = &brokerState{}
		c.brokers[addr] = b
	}
	return b
}

func findRange(rs []apiRange, key int16) (apiRange, bool) {
	for _, r := range rs {
		if r.Key == key {
			return r, true
		}
	}
	return apiRange{}, false
}

// identity names a client for the conversation rules: its host and client
// id (a consumer fetches, commits and resets over several connections).
func identity(cn *Conn, clientID string) string {
	host := cn.Client
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return host + "\x00" + clientID
}
