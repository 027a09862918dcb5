package check

// This file is the one place the package reads decoded frames through the
// codec's API (codec.Decoder, Frame, tree nodes and lookups, records
// results): it turns a frame into frameFacts, which own their data, and
// nothing else in the package imports codec or codec/tree. When the
// codec's API changes, this file alone moves.

import (
	"encoding/base64"
	"errors"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// reader decodes frames for the rules, reusing its decoders' memory.
type reader struct {
	dec    codec.Decoder
	path   []pathSeg
	limits codec.Limits
	js     []byte              // the tree-less path's output, thrown away
	names  map[string]string   // topic names, interned (at most maxNames)
	trees  map[msgVersion]bool // which frames the rules read values of
	spent  codec.Limits        // what its decodes spent, summed (Analyzer.Spent)
}

// decode decodes b with the reader's decoder, adding what it spent to
// r.spent.
func (r *reader) decode(b []byte, o codec.Options) (*codec.Frame, error) {
	f, err := r.dec.Decode(b, o)
	r.spend(f, len(b))
	return f, err
}

// spend adds what decoding a frame of n bytes into f spent to r.spent (a
// frame the decoder gave none for counts its bytes as work).
func (r *reader) spend(f *codec.Frame, n int) {
	if f == nil {
		r.spent.MaxWork += n
		return
	}
	r.spent.MaxNodes += f.Spent.MaxNodes
	r.spent.MaxDecompressed += f.Spent.MaxDecompressed
	r.spent.MaxWork += f.Spent.MaxWork
}

type msgVersion struct {
	key, ver int16
	response bool
}

// maxNames bounds the topic names a reader keeps.
const maxNames = 4096

type pathSeg struct {
	name string
	idx  int // -1: a field
}

// readFrame decodes b (a request, or a response of key and version, or a
// response to guess when key is -1) into ff.
func (r *reader) readFrame(b []byte, response bool, key, ver int16, ff *frameFacts) {
	*ff = frameFacts{Present: true, Response: response, Len: len(b), APIKey: key, Version: ver}
	if s, ok := wire.SizePrefix(b); ok {
		ff.Size = s
	}
	o := codec.Options{Limits: r.limits}
	if response {
		o = codec.Options{Response: true, APIKey: key, Version: ver, Limits: r.limits}
		if key < 0 {
			o.APIKey, o.Version = codec.Any, codec.Any
		}
	} else if len(b) >= 8 {
		key = int16(uint16(b[4])<<8 | uint16(b[5]))
		ver = int16(uint16(b[6])<<8 | uint16(b[7]))
	}
	if treeLess && key >= 0 && !r.needsTree(key, ver, response) && r.readValueless(b, o, ff) {
		return
	}
	f, err := r.decode(b, o)
	if f == nil {
		ff.Err = failureOf(err)
		return
	}
	ff.APIKey, ff.Version = f.APIKey, f.Version
	ff.Known = f.API != nil
	ff.Newer = f.Assumed
	ff.Flexible = f.Flexible
	ff.Corr = f.CorrelationID
	ff.Guessed = f.Guess != nil
	if !response && f.Header != nil {
		ff.ClientID, _ = strOf(f.Header.Get("clientId"))
	}
	if response && f.Guess != nil && len(f.Guess.Candidates) == 0 {
		ff.Err = &decodeFailure{Expected: "a response of some API", Found: "none fits"}
		return
	}
	if err != nil {
		ff.Err = failureOf(err)
	}
	clean := err == nil
	for _, w := range f.Warnings {
		ff.Warnings = append(ff.Warnings, warning{Offset: w.Offset, Buf: w.Buf, Path: w.Path, Message: w.Message, Limit: w.Limit})
		if !w.Limit {
			clean = false
		}
	}
	if !clean && f.Message != nil && !ff.Guessed {
		r.otherHeader(b, f, ff)
	}
	if f.Body == nil || ff.HeaderMismatch {
		return
	}
	r.enums(f.Body, f.APIKey, ff)
	r.body(f, ff)
}

// readValueless reads a frame whose values no rule reads on the codec's
// tree-less path (as kwire pcap does), keeping its warnings and error
// codes. It reports false, having read nothing into ff, when the frame
// fails or warns: the tree then says more (the header version it was
// written with).
func (r *reader) readValueless(b []byte, o codec.Options, ff *frameFacts) bool {
	var info *codec.Frame
	var err error
	r.js, info, err = r.dec.AppendJSON(r.js[:0], b, o)
	r.spend(info, len(b))
	if cap(r.js) > 1<<20 {
		r.js = nil
	}
	if err != nil || info.API == nil {
		return false
	}
	for _, w := range info.Warnings {
		if !w.Limit {
			return false
		}
	}
	ff.APIKey, ff.Version, ff.Known, ff.Corr = info.APIKey, info.Version, true, info.CorrelationID
	for _, w := range info.Warnings {
		ff.Warnings = append(ff.Warnings, warning{Offset: w.Offset, Buf: w.Buf, Path: w.Path, Message: w.Message, Limit: w.Limit})
	}
	for _, c := range info.ErrorCodes() {
		if ff.ErrorCode == 0 || c.Code == errUnsupportedVersion {
			ff.ErrorCode = c.Code
		}
	}
	return true
}

// needsTree reports whether the rules read values of a frame: those of
// the APIs the connection and conversation rules follow, and any whose
// layout holds an enumerated field.
func (r *reader) needsTree(key, ver int16, response bool) bool {
	switch key {
	case schema.KeyProduce, schema.KeyFetch, schema.KeyListOffsets, schema.KeyApiVersions, schema.KeyAddPartitionsToTxn,
		schema.KeyInitProducerId, schema.KeyEndTxn, schema.KeyAddOffsetsToTxn, schema.KeyOffsetForLeaderEpoch:
		return !response || key != schema.KeyProduce && key != schema.KeyAddPartitionsToTxn && key != schema.KeyEndTxn && key != schema.KeyAddOffsetsToTxn
	case schema.KeyOffsetCommit, schema.KeyTxnOffsetCommit, schema.KeyHeartbeat, schema.KeySyncGroup:
		return !response
	case schema.KeyJoinGroup, schema.KeyLeaveGroup, schema.KeyConsumerGroupHeartbeat:
		return true // the answers' member ids, generations and epochs (LeaveGroup's: each member's error)
	case schema.KeySaslAuthenticate, schema.KeySaslHandshake:
		return true // SaslHandshake's answer for its mechanisms (conn.sasl-handshake)
	case schema.KeyOffsetFetch:
		return true // the request for its client id: the consumer it resets
	case schema.KeyMetadata:
		if response {
			return true // topic ids, from v10
		}
	}
	k := msgVersion{key, ver, response}
	need, ok := r.trees[k]
	if !ok {
		var m *schema.Message
		if a := schema.ByKey(key); a != nil {
			m = a.Request
			if response {
				m = a.Response
			}
		}
		need = true // unknown: the tree says why
		if m != nil {
			if d := m.At(min(max(ver, m.Valid.Lo), m.Valid.Hi)); d != nil {
				need = hasEnum(d.Root, key, ver, 0)
			}
		}
		if r.trees == nil {
			r.trees = map[msgVersion]bool{}
		}
		r.trees[k] = need
	}
	return need
}

// hasEnum reports whether layout l holds, at version v, a field whose
// values come from an enumeration.
func hasEnum(l *schema.Layout, key, v int16, depth int) bool {
	if l == nil || depth > 32 {
		return false
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) {
			continue
		}
		if schema.EnumFor(key, f) != nil || hasEnum(f.Struct, key, v, depth+1) {
			return true
		}
	}
	return false
}

