//go:build js

package records

import "errors"

// deflate is not in the WebAssembly build: the compressors would add about
// half a megabyte to a module that must stay small, and the browser only
// needs them when a compressed batch's content was edited. Unchanged
// batches reuse their original compressed bytes and need no compressor.
func deflate(codec int, src []byte, magic0 bool) ([]byte, error) {
	return nil, errors.New("compressing a changed " + CodecName(codec) + " batch is not available in the browser build; use the kwire CLI or leave the batch unchanged")
}
