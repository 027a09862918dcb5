package check

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	records "github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/timetext"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
)

// Analyzer applies the frame and records rules to exchanges, one at a
// time, and reads what the connection and conversation rules need. It
// reuses its decoders' memory; use one per goroutine. What it returns owns
// its data.
type Analyzer struct {
	// Limits bound each frame's decoding; zero values are the codec's
	// defaults.
	Limits Limits
	r      reader
}

// Spent is what the frames the Analyzer has read so far spent of their
// limits, summed over every decode (nodes, bytes decompressed, work;
// MaxDepth and MaxRecordNesting unused): a caller that reads many
// exchanges bounds them all together with it, as the playground's capture
// module does.
func (z *Analyzer) Spent() Limits { return z.r.spent }

// Analysis is one exchange read by an Analyzer, for a Checker.
type Analysis struct{ a analysis }

// Findings are the frame- and records-level findings of the exchange.
func (an *Analysis) Findings() []Finding { return an.a.findings }

// Analyze reads both frames of x.
func (z *Analyzer) Analyze(x *Exchange) *Analysis {
	an := &Analysis{}
	a := &an.a
	z.r.limits = z.Limits
	a.x = *x
	a.key, a.ver = -1, -1
	if x.SASLToken {
		for _, side := range [...]struct {
			b    []byte
			s    Side
			resp bool
			ff   *frameFacts
		}{{x.Request, Request, false, &a.req}, {x.Response, Response, true, &a.rsp}} {
			if side.b != nil {
				z.r.readToken(side.b, side.resp, side.ff)
				a.saslMessage(side.s, &side.ff.SASL)
			}
		}
		a.tellOver()
		return an
	}
	if x.Request != nil {
		z.r.readFrame(x.Request, false, 0, 0, &a.req)
		if len(x.Request) >= 8 {
			a.key = int16(uint16(x.Request[4])<<8 | uint16(x.Request[5]))
			a.ver = int16(uint16(x.Request[6])<<8 | uint16(x.Request[7]))
		}
		if a.req.Known {
			a.key, a.ver = a.req.APIKey, a.req.Version
		}
	}
	if x.cut && x.Request == nil {
		a.cutFrame()
		return an
	}
	switch {
	case x.Response != nil && x.Request != nil && schema.ByKey(a.key) != nil && a.ver >= 0:
		z.r.readFrame(x.Response, true, a.key, a.ver, &a.rsp)
	case x.Response != nil && x.GuessResponse:
		z.r.readFrame(x.Response, true, -1, -1, &a.rsp)
	case x.Response != nil:
		// A response whose request is not there could only be read by
		// guessing its API and version: too costly for what a guess is
		// worth (a flood of tiny frames would guess each), so its frame
		// rules are not judged.
		a.rsp = frameFacts{Present: true, Response: true, Len: len(x.Response), APIKey: -1, Version: -1}
		a.skip(FrameDecode, a.where(Response), "a response whose request is not there is not decoded (its API and version are unknown)")
	}
	a.frameRules(Request, &a.req)
	a.frameRules(Response, &a.rsp)
	a.recordsRules()
	a.tellOver()
	return an
}

// cutFrame says of a frame of a file cut short (Exchange.cut), which
// answers no request and does not start as a client's request, that it
// is cut and that nothing in it is judged: read as a request it would be
// whatever its first bytes name (a response's correlation id 7 names
// Produce v7), and a response's API and version are not guessed from part
// of its bytes.
func (a *analysis) cutFrame() {
	b := a.x.Response
	size := int(int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])))
	w := Where{Frame: a.x.ResponseFrame, HasOffset: true, Path: "size"}
	if a.x.Conn != nil {
		w.Conn = a.x.Conn.ID
	}
	what := "the frame is cut short, and nothing in it is judged: it does not start as a client's request (an API at one of its versions, then a client id) and answers no request before it, so it is most likely a response"
	if len(b) >= 8 {
		what += " (correlation id " + itoa(int(int32(uint32(b[4])<<24|uint32(b[5])<<16|uint32(b[6])<<8|uint32(b[7])))) + ")"
	}
	what += ", whose API and version are not guessed from part of its bytes"
	a.rsp = frameFacts{Present: true, Response: true, Len: len(b), Size: int32(size), APIKey: -1, Version: -1}
	a.add(FrameSize, w, what, itoa(size)+" bytes after the size, as it says", itoa(len(b)-4))
}

