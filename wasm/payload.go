//go:build js && wasm && kwire_payload

// payload.wasm: the playground's glue (this package) built with the tag
// kwire_payload, which adds the record payload decoders (codec/payload:
// Avro, Protobuf, JSON Schema, some 2 MB of gzip that kwire.wasm does not
// carry). The page's worker loads it the first time the user gives
// schemas (files, pasted text, a registry URL) and from then on runs every
// op through it. Its global object is kwirePayload: kwire's functions,
// and
//
//	kwirePayload.schemas(names, texts, registryURL, retryMs?) -> JSON {"files": n, "registry": URL|"", "problems"?: [{"name", "problem"}]} | {"error"}
//	kwirePayload.registryStatus() -> JSON {"requests", "failed", "error"?, "retryIn"?}
//	kwirePayload.payloads(topic, packed) -> JSON lines, a row each
//	kwirePayload.payload(topic, isKey, bytes, detail) -> JSON | [JSON drawn, JSON value]
//
// payloads and payload read a segment's keys and values for storage.wasm
// (wasm/storage), which the worker hands this module once it runs:
// storage.wasm carries no payload decoder, and an ordinary topic's records
// in the storage view are read with the schemas given, as kwire log
// --schemas reads them. payloads reads a batch's keys and values at once
// (the listing's rows: see payloadsOf), payload one, the record drawn
// (its grid rows and tree as wasm/internal/partview draws a part, and its
// value JSON; see payloadJSON).
//
// schemas replaces the schema sources with the files given (names as in
// kwire decode --schemas DIR: ID.avsc, TOPIC-value.proto, imports by
// their path) and the registry at registryURL ("" for none), asked from
// the browser by GET /schemas/ids/ID (synchronous XMLHttpRequest: the
// worker's decode is synchronous), so the registry must allow the page's
// origin (CORS). Frames decoded after it read their payloads with them.
// files counts the files a lookup can use; problems says, by name, why
// each other cannot be (a name no lookup reads, a schema that does not
// parse, with where).
// A registry that gave no answer is asked again by the first lookup after
// a backoff, as kwire proxy's is: 30 s, doubling up to 5 minutes
// (retryMs, when given, is the first wait instead, the most ten times it:
// the page's tests pass a short one); lookups in between fail at once.
// registryStatus's retryIn is then the milliseconds until it is asked
// again (0: by the next decode).
package main

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall/js"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/registry/resolve"
	"github.com/kwire/kwire/wasm/internal/glue"
	"github.com/kwire/kwire/wasm/internal/partview"
)

// registryTimeout bounds each request to the registry, in milliseconds.
const registryTimeout = 10_000

// registryState counts the registry's requests for registryStatus; reg is
// the registry given (nil for none), unreachable says last is its error
// of giving no answer, which an answer clears.
var registryState struct {
	requests, failed int
	last             string
	unreachable      bool
	reg              *resolve.Registry
}

func init() {
	module.global = "kwirePayload"
	module.setup = func(k js.Value) {
		k.Set("schemas", js.FuncOf(schemas))
		k.Set("registryStatus", js.FuncOf(registryStatus))
		k.Set("payload", js.FuncOf(payloadOf))
		k.Set("payloads", js.FuncOf(payloadsOf))
	}
	// With no schemas given, payloads still show as text, JSON and the
	// registry's framing.
	setDecoder(payload.NewDecoder(nil, payload.Config{}))
}

// dec reads the payloads: module.payload is its Decode (the frames'
// records), payloadOf its DecodeBytes (a segment's, for storage.wasm).
var dec *payload.Decoder

func setDecoder(d *payload.Decoder) {
	dec = d
	module.payload = d.Decode
}

