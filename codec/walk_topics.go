package codec

import (
	"github.com/kwire/kwire/codec/internal/datamsg"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// Kafka's internal topics wherever records appear: the keys and values of
// __consumer_offsets, __transaction_state, __share_group_state,
// __cluster_metadata and __remote_log_metadata are read through Kafka's
// schemas for them by the walk itself, into the sink it writes to, with
// the frame's budget. Inside a frame they are the records reader's
// payload hook (rec.Options.Payload) for the records of such a topic (the
// topic named last before the records field, or by the id Options.
// TopicNames names): the tree sink hangs the nodes under the key or value
// node, the JSON sink writes members into its object:
//
//	key:   ,"format":"kafka","type":1,"schema":"OffsetCommitKey","decoded":{...}
//	value: ,"format":"kafka","version":3,"schema":"OffsetCommitValue","decoded":{...}
//	value: ,"format":"kafka","frameVersion":1,"type":2,"version":0,"schema":"TopicRecord","decoded":{...}
//
// (the last for __cluster_metadata and __remote_log_metadata). A part that
// does not read keeps the members read before the failure, has no
// "decoded", and a warning says why, at the byte where reading stopped;
// the tree keeps what was read, and the bytes after it as "undecoded".
// codec/storage (kwire log) reads these topics' records through the same
// walk (readTopicPart, through codec/internal/datamsg), with kwire log's
// member names and no "format" member.

// topicWalk is what the walk keeps for topic names and internal topics:
// the caller's id lookup, and the sinks a record's key or value is read
// into, reused from record to record.
type topicWalk struct {
	names func([16]byte) string
	// named is the depth of the struct whose name field set the topic
	// last: an id that names nothing clears a topic set by a struct
	// before it, not one the same struct named (Metadata: name, then id).
	named int
	t     *schema.InternalTopic // the internal topic being read
	log   bool                  // kwire log's names (readTopicPart)

	tree treeSink
	json jsonSink
	wr   jsontext.Writer
	top  tree.Node // the level a key's or value's nodes are collected in
}

// reset readies t for a frame read with names; nil stays nil until an
// internal topic or a lookup needs it.
func (t *topicWalk) reset(names func([16]byte) string) *topicWalk {
	if t == nil && names == nil {
		return nil
	}
	if t == nil {
		t = new(topicWalk)
	}
	t.names, t.named, t.t = names, -1, nil
	return t
}

// noteTopic keeps the topic the records after field f (just read into c)
// belong to: a topic name field, or a topic id Options.TopicNames knows.
// The name is kept as a string only when it is needed: for the payload
// hook, or for an internal topic (their names start with "__").
func (w *walker) noteTopic(c *tree.Node, f *schema.Field) {
	if f.Kind == schema.String {
		switch {
		case c.Null:
			w.topic = ""
		case w.payload != nil || len(c.Raw) > 2 && c.Raw[0] == '_' && c.Raw[1] == '_':
			w.topic = w.topicName(c.Raw)
		default:
			w.topic = ""
		}
		if w.topics != nil {
			w.topics.named = w.depth
		}
		return
	}
	if len(c.Raw) != 16 {
		return
	}
	t, id, name := w.topics, [16]byte(c.Raw), ""
	if t != nil && t.names != nil {
		name = t.names(id)
	}
	if name == "" && id == metadataTopicID {
		name = "__cluster_metadata" // KRaft's Fetch, known without a lookup
	}
	switch {
	case name != "":
		w.topic = name
	case t != nil:
		if t.named != w.depth {
			w.topic = ""
		}
	case w.topic == "__cluster_metadata":
		w.topic = "" // named by an id before this one
	}
}

// metadataTopicID is the id of __cluster_metadata, the same in every
// cluster (Kafka's Uuid.METADATA_TOPIC_ID): KRaft's voters fetch the
// metadata log by it.
var metadataTopicID = [16]byte{15: 1}

// internalTopic is the internal topic named name, or nil.
func internalTopic(name string) *schema.InternalTopic {
	if len(name) < 3 || name[0] != '_' || name[1] != '_' {
		return nil
	}
	return schema.InternalTopicByName(name)
}

// recordsHook is the payload hook for the records field about to be read:
// the walk's own for an internal topic's records, else the caller's.
func (w *walker) recordsHook() rec.PayloadFunc {
	t := internalTopic(w.topic)
	if t == nil || w.topicsRaw {
		return w.payload
	}
	if w.topics == nil {
		w.topics = new(topicWalk).reset(nil)
	}
	w.topics.t = t
	return w.hooks().topic
}

// topicName is b as a string: one of the names read last when it is one
// of them, so that the topics a capture goes through again and again cost
// no allocation each time.
func (w *walker) topicName(b []byte) string {
	for _, s := range w.names {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	copy(w.names[1:], w.names[:len(w.names)-1])
	w.names[0] = s
	return s
}

// topicFraming is the most nodes a part's framing takes before its
// message: three varints and the bytes left undecoded.
const topicFraming = 4

// topicPart is one key or value being read: its bytes b[start:end] of
// buffer bi, the names its JSON members take, and what its reading found.
type topicPart struct {
	name            string // "key" or "value"
	b               []byte
	bi, start, end  int
	names           partNames
	json            *jsontext.Writer // the members' writer; nil: the tree's walk
	warnAt          *tree.Node       // the node a failure's warning goes on
	typ, ver, frVer int16
	rec             *schema.InternalRecord
	msg             *tree.Node // the message's node (tree)
	// fail is the first failure, where reading stopped (readTopicPart's).
	fail struct {
		at        int
		path, msg string
		err       *DecodeError
		set       bool
	}
}

// failed keeps the first failure of p: at off, path and msg.
func (p *topicPart) failed(off int, path, msg string, err *DecodeError) {
	if !p.fail.set {
		p.fail.at, p.fail.path, p.fail.msg, p.fail.err, p.fail.set = off, path, msg, err, true
	}
}

// partNames are the JSON names of a part's members: its int16 or uvarint
// framing (the key's "type", the value's "version"), its schema and its
// message.
type partNames struct{ version, schema, msg string }

var (
	frameKeyNames   = partNames{"type", "schema", "decoded"}
	frameValueNames = partNames{"version", "schema", "decoded"}
	// kwire log's: its records' keys and values are members of one object.
	logKeyNames      = partNames{"type", "keySchema", "key"}
	logValueNames    = partNames{"valueVersion", "valueSchema", "value"}
	logMetadataNames = partNames{"version", "schema", "value"}
)

// topicHook reads a record key or value of the internal topic w.topics.t
// for the records reader (rec.PayloadFunc): nodes under its node when
// in.Slab is given, else JSON members appended to dst.
func (w *walker) topicHook(dst []byte, in *rec.PayloadIn) ([]byte, []*tree.Node) {
	var p topicPart
	return w.readPart(dst, in, &p)
}

// readPart is topicHook, what it read kept in p.
func (w *walker) readPart(dst []byte, in *rec.PayloadIn, p *topicPart) ([]byte, []*tree.Node) {
	tp := w.topics
	*p = topicPart{name: "value", b: in.B, bi: in.Buf, start: in.Start, end: in.End, typ: -1, ver: -1, frVer: -1}
	if in.Key {
		p.name = "key"
	}
	saved, buf, path, topic := w.s, w.buf, len(w.path), w.topic
	w.buf = in.Buf
	lazy := w.lazy
	w.lazy = in.Path
	w.path = append(w.path, pathSeg{"", lazyPath})
	if in.Slab != nil {
		ts := &tp.tree
		*ts = treeSink{slab: in.Slab, f: w.f, levels: append(ts.levels[:0], treeLevel{n: &tp.top, kids: in.Slab.Kids(4)})}
		w.s = ts
	} else {
		js := &tp.json
		tp.wr.Reset(nil)
		tp.wr.B = dst
		tp.wr.BeginObject() // made the key's or value's members below
		js.resetBare(w.f, &tp.wr, levelObject)
		w.s = js
		p.json = &tp.wr
	}
	w.topicPart(tp, p, in.RecordKey)
	w.s, w.buf, w.path, w.topic, w.lazy = saved, buf, w.path[:path], topic, lazy
	if p.json == nil {
		kids := tp.tree.levels[0].kids
		tp.tree.levels = tp.tree.levels[:0]
		return dst, kids
	}
	tp.wr.EndObject()
	out := tp.wr.B
	tp.wr.B = nil
	if len(out) <= len(dst)+2 {
		return dst, nil // "{}": nothing was written
	}
	out[len(dst)] = ',' // the members join the key's or value's object
	return out[:len(out)-1], nil
}

// topicPart reads a record's key or value in a frame: the budget first,
// then the part as its topic's framing says.
func (w *walker) topicPart(tp *topicWalk, p *topicPart, recordKey []byte) {
	if p.json != nil && !tp.log {
		p.json.Key("format")
		p.json.Text("kafka")
	}
	switch {
	case !w.b.WorkLeft(p.end - p.start):
		w.topicUndecoded(p, p.start, "not decoded as a record of "+tp.t.Name+": the MaxWork limit ("+decimal(w.b.MaxWork)+" bytes) is reached", true)
		return
	case !w.b.NodesLeft():
		w.topicUndecoded(p, p.start, "not decoded as a record of "+tp.t.Name+": the MaxNodes limit ("+decimal(w.b.MaxNodes)+" nodes) is reached", true)
		return
	}
	key := p.name == "key"
	switch {
	case tp.t.Framing == schema.CoordinatorFraming && key:
		p.names = frameKeyNames
		if tp.log {
			p.names = logKeyNames
		}
		w.coordinatorKey(tp, p)
	case tp.t.Framing == schema.CoordinatorFraming:
		p.names = frameValueNames
		if tp.log {
			p.names = logValueNames
		}
		var r *schema.InternalRecord
		if recordKey == nil {
			w.topicUndecoded(p, p.start, "not decoded: a record of "+tp.t.Name+" names its type in its key, and this one's key is null", false)
			return
		}
		if len(recordKey) >= 2 {
			if rs := tp.t.RecordType(int16(uint16(recordKey[0])<<8 | uint16(recordKey[1]))); len(rs) > 0 {
				r = &rs[0]
			}
		}
		if r == nil {
			// The key's own warning says why: its type is not known.
			w.topicUndecoded(p, p.start, "", false)
			return
		}
		w.coordinatorValue(tp, p, r)
	case key:
		w.topicUndecoded(p, p.start, "a record of "+tp.t.Name+" has a key, where its records' keys are null; this one's bytes are kept as they are", false)
		p.fail.set = false // said, but nothing failed to read
	default:
		p.names = frameValueNames
		if tp.log {
			p.names = logMetadataNames
		}
		w.metadataValue(tp, p)
	}
}

// coordinatorKey reads a coordinator topic's key: an int16 record type,
// then the type's key message. It reports whether the message read.
func (w *walker) coordinatorKey(tp *topicWalk, p *topicPart) bool {
	at := p.start
	if p.end-at < 2 {
		w.topicFail(p, nil, nil, at, "type", "an int16 record type, found "+decimal(p.end-at)+" bytes", nil)
		w.topicRaw(p, at)
		return false
	}
	p.typ = int16(uint16(p.b[at])<<8 | uint16(p.b[at+1]))
	n := w.topicInt(p, "type", p.names.version, at, at+2, int64(p.typ), false)
	rs := tp.t.RecordType(p.typ)
	if len(rs) == 0 {
		w.topicFail(p, n, nil, at, "type", "a record type of "+tp.t.Name+", found "+decimal(int(p.typ)), nil)
		w.s.leaf(n)
		w.topicRaw(p, at+2)
		return false
	}
	w.s.leaf(n)
	p.rec = &rs[0]
	return w.topicMessage(p, p.rec.Key, p.rec.KeyVersion, at+2, false)
}

// coordinatorValue reads a coordinator topic's value of record type r: an
// int16 version, then r's value message at that version.
func (w *walker) coordinatorValue(tp *topicWalk, p *topicPart, r *schema.InternalRecord) bool {
	at := p.start
	p.rec = r
	if p.end-at < 2 {
		w.topicFail(p, nil, nil, at, "version", "an int16 version, found "+decimal(p.end-at)+" bytes", nil)
		w.topicRaw(p, at)
		return false
	}
	p.ver = int16(uint16(p.b[at])<<8 | uint16(p.b[at+1]))
	w.s.leaf(w.topicInt(p, "version", p.names.version, at, at+2, int64(p.ver), false))
	return w.topicMessage(p, r.Value, p.ver, at+2, false)
}

// metadataValue reads a metadata-framed value: uvarint frame version (1),
// uvarint apiKey, uvarint version, then the record. Where Kafka's files
// give two records one apiKey, the first that reads the bytes whole is
// taken, and the choice is said.
func (w *walker) metadataValue(tp *topicWalk, p *topicPart) bool {
	at := p.start
	var head [3]int16
	for i, name := range [...]string{"frameVersion", "type", "version"} {
		x, n, minimal := wire.Uvarint(p.b[at:p.end])
		if n <= 0 || x > 0x7fff {
			w.topicFail(p, nil, nil, at, name, "an unsigned varint below 32768", nil)
			w.topicRaw(p, at)
			return false
		}
		jn := name
		if i == 2 {
			jn = p.names.version
		}
		c := w.topicInt(p, name, jn, at, at+n, int64(x), true)
		if !minimal {
			w.warn(c, at, name, nonMinimal(n, uint64(x)))
		}
		w.s.leaf(c)
		head[i] = int16(x)
		at += n
	}
	p.frVer, p.typ, p.ver = head[0], head[1], head[2]
	if p.frVer != 1 {
		w.topicFail(p, nil, nil, p.start, "frameVersion", "frame version 1, found "+decimal(int(p.frVer)), nil)
		w.topicRaw(p, at)
		return false
	}
	rs := tp.t.RecordType(p.typ)
	if len(rs) == 0 {
		w.topicFail(p, nil, nil, p.start, "type", "a record type (apiKey) of "+tp.t.Name+", found "+decimal(int(p.typ)), nil)
		w.topicRaw(p, at)
		return false
	}
	for i := range rs[:len(rs)-1] {
		// A trial: what it made and said is dropped when it fails.
		m, wm, lim, fail := w.s.mark(), w.w.Mark(), w.limitHit, p.fail
		p.rec = &rs[i]
		if w.topicMessage(p, rs[i].Value, p.ver, at, true) {
			w.s.commit(m)
			return true
		}
		w.s.rollback(m)
		w.w.Truncate(wm)
		w.limitHit, p.fail = lim, fail
	}
	p.rec = &rs[len(rs)-1]
	return w.topicMessage(p, p.rec.Value, p.ver, at, len(rs) > 1)
}

// topicMessage reads p.b[start:p.end] as message m at version, named by
// its schema's name in the tree (p.names.msg in JSON), after its "schema"
// member. A message that fails leaves no JSON member; the tree keeps what
// was read and the rest as bytes. ambiguous says the record's apiKey
// names more than one schema: a trial (quiet when it fails), or the last.
func (w *walker) topicMessage(p *topicPart, m *schema.Message, version int16, start int, ambiguous bool) bool {
	m0, lv := m, min(version, m.Valid.Hi)
	if lv < m.Valid.Lo {
		w.topicFail(p, nil, nil, start, "", "", newDecodeError(start, p.bi, w.pathString(), m.Name+" version "+m.Valid.String(), "version "+decimal(int(version)), nil))
		w.topicRaw(p, start)
		return false
	}
	if p.json != nil {
		p.json.Key(p.names.schema)
		p.json.Text(m.Name)
	}
	n := w.s.node()
	n.Name, n.Role, n.Kind, n.Type = m.Name, tree.RoleField, schema.Struct, w.typeName(m, version)
	if p.json != nil {
		n.Name = p.names.msg
	}
	n.Buf, n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd = p.bi, start, start, start, start
	mark, sm := w.w.Mark(), w.s.mark()
	w.push(p.names.msg)
	l := m0.At(lv).Root
	w.s.begin(n, l, len(l.Fields)+1)
	var consumer []consumerField
	if m0.Name == "GroupMetadataValue" {
		consumer = groupConsumerFields
	}
	err := w.dataFields(n, m0, version, lv, p.b, p.bi, start, p.end, consumer)
	switch {
	case err == nil && ambiguous:
		w.warnAt(&mark, n, start, "", w.ambiguity(p), false)
	case err != nil:
		n.Flags |= tree.Broken
		w.topicFail(p, n, &mark, start, "", "", err)
	}
	w.pop()
	w.s.end(n)
	p.msg = n
	if err != nil {
		if p.json != nil {
			w.s.rollback(sm) // no "decoded" for what did not read
		} else {
			w.s.commit(sm)
		}
		w.topicRaw(p, n.End)
		return false
	}
	w.s.commit(sm)
	return true
}

// ambiguity says which schemas the apiKey of p names, and which one its
// bytes read as.
func (w *walker) ambiguity(p *topicPart) string {
	rs := w.topics.t.RecordType(p.typ)
	names := ""
	for i := range rs {
		if i > 0 {
			names += " or "
		}
		names += rs[i].Value.Name
	}
	return "apiKey " + decimal(int(p.typ)) + " is " + names + " in Kafka's files; these bytes read whole as " + p.rec.Value.Name
}

// groupConsumerFields are the bytes of a classic group's members that hold
// consumer-protocol messages when its protocol type is "consumer".
var groupConsumerFields = []consumerField{{"subscription", "ConsumerProtocolSubscription"}, {"assignment", "ConsumerProtocolAssignment"}}

// topicInt makes the framing integer name of p at [start, end) holding v
// (named jn in JSON), for the caller to warn on and hand to the sink.
func (w *walker) topicInt(p *topicPart, name, jn string, start, end int, v int64, uvarint bool) *tree.Node {
	w.b.Nodes++
	n := w.s.node()
	n.Name, n.Role, n.Kind, n.Type, n.Buf, n.Int = name, tree.RoleRecord, schema.Int16, "int16", p.bi, v
	if p.json != nil {
		n.Name = jn
	}
	if uvarint {
		n.Type, n.Flags = "uvarint", tree.Varint
	}
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = start, start, start, start, end
	return n
}

// topicRaw hands over the bytes of p from start, not decoded, as a raw
// node (the JSON has no member for them).
func (w *walker) topicRaw(p *topicPart, start int) {
	if start >= p.end {
		return
	}
	w.b.Nodes++
	n := w.s.node()
	n.Name, n.Role, n.Type, n.Kind, n.Buf = "undecoded", tree.RoleRaw, "bytes", schema.Bytes, p.bi
	n.Start, n.TagEnd, n.SizeEnd, n.PrefixEnd, n.End = start, start, start, start, p.end
	n.Raw = p.b[start:p.end]
	if p.warnAt != nil {
		n.Warnings, p.warnAt.Warnings = p.warnAt.Warnings, nil
	}
	w.s.leaf(n)
}

// topicUndecoded leaves all of p from start undecoded, with warning msg
// (none when "") on it.
func (w *walker) topicUndecoded(p *topicPart, start int, msg string, limit bool) {
	if msg != "" {
		p.failed(start, w.pathString(), msg, nil)
		var held tree.Node
		p.warnAt = &held
		w.topicWarn(p, &held, start, msg, limit)
	}
	w.topicRaw(p, start)
	p.warnAt = nil
}

// topicWarn says msg about p at off, on n (nil: the node made for the
// bytes left, which topicRaw hands over next).
func (w *walker) topicWarn(p *topicPart, n *tree.Node, off int, msg string, limit bool) {
	if n == nil {
		if p.warnAt == nil {
			p.warnAt = new(tree.Node)
		}
		n = p.warnAt
	}
	w.warnAt(nil, n, off, "", msg, limit)
}

// topicFail is a part that does not read as its schema says: at off and
// field (below the part) msg, or the walk's error err: a warning on n (at
// mark, before the warnings of what n holds; nil: on the bytes left).
func (w *walker) topicFail(p *topicPart, n *tree.Node, mark *int, off int, field, msg string, err *DecodeError) {
	tp := w.topics
	limit := err != nil && w.limitHit
	w.limitHit = false
	what := "a record of " + tp.t.Name
	if err == nil {
		if field != "" {
			w.push(field)
			defer w.pop()
		}
		msg = "not decoded as " + what + ": expected " + msg
		p.failed(off, w.pathString(), msg, nil)
		w.topicWarn(p, n, off, msg, false)
		return
	}
	if p.rec != nil {
		what = p.rec.Value.Name
		if p.name == "key" {
			what = p.rec.Key.Name
		}
	}
	msg = "not decoded as " + what + ": " + expectedFound(err)
	if limit {
		msg = "not decoded as " + what + ": the MaxNodes limit (" + decimal(w.b.MaxNodes) + " nodes) is reached"
	}
	p.failed(err.Offset, err.Path, msg, err)
	if n == nil {
		if p.warnAt == nil {
			p.warnAt = new(tree.Node)
		}
		n = p.warnAt
	}
	// At the byte and path where reading stopped.
	w.b.ChargeWarning(limit)
	if w.quiet {
		return
	}
	n.Warnings = append(n.Warnings, msg)
	x := Warning{Offset: err.Offset, Buf: err.Buf, Path: err.Path, Message: msg, Limit: limit}
	if mark != nil {
		w.w.Insert(mark, x)
	} else {
		w.w.Add(x)
	}
}

// expectedFound says what a decoding error expected and found.
func expectedFound(err *DecodeError) string {
	s := "expected " + err.Expected
	if err.Found != "" {
		s += ", found " + err.Found
	}
	return s
}

func init() { datamsg.ReadTopicPart = readTopicPart }

// readTopicPart reads a record key or value of an internal topic for
// codec/storage (datamsg.ReadTopicPart): the walk's topic reader, alone,
// with kwire log's names and the default limits for the part's size.
func readTopicPart(dst []byte, tp *datamsg.TopicPart) ([]byte, []*tree.Node) {
	var f Frame
	size := max(tp.End-tp.Start, 0)
	o := Options{}.resolve(size)
	var w walker
	w.init(&f, &treeSink{slab: tp.Slab, f: &f}, &o, size, nil)
	w.topics = new(topicWalk).reset(nil)
	w.topics.t, w.topics.log = tp.Topic, true
	in := rec.PayloadIn{B: tp.B, Buf: tp.Buf, Start: tp.Start, End: tp.End, Key: tp.Key, RecordKey: tp.RecordKey,
		Slab: tp.Slab, Path: func() string { return "" }}
	var p topicPart
	dst, kids := w.readPart(dst, &in, &p)
	tp.Type, tp.Version, tp.FrameVersion, tp.Record, tp.Msg = p.typ, p.ver, p.frVer, p.rec, nil
	if tp.Slab != nil {
		tp.Msg = p.msg // a JSON walk's nodes are scratch
	}
	tp.Failed, tp.FailOffset, tp.FailPath, tp.FailMsg = p.fail.set, p.fail.at, p.fail.path, p.fail.msg
	tp.FailErr = nil
	if p.fail.err != nil {
		tp.FailErr = p.fail.err // not a nil *DecodeError in an error
	}
	return dst, kids
}
