//go:build js && wasm

// Command wasm is the playground's WebAssembly module: thin glue between
// JavaScript and the codec, with no decoding logic of its own. It sets a
// global object kwire whose functions take and return strings, numbers and
// Uint8Arrays; results that are documents come back as JSON text written by
// the codec's own writers (no fmt, no reflection-based encoding).
//
// The last decoded frame stays here (see view.go), and the page asks for
// the part it shows: a window of tree rows, grid rows or JSON lines. A
// 1 MiB frame has some 100,000 nodes; writing them all out as JSON for the
// page would cost seconds, a window costs microseconds.
//
//	kwire.apis() -> JSON [{key,name,category,request:[lo,hi],response:[lo,hi]}]
//	kwire.parseInput(text|Uint8Array, mode) -> {bytes, format, sizePrefix, frames?: [offsets]} | {error, offset, line, column}
//	kwire.decode(bytes, response, apiKey, version, size) -> {summary: JSON text, buffers: [Uint8Array]} (see view.go)
//	kwire.treeRows, setOpen, reveal, gridRows, expandCell, cellAt, rowOf,
//	      jsonCount, jsonLines, nodeJSON, path, parentOf: windows on the decoded frame
//	kwire.encode(json, noSize) -> {bytes} | {error:{path, message}}
//	kwire.example(apiKey, version, response) -> value JSON text, or ""
//	kwire.guess(bytes, size) -> JSON [{apiKey, apiName, version, versions, score, confidence, doubts}]
//
// Reading pcap/pcapng captures lives in a second module (wasm/capture),
// which the page loads only when a capture is opened: linked into this one
// it would take the module past its 1.5 MB gzip budget (measured: 1.52 MB).
package main

import (
	"errors"
	"github.com/kwire/kwire/internal/jsontext"
	"runtime/debug"
	"strconv"
	"syscall/js"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/input"
	"github.com/kwire/kwire/internal/render"
)

// elideOver is the length beyond which a grid cell shows its first and last
// rows only; the page expands it on request.
const elideOver = 32

