//go:build !(js && wasm && kwire_hostinflate)

package capture

import (
	"io"

	"github.com/klauspost/compress/gzip"
)

// newGunzip reads a gzipped capture with klauspost/compress's gunzip, about
// 1.5 times as fast as the standard library's, and linked anyway by
// internal/decompress's native decompressors (gunzip_js.go says why the
// browser's modules differ).
func newGunzip(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }
