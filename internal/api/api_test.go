package api

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/input"
	"github.com/kwire/kwire/internal/render"
	"github.com/stretchr/testify/require"
)

// apiVersionsV3 is the README's quick-start frame: an ApiVersions v3
// request from client "kwire" (software "kwire" 1.0), correlation id 7.
const apiVersionsV3 = "0000001b001200030000000700056b7769726500066b7769726504312e3000"

func frame(t testing.TB) []byte {
	b, err := hex.DecodeString(apiVersionsV3)
	require.NoError(t, err)
	return b
}

// do sends one request through the handler and returns the response.
func do(t testing.TB, h http.Handler, method, target, contentType string, body []byte) *httptest.ResponseRecorder {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req := httptest.NewRequest(method, target, r)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

// errorBody checks the error shape: JSON with every key present.
func errorBody(t testing.TB, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var m map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &m), w.Body.String())
	for _, k := range []string{"error", "offset", "path", "expected", "found"} {
		require.Contains(t, m, k, w.Body.String())
	}
	require.NotEmpty(t, m["error"])
	return m
}

func jsonBody(t testing.TB, w *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var m map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &m), w.Body.String())
	return m
}

func TestDecodeForms(t *testing.T) {
	h := New(Options{})
	b := frame(t)
	unsized := b[4:]
	for _, tc := range []struct {
		name, query, ct string
		body            []byte
	}{
		{"hex text", "", "text/plain", []byte(apiVersionsV3)},
		{"hex, no content type", "", "", []byte(apiVersionsV3)},
		{"spaced hex with newline", "", "text/plain", []byte("00 00 00 1b 00 12 00 03 00 00 00 07 00 05 6b 77 69 72 65 00 06 6b 77 69 72 65 04 31 2e 30 00\n")},
		{"binary", "", "application/octet-stream", b},
		{"binary by query", "?input=binary", "text/plain", b},
		{"base64", "", "text/plain", []byte(base64.StdEncoding.EncodeToString(b))},
		{"base64 by query", "?input=base64", "", []byte(base64.StdEncoding.EncodeToString(b))},
		{"no size prefix, auto", "", "application/octet-stream", unsized},
		{"no size prefix, told", "?sizePrefix=false", "application/octet-stream", unsized},
		{"size prefix, told", "?sizePrefix=true&direction=request", "application/octet-stream", b},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := jsonBody(t, do(t, h, "POST", "/api/decode"+tc.query, tc.ct, tc.body))
			require.Equal(t, "request", m["direction"])
			require.Equal(t, "ApiVersions", m["apiName"])
			require.EqualValues(t, 3, m["apiVersion"])
			require.EqualValues(t, 7, m["header"].(map[string]any)["correlationId"])
		})
	}
}

func TestDecodeResponse(t *testing.T) {
	h := New(Options{})
	md := schema.ByName("Metadata")
	b, err := codec.ExampleFrame(md, 12, true)
	require.NoError(t, err)

	w := do(t, h, "POST", "/api/decode?direction=response&api=Metadata&version=12", "application/octet-stream", b)
	m := jsonBody(t, w)
	require.Equal(t, "response", m["direction"])
	require.EqualValues(t, 12, m["apiVersion"])
	require.Empty(t, w.Header().Get("Kwire-Guess"))

	// By key, in hex.
	m = jsonBody(t, do(t, h, "POST", "/api/decode?direction=response&api=3&version=12", "", []byte(hex.EncodeToString(b))))
	require.EqualValues(t, 3, m["apiKey"])

	// Guessed: no API and version, and then the API alone.
	for _, q := range []string{"?direction=response", "?direction=response&api=Metadata", ""} {
		w = do(t, h, "POST", "/api/decode"+q, "application/octet-stream", b)
		m = jsonBody(t, w)
		require.EqualValues(t, 3, m["apiKey"], q)
		require.Contains(t, w.Header().Get("Kwire-Guess"), "apiKey=3", q)
	}

	// A response of another API than the one pinned does not decode.
	w = do(t, h, "POST", "/api/decode?direction=response&api=Produce", "application/octet-stream", b)
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, errorBody(t, w)["error"], "Produce")
}

func TestDecodeAnnotated(t *testing.T) {
	h := New(Options{})
	w := do(t, h, "POST", "/api/decode?format=annotated", "", []byte(apiVersionsV3))
	m := jsonBody(t, w)
	require.Equal(t, "ApiVersions", m["apiName"])
	require.Contains(t, m["root"], "children")
}

func TestDecodeRecordsMode(t *testing.T) {
	h := New(Options{})
	for _, mode := range []string{"decoded", "base64", "size"} {
		jsonBody(t, do(t, h, "POST", "/api/decode?records="+mode, "", []byte(apiVersionsV3)))
	}
}