func failureOf(err error) *decodeFailure {
	var de *codec.DecodeError
	if errors.As(err, &de) {
		return &decodeFailure{Offset: de.Offset, Buf: de.Buf, Path: de.Path, Expected: de.Expected, Found: de.Found,
			Limit: errors.Is(err, budget.ErrLimit)}
	}
	if err == nil {
		return nil
	}
	return &decodeFailure{Expected: "a frame", Found: err.Error()}
}

// otherHeader tries the body after the header version the API version
// does not call for (v1 for v2 and back for requests, v0 for v1 and back
// for responses): a frame that reads cleanly so was written with the
// wrong one.
func (r *reader) otherHeader(b []byte, f *codec.Frame, ff *frameFacts) {
	hv := f.HeaderVersion
	var end int
	var other int16
	if !f.Response {
		if len(b) < 14 {
			return
		}
		cl := int(int16(uint16(b[12])<<8 | uint16(b[13])))
		end = 14 + max(cl, 0)
		switch hv {
		case 2:
			other = 1
		case 1:
			other = 2
			end = skipTagSection(b, end)
		default:
			return
		}
	} else {
		end = 8
		switch hv {
		case 1:
			other = 0
		case 0:
			other = 1
			end = skipTagSection(b, end)
		default:
			return
		}
	}
	if end < 0 || end > len(b) {
		return
	}
	po := r.probe()
	po.Body, po.APIKey, po.Version, po.Response = true, f.APIKey, f.Version, f.Response
	g, err := codec.Decode(b[end:], po)
	r.spend(g, len(b)-end)
	if err != nil || g == nil {
		return
	}
	for _, w := range g.Warnings {
		if !w.Limit {
			return
		}
	}
	ff.HeaderMismatch, ff.HeaderWritten, ff.HeaderExpected = true, other, hv
}

