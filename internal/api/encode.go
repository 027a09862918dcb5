package api

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/internal/encinput"
	"github.com/kwire/kwire/internal/input"
)

const envelopeWanted = "value JSON: {direction, apiKey, apiVersion, header, body} as POST /api/decode returns it"

func (h *handler) encode(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	qerr := strayParam(q, "/api/encode")
	var as string
	if qerr == nil {
		as, qerr = choice(q, "as", "binary, hex or base64", encodings)
	}
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
	if encinput.Annotated(v) {
		// Annotated JSON (format=annotated) holds every node's value by
		// name: read back as its frame's value JSON, as kwire encode
		// reads it; what it does not hold whole is refused with why.
		val, err := encinput.FromAnnotated(v)
		if err != nil {
			writeError(w, http.StatusBadRequest, &Error{Message: "annotated JSON that cannot be encoded: " + err.Error() +
				"; send value JSON, as POST /api/decode answers without format=annotated", Expected: envelopeWanted, Found: "annotated JSON"})
			return
		}
		v = val
	}
	frame, err := codec.Encode(nil, v, o)
	if err != nil {
		e := &Error{Message: err.Error()}
		var ee *codec.EncodeError
		if errors.As(err, &ee) {
			e.Path = ee.Path
			e.Expected, e.Found = encodeWants(ee.Msg, ee.Path)
		}
		writeError(w, http.StatusBadRequest, e)
		return
	}
	if ps := encinput.NotGiven(v); len(ps) > 0 {
		// Written as their defaults, as the codec does; said, as kwire
		// encode says it on standard error, beside the bytes.
		w.Header().Set("Kwire-Not-Given", strings.Join(ps, ", "))
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
		e.Offset = at(bom + se.Offset)
		e.Expected, e.Found = syntaxWants(se.Msg, b, bom+se.Offset)
	}
	return nil, e
}

// encodeWants reads what was expected and what was found out of an
// encoding error's message, whose shapes are the encoder's (codec and its
// records encoder): "expected X, found Y" (or "expected X" alone),
// "missing", "missing: give A or B", "unknown field; valid here: ..."
// (or "none is valid here"), "a field of vR only; valid here: ...",
// each of those two with " (at vN)" after ("response header vN", "request
// header vN" in a header), "null is not allowed here at vN", "string of N bytes is longer than 32767", "N has versions A-B,
// not V", "N has no version V", "is V but the envelope says W", "must be
// ...", "invalid base64: ..." and "bad base64: ...", "unknown API ...",
// "unknown data message ...", "no data message ...". A message of
// another shape (a compressor's failure, "cannot encode kind K", which
// no JSON reaches) is its own hint: what was found, nothing expected.
func encodeWants(msg, path string) (expected, found string) {
	cut := func(s, sep string) (string, string, bool) {
		i := strings.LastIndex(s, sep)
		if i < 0 {
			return s, "", false
		}
		return s[:i], s[i+len(sep):], true
	}
	field := path[strings.LastIndexAny(path, ".")+1:]
	// " (at vN)" closes the field errors: at which version the fields
	// listed are the valid ones ("at response header v0" in a header,
	// whose version is not the API's).
	at := ""
	if i := strings.LastIndex(msg, " (at "); i >= 0 && strings.HasSuffix(msg, ")") && strings.Contains(msg, "valid here") {
		msg, at = msg[:i], " at "+msg[i+len(" (at "):len(msg)-1]
	}
	switch {
	case strings.HasPrefix(msg, "expected "):
		// What was expected is the encoder's words; what was found may
		// be the user's text, which may hold ", found ".
		expected, found, _ = strings.Cut(msg[len("expected "):], ", found ")
		return expected, found
	case msg == "missing":
		return "a value", "nothing"
	case strings.HasPrefix(msg, "missing: give "):
		return msg[len("missing: give "):], "nothing"
	case strings.HasPrefix(msg, "missing: "):
		return msg[len("missing: "):], "nothing"
	case strings.HasPrefix(msg, "unknown field; valid here: "):
		return "one of " + msg[len("unknown field; valid here: "):] + at, field
	case msg == "unknown field; none is valid here":
		return "no field (this struct has none" + at + ")", field
	case strings.HasPrefix(msg, "a field of ") && strings.Contains(msg, " only; "):
		only, valid, _ := strings.Cut(msg, "; ")
		if rest, ok := strings.CutPrefix(valid, "valid here: "); ok {
			return "one of " + rest + at, field + ", " + only
		}
		return "no field (none is valid" + at + ")", field + ", " + only
	case strings.HasPrefix(msg, "null is not allowed here at "):
		return "a value: this field is not nullable " + msg[len("null is not allowed here "):], "null"
	case strings.HasPrefix(msg, "string of ") && strings.HasSuffix(msg, " bytes is longer than 32767"):
		return "a string of at most 32767 bytes (its length is an int16)", "a string of " + strings.TrimSuffix(msg[len("string of "):], " is longer than 32767")
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
	if name, v, ok := cut(msg, " has no version "); ok {
		return "a version " + name + " has", v
	}
	return "", msg
}

// syntaxWants is what was expected and found where value JSON does not
// parse (the message of a jsontext.SyntaxError, at byte off of b), for
// the rules a JSON parser may be lenient about and kwire's is not: a
// number's form (no '+', no leading zero), UTF-8 text with no lone
// surrogate, each key once; and its other messages. "" expected is the
// envelope in general.
func syntaxWants(msg string, b []byte, off int) (expected, found string) {
	at := "the end of the input"
	if off < len(b) {
		at = strconv.QuoteRune(rune(b[off]))
		if b[off] >= 0x80 {
			at = "byte 0x" + strconv.FormatUint(uint64(b[off]), 16)
		}
	}
	switch {
	case msg == "more than one value":
		return "one JSON value", msg
	case msg == "a number with a leading zero":
		return "a JSON number, with no leading zero (5, not 05)", msg
	case msg == "unexpected character '+'":
		return "a JSON number, with no '+' (5, not +5)", "'+'"
	case strings.HasPrefix(msg, "invalid UTF-8"):
		return "UTF-8 text in strings (bytes as base64 where a field is bytes)", msg
	case strings.HasPrefix(msg, "a lone surrogate"):
		return "a \\u escape of a UTF-16 surrogate followed by its other half (\\ud83d\\ude00), or the character itself", msg
	case strings.HasPrefix(msg, "duplicate key "):
		return "each key once in an object", msg
	case msg == "control character in a string":
		return "control characters in strings escaped (\\n, \\u0001)", msg
	case strings.HasPrefix(msg, "bad escape "), msg == "bad \\u escape":
		return "an escape JSON has: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits", msg
	case msg == "unterminated string":
		return "a closing '\"'", "the end of the input"
	case msg == "nested too deeply":
		return "nesting at most " + strconv.Itoa(jsontext.MaxDepth) + " deep", "deeper nesting"
	case strings.HasPrefix(msg, "unexpected "):
		return "a JSON value", strings.TrimPrefix(msg, "unexpected ")
	case strings.HasPrefix(msg, "expected "):
		return strings.TrimPrefix(msg, "expected "), at
	}
	return envelopeWanted, msg
}