func schemas(this js.Value, args []js.Value) any {
	names, texts, raw, retry := arg(args, 0), arg(args, 1), arg(args, 2), arg(args, 3)
	files := fstest.MapFS{}
	if names.Type() == js.TypeObject && texts.Type() == js.TypeObject {
		n := names.Get("length").Int()
		if texts.Get("length").Int() != n {
			return errJSON("schemas(names, texts, url): as many texts as names")
		}
		for i := 0; i < n; i++ {
			name := names.Index(i).String()
			if !fs.ValidPath(name) || name == "." {
				return errJSON("a schema file's name must be a relative path such as 7.avsc or acme/money.proto, not " + strconv.Quote(name))
			}
			text := texts.Index(i).String()
			if len(text) > resolve.MaxFile {
				return errJSON(name + ": longer than " + strconv.Itoa(resolve.MaxFile) + " bytes")
			}
			files[name] = &fstest.MapFile{Data: []byte(text)}
		}
	}
	var src resolve.Chain
	// Each file a lookup can never use says why (its name, or where it
	// does not parse), and is not counted.
	var problems []byte
	usable := len(files)
	if len(files) > 0 {
		fsrc := resolve.NewFiles("the schemas given", files)
		names := make([]string, 0, len(files))
		for name := range files {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if err := fsrc.Check(name); err != nil {
				usable--
				if problems != nil {
					problems = append(problems, ',')
				}
				problems = append(problems, `{"name":`...)
				problems = jsontext.AppendString(problems, []byte(name))
				problems = append(problems, `,"problem":`...)
				problems = jsontext.AppendString(problems, []byte(err.Error()))
				problems = append(problems, '}')
			}
		}
		src = append(src, resolve.NewFiles("the schemas given", files))
	}
	where := ""
	var reg *resolve.Registry
	if raw.Type() == js.TypeString && strings.TrimSpace(raw.String()) != "" {
		u, err := url.Parse(strings.TrimSpace(raw.String()))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errJSON("the schema registry's URL must be an http:// or https:// URL, such as https://registry.example.com:8081/")
		}
		if u.User != nil {
			return errJSON("the schema registry's URL must not hold credentials: the page would keep them in its link and history")
		}
		// The query is kept for every request, after its path (as kwire
		// decode --schema-registry does); a fragment is never sent.
		query := resolve.SplitURL(u)
		where = u.String()
		reg = resolve.NewRegistry(where, xhrGet(where, query))
		first, most := resolve.RetryFirst, resolve.RetryMax
		if retry.Type() == js.TypeNumber && retry.Int() > 0 {
			first = time.Duration(retry.Int()) * time.Millisecond
			most = 10 * first
		}
		reg.SetRetry(first, most, nil)
		src = append(src, notAsked{reg, where})
	}
	registryState.requests, registryState.failed, registryState.last, registryState.unreachable = 0, 0, "", false
	registryState.reg = reg
	var s payload.Source
	if len(src) > 0 {
		s = src
	}
	setDecoder(payload.NewDecoder(s, payload.Config{}))
	b := append([]byte(`{"files":`), strconv.Itoa(usable)...)
	b = append(b, `,"registry":`...)
	b = jsontext.AppendString(b, []byte(where))
	if problems != nil {
		b = append(b, `,"problems":[`...)
		b = append(b, problems...)
		b = append(b, ']')
	}
	return string(append(b, '}'))
}

// notAsked is the registry as the page's lookups ask it. While it is
// held down (a request got no answer), a lookup fails without asking; its
// error was the failed request's, which named that request's URL (another
// schema id's) and the whole advice about CORS, in every payload's
// warning. Such a lookup now says, in a line, that the registry was not
// asked, pointing to the failure the page shows under Record payloads.
type notAsked struct {
	*resolve.Registry
	where string
}

func (r notAsked) SchemaByID(id int) (*payload.Schema, error) {
	n := registryState.requests
	s, err := r.Registry.SchemaByID(id)
	var u *resolve.Unreachable
	if err != nil && registryState.requests == n && errors.As(err, &u) {
		return nil, &resolve.Unreachable{Err: errors.New("the schema registry at " + r.where +
			" was not asked: a request before could not be read from this page (see Record payloads)")}
	}
	return s, err
}

