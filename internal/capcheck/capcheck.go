// Package capcheck turns a capture's exchanges (internal/capture) into
// the exchanges kwire check's rules read (codec/check), and says at the
// capture's end what the rules could not judge in it. kwire check and the
// playground's capture module (wasm/capture) both read captures through
// it, so the two judge a capture alike. It builds for wasm: no fmt, no
// reflection.
package capcheck

import (
	"slices"
	"strconv"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/internal/capture"
)

// Conv converts one capture's exchanges, in the order the rules are to
// see them (the order they completed). Its zero value is ready. It is not
// safe for concurrent use; End may be called once the last Exchange has
// returned, from another goroutine that learnt so.
type Conv struct {
	// Stopped, when set, says whether the capture's reading was stopped
	// before its end (kwire check's Ctrl-C: capture.ErrStopped). A
	// request handed to Exchange unanswered once it was is one the cut
	// left in flight: its answer may have come after, so it is not
	// judged as never answered (End says so once).
	Stopped func() bool

	conns   map[*capture.Conn]*check.Conn
	damaged int         // frames left out by Exchange: the capture holds them only in part
	first   check.Where // where the first of them was
	// inFlight counts the requests left in flight by a stop, firstCut
	// where the first was.
	inFlight int
	firstCut check.Where
}

// conn is the check's connection for c, made once.
func (v *Conv) conn(c *capture.Conn) *check.Conn {
	cc := v.conns[c]
	if cc == nil {
		if v.conns == nil {
			v.conns = map[*capture.Conn]*check.Conn{}
		}
		cc = &check.Conn{ID: c.ID, Client: c.Client.String(), Broker: c.Broker.String(), FromStart: c.SYN}
		v.conns[c] = cc
	}
	return cc
}

// Exchange is x as the check reads it. A frame the capture holds only in
// part (Frame.Missing: bytes lost, or cut by the snap length, inside it;
// kept by capture.Options.KeepDamaged) is left out, as the capture leaves
// it out without that option, and counted: no rule can be judged on
// bytes that end early. End says once that such frames were not judged.
// A request's header, which the capture holds, pairs it with its answer:
// the answer is left out with it, unjudged as the pair is, rather than
// read as a response to no request (the rules cannot read it without its
// request, nor say it answers none). A response held in part leaves its
// request to be judged as one whose answer was not captured, so far as
// the bytes lost allow (Exchange.Gaps).
func (v *Conv) Exchange(x *capture.Exchange) check.Exchange {
	cx := check.Exchange{Conn: v.conn(x.Conn), NoResponseExpected: x.NoResponseExpected, Evicted: x.Evicted, ConnClosed: x.ConnClosed,
		Overtook: x.Overtook, Overtaken: x.Overtaken, OvertakenBy: x.OvertakenBy, ReusedCorrelation: x.ReusedCorrelation, Gaps: x.Conn.Gaps,
		SASLToken: x.SASLToken}
	for _, f := range [...]*capture.Frame{x.Request, x.Response} {
		if f != nil {
			cx.StreamGaps += f.Gaps
		}
	}
	if x.Response == nil && x.Request != nil && x.Overtaken > 0 && !x.Evicted && !x.ConnClosed && v.Stopped != nil && v.Stopped() {
		// Later requests were answered, and its own answer may have
		// come after the cut: "never answered" is not known.
		cx.Overtaken, cx.OvertakenBy = 0, 0
		v.inFlight++
		if v.inFlight == 1 {
			v.firstCut = check.Where{Conn: x.Conn.ID, Side: check.Request, Packet: x.Request.PacketIndex, Correlation: x.CorrelationID, HasCorr: true}
		}
	}
	cut := false
	if f := x.Request; f != nil {
		if f.Missing > 0 {
			v.damage(x, check.Request, f)
			cut = true
		} else {
			cx.Request, cx.RequestPacket, cx.RequestTime = f.Bytes, f.PacketIndex, f.Time
		}
	}
	if f := x.Response; f != nil {
		switch {
		case f.Missing > 0:
			v.damage(x, check.Response, f)
		case !cut:
			cx.Response, cx.ResponsePacket = f.Bytes, f.PacketIndex
		}
	}
	return cx
}

// damage counts a frame of x left out, and keeps where the first was.
func (v *Conv) damage(x *capture.Exchange, side check.Side, f *capture.Frame) {
	v.damaged++
	if v.damaged == 1 {
		v.first = check.Where{Conn: x.Conn.ID, Side: side, Packet: f.PacketIndex, Correlation: x.CorrelationID, HasCorr: x.CorrelationID >= 0}
	}
}

// Damaged is how many frames Exchange left out so far.
func (v *Conv) Damaged() int { return v.damaged }

