package api

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
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
			if rest, ok := strings.CutPrefix(ee.Msg, "expected "); ok {
				if i := strings.LastIndex(rest, ", found "); i >= 0 {
					e.Expected, e.Found = rest[:i], rest[i+len(", found "):]
				} else {
					e.Expected = rest
				}
			}
		}
		writeError(w, http.StatusBadRequest, e)
		return
	}
	switch as {
	case "hex":
		write(w, http.StatusOK, "text/plain; charset=utf-8", hex.AppendEncode(nil, frame))
	case "base64":
		write(w, http.StatusOK, "text/plain; charset=utf-8", base64.StdEncoding.AppendEncode(nil, frame))
	default:
		write(w, http.StatusOK, "application/octet-stream", frame)
	}
}

// parseJSON reads exactly one JSON value in the generic form codec.Encode
// takes (numbers as json.Number), with the body offset of a syntax error.
// It uses the codec's own parser: no reflection, several times faster
// than encoding/json's in the Worker's WebAssembly.
func parseJSON(b []byte) (any, *Error) {
	v, err := jsontext.Parse(b)
	if err == nil {
		return v, nil
	}
	e := &Error{Message: err.Error(), Expected: envelopeWanted, Found: err.Error()}
	var se *jsontext.SyntaxError
	if errors.As(err, &se) {
		e.Offset, e.Found = at(se.Offset), se.Msg
		if se.Msg == "more than one value" {
			e.Expected = "one JSON value"
		}
	}
	return nil, e
}
