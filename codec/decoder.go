package codec

import (
	"io"
	"slices"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/jsontext"
)

// Options say how to read a frame.
type Options struct {
	// Response selects response decoding. A response header does not
	// carry its API and version: APIKey and Version give them, or either
	// is Any and the decoder guesses it (Frame.Guess says how).
	Response bool
	APIKey   int16
	Version  int16
	// Auto reads the frame as a request when it decodes cleanly as one,
	// else as the likeliest response of any API and version (Response,
	// APIKey and Version are then ignored). A size prefix that is negative
	// or larger than the bytes given is an error either way.
	Auto bool
	// NoSizePrefix says the frame starts at the header, without the 4-byte size.
	NoSizePrefix bool
	// RawRecords leaves records fields as bytes instead of decoding their
	// batches, and consumer-protocol bytes undecoded.
	RawRecords bool
	// Limits bound the work and memory of one frame; zero values mean the
	// defaults.
	Limits

	skipRecords bool // records are written as base64 or size: not decoded
	// sizeFirst makes a size prefix beyond the bytes given an error at
	// "size" before anything else is read: a guess never starts from a
	// frame cut short. Read as given, a cut-short frame's bytes are read
	// and the error says where reading stopped, and why.
	sizeFirst bool
	body      bool // the bytes are a body alone (DecodeBody)
}

// JSONOptions choose how value JSON is written.
type JSONOptions struct {
	// Records chooses how decoded records fields appear: as batches and
	// records (the default), as base64, or as their size.
	Records records.JSONMode
	// Kafka writes Kafka's own JSON form: every bytes field as base64
	// (records, consumer-protocol metadata and assignments, and so the
	// KRaft values inside records), Records ignored, and no key of
	// kwire's own inside the body (unknown tags, which Kafka's form has
	// no place for, are left out; the frame's warnings name them). The
	// envelope is the same. The encoder reads this form back.
	// Decoder.AppendJSON and WriteJSON then decode nothing nested, so
	// their "warnings" are the frame's own: Decode with
	// Options.RawRecords gives the same.
	Kafka bool
}

// Frame is a decoded request or response.
type Frame struct {
	Response      bool
	API           *schema.API // nil when the API key is unknown
	Message       *schema.Message
	APIKey        int16
	Version       int16 // the version on the wire
	Layout        int16 // the version whose layout was used (differs when Assumed)
	Assumed       bool  // the version is newer than any known; the newest layout was assumed
	HeaderVersion int16
	Flexible      bool
	CorrelationID int32

	Root    *tree.Node // covers the whole input
	Header  *tree.Node
	Body    *tree.Node
	Buffers [][]byte // Buffers[0] is the input; later ones are derived (decompressed) bytes

	// Guess is set when the frame was read as a response whose API and
	// version were guessed (see Read).
	Guess *Guess

	slab     tree.Slab
	warnings []Warning
	records  map[*tree.Node]*records.Result // each records field's batches, offsets and timestamps
	spent    wire.Budget                    // what decoding it spent
	// How it was read, so its value JSON is the same walk again: the
	// options (resolved) and the budget it started from.
	opts       Options
	start      wire.Budget
	inflations records.Inflations // its decompressions' outcomes
}

// Info is what the tree-less path learnt about a frame besides its JSON.
type Info struct {
	Response      bool
	APIKey        int16
	Version       int16
	API           *schema.API // nil when the API key is unknown
	CorrelationID int32
	Warnings      []Warning // in document order, as Frame.Warnings
	Guess         *Guess    // how a guessed response was read, or nil
	// ErrorCodes are the non-zero codes of Frame.ErrorCodes (failures
	// only), in the order the walk reads them (tagged fields where their
	// section is), so a filter needs no tree.
	ErrorCodes []int16
	// What the frame spent of its budget.
	Nodes, Decompressed, Work int
}

// Decode decodes one frame. On malformed input it returns the partial frame
// (its Root covers the input) and a *DecodeError. Warnings for lenient
// readings and limit hits are attached to the nodes they concern and
// listed by Frame.Warnings.
func Decode(b []byte, opts Options) (*Frame, error) {
	var dec Decoder
	return dec.Decode(b, opts)
}

// A Decoder decodes frames reusing its memory from one frame to the next,
// for callers that decode many: each Decode invalidates the Frame (and
// every node of it) that the previous call returned.
type Decoder struct {
	f  Frame
	tw walker
	ts treeSink

	// The tree-less path's: a frame for what it learns, the walk, its sink
	// and output, the budget.
	jf     Frame
	jw     walker
	js     jsonSink
	out    jsontext.Writer
	budget wire.Budget
	jo     JSONOptions // what a guessed reading writes with
	info   Info        // what the last guessed reading learnt
}