func TestDecodeErrors(t *testing.T) {
	h := New(Options{})
	b := frame(t)
	for _, tc := range []struct {
		name, query, ct string
		body            []byte
		status          int
		path            string // "" to skip
		offset          int    // -1: null
	}{
		{"empty", "", "", nil, 400, "", -1},
		{"empty binary", "", "application/octet-stream", []byte{}, 400, "", -1},
		{"garbage text", "", "text/plain", []byte("this is not a frame!"), 400, "", 0},
		{"odd hex digits", "?input=hex", "", []byte("0000001c0"), 400, "", 0},
		{"bad base64", "?input=base64", "", []byte("@@@@"), 400, "", 0},
		{"truncated, size prefix says more", "", "application/octet-stream", b[:12], 400, "size", 0},
		{"truncated in a string", "", "application/octet-stream", b[:17], 400, "size", 0},
		{"truncated in a string, no size", "?sizePrefix=false", "application/octet-stream", b[4:17], 400, "header.clientId", 8},
		{"unknown api key", "?sizePrefix=false", "application/octet-stream", []byte{0x7f, 0x00, 0, 0, 0, 0, 0, 1}, 400, "", -2},
		{"binary garbage", "", "application/octet-stream", []byte{0xff, 0xfe, 0x00, 0x01, 0x02}, 400, "", -2},
		{"response, unknown api", "?direction=response&api=Nope", "", []byte(apiVersionsV3), 400, "?api", -1},
		{"bad direction", "?direction=sideways", "", []byte(apiVersionsV3), 400, "?direction", -1},
		{"bad version", "?direction=response&api=3&version=x", "", []byte(apiVersionsV3), 400, "?version", -1},
		{"negative version", "?direction=response&api=3&version=-1", "", []byte(apiVersionsV3), 400, "?version", -1},
		{"version without api", "?direction=response&version=1", "", []byte(apiVersionsV3), 400, "?api", -1},
		{"request with api", "?direction=request&api=3", "", []byte(apiVersionsV3), 400, "?direction", -1},
		{"bad format", "?format=xml", "", []byte(apiVersionsV3), 400, "?format", -1},
		{"bad sizePrefix", "?sizePrefix=maybe", "", []byte(apiVersionsV3), 400, "?sizePrefix", -1},
		{"bad input", "?input=morse", "", []byte(apiVersionsV3), 400, "?input", -1},
		{"bad records", "?records=all", "", []byte(apiVersionsV3), 400, "?records", -1},
		{"bad kafka", "?kafka=maybe", "", []byte(apiVersionsV3), 400, "?kafka", -1},
		{"kafka with annotated", "?kafka=1&format=annotated", "", []byte(apiVersionsV3), 400, "?kafka", -1},
		{"kafka with records size", "?kafka=1&records=size", "", []byte(apiVersionsV3), 400, "?kafka", -1},
		{"response of the wrong api", "?direction=response&api=Metadata&version=12", "", []byte(apiVersionsV3), 400, "", -2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, h, "POST", "/api/decode"+tc.query, tc.ct, tc.body)
			require.Equal(t, tc.status, w.Code, w.Body.String())
			m := errorBody(t, w)
			if tc.path != "" {
				require.Equal(t, tc.path, m["path"], w.Body.String())
			}
			switch {
			case tc.offset == -1:
				require.Nil(t, m["offset"], w.Body.String())
			case tc.offset >= 0:
				require.EqualValues(t, tc.offset, m["offset"], w.Body.String())
			}
		})
	}
}

// A truncated frame gets the whole error: offset, path, expected, found,
// and the fields decoded before it.
func TestDecodeTruncated(t *testing.T) {
	h := New(Options{})
	b := frame(t)
	for n := 1; n < len(b); n++ {
		w := do(t, h, "POST", "/api/decode?direction=request", "application/octet-stream", b[:n])
		require.Equal(t, http.StatusBadRequest, w.Code, "%d bytes: %s", n, w.Body.String())
		m := errorBody(t, w)
		require.NotNil(t, m["offset"], "%d bytes: %s", n, w.Body.String())
		require.NotEmpty(t, m["expected"], "%d bytes: %s", n, w.Body.String())
		require.NotEmpty(t, m["found"], "%d bytes: %s", n, w.Body.String())
		if n >= 12 {
			require.NotEmpty(t, m["path"], "%d bytes: %s", n, w.Body.String())
			require.Contains(t, m, "partial", "%d bytes", n)
		}
	}
	// Annotated partials too.
	w := do(t, h, "POST", "/api/decode?format=annotated", "application/octet-stream", b[:20])
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, errorBody(t, w)["partial"].(map[string]any)["root"], "children")
}

// A request cut short decodes as far as its bytes go with no direction
// given, as kwire decode and kwire batch read it: its header names its
// API and version. The error says how many bytes are missing; the partial
// value holds the header and the fields before the cut.
func TestDecodeCutRequestWithoutDirection(t *testing.T) {
	h := New(Options{})
	b := frame(t)[:29]
	for _, ct := range []string{"application/octet-stream", "text/plain"} {
		body := b
		if ct == "text/plain" {
			body = []byte(hex.EncodeToString(b))
		}
		w := do(t, h, "POST", "/api/decode", ct, body)
		require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
		m := errorBody(t, w)
		require.Equal(t, "body.clientSoftwareVersion", m["path"], w.Body.String())
		require.Contains(t, m["found"], "(the frame is cut short: its size says 27 bytes follow, 25 do, 2 are missing)")
		p := m["partial"].(map[string]any)
		require.Equal(t, "ApiVersions", p["apiName"])
		require.Equal(t, "kwire", p["header"].(map[string]any)["clientId"])
		require.Equal(t, "kwire", p["body"].(map[string]any)["clientSoftwareName"])
	}
}

func TestBodyLimit(t *testing.T) {
	h := New(Options{})
	huge := bytes.Repeat([]byte("00"), DefaultMaxBody/2+1)
	for _, route := range []string{"/api/decode", "/api/encode"} {
		// Content-Length over the limit.
		w := do(t, h, "POST", route, "", huge)
		require.Equal(t, http.StatusRequestEntityTooLarge, w.Code, route)
		errorBody(t, w)
		// No Content-Length: the limit applies while reading.
		req := httptest.NewRequest("POST", route, io.MultiReader(bytes.NewReader(huge)))
		req.ContentLength = -1
		w = httptest.NewRecorder()
		h.ServeHTTP(w, req)
		require.Equal(t, http.StatusRequestEntityTooLarge, w.Code, route)
		errorBody(t, w)
	}
	// Exactly at the limit is read (and then judged on its content).
	w := do(t, h, "POST", "/api/decode", "application/octet-stream", make([]byte, DefaultMaxBody))
	require.Equal(t, http.StatusBadRequest, w.Code)
	// A smaller limit.
	w = do(t, New(Options{MaxBody: 10}), "POST", "/api/decode", "", []byte(apiVersionsV3))
	require.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
}

