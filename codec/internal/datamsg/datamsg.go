// Package datamsg is how packages inside codec (codec/storage) reach the
// codec's data-message decoder and encoder without the codec's public API
// growing for them: package codec sets both functions when it loads, so a
// package that imports codec finds them set.
package datamsg

import (
	"github.com/kwire/kwire/codec/internal/slab"
	"github.com/kwire/kwire/codec/tree"
)

// Decode decodes buf[start:end] (buffer bufIdx) as the data message name
// at version, into nodes from s, with the codec's default limits for that
// many bytes. The node spans [start, end) when it succeeds; the error, a
// *codec.DecodeError, has the offset and field path.
var Decode func(s *slab.Slab, name string, version int16, buf []byte, bufIdx, start, end int) (*tree.Node, error)

// Encode appends the data message name at version (the newest layout for
// a version newer than known) from its value, path naming it for errors.
var Encode func(dst []byte, name string, version int16, v map[string]any, path string) ([]byte, error)