// skipTagSection returns the offset after the tagged-field section at
// off, or -1.
func skipTagSection(b []byte, off int) int {
	if off > len(b) {
		return -1
	}
	n, k, _ := wire.Uvarint(b[off:])
	if k <= 0 {
		return -1
	}
	off += k
	for i := uint32(0); i < n; i++ {
		if off > len(b) {
			return -1
		}
		_, k, _ = wire.Uvarint(b[off:])
		if k <= 0 {
			return -1
		}
		off += k
		size, k, _ := wire.Uvarint(b[off:])
		if k <= 0 || int(size) > len(b)-off-k {
			return -1
		}
		off += k + int(size)
	}
	return off
}

// enums records every enumerated field of the body outside records and
// nested payloads.
func (r *reader) enums(body *tree.Node, key int16, ff *frameFacts) {
	r.path = append(r.path[:0], pathSeg{"body", -1})
	r.walkEnums(body, key, ff)
}

func (r *reader) walkEnums(n *tree.Node, key int16, ff *frameFacts) {
	for _, c := range n.Children {
		switch {
		case c.Role == tree.RoleTags:
			r.walkEnums(c, key, ff)
			continue
		case c.Role == tree.RoleElement:
			r.path = append(r.path, pathSeg{"", c.Index})
		case c.Role == tree.RoleField && c.Field != nil:
			r.path = append(r.path, pathSeg{c.Field.JSON, -1})
		default:
			continue
		}
		switch {
		case c.Kind == schema.Struct || c.Kind == schema.Array || c.Role == tree.RoleElement:
			r.walkEnums(c, key, ff)
		case c.Field != nil:
			if e := schema.EnumFor(key, c.Field); e != nil {
				ff.Enums = append(ff.Enums, enumValue{Offset: c.Start, Path: r.pathString(), Enum: e.Name, Value: c.Int, Named: e.ValueName(c.Int) != ""})
			}
		}
		r.path = r.path[:len(r.path)-1]
	}
}

func (r *reader) pathString() string {
	var b []byte
	for i, s := range r.path {
		if s.idx >= 0 {
			b = append(b, '[')
			b = jsontext.AppendInt(b, int64(s.idx))
			b = append(b, ']')
			continue
		}
		if i > 0 {
			b = append(b, '.')
		}
		b = append(b, s.name...)
	}
	return string(b)
}