// Decode is Decode reusing the decoder's memory.
func (dec *Decoder) Decode(b []byte, opts Options) (*Frame, error) {
	if opts.guessing() {
		opts.Limits = opts.Limits.Resolve(len(b))
		err := dec.read(b, opts, opts.Limits.budget(), readTree)
		return &dec.f, err
	}
	return &dec.f, dec.decodeTree(dec.reset(), b, opts, nil)
}

func (dec *Decoder) reset() *Frame {
	slab := dec.f.slab
	slab.Reset()
	bufs := dec.f.Buffers[:0]
	clear(dec.f.warnings)
	dec.f = Frame{slab: slab, Buffers: bufs, warnings: dec.f.warnings[:0]}
	return &dec.f
}

// decodeTree walks frame b into f's tree, from budget (its own when nil).
func (dec *Decoder) decodeTree(f *Frame, b []byte, o Options, budget *wire.Budget) error {
	dec.ts = treeSink{slab: &f.slab, f: f, levels: dec.ts.levels[:0]}
	dec.tw.init(f, &dec.ts, &o, len(b), budget)
	o.Limits = dec.tw.lim
	f.opts, f.start = o, *dec.tw.b
	f.inflations.Keep()
	dec.tw.inflations = &f.inflations
	if o.body {
		return dec.tw.bodyOnly(b, &o)
	}
	return dec.tw.frame(b, &o)
}

// decodeInto decodes b into f, from budget (its own when nil).
func decodeInto(f *Frame, b []byte, opts Options, budget *wire.Budget) (*Frame, error) {
	var dec Decoder
	return f, dec.decodeTree(f, b, opts, budget)
}

// DecodeBody decodes a request or response body alone (no size prefix, no
// header), as a proxy or broker that has already parsed the header would.
// Its tree spans every byte as Decode's does: bytes after the body, or
// after a failure, are "_undecoded".
func DecodeBody(b []byte, apiKey, version int16, response bool, opts Options) (*Frame, error) {
	f := &Frame{}
	opts.Response, opts.APIKey, opts.Version, opts.body = response, apiKey, version, true
	opts.Auto = false
	var dec Decoder
	return f, dec.decodeTree(f, b, opts, nil)
}

