package api

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
)

const envelopeWanted = "value JSON: {direction, apiKey, apiVersion, header, body} as POST /api/decode returns it"

func (h *handler) encode(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	as := strings.ToLower(q.Get("as"))
	switch as {
	case "", "bytes", "binary":
		as = "binary"
	case "hex", "base64":
	default:
		writeError(w, http.StatusBadRequest, queryError("as", "binary, hex or base64", as))
		return
	}
	var o codec.EncodeOptions
	switch v := strings.ToLower(q.Get("sizePrefix")); v {
	case "", "true", "yes", "1":
	case "false", "no", "0":
		o.NoSizePrefix = true
	default:
		writeError(w, http.StatusBadRequest, queryError("sizePrefix", "true or false", v))
		return
	}
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
func parseJSON(b []byte) (any, *Error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		off := int(dec.InputOffset())
		if _, terr := dec.Token(); terr != io.EOF {
			return nil, &Error{Message: "invalid JSON: more than one value", Offset: at(skipSpace(b, off)),
				Expected: "one JSON value", Found: "more after byte " + strconv.Itoa(off)}
		}
		return v, nil
	}
	e := &Error{Message: "invalid JSON: " + err.Error(), Expected: envelopeWanted}
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		e.Offset, e.Found = at(int(se.Offset)), se.Error()
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		e.Offset, e.Found = at(len(b)), "the end of the body"
	default:
		e.Found = err.Error()
	}
	return nil, e
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
