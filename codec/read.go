package codec

import (
	"strconv"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// guessing reports whether opts leave something to guess: a frame that
// may be a request or a response (Auto), or a response whose API or
// version is Any.
func (o *Options) guessing() bool {
	return o.Data == "" && !o.Body && (o.Auto || o.Response && (o.APIKey == Any || o.Version == Any))
}

// sizeBad reports whether b's size prefix (when it has one) is negative or
// larger than the bytes given: an error of the frame, not a reason to guess.
func sizeBad(b []byte, noSize bool) bool {
	if noSize {
		return false
	}
	size, ok := wire.SizePrefix(b)
	return !ok || size < 0 || int(size) > len(b)-4
}

// cutRequest reports whether b is a request cut short: its size prefix
// says more bytes follow than there are, and a request header as clients
// send it follows (requestHeaded), its client id printable text, which a
// response's bytes seldom make (a correlation id of 7 reads as Produce
// v7, the body's first bytes as a client id of zero bytes, or of
// control characters).
func cutRequest(b []byte) bool {
	size, ok := wire.SizePrefix(b)
	if !ok || size < 0 || int(size) <= len(b)-4 {
		return false
	}
	_, ok = requestHeader(b, false)
	return ok
}

// readFn is one path's way of reading a frame for read: the tree
// path builds dec.f (readTree), the tree-less one writes value JSON
// (readFast, in fast.go). read decides what is read, with which
// options, from which budget; a readFn reads b with o from spend (its
// own when nil), g the guess o was chosen by (or nil), and keeps the
// result. keep says the reading stands: with readRequest, whether it is
// the answer or is dropped for a guessed response. (A function, not an
// interface: the wasm build links only the tree's, and no more.)
type readFn func(dec *Decoder, b []byte, o Options, spend *budget.Budget, g *Guess, what readFor) (keep bool, err error)

// readFor is what a reading is for.
type readFor uint8

const (
	readAnswer  readFor = iota // the frame's answer
	readRequest                // a request that may yet be dropped for a guessed response
	readFailed                 // the answer when nothing fits: the caller says why
)

// read reads frame b, whose direction, API or version is to be guessed
// (opts.guessing(), opts.Limits resolved), with readOne: as a
// request when Auto and it decodes cleanly as one; else as the likeliest
// response (of APIKey, when not Any), the ranked readings in the guess.
// Every reading draws from spend. Both paths run it, so each rule of
// the guess is made once, for both.
func (dec *Decoder) read(b []byte, opts Options, spend *budget.Budget, readOne readFn) error {
	if sizeBad(b, opts.NoSizePrefix) {
		o := opts
		o.Auto, o.Response, o.sizeFirst = false, false, true
		if opts.Auto && cutRequest(b) {
			// A request cut short: its header names its API and
			// version, so the bytes there are are read, and the error
			// is where they end.
			o.sizeFirst = false
		}
		_, err := readOne(dec, b, o, spend, nil, readAnswer)
		return err
	}
	req := opts
	req.Auto, req.Response = false, false
	var reqErr error
	if opts.Auto {
		keep, err := readOne(dec, b, req, spend, nil, readRequest)
		if keep {
			return err
		}
		reqErr = err
	}
	var only *schema.API
	if !opts.Auto && opts.APIKey != Any {
		if only = schema.ByKey(opts.APIKey); only == nil {
			o := opts
			o.Auto = false
			_, err := readOne(dec, b, o, spend, nil, readAnswer)
			return err
		}
	}
	g := dec.guessResponses(b, opts.NoSizePrefix, only, opts.Limits, spend)
	if !opts.Auto && opts.Version != Any {
		g.keepVersion(opts.Version)
	}
	if len(g.Candidates) == 0 {
		if opts.Auto {
			// Neither a request nor any response: the request's reading
			// (from a spend of its own) and its error are the more
			// useful to show.
			readOne(dec, b, req, nil, nil, readFailed)
			return reqErr
		}
		// A response no reading fits: read with the hints as given,
		// which cannot work, so its bytes are kept undecoded.
		o := opts
		o.Auto = false
		readOne(dec, b, o, nil, g, readFailed)
		return unreadError(b, opts, g)
	}
	top := g.Candidates[0]
	if opts.Auto && top.Score < 100 && requestHeaded(b, opts.NoSizePrefix) {
		// A request's header, and no response that reads free of doubt:
		// a request broken in its body, not a response of whatever API
		// its bytes happen to fit.
		readOne(dec, b, req, nil, nil, readFailed)
		return reqErr
	}
	o := opts
	o.Auto, o.Response, o.APIKey, o.Version = false, true, top.APIKey, top.Version
	_, err := readOne(dec, b, o, spend, g, readAnswer)
	return err
}

// requestHeaded reports whether b starts with a request header as a
// client sends it: a known API at one of its versions, and a client id.
func requestHeaded(b []byte, noSize bool) bool {
	h, err := ParseRequestHeader(b, Options{NoSizePrefix: noSize})
	api := schema.ByKey(h.APIKey)
	return err == nil && api != nil && api.Request.Valid.Contains(h.Version) && h.ClientID != nil && *h.ClientID != ""
}

// requestHeader is b's request header when b starts with one as clients
// send it (requestHeaded) whose client id is printable text.
func requestHeader(b []byte, noSize bool) (RequestHeader, bool) {
	if !requestHeaded(b, noSize) {
		return RequestHeader{}, false
	}
	h, _ := ParseRequestHeader(b, Options{NoSizePrefix: noSize})
	if !utf8.ValidString(*h.ClientID) {
		return h, false
	}
	for _, c := range *h.ClientID {
		if c < 0x20 || c == 0x7f {
			return h, false
		}
	}
	return h, true
}

// describe says what a request header names, for messages: `api key 18
// (ApiVersions) v3, correlation id 7, client id "kwire"`.
func (h RequestHeader) describe() string {
	s := "api key " + decimal(int(h.APIKey))
	if api := schema.ByKey(h.APIKey); api != nil {
		s += " (" + api.Name + ")"
	}
	s += " v" + decimal(int(h.Version)) + ", correlation id " + decimal(int(h.CorrelationID))
	if h.ClientID != nil {
		s += ", client id " + strconv.Quote(*h.ClientID)
	}
	return s
}

func containsVersion(vs []int16, v int16) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// unreadError says no reading of the bytes b as a response fits, and
// what their header says when they start with a request's.
func unreadError(b []byte, opts Options, g *Guess) *DecodeError {
	what := "any API and version"
	if api := schema.ByKey(opts.APIKey); api != nil && opts.APIKey != Any {
		what = "any version of " + api.Name
	}
	found := decimal(len(b)) + " bytes that read as none"
	if g.Cut {
		found += " of the " + decimal(g.Tried) + " readings tried before a work limit (MaxWork, or the guess's bound on the nodes its readings read)"
	}
	if h, ok := requestHeader(b, opts.NoSizePrefix); ok {
		found += "; they start with a request's header: " + h.describe()
	}
	return newDecodeError(0, 0, "", "a response of "+what, found, nil)
}
