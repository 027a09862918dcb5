package check

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sessReq is a Fetch v12 of orders-0 at offset 0 in session id at epoch,
// forgetting orders-1 when forget is set.
func sessReq(corr, id, epoch int32, forget bool) []byte {
	r := kmsg.NewPtrFetchRequest()
	r.ReplicaID, r.MaxWaitMillis, r.MinBytes, r.MaxBytes = -1, 500, 1, 1<<20
	r.SessionID, r.SessionEpoch = id, epoch
	t := kmsg.NewFetchRequestTopic()
	t.Topic = "orders"
	p := kmsg.NewFetchRequestTopicPartition()
	p.PartitionMaxBytes = 1 << 20
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	if forget {
		f := kmsg.NewFetchRequestForgottenTopic()
		f.Topic, f.Partitions = "orders", []int32{1}
		r.ForgottenTopics = append(r.ForgottenTopics, f)
	}
	return req(r, 12, corr)
}

// sessRsp answers a Fetch v12 with error code code and session id id.
func sessRsp(corr int32, code int16, id int32) []byte {
	r := kmsg.NewPtrFetchResponse()
	r.ErrorCode, r.SessionID = code, id
	if code == 0 {
		t := kmsg.NewFetchResponseTopic()
		t.Topic = "orders"
		p := kmsg.NewFetchResponseTopicPartition()
		t.Partitions = append(t.Partitions, p)
		r.Topics = append(r.Topics, t)
	}
	return rsp(r, 12, corr)
}

// sessX is one fetch exchange on cn: session id at epoch, answered with
// code and session id got, its request and response at packets pos and
// pos+1.
func sessX(cn *Conn, pos int, corr, id, epoch int32, code int16, got int32) Exchange {
	return Exchange{Conn: cn, Request: sessReq(corr, id, epoch, false), Response: sessRsp(corr, code, got),
		RequestPacket: pos, ResponsePacket: pos + 1}
}

// session is a consumer's session on cn: created as 5 by the answer to
// its first fetch, then continued at epochs 1 to n.
func session(cn *Conn, n int32) []Exchange {
	xs := []Exchange{sessX(cn, 10, 1, 0, 0, 0, 5)}
	for e := int32(1); e <= n; e++ {
		xs = append(xs, sessX(cn, 10+2*int(e), e+1, 5, e, 0, 5))
	}
	return xs
}

func fresh() *Conn {
	return &Conn{ID: 1, Client: "10.0.0.1:40001", Broker: "10.0.0.9:9092", FromStart: true}
}

// A session created, continued at epochs 1 to 3 and closed (epoch -1),
// then another asked for over it (epoch 0) and continued: nothing to say,
// and every fetch judged.
func TestFetchSessionFollowed(t *testing.T) {
	cn := fresh()
	xs := append(session(cn, 3), sessX(cn, 30, 9, 5, -1, 0, 0))
	xs = append(xs, sessX(cn, 32, 10, 0, 0, 0, 6), sessX(cn, 34, 11, 6, 1, 0, 6))
	xs = append(xs, sessX(cn, 36, 12, 6, 0, 0, 7), sessX(cn, 38, 13, 7, 1, 0, 7), sessX(cn, 40, 14, 7, 2, 0, 7))
	fs := Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-session", findingLines(fs))
}

