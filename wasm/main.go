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
//	kwire.parseInput(text|Uint8Array, mode) -> {bytes, format, packet?, sizePrefix, frames?: [offsets]} | {error, offset, line, column, packets}
//	      (packets: the text may be several packets' dumps, for the capture module to read)
//	kwire.decode(bytes, response, apiKey, version, size, data) -> {summary: JSON text, buffers: [Uint8Array]} (see view.go)
//	kwire.treeRows, setOpen, reveal, gridRows, expandCell, cellAt, rowOf,
//	      jsonCount, jsonLines, jsonNodeAt, jsonSpanOf, nodeJSON, path, parentOf: windows on
//	      the decoded frame
//	kwire.encode(json, noSize) -> {bytes} | {error:{path, message}}
//	kwire.example(apiKey, version, response) -> value JSON text, or ""
//	kwire.guess(bytes, size, api, version) -> JSON [{apiKey, apiName, version, versions, score, confidence, doubts}]
//	kwire.partial(bytes, size) -> JSON [{apiKey, apiName, version, offset, message}]: readings of a
//	      response that fail, furthest first (a truncated frame still shows its partial tree)
//	kwire.exampleFrame(apiKey, version, response) -> Uint8Array of the example frame, or null
//	kwire.scanExchanges(frames, apiKeys, versions) -> JSON {exchanges: [{clientId, errors, requestError, responseError}], notes: [text]}
//	      (an apiKey of -2: raw SASL tokens, not decoded)
//	kwire.use(slot) selects which decoded frame (0 main, 1 a second, 2 encode mode's,
//	      3 the worker's warm-up) the window functions read and decode replaces
//	kwire.mem() -> JSON {heapAlloc, heapSys}: the Go heap, for tests and the curious
//
// # Limits
//
// The browser decodes with its own, smaller limits than the CLI (see
// browserLimits): a wasm32 heap cannot grow past 4 GB, the page holds
// the decoded tree for as long as it is shown, and a page that stops
// answering for a minute is as broken as one that ran out of memory.
// Reading pcap/pcapng captures lives in a second module (wasm/capture),
// which the page loads only when a capture is opened: linked into this one
// it would take the module past its 1.5 MB gzip budget (measured: 1.52 MB).
package main

import (
	"encoding/binary"
	"errors"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall/js"
	"unicode/utf8"

	"github.com/kwire/kwire/codec/jsontext"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/capture/summary"
	"github.com/kwire/kwire/internal/encinput"
	"github.com/kwire/kwire/internal/input"
	"github.com/kwire/kwire/internal/topicids"
	"github.com/kwire/kwire/wasm/internal/glue"
)

// The browser's limits, through codec.Options: half the CLI's
// (the codec's default nodes and bytes decompressed), as the page says ("the
// browser decodes with smaller limits than the kwire command line"). A
// decoded node costs 1 to 1.5 KB of live heap here (measured in Chromium:
// a frame cut at 2^20 nodes held 1057 MiB, one cut at 2^19 held 779 MiB):
// the codec's node (192 bytes) and its child pointer, the view's
// per-node index (parent, depth, open state, row), the grid cell that
// draws it with its label and path, the grid rows, and, once the JSON pane
// asks, the indented JSON and the maps between its lines and the nodes.
// So MaxNodes of 2^18 is under 400 MiB live at worst, inside memoryLimit
// and far from wasm32's 4 GB; it is still more than twice what a 1 MiB
// Fetch response of 10,000 records needs (about 110,000 nodes). Under
// node, the hostile corpus (wasm/hostile_test.go) grows the heap by at
// most 240 MiB a frame and 450 MiB in all (2^19 and 32 MiB took it to
// 980 MiB). Decompressed bytes are held twice (in Go and, for the hex
// pane, in JavaScript) and each byte can become nodes, so the browser
// inflates at most 16 MiB per frame. Guessing a response's API decodes
// the likeliest reading in full, so it takes the same limits. Real Kafka
// never nests a compressed message-set wrapper inside another, so two
// levels are plenty.
const (
	browserMaxNodes         = 1 << 18
	browserMaxDecompressed  = 16 << 20
	browserMaxRecordNesting = 2
	memoryLimit             = 2 << 30
)

