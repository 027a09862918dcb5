package check

import (
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// DecodeFrame decodes b with o through dec as check reads frames: a
// response to an ApiVersions request above v0 that does not read cleanly
// at its request's version, but does at v0, is that v0 reading. A broker
// answers an ApiVersions request of a version it does not support so,
// with UNSUPPORTED_VERSION and its own range (KIP-511). kwire proxy reads
// responses with it too.
func DecodeFrame(dec *codec.Decoder, b []byte, o codec.Options) (*codec.Frame, error) {
	f, err := dec.Decode(b, o)
	if !apiVersionsFallback(o, f, err) {
		return f, err
	}
	o0 := o
	o0.Version = 0
	if g, gerr := dec.Decode(b, o0); readCleanly(g, gerr) {
		return g, nil
	}
	return dec.Decode(b, o) // dec's frame holds the v0 reading now
}

// AppendFrameJSON is DecodeFrame for value JSON, appended to dst.
func AppendFrameJSON(dec *codec.Decoder, dst, b []byte, o codec.Options) ([]byte, *codec.Frame, error) {
	js, f, err := dec.AppendJSON(dst, b, o)
	if !apiVersionsFallback(o, f, err) {
		return js, f, err
	}
	o0 := o
	o0.Version = 0
	if js, f, err = dec.AppendJSON(dst, b, o0); readCleanly(f, err) {
		return js, f, err
	}
	return dec.AppendJSON(dst, b, o)
}

// apiVersionsFallback reports whether a response read with o, as f with
// err, may be a broker's KIP-511 answer: an ApiVersions response above v0
// that does not read cleanly.
func apiVersionsFallback(o codec.Options, f *codec.Frame, err error) bool {
	return o.Response && o.APIKey == schema.KeyApiVersions && o.Version > 0 && !readCleanly(f, err)
}

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