// Guessing costs hundreds of decodes; over MaxGuess it is refused.
func TestGuessLimit(t *testing.T) {
	w := do(t, New(Options{MaxGuess: 16}), "POST", "/api/decode?direction=response", "", []byte(apiVersionsV3))
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Equal(t, "?version", errorBody(t, w)["path"])
}

func TestEncode(t *testing.T) {
	h := New(Options{})
	b := frame(t)
	js := jsonBody(t, do(t, h, "POST", "/api/decode", "", []byte(apiVersionsV3)))
	body, err := json.Marshal(js)
	require.NoError(t, err)

	w := do(t, h, "POST", "/api/encode", "application/json", body)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Equal(t, "application/octet-stream", w.Header().Get("Content-Type"))
	require.Equal(t, b, w.Body.Bytes())

	// Text answers end with a newline, as JSON ones do.
	w = do(t, h, "POST", "/api/encode?as=hex", "application/json", body)
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "text/plain; charset=utf-8", w.Header().Get("Content-Type"))
	require.Equal(t, apiVersionsV3+"\n", w.Body.String())
	require.Equal(t, strconv.Itoa(len(apiVersionsV3)+1), w.Header().Get("Content-Length"))

	w = do(t, h, "POST", "/api/encode?as=base64", "", body)
	require.Equal(t, base64.StdEncoding.EncodeToString(b)+"\n", w.Body.String())

	w = do(t, h, "POST", "/api/encode?sizePrefix=false", "", body)
	require.Equal(t, b[4:], w.Body.Bytes())

	// A byte order mark, as Windows editors save JSON, is skipped.
	w = do(t, h, "POST", "/api/encode", "application/json", append([]byte("\xef\xbb\xbf"), body...))
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Equal(t, b, w.Body.Bytes())

	// Every API, version and direction's example survives decode and encode
	// through the API.
	for _, a := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			v := a.Request.Valid.Hi
			ex, err := codec.ExampleFrame(a, v, resp)
			require.NoError(t, err)
			q := "/api/decode"
			if resp {
				q += "?direction=response&api=" + a.Name + "&version=" + strconv.Itoa(int(v))
			}
			w := do(t, h, "POST", q, "application/octet-stream", ex)
			require.Equal(t, http.StatusOK, w.Code, "%s v%d: %s", a.Name, v, w.Body.String())
			w = do(t, h, "POST", "/api/encode", "application/json", w.Body.Bytes())
			require.Equal(t, http.StatusOK, w.Code, "%s v%d: %s", a.Name, v, w.Body.String())
			require.Equal(t, ex, w.Body.Bytes(), "%s v%d", a.Name, v)
			require.Empty(t, w.Header().Get("Kwire-Not-Given"), "%s v%d: a decoded frame gives every field", a.Name, v)
		}
	}

	// Fields left out are written as their defaults, and named.
	var doc map[string]any
	require.NoError(t, json.Unmarshal(body, &doc))
	delete(doc["body"].(map[string]any), "clientSoftwareVersion")
	delete(doc["header"].(map[string]any), "clientId")
	left, err := json.Marshal(doc)
	require.NoError(t, err)
	w = do(t, h, "POST", "/api/encode?as=hex", "application/json", left)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Equal(t, "header.clientId, body.clientSoftwareVersion", w.Header().Get("Kwire-Not-Given"))
}

// What is not value JSON is named, with where to send it: a frame's hex
// (said as kwire encode says it: it is /api/decode's). Annotated JSON
// (which failed as "buffers: unknown field") is read back as its frame's
// value JSON, as kwire encode reads it, and refused, saying why, where it
// does not hold the frame whole.
func TestEncodeNotValueJSON(t *testing.T) {
	h := New(Options{})
	w := do(t, h, "POST", "/api/encode?as=hex", "", []byte(apiVersionsV3))
	require.Equal(t, http.StatusBadRequest, w.Code)
	m := errorBody(t, w)
	require.Contains(t, m["error"], "hex, not JSON")
	require.Contains(t, m["error"], "/api/decode")
	require.Equal(t, "a frame's hex", m["found"])

	ann := do(t, h, "POST", "/api/decode?format=annotated", "", []byte(apiVersionsV3))
	require.Equal(t, http.StatusOK, ann.Code)
	w = do(t, h, "POST", "/api/encode", "application/json", ann.Body.Bytes())
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Equal(t, apiVersionsV3, hex.EncodeToString(w.Body.Bytes()))
	cut := `{"apiKey":0,"apiVersion":9,"buffers":[9],"root":{"children":[{"role":"body","truncated":true}]}}`
	w = do(t, h, "POST", "/api/encode", "application/json", []byte(cut))
	require.Equal(t, http.StatusBadRequest, w.Code)
	m = errorBody(t, w)
	require.Contains(t, m["error"], "annotated JSON that cannot be encoded")
	require.Contains(t, m["error"], "read in part")
	require.Contains(t, m["error"], "send value JSON")
	require.Equal(t, "annotated JSON", m["found"])
	require.Equal(t, envelopeWanted, m["expected"])

	// A number is JSON, not hex: it fails as the encoder says.
	w = do(t, h, "POST", "/api/encode", "", []byte("12345678"))
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.NotContains(t, errorBody(t, w)["error"], "hex")
}