// A skipped epoch, a repeated one and a first incremental fetch at 2 are
// each one finding at the request's sessionEpoch, said once a session;
// the broker's answer is named when the capture holds it.
func TestFetchSessionEpochSkippedOrRepeated(t *testing.T) {
	cn := fresh()
	for _, tc := range []struct {
		name  string
		epoch int32
		code  int16
		want  string
	}{
		{"skipped", 4, 71, "the fetch skips an epoch of session 5: its last fetch was at epoch 2 (the broker answered INVALID_FETCH_SESSION_EPOCH), expected epoch 3, found epoch 4"},
		{"repeated", 2, 0, "the fetch repeats or goes back from an epoch of session 5: its last fetch was at epoch 2 (Kafka answers INVALID_FETCH_SESSION_EPOCH), expected epoch 3, found epoch 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xs := append(session(cn, 2), sessX(cn, 30, 9, 5, tc.epoch, tc.code, 0))
			// More of the same after it: said once a session.
			xs = append(xs, sessX(cn, 32, 10, 5, tc.epoch+3, 71, 0), sessX(cn, 34, 11, 5, tc.epoch+9, 71, 0))
			fs := Check(xs)
			require.Equal(t, []string{"conv.fetch-session"}, ruleIDs(fs), findingLines(fs))
			got := judged(fs, "conv.fetch-session")
			require.Len(t, got, 1, findingLines(fs))
			require.Equal(t, "body.sessionEpoch", got[0].Where.Path)
			require.Equal(t, int32(9), got[0].Where.Correlation)
			require.True(t, strings.HasSuffix(got[0].String(), tc.want), got[0].String())
		})
	}
	// The first incremental fetch after the answer that created the
	// session is at epoch 1.
	fs := Check([]Exchange{sessX(cn, 10, 1, 0, 0, 0, 5), sessX(cn, 12, 2, 5, 2, 71, 0)})
	got := judged(fs, "conv.fetch-session")
	require.Len(t, got, 1, findingLines(fs))
	require.True(t, strings.HasSuffix(got[0].String(), "the answer that created the session makes its first incremental fetch epoch 1 (the broker answered INVALID_FETCH_SESSION_EPOCH), expected epoch 1, found epoch 2"), got[0].String())
}

// After the int32 maximum a session's epoch is 1 (FetchMetadata.nextEpoch);
// a client that wraps to the int32 minimum sends no epoch at all.
func TestFetchSessionEpochWraps(t *testing.T) {
	cn := fresh()
	xs := []Exchange{sessX(cn, 10, 1, 0, 0, 0, 5)}
	for i, e := range []int32{1, 2} {
		xs = append(xs, sessX(cn, 12+2*i, int32(i+2), 5, e, 0, 5))
	}
	// The session seen from its epoch math.MaxInt32-1 on (a capture
	// that began in the middle of it): followed from there.
	mid := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092"}
	for i, e := range []int32{math.MaxInt32 - 1, math.MaxInt32, 1, 2} {
		xs = append(xs, sessX(mid, 20+2*i, int32(i+1), 8, e, 0, 8))
	}
	fs := Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-session", findingLines(fs))

	xs = xs[:len(xs)-2]
	xs = append(xs, sessX(mid, 40, 9, 8, math.MinInt32, 71, 0))
	fs = Check(xs)
	require.Equal(t, []string{"frame.fetch-session"}, ruleIDs(fs), findingLines(fs))
}

// Fetches in flight together (sent before the first is answered) follow
// each other's epochs; after an answer that refuses one, the client
// starts again however it likes, and what it sends after is not judged
// until it does.
func TestFetchSessionPipelined(t *testing.T) {
	cn := fresh()
	xs := []Exchange{sessX(cn, 10, 1, 0, 0, 0, 5)}
	a, b := sessX(cn, 12, 2, 5, 1, 0, 5), sessX(cn, 13, 3, 5, 2, 0, 5)
	a.ResponsePacket, b.ResponsePacket = 14, 15
	c, d := sessX(cn, 16, 4, 5, 3, 71, 0), sessX(cn, 17, 5, 5, 4, 71, 0)
	c.ResponsePacket, d.ResponsePacket = 18, 19
	xs = append(xs, a, b, c, d, sessX(cn, 20, 6, 5, 0, 0, 6), sessX(cn, 22, 7, 6, 1, 0, 6))
	fs := Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))

	// After a refusal, an epoch that goes on is not judged.
	xs = append(xs[:5], sessX(cn, 20, 6, 5, 9, 71, 0))
	fs = Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
}

// Bytes lost from the capture (or exchanges a proxy left out) may hold
// the session's fetches: an epoch after them is not judged, and said so;
// so is a fetch handed out after later ones of its session.
func TestFetchSessionAfterLoss(t *testing.T) {
	cn := fresh()
	xs := session(cn, 2)
	lost := sessX(cn, 30, 9, 5, 5, 0, 5)
	lost.StreamGaps, lost.Gaps = 1, 1
	fs := Check(append(xs, lost))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.fetch-session", findingLines(fs))

	late := sessX(cn, 11, 9, 5, 1, 0, 5)
	late.Response = nil
	fs = Check(append(xs, late))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.fetch-session", findingLines(fs))
}

// A consumer that leaves with a fetch in flight closes its session over
// another connection (franz-go does): the fetch in flight is never
// answered, and is handed out when its connection closes, after the
// close. It is judged by the fetch sent before it, and the session stays
// closed.
func TestFetchSessionLateFetchJudged(t *testing.T) {
	cn := fresh()
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	run := func(epoch int32) []Finding {
		inFlight := sessX(cn, 16, 4, 5, epoch, 0, 0)
		inFlight.Response, inFlight.ConnClosed = nil, true
		xs := append(session(cn, 2), sessX(other, 17, 1, 5, -1, 0, 0), inFlight)
		return Check(append(xs, sessX(other, 30, 2, 5, 1, 70, 0)))
	}
	fs := run(3)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-session", findingLines(fs))
	fs = run(4)
	got := judged(fs, "conv.fetch-session")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, 16, got[0].Where.Packet)
	require.True(t, strings.HasSuffix(got[0].String(), "expected epoch 3, found epoch 4"), got[0].String())
}

// A session id the broker never gave: flagged only where the capture
// holds the client's fetches over the connection from a start without a
// session, and nothing was lost; a session given by another broker is
// not this one's.
func TestFetchSessionNeverGiven(t *testing.T) {
	cn := fresh()
	xs := []Exchange{sessX(cn, 10, 1, 0, 0, 0, 5), sessX(cn, 12, 2, 9, 1, 70, 0)}
	fs := Check(xs)
	got := judged(fs, "conv.fetch-session")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, "body.sessionId", got[0].Where.Path)
	require.True(t, strings.HasSuffix(got[0].String(), "the fetch continues session 9, which the broker never gave: the client's fetches over this connection began without a session, and no Fetch answer in the capture created it (the broker answered FETCH_SESSION_ID_NOT_FOUND), expected session id 5, the last this broker gave over this connection, or session id 0 and epoch 0, to ask for a session, found session id 9, epoch 1"), got[0].String())
	// Its epochs are not said as well.
	fs = Check(append(xs, sessX(cn, 14, 3, 9, 7, 70, 0)))
	require.Len(t, judged(fs, "conv.fetch-session"), 1, findingLines(fs))

	// Another broker's session 5, used at a broker that gave none.
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.8:9092", FromStart: true}
	fs = Check([]Exchange{sessX(cn, 10, 1, 0, 0, 0, 5), sessX(other, 12, 1, 0, -1, 0, 0), sessX(other, 14, 2, 5, 1, 70, 0)})
	got = judged(fs, "conv.fetch-session")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, 2, got[0].Where.Conn)

	// Not judged: a connection captured from its middle, one whose first
	// fetch named a session (the client had one before), one that lost
	// bytes; nor an id given over another connection to the broker, or
	// named by a fetch there.
	third := &Conn{ID: 3, Client: "10.0.0.1:40003", Broker: "10.0.0.9:9092", FromStart: true}
	for name, xs := range map[string][]Exchange{
		"middle":      {sessX(&Conn{ID: 3, Broker: "10.0.0.9:9092"}, 10, 1, 0, 0, 0, 5), sessX(&Conn{ID: 3, Broker: "10.0.0.9:9092"}, 12, 2, 9, 1, 70, 0)},
		"had one":     {sessX(cn, 10, 1, 4, 0, 0, 5), sessX(cn, 12, 2, 9, 1, 70, 0)},
		"lost before": {sessX(cn, 10, 1, 0, 0, 0, 5), func() Exchange { x := sessX(cn, 12, 2, 9, 1, 70, 0); x.Gaps, x.StreamGaps = 1, 1; return x }()},
		"moved":       {sessX(cn, 10, 1, 0, 0, 0, 5), sessX(third, 12, 1, 0, -1, 0, 0), sessX(third, 14, 2, 5, 1, 0, 5)},
		"named first": {sessX(third, 10, 1, 0, -1, 0, 0), sessX(cn, 12, 1, 9, 0, 0, 5), sessX(third, 14, 2, 9, 1, 70, 0)},
	} {
		fs := Check(xs)
		require.Empty(t, judged(fs, "conv.fetch-session"), "%s\n%s", name, findingLines(fs))
	}
}

// The frame's own session fields: session id 0 with an epoch above 0,
// an epoch below -1, forgotten topics in a full fetch (epoch 0 or -1);
// forgotten topics in an incremental fetch are its business.
func TestFetchSessionFields(t *testing.T) {
	one := func(b []byte) []Finding { return Check(FromFrames(fr(b, sessRsp(1, 70, 0)))) }
	fs := one(sessReq(1, 0, 3, false))
	require.Equal(t, []string{"frame.fetch-session"}, ruleIDs(fs), findingLines(fs))
	require.True(t, strings.HasSuffix(judged(fs, "frame.fetch-session")[0].String(), "(body.sessionEpoch): an incremental fetch (epoch 3) of no session (session id 0): Kafka answers FETCH_SESSION_ID_NOT_FOUND, expected epoch 0 (ask for a session) or -1 (no session) with session id 0, found session id 0, epoch 3"), findingLines(fs))
	fs = one(sessReq(1, 5, -2, false))
	require.Equal(t, []string{"frame.fetch-session"}, ruleIDs(fs), findingLines(fs))
	for _, e := range []int32{0, -1} {
		fs = Check(FromFrames(fr(sessReq(1, 5, e, true), sessRsp(1, 0, 6))))
		require.Equal(t, []string{"frame.fetch-forgotten"}, ruleIDs(fs), findingLines(fs))
		require.Equal(t, "body.forgottenTopicsData", judged(fs, "frame.fetch-forgotten")[0].Where.Path)
	}
	fs = Check([]Exchange{sessX(fresh(), 10, 1, 0, 0, 0, 5), {Conn: fresh(), Request: sessReq(2, 5, 1, true), Response: sessRsp(2, 0, 5), RequestPacket: 12, ResponsePacket: 13}})
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	// Fetch v6 has no session: nothing to judge.
	fs = Check(FromFrames(fr(fetchReq(6, 1, 0), fetchRsp(6, 1, 0))))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
}

// The sessions a Checker follows are bounded (maxSessions): a flood of
// sessions costs no more, and once it forgot some, an id none of those
// it holds names may have been given: it is not said never given, and
// that it was not judged is said.
func TestFetchSessionsBounded(t *testing.T) {
	c := NewChecker()
	cn := fresh()
	var z Analyzer
	first := z.Analyze(&Exchange{Conn: cn, Request: sessReq(1, 0, 0, false), Response: sessRsp(1, 0, 1), RequestPacket: 1, ResponsePacket: 2})
	c.Add(first)
	// The same exchange's facts, answered with each session id in turn.
	for id := int32(2); id <= maxSessions+10; id++ {
		first.a.rsp.SessionID = id
		c.Add(first)
		require.LessOrEqual(t, len(c.sessions), maxSessions)
	}
	fs := c.Add(z.Analyze(&Exchange{Conn: cn, Request: sessReq(2, 3, 1, false), Response: sessRsp(2, 70, 0), RequestPacket: 3, ResponsePacket: 4}))
	require.Empty(t, judged(fs, "conv.fetch-session"), findingLines(fs))
	require.Contains(t, findingLines(fs), "conv.fetch-session skipped conn 1 correlation 2 request (packet 3) at byte 37 (body.sessionId): a fetch session none of those followed holds is not judged: past 65536 sessions the ones followed were forgotten, and it may be one of them")
}

// asks is a client on cn asking for a session n times (session id 0,
// epoch 0), the broker handing out sessions 5, 6, 7... that it never
// uses.
func asks(cn *Conn, n int) []Exchange {
	var xs []Exchange
	for i := range n {
		xs = append(xs, sessX(cn, 10+2*i, int32(i+1), 0, 0, 0, int32(5+i)))
	}
	return xs
}