func registryStatus(this js.Value, args []js.Value) any {
	b := append([]byte(`{"requests":`), strconv.Itoa(registryState.requests)...)
	b = append(b, `,"failed":`...)
	b = strconv.AppendInt(b, int64(registryState.failed), 10)
	if registryState.last != "" {
		b = append(b, `,"error":`...)
		b = jsontext.AppendString(b, []byte(registryState.last))
	}
	if registryState.reg == nil {
		return string(append(b, '}'))
	}
	if until, err := registryState.reg.Down(); err != nil && !until.IsZero() {
		b = append(b, `,"retryIn":`...)
		b = strconv.AppendInt(b, max(time.Until(until).Milliseconds(), 0), 10)
	}
	return string(append(b, '}'))
}

// rowDecoded is how much of a decoded payload's JSON a listed record
// holds (a grid row shows 120 characters): a segment lists up to 20,000
// records, and their payloads are read whole but not kept whole.
const rowDecoded = 300

// payloadOf is kwirePayload.payload(topic, isKey, bytes, detail): one
// record key or value of a segment (storage.wasm calls it, through the
// worker, for an ordinary topic's records once the user gave schemas)
// read as a frame's records are, with the schemas given (payloadJSON).
func payloadOf(this js.Value, args []js.Value) any {
	drawn, part := payloadJSON(glue.Bytes(arg(args, 2)), arg(args, 1).Truthy(), glue.String(args, 0), arg(args, 3).Truthy())
	if part == nil {
		return string(drawn)
	}
	return []any{string(drawn), string(part)}
}

// payloadsOf is kwirePayload.payloads(topic, packed): many record keys
// and values of a segment at once, for the rows of the records listed
// (storage.wasm calls it once for each batch's: a call from JavaScript
// into a Go module costs some 40 µs, more than reading a small payload).
// packed holds them one after another, each a byte (1 for a key, 0 for a
// value), its length (4 bytes, big-endian), its bytes; the answer is each
// one's row (payloadJSON), a line each, in their order ("" when packed is
// cut short).
func payloadsOf(this js.Value, args []js.Value) any {
	topic := glue.String(args, 0)
	b := glue.Bytes(arg(args, 1))
	var out []byte
	for len(b) >= 5 {
		n := int(binary.BigEndian.Uint32(b[1:5]))
		if n > len(b)-5 {
			return ""
		}
		if out != nil {
			out = append(out, '\n') // JSON text holds no newline of its own
		}
		row, _ := payloadJSON(b[5:5+n], b[0] == 1, topic, false)
		out = append(out, row...)
		b = b[5+n:]
	}
	return string(out)
}