// body reads what the connection and conversation rules need of the APIs
// they follow, and the records of Produce requests and Fetch responses.
func (r *reader) body(f *codec.Frame, ff *frameFacts) {
	b := f.Body
	ff.ErrorCode = int16(intOf(b.Get("errorCode")))
	switch f.APIKey {
	case schema.KeyProduce:
		if f.Response {
			r.eachPart(b, "responses", "partitionResponses", "index", func(p *partFacts, n *tree.Node) {
				p.ErrorCode = int16(intOf(n.Get("errorCode")))
			}, ff)
			return
		}
		ff.TxnID, ff.HasTxnID = strOf(b.Get("transactionalId"))
		if n := b.Get("acks"); n != nil {
			ff.Acks, ff.AcksAt, ff.HasAcks = int16(n.Int), n.Start, true
		}
		r.eachPart(b, "topicData", "partitionData", "index", func(p *partFacts, n *tree.Node) {
			r.records(f, n.Get("records"), p)
		}, ff)
	case schema.KeyFetch:
		// Both sides name the session (KIP-227); a request also says its
		// epoch and the topics it forgets.
		if n := b.Get("sessionId"); n != nil {
			ff.HasSession, ff.SessionID, ff.SessionIDAt = true, int32(n.Int), n.Start
		}
		if f.Response {
			if n := b.Get("errorCode"); n != nil {
				ff.ErrorCodeAt = n.Start
			}
			ff.ThrottleMs = int32(intOf(b.Get("throttleTimeMs")))
			r.eachPart(b, "responses", "partitions", "partitionIndex", func(p *partFacts, n *tree.Node) {
				p.ErrorCode = int16(intOf(n.Get("errorCode")))
				p.HighWatermark = intOf(n.Get("highWatermark"))
				if d := n.Get("divergingEpoch"); d != nil {
					// Absent, or epoch -1: no divergence.
					if e := d.Get("epoch"); e != nil && e.Int >= 0 {
						p.Truncate, p.HasTruncate = intOf(d.Get("endOffset")), true
					}
				}
				r.records(f, n.Get("records"), p)
			}, ff)
			return
		}
		if e := b.Get("sessionEpoch"); e != nil {
			ff.SessionEpoch, ff.SessionEpochAt = int32(e.Int), e.Start
		}
		if t := b.Get("forgottenTopicsData"); t != nil {
			ff.Forgotten, ff.ForgottenAt = len(elems(t)), t.Start
		}
		ff.ReplicaID = -1
		if n := b.Get("replicaId"); n != nil {
			ff.ReplicaID = int32(n.Int)
		} else if n := b.Get("replicaState").Get("replicaId"); n != nil { // Get, not Lookup: capture.wasm links no Lookup
			ff.ReplicaID = int32(n.Int)
		}
		r.eachPart(b, "topics", "partitions", "partition", func(p *partFacts, n *tree.Node) {
			p.Offset = intOf(n.Get("fetchOffset"))
			p.LeaderEpoch = -1
			if e := n.Get("currentLeaderEpoch"); e != nil {
				p.LeaderEpoch = int32(e.Int)
			}
		}, ff)
	case schema.KeyOffsetForLeaderEpoch:
		if f.Response {
			r.eachPart(b, "topics", "partitions", "partition", func(p *partFacts, n *tree.Node) {
				p.ErrorCode = int16(intOf(n.Get("errorCode")))
				p.Truncate, p.HasTruncate = intOf(n.Get("endOffset")), true
			}, ff)
		}
	case schema.KeyListOffsets:
		field := "timestamp"
		if f.Response {
			field = "offset"
		}
		r.eachPart(b, "topics", "partitions", "partitionIndex", func(p *partFacts, n *tree.Node) {
			p.ErrorCode = int16(intOf(n.Get("errorCode")))
			p.Offset = intOf(n.Get(field))
		}, ff)
	case schema.KeyOffsetCommit, schema.KeyTxnOffsetCommit:
		groupMember(b, ff)
		ff.TxnID, ff.HasTxnID = strOf(b.Get("transactionalId"))
		ff.ProducerID = intOf(b.Get("producerId"))
		r.eachPart(b, "topics", "partitions", "partitionIndex", func(p *partFacts, n *tree.Node) {
			p.ErrorCode = int16(intOf(n.Get("errorCode")))
			p.Offset = intOf(n.Get("committedOffset"))
		}, ff)
	case schema.KeyOffsetFetch:
		ff.Group, _ = strOf(b.Get("groupId"))
		if f.Response {
			r.eachPart(b, "topics", "partitions", "partitionIndex", func(p *partFacts, n *tree.Node) {
				p.Offset = intOf(n.Get("committedOffset"))
			}, ff)
			for _, g := range elems(b.Get("groups")) {
				r.eachPart(g, "topics", "partitions", "partitionIndex", func(p *partFacts, n *tree.Node) {
					p.Offset = intOf(n.Get("committedOffset"))
				}, ff)
			}
		}
	case schema.KeyJoinGroup, schema.KeyHeartbeat, schema.KeySyncGroup, schema.KeyConsumerGroupHeartbeat:
		groupMember(b, ff)
	case schema.KeyLeaveGroup:
		if f.Response {
			// v3+ answers each member; the first refusal stands for
			// them (the top-level code is the request's own).
			for _, m := range elems(b.Get("members")) {
				if c := int16(intOf(m.Get("errorCode"))); ff.ErrorCode == 0 {
					ff.ErrorCode = c
				}
			}
			return
		}
		groupMember(b, ff)
		for i, m := range elems(b.Get("members")) {
			l := leavingFacts{i: i}
			if n := m.Get("memberId"); n != nil {
				l.MemberID, _ = strOf(n)
				l.At = n.Start
			}
			_, l.HasInstanceID = strOf(m.Get("groupInstanceId"))
			ff.Leaving = append(ff.Leaving, l)
		}
	case schema.KeyInitProducerId, schema.KeyEndTxn, schema.KeyAddOffsetsToTxn:
		ff.TxnID, ff.HasTxnID = strOf(b.Get("transactionalId"))
		ff.ProducerID = intOf(b.Get("producerId"))
		ff.ProducerEpoch = int16(intOf(b.Get("producerEpoch")))
		ff.Group, _ = strOf(b.Get("groupId"))
		if n := b.Get("committed"); n != nil {
			ff.Commit = n.Int != 0
		}
	case schema.KeyAddPartitionsToTxn:
		if f.Response {
			// A coordinator that moved answers each partition so (v0-3
			// have no top-level error, v4+ clients' one transaction's).
			ts := elems(b.Get("resultsByTopicV3AndBelow"))
			for _, tx := range elems(b.Get("resultsByTransaction")) {
				ts = append(ts, elems(tx.Get("topicResults"))...)
			}
			for _, t := range ts {
				for _, p := range elems(t.Get("resultsByPartition")) {
					if c := int16(intOf(p.Get("partitionErrorCode"))); c == errNotCoordinator || c == errCoordinatorUnavailable {
						ff.ErrorCode = c
					}
				}
			}
			return
		}
		if ts := b.Get("transactions"); ts != nil {
			for _, t := range elems(ts) {
				var tx txnFacts
				tx.TxnID, _ = strOf(t.Get("transactionalId"))
				tx.ProducerID = intOf(t.Get("producerId"))
				tx.Epoch = int16(intOf(t.Get("producerEpoch")))
				if v := t.Get("verifyOnly"); v != nil {
					tx.VerifyOnly = v.Int != 0
				}
				tx.Parts = txnParts(t.Get("topics"), tx.Parts)
				ff.Txns = append(ff.Txns, tx)
			}
			return
		}
		var tx txnFacts
		tx.TxnID, _ = strOf(b.Get("v3AndBelowTransactionalId"))
		tx.ProducerID = intOf(b.Get("v3AndBelowProducerId"))
		tx.Epoch = int16(intOf(b.Get("v3AndBelowProducerEpoch")))
		tx.Parts = txnParts(b.Get("v3AndBelowTopics"), tx.Parts)
		ff.Txns = append(ff.Txns, tx)
	case schema.KeyMetadata:
		if !f.Response {
			return
		}
		for _, t := range elems(b.Get("topics")) {
			name, ok := strOf(t.Get("name"))
			id := t.Get("topicId")
			if ok && id != nil && len(id.Raw) == 16 {
				ff.Topics = append(ff.Topics, topicName{name, base64.RawURLEncoding.EncodeToString(id.Raw)})
			}
		}
	case schema.KeySaslHandshake:
		if f.Response {
			if ms := b.Get("mechanisms"); ms != nil {
				ff.MechanismsAt = ms.Start
				for _, m := range elems(ms) {
					s, _ := strOf(m)
					ff.Mechanisms = append(ff.Mechanisms, s)
				}
			}
			return
		}
		ff.Mechanism, _ = strOf(b.Get("mechanism"))
	case schema.KeySaslAuthenticate:
		ab := b.Get("authBytes")
		if ab == nil || len(ab.Children) == 0 {
			return
		}
		saslFactsOf(&ff.SASL, ab, "body.authBytes")
	case schema.KeyApiVersions:
		if !f.Response {
			return
		}
		for _, k := range elems(b.Get("apiKeys")) {
			ff.Ranges = append(ff.Ranges, apiRange{Key: int16(intOf(k.Get("apiKey"))),
				Lo: int16(intOf(k.Get("minVersion"))), Hi: int16(intOf(k.Get("maxVersion")))})
		}
	}
}