// where places a finding in side's frame at offset/buf/path.
func (a *analysis) where(side Side) Where {
	w := Where{Side: side}
	if a.x.Conn != nil {
		w.Conn = a.x.Conn.ID
	}
	switch side {
	case Request:
		w.Packet, w.Frame = a.x.RequestPacket, a.x.RequestFrame
		if a.req.Present && len(a.x.Request) >= 12 && !a.x.SASLToken {
			w.Correlation, w.HasCorr = a.req.Corr, true
			if !a.req.Known {
				w.Correlation = int32(uint32(a.x.Request[8])<<24 | uint32(a.x.Request[9])<<16 | uint32(a.x.Request[10])<<8 | uint32(a.x.Request[11]))
			}
		}
	case Response:
		w.Packet, w.Frame = a.x.ResponsePacket, a.x.ResponseFrame
		if len(a.x.Response) >= 8 && !a.x.SASLToken {
			w.Correlation = int32(uint32(a.x.Response[4])<<24 | uint32(a.x.Response[5])<<16 | uint32(a.x.Response[6])<<8 | uint32(a.x.Response[7]))
			w.HasCorr = true
		}
	default:
		if a.x.Request != nil {
			return a.where(Request)
		}
		return a.where(Response)
	}
	return w
}

func (a *analysis) at(side Side, off, buf int, path string) Where {
	w := a.where(side)
	w.HasOffset, w.Offset, w.Buf, w.Path = true, off, buf, path
	return w
}

// atPath places a finding at a value-JSON path alone.
func (a *analysis) atPath(side Side, path string) Where {
	w := a.where(side)
	w.Path = path
	return w
}

func (a *analysis) add(r *Rule, w Where, what, expected, found string) {
	if a.count(r, w) > maxPerRule {
		return
	}
	a.findings = append(a.findings, Finding{Rule: r, Severity: r.Severity, Where: w, What: what, Expected: expected, Found: found})
}

// ruleCount is how many findings of rule r one side's frame had, and
// where the last was.
type ruleCount struct {
	r    *Rule
	side Side
	n    int
	last Where
}

// count counts a finding of r at w, returning how many its frame has had.
func (a *analysis) count(r *Rule, w Where) int {
	for i := range a.counts {
		if c := &a.counts[i]; c.r == r && c.side == w.Side {
			c.n++
			c.last = w
			return c.n
		}
	}
	a.counts = append(a.counts, ruleCount{r, w.Side, 1, w})
	return 1
}

// tellOver adds, for each rule a frame broke more than maxPerRule times,
// one finding that counts the rest: a Produce of 65,000 topics each
// broken alike is 6 findings, not 65,000 (which held 270 MB).
func (a *analysis) tellOver() {
	for _, c := range a.counts {
		if n := c.n - maxPerRule; n > 0 {
			a.findings = append(a.findings, Finding{Rule: c.r, Severity: c.r.Severity, Where: c.last, What: itoa(n) + " more in this frame, the last here"})
		}
	}
}

func (a *analysis) skip(r *Rule, w Where, why string) {
	a.findings = append(a.findings, Finding{Rule: r, Where: w, What: why, Skipped: true})
}

// maxPerRule is how many findings of one rule a frame reports; the rest
// are counted in one more (tellOver).
const maxPerRule = 5

