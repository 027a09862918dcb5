package codec

import (
	"io"
	"slices"
	"sync/atomic"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Options say how to read bytes and how to write their value JSON. The
// zero Options read a request frame, its size prefix first, with records
// and consumer-protocol metadata decoded and the default limits.
type Options struct {
	// Response reads a response. A response header does not carry its
	// API and version: APIKey and Version give them, or either is Any
	// and the decoder guesses it (Frame.Guess says how). An ApiVersions
	// response above v0 that does not read cleanly at Version, but does
	// at v0, is read at v0 (Frame.Version 0): a broker answers a version
	// it does not support so, and Kafka's client reads it so (KIP-511).
	Response bool
	APIKey   int16
	Version  int16 // a response's or body's version; with Data, see Data: Any for bytes that start with their version
	// Auto reads the frame as a request when it decodes cleanly as one,
	// else as the likeliest response of any API and version (Response,
	// APIKey and Version are then ignored). A size prefix that is negative
	// or larger than the bytes given is an error either way.
	Auto bool
	// NoSizePrefix says the bytes start at the header, without the 4-byte
	// size (the one size-prefix switch: decoding, ParseRequestHeader).
	NoSizePrefix bool
	// Body says the bytes are a body alone, no size prefix or header: of
	// the request or response (Response) of APIKey at Version. A proxy
	// that has read the header itself decodes the rest so; offsets are
	// the body's own. The tree keeps a frame's shape: paths (Lookup,
	// warnings, ErrorCodes) start "body.", as AppendJSON's envelope does,
	// while the root's Value is the body.
	Body bool
	// Data reads the bytes as something other than a frame: the data
	// message of that name (a consumer-protocol subscription, a KRaft
	// control record's value...), with "records" a records field's bytes
	// alone, or with "sasl" a raw SASL token, as a client and broker send
	// them after a SaslHandshake v0: its 4-byte size (none with
	// NoSizePrefix), then a PLAIN, SCRAM or OAUTHBEARER message, read as
	// SaslAuthenticate's authBytes are. Frame.Root is then the value read.
	//
	// For a data message, Version says whether the bytes start with their
	// version. Version: Any reads the int16 version they start with, as
	// Kafka writes consumer-protocol data (and Encode writes
	// {"data":..., "version":N, "value":...}); any other Version reads the
	// message at that version with no version first (as a KRaft control
	// record's value is, whose own first field is its version). So the
	// zero Options{Data: name} reads v0 with no version first: for bytes
	// that start with theirs, set Version to Any (a failure to read them
	// otherwise says so).
	Data string
	// Records says how records fields are read and shown: decoded into
	// batches and records (the default), or left as bytes and shown as
	// base64 or as their size.
	Records RecordsMode
	// Kafka writes Kafka's own JSON form: nothing nested is decoded
	// (records, consumer-protocol metadata, and so KRaft values, are
	// base64), and no key of kwire's own is in the body (unknown tags,
	// which Kafka's form has no place for, are left out; the warnings name
	// them). The encoder reads this form back.
	Kafka bool
	// Int64Strings writes every int64 value (Kafka's int64 fields, and
	// the records' offsets, timestamps and producer ids) as a JSON string
	// of its digits, exact for readers that hold numbers as float64 (jq,
	// JavaScript), which round them past 2^53. The encoder reads both.
	Int64Strings bool
	// Limits bound the work and memory of one frame; zero values mean the
	// defaults.
	Limits
	// Payload, when set, reads each record key and value for what it
	// carries (codec/payload's Decoder.Decode does: text, JSON, Avro,
	// Protobuf, JSON Schema), told the topic the records belong to, the
	// last topic name read before them. It appends JSON members to the key
	// or value object and returns nodes to hang under its node.
	Payload func(dst []byte, p *PayloadIn) ([]byte, []*tree.Node)
	// TopicNames, when set, names the topic a topic id stands for ("" when
	// it does not know it): newer versions of Fetch, Produce, ShareFetch
	// and others name topics by id alone, and the records of Kafka's
	// internal topics (__consumer_offsets...) are decoded by topic name.
	TopicNames func(id [16]byte) string
	// InternalTopicsAsBytes leaves the record keys and values of Kafka's
	// internal topics (__consumer_offsets...) as bytes, read by Payload
	// (when set) as any other topic's are: what kwire's --payloads bytes
	// asks for.
	InternalTopicsAsBytes bool

	skipRecords bool // records are left as bytes: not decoded
	// sizeFirst makes a size prefix beyond the bytes given an error at
	// "size" before anything else is read: a guess never starts from a
	// frame cut short. Read as given, a cut-short frame's bytes are read
	// and the error says where reading stopped, and why.
	sizeFirst bool
	raw       bool // nothing nested is decoded (guessing's readings)
}

// PayloadIn is a record key or value handed to Options.Payload: B[Start:End]
// in buffer Buf, whether it is a Key, its Topic when known, its record's
// RecordKey (for a value), Path (its place, for warnings), Int64Strings,
// and where its nodes and warnings go (Slab, Node, Budget, Warnings). The
// type is defined in an internal package, which go doc does not show;
// codec/payload's hook is the one to use.
type PayloadIn = rec.PayloadIn

// RecordsMode says how records fields are read and shown.
type RecordsMode uint8

const (
	RecordsDecoded RecordsMode = iota // batches and records, decoded
	RecordsBase64                     // the whole field as bytes, base64 in JSON
	RecordsSize                       // as bytes, {"sizeInBytes":N} in JSON
)

// nest reports whether o decodes nested payloads (records, consumer data).
func (o *Options) nest() bool { return !o.Kafka && !o.raw }

// Frame is what decoding found: a request or response (or, with
// Options.Data, a data message or records field), its tree when it was
// decoded into one (Decode), and what the walk learnt.
type Frame struct {
	Response      bool
	API           *schema.API     // nil when the API key is unknown
	Message       *schema.Message // the request or response read (nil when unknown)
	APIKey        int16
	Version       int16 // the version on the wire
	LayoutVersion int16 // the version whose layout was read: Version, or the newest known when Assumed
	Assumed       bool  // the version is newer than any known; the newest layout was assumed
	HeaderVersion int16
	Flexible      bool
	CorrelationID int32

	// The tree (nil from the JSON writers): Root covers the whole input.
	Root, Header, Body *tree.Node
	// Buffers[0] is the input; later ones are derived (decompressed)
	// bytes, numbered as nodes' Buf.
	Buffers [][]byte

	// Guess is set when the frame was read as a response whose API and
	// version were guessed.
	Guess *Guess
	// Warnings lists every lenient reading and limit hit, in document
	// order: the order of the nodes they are attached to in a depth-first
	// walk of the tree.
	Warnings []Warning
	// Spent is what decoding spent of its limits: nodes, bytes
	// decompressed and work (MaxDepth and MaxRecordNesting unused).
	Spent Limits

	codes    []ErrorCode // the error codes the JSON writers read
	slab     slab.Slab
	opts     Options                    // how it was read (resolved), to walk it again
	start    budget.Budget              // the budget it started from
	records  map[*tree.Node]*rec.Result // each records field's batches, offsets and timestamps
	inflated rec.Inflations             // its decompressions' outcomes
	// unread marks a request's API key (unreadKey) and version
	// (unreadVersion) until the walk reads them: the envelope leaves out
	// what the bytes never held rather than show a zero.
	unread uint8
	// plain: the walk read no nested payload, nothing early, and no
	// error, so the tree holds all its JSON says (replay.go).
	plain bool
	// replaying is what AppendJSON replays with, kept between calls (a
	// Decoder's frames keep it too); taken while in use, so calls at once
	// each have their own.
	replaying atomic.Pointer[replayState]
}

// Decode decodes one frame (or, with Options.Data, a data message or
// records field) into a tree. On malformed input it returns the partial
// frame (its Root covers the input) and a *DecodeError. Warnings for
// lenient readings and limit hits are attached to the nodes they concern
// and listed in Frame.Warnings.
func Decode(b []byte, o Options) (*Frame, error) {
	var dec Decoder
	return dec.Decode(b, o)
}

// A Decoder decodes frames reusing its memory from one frame to the next,
// for callers that decode many: each call invalidates the Frame (and every
// node of it) that the previous one returned.
type Decoder struct {
	f  Frame
	tw walker
	ts treeSink

	// The JSON writers': a frame for what the walk learns, the walk, its
	// sink and output.
	jf  Frame
	jw  walker
	js  jsonSink
	out jsontext.Writer
	// spend is the JSON writers' budget for a frame: kept here, it costs
	// no allocation per frame.
	spend budget.Budget
}

// Decode is Decode reusing the decoder's memory.
func (dec *Decoder) Decode(b []byte, o Options) (*Frame, error) {
	o = o.resolve(len(b))
	if o.guessing() {
		err := dec.read(b, o, o.Limits.budget(), readTree)
		return &dec.f, err
	}
	err := dec.decodeTree(dec.reset(), b, o, nil)
	if o0, ok := versionsFallback(o, &dec.f, err); ok {
		if err0 := dec.decodeTree(dec.reset(), b, o0, nil); readCleanly(&dec.f, err0) {
			return &dec.f, nil
		}
		err = dec.decodeTree(dec.reset(), b, o, nil)
	}
	return &dec.f, err
}

// versionsFallback is o at version 0 when f, read with o as err says,
// may be a broker's answer to an ApiVersions request of a version it does
// not support: an ApiVersions response above v0 that does not read
// cleanly. The broker writes that answer (UNSUPPORTED_VERSION and its own
// range) in v0, and Kafka's client reads it so when it does not read at
// the request's version (ApiVersionsResponse.parse, KIP-511); so does the
// decoder, the frame's Version then 0.
func versionsFallback(o Options, f *Frame, err error) (Options, bool) {
	if !o.Response || o.APIKey != schema.KeyApiVersions || o.Version <= 0 || o.Body || o.Data != "" || readCleanly(f, err) {
		return o, false
	}
	o.Version = 0
	return o, true
}

// readCleanly reports whether f was read, as err says, with no error and
// no warning other than a limit hit.
func readCleanly(f *Frame, err error) bool {
	if err != nil {
		return false
	}
	for _, w := range f.Warnings {
		if !w.Limit {
			return false
		}
	}
	return true
}

// resolve is o with its limits resolved for n bytes and its records mode
// applied.
func (o Options) resolve(n int) Options {
	o.Limits = o.Limits.resolve(n)
	o.skipRecords = o.skipRecords || o.Records != RecordsDecoded
	return o
}

func (dec *Decoder) reset() *Frame {
	sl := dec.f.slab
	sl.Reset()
	bufs := dec.f.Buffers[:0]
	clear(dec.f.Warnings)
	rs := dec.f.replaying.Load()
	dec.f = Frame{slab: sl, Buffers: bufs, Warnings: dec.f.Warnings[:0]}
	dec.f.replaying.Store(rs)
	return &dec.f
}

// decodeTree walks b into f's tree, from spend (a budget of its own when
// nil).
func (dec *Decoder) decodeTree(f *Frame, b []byte, o Options, spend *budget.Budget) error {
	dec.ts = treeSink{slab: &f.slab, f: f, levels: dec.ts.levels[:0]}
	dec.tw.init(f, &dec.ts, &o, len(b), spend)
	f.opts, f.start = o, *dec.tw.b
	f.inflated.Keep()
	dec.tw.inflations = &f.inflated
	return dec.tw.top(b, &o)
}

// top walks b as o says: a frame, a body alone, a data message or a
// records field.
func (w *walker) top(b []byte, o *Options) error {
	switch {
	case o.Body:
		return w.bodyOnly(b, o)
	case o.Data != "":
		return w.data(b, o)
	}
	return w.frame(b, o)
}

// bodyOnly walks b as a body alone, of the API and version o names.
func (w *walker) bodyOnly(b []byte, o *Options) error {
	f := w.f
	f.Response, f.APIKey, f.Version = o.Response, o.APIKey, o.Version
	root := w.begin(b)
	w.path = append(w.path[:0], pathSeg{"body", -1})
	if f.API = schema.ByKey(f.APIKey); f.API == nil {
		w.fail(0, "a known API key", decimal(int(f.APIKey)))
	} else {
		f.Message = f.API.Request
		if f.Response {
			f.Message = f.API.Response
		}
		w.pickVersion(0)
		if f.Message != nil {
			w.path = w.path[:0]
			f.HeaderVersion = f.Message.HeaderVersion(f.LayoutVersion)
			w.body()
			if w.err == nil && w.r.Off < len(b) {
				w.fail(w.r.Off, "the end of the body", decimal(len(b)-w.r.Off)+" more bytes")
			}
		}
	}
	w.path = w.path[:0]
	w.b.Work += w.r.Off
	return w.finish(root, b, len(b))
}

// begin starts the walk of the input b: its root node, open in the sink.
func (w *walker) begin(b []byte) *tree.Node {
	f := w.f
	f.Buffers = append(f.Buffers[:0], b)
	w.r.B = b
	w.frameEnd = len(b)
	w.nbufs = 1
	root := w.node()
	root.Name, root.Role, root.Type, root.End = "frame", tree.RoleFrame, "frame", len(b)
	f.Root = root
	w.s.begin(root, nil, 2)
	return root
}

// AppendJSON appends the frame's value JSON: an envelope with direction,
// API key, name, version and header, and the body in Kafka's own JSON
// form (with records and consumer-protocol metadata decoded unless the
// frame was read with Options.Kafka), then "guess" (for a guessed
// response) and "warnings" (when there are any). A partial frame (after a
// decode error) gives the fields decoded so far. It is the walk that made
// the frame, again, written as JSON (what it decompressed is read back,
// not decompressed again). A Frame from the JSON writers has no bytes to
// walk: its JSON is what they wrote.
func (f *Frame) AppendJSON(dst []byte) []byte {
	if f.Root == nil || len(f.Buffers) == 0 {
		return dst
	}
	// Room for the JSON at once: about twice the bytes it shows.
	n := 256
	for _, b := range f.Buffers {
		n += 2 * len(b)
	}
	if f.plain && f.opts.Data == "" {
		return f.replayJSON(slices.Grow(dst, n))
	}
	var w walker
	var s jsonSink
	out := jsontext.Writer{B: slices.Grow(dst, n)}
	o := f.opts
	spend := f.start
	// The walk again keeps no warnings: they are the frame's.
	jf := Frame{Guess: f.Guess}
	s.reset(&jf, &out, &o)
	w.init(&jf, &s, &o, len(f.Buffers[0]), &spend)
	w.inflations, w.quiet, jf.Warnings = f.inflated.Replay(), true, f.Warnings
	w.top(f.Buffers[0], &o)
	return out.B
}

// AppendJSON appends the value JSON of b to dst, byte for byte what
// Decode(b, o) and then Frame.AppendJSON would give, without building a
// tree: one pass from the bytes to JSON, records and nested payloads
// included, the same limits (the tree's nodes are counted, not made). The
// Frame returned has no tree, only what the walk learnt (its error codes
// are in ErrorCodes); it is valid until the decoder's next call. With
// o.Auto, or a response whose APIKey or Version is Any, the frame is read
// (and guessed) as Decode reads it.
func (dec *Decoder) AppendJSON(dst, b []byte, o Options) ([]byte, *Frame, error) {
	dec.out.Reset(nil)
	dec.out.B = dst
	f, err := dec.json(b, o)
	dst = dec.out.B
	dec.out.B = nil
	return dst, f, err
}

// WriteJSON writes what AppendJSON would append to w, streaming: output is
// written away as it grows past 1 MiB, between array elements and records,
// so a frame of any size costs little more than its own bytes. A frame
// that fails ends with valid JSON that stops where the failure is.
func (dec *Decoder) WriteJSON(w io.Writer, b []byte, o Options) (*Frame, error) {
	dec.out.Reset(w)
	f, err := dec.json(b, o)
	dec.out.Flush(true)
	if werr := dec.out.Err; werr != nil && err == nil {
		err = werr
	}
	dec.out.Reset(nil)
	return f, err
}

// json writes b's value JSON to dec.out.
func (dec *Decoder) json(b []byte, o Options) (*Frame, error) {
	o = o.resolve(len(b))
	dec.spend = o.Limits.budgetValue()
	if !o.guessing() {
		m := dec.out.Mark()
		err := dec.walkJSON(b, o, &dec.spend, nil)
		if o0, ok := versionsFallback(o, &dec.jf, err); ok && dec.out.Rollback(m) {
			dec.spend = o.Limits.budgetValue()
			if err0 := dec.walkJSON(b, o0, &dec.spend, nil); readCleanly(&dec.jf, err0) || !dec.out.Rollback(m) {
				return &dec.jf, err0
			}
			dec.spend = o.Limits.budgetValue()
			err = dec.walkJSON(b, o, &dec.spend, nil)
		}
		return &dec.jf, err
	}
	err := dec.read(b, o, &dec.spend, readJSON)
	return &dec.jf, err
}

// walkJSON runs the JSON writers' walk over b, from spend (its own budget
// when nil), writing to dec.out.
func (dec *Decoder) walkJSON(b []byte, o Options, spend *budget.Budget, g *Guess) error {
	f := &dec.jf
	ws, codes := f.Warnings, f.codes
	clear(ws)
	*f = Frame{Buffers: f.Buffers[:0], Warnings: ws[:0], Guess: g, codes: codes[:0]}
	dec.js.reset(f, &dec.out, &o)
	dec.jw.init(f, &dec.js, &o, len(b), spend)
	dec.jw.wantCodes = true
	err := dec.jw.top(b, &o)
	f.codes = dec.jw.codes
	f.Root, f.Header, f.Body = nil, nil, nil // scratch: no tree
	return err
}

// readJSON is the JSON writers' readFn: a reading written to dec.out.
func readJSON(dec *Decoder, b []byte, o Options, spend *budget.Budget, g *Guess, what readFor) (bool, error) {
	if what == readRequest {
		// A request reading that fails is dropped for a guessed response,
		// unless its output was written away already (it was big: a
		// broken request, not a response to guess).
		m := dec.out.Mark()
		err := dec.walkJSON(b, o, spend, g)
		if err == nil || !dec.out.Rollback(m) {
			return true, err
		}
		return false, err
	}
	err := dec.walkJSON(b, o, spend, g)
	return err == nil, err
}

// readTree is the tree's readFn: every reading into dec.f, kept when it
// decodes cleanly.
func readTree(dec *Decoder, b []byte, o Options, spend *budget.Budget, g *Guess, _ readFor) (bool, error) {
	f := dec.reset()
	err := dec.decodeTree(f, b, o, spend)
	f.Guess = g
	return err == nil, err
}