// groupMember reads a group request's or answer's group id, member id,
// generation (or member epoch) and whether it names a group instance
// id (a static member, KIP-345).
func groupMember(b *tree.Node, ff *frameFacts) {
	ff.Group, _ = strOf(b.Get("groupId"))
	if n := b.Get("memberId"); n != nil {
		ff.MemberID, _ = strOf(n)
		ff.MemberIDAt = n.Start
	}
	for _, name := range [...]string{"generationId", "generationIdOrMemberEpoch", "memberEpoch"} {
		if n := b.Get(name); n != nil {
			ff.Generation, ff.HasGeneration, ff.GenerationAt, ff.GenPath = int32(n.Int), true, n.Start, "body."+name
			break
		}
	}
	for _, name := range [...]string{"groupInstanceId", "instanceId"} {
		if _, ok := strOf(b.Get(name)); ok {
			ff.HasInstanceID = true
		}
	}
}

// saslFactsOf reads into s the SASL message the codec read at n (its
// children: mechanism, message, then the parts), at value-JSON path.
func saslFactsOf(s *saslFacts, n *tree.Node, path string) {
	s.At, s.Path = n.Start, path
	for _, c := range n.Children {
		text := string(c.Raw)
		if c.Kind == schema.Int32 {
			text = itoa(int(c.Int))
		}
		switch c.Name {
		case "mechanism":
			s.Mechanism = text
		case "message":
			s.Kind = text
		default:
			s.Parts = append(s.Parts, saslPart{Name: c.Name, Text: text, At: c.Start})
		}
	}
}