// frameRules applies the frame-level rules (and the records rules the
// decoder's own checks stand for) to one side.
func (a *analysis) frameRules(side Side, ff *frameFacts) {
	if !ff.Present {
		return
	}
	if api := a.versionUnknown(); api != nil {
		// The codec read the frame with the newest layout it knows, so
		// what that layout finds wrong says nothing of the frame. The
		// version itself is judged with the connection's (Checker.version).
		if side == Response {
			a.skip(FrameDecode, a.where(side), "the response to "+api.Name+" v"+itoa(int(a.ver))+", a version past kwire's schemas (v"+itoa(int(api.Valid().Hi))+"), is not judged (it was read with that layout)")
		}
		return
	}
	if ff.HeaderMismatch {
		kind := "request"
		if ff.Response {
			kind = "response"
		}
		a.add(FrameHeaderVersion, a.at(side, 4, 0, "header"),
			"the "+apiName(ff.APIKey)+" v"+itoa(int(ff.Version))+" "+kind+" was written with the wrong header version",
			kind+" header v"+itoa(int(ff.HeaderExpected)), kind+" header v"+itoa(int(ff.HeaderWritten)))
		return
	}
	if e := ff.Err; e != nil {
		if e.Limit {
			a.skip(FrameDecode, a.at(side, e.Offset, e.Buf, e.Path), "a decoding limit stopped this frame: "+e.Expected)
		} else {
			r := classifyFailure(e)
			what := "the frame does not decode"
			switch r {
			case FrameSize:
				what = "the size prefix disagrees with the body"
			case FrameAPI:
				what = "no such API or version"
			case FrameNegative:
				what = "a negative length or count"
			}
			a.add(r, a.at(side, e.Offset, e.Buf, e.Path), what, e.Expected, e.Found)
		}
	}
	produce := !ff.Response && ff.APIKey == schema.KeyProduce
	for _, w := range ff.Warnings {
		if w.Limit {
			a.skip(RecordsCount, a.at(side, w.Offset, w.Buf, w.Path), "a decoding limit cut this frame short: "+w.Message)
			continue
		}
		r := classifyWarning(w.Message, strings.Contains(w.Path, "records"))
		if r == nil || r == RecordsTruncated && !produce {
			// A Fetch response may end inside a batch (the broker cuts at
			// the byte limit); only produced batches must be whole.
			continue
		}
		a.add(r, a.at(side, w.Offset, w.Buf, w.Path), w.Message, "", "")
	}
	for _, e := range ff.Enums {
		if !e.Named {
			a.add(FrameEnum, a.at(side, e.Offset, 0, e.Path), "a value outside the "+e.Enum+" enumeration",
				article(e.Enum)+" "+e.Enum+" value", i64(e.Value))
		}
	}
	if produce && ff.HasAcks && ff.Acks != -1 && ff.Acks != 0 && ff.Acks != 1 {
		a.add(FrameEnum, a.at(side, ff.AcksAt, 0, "body.acks"), "acks must be -1 (all), 0 (none) or 1 (leader)", "-1, 0 or 1", itoa(int(ff.Acks)))
	}
	if !ff.Response && ff.APIKey == schema.KeyFetch && ff.HasSession && ff.Err == nil {
		a.fetchSessionFields(ff)
	}
	a.saslMessage(side, &ff.SASL)
}

