package codec

import (
	"github.com/kwire/kwire/codec/schema"
)

// guessing reports whether opts leave something to guess: a frame that
// may be a request or a response (Auto), or a response whose API or
// version is Any.
func (o *Options) guessing() bool {
	return o.Auto || o.Response && (o.APIKey == Any || o.Version == Any)
}

// sizeBad reports whether b's size prefix (when it has one) is negative or
// larger than the bytes given: an error of the frame, not a reason to guess.
func sizeBad(b []byte, noSize bool) bool {
	if noSize {
		return false
	}
	if len(b) < 4 {
		return true
	}
	size := int32(uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]))
	return size < 0 || int(size) > len(b)-4
}

// read decodes a frame whose direction, API or version is to be guessed:
// as a request when Auto and it decodes cleanly as one; else as the
// likeliest response (of APIKey, when not Any), the ranked readings in
// Frame.Guess. Every reading draws from one budget.
func (dec *Decoder) read(b []byte, opts Options) (*Frame, error) {
	lim := opts.Limits.Resolve(len(b))
	opts.Limits = lim
	budget := lim.budget()
	if sizeBad(b, opts.NoSizePrefix) {
		o := opts
		o.Auto, o.Response, o.sizeFirst = false, false, true
		return decodeInto(dec.reset(), b, o, budget)
	}
	var reqErr error
	if opts.Auto {
		o := opts
		o.Auto, o.Response = false, false
		f, err := decodeInto(dec.reset(), b, o, budget)
		if err == nil {
			return f, nil
		}
		reqErr = err
	}
	var only *schema.API
	if !opts.Auto && opts.APIKey != Any {
		if only = schema.ByKey(opts.APIKey); only == nil {
			o := opts
			o.Auto = false
			return decodeInto(dec.reset(), b, o, budget)
		}
	}
	g := dec.guessResponses(b, opts.NoSizePrefix, only, lim, budget)
	if !opts.Auto && opts.Version != Any {
		g.keepVersion(opts.Version)
	}
	if len(g.Candidates) == 0 {
		if opts.Auto {
			// Neither a request nor any response: the request's reading
			// and its error are the more useful to show.
			o := opts
			o.Auto, o.Response = false, false
			f, _ := decodeInto(dec.reset(), b, o, lim.budget())
			return f, reqErr
		}
		return dec.unread(b, opts, g)
	}
	top := g.Candidates[0]
	o := opts
	o.Auto, o.Response, o.APIKey, o.Version = false, true, top.APIKey, top.Version
	f, err := decodeInto(dec.reset(), b, o, budget)
	f.Guess = g
	return f, err
}

func containsVersion(vs []int16, v int16) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// unread is the frame of a response no reading fits: read with the hints
// as given, which cannot work, so its bytes are kept undecoded.
func (dec *Decoder) unread(b []byte, opts Options, g *Guess) (*Frame, error) {
	o := opts
	o.Auto = false
	f, _ := decodeInto(dec.reset(), b, o, nil)
	f.Guess = g
	return f, unreadError(len(b), opts, g)
}

// unreadError says no reading of n bytes as a response fits.
func unreadError(n int, opts Options, g *Guess) *DecodeError {
	what := "any API and version"
	if api := schema.ByKey(opts.APIKey); api != nil && opts.APIKey != Any {
		what = "any version of " + api.Name
	}
	found := decimal(n) + " bytes that read as none"
	if g.Cut {
		found += " of the " + decimal(g.Tried) + " readings tried before the MaxWork limit"
	}
	return newDecodeError(0, 0, "", "a response of "+what, found, nil)
}
