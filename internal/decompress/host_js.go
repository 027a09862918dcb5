//go:build js && wasm && kwire_hostinflate

package decompress

import (
	"errors"
	"syscall/js"
)

// decode asks the host for the bytes: globalThis.kwireInflate.inflate
// (codec, src, limit), which wasm/inflate (inflate.wasm) defines with
// native.go's Decode and which answers {out, warn, limit, ahead, error}.
// When it is not there yet, globalThis.kwireInflateLoad() is called first:
// the page loads inflate.wasm then, synchronously (decoding is synchronous;
// the playground's worker.js does it).
func decode(dst []byte, codec int, src []byte, limit int) ([]byte, string, error) {
	g := js.Global()
	k := g.Get("kwireInflate")
	if k.Type() != js.TypeObject {
		if load := g.Get("kwireInflateLoad"); load.Type() == js.TypeFunction {
			if err := call(load); err != nil {
				return dst[:0], "", errors.New("the decompressors (inflate.wasm) could not be loaded: " + err.Error())
			}
			k = g.Get("kwireInflate")
		}
		if k.Type() != js.TypeObject {
			return dst[:0], "", errors.New("the decompressors (inflate.wasm) are not loaded in this page")
		}
	}
	in := g.Get("Uint8Array").New(len(src))
	js.CopyBytesToJS(in, src)
	r := k.Call("inflate", codec, in, limit)
	var warn string
	if w := r.Get("warn"); w.Type() == js.TypeString {
		warn = w.String()
	}
	out := dst[:0]
	if o := r.Get("out"); o.Type() == js.TypeObject {
		n := o.Get("length").Int()
		if cap(out) < n {
			out = make([]byte, n)
		}
		out = out[:n]
		js.CopyBytesToGo(out, o)
	}
	switch {
	case r.Get("ahead").Truthy():
		return out, warn, ErrLimitAhead
	case r.Get("limit").Truthy():
		return out, warn, ErrLimit
	case r.Get("error").Type() == js.TypeString:
		return out, warn, errors.New(r.Get("error").String())
	}
	return out, warn, nil
}

// call calls f, turning a JavaScript exception into an error.
func call(f js.Value) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(js.Error); ok {
				err = e
			} else {
				err = errors.New("kwireInflateLoad failed")
			}
		}
	}()
	f.Invoke()
	return nil
}
