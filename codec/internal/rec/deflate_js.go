//go:build js

package rec

import "errors"

// deflate is not in the WebAssembly build: the compressors would add about
// half a megabyte to a module that must stay small. Content that is
// unchanged reuses its original compressed bytes and needs no compressor;
// edited content inside a compressed batch or wrapper is refused here
// (Encode puts the path in front), never written with stale bytes.
func deflate(codec int, src []byte, magic0 bool) ([]byte, error) {
	return nil, errors.New("expected the compressed content as it was, found it changed: compressing it with " + CodecName(codec) + " is not available in the browser build; encode it with the kwire CLI, or leave the compressed content as it was")
}