// readToken reads a raw SASL token (Exchange.SASLToken) into ff: its
// size, and the SASL message the codec reads in it, if any. A token is no
// Kafka frame, so nothing else of it is judged.
func (r *reader) readToken(b []byte, response bool, ff *frameFacts) {
	*ff = frameFacts{Present: true, Response: response, Len: len(b), APIKey: -1, Version: -1}
	if s, ok := wire.SizePrefix(b); ok {
		ff.Size = s
	}
	f, err := r.decode(b, codec.Options{Data: "sasl", Limits: r.limits})
	if err != nil || f == nil || f.Body == nil || len(f.Body.Children) == 0 {
		return
	}
	saslFactsOf(&ff.SASL, f.Body, "value")
}

// eachPart calls fn for every partition element of topics[].parts[] in
// body, with its topic, index and path filled in.
func (r *reader) eachPart(body *tree.Node, topics, parts, index string, fn func(*partFacts, *tree.Node), ff *frameFacts) {
	for i, t := range elems(body.Get(topics)) {
		name := r.topicOf(t)
		for j, p := range elems(t.Get(parts)) {
			pf := partFacts{Topic: name, Partition: int32(intOf(p.Get(index))), loc: partLoc{topics, parts, i, j}}
			fn(&pf, p)
			ff.Parts = append(ff.Parts, pf)
		}
	}
}

// txnParts lists AddPartitionsToTxn topics' partitions (arrays of int32).
func txnParts(ts *tree.Node, out []partFacts) []partFacts {
	for _, t := range elems(ts) {
		name, _ := strOf(t.Get("name"))
		for _, p := range elems(t.Get("partitions")) {
			out = append(out, partFacts{Topic: name, Partition: int32(p.Int)})
		}
	}
	return out
}

// elems are an array node's elements (none for nil or null).
func elems(n *tree.Node) []*tree.Node {
	if n == nil {
		return nil
	}
	kids := n.Children
	i := 0
	for i < len(kids) && kids[i].Role != tree.RoleElement {
		i++
	}
	j := i
	for j < len(kids) && kids[j].Role == tree.RoleElement {
		j++
	}
	return kids[i:j]
}

// topicOf is a topic element's name, or its id as Kafka prints it.
func (r *reader) topicOf(t *tree.Node) string {
	for _, k := range [...]string{"name", "topic"} {
		if n := t.Get(k); n != nil && !n.Null {
			if s, ok := r.names[string(n.Raw)]; ok {
				return s
			}
			s := string(n.Raw)
			if r.names == nil {
				r.names = map[string]string{}
			}
			if len(r.names) < maxNames {
				r.names[s] = s
			}
			return s
		}
	}
	if id := t.Get("topicId"); id != nil && len(id.Raw) == 16 {
		return base64.RawURLEncoding.EncodeToString(id.Raw)
	}
	return ""
}

func intOf(n *tree.Node) int64 {
	if n == nil {
		return 0
	}
	return n.Int
}

func strOf(n *tree.Node) (string, bool) {
	if n == nil || n.Null {
		return "", false
	}
	return string(n.Raw), true
}

// records reads the batches of a records field.
func (r *reader) records(f *codec.Frame, n *tree.Node, p *partFacts) {
	if n == nil || n.Null {
		return
	}
	p.HasRecords = true
	for i, e := range n.Children {
		var bf batchFacts
		bf.Offset, bf.Buf = e.Start, e.Buf
		bf.loc, bf.bi = p.loc, i
		bf.Partial = e.Flags&tree.Truncated != 0
		switch e.Type { // the records reader's entries, told by type as its other nodes are
		case "RecordBatch":
			bf.Magic = int8(e.Int)
			if bf.Partial {
				p.Batches = append(p.Batches, bf)
				continue
			}
			readBatch(e, &bf)
		case "Message":
			bf.Magic = int8(intOf(e.Get("magic")))
			bf.Attributes = int16(intOf(e.Get("attributes")))
			bf.RecordCount, bf.Parsed = 1, 1
		default:
			continue
		}
		p.Batches = append(p.Batches, bf)
	}
}

