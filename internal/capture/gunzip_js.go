//go:build js && wasm && kwire_hostinflate

package capture

import (
	"compress/gzip"
	"io"
)

// newGunzip reads a gzipped capture with the standard library's gunzip in
// the browser's capture.wasm, built with kwire_hostinflate: its record
// batches are inflated by inflate.wasm, so klauspost/compress's flate
// and gzip were linked for this alone, and cost it 21 KB gzip
// (1,663,885 -> 1,642,881 bytes), compress/flate being linked already
// (klauspost's gzip imports it). Both read the same streams (every
// member, checked by CRC-32 and size) with the same errors.
func newGunzip(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }
