//go:build js && wasm

// Command inflate is the playground's decompression module (inflate.wasm),
// loaded the first time a compressed record batch or message set is
// decoded: kwire.wasm is built without the decompressors (the tag
// kwire_hostinflate, see internal/decompress), which with what they alone
// import are some 390 KB of gzip. It sets a global object kwireInflate
// with one function:
//
//	kwireInflate.inflate(codec, bytes, limit) -> {out: Uint8Array, warn, limit, ahead, error}
//
// which runs internal/decompress's decompressors: out holds what was made
// (also on failure: the bytes made before it), limit says the limit was
// passed, ahead that it would have been (a size the data says), error any
// other failure.
package main

import (
	"syscall/js"

	"github.com/kwire/kwire/internal/decompress"
	"github.com/kwire/kwire/wasm/internal/glue"
)

func main() {
	glue.Serve("kwireInflate", glue.Funcs{"inflate": inflate})
}

func inflate(_ js.Value, args []js.Value) any {
	if len(args) != 3 || args[1].Type() != js.TypeObject {
		return map[string]any{"error": "inflate(codec, bytes, limit)"}
	}
	out, warn, err := decompress.Decode(args[0].Int(), glue.Bytes(args[1]), args[2].Int())
	r := map[string]any{"out": glue.Uint8Array(out), "warn": warn}
	switch err {
	case nil:
	case decompress.ErrLimit:
		r["limit"] = true
	case decompress.ErrLimitAhead:
		r["ahead"] = true
	default:
		r["error"] = err.Error()
	}
	return r
}