func TestEncodeErrors(t *testing.T) {
	h := New(Options{})
	good := `{"direction":"request","apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}`
	const batchAt = "body.topicData[0].partitionData[0].records[0]"
	produce := `{"direction":"request","apiKey":0,"apiVersion":9,"header":{"correlationId":7,"clientId":"p"},"body":{"transactionalId":null,"acks":-1,"timeoutMs":30000,` +
		`"topicData":[{"name":"orders","partitionData":[{"index":0,"records":[{"baseOffset":0,"partitionLeaderEpoch":0,"magic":2,` +
		`"attributes":{"compression":"none","timestampType":"CreateTime","transactional":false,"control":false,"deleteHorizon":false},` +
		`"lastOffsetDelta":0,"baseTimestamp":1748856600000,"maxTimestamp":1748856600000,"producerId":4001,"producerEpoch":0,"baseSequence":0,` +
		`"records":[{"attributes":0,"timestampDelta":0,"offsetDelta":0,"key":{"text":"k"},"value":{"text":"v"},"headers":[]}]}]}]}]}}`
	require.Equal(t, http.StatusOK, do(t, h, "POST", "/api/encode", "application/json", []byte(produce)).Code)
	for _, tc := range []struct {
		name, query, body string
		path              string
		offset            int // -1: null
		expected          string
	}{
		{"empty", "", "", "", -1, ""},
		{"not JSON", "", "hello", "", 0, ""}, // the offending byte
		{"truncated JSON", "", good[:40], "", 40, ""},
		{"truncated JSON after a byte order mark", "", "\xef\xbb\xbf" + good[:40], "", 43, ""}, // offsets count the mark
		{"two values", "", good + " " + good, "", len(good) + 1, "one JSON value"},
		{"a key twice", "", strings.Replace(good, `"correlationId":7`, `"correlationId":7,"correlationId":8`, 1), "", strings.Index(good, `"correlationId":7`) + len(`"correlationId":7,`), ""},
		{"an array", "", "[1,2]", "", -1, "an object with direction, apiKey, apiVersion, header and body"},
		{"unknown top-level key", "", strings.Replace(good, `"body"`, `"bdy"`, 1), "bdy", -1, ""},
		{"unknown body field", "", strings.Replace(good, `clientSoftwareName`, `clientName`, 1), "body.clientName", -1, ""},
		{"wrong type", "", strings.Replace(good, `"correlationId":7`, `"correlationId":"seven"`, 1), "header.correlationId", -1, "an integer"},
		{"version out of range", "", strings.Replace(good, `"apiVersion":3`, `"apiVersion":99`, 1), "apiVersion", -1, ""},
		{"bad direction", "", strings.Replace(good, `"request"`, `"sideways"`, 1), "direction", -1, `"request" or "response"`},
		{"int out of range", "", strings.Replace(good, `"correlationId":7`, `"correlationId":99999999999`, 1), "header.correlationId", -1, ""},
		{"bad as", "?as=morse", good, "?as", -1, ""},
		{"bad sizePrefix", "?sizePrefix=maybe", good, "?sizePrefix", -1, ""},
		{"sizePrefix auto means nothing to encode", "?sizePrefix=auto", good, "?sizePrefix", -1, "true or false"},
		{"missing version", "", strings.Replace(good, `"apiVersion":3,`, ``, 1), "apiVersion", -1, "a value"},
		{"apiName against apiKey", "", strings.Replace(good, `"apiKey":18`, `"apiKey":18,"apiName":"Produce"`, 1), "apiName", -1, "what apiKey says: 18 (ApiVersions)"},
		{"header against envelope", "", strings.Replace(good, `"correlationId":7`, `"correlationId":7,"requestApiKey":3`, 1), "header.requestApiKey", -1, "what the envelope says: 18"},
		{"unknown API key", "", strings.Replace(good, `"apiKey":18`, `"apiKey":999`, 1), "apiKey", -1, ""},
		// Errors inside records say what they expected and found too.
		{"record offsetDelta a string", "", strings.Replace(produce, `"offsetDelta":0`, `"offsetDelta":"x"`, 1), batchAt + ".records[0].offsetDelta", -1, "an integer"},
		{"record key an empty object", "", strings.Replace(produce, `"key":{"text":"k"}`, `"key":{}`, 1), batchAt + ".records[0].key", -1, `null, a string, {"text":...} or {"base64":...}`},
		{"producerEpoch out of range", "", strings.Replace(produce, `"producerEpoch":0`, `"producerEpoch":40000`, 1), batchAt + ".producerEpoch", -1, "an integer in -32768..32767"},
		{"producerId out of range", "", strings.Replace(produce, `"producerId":4001`, `"producerId":92233720368547758070`, 1), batchAt + ".producerId", -1, "an integer in -9223372036854775808..9223372036854775807"},
		{"unknown codec", "", strings.Replace(produce, `"compression":"none"`, `"compression":"brotli"`, 1), batchAt + ".attributes.compression", -1, "none, gzip, snappy, lz4, zstd or a number 0-7"},
		// A frame's hex, and annotated JSON, are said to be what they are.
		{"hex", "?as=hex", apiVersionsV3, "", 0, envelopeWanted},
		{"hex after blank lines", "", "\n  " + apiVersionsV3 + "\n", "", 3, envelopeWanted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(t, h, "POST", "/api/encode"+tc.query, "application/json", []byte(tc.body))
			require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
			m := errorBody(t, w)
			require.Equal(t, tc.path, m["path"], w.Body.String())
			if tc.offset < 0 {
				require.Nil(t, m["offset"], w.Body.String())
			} else {
				require.EqualValues(t, tc.offset, m["offset"], w.Body.String())
			}
			if tc.expected != "" {
				require.Equal(t, tc.expected, m["expected"], w.Body.String())
			}
			// Every error says what was expected and what was found.
			require.NotEmpty(t, m["expected"], w.Body.String())
			require.NotEmpty(t, m["found"], w.Body.String())
		})
	}
}