// fetchSessionFields applies frame.fetch-session and
// frame.fetch-forgotten to a Fetch request's session fields, as Kafka's
// FetchManager.newContext reads them: epoch 0 or -1 is a full fetch (0
// asks for a session, closing the one named; -1 asks for none), whose
// forgotten topics it ignores; any other epoch continues the session
// named, which it looks up (FETCH_SESSION_ID_NOT_FOUND for session id 0,
// which no session has) and whose epoch it compares
// (INVALID_FETCH_SESSION_EPOCH: a session's epochs are 1 and more).
func (a *analysis) fetchSessionFields(ff *frameFacts) {
	id, e := ff.SessionID, ff.SessionEpoch
	epochAt := a.at(Request, ff.SessionEpochAt, 0, "body.sessionEpoch")
	switch {
	case e < -1:
		a.add(FrameFetchSession, epochAt, "session epoch "+itoa(int(e))+" is no epoch: -1 asks for no session, 0 for a new one, and a session's fetches count from 1 (Kafka answers FETCH_SESSION_ID_NOT_FOUND or INVALID_FETCH_SESSION_EPOCH)",
			"-1, 0, or the session's next epoch (1 or more)", "epoch "+itoa(int(e)))
	case id == 0 && e > 0:
		a.add(FrameFetchSession, epochAt, "an incremental fetch (epoch "+itoa(int(e))+") of no session (session id 0): Kafka answers FETCH_SESSION_ID_NOT_FOUND",
			"epoch 0 (ask for a session) or -1 (no session) with session id 0", "session id 0, epoch "+itoa(int(e)))
	}
	if ff.Forgotten > 0 && (e == 0 || e == -1) {
		what := "forgotten topics in a full fetch (epoch " + itoa(int(e)) + "), which continues no session: Kafka ignores them, and the partitions it fetches are those the request lists"
		a.add(FrameFetchForgotten, a.at(Request, ff.ForgottenAt, 0, "body.forgottenTopicsData"), what,
			"no forgotten topics", itoa(ff.Forgotten)+" topics")
	}
}

// saslMessage applies frame.sasl to a SASL message: SaslAuthenticate's,
// or a raw token's.
func (a *analysis) saslMessage(side Side, s *saslFacts) {
	at := func(name string) Where {
		_, off, _ := s.part(name)
		return a.at(side, off, 0, s.Path+"."+name)
	}
	switch s.Mechanism + " " + s.Kind {
	case "PLAIN client-initial", "SCRAM client-first":
		z, _, _ := s.part("authzid")
		u, _, _ := s.part("username")
		if z != "" && z != u {
			a.add(FrameSASL, at("authzid"), s.Mechanism+" asks for the authorization id "+strconv.Quote(z)+", not the user "+strconv.Quote(u)+": Kafka's broker refuses it",
				"no authorization id, or "+strconv.Quote(u), strconv.Quote(z))
		}
		if f, _, _ := s.part("channelBindingFlag"); s.Mechanism == "SCRAM" && f != "n" {
			a.add(FrameSASL, at("channelBindingFlag"), "SCRAM's first message asks for channel binding, which Kafka's broker does not read", `"n"`, strconv.Quote(f))
		}
		if s.Mechanism == "SCRAM" && !scramNameEscaped(u) {
			a.add(FrameSASL, at("username"), "SCRAM's username holds an '=' that escapes neither ',' (=2C) nor '=' (=3D): Kafka's broker refuses it",
				"',' written =2C and '=' written =3D", strconv.Quote(u))
		}
	case "OAUTHBEARER client-initial":
		if claims, _, ok := s.part("jwtClaims"); ok {
			a.bearerClaims(claims, at("jwtClaims"))
		}
	case "SCRAM server-first":
		if it, _, _ := s.part("iterations"); atoi(it) < 4096 {
			a.add(FrameSASL, at("iterations"), "SCRAM asks for "+it+" iterations: the Java client refuses fewer than 4096", "at least 4096", it)
		}
	}
}

// bearerClockSkew is how far past its expiry Kafka's broker still takes
// a bearer token, and how far ahead of its clock a token may say it was
// issued or becomes valid: sasl.oauthbearer.clock.skew.seconds' default
// (the unsecured validator's default skew is none; a token inside the
// skew is not flagged).
const bearerClockSkew = 30 * time.Second