// End is what the rules say once the capture res has ended, every
// exchange converted and handed to ck: what the capture learnt last
// (which connections closed) is given to the connections first, then
// come ck's findings at the end, the one finding that says frames held
// only in part were not judged (at the first of them), and one for each
// run of bytes res marks unframed (Note.Unframed), in its notes' order:
// past the first 10 of them, which the capture folds into one note, one
// finding that says how many more, and where the first and last were.
// A capture whose reading was stopped (res.Stopped) did not end where it
// was cut: what ck said at the end stands when it is of connections
// seen to close before the cut, which ended whole before it: a
// transaction its producer's connections left open (check.Checker.End's
// one judgement), or not judged for a reason the cut does not change
// (its start was not captured, its coordinator moved, bytes were lost);
// what ck did not judge of connections still open at the cut (a
// transaction whose producer was still connected) is said not judged
// because of the cut, one for each rule, as are the requests the cut
// left in flight (Stopped).
func (v *Conv) End(ck *check.Checker, res *capture.Result) []check.Finding {
	for c, cc := range v.conns {
		cc.Closed = c.Closed
	}
	fs := slices.Clip(ck.End())
	if res.Stopped {
		fs = stoppedEnd(fs)
		if v.inFlight > 0 {
			what := "a request in flight when the reading was interrupted, after later requests were answered, is not judged for its answer (it may have come after the cut)"
			if v.inFlight > 1 {
				what = strconv.Itoa(v.inFlight) + " requests in flight when the reading was interrupted, after later requests were answered, are not judged for their answers (they may have come after the cut), the first here"
			}
			fs = append(fs, check.Finding{Rule: check.ConnOrder, Where: v.firstCut, Skipped: true, What: what})
		}
	}
	if v.damaged > 0 {
		fs = append(fs, v.damagedFinding())
	}
	for _, n := range res.Notes {
		switch {
		case n.Folded > 0 && n.Unframed:
			fs = append(fs, foldedFinding(n))
		case n.Refused:
			fs = append(fs, check.RefusedSize(n.Conn.ID, n.Packet, n.Size))
		case n.Unframed:
			fs = append(fs, check.Unframed(n.Conn.ID, n.Packet, n.Message))
		}
	}
	return fs
}

// stoppedEnd is the checker's findings at a capture's end, fs, when its
// reading was stopped. Those of connections that all closed before the
// cut (check.Finding.ConnsClosed: every one the checker judged, as
// check.Checker.End judges nothing else, and those it did not judge for
// a reason of their own, such as a transaction whose start was not
// captured) are what a capture cut anywhere after the close says: they
// stay as they are, reason and all. The rest depend on where the capture
// ends, which the cut is not: each rule's said not judged, once, at its
// first.
func stoppedEnd(fs []check.Finding) []check.Finding {
	out := fs[:0]
	for _, f := range fs {
		if !f.Skipped || f.ConnsClosed {
			out = append(out, f)
			continue
		}
		if slices.ContainsFunc(out, func(g check.Finding) bool { return g.Rule == f.Rule && g.Skipped }) {
			continue
		}
		out = append(out, check.Finding{Rule: f.Rule, Where: f.Where, Skipped: true,
			What: "not judged at the capture's end: the reading was interrupted, and what it was cut in (" + f.What + ") is not where the capture ends"})
	}
	return out
}

// damagedFinding says that the frames held only in part were not judged,
// at the first.
func (v *Conv) damagedFinding() check.Finding {
	what := "a frame the capture holds only in part (bytes lost, or cut by the snap length, inside it) is not judged"
	if v.damaged > 1 {
		what = strconv.Itoa(v.damaged) + " frames the capture holds only in part (bytes lost, or cut by the snap length, inside them) are not judged, the first here"
	}
	return check.Finding{Rule: check.FrameDecode, Where: v.first, Skipped: true, What: what}
}

// foldedFinding is what the check says of the streams an Unframed note
// stands for past those said each in a note of their own (Note.Folded):
// one finding, at the last, which counts them and says where the first
// was, as the finding of each would (check.Unframed, check.RefusedSize).
func foldedFinding(n capture.Note) check.Finding {
	first := ""
	if n.First != nil && n.First.Conn != nil {
		first = "conn " + strconv.Itoa(n.First.Conn.ID) + " (packet " + strconv.Itoa(n.First.Packet) + ")"
	}
	count := strconv.Itoa(n.Folded)
	if n.Refused {
		f := check.RefusedSize(n.Conn.ID, n.Packet, n.Size)
		f.What = count + " more connections, past those said each above, from " + first + " to this one, have a first frame that declares a size a broker refuses (a negative one, or one over socket.request.max.bytes, 100 MiB by default); it closes each, the last here"
		return f
	}
	f := check.Unframed(n.Conn.ID, n.Packet, "")
	f.What = "bytes of " + count + " more streams of connections captured from their start, past those said each above, from " + first + " to this one, do not read as a frame: the capture skipped them to resynchronise, and what they hold is not judged"
	return f
}
