package api

import (
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/input"
	"github.com/kwire/kwire/internal/topicids"
)

const frameWanted = "a Kafka frame: raw bytes (Content-Type: application/octet-stream), hex or base64"

// decodeQuery is what the query string of /api/decode says.
type decodeQuery struct {
	direction string // "", "request" or "response"
	api       *schema.API
	version   int // -1 when not given
	size      input.SizeMode
	annotated bool
	records   codec.RecordsMode
	kafka     bool // Kafka's own JSON form (codec.Options.Kafka)
	mode      input.Mode
	topics    *topicids.Names // topicId=ID=NAME: topics a frame names by id
	// binaryByType: the body is read as raw bytes for its Content-Type
	// alone (application/octet-stream), not for input=binary.
	binaryByType bool
	form         bool // the body is a multipart form: 415, not 400
}

// maxTopicIDs bounds the topicId parameters of one request.
const maxTopicIDs = 64

func queryError(name, expected, found string) *Error {
	return &Error{Message: "query parameter " + name + ": expected " + expected + ", found \"" + found + "\"",
		Path: "?" + name, Expected: expected, Found: found}
}

// choice is query parameter name, lower-cased, as choices maps it (an
// absent one as ""); a value choices lacks is an error that says what was
// expected.
func choice[T any](q url.Values, name, expected string, choices map[string]T) (T, *Error) {
	v := strings.ToLower(q.Get(name))
	c, ok := choices[v]
	if !ok {
		return c, queryError(name, expected, v)
	}
	return c, nil
}

// The values of the query parameters that name one of a few choices, and
// what each means.
var (
	directions = map[string]string{"": "", "auto": "", "request": "request", "response": "response"}
	formats    = map[string]bool{"": false, "value": false, "annotated": true}
	recordsAs  = map[string]codec.RecordsMode{"": codec.RecordsDecoded, "decoded": codec.RecordsDecoded, "base64": codec.RecordsBase64, "size": codec.RecordsSize}
	booleans   = map[string]bool{"": false, "false": false, "no": false, "0": false, "true": true, "yes": true, "1": true}
	encodings  = map[string]string{"": "binary", "bytes": "binary", "binary": "binary", "hex": "hex", "base64": "base64"}
	inputs     = map[string]input.Mode{"": input.Auto, "auto": input.Auto, "hex": input.Hex, "base64": input.Base64, "binary": input.Binary}
)

func parseDecodeQuery(r *http.Request) (decodeQuery, *Error) {
	q := r.URL.Query()
	d := decodeQuery{version: -1}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		// A form (curl -F f=@frame.bin): its boundary and headers would
		// be read as the frame.
		d.form = true
		return d, &Error{Message: "a form is not a frame: send the frame as the body itself (curl --data-binary @frame.bin, or -d with its hex)",
			Expected: frameWanted, Found: ct}
	}
	if err := strayParam(q, "/api/decode"); err != nil {
		return d, err
	}
	var err *Error
	if d.direction, err = choice(q, "direction", "request, response or auto", directions); err != nil {
		return d, err
	}
	if v := q.Get("api"); v != "" {
		d.api = schema.ByName(v)
		if d.api == nil {
			return d, queryError("api", "an API name or key (GET /api/apis lists them)", v)
		}
	}
	if v := q.Get("version"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 0x7fff {
			return d, queryError("version", "a version number from 0 to 32767", v)
		}
		d.version = n
	}
	size, serr := input.ParseSizeMode(q.Get("sizePrefix"))
	if serr != nil {
		return d, queryError("sizePrefix", "true, false or auto", strings.ToLower(q.Get("sizePrefix")))
	}
	d.size = size
	if d.annotated, err = choice(q, "format", "value or annotated", formats); err != nil {
		return d, err
	}
	if d.records, err = choice(q, "records", "decoded, base64 or size", recordsAs); err != nil {
		return d, err
	}
	if d.kafka, err = choice(q, "kafka", "1 or 0 (true or false)", booleans); err != nil {
		return d, err
	}
	if d.kafka && d.annotated {
		return d, &Error{Message: "kafka is a form of value JSON; format=annotated has its own",
			Path: "?kafka", Expected: "format=value (or no kafka)", Found: "format=annotated"}
	}
	if d.kafka && d.records == codec.RecordsSize {
		return d, &Error{Message: "kafka writes records as base64, Kafka's form; records=size is kwire's",
			Path: "?kafka", Expected: "records=decoded or base64 (or no kafka)", Found: "records=size"}
	}
	// Topics a frame names only by id (Fetch v13+, Produce v13+), as
	// kwire's --topic-id: the internal topics' records decode through them.
	if ids := q["topicId"]; len(ids) > 0 {
		if len(ids) > maxTopicIDs {
			return d, queryError("topicId", "at most "+strconv.Itoa(maxTopicIDs)+" of them", strconv.Itoa(len(ids)))
		}
		d.topics = new(topicids.Names)
		for _, v := range ids {
			id, name, err := topicids.ParseFlag(v)
			if err != nil {
				return d, queryError("topicId", "ID=NAME, the id in Kafka's base64 form or as a UUID", v)
			}
			d.topics.Set(id, name)
		}
	}
	// The body's form: the input parameter, else raw bytes for
	// application/octet-stream and text (hex, dumps, base64) otherwise.
	if d.mode, err = choice(q, "input", "auto, hex, base64 or binary", inputs); err != nil {
		return d, err
	}
	if d.mode == input.Auto && ct == "application/octet-stream" {
		d.mode = input.Binary
		d.binaryByType = true
	}
	if d.direction == "request" && (d.api != nil || d.version >= 0) {
		return d, &Error{Message: "a request names its API and version in its header; api and version are for responses",
			Path: "?direction", Expected: "response (or no api and version)", Found: "request"}
	}
	if d.direction == "" && d.api != nil {
		// Only a response needs its API named.
		d.direction = "response"
	}
	if d.api == nil && d.version >= 0 {
		return d, &Error{Message: "version needs api", Path: "?api", Expected: "an API name or key beside version", Found: ""}
	}
	return d, nil
}

