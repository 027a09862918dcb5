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
//
// The reader is handed on as its Read method alone (readFunc), never as
// a *gzip.Reader in an interface: that would keep the methods of the
// types it holds, gzip.Header's ModTime a time.Time, whose String links
// time's layout formatter, some 20 KB gzip (internal/sortfunc says more).
func newGunzip(r io.Reader) (io.Reader, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return readFunc(z.Read), nil
}

// readFunc is an io.Reader that is its Read method.
type readFunc func(p []byte) (int, error)

func (f readFunc) Read(p []byte) (int, error) { return f(p) }