// A client that asks for a session again and again and uses none of
// those the broker hands out fills the broker's fetch session cache: a
// note once the third is left unused (at the fourth ask), once a
// connection, naming how many were handed out and left unused.
func TestFetchSessionUnused(t *testing.T) {
	cn := fresh()
	fs := Check(asks(cn, 3))
	require.Empty(t, ruleIDs(fs), findingLines(fs))

	fs = Check(asks(cn, 8))
	require.Equal(t, []string{"conn.fetch-session-unused"}, ruleIDs(fs), findingLines(fs))
	got := judged(fs, "conn.fetch-session-unused")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, Note, got[0].Severity)
	require.Equal(t, "body.sessionEpoch", got[0].Where.Path)
	require.Equal(t, int32(4), got[0].Where.Correlation)
	require.Contains(t, got[0].String(), "3 of the 3 sessions the broker handed out over this connection were left unused")
	require.True(t, strings.HasSuffix(got[0].String(), "expected an incremental fetch of session 7 (session id 7, epoch 1), found session id 0, epoch 0: a new session asked for, 3 left unused"), got[0].String())

	// Said once a connection: another connection of the same client
	// doing the same is said again.
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	var xs []Exchange
	for i := range 5 {
		xs = append(xs, sessX(cn, 10+4*i, int32(i+1), 0, 0, 0, int32(5+i)), sessX(other, 12+4*i, int32(i+1), 0, 0, 0, int32(50+i)))
	}
	fs = Check(xs)
	got = judged(fs, "conn.fetch-session-unused")
	require.Len(t, got, 2, findingLines(fs))
	require.Equal(t, []int{1, 2}, []int{got[0].Where.Conn, got[1].Where.Conn})
}

// No note for a client that uses the sessions it is given (over the
// connection or another), closes them, fetches without sessions, or is
// given none; nor for a session asked for again before the answer that
// handed the last one out came, nor after loss (said not judged).
func TestFetchSessionUnusedNot(t *testing.T) {
	cn := fresh()
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	used := func() []Exchange {
		var xs []Exchange
		for i := range 6 {
			id, at := int32(5+i), 10+4*i
			xs = append(xs, sessX(cn, at, int32(2*i+1), 0, 0, 0, id), sessX(cn, at+2, int32(2*i+2), id, 1, 0, id))
		}
		return xs
	}
	elsewhere := func() []Exchange {
		var xs []Exchange
		for i := range 6 {
			id, at := int32(5+i), 10+4*i
			xs = append(xs, sessX(cn, at, int32(i+1), 0, 0, 0, id), sessX(other, at+2, int32(i+1), id, 1, 0, id))
		}
		return xs
	}
	closed := func() []Exchange {
		var xs []Exchange
		for i := range 6 {
			id, at := int32(5+i), 10+4*i
			xs = append(xs, sessX(cn, at, int32(2*i+1), 0, 0, 0, id), sessX(cn, at+2, int32(2*i+2), id, -1, 0, 0))
		}
		return xs
	}
	// A Java client's restart: closes the last session and asks for
	// another in one fetch (session id, epoch 0).
	reopened := func() []Exchange {
		xs := []Exchange{sessX(cn, 10, 1, 0, 0, 0, 5)}
		for i := range 6 {
			xs = append(xs, sessX(cn, 12+2*i, int32(i+2), int32(5+i), 0, 0, int32(6+i)))
		}
		return xs
	}
	full := func(epoch int32, got int32) []Exchange {
		var xs []Exchange
		for i := range 6 {
			xs = append(xs, sessX(cn, 10+2*i, int32(i+1), 0, epoch, 0, got))
		}
		return xs
	}
	inFlight := func() []Exchange {
		var xs []Exchange
		for i := range 6 {
			// Each ask sent before the answer to the one before it.
			x := sessX(cn, 10+2*i, int32(i+1), 0, 0, 0, int32(5+i))
			x.ResponsePacket = x.RequestPacket + 3
			xs = append(xs, x)
		}
		return xs
	}
	for name, xs := range map[string][]Exchange{
		"used": used(), "used elsewhere": elsewhere(), "closed": closed(), "reopened": reopened(),
		"no sessions asked": full(-1, 0), "none given": full(0, 0), "in flight": inFlight(),
	} {
		t.Run(name, func(t *testing.T) {
			fs := Check(xs)
			require.Empty(t, ruleIDs(fs), findingLines(fs))
			require.NotContains(t, skippedIDs(fs), "conn.fetch-session-unused", findingLines(fs))
		})
	}

	// Bytes lost while a session was out: it is not judged, and said so.
	xs := asks(cn, 6)
	for i := range xs {
		xs[i].Gaps, xs[i].StreamGaps = 1, i+1
	}
	fs := Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conn.fetch-session-unused", findingLines(fs))
}