// bearerClaims applies frame.sasl to a JWT's claims (JSON text, at w), as
// Kafka's two validators read them (BrokerJwtValidator, which checks a
// token's signature; the unsecured one, for development): it names its
// subject (sub), says when it was issued (iat) and expires (exp), exp
// after iat; and, when the exchange's time is known, it had not expired
// when it was sent, and was neither issued nor valid (nbf) only later.
func (a *analysis) bearerClaims(claims string, w Where) {
	// jsontext's parser, not encoding/json's reflection: capture.wasm,
	// which runs the rules, took 142 KB gzip more for json.Unmarshal.
	v, err := jsontext.Parse([]byte(claims))
	c, ok := v.(map[string]any)
	if err != nil || !ok {
		return // the codec read it as a JSON object; not one that parses whole is not judged
	}
	if sub, ok := c["sub"].(string); !ok || strings.TrimSpace(sub) == "" {
		found := "none"
		if x, ok := c["sub"]; ok {
			found = jsonText(x)
		}
		a.add(FrameSASL, w, "OAUTHBEARER's JWT names no subject: Kafka's broker takes the principal from its sub claim (sasl.oauthbearer.sub.claim.name, by default) and refuses a token without one",
			"sub, a string that is not blank", found)
	}
	exp, hasExp := a.bearerTime(c, "exp", w)
	if _, ok := c["exp"]; !ok {
		a.add(FrameSASL, w, "OAUTHBEARER's JWT has no exp claim: Kafka's broker refuses a token that does not say when it expires", "an exp claim", "none")
	}
	iat, hasIat := a.bearerTime(c, "iat", w)
	if _, ok := c["iat"]; !ok {
		a.add(FrameSASL, w, "OAUTHBEARER's JWT has no iat claim: Kafka's broker refuses it with the validator that checks signatures (BrokerJwtValidator requires when a token was issued; the unsecured one does not)", "an iat claim", "none")
	}
	if hasExp && hasIat && !exp.After(iat) {
		a.add(FrameSASL, w, "OAUTHBEARER's JWT expires at "+timetext.RFC3339(exp)+", not after it was issued at "+timetext.RFC3339(iat)+": Kafka's unsecured validator refuses it",
			"exp after iat", "exp "+timetext.RFC3339(exp)+", iat "+timetext.RFC3339(iat))
	}
	nbf, hasNbf := a.bearerTime(c, "nbf", w)
	sent := a.x.RequestTime
	if sent.IsZero() {
		return
	}
	if late := sent.Sub(exp); hasExp && late > bearerClockSkew {
		a.add(FrameSASL, w, "OAUTHBEARER's JWT expired at "+timetext.RFC3339(exp)+", "+timetext.Duration(late.Round(time.Second))+
			" before it was sent (by the capture's or the proxy's clock): Kafka's broker refuses it, allowing "+timetext.Duration(bearerClockSkew)+" of clock skew by default",
			"exp after "+timetext.RFC3339(sent.Add(-bearerClockSkew).UTC()), jsonText(c["exp"])+" ("+timetext.RFC3339(exp)+")")
	}
	if early := iat.Sub(sent); hasIat && early > bearerClockSkew {
		a.add(FrameSASL, w, "OAUTHBEARER's JWT was issued at "+timetext.RFC3339(iat)+", "+timetext.Duration(early.Round(time.Second))+
			" after it was sent (by the capture's or the proxy's clock): Kafka's unsecured validator refuses a token issued in the future",
			"iat before "+timetext.RFC3339(sent.Add(bearerClockSkew).UTC()), jsonText(c["iat"])+" ("+timetext.RFC3339(iat)+")")
	}
	if early := nbf.Sub(sent); hasNbf && early > bearerClockSkew {
		a.add(FrameSASL, w, "OAUTHBEARER's JWT is not valid before "+timetext.RFC3339(nbf)+", "+timetext.Duration(early.Round(time.Second))+
			" after it was sent (by the capture's or the proxy's clock): Kafka's broker refuses a token not yet valid, allowing "+timetext.Duration(bearerClockSkew)+" of clock skew by default",
			"nbf before "+timetext.RFC3339(sent.Add(bearerClockSkew).UTC()), jsonText(c["nbf"])+" ("+timetext.RFC3339(nbf)+")")
	}
}