func TestAPIs(t *testing.T) {
	w := do(t, New(Options{}), "GET", "/api/apis", "", nil)
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var list []render.APIInfo
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &list))
	require.Len(t, list, len(schema.APIs()))
	require.Equal(t, "Produce", list[0].Name)
	require.EqualValues(t, 0, list[0].Key)
	require.Contains(t, w.Body.String(), `"minVersion":`)
}

func TestSchema(t *testing.T) {
	h := New(Options{})
	for _, p := range []string{"/api/schema/Metadata/12", "/api/schema/3/12", "/api/schema/metadatarequest/12"} {
		w := do(t, h, "GET", p, "", nil)
		var d schemaDoc
		require.Equal(t, http.StatusOK, w.Code, p)
		require.Equal(t, "application/json", w.Header().Get("Content-Type"))
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &d))
		require.Equal(t, "Metadata", d.Name)
		require.EqualValues(t, 3, d.Key)
		require.EqualValues(t, 12, d.Version)
		require.NotNil(t, d.Request)
		require.NotNil(t, d.Response)
		require.Equal(t, "MetadataRequest", d.Request.Name)
		require.True(t, d.Request.Flexible)
		require.EqualValues(t, 2, d.Request.HeaderVersion)
		require.EqualValues(t, 1, d.Response.HeaderVersion)
		require.Contains(t, d.Request.BNF, "Metadata Request (Version: 12) =>")
		require.Contains(t, w.Body.String(), "=>", "no HTML escaping")
		require.NotEmpty(t, d.Request.Fields)
		require.Equal(t, "topics", d.Request.Fields[0].Path)
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/api/schema/Nope/1", 404},
		{"/api/schema/Metadata/x", 400},
		{"/api/schema/Metadata/-1", 400},
		{"/api/schema/Metadata/99999999", 400},
		{"/api/schema/Metadata/999", 404},
		{"/api/schema/Metadata", 404},
		{"/api/schema/Metadata/", 404},
		{"/api/schema/Metadata/1/2", 404},
		{"/api/schema/", 404},
	} {
		w := do(t, h, "GET", tc.path, "", nil)
		require.Equal(t, tc.status, w.Code, tc.path+": "+w.Body.String())
		errorBody(t, w)
	}
}

func TestRoutesAndMethods(t *testing.T) {
	h := New(Options{})
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/api/decode", 405, "POST"},
		{"PUT", "/api/encode", 405, "POST"},
		{"POST", "/api/apis", 405, "GET, HEAD"},
		{"DELETE", "/api/schema/Metadata/1", 405, "GET, HEAD"},
		{"GET", "/api/nope", 404, ""},
		{"GET", "/api", 404, ""},
		{"GET", "/api/", 404, ""},
		{"GET", "/", 404, ""},
		{"POST", "/api/decode/extra", 404, ""},
		{"GET", "/api/apis/", 404, ""},
	} {
		w := do(t, h, tc.method, tc.path, "", nil)
		require.Equal(t, tc.status, w.Code, tc.method+" "+tc.path)
		require.Equal(t, tc.allow, w.Header().Get("Allow"), tc.method+" "+tc.path)
		errorBody(t, w)
		require.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
	}
	// HEAD answers like GET.
	w := do(t, h, "HEAD", "/api/apis", "", nil)
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
}

// The handler runs behind a real server as kwire serve will run it.
func TestOverHTTP(t *testing.T) {
	srv := httptest.NewServer(New(Options{}))
	defer srv.Close()
	res, err := srv.Client().Post(srv.URL+"/api/decode", "application/octet-stream", bytes.NewReader(frame(t)))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	// A chunked body over the limit.
	pr, pw := io.Pipe()
	go func() {
		chunk := bytes.Repeat([]byte("ab"), 1<<15)
		for i := 0; i < 40; i++ {
			if _, err := pw.Write(chunk); err != nil {
				break
			}
		}
		pw.Close()
	}()
	res2, err := srv.Client().Post(srv.URL+"/api/encode", "application/json", pr)
	require.NoError(t, err)
	defer res2.Body.Close()
	require.Equal(t, http.StatusRequestEntityTooLarge, res2.StatusCode)
}

func TestIsRoute(t *testing.T) {
	for p, want := range map[string]bool{
		"/api/decode": true, "/api/encode": true, "/api/apis": true, "/api/schema/Metadata/12": true,
		"/api/schema/": true, "/api/metadata/v12.html": false, "/api/metadata/": false, "/api/": false,
		"/api/decode/": false, "/": false, "/index.html": false,
	} {
		require.Equal(t, want, IsRoute(p), p)
	}
}

// The Worker's wrangler.jsonc sends exactly the API routes to Go before
// the static assets; it must agree with IsRoute.
func TestWranglerRoutes(t *testing.T) {
	raw, err := os.ReadFile("../../wasm/worker/wrangler.jsonc")
	require.NoError(t, err)
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	var cfg struct {
		Assets struct {
			RunWorkerFirst []string `json:"run_worker_first"`
		} `json:"assets"`
	}
	require.NoError(t, json.Unmarshal([]byte(strings.Join(lines, "\n")), &cfg))
	require.ElementsMatch(t, []string{"/api/decode", "/api/encode", "/api/apis", "/api/schema/*"}, cfg.Assets.RunWorkerFirst)
	for _, p := range cfg.Assets.RunWorkerFirst {
		if strings.HasSuffix(p, "*") {
			p = strings.TrimSuffix(p, "*") + "Metadata/1"
		}
		require.True(t, IsRoute(p), p)
	}
}

// The answer is the codec's value JSON, byte for byte what the tree gives
// (the handler writes it straight from the bytes), with the codec's
// warnings and guess in the envelope.
func TestDecodeAnswerIsTheCodecs(t *testing.T) {
	h := New(Options{})
	for _, a := range []string{"Produce", "Fetch", "Metadata", "JoinGroup", "ApiVersions"} {
		api := schema.ByName(a)
		for _, resp := range []bool{false, true} {
			v := api.Request.Valid.Hi
			b, err := codec.ExampleFrame(api, v, resp)
			require.NoError(t, err)
			q := "?direction=request"
			o := codec.Options{Limits: codec.Limits{MaxNodes: DefaultMaxNodes, MaxDecompressed: DefaultMaxDecompressed, MaxWork: DefaultMaxWork}}
			if resp {
				q = "?direction=response&api=" + a + "&version=" + strconv.Itoa(int(v))
				o.Response, o.APIKey, o.Version = true, api.Key, v
			}
			f, err := codec.Decode(b, o)
			require.NoError(t, err)
			w := do(t, h, "POST", "/api/decode"+q, "application/octet-stream", b)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			require.Equal(t, string(f.AppendJSON(nil))+"\n", w.Body.String(), "%s v%d response=%v", a, v, resp)
		}
	}
}

// A limit that cuts decoding short is in the answer: a warning with
// "limit": true at the field it cut.
func TestDecodeLimitWarning(t *testing.T) {
	b, err := codec.ExampleFrame(schema.ByName("Produce"), 9, false)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"nodes", Options{MaxNodes: 25}},
		{"work", Options{MaxWork: 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := jsonBody(t, do(t, New(tc.o), "POST", "/api/decode?direction=request", "application/octet-stream", b))
			ws, ok := m["warnings"].([]any)
			require.True(t, ok, "no warnings in %v", m)
			var limit map[string]any
			for _, x := range ws {
				if x.(map[string]any)["limit"] == true {
					limit = x.(map[string]any)
				}
			}
			require.NotNil(t, limit, "no limit warning in %v", ws)
			require.NotEmpty(t, limit["path"])
			require.NotEmpty(t, limit["message"])
			require.Contains(t, limit, "offset")
		})
	}
}

// A response read without its API and version says so: the guess in the
// envelope (confidence, readings tried) and in the Kwire-Guess header,
// for the value and the annotated form alike.
func TestDecodeGuessInAnswer(t *testing.T) {
	b, err := codec.ExampleFrame(schema.ByName("Metadata"), 12, true)
	require.NoError(t, err)
	for _, q := range []string{"", "?direction=response", "?api=Metadata", "?format=annotated"} {
		w := do(t, New(Options{}), "POST", "/api/decode"+q, "application/octet-stream", b)
		m := jsonBody(t, w)
		require.Regexp(t, `^apiKey=3; version=\d+; confidence=[01]\.\d\d$`, w.Header().Get("Kwire-Guess"), q)
		if q == "?format=annotated" {
			continue
		}
		g, ok := m["guess"].(map[string]any)
		require.True(t, ok, "%s: no guess in %v", q, m)
		require.Contains(t, g, "confidence", q)
		require.Positive(t, g["tried"], q)
	}
	// A request is no guess.
	w := do(t, New(Options{}), "POST", "/api/decode", "", []byte(apiVersionsV3))
	require.NotContains(t, jsonBody(t, w), "guess")
	require.Empty(t, w.Header().Get("Kwire-Guess"))
	// Guessing shares one work budget: a tiny one cuts the search, and
	// the answer says nothing reads cleanly rather than guessing blind.
	w = do(t, New(Options{MaxWork: 64}), "POST", "/api/decode?direction=response", "application/octet-stream", b)
	require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
	require.Contains(t, errorBody(t, w)["found"], "MaxWork")
}

