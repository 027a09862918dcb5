package check

import (
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// ApiVersionsFallback reports whether a response to a request of key and
// ver, read at ver as f with err, is to be read again at version 0: a
// broker answers an ApiVersions request of a version it does not support
// with UNSUPPORTED_VERSION and its own range, in the v0 layout (KIP-511),
// so an ApiVersions response above v0 that does not read cleanly at its
// request's version may be that answer. The v0 reading is the frame only
// when it reads cleanly itself (ReadCleanly); else the frame is what it
// was at ver.
func ApiVersionsFallback(key, ver int16, f *codec.Frame, err error) bool {
	return key == schema.KeyApiVersions && ver > 0 && !ReadCleanly(f, err)
}

// ReadCleanly reports whether a frame was read (as f, with err) with no
// error and no warning other than a limit hit.
func ReadCleanly(f *codec.Frame, err error) bool {
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