func (h *handler) decode(w http.ResponseWriter, r *http.Request) {
	q, qerr := parseDecodeQuery(r)
	if qerr != nil {
		status := http.StatusBadRequest
		if q.form {
			status = http.StatusUnsupportedMediaType
		}
		writeError(w, status, qerr)
		return
	}
	body, ok := h.body(w, r, frameWanted)
	if !ok {
		return
	}
	defer h.lim.Release()
	b, _, err := input.ParseLimit(body, q.mode, int(h.o.MaxBody))
	if err != nil {
		e := &Error{Message: err.Error(), Expected: frameWanted}
		var ie *input.Error
		if errors.As(err, &ie) {
			if ie.Offset >= 0 {
				e.Offset = at(ie.Offset)
			}
			e.Found = ie.Msg
		}
		writeError(w, http.StatusBadRequest, e)
		return
	}
	// A whole captured packet (tcpdump -X, tshark -x): its TCP payload,
	// said in the Kwire-Packet header.
	if payload, pkt, ok := input.StripPacket(b); ok {
		if len(payload) == 0 {
			writeError(w, http.StatusBadRequest, &Error{Message: pkt.String(), Expected: frameWanted, Found: "a packet with no TCP payload"})
			return
		}
		w.Header().Set("Kwire-Packet", pkt.String())
		b = payload
	}
	payload, stop := payloadUntil(r.Context(), h.o.Payload)
	defer stop()
	opts := codec.Options{Limits: h.limits(), Payload: payload}
	if q.topics != nil {
		opts.TopicNames = q.topics.Name
	}
	guessing := false
	switch {
	case q.direction == "response":
		opts.Response, opts.APIKey, opts.Version = true, codec.Any, codec.Any
		if q.api != nil {
			opts.APIKey = q.api.Key
		}
		if q.version >= 0 {
			opts.Version = int16(q.version)
		}
		guessing = q.api == nil || q.version < 0
		if guessing && len(b) > h.o.MaxGuess {
			n := strconv.Itoa(h.o.MaxGuess)
			writeError(w, http.StatusBadRequest, &Error{Message: "a response over " + n + " bytes needs api and version",
				Path: "?version", Expected: "api and version, or at most " + n + " bytes", Found: strconv.Itoa(len(b)) + " bytes"})
			return
		}
	case q.direction == "":
		// A request, else (when small enough to guess) the likeliest
		// response: the codec's one reading for both.
		opts.Auto = len(b) <= h.o.MaxGuess
	}

	opts.NoSizePrefix = !q.size.SizedTrying(b, opts)

	var out []byte
	var g *codec.Guess
	if q.annotated {
		f, derr := codec.Decode(b, opts)
		err, g = derr, f.Guess
		if f.Root != nil {
			out = f.AppendAnnotated(nil, nil)
		}
	} else {
		// Value JSON straight from the bytes, no tree; a frame that fails
		// is written as far as it decoded.
		var dec codec.Decoder
		var info *codec.Frame
		opts.Records, opts.Kafka = q.records, q.kafka
		out, info, err = dec.AppendJSON(nil, b, opts)
		g = info.Guess
	}
	if g != nil && len(g.Candidates) > 0 {
		c := g.Candidates[0]
		w.Header().Set("Kwire-Guess", "apiKey="+strconv.Itoa(int(c.APIKey))+"; version="+strconv.Itoa(int(c.Version))+
			"; confidence="+strconv.FormatFloat(c.Confidence, 'f', 2, 64))
	}
	if err != nil {
		e := &Error{Message: err.Error()}
		var de *codec.DecodeError
		if errors.As(err, &de) {
			e.Offset, e.Path, e.Expected, e.Found = at(de.Offset), de.Path, de.Expected, de.Found
		}
		if q.binaryByType && looksLikeText(body) {
			// Hex or base64 sent as application/octet-stream is read as
			// its characters' bytes ("0000" as 0x30303030).
			e.Message += "; the body is text (hex or base64?), read as raw bytes because it came as application/octet-stream: send it as text/plain, or with input=hex"
		}
		if len(out) > 0 && json.Valid(out) {
			e.Partial = out
		}
		writeError(w, http.StatusBadRequest, e)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// looksLikeText reports whether b, at least 8 bytes, is all hex or
// base64 characters and blanks.
func looksLikeText(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c == '+' || c == '/' || c == '=' || c == ' ' || c == '\n' || c == '\r' || c == '\t':
		default:
			return false
		}
	}
	return true
}

// limits is the codec's budget for one request.
func (h *handler) limits() codec.Limits {
	return codec.Limits{MaxNodes: h.o.MaxNodes, MaxDecompressed: h.o.MaxDecompressed, MaxWork: h.o.MaxWork}
}
