package encinput

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// NotGiven lists the fields a frame's value JSON v leaves out that its
// version has and that are not tagged: the encoder writes each as its
// default (0 for a number: acks 0 asks the broker for no answer), while
// Kafka's own JSON reader refuses a document without them. Paths are
// value-JSON paths ("body.acks"); records and other nested payloads are
// not looked into. nil for anything that is not a frame's envelope whose
// API and version are known.
func NotGiven(v any) []string {
	env, ok := v.(map[string]any)
	if !ok || Annotated(v) {
		return nil // annotated JSON holds its frame's every byte
	}
	api := apiOfEnvelope(env)
	ver, ok := intOf(env["apiVersion"])
	if api == nil || !ok {
		return nil
	}
	m, hdr := api.Request, schema.RequestHeader()
	if d, _ := env["direction"].(string); d == "response" {
		m, hdr = api.Response, schema.ResponseHeader()
	}
	body := m.At(int16(ver))
	if body == nil {
		return nil
	}
	var out []string
	hv := m.HeaderVersion(int16(ver))
	if h, ok := env["header"].(map[string]any); ok {
		// A request header's API key and version are the envelope's
		// when left out: not defaults.
		h = withKeys(h, "requestApiKey", "requestApiVersion")
		out = missingIn(out, "header", h, hdr.At(hv).Root, hv)
	} else if _, ok := env["header"]; !ok {
		out = append(out, "header")
	}
	if b, ok := env["body"].(map[string]any); ok {
		out = missingIn(out, "body", b, body.Root, int16(ver))
	} else if _, ok := env["body"]; !ok {
		out = append(out, "body")
	}
	return out
}

// missingIn appends the paths of l's untagged fields at version v that
// object o, at path, lacks, and those of the structs inside it.
func missingIn(out []string, path string, o map[string]any, l *schema.Layout, v int16) []string {
	if l == nil {
		return out
	}
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(v) || f.IsTagged(v) {
			continue
		}
		x, ok := o[f.JSON]
		p := path + "." + f.JSON
		switch {
		case !ok:
			out = append(out, p)
		case f.Kind == schema.Struct:
			if s, ok := x.(map[string]any); ok {
				out = missingIn(out, p, s, f.Struct, v)
			}
		case f.Kind == schema.Array && f.Elem == schema.Struct:
			xs, _ := x.([]any)
			for j, e := range xs {
				if s, ok := e.(map[string]any); ok {
					out = missingIn(out, p+"["+strconv.Itoa(j)+"]", s, f.Struct, v)
				}
			}
		}
	}
	return out
}

// withKeys is o with the keys given present: o itself when it has them,
// else a copy.
func withKeys(o map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		if _, ok := o[k]; !ok {
			c := maps.Clone(o)
			for _, k := range keys {
				if _, ok := c[k]; !ok {
					c[k] = nil
				}
			}
			return c
		}
	}
	return o
}

// apiOfEnvelope is the API an envelope names by apiKey, else apiName.
func apiOfEnvelope(env map[string]any) *schema.API {
	if k, ok := intOf(env["apiKey"]); ok {
		return schema.ByKey(int16(k))
	}
	if n, ok := env["apiName"].(string); ok {
		return schema.ByName(n)
	}
	return nil
}

// intOf is a JSON number's value, when it is a whole int16.
func intOf(v any) (int, bool) {
	var n int64
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		if err != nil {
			return 0, false
		}
		n = i
	case float64:
		if x != float64(int64(x)) {
			return 0, false
		}
		n = int64(x)
	default:
		return 0, false
	}
	if n < -1<<15 || n >= 1<<15 {
		return 0, false
	}
	return int(n), true
}

// NotGivenNote says what NotGiven found, as kwire encode and the
// playground say it: at most six paths, then how many more.
func NotGivenNote(paths []string) string {
	shown := paths[:min(len(paths), 6)]
	s := "not given, written as their defaults (Kafka's JSON reader requires them): " + strings.Join(shown, ", ")
	if len(paths) == 1 {
		s = "not given, written as its default (Kafka's JSON reader requires it): " + paths[0]
	}
	if n := len(paths) - len(shown); n > 0 {
		s += " and " + strconv.Itoa(n) + " more"
	}
	return s
}