// kafka=1 writes Kafka's own JSON form: the consumer-protocol metadata of
// a JoinGroup request and the records of a Produce request are base64
// strings (the default decodes them into objects and batches), and the
// body has no key of kwire's own. It reads back to the same frame.
func TestDecodeKafkaForm(t *testing.T) {
	h := New(Options{})
	join := `{"apiName":"JoinGroup","apiVersion":9,"header":{"correlationId":3,"clientId":"c"},"body":{
		"groupId":"billing","sessionTimeoutMs":45000,"rebalanceTimeoutMs":60000,"memberId":"","groupInstanceId":null,
		"protocolType":"consumer","protocols":[{"name":"range","metadata":
		{"version":3,"topics":["orders"],"userData":null,"ownedPartitions":[],"generationId":4,"rackId":null}}],"reason":null}}`
	jb, err := codec.Encode(nil, []byte(join), codec.EncodeOptions{})
	require.NoError(t, err)
	pb, err := codec.ExampleFrame(schema.ByName("Produce"), 9, false)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		frame []byte
		get   func(body map[string]any) any
	}{
		{"JoinGroup metadata", jb, func(b map[string]any) any { return b["protocols"].([]any)[0].(map[string]any)["metadata"] }},
		{"Produce records", pb, func(b map[string]any) any {
			td := b["topicData"].([]any)[0].(map[string]any)
			return td["partitionData"].([]any)[0].(map[string]any)["records"]
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := jsonBody(t, do(t, h, "POST", "/api/decode", "application/octet-stream", tc.frame))
			switch tc.get(def["body"].(map[string]any)).(type) {
			case map[string]any, []any:
			default:
				t.Fatalf("default form: want a decoded object or batches, got %v", tc.get(def["body"].(map[string]any)))
			}
			for _, q := range []string{"?kafka=1", "?kafka=true", "?kafka=1&records=base64"} {
				w := do(t, h, "POST", "/api/decode"+q, "application/octet-stream", tc.frame)
				m := jsonBody(t, w)
				v, ok := tc.get(m["body"].(map[string]any)).(string)
				require.True(t, ok, "%s: want a base64 string: %s", q, w.Body.String())
				raw, err := base64.StdEncoding.DecodeString(v)
				require.NoError(t, err)
				require.True(t, bytes.Contains(tc.frame, raw), "%s: the base64 is the field's own bytes", q)
				body := strings.SplitN(w.Body.String(), `"body":`, 2)[1]
				require.NotContains(t, body, `"_`, q)
				require.NotContains(t, body, `"baseOffset"`, q)
				require.NotContains(t, body, `"version":3,"topics"`, q)
				// Kafka's form reads back to the same frame.
				w = do(t, h, "POST", "/api/encode", "application/json", w.Body.Bytes())
				require.Equal(t, http.StatusOK, w.Code, w.Body.String())
				require.Equal(t, tc.frame, w.Body.Bytes())
			}
			off := jsonBody(t, do(t, h, "POST", "/api/decode?kafka=0", "application/octet-stream", tc.frame))
			require.Equal(t, def, off)
		})
	}
}

// TestDecodeFrameThenMore: a frame followed by another, or by one cut
// short, is that frame, the bytes after it said in a warning; it was read
// as one unsized frame, a Produce v28 request failing in its body.
func TestDecodeFrameThenMore(t *testing.T) {
	h := New(Options{})
	for _, tail := range []string{apiVersionsV3, "0000001c00120003", "00000000"} {
		for _, q := range []string{"", "?direction=request", "?format=annotated"} {
			w := do(t, h, "POST", "/api/decode"+q, "text/plain", []byte(apiVersionsV3+tail))
			m := jsonBody(t, w)
			if q == "?format=annotated" {
				require.Contains(t, w.Body.String(), `"_trailing"`, tail)
				continue
			}
			require.Equal(t, "ApiVersions", m["apiName"], tail)
			ws := m["warnings"].([]any)
			require.Len(t, ws, 1, w.Body.String())
			require.Equal(t, "_trailing", ws[0].(map[string]any)["path"])
			require.Equal(t, strconv.Itoa(len(tail)/2)+" bytes after the frame's declared size", ws[0].(map[string]any)["message"])
		}
	}
	// Told there is no size prefix, the bytes are read so.
	w := do(t, h, "POST", "/api/decode?sizePrefix=no", "text/plain", []byte(apiVersionsV3+apiVersionsV3))
	require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
}

// The public Worker's API may be called from pages of any origin: its
// answers say so, and a preflight is answered; kwire serve's, on a user's
// loopback, may not.
func TestCrossOrigin(t *testing.T) {
	worker := New(WorkerOptions)
	w := do(t, worker, "OPTIONS", "/api/decode", "", nil)
	require.Equal(t, http.StatusNoContent, w.Code)
	require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
	require.Equal(t, "GET, HEAD, POST", w.Header().Get("Access-Control-Allow-Methods"))
	require.Equal(t, "Content-Type", w.Header().Get("Access-Control-Allow-Headers"))
	b, err := codec.ExampleFrame(schema.ByName("Metadata"), 12, true)
	require.NoError(t, err)
	w = do(t, worker, "POST", "/api/decode?direction=response", "application/octet-stream", b)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
	require.Contains(t, w.Header().Get("Access-Control-Expose-Headers"), "Kwire-Guess")
	require.NotEmpty(t, w.Header().Get("Kwire-Guess"))
	// A near miss's 404 says which route was meant: a page on another
	// origin reads the hint too (it had no CORS header).
	w = do(t, worker, "POST", "/api/decode/", "text/plain", []byte(apiVersionsV3))
	require.Equal(t, http.StatusNotFound, w.Code)
	require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
	require.Contains(t, w.Body.String(), "/api/decode")

	local := New(Options{})
	w = do(t, local, "OPTIONS", "/api/decode", "", nil)
	require.Equal(t, http.StatusMethodNotAllowed, w.Code)
	require.Empty(t, w.Header().Get("Access-Control-Allow-Origin"))
	w = do(t, local, "POST", "/api/decode", "", []byte(apiVersionsV3))
	require.Empty(t, w.Header().Get("Access-Control-Allow-Origin"))
}