// bearerTime reads claim name of c, a JWT's claims at w, as a NumericDate
// (seconds since 1970, a fraction allowed): false when it is absent, or
// is no time, which is a frame.sasl finding (Kafka's validators refuse a
// malformed claim).
func (a *analysis) bearerTime(c map[string]any, name string, w Where) (time.Time, bool) {
	raw, ok := c[name]
	if !ok {
		return time.Time{}, false
	}
	n, _ := raw.(json.Number)
	s, err := n.Float64()
	if err != nil || math.Abs(s) > 1e11 {
		a.add(FrameSASL, w, "OAUTHBEARER's JWT has "+article(name)+" "+name+" claim that is no time: Kafka's broker refuses it", name+" as seconds since 1970", jsonText(raw))
		return time.Time{}, false
	}
	sec := math.Floor(s)
	return time.Unix(int64(sec), int64((s-sec)*1e9)).UTC(), true
}

// jsonText is a parsed JSON value as a finding shows it: a number's,
// string's or bool's text, else its kind as the encoders say it.
func jsonText(v any) string {
	switch v := v.(type) {
	case json.Number:
		return v.String()
	case string:
		return strconv.Quote(v)
	case bool:
		return strconv.FormatBool(v)
	}
	return records.KindOf(v)
}

// scramNameEscaped reports whether a SCRAM saslname uses '=' only in RFC
// 5802's escapes, as Kafka's ScramFormatter.username reads it: "=2C"
// turned into ',' first, then no '=' left but in "=3D".
func scramNameEscaped(name string) bool {
	return !strings.Contains(strings.ReplaceAll(strings.ReplaceAll(name, "=2C", ","), "=3D", ""), "=")
}

// versionUnknown is the exchange's API when its request's version is
// past the newest that API has; nil otherwise, and for ApiVersions, which a
// client may send at a version the broker does not know (KIP-511: the
// broker answers at v0 with its range). A version below the API's range
// fails to decode, a frame.api finding of its own.
func (a *analysis) versionUnknown() *schema.API {
	if a.key == schema.KeyApiVersions || a.ver < 0 {
		return nil
	}
	api := schema.ByKey(a.key)
	if api == nil || a.ver <= api.Valid().Hi {
		return nil
	}
	return api
}

func apiName(key int16) string {
	if a := schema.ByKey(key); a != nil {
		return a.Name
	}
	return "API " + itoa(int(key))
}

// Offsets of a batch header's fields (magic 2).
const (
	batchMagic           = 16
	batchAttributes      = 21
	batchLastOffsetDelta = 23
	batchBaseTimestamp   = 27
	batchMaxTimestamp    = 35
	batchProducerID      = 43
	batchProducerEpoch   = 51
	batchBaseSequence    = 53
	batchRecordCount     = 57
)

// recordsRules applies the records rules that read batch headers against
// their records and the request around them.
func (a *analysis) recordsRules() {
	switch {
	case a.req.Present && a.req.Err == nil && !a.req.HeaderMismatch && a.req.APIKey == schema.KeyProduce:
		a.produceRecords(&a.req)
	case a.rsp.Present && a.rsp.Err == nil && !a.rsp.HeaderMismatch && a.rsp.APIKey == schema.KeyFetch && !a.rsp.Guessed:
		a.fetchRecords(&a.rsp)
	}
}

func (a *analysis) batchAt(side Side, b *batchFacts, field int, name string) Where {
	p := b.path()
	if name != "" {
		p += "." + name
	}
	return a.at(side, b.Offset+field, b.Buf, p)
}

// fetchMaxMagic is the newest record format a Fetch version may carry.
func fetchMaxMagic(v int16) int8 {
	switch {
	case v <= 1:
		return 0
	case v <= 3:
		return 1
	}
	return 2
}

