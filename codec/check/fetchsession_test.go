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
	return sessReqV(12, corr, id, epoch, forget)
}

// ordersID is the topic id of orders, which Fetch v13+ names it by.
var ordersID = [16]byte{0x6f, 0x72, 0x64, 0x65, 0x72, 0x73, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

// sessReqV is sessReq at Fetch version v.
func sessReqV(v int16, corr, id, epoch int32, forget bool) []byte {
	r := kmsg.NewPtrFetchRequest()
	r.ReplicaID, r.MaxWaitMillis, r.MinBytes, r.MaxBytes = -1, 500, 1, 1<<20
	r.SessionID, r.SessionEpoch = id, epoch
	t := kmsg.NewFetchRequestTopic()
	t.Topic, t.TopicID = "orders", ordersID
	p := kmsg.NewFetchRequestTopicPartition()
	p.PartitionMaxBytes = 1 << 20
	t.Partitions = append(t.Partitions, p)
	r.Topics = append(r.Topics, t)
	if forget {
		f := kmsg.NewFetchRequestForgottenTopic()
		f.Topic, f.TopicID, f.Partitions = "orders", ordersID, []int32{1}
		r.ForgottenTopics = append(r.ForgottenTopics, f)
	}
	return req(r, v, corr)
}

// sessRsp answers a Fetch v12 with error code code and session id id.
func sessRsp(corr int32, code int16, id int32) []byte {
	return sessRspV(12, corr, code, id, 0)
}

// sessRspV answers a Fetch at version v with error code code, session id
// id and throttle time throttle.
func sessRspV(v int16, corr int32, code int16, id, throttle int32) []byte {
	r := kmsg.NewPtrFetchResponse()
	r.ErrorCode, r.SessionID, r.ThrottleMillis = code, id, throttle
	if code == 0 {
		t := kmsg.NewFetchResponseTopic()
		t.Topic, t.TopicID = "orders", ordersID
		p := kmsg.NewFetchResponseTopicPartition()
		t.Partitions = append(t.Partitions, p)
		r.Topics = append(r.Topics, t)
	}
	return rsp(r, v, corr)
}

// sessXV is sessX at Fetch version v, answered after throttle ms.
func sessXV(v int16, cn *Conn, pos int, corr, id, epoch int32, code int16, got, throttle int32) Exchange {
	return Exchange{Conn: cn, Request: sessReqV(v, corr, id, epoch, false), Response: sessRspV(v, corr, code, got, throttle),
		RequestPacket: pos, ResponsePacket: pos + 1}
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
		got := int32(6) // a new session; none for epoch -1
		if e == -1 {
			got = 0
		}
		fs = Check(FromFrames(fr(sessReq(1, 5, e, true), sessRsp(1, 0, got))))
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
	// Nor its side of Fetch v13, nor the broker's answer to a switch.
	require.Contains(t, findingLines(fs), "conv.fetch-session-topic-ids skipped conn 1 correlation 2 request (packet 3): a fetch session none of those followed holds is not judged: past 65536 sessions the ones followed were forgotten, and it may be one of them")
	require.Contains(t, skippedIDs(fs), "conv.fetch-session-answer", findingLines(fs))
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

// A session keeps the side of Fetch v13 it was created on (KIP-516): an
// incremental fetch from the other side is flagged once a session, with
// both versions, at the request; Kafka's answer is named, and when the
// epoch is wrong too, that Kafka checks the epoch first.
func TestFetchSessionTopicIDs(t *testing.T) {
	cn := fresh()
	for _, tc := range []struct {
		name           string
		created, other int16
		want           string
	}{
		{"names to ids", 12, 13, "the fetch continues session 5 at Fetch v13, which names topics by topic id, but a Fetch v12, which names topics by name, created the session: a session keeps the side of v13 it was created on (the broker answered FETCH_SESSION_TOPIC_ID_ERROR), expected Fetch v12 or earlier (topics by name), as the session was created, or a full fetch (epoch 0) for a new session, found Fetch v13, session id 5, epoch 2"},
		{"ids to names", 16, 11, "the fetch continues session 5 at Fetch v11, which names topics by name, but a Fetch v16, which names topics by topic id, created the session: a session keeps the side of v13 it was created on (the broker answered FETCH_SESSION_TOPIC_ID_ERROR), expected Fetch v13 or later (topics by id), as the session was created, or a full fetch (epoch 0) for a new session, found Fetch v11, session id 5, epoch 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.created
			xs := []Exchange{sessXV(v, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(v, cn, 12, 2, 5, 1, 0, 5, 0)}
			// Refused, then the same again: said once a session.
			xs = append(xs, sessXV(tc.other, cn, 14, 3, 5, 2, 106, 0, 0), sessXV(tc.other, cn, 16, 4, 5, 2, 106, 0, 0))
			fs := Check(xs)
			require.Equal(t, []string{"conv.fetch-session-topic-ids"}, ruleIDs(fs), findingLines(fs))
			got := judged(fs, "conv.fetch-session-topic-ids")
			require.Len(t, got, 1, findingLines(fs))
			require.Equal(t, Error, got[0].Severity)
			require.Equal(t, Request, got[0].Where.Side)
			require.Equal(t, int32(3), got[0].Where.Correlation)
			require.True(t, strings.HasSuffix(got[0].String(), tc.want), got[0].String())
		})
	}
	// A wrong epoch as well: Kafka answers INVALID_FETCH_SESSION_EPOCH
	// first, and conv.fetch-session says the epoch.
	fs := Check([]Exchange{sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(13, cn, 12, 2, 5, 4, 71, 0, 0)})
	require.Equal(t, []string{"conv.fetch-session", "conv.fetch-session-topic-ids"}, ruleIDs(fs), findingLines(fs))
	require.Contains(t, judged(fs, "conv.fetch-session-topic-ids")[0].What, "(the broker answered INVALID_FETCH_SESSION_EPOCH, its epoch being wrong too; at the right epoch, FETCH_SESSION_TOPIC_ID_ERROR)")
}

// Not flagged: versions on one side of v13, a full fetch on the other
// side (it closes the session and creates another), a session closed
// (by the client, or gone: FETCH_SESSION_ID_NOT_FOUND, or closed by the
// broker's answer) before a fetch names it from the other side, a session
// whose creation the capture does not hold; after loss, said not judged.
func TestFetchSessionTopicIDsNot(t *testing.T) {
	cn := fresh()
	mid := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092"}
	for name, xs := range map[string][]Exchange{
		"names":      {sessXV(7, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(12, cn, 12, 2, 5, 1, 0, 5, 0), sessXV(9, cn, 14, 3, 5, 2, 0, 5, 0)},
		"ids":        {sessXV(13, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(17, cn, 12, 2, 5, 1, 0, 5, 0)},
		"full fetch": {sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(13, cn, 12, 2, 5, 0, 0, 6, 0), sessXV(13, cn, 14, 3, 6, 1, 0, 6, 0)},
		"closed":     {sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(12, cn, 12, 2, 5, -1, 0, 0, 0), sessXV(13, cn, 14, 3, 5, 1, 70, 0, 0)},
		"not found":  {sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(12, cn, 12, 2, 5, 1, 70, 0, 0), sessXV(13, cn, 14, 3, 5, 2, 70, 0, 0)},
		"emptied":    {sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(12, cn, 12, 2, 5, 1, 0, 0, 0), sessXV(13, cn, 14, 3, 5, 2, 70, 0, 0)},
		"mid":        {sessXV(12, mid, 10, 1, 5, 7, 0, 5, 0), sessXV(13, mid, 12, 2, 5, 8, 106, 0, 0)},
	} {
		t.Run(name, func(t *testing.T) {
			fs := Check(xs)
			require.Empty(t, ruleIDs(fs), findingLines(fs))
			require.NotContains(t, skippedIDs(fs), "conv.fetch-session-topic-ids", findingLines(fs))
		})
	}
	lost := sessXV(13, cn, 14, 3, 5, 2, 106, 0, 0)
	lost.Gaps, lost.StreamGaps = 1, 1
	fs := Check([]Exchange{sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0), sessXV(12, cn, 12, 2, 5, 1, 0, 5, 0), lost})
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.fetch-session-topic-ids", findingLines(fs))
}

// A fetch handed out after later fetches of its session (its connection
// closed with it in flight, the session closed over another connection
// since, as franz-go does when it leaves) is judged for its side of v13
// by the session as the fetch before it left it: a Fetch v13 in a
// session a Fetch v12 created is flagged there, at its request; one at
// the session's own version, or sent after the session was refused
// (FETCH_SESSION_ID_NOT_FOUND: its side not known), is not. One sent
// before the fetch before the last is said not judged. An answer
// captured all the same that accepts the switch is
// conv.fetch-session-answer's.
func TestFetchSessionTopicIDsLateFetch(t *testing.T) {
	cn := fresh()
	other := &Conn{ID: 2, Client: "10.0.0.1:40002", Broker: "10.0.0.9:9092", FromStart: true}
	// session(cn, 2): created as 5 by a Fetch v12 at packet 10, epochs 1
	// and 2 at 12 and 14; closed over other at 17; then a fetch of it
	// there answered FETCH_SESSION_ID_NOT_FOUND.
	run := func(late Exchange, before ...Exchange) []Finding {
		xs := append(session(cn, 2), before...)
		xs = append(xs, sessX(other, 17, 1, 5, -1, 0, 0), late)
		return Check(append(xs, sessX(other, 30, 2, 5, 1, 70, 0)))
	}
	inFlight := func(v int16, pos int, epoch int32) Exchange {
		x := sessXV(v, cn, pos, 4, 5, epoch, 0, 0, 0)
		x.Response, x.ConnClosed = nil, true
		return x
	}

	fs := run(inFlight(13, 16, 3))
	require.Equal(t, []string{"conv.fetch-session-topic-ids"}, ruleIDs(fs), findingLines(fs))
	got := judged(fs, "conv.fetch-session-topic-ids")
	require.Len(t, got, 1, findingLines(fs))
	require.Equal(t, 16, got[0].Where.Packet)
	require.Equal(t, Request, got[0].Where.Side)
	require.True(t, strings.HasSuffix(got[0].String(), "a Fetch v12, which names topics by name, created the session: a session keeps the side of v13 it was created on (Kafka answers FETCH_SESSION_TOPIC_ID_ERROR), expected Fetch v12 or earlier (topics by name), as the session was created, or a full fetch (epoch 0) for a new session, found Fetch v13, session id 5, epoch 3"), got[0].String())

	// Its epoch wrong too: both said, Kafka checking the epoch first.
	fs = run(inFlight(13, 16, 4))
	require.Equal(t, []string{"conv.fetch-session", "conv.fetch-session-topic-ids"}, ruleIDs(fs), findingLines(fs))
	require.Contains(t, judged(fs, "conv.fetch-session-topic-ids")[0].What, "(Kafka answers INVALID_FETCH_SESSION_EPOCH, its epoch being wrong too; at the right epoch, FETCH_SESSION_TOPIC_ID_ERROR)")

	// Its answer captured, after the close's: the broker accepted it.
	answered := sessXV(13, cn, 16, 4, 5, 3, 0, 5, 0)
	answered.ResponsePacket = 20
	fs = run(answered)
	require.Equal(t, []string{"conv.fetch-session-answer", "conv.fetch-session-topic-ids"}, ruleIDs(fs), findingLines(fs))
	require.Contains(t, judged(fs, "conv.fetch-session-answer")[0].What, "the broker accepts an incremental fetch of session 5 at Fetch v13")

	// Valid: at the session's own version (a Fetch v12, or v7, both
	// naming topics by name).
	for _, v := range []int16{12, 7} {
		fs = run(inFlight(v, 16, 3))
		require.Empty(t, ruleIDs(fs), findingLines(fs))
		require.NotContains(t, skippedIDs(fs), "conv.fetch-session-topic-ids", findingLines(fs))
		require.NotContains(t, skippedIDs(fs), "conv.fetch-session", findingLines(fs))
	}
	// The fetch at epoch 2 refused FETCH_SESSION_ID_NOT_FOUND (the
	// broker holds no such session), then the session closed at 18:
	// the fetch in flight from 16 continues a session gone, on no side.
	refused := sessX(cn, 14, 3, 5, 2, 70, 0)
	xs := append(session(cn, 1), refused, sessX(other, 18, 1, 5, -1, 0, 0), inFlight(13, 16, 3))
	fs = Check(xs)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.NotContains(t, skippedIDs(fs), "conv.fetch-session-topic-ids", findingLines(fs))

	// Sent before the fetch at epoch 2 (at 13): said not judged.
	fs = run(inFlight(13, 13, 2))
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.fetch-session-topic-ids", findingLines(fs))

	// Bytes lost since the fetch before it: said not judged.
	lost := inFlight(13, 16, 3)
	lost.Gaps, lost.StreamGaps = 1, 1
	fs = run(lost)
	require.Empty(t, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.fetch-session-topic-ids", findingLines(fs))
}

// The broker's answers Kafka's FetchManager never gives: each flagged at
// the response's field, once a connection for each kind.
func TestFetchSessionAnswer(t *testing.T) {
	cn := fresh()
	created := sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0)
	for _, tc := range []struct {
		name  string
		xs    []Exchange
		rules []string
		path  string
		want  string
	}{
		{"topic id error to epoch 0", []Exchange{sessXV(13, cn, 10, 1, 0, 0, 106, 0, 0)}, nil, "body.errorCode",
			"the broker answers a full fetch (epoch 0) FETCH_SESSION_TOPIC_ID_ERROR: a full fetch continues no session, and Kafka gives that error only to an incremental fetch whose version is on the other side of v13 from its session's (said once a connection), expected no session error: a full fetch closes the session it names and may be given a new one, found error code 106 (FETCH_SESSION_TOPIC_ID_ERROR)"},
		{"topic id error to epoch -1", []Exchange{created, sessXV(13, cn, 12, 2, 5, -1, 106, 0, 0)}, nil, "body.errorCode",
			"expected no session error: a full fetch at epoch -1 closes the session it names and asks for none, found error code 106 (FETCH_SESSION_TOPIC_ID_ERROR)"},
		{"switch accepted", []Exchange{created, sessXV(13, cn, 12, 2, 5, 1, 0, 5, 0)}, []string{"conv.fetch-session-topic-ids"}, "body.errorCode",
			"the broker accepts an incremental fetch of session 5 at Fetch v13, which names topics by topic id, in a session created on the other side of v13: Kafka answers FETCH_SESSION_TOPIC_ID_ERROR (said once a connection), expected error code 106 (FETCH_SESSION_TOPIC_ID_ERROR), found error code 0"},
		{"sessionless given a session", []Exchange{sessXV(12, cn, 10, 1, 0, -1, 0, 9, 0)}, nil, "body.sessionId",
			"the broker answers a fetch at epoch -1, which asks for no session, with session id 9: Kafka answers it without a session (said once a connection), expected session id 0, found session id 9"},
		{"closing fetch given a session", []Exchange{created, sessXV(12, cn, 12, 2, 5, -1, 0, 5, 0)}, nil, "body.sessionId",
			"expected session id 0, found session id 5"},
		{"incremental under another id", []Exchange{created, sessXV(12, cn, 12, 2, 5, 1, 0, 8, 0)}, nil, "body.sessionId",
			"the broker accepts an incremental fetch of session 5 under session id 8: Kafka answers an incremental fetch it accepts with its session's id, or 0 when the fetch left the session empty and closed it (said once a connection), expected session id 5 or 0, found session id 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Twice: said once a connection (a switch accepted goes on
			// to the next epoch).
			again := tc.xs[len(tc.xs)-1]
			if tc.name == "switch accepted" {
				again = sessXV(13, cn, 30, 3, 5, 2, 0, 5, 0)
			}
			again.RequestPacket, again.ResponsePacket = 30, 31
			xs := append(append([]Exchange(nil), tc.xs...), again)
			fs := Check(xs)
			require.ElementsMatch(t, append([]string{"conv.fetch-session-answer"}, tc.rules...), ruleIDs(fs), findingLines(fs))
			got := judged(fs, "conv.fetch-session-answer")
			require.Len(t, got, 1, findingLines(fs))
			require.Equal(t, Warning, got[0].Severity)
			require.Equal(t, Response, got[0].Where.Side)
			require.Equal(t, tc.path, got[0].Where.Path)
			require.True(t, strings.HasSuffix(got[0].String(), tc.want), got[0].String())
		})
	}
}

// Answers Kafka gives, or may: not flagged. A switch answered with a
// throttle time is said not judged (Kafka answers a throttled fetch with
// error code 0, whatever its session).
func TestFetchSessionAnswerNot(t *testing.T) {
	cn := fresh()
	created := sessXV(12, cn, 10, 1, 0, 0, 0, 5, 0)
	for name, xs := range map[string][]Exchange{
		"switch refused":              {created, sessXV(13, cn, 12, 2, 5, 1, 106, 0, 0)},
		"switch, session evicted":     {created, sessXV(13, cn, 12, 2, 5, 1, 70, 0, 0)},
		"topic id error, same side":   {created, sessXV(12, cn, 12, 2, 5, 1, 106, 0, 0)},
		"incremental emptied":         {created, sessXV(12, cn, 12, 2, 5, 1, 0, 0, 0)},
		"error echoes the session id": {created, sessXV(12, cn, 12, 2, 5, -1, 1, 5, 0), sessXV(12, cn, 14, 3, 0, -1, 0, 0, 0)},
		"epoch refused with its id":   {created, sessXV(12, cn, 12, 2, 5, 3, 71, 5, 0)},
		"no session for epoch 0":      {sessXV(12, cn, 10, 1, 0, 0, 0, 0, 0)},
	} {
		t.Run(name, func(t *testing.T) {
			fs := Check(xs)
			require.NotContains(t, ruleIDs(fs), "conv.fetch-session-answer", findingLines(fs))
			require.NotContains(t, skippedIDs(fs), "conv.fetch-session-answer", findingLines(fs))
		})
	}
	fs := Check([]Exchange{created, sessXV(13, cn, 12, 2, 5, 1, 0, 0, 200)})
	require.Equal(t, []string{"conv.fetch-session-topic-ids"}, ruleIDs(fs), findingLines(fs))
	require.Contains(t, skippedIDs(fs), "conv.fetch-session-answer", findingLines(fs))
}
