//go:build js && wasm

package glue

import (
	"errors"
	"syscall/js"

	"github.com/kwire/kwire/internal/textfmt"
)

// A js.FuncOf callback must not block: JavaScript waits for it, so a
// promise it waited on could never settle. A function that has to wait
// for JavaScript (a file read, say) answers a Promise instead and does its
// work in a goroutine of its own (Promise), which waits on promises
// through Await.

// Promise runs work in a new goroutine and answers a Promise of its
// result: resolved with its value, rejected with an Error of its error's
// text (or of a panic's, which the module survives).
func Promise(work func() (any, error)) js.Value {
	var resolve, reject js.Value
	exec := js.FuncOf(func(this js.Value, args []js.Value) any {
		resolve, reject = Arg(args, 0), Arg(args, 1)
		return nil
	})
	p := js.Global().Get("Promise").New(exec) // the executor runs now
	exec.Release()
	go func() {
		v, err := func() (v any, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = errors.New(textfmt.Sprintf("internal error: %v", r))
				}
			}()
			return work()
		}()
		if err != nil {
			reject.Invoke(js.Global().Get("Error").New(err.Error()))
			return
		}
		resolve.Invoke(v)
	}()
	return p
}

// Await waits for the promise p to settle: its value, or an error of the
// reason it was rejected with. It blocks its goroutine, so it is called
// only from one (Promise's work, a test), never from a callback.
func Await(p js.Value) (js.Value, error) {
	type settled struct {
		v   js.Value
		err error
	}
	ch := make(chan settled, 1)
	ok := js.FuncOf(func(this js.Value, args []js.Value) any {
		ch <- settled{v: Arg(args, 0)}
		return nil
	})
	fail := js.FuncOf(func(this js.Value, args []js.Value) any {
		reason := Arg(args, 0)
		if m := reason.Get("message"); reason.Type() == js.TypeObject && m.Type() == js.TypeString {
			reason = m
		}
		ch <- settled{err: errors.New(js.Global().Get("String").Invoke(reason).String())}
		return nil
	})
	p.Call("then", ok, fail)
	s := <-ch
	ok.Release()
	fail.Release()
	return s.v, s.err
}

// ReadBlob reads the bytes of blob (a Blob or File) from off into p, as
// many as there are up to len(p): one slice of it read by the browser,
// awaited (so only from a goroutine, as Await). It answers how many it
// read.
func ReadBlob(blob js.Value, off int64, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	ab, err := Await(blob.Call("slice", off, off+int64(len(p))).Call("arrayBuffer"))
	if err != nil {
		return 0, err
	}
	return js.CopyBytesToGo(p, js.Global().Get("Uint8Array").New(ab)), nil
}
