//go:build js && wasm

// Package glue is what the playground's WebAssembly modules (wasm,
// wasm/capture, wasm/storage, wasm/inflate) share where they meet
// JavaScript: reading arguments, copying bytes across, publishing a
// module's global object, and answering with a Promise where a function
// has to wait for JavaScript (async.go: reading a File in slices).
package glue

import "syscall/js"

// Arg is args[i], or undefined when the caller passed fewer.
func Arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// String is args[i] when it is a string, else "".
func String(args []js.Value, i int) string {
	if v := Arg(args, i); v.Type() == js.TypeString {
		return v.String()
	}
	return ""
}

// Bytes copies a Uint8Array into Go memory; anything else is nil.
func Bytes(v js.Value) []byte {
	if v.Type() != js.TypeObject {
		return nil
	}
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b
}

// Uint8Array copies b into a new Uint8Array.
func Uint8Array(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

// Funcs are a module's functions by the names the page calls them by.
type Funcs map[string]func(this js.Value, args []js.Value) any

// Serve sets the global object name with funcs, calls the page's
// name+"Ready" callback when it has one (the page waits on it for the
// module), and keeps the module running for the calls to come.
func Serve(name string, funcs Funcs) {
	k := js.Global().Get("Object").New()
	for n, f := range funcs {
		k.Set(n, js.FuncOf(f))
	}
	js.Global().Set(name, k)
	if cb := js.Global().Get(name + "Ready"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}
