package api

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/internal/near"
)

// Route is one of the API's routes as its users are told of it: the
// answer to an unknown route lists them, and the docs site's JSON API
// page (site/jsonapi.go) is written from them, so neither can miss one
// (tests hold the table to what the handler reads and answers).
type Route struct {
	Method  string // POST, or GET (which takes HEAD too)
	Path    string // "/api/decode", "/api/schema/{api}/{version}"
	Summary string // what it does, a line
	Body    string // what its body is, "" for none
	Answer  string // what a good request gets
	Params  []Param
}

// Param is a query parameter of a route.
type Param struct {
	Name    string
	Values  []string // the values it takes, as written; nil for free text
	Default string   // what leaving it out means
	Doc     string   // what it does
}

// Routes lists the API's routes, in the order the docs give them.
func Routes() []Route {
	return []Route{
		{Method: "POST", Path: "/api/decode", Summary: "decode one frame into value JSON or annotated JSON",
			Body:   "one frame: raw bytes (Content-Type: application/octet-stream), or text: hex in any of its shapes (spaced, 0x, xxd, hexdump, od, Wireshark and tcpdump dumps) or base64; a whole captured packet's TCP payload is taken (Kwire-Packet says so)",
			Answer: "the frame's JSON (application/json): direction, apiKey, apiName, apiVersion, header, body, and warnings when any; a guessed response carries guess",
			Params: []Param{
				{Name: "direction", Values: []string{"request", "response", "auto"}, Default: "auto: a request, else the likeliest response",
					Doc: "what the frame is; a request names its API and version in its header"},
				{Name: "api", Default: "guessed, for a response", Doc: "a response's API, by name or key (GET /api/apis lists them); given alone it means direction=response"},
				{Name: "version", Default: "guessed, for a response", Doc: "a response's version, 0 to 32767; needs api"},
				{Name: "sizePrefix", Values: []string{"auto", "true", "false"}, Default: "auto: the size prefix when the first 4 bytes are one",
					Doc: "whether the frame starts with its 4-byte size"},
				{Name: "format", Values: []string{"value", "annotated"}, Default: "value",
					Doc: "value JSON (what /api/encode reads), or annotated JSON: the tree, every node with its byte range"},
				{Name: "records", Values: []string{"decoded", "base64", "size"}, Default: "decoded",
					Doc: "record batches decoded, left as base64, or given by their size only"},
				{Name: "kafka", Values: []string{"1", "0"}, Default: "0",
					Doc: "Kafka's own JSON form: every bytes field base64, records and nested payloads included, no key of kwire's own in the body; not with format=annotated or records=size"},
				{Name: "topicId", Default: "none", Doc: "ID=NAME, repeatable up to " + strconv.Itoa(maxTopicIDs) +
					": a topic a frame names only by id, so that an internal topic's records decode"},
				{Name: "input", Values: []string{"auto", "hex", "base64", "binary"}, Default: "binary for Content-Type: application/octet-stream, else auto (text)",
					Doc: "how the body holds the frame"},
			}},
		{Method: "POST", Path: "/api/encode", Summary: "encode value JSON into the frame's bytes",
			Body:   "value JSON, as /api/decode answers it (in either form: kafka=1 too), or its annotated JSON when that holds the frame whole",
			Answer: "the frame: raw bytes (application/octet-stream), or a line of hex or base64 (text/plain); fields the JSON left out are written as their defaults and named in Kwire-Not-Given",
			Params: []Param{
				{Name: "as", Values: []string{"binary", "hex", "base64"}, Default: "binary", Doc: "how the frame is written"},
				{Name: "sizePrefix", Values: []string{"true", "false"}, Default: "true", Doc: "whether the frame starts with its 4-byte size"},
			}},
		{Method: "GET", Path: "/api/apis", Summary: "every API: key, name, category, versions",
			Answer: "a JSON array, one object an API"},
		{Method: "GET", Path: "/api/schema/{api}/{version}", Summary: "an API version's request and response layouts: Kafka-style BNF and a field table",
			Answer: "a JSON object: key, name, category, version, request and response (each name, flexible, headerVersion, bnf, fields)"},
	}
}

// routeList is the routes as the answer to an unknown one lists them:
// "POST /api/decode, POST /api/encode, ...".
func routeList() string {
	var b strings.Builder
	for i, r := range Routes() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(r.Method + " " + r.Path)
	}
	return b.String()
}

// routesByPath is Routes by their paths, made once: every POST asks
// strayParam, which would otherwise build the table each time.
var routesByPath = sync.OnceValue(func() map[string]Route {
	m := map[string]Route{}
	for _, r := range Routes() {
		m[r.Path] = r
	}
	return m
})

// strayParam is an error for the first query parameter (by name) in q
// that the route at path does not take, naming the one it was likely
// meant for; nil when there is none. A misspelt parameter ("verison",
// "Version") would otherwise be ignored, its default taken silently.
func strayParam(q url.Values, path string) *Error {
	route := routesByPath()[path]
	var stray []string
	for k := range q {
		if !slices.ContainsFunc(route.Params, func(p Param) bool { return p.Name == k }) {
			stray = append(stray, k)
		}
	}
	if len(stray) == 0 {
		return nil
	}
	k := slices.Min(stray)
	names := make([]string, len(route.Params))
	for i, p := range route.Params {
		names[i] = p.Name
	}
	msg := "unknown query parameter " + strconv.Quote(k) + " for " + route.Method + " " + path
	if m := near.Nearest(k, func(try func(alias, answer string)) {
		for _, n := range names {
			try(n, n)
		}
	}); m != "" {
		msg += ": did you mean " + m + "?"
	}
	return &Error{Message: msg, Path: "?" + k, Expected: "one of " + strings.Join(names, ", "), Found: k}
}

// nearRoute is the route a path not among them was likely meant for
// ("/api/decode/", "/API/Decode"), or nil.
func nearRoute(path string) *Route {
	p := strings.ToLower(strings.TrimRight(path, "/"))
	for _, r := range Routes() {
		stem, _, _ := strings.Cut(r.Path, "{")
		if p == strings.TrimRight(stem, "/") || stem != r.Path && strings.HasPrefix(p+"/", stem) {
			r := r
			return &r
		}
	}
	return nil
}