// payloadJSON reads p, a record key (key) or value of topic ("" when not
// known: framed payloads are still read by their schema id), as the
// frames' records read theirs (codec/payload's Decoder with the schemas
// given), and answers, for a listed record's row,
//
//	{"schemaId"?, "format"?, "message"?, "decoded"?: JSON text, "cut"?: true, "warnings"?: [text]}
//
// (decoded: the decoded value's JSON, its first rowDecoded bytes and
// "…" when cut), or, for the record drawn (detail),
//
//	{"buf", "rows", "tree", "warnings"?}
//
// rows and tree as wasm/internal/partview draws a part (offsets in p),
// and part, the key or value object as kwire log --schemas and the
// frames' records write it ({"text"|"base64", then the payload's
// members}; nil for a row). warnings say why a payload did not decode (no
// schema, a schema that does not parse, bytes that do not match it), as a
// frame's warnings do.
func payloadJSON(p []byte, key bool, topic string, detail bool) (drawn, part []byte) {
	var members, value []byte
	var nodes []*tree.Node
	var ws []codec.Warning
	if detail {
		members, nodes, ws = dec.DecodeBytes(p, key, topic)
	} else {
		members, value, ws = dec.DecodeBytesJSON(p, key, topic) // a row wants no nodes, which cost most
	}
	var w jsontext.Writer
	w.BeginObject()
	if detail {
		name := "value"
		if key {
			name = "key"
		}
		node := &tree.Node{Name: name, Role: tree.RoleRecord, Kind: schema.Bytes, Type: "bytes", End: len(p), Raw: p, Children: nodes}
		for _, x := range ws { // the tree shows them on the part
			node.Warnings = append(node.Warnings, x.Message)
		}
		partview.Append(&w, node, p, nil)
		part = jsontext.AppendTextOrBase64(nil, p)
		if len(members) > 0 {
			part = append(append(part[:len(part)-1], members...), '}')
		}
	} else {
		// The members but the decoded value (each after its comma), then
		// that as text.
		if len(members) > 1 {
			w.Raw(members[1:])
		}
		if value != nil {
			cut := len(value) > rowDecoded
			if cut {
				n := rowDecoded
				for n > 0 && !utf8.RuneStart(value[n]) {
					n--
				}
				value = append(value[:n:n], "…"...)
			}
			w.Key("decoded")
			w.HTMLSafe(string(value))
			if cut {
				w.Key("cut")
				w.Bool(true)
			}
		}
	}
	if len(ws) > 0 {
		w.Key("warnings")
		w.BeginArray()
		for _, x := range ws {
			w.HTMLSafe(x.Message)
		}
		w.EndArray()
	}
	w.EndObject()
	return w.B, part
}

func errJSON(msg string) string {
	return string(append(jsontext.AppendString([]byte(`{"error":`), []byte(msg)), '}'))
}

// xhrGet asks the registry at base (ending in "/"; query, when not "",
// after each request's path) with a synchronous
// XMLHttpRequest, which a worker may make. A request that gets no answer
// (refused, blocked by CORS, timed out: the browser does not say which)
// is resolve.Unreachable: the registry is asked again after its backoff
// (SetRetry), and the first answer then clears that error from the status.
func xhrGet(base, query string) resolve.Get {
	return func(path string) (status int, body []byte, err error) {
		target := resolve.RequestURL(base, path, query)
		registryState.requests++
		defer func() {
			if err == nil && registryState.unreachable {
				registryState.last, registryState.unreachable = "", false // it answers again
			}
			if err != nil || status != 200 {
				registryState.failed++
				if err != nil {
					registryState.last, registryState.unreachable = err.Error(), true
				} else {
					registryState.last = "GET " + base + path + ": HTTP " + strconv.Itoa(status)
				}
			}
		}()
		x := js.Global().Get("XMLHttpRequest").New()
		if err := jsCall(func() {
			x.Call("open", "GET", target, false)
			// A CORS-safelisted header: the request needs no preflight.
			x.Call("setRequestHeader", "Accept", "application/vnd.schemaregistry.v1+json, application/json")
			x.Set("timeout", registryTimeout)
			x.Call("send")
		}); err != nil || x.Get("status").Int() == 0 {
			why := "no answer"
			if err != nil {
				why = err.Error()
			}
			origin := js.Global().Get("location").Get("origin")
			o := "this page's origin"
			if origin.Type() == js.TypeString {
				o += " (" + origin.String() + ")"
			}
			return 0, nil, &resolve.Unreachable{Err: errors.New("the schema registry at " + base + " could not be read from this page (" + why +
				"): it is unreachable, or it does not allow " + o + " to read it: the registry must answer with the header Access-Control-Allow-Origin (CORS)")}
		}
		text := x.Get("responseText").String()
		if len(text) > resolve.MaxBody {
			text = text[:resolve.MaxBody+1]
		}
		return x.Get("status").Int(), []byte(text), nil
	}
}

// jsCall runs f, turning a JavaScript exception into an error.
func jsCall(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(js.Error); ok {
				err = errors.New(e.Get("name").String() + ": " + e.Get("message").String())
			} else {
				err = errors.New("the request failed")
			}
		}
	}()
	f()
	return nil
}