func main() {
	// Decoding a big frame allocates a tree that lives until the next one;
	// collecting less often keeps a 1 MiB frame's first screen fast.
	debug.SetGCPercent(400)
	k := js.Global().Get("Object").New()
	k.Set("apis", js.FuncOf(apis))
	k.Set("parseInput", js.FuncOf(parseInput))
	k.Set("decode", js.FuncOf(decode))
	k.Set("treeRows", js.FuncOf(treeRows))
	k.Set("setOpen", js.FuncOf(setOpen))
	k.Set("reveal", js.FuncOf(reveal))
	k.Set("gridRows", js.FuncOf(gridRows))
	k.Set("expandCell", js.FuncOf(expandCell))
	k.Set("cellAt", js.FuncOf(cellAt))
	k.Set("rowOf", js.FuncOf(rowOf))
	k.Set("jsonLines", js.FuncOf(jsonLines))
	k.Set("jsonCount", js.FuncOf(jsonCount))
	k.Set("nodeJSON", js.FuncOf(nodeJSON))
	k.Set("path", js.FuncOf(nodePath))
	k.Set("parentOf", js.FuncOf(parentOf))
	k.Set("encode", js.FuncOf(encode))
	k.Set("example", js.FuncOf(example))
	k.Set("guess", js.FuncOf(guess))
	js.Global().Set("kwire", k)
	warm()
	if cb := js.Global().Get("kwireReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}

// bytesArg copies a Uint8Array (or a string's UTF-8) into Go memory.
func bytesArg(v js.Value) []byte {
	if v.Type() == js.TypeString {
		return []byte(v.String())
	}
	if v.Type() != js.TypeObject {
		return nil
	}
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b
}

func bytesValue(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

func intArg(args []js.Value, i int) int {
	v := arg(args, i)
	if v.Type() != js.TypeNumber {
		return 0
	}
	return v.Int()
}

func apis(this js.Value, args []js.Value) any {
	dst := []byte{'['}
	for i, a := range schema.APIs() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"key":`...)
		dst = strconv.AppendInt(dst, int64(a.Key), 10)
		dst = append(dst, `,"name":`...)
		dst = strconv.AppendQuote(dst, a.Name)
		dst = append(dst, `,"category":`...)
		dst = strconv.AppendQuote(dst, a.Category.String())
		dst = appendRange(append(dst, `,"request":`...), a.Request.Valid)
		dst = appendRange(append(dst, `,"response":`...), a.Response.Valid)
		dst = append(dst, '}')
	}
	return string(append(dst, ']'))
}

func appendRange(dst []byte, r schema.Range) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendInt(dst, int64(r.Lo), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(r.Hi), 10)
	return append(dst, ']')
}

func parseInput(this js.Value, args []js.Value) any {
	mode, err := input.ParseMode(orDefault(arg(args, 1), "auto"))
	res := map[string]any{}
	if err != nil {
		res["error"] = err.Error()
		return res
	}
	b, format, err := input.Parse(bytesArg(arg(args, 0)), mode)
	if err != nil {
		res["error"] = err.Error()
		var ie *input.Error
		if errors.As(err, &ie) {
			res["offset"], res["line"], res["column"] = ie.Offset, ie.Line, ie.Column
		}
		return res
	}
	res["bytes"] = bytesValue(b)
	res["format"] = string(format)
	res["sizePrefix"] = input.HasSizePrefix(b)
	// Back-to-back size-prefixed frames (a stream's worth): their offsets.
	if frames, rest := input.SplitFrames(b, 0); len(frames) > 1 && len(rest) == 0 {
		offs := make([]any, 0, len(frames)+1)
		off := 0
		for _, f := range frames {
			offs = append(offs, off)
			off += len(f)
		}
		res["frames"] = append(offs, off)
	}
	return res
}

func orDefault(v js.Value, d string) string {
	if v.Type() == js.TypeString && v.String() != "" {
		return v.String()
	}
	return d
}

// sized says whether b carries its 4-byte size prefix: size is "yes", "no"
// or "auto" (the same rule as the CLI's --size auto for one frame).
func sized(b []byte, size string) bool {
	switch size {
	case "yes":
		return true
	case "no":
		return false
	}
	return input.LooksSizePrefixed(b)
}

func appendError(dst []byte, err error) []byte {
	var de *codec.DecodeError
	switch {
	case err == nil:
		return append(dst, `null`...)
	case errors.As(err, &de):
		dst = append(dst, `{"offset":`...)
		dst = strconv.AppendInt(dst, int64(de.Offset), 10)
		dst = append(dst, `,"buf":`...)
		dst = strconv.AppendInt(dst, int64(de.Buf), 10)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"path":`...), de.Path)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"expected":`...), de.Expected)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"found":`...), de.Found)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"message":`...), de.Error())
		return append(dst, '}')
	}
	dst = jsontext.AppendHTMLSafe(append(dst, `{"offset":-1,"message":`...), err.Error())
	return append(dst, '}')
}

// encode(json, noSize) encodes value JSON into a frame.
func encode(this js.Value, args []js.Value) any {
	js := []byte(orDefault(arg(args, 0), ""))
	b, err := codec.EncodeJSON(js, codec.EncodeOptions{NoSizePrefix: arg(args, 1).Truthy()})
	if err != nil {
		e := map[string]any{"message": err.Error(), "path": ""}
		var ee *codec.EncodeError
		if errors.As(err, &ee) {
			e["path"], e["message"] = ee.Path, ee.Msg
		}
		return map[string]any{"error": e}
	}
	return map[string]any{"bytes": bytesValue(b)}
}

// example(apiKey, version, response) is the value JSON of the example
// frame for an API, version and direction, indented.
func example(this js.Value, args []js.Value) any {
	api := schema.ByKey(int16(intArg(args, 0)))
	if api == nil {
		return ""
	}
	v, resp := int16(intArg(args, 1)), arg(args, 2).Truthy()
	b, err := codec.ExampleFrame(api, v, resp)
	if err != nil {
		return ""
	}
	f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
	if err != nil {
		return ""
	}
	return indent(f.AppendJSON(nil, codec.JSONOptions{}))
}

func indent(b []byte) string {
	return string(indentJSON(nil, b))
}

// guess(bytes, size) ranks the readings of a response of unknown API and
// version.
func guess(this js.Value, args []js.Value) any {
	b := bytesArg(arg(args, 0))
	hasSize := sized(b, orDefault(arg(args, 1), "auto"))
	cands := codec.GuessResponse(b, codec.GuessOptions{NoSizePrefix: !hasSize})
	dst := []byte{'['}
	for i, c := range cands {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"apiKey":`...)
		dst = strconv.AppendInt(dst, int64(c.APIKey), 10)
		if a := schema.ByKey(c.APIKey); a != nil {
			dst = jsontext.AppendHTMLSafe(append(dst, `,"apiName":`...), a.Name)
		}
		dst = append(dst, `,"version":`...)
		dst = strconv.AppendInt(dst, int64(c.Version), 10)
		dst = append(dst, `,"versions":[`...)
		for j, v := range c.Versions {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, int64(v), 10)
		}
		dst = append(dst, `],"score":`...)
		dst = strconv.AppendFloat(dst, c.Score, 'f', 1, 64)
		dst = append(dst, `,"confidence":`...)
		dst = strconv.AppendFloat(dst, c.Confidence, 'f', 3, 64)
		dst = append(dst, `,"doubts":[`...)
		for j, d := range c.Doubts {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendHTMLSafe(dst, d)
		}
		dst = append(dst, "]}"...)
	}
	return string(append(dst, ']'))
}

func asDecodeError(err error, de **codec.DecodeError) bool {
	return err != nil && errors.As(err, de)
}

// warm decodes and lays out an example Produce request once, so the
// browser has compiled the decoder's code before the first real frame.
func warm() {
	api := schema.ByKey(0)
	if api == nil {
		return
	}
	b, err := codec.ExampleFrame(api, api.Request.Valid.Hi, false)
	if err != nil {
		return
	}
	f, _ := codec.Decode(b, codec.Options{})
	cells := render.Cells(f, 0)
	render.Layout(cells, 4, elideOver, nil)
	indentJSON(nil, f.AppendJSON(nil, codec.JSONOptions{}))
}