// A whole captured packet (tshark -x of a loopback capture: Ethernet,
// IPv4, TCP) decodes as its TCP payload, the Kwire-Packet header saying
// so; a packet with no payload is an error that says what it is.
func TestDecodeWholePacket(t *testing.T) {
	h := New(Options{})
	dump, err := os.ReadFile("../input/testdata/packets/kfake-4.tshark-x")
	require.NoError(t, err)
	w := do(t, h, "POST", "/api/decode", "text/plain", dump)
	m := jsonBody(t, w)
	require.Equal(t, "ApiVersions", m["apiName"], w.Body.String())
	require.Equal(t, "kwire-none", m["header"].(map[string]any)["clientId"])
	require.Equal(t, "a whole packet (Ethernet, IPv4, TCP port 36574 to 37751): its 66 bytes of headers are stripped, its TCP payload of 38 bytes decoded",
		w.Header().Get("Kwire-Packet"))

	// The same packet, its payload gone: an ACK.
	b, _, err := input.Parse(dump, input.Auto)
	require.NoError(t, err)
	ack := append([]byte(nil), b[:66]...)
	ack[16], ack[17] = 0, 52 // IPv4 total length: headers only
	ack[24], ack[25] = 0, 0  // no checksum (offloaded)
	w = do(t, h, "POST", "/api/decode", "application/octet-stream", ack)
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.Contains(t, errorBody(t, w)["error"], "with no TCP payload: no Kafka bytes to decode")
}

// TestDecodeBodyTheWrongWay: hex sent as application/octet-stream is read
// as raw bytes, as that type says, and the error says the body is text
// and how to send it; a form (curl -F) is refused as one, 415, rather
// than its boundary read as a frame.
func TestDecodeBodyTheWrongWay(t *testing.T) {
	h := New(Options{})
	w := do(t, h, "POST", "/api/decode", "application/octet-stream", []byte(apiVersionsV3))
	require.Equal(t, http.StatusBadRequest, w.Code, w.Body.String())
	require.Contains(t, errorBody(t, w)["error"], "; the body is text (hex or base64?), read as raw bytes because it came as application/octet-stream: send it as text/plain, or with input=hex")
	// Sent as text, the same body reads.
	w = do(t, h, "POST", "/api/decode", "text/plain", []byte(apiVersionsV3))
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	// Raw bytes that fail say nothing of text.
	b := frame(t)
	w = do(t, h, "POST", "/api/decode", "application/octet-stream", b[:len(b)-3])
	require.Equal(t, http.StatusBadRequest, w.Code)
	require.NotContains(t, w.Body.String(), "the body is text")

	form := "--x\r\nContent-Disposition: form-data; name=\"f\"; filename=\"frame.bin\"\r\n\r\n" + string(b) + "\r\n--x--\r\n"
	w = do(t, h, "POST", "/api/decode", "multipart/form-data; boundary=x", []byte(form))
	require.Equal(t, http.StatusUnsupportedMediaType, w.Code, w.Body.String())
	require.Contains(t, w.Body.String(), "a form is not a frame: send the frame as the body itself")
}

// TestUnknownQueryParameter: a query parameter a route does not take is
// a 400 naming it, and the one it was likely meant for; it was ignored,
// so ?verison=3 or ?Version=3 decoded as if no version were given.
func TestUnknownQueryParameter(t *testing.T) {
	h := New(Options{})
	for _, c := range []struct{ target, found, meant string }{
		{"/api/decode?direction=response&api=ApiVersions&verison=3", "verison", "version"},
		{"/api/decode?Version=3&api=ApiVersions", "Version", "version"},
		{"/api/decode?record=base64", "record", "records"},
		{"/api/decode?tenant=a", "tenant", ""},
		{"/api/encode?sizeprefix=false", "sizeprefix", "sizePrefix"},
		{"/api/encode?as=hex&format=hex", "format", ""},
	} {
		w := do(t, h, "POST", c.target, "", []byte(apiVersionsV3))
		require.Equal(t, http.StatusBadRequest, w.Code, c.target)
		m := errorBody(t, w)
		require.Equal(t, "?"+c.found, m["path"], c.target)
		require.Equal(t, c.found, m["found"], c.target)
		require.Contains(t, m["error"], `unknown query parameter "`+c.found+`" for POST /api/`, c.target)
		if c.meant != "" {
			require.Contains(t, m["error"], "did you mean "+c.meant+"?", c.target)
		} else {
			require.NotContains(t, m["error"], "did you mean", c.target)
		}
		require.Contains(t, m["expected"], "one of ", c.target)
	}
	// Every parameter a route lists is taken.
	w := do(t, h, "POST", "/api/decode?direction=request&sizePrefix=auto&format=value&records=decoded&kafka=0&input=auto", "", []byte(apiVersionsV3))
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
}

// /api/schema gives a version's fields as the site's page for it does:
// ranges cut to the structs enclosing each field, and only the fields the
// version has.
func TestSchemaRangesAreThePages(t *testing.T) {
	h := New(Options{})
	for _, tc := range []struct {
		path, dir, field, versions, nullable string
	}{
		{"/api/schema/Fetch/12", "response", "responses.partitions.snapshotId.epoch", "12+", ""},
		{"/api/schema/CreateTopics/1", "response", "topics.errorMessage", "1+", "1+"},
		{"/api/schema/LeaderAndIsr/2", "request", "topicStates.partitionStates.leader", "2+", ""},
	} {
		w := do(t, h, "GET", tc.path, "", nil)
		require.Equal(t, http.StatusOK, w.Code, tc.path)
		var d schemaDoc
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &d))
		m := d.Request
		if tc.dir == "response" {
			m = d.Response
		}
		found := false
		for _, f := range m.Fields {
			if f.Path == tc.field {
				found = true
				require.Equal(t, tc.versions, f.Versions, tc.path+" "+tc.field)
				require.Equal(t, tc.nullable, f.Nullable, tc.path+" "+tc.field)
			}
		}
		require.True(t, found, tc.path+" has no "+tc.field)
	}
	// Metadata v0 has no topicId (v10+): the table lists no field v0 lacks.
	w := do(t, h, "GET", "/api/schema/Metadata/0", "", nil)
	require.NotContains(t, w.Body.String(), `"topicId"`)
}