// endTxnMarkerSize is the least an EndTxnMarker value holds: an int16
// version and the int32 coordinator epoch (EndTransactionMarker's
// CURRENT_END_TXN_MARKER_VALUE_SIZE).
const endTxnMarkerSize = 6

// badMarker says what a control record's value is when the record is a
// transaction marker (its key's type ABORT or COMMIT) and the value is no
// EndTxnMarker, and the node that says so; "" otherwise.
func badMarker(rec *tree.Node) (string, *tree.Node) {
	typ := rec.Get("key").Get("type") // Get is nil-safe; Lookup would link its path parser into capture.wasm
	val := rec.Get("value")
	if typ == nil || typ.Int > 1 || typ.Int < 0 || val == nil {
		return "", nil
	}
	switch {
	case val.Null:
		return "null", val
	case val.Int < endTxnMarkerSize:
		return itoa(int(val.Int)) + " bytes", val
	}
	if v := val.Get("version"); v != nil && v.Int < 0 {
		return "version " + itoa(int(v.Int)), v
	}
	return "", nil
}

// readBatch fills bf from a batch node and its records.
func readBatch(e *tree.Node, bf *batchFacts) {
	for _, c := range e.Children {
		switch c.Name {
		case "baseOffset":
			bf.BaseOffset = c.Int
		case "lastOffsetDelta":
			bf.LastOffsetDelta = int32(c.Int)
		case "baseTimestamp":
			bf.BaseTimestamp = c.Int
		case "maxTimestamp":
			bf.MaxTimestamp = c.Int
		case "attributes":
			bf.Attributes = int16(c.Int)
		case "producerId":
			bf.ProducerID = c.Int
		case "producerEpoch":
			bf.ProducerEpoch = int16(c.Int)
		case "baseSequence":
			bf.BaseSequence = int32(c.Int)
		case "recordCount":
			bf.RecordCount = int32(c.Int)
		}
	}
	recs := e.Get("records")
	if recs == nil {
		return
	}
	kids, inflated := recordList(recs, bf.codec())
	bf.AllRead = bf.codec() == 0 || inflated
	bf.DeltasCount, bf.DeltasAscend, bf.FirstDeltaBad = true, true, -1
	bf.MaxRecordTS = -1 << 63
	for _, rec := range kids {
		if rec.Type != "Record" {
			bf.AllRead = false
			continue
		}
		od, tsd := rec.Get("offsetDelta"), rec.Get("timestampDelta")
		if od == nil || tsd == nil {
			bf.AllRead = false
			continue
		}
		if bf.Parsed == 0 {
			bf.FirstTSDelta = tsd.Int
		} else if od.Int <= bf.LastDelta {
			bf.DeltasAscend = false
		}
		if od.Int != int64(bf.Parsed) && bf.DeltasCount {
			bf.DeltasCount = false
			bf.FirstDeltaBad, bf.FirstDeltaOffset = bf.Parsed, od.Start
		}
		bf.LastDelta = od.Int
		bf.MaxRecordTS = max(bf.MaxRecordTS, bf.BaseTimestamp+tsd.Int)
		if bf.control() && bf.BadMarker == "" {
			if what, at := badMarker(rec); what != "" {
				bf.BadMarker, bf.BadMarkerRec, bf.BadMarkerOffset, bf.BadMarkerBuf = what, bf.Parsed, at.Start, at.Buf
			}
		}
		bf.Parsed++
	}
	if int(bf.RecordCount) != bf.Parsed {
		bf.AllRead = false
	}
}

// recordList is the list a batch's records node recs holds (records,
// and bytes a record failed to read from), and whether the batch, of
// compression codec, was decompressed: then the list is the children of
// recs' one child, the decompressed bytes, as tree's Elems steps into
// them. That node is told by what it is, not by its name "inflated":
// bytes of the reader's whose type is the codec's name and " inflated"
// and whose Int is the codec's number (rec's tree sink makes it so).
func recordList(recs *tree.Node, codec int) ([]*tree.Node, bool) {
	kids := recs.Children
	if codec == 0 || len(kids) != 1 {
		return kids, false
	}
	k := kids[0]
	if k.Role != tree.RoleRecord || k.Kind != schema.Bytes || k.Int != int64(codec) || !strings.HasSuffix(k.Type, " inflated") {
		return kids, false
	}
	return k.Children, true
}