// browserLimits sets the browser's limits on o (field by field, so the
// code reads the same whether the limits sit in Options or in an
// embedded Limits).
func browserLimits(o *codec.Options) {
	o.MaxNodes = browserMaxNodes
	o.MaxDecompressed = browserMaxDecompressed
	o.MaxRecordNesting = browserMaxRecordNesting
}

// module is what sets this build apart: kwire.wasm's defaults here;
// payload.go (the tag kwire_payload) makes payload.wasm, the same glue
// that also reads record payloads, from the same package.
var module = struct {
	global string // the global object's name, and with "Ready" the callback's
	setup  func(k js.Value)
	// payload reads record keys and values (Options.Payload); nil here,
	// so kwire.wasm links none of the payload decoders.
	payload func(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node)
}{global: "kwire"}

// elideOver is the length beyond which a grid cell shows its first and last
// rows only; the page expands it on request.
const elideOver = 32

func main() {
	// Decoding a big frame allocates a tree that lives until the next one;
	// collecting less often keeps a 1 MiB frame's first screen fast.
	debug.SetGCPercent(400)
	// A soft ceiling well under wasm32's 4 GB: near it the collector runs
	// as often as it must instead of letting garbage grow the heap.
	debug.SetMemoryLimit(memoryLimit)
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
	k.Set("jsonNodeAt", js.FuncOf(jsonNodeAt))
	k.Set("jsonSpanOf", js.FuncOf(jsonSpanOf))
	k.Set("nodeJSON", js.FuncOf(nodeJSON))
	k.Set("setJSONForm", js.FuncOf(setJSONForm))
	k.Set("path", js.FuncOf(nodePath))
	k.Set("parentOf", js.FuncOf(parentOf))
	k.Set("encode", js.FuncOf(encode))
	k.Set("example", js.FuncOf(example))
	k.Set("guess", js.FuncOf(guess))
	k.Set("partial", js.FuncOf(partial))
	k.Set("exampleFrame", js.FuncOf(exampleFrame))
	k.Set("scanExchanges", js.FuncOf(scanExchanges))
	k.Set("use", js.FuncOf(use))
	k.Set("mem", js.FuncOf(mem))
	if module.setup != nil {
		module.setup(k)
	}
	js.Global().Set(module.global, k)
	if cb := js.Global().Get(module.global + "Ready"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}

// bytesArg copies a Uint8Array (or a string's UTF-8) into Go memory.
func bytesArg(v js.Value) []byte {
	if v.Type() == js.TypeString {
		return []byte(v.String())
	}
	return glue.Bytes(v)
}

var bytesValue, arg = glue.Uint8Array, glue.Arg

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
		dst = strconv.AppendQuote(dst, a.Category)
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
	text := bytesArg(arg(args, 0))
	b, format, err := input.Parse(text, mode)
	if err != nil {
		// Several packets' dumps (tshark -x of a capture) are no frame:
		// the page hands such a text to the capture module, which reads it
		// (input.ParsePackets, some 19 KB gzip that this module leaves
		// out) as the capture it was printed from, as kwire pcap does, and
		// shows this error if it is no such text after all.
		if mode == input.Auto || mode == input.Hex {
			res["packets"] = input.MaybePackets(text)
		}
		res["error"] = err.Error()
		var ie *input.Error
		if errors.As(err, &ie) {
			// The page words the position itself: no "input:" prefix.
			res["error"] = ie.Msg
			res["offset"], res["line"], res["column"] = ie.Offset, ie.Line, ie.Column
		}
		return res
	}
	// A whole captured packet (tcpdump -X, tshark -x): its TCP payload,
	// which the page's status says.
	if payload, pkt, ok := input.StripPacket(b); ok {
		if len(payload) == 0 {
			res["error"] = pkt.String()
			return res
		}
		res["packet"] = pkt.String()
		b = payload
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

// sized says whether b carries its 4-byte size prefix: size is the page's
// size switch (sizeMode).
func sized(b []byte, size js.Value) bool { return sizeMode(size).Sized(b) }

// sizeMode is the page's size switch: "yes", "no" or "auto"
// (input.SizeMode; an unknown word is auto).
func sizeMode(size js.Value) input.SizeMode {
	m, _ := input.ParseSizeMode(orDefault(size, "auto"))
	return m
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
	// A byte order mark before the JSON (as editors on Windows save it)
	// is skipped, as kwire encode and the API skip it; an error's line
	// and column still count it, as the text box holds it.
	bom := input.BOMLen(js)
	// Parsed once, for the encoder and the fields left out: JSON that
	// does not parse is the encoder's to say why, as for any text.
	var in any = js[bom:]
	if v, err := jsontext.Parse(js[bom:]); err == nil {
		in = v
	}
	b, err := codec.Encode(nil, in, codec.EncodeOptions{NoSizePrefix: arg(args, 1).Truthy()})
	if err != nil {
		e := map[string]any{"message": err.Error(), "path": ""}
		var ee *codec.EncodeError
		if errors.As(err, &ee) {
			e["path"], e["message"] = ee.Path, ee.Msg
		}
		// A syntax error: its line and column (in characters), which
		// the page shows and jumps to.
		var se *jsontext.SyntaxError
		if errors.As(err, &se) && se.Offset >= 0 && bom+se.Offset <= len(js) {
			line, col := lineColumn(js, bom+se.Offset)
			e["line"], e["column"], e["syntax"] = line, col, se.Msg
		}
		return map[string]any{"error": e}
	}
	r := map[string]any{"bytes": bytesValue(b)}
	if len(js) <= notGivenMax {
		// The fields left out, written as their defaults, said as kwire
		// encode says them.
		if ps := encinput.NotGiven(in); len(ps) > 0 {
			r["notGiven"] = encinput.NotGivenNote(ps)
		}
	}
	return r
}

// notGivenMax is the longest JSON encode looks into for fields left out:
// JSON past it is a frame's decoded whole (a 1 MB frame's is some 5 MB),
// which leaves none out, and its walk is not spent.
const notGivenMax = 1 << 20

// lineColumn is the 1-based line and column (in characters) of byte off.
func lineColumn(b []byte, off int) (line, col int) {
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if b[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(b[start:off]) + 1
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
	return string(jsontext.Indent(nil, f.AppendJSON(nil)))
}

// exampleFrame(apiKey, version, response) is the example frame's bytes.
func exampleFrame(this js.Value, args []js.Value) any {
	api := schema.ByKey(int16(intArg(args, 0)))
	if api == nil {
		return js.Null()
	}
	b, err := codec.ExampleFrame(api, int16(intArg(args, 1)), arg(args, 2).Truthy())
	if err != nil {
		return js.Null()
	}
	return bytesValue(b)
}

// guess(bytes, size, api, version) ranks the readings of a response of
// unknown API or version: an api or version given (a number from 0 to
// 32767; else either is unknown) keeps the readings of that API or
// version alone, as codec.Decode's guess does.
func guess(this js.Value, args []js.Value) any {
	b := bytesArg(arg(args, 0))
	hasSize := sized(b, arg(args, 1))
	o := codec.Options{Response: true, APIKey: given(arg(args, 2)), Version: given(arg(args, 3)), NoSizePrefix: !hasSize}
	browserLimits(&o) // guessing too: it decodes the likeliest reading in full
	var cands []codec.Candidate
	if f, _ := codec.Decode(b, o); f.Guess != nil {
		cands = f.Guess.Candidates[:min(len(f.Guess.Candidates), 8)]
	}
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

// given is an API key or version the page gave (a number from 0 to
// 32767), else codec.Any.
func given(v js.Value) int16 {
	if v.Type() != js.TypeNumber {
		return codec.Any
	}
	if f := v.Float(); f >= 0 && f <= 32767 && f == float64(int16(f)) {
		return int16(f)
	}
	return codec.Any
}

// partialOver is the largest response partial() reads every way: each
// API and version is one decode, about a thousand of them.
const partialOver = 64 << 10

// partial(bytes, size) lists the readings of a response that no API and
// version reads cleanly (a truncated frame, say), the likeliest first
// (partialReadings): the page draws the first one's partial tree with the
// error at its byte, so the bytes that are there still mean something.
// Frames larger than partialOver are not tried.
func partial(this js.Value, args []js.Value) any {
	b := bytesArg(arg(args, 0))
	if len(b) > partialOver {
		return "[]"
	}
	dst := []byte{'['}
	for i, r := range partialReadings(b, sized(b, arg(args, 1))) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"apiKey":`...)
		dst = strconv.AppendInt(dst, int64(r.api.Key), 10)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"apiName":`...), r.api.Name)
		dst = append(dst, `,"version":`...)
		dst = strconv.AppendInt(dst, int64(r.v), 10)
		dst = append(dst, `,"offset":`...)
		dst = strconv.AppendInt(dst, int64(r.off), 10)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"message":`...), r.msg)
		dst = append(dst, '}')
	}
	return string(append(dst, ']'))
}

// reading is a response reading that failed in the frame's own bytes.
type reading struct {
	api      *schema.API
	v        int16
	off      int
	msg      string
	warnings int  // lenient readings before the failure
	cut      bool // the failure is the frame's bytes ending
}

// partialReadings reads b as a response of every API and version and
// keeps the five likeliest of those that fail in b's own bytes. A reading
// with fewer warnings (nulls where the schema has none, text that is not
// UTF-8: what a wrong reading finds) ranks first; then one the cut
// explains (it ran out of bytes, or a length it read would fit the frame
// its size prefix declares) above one that found an impossible value;
// then the one that read further.
func partialReadings(b []byte, hasSize bool) []reading {
	declared := len(b)
	if hasSize && len(b) >= 4 {
		declared = 4 + int(binary.BigEndian.Uint32(b))
	}
	better := func(a, b reading) bool {
		if a.warnings != b.warnings {
			return a.warnings < b.warnings
		}
		return a.cut && !b.cut || a.cut == b.cut && a.off > b.off
	}
	var best []reading
	for _, api := range schema.APIs() {
		for v := api.Response.Valid.Lo; v <= api.Response.Valid.Hi; v++ {
			o := codec.Options{Response: true, APIKey: api.Key, Version: v, NoSizePrefix: !hasSize, Kafka: true}
			o.MaxNodes = 8*len(b) + 64
			f, err := codec.Decode(b, o)
			var de *codec.DecodeError
			if err == nil || !errors.As(err, &de) || de.Buf != 0 {
				continue
			}
			r := reading{api: api, v: v, off: de.Offset, msg: de.Error()}
			if f != nil {
				r.warnings = len(f.Warnings)
			}
			r.cut = de.Offset >= len(b) || strings.Contains(de.Found, "left") || strings.Contains(de.Found, "end")
			if n, err := strconv.Atoi(strings.SplitN(de.Found, " ", 2)[0]); err == nil && len(b) < declared && de.Offset+n <= declared {
				r.cut = true // a length the whole frame would hold
			}
			i := len(best)
			for i > 0 && better(r, best[i-1]) {
				i--
			}
			if i < 5 {
				best = slices.Insert(best, i, r)
				best = best[:min(len(best), 5)]
			}
		}
	}
	return best
}

// scanExchanges(frames, apiKeys, versions) decodes a capture's frames
// (frames[2i] the request, frames[2i+1] the response of exchange i, null
// where missing) without their records, for the capture table: the
// request's client id, the error codes a response carries (named), and
// whether either side failed to decode. "errors" are the codes that mean
// a failure, "expected" those that are a normal step of a protocol
// (MEMBER_ID_REQUIRED answering a first JoinGroup, say). "notes" are
// what the page adds to the capture's notes: the one that says, once a
// session, that captureTopics knows topicids.MaxNames ids and learns no
// more (kwire pcap prints it with its notes). An API key of -2 (scanSASL)
// marks raw SASL tokens (the capture's "saslToken" exchanges): no Kafka
// frames, so neither side is decoded and the exchange has no client id
// or error codes.
//
// captureTopics names the topic ids the Metadata responses of the
// captures read so far name: decode gives them to the codec, so that the
// records of an internal topic fetched by id decode.
var captureTopics topicids.Names

// scanSASL is scanExchanges' API key for raw SASL tokens.
const scanSASL = -2

func scanExchanges(this js.Value, args []js.Value) any {
	frames, keys, vers := arg(args, 0), arg(args, 1), arg(args, 2)
	n := keys.Get("length").Int()
	var dec codec.Decoder
	dst := []byte(`{"exchanges":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		key, ver := int16(keys.Index(i).Int()), int16(vers.Index(i).Int())
		if req := frames.Index(2 * i); req.Truthy() && key != scanSASL {
			o := codec.Options{Kafka: true}
			browserLimits(&o)
			f, err := dec.Decode(bytesArg(req), o)
			dst = append(dst, `"clientId":`...)
			if c := clientID(f); c != nil {
				dst = jsontext.AppendHTMLSafe(dst, *c)
			} else {
				dst = append(dst, "null"...)
			}
			if err != nil {
				dst = jsontext.AppendHTMLSafe(append(dst, `,"requestError":`...), err.Error())
			}
			dst = append(dst, ',')
		}
		dst = append(dst, `"errors":[`...)
		if resp := frames.Index(2*i + 1); resp.Truthy() && key >= 0 {
			o := codec.Options{Response: true, APIKey: key, Version: ver, Kafka: true}
			browserLimits(&o)
			f, err := dec.Decode(bytesArg(resp), o)
			if topicids.Learns(key) {
				captureTopics.Learn(f) // the topic ids Fetch and Produce name topics by
			}
			codes := errorCodes(f)
			dst = appendCodes(dst, codes, key, false)
			dst = appendCodes(append(dst, `],"expected":[`...), codes, key, true)
			dst = append(dst, ']')
			if err != nil {
				dst = jsontext.AppendHTMLSafe(append(dst, `,"responseError":`...), err.Error())
			}
		} else {
			dst = append(dst, `],"expected":[]`...)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"notes":[`...)
	if s := captureTopics.FullNote(); s != "" {
		dst = jsontext.AppendHTMLSafe(dst, s)
	}
	return string(append(dst, "]}"...))
}

// appendCodes writes the names of the codes that are (expected) or are not
// a normal step of a protocol in a response of the API (summary.Expected).
func appendCodes(dst []byte, codes []int16, key int16, expected bool) []byte {
	n := 0
	for _, c := range codes {
		if summary.Expected(key, c) != expected {
			continue
		}
		if n > 0 {
			dst = append(dst, ',')
		}
		n++
		name := schema.ErrorName(c)
		if name == "" {
			name = strconv.Itoa(int(c))
		}
		dst = jsontext.AppendHTMLSafe(dst, name)
	}
	return dst
}

// clientID is a request header's client id, nil when it has none.
func clientID(f *codec.Frame) *string {
	if f == nil || f.Header == nil {
		return nil
	}
	for _, c := range f.Header.Children {
		if c.Field != nil && c.Field.Name == "ClientId" && !c.Null {
			s := string(c.Raw)
			return &s
		}
	}
	return nil
}

// errorCodes lists the distinct non-zero error codes in a response, in
// the order they first appear.
func errorCodes(f *codec.Frame) []int16 {
	if f == nil || f.Body == nil {
		return nil
	}
	var out []int16
	tree.Walk(f.Body, func(n *tree.Node) bool {
		if n.Field != nil && n.Kind == schema.Int16 && n.Int != 0 && strings.HasSuffix(n.Field.Name, "ErrorCode") {
			for _, c := range out {
				if c == int16(n.Int) {
					return true
				}
			}
			out = append(out, int16(n.Int))
		}
		return true
	})
	return out
}

// mem() reports the Go heap.
func mem(this js.Value, args []js.Value) any {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	dst := []byte(`{"heapAlloc":`)
	dst = strconv.AppendUint(dst, m.HeapAlloc, 10)
	dst = append(dst, `,"heapSys":`...)
	dst = strconv.AppendUint(dst, m.HeapSys, 10)
	return string(append(dst, '}'))
}

func asDecodeError(err error, de **codec.DecodeError) bool {
	return err != nil && errors.As(err, de)
}