// bodyOnly walks b as a body alone, of the API and version the options
// name.
func (w *walker) bodyOnly(b []byte, o *Options) error {
	f := w.f
	f.Response, f.APIKey, f.Version = o.Response, o.APIKey, o.Version
	f.Buffers = append(f.Buffers[:0], b)
	w.r.B = b
	w.frameEnd = len(b)
	w.nbufs = 1
	root := w.node()
	root.Name, root.Role, root.Type, root.End = "frame", tree.RoleFrame, "frame", len(b)
	f.Root = root
	w.s.begin(root, nil, 2)
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
			f.HeaderVersion = f.Message.HeaderVersion(f.Layout)
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

// AppendJSON appends the frame's value JSON: an envelope with direction, API
// key, name, version and header, and the body in Kafka's own JSON form,
// then "guess" (for a guessed response) and "warnings" (when there are
// any). A partial frame (after a decode error) gives the fields decoded so
// far. It is the walk that made the frame, again, written as JSON.
func (f *Frame) AppendJSON(dst []byte, jo JSONOptions) []byte {
	if len(f.Buffers) == 0 {
		return dst
	}
	var w walker
	var s jsonSink
	// Room for the JSON at once: about twice the bytes it shows.
	n := 256
	for _, b := range f.Buffers {
		n += 2 * len(b)
	}
	out := jsontext.Writer{B: slices.Grow(dst, n)}
	o := f.opts
	if jo.Kafka {
		o.RawRecords, jo.Records = true, records.Base64
	}
	o.skipRecords = o.skipRecords || jo.Records != records.Decoded
	budget := f.start
	// The walk again keeps no warnings: they are the frame's.
	jf := Frame{Guess: f.Guess}
	s.reset(&w, &out, jo)
	w.init(&jf, &s, &o, len(f.Buffers[0]), &budget)
	w.inflations, w.quiet, jf.warnings = f.inflations.Replay(), true, f.warnings
	if o.body {
		w.bodyOnly(f.Buffers[0], &o)
	} else {
		w.frame(f.Buffers[0], &o)
	}
	return out.B
}

// AppendEnvelopeHead opens the envelope the JSON forms share and leaves it
// open for more members: {"direction","apiKey","apiName","apiVersion".
func (f *Frame) AppendEnvelopeHead(dst []byte) []byte {
	var s jsonSink
	out := jsontext.Writer{B: dst}
	s.w, s.out = &walker{f: f}, &out
	s.envelopeHead()
	return out.B
}

// JSON returns the frame's value JSON.
func (f *Frame) JSON() []byte {
	if len(f.Buffers) == 0 {
		return nil
	}
	return f.AppendJSON(nil, JSONOptions{})
}

// AppendJSON appends the value JSON of frame b to dst, byte for byte what
// Decode(b, o) and then Frame.AppendJSON(dst, jo) would give, without
// building a tree: one pass from the bytes to JSON, records and nested
// payloads included, the same limits (the tree's nodes are counted, not
// made), the warnings collected in Info. With o.Auto, or a response whose
// APIKey or Version is Any, the frame is read (and guessed) as Decode
// reads it. jo.Records set to base64 or size leaves records undecoded.
// Info (its Warnings) is valid until the decoder's next call.
func (dec *Decoder) AppendJSON(dst, b []byte, o Options, jo JSONOptions) ([]byte, Info, error) {
	dec.out.Reset(nil)
	dec.out.B = dst
	info, err := dec.json(b, o, jo)
	dst = dec.out.B
	dec.out.B = nil
	return dst, info, err
}

// WriteJSON writes what AppendJSON would append to w, streaming: output is
// written away as it grows past 1 MiB, between array elements and records,
// so a frame of any size costs little more than its own bytes. A frame
// that fails ends with valid JSON that stops where the failure is.
func (dec *Decoder) WriteJSON(w io.Writer, b []byte, o Options, jo JSONOptions) (Info, error) {
	dec.out.Reset(w)
	info, err := dec.json(b, o, jo)
	dec.out.Flush(true)
	if werr := dec.out.Err; werr != nil && err == nil {
		err = werr
	}
	dec.out.Reset(nil)
	return info, err
}

// json writes frame b's value JSON to dec.out.
func (dec *Decoder) json(b []byte, o Options, jo JSONOptions) (Info, error) {
	if jo.Kafka {
		// Every bytes field as base64: nothing nested is decoded.
		o.RawRecords, jo.Records = true, records.Base64
	}
	o.skipRecords = jo.Records != records.Decoded
	o.Limits = o.Limits.Resolve(len(b))
	dec.budget = o.Limits.budgetValue()
	if !o.guessing() {
		return dec.walkJSON(b, o, jo, &dec.budget, nil)
	}
	dec.jo = jo
	err := dec.read(b, o, &dec.budget, readJSON)
	info := dec.info
	dec.info = Info{}
	return info, err
}

// walkJSON runs the tree-less walk over frame b, from budget (its own when
// nil), writing to dec.out.
func (dec *Decoder) walkJSON(b []byte, o Options, jo JSONOptions, budget *wire.Budget, g *Guess) (Info, error) {
	f := &dec.jf
	ws := f.warnings
	clear(ws)
	*f = Frame{Buffers: f.Buffers[:0], warnings: ws[:0], Guess: g}
	dec.js.reset(&dec.jw, &dec.out, jo)
	dec.jw.init(f, &dec.js, &o, len(b), budget)
	dec.jw.wantCodes = true
	err := dec.jw.frame(b, &o)
	sp := dec.jw.b
	info := Info{Response: f.Response, APIKey: f.APIKey, Version: f.Version, API: f.API, CorrelationID: f.CorrelationID,
		Warnings: f.warnings, Guess: f.Guess, ErrorCodes: dec.jw.codes,
		Nodes: sp.Nodes, Decompressed: sp.Decompressed, Work: sp.Work}
	return info, err
}

// readJSON is the tree-less path's readFn: a reading written to dec.out,
// what it learnt left in dec.info.
func readJSON(dec *Decoder, b []byte, o Options, budget *wire.Budget, g *Guess, what readFor) (bool, error) {
	if what == readRequest {
		// A request reading that fails is dropped for a guessed response,
		// unless its output was written away already (it was big: a
		// broken request, not a response to guess).
		m := dec.out.Mark()
		info, err := dec.walkJSON(b, o, dec.jo, budget, g)
		if err == nil || !dec.out.Rollback(m) {
			dec.info = info
			return true, err
		}
		return false, err
	}
	info, err := dec.walkJSON(b, o, dec.jo, budget, g)
	dec.info = info
	return err == nil, err
}

// readTree is the tree path's readFn: every reading into dec.f, kept
// when it decodes cleanly.
func readTree(dec *Decoder, b []byte, o Options, budget *wire.Budget, g *Guess, _ readFor) (bool, error) {
	f := dec.reset()
	err := dec.decodeTree(f, b, o, budget)
	f.Guess = g
	return err == nil, err
}