// cleanRequest reports whether b reads cleanly as a request: no error,
// no warning but limits.
func (r *reader) cleanRequest(b []byte) bool {
	f, err := r.decode(b, r.probe())
	return readCleanly(f, err) && f.API != nil
}

// lonelyResponse reports whether b, alone in a file with no request it
// answers, is a response: it does not read as a request (an error, not
// only warnings), and reads cleanly as a response of some API and
// version, as kwire decode guesses one. A response's correlation id reads
// as a request's API key and version (0x00000007 is Produce v7), so its
// bytes alone do not say.
// guessed says whether a guess was tried: when b does not read as a
// request.
func (r *reader) lonelyResponse(b []byte) (response, guessed bool) {
	f, err := r.decode(b, r.probe())
	if err == nil && f.API != nil || brokenRequest(b, err) {
		return false, false
	}
	o := r.probe()
	o.Response, o.APIKey, o.Version = true, codec.Any, codec.Any
	f, err = r.decode(b, o)
	return readCleanly(f, err) && f.Guess != nil, true
}

// brokenRequest reports whether b, whose reading as a request failed with
// err, is a request all the same, broken in its body: its header names an
// API other than Produce at a version the API defines, and reads whole.
// A response's correlation id below 65536 reads as Produce at a version
// (0x00000007: Produce v7), so only Produce is left to the guess; any
// other API and version a response's bytes name by chance must also have
// their client id read, and a response that does so much is rarer than a
// client's request broken in its body (a guessed response reading for the
// broken request hid its error).
func brokenRequest(b []byte, err error) bool {
	var de *codec.DecodeError
	if len(b) < 8 || !errors.As(err, &de) || !strings.HasPrefix(de.Path, "body") {
		return false
	}
	key, ver := int16(uint16(b[4])<<8|uint16(b[5])), int16(uint16(b[6])<<8|uint16(b[7]))
	api := schema.ByKey(key)
	return key != 0 && api != nil && api.Valid().Contains(ver)
}

// cutRequest reports whether b, cut short, is read as a request: the
// codec reads one whose header is a client's (an API at one of its
// versions, a client id of printable text) as far as its bytes go, and
// stops any other at its size.
func (r *reader) cutRequest(b []byte) bool {
	o := r.probe()
	o.Auto = true
	_, err := r.decode(b, o)
	var de *codec.DecodeError
	return !errors.As(err, &de) || de.Path != "size"
}

// asResponse reports whether b reads cleanly as a response of key at ver.
func (r *reader) asResponse(b []byte, key, ver int16) bool {
	if schema.ByKey(key) == nil || ver < 0 {
		return false
	}
	o := r.probe()
	o.Response, o.APIKey, o.Version = true, key, ver
	f, err := r.decode(b, o)
	return readCleanly(f, err)
}

// probe is how a frame is decoded to tell what it is (a request or a
// response, its acks, its header version): records and nested payloads
// stay bytes and a tree stays small, so a probe costs far less than the
// reading itself. A probe a limit stops is not clean.
func (r *reader) probe() codec.Options {
	l := r.limits
	if l.MaxNodes <= 0 || l.MaxNodes > probeNodes {
		l.MaxNodes = probeNodes
	}
	return codec.Options{Kafka: true, Limits: l}
}

// probeNodes bounds a probe's tree.
const probeNodes = 1 << 16

// acksZero reports whether b is a Produce request with acks=0, which no
// response answers.
func (r *reader) acksZero(b []byte) bool {
	if len(b) < 6 || b[4] != 0 || b[5] != 0 {
		return false
	}
	f, _ := r.decode(b, r.probe())
	if f == nil || f.Body == nil {
		return false
	}
	n := f.Body.Get("acks")
	return n != nil && n.Int == 0
}

// maxKey is the highest API key kwire knows.
func maxKey() int16 {
	var k int16
	for _, a := range schema.APIs() {
		k = max(k, a.Key)
	}
	return k
}

// Limits bound what decoding one frame may cost (codec.Limits; zero
// values are the codec's defaults).
type Limits = codec.Limits

// readCleanly reports whether a frame was read (as f, with err) with no
// error and no warning other than a limit hit.
func readCleanly(f *codec.Frame, err error) bool {
	if err != nil || f == nil {
		return false
	}
	for _, w := range f.Warnings {
		if !w.Limit {
			return false
		}
	}
	return true
}
