package api

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/internal/encinput"
	"github.com/kwire/kwire/internal/input"
)

const envelopeWanted = "value JSON: {direction, apiKey, apiVersion, header, body} as POST /api/decode returns it"

func (h *handler) encode(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as, qerr := choice(q, "as", "binary, hex or base64", encodings)
	if qerr != nil {
		writeError(w, http.StatusBadRequest, qerr)
		return
	}
	var o codec.EncodeOptions
	// An encoded frame has its size prefix unless told otherwise: there
	// is nothing to decide it from.
	sp := q.Get("sizePrefix")
	size, serr := input.ParseSizeMode(sp)
	if serr != nil || size == input.SizeAuto && strings.TrimSpace(sp) != "" {
		writeError(w, http.StatusBadRequest, queryError("sizePrefix", "true or false", strings.ToLower(sp)))
		return
	}
	o.NoSizePrefix = size == input.SizeNo
	body, ok := h.body(w, r, envelopeWanted)
	if !ok {
		return
	}
	defer h.lim.Release()
	v, jerr := parseJSON(body)
	if jerr != nil {
		writeError(w, http.StatusBadRequest, jerr)
		return
	}
	frame, err := codec.Encode(nil, v, o)
	if err != nil {
		e := &Error{Message: err.Error()}
		var ee *codec.EncodeError
		if errors.As(err, &ee) {
			e.Path = ee.Path
			e.Expected, e.Found = encodeWants(ee.Msg, ee.Path)
		}
		if encinput.Annotated(v) {
			// It fails at "buffers: unknown field", which says nothing
			// of why.
			e = &Error{Message: "annotated JSON, not value JSON: annotated JSON (format=annotated) describes a frame and cannot be encoded; " +
				"send value JSON, as POST /api/decode answers without format=annotated", Expected: envelopeWanted, Found: "annotated JSON"}
		}
		writeError(w, http.StatusBadRequest, e)
		return
	}
	// Text answers end with a newline, as the JSON ones do.
	switch as {
	case "hex":
		write(w, http.StatusOK, "text/plain; charset=utf-8", hex.AppendEncode(nil, frame), '\n')
	case "base64":
		write(w, http.StatusOK, "text/plain; charset=utf-8", base64.StdEncoding.AppendEncode(nil, frame), '\n')
	default:
		write(w, http.StatusOK, "application/octet-stream", frame)
	}
}

// parseJSON reads exactly one JSON value in the generic form codec.Encode
// takes (numbers as json.Number), with the body offset of a syntax error.
// It uses the codec's own parser: no reflection, several times faster
// than encoding/json's in the Worker's WebAssembly.
// A UTF-8 byte order mark before the value (as Windows editors save
// JSON) is skipped, as kwire encode skips it; offsets still count it.
func parseJSON(b []byte) (any, *Error) {
	bom := input.BOMLen(b)
	v, err := jsontext.Parse(b[bom:])
	if err == nil {
		return v, nil
	}
	// A frame's hex (what /api/decode reads) fails at its first digits,
	// as a number with a leading zero or more than one value: say what
	// it is, as kwire encode does.
	start := bom
	for start < len(b) && (b[start] == ' ' || b[start] == '\t' || b[start] == '\r' || b[start] == '\n') {
		start++
	}
	if start < len(b) && encinput.HexLine(b, start) >= 0 {
		return nil, &Error{Message: "hex, not JSON: POST /api/encode takes the JSON of a frame; POST its hex to /api/decode",
			Offset: at(start), Expected: envelopeWanted, Found: "a frame's hex"}
	}
	e := &Error{Message: err.Error(), Expected: envelopeWanted, Found: err.Error()}
	var se *jsontext.SyntaxError
	if errors.As(err, &se) {
		e.Offset, e.Found = at(bom+se.Offset), se.Msg
		if se.Msg == "more than one value" {
			e.Expected = "one JSON value"
		}
	}
	return nil, e
}

// encodeWants reads what was expected and what was found out of an
// encoding error's message, whose shapes are the encoder's: "expected X,
// found Y", "missing", "unknown field; valid here: ...", "N has versions
// A-B, not V", "is V but the envelope says W", "must be ...", "invalid
// base64: ...". A message of another shape is what was found.
func encodeWants(msg, path string) (expected, found string) {
	cut := func(s, sep string) (string, string, bool) {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			return s, "", false
		}
		return s[:i], s[i+len(sep):], true
	}
	field := path[strings.LastIndexAny(path, ".")+1:]
	switch {
	case strings.HasPrefix(msg, "expected "):
		expected, found, _ = cut(msg[len("expected "):], ", found ")
		return expected, found
	case msg == "missing":
		return "a value", "nothing"
	case strings.HasPrefix(msg, "missing: "):
		return msg[len("missing: "):], "nothing"
	case strings.HasPrefix(msg, "unknown field; valid here: "):
		return "a field of " + msg[len("unknown field; valid here: "):], field
	case strings.HasPrefix(msg, "must be "):
		return msg[len("must be "):], "another value"
	case strings.HasPrefix(msg, "is "):
		if v, w, ok := cut(msg[len("is "):], " but "); ok {
			return "what " + strings.Replace(w, " says ", " says: ", 1), v
		}
	case strings.HasPrefix(msg, "invalid base64: "), strings.HasPrefix(msg, "bad base64: "):
		_, rest, _ := cut(msg, "base64: ")
		return "base64 text", rest
	case strings.HasPrefix(msg, "unknown API"), strings.HasPrefix(msg, "unknown data message"), strings.HasPrefix(msg, "no data message"):
		_, name, _ := cut(msg, " ")
		return "a known name or key (GET /api/apis lists the APIs)", name
	}
	if m, v, ok := cut(msg, ", not "); ok {
		if name, vs, ok := cut(m, " has versions "); ok {
			return "a version of " + name + " in " + vs, v
		}
	}
	return "", msg
}