func (a *analysis) produceRecords(ff *frameFacts) {
	v := ff.Version
	for i := range ff.Parts {
		p := &ff.Parts[i]
		if v >= 3 && p.HasRecords {
			switch {
			case len(p.Batches) == 0:
				a.add(RecordsMagic, a.atPath(Request, p.loc.path()+".records"), "Produce v"+itoa(int(v))+" carries no record batch for "+tp(p),
					"exactly one batch of magic 2", "none")
			case len(p.Batches) > 1:
				a.add(RecordsMagic, a.batchAt(Request, &p.Batches[1], 0, ""), "Produce v"+itoa(int(v))+" carries more than one batch for "+tp(p),
					"exactly one batch of magic 2", itoa(len(p.Batches))+" batches")
			}
		}
		for j := range p.Batches {
			b := &p.Batches[j]
			if b.Partial {
				continue
			}
			if v >= 3 && b.Magic != 2 {
				a.add(RecordsMagic, a.batchAt(Request, b, batchMagic, "magic"), "Produce v"+itoa(int(v))+" carries record batches of magic 2 only",
					"magic 2", "magic "+itoa(int(b.Magic)))
				continue
			}
			if b.Magic != 2 {
				continue
			}
			a.producedBatch(ff, p, b)
		}
	}
}

// producedBatch checks a magic-2 batch a client produced.
func (a *analysis) producedBatch(ff *frameFacts, p *partFacts, b *batchFacts) {
	if c := b.codec(); c > 4 {
		a.add(RecordsCodec, a.batchAt(Request, b, batchAttributes, "attributes"), "the attributes name no compression codec", "0-4 (none, gzip, snappy, lz4, zstd)", itoa(c))
	} else if c == 4 && ff.Version < 7 {
		a.add(RecordsCodec, a.batchAt(Request, b, batchAttributes, "attributes"), "zstd batches need Produce v7 or later", "Produce v7+", "v"+itoa(int(ff.Version)))
	}
	if b.control() {
		a.add(RecordsControl, a.batchAt(Request, b, batchAttributes, "attributes"), "a client produced a control batch (only brokers write them)", "control bit 0", "1")
	}
	if b.BaseOffset != 0 && b == &p.Batches[0] {
		// UnifiedLog.analyzeAndValidateRecords judges the first batch of
		// a client's append: "should be 0".
		a.add(RecordsOffsetDelta, a.batchAt(Request, b, 0, "baseOffset"), "a produced batch's baseOffset is 0 (the broker assigns the offsets)", "0", i64(b.BaseOffset))
	}
	switch {
	case b.RecordCount <= 0:
		a.add(RecordsOffsetDelta, a.batchAt(Request, b, batchRecordCount, "recordCount"), "a produced batch holds at least one record", "a recordCount of 1 or more", itoa(int(b.RecordCount)))
	case int64(b.LastOffsetDelta)+1 != int64(b.RecordCount):
		a.add(RecordsOffsetDelta, a.batchAt(Request, b, batchLastOffsetDelta, "lastOffsetDelta"), "lastOffsetDelta disagrees with recordCount "+itoa(int(b.RecordCount)),
			itoa(int(b.RecordCount)-1), itoa(int(b.LastOffsetDelta)))
	case b.AllRead && !b.DeltasCount:
		a.add(RecordsOffsetDelta, a.at(Request, b.FirstDeltaOffset, b.Buf, b.path()+".records["+itoa(b.FirstDeltaBad)+"].offsetDelta"),
			"a produced batch's records have offsetDeltas 0, 1, 2...", itoa(b.FirstDeltaBad), "another")
	}
	if b.Parsed > 0 && b.FirstTSDelta != 0 {
		a.add(RecordsFirstTimestamp, a.batchAt(Request, b, batchBaseTimestamp, "baseTimestamp"), "the first record's timestamp is not the batch's firstTimestamp",
			"timestampDelta 0", "timestampDelta "+i64(b.FirstTSDelta))
	}
	if b.AllRead && b.Parsed > 0 && !b.logAppendTime() && b.MaxTimestamp != b.MaxRecordTS {
		a.add(RecordsMaxTimestamp, a.batchAt(Request, b, batchMaxTimestamp, "maxTimestamp"), "maxTimestamp is not the largest record timestamp",
			i64(b.MaxRecordTS), i64(b.MaxTimestamp))
	}
	switch {
	case b.ProducerID >= 0 && b.BaseSequence < 0:
		a.add(RecordsProducer, a.batchAt(Request, b, batchBaseSequence, "baseSequence"), "a batch with producer id "+i64(b.ProducerID)+" has no sequence",
			"a baseSequence of 0 or more", itoa(int(b.BaseSequence)))
	case b.ProducerID >= 0 && b.ProducerEpoch < 0:
		a.add(RecordsProducer, a.batchAt(Request, b, batchProducerEpoch, "producerEpoch"), "a batch with producer id "+i64(b.ProducerID)+" has no epoch",
			"a producerEpoch of 0 or more", itoa(int(b.ProducerEpoch)))
	case b.transactional() && b.ProducerID < 0:
		a.add(RecordsProducer, a.batchAt(Request, b, batchProducerID, "producerId"), "a transactional batch has no producer id", "a producerId of 0 or more", i64(b.ProducerID))
	case b.transactional() && !ff.HasTxnID:
		a.add(RecordsProducer, a.atPath(Request, "body.transactionalId"), "a transactional batch in a request without a transactional id",
			"the producer's transactionalId", "null")
	}
}

func (a *analysis) fetchRecords(ff *frameFacts) {
	mx := fetchMaxMagic(ff.Version)
	for i := range ff.Parts {
		p := &ff.Parts[i]
		for j := range p.Batches {
			b := &p.Batches[j]
			if b.Partial {
				continue
			}
			if b.Magic > mx {
				a.add(RecordsMagic, a.batchAt(Response, b, batchMagic, "magic"), "Fetch v"+itoa(int(ff.Version))+" cannot carry records of magic "+itoa(int(b.Magic)),
					"magic "+itoa(int(mx))+" or older", "magic "+itoa(int(b.Magic)))
				continue
			}
			if b.Magic != 2 {
				continue
			}
			if c := b.codec(); c > 4 {
				a.add(RecordsCodec, a.batchAt(Response, b, batchAttributes, "attributes"), "the attributes name no compression codec", "0-4 (none, gzip, snappy, lz4, zstd)", itoa(c))
			}
			if b.control() && b.BadMarker != "" {
				a.add(RecordsMarker, a.at(Response, b.BadMarkerOffset, b.BadMarkerBuf, b.path()+".records["+itoa(b.BadMarkerRec)+"].value"),
					"a transaction marker's value is no EndTxnMarker", "an int16 version of 0 or more and the coordinator's int32 epoch, 6 bytes", b.BadMarker)
			}
			if b.AllRead && b.Parsed > 0 && (!b.DeltasAscend || b.LastDelta > int64(b.LastOffsetDelta)) {
				a.add(RecordsOffsetDelta, a.batchAt(Response, b, batchLastOffsetDelta, "lastOffsetDelta"), "the records' offsetDeltas ascend to at most lastOffsetDelta",
					"at most "+itoa(int(b.LastOffsetDelta)), i64(b.LastDelta))
			}
			whole := int64(b.LastOffsetDelta)+1 == int64(b.RecordCount) // not compacted
			if whole && b.AllRead && b.Parsed > 0 && !b.logAppendTime() && !b.control() && b.MaxTimestamp != b.MaxRecordTS {
				a.add(RecordsMaxTimestamp, a.batchAt(Response, b, batchMaxTimestamp, "maxTimestamp"), "maxTimestamp is not the largest record timestamp",
					i64(b.MaxRecordTS), i64(b.MaxTimestamp))
			}
		}
	}
}

func tp(p *partFacts) string { return p.Topic + "-" + itoa(int(p.Partition)) }
