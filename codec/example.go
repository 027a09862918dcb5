package codec

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
)

// ExampleRecords is the records value examples carry: base64 of a small
// uncompressed record batch (one record, key "k", value "v", one header).
// The round-trip tests decode it without a warning (its CRC is right).
var ExampleRecords = "AAAAAAAAAAAAAAA+AAAAAAL8JTYnAAAAAAAAAAABlHaYIMAAAAGUdpggwP//////////////////AAAAARgAAAACawJ2AgJoAng="

// Example returns a deterministic example envelope (value JSON in generic
// form) for an API, version and direction: every array holds one element,
// strings are short and non-empty, numbers differ from their defaults and
// every tagged field is present.
func Example(api *schema.API, version int16, response bool) map[string]any {
	m := api.Request
	dir := "request"
	if response {
		m, dir = api.Response, "response"
	}
	hdr := map[string]any{"correlationId": json.Number("7")}
	if !response && m.HeaderVersion(version) >= 1 {
		hdr["clientId"] = "kwire"
	}
	env := map[string]any{
		"direction":  dir,
		"apiKey":     json.Number(strconv.Itoa(int(api.Key))),
		"apiName":    api.Name,
		"apiVersion": json.Number(strconv.Itoa(int(version))),
		"header":     hdr,
	}
	if d := m.At(version); d != nil {
		g := exampleGen{v: version}
		env["body"] = g.structValue(d.Root)
	}
	return env
}

// ExampleFrame encodes Example with its size prefix.
func ExampleFrame(api *schema.API, version int16, response bool) ([]byte, error) {
	return Encode(nil, Example(api, version, response), EncodeOptions{})
}

type exampleGen struct {
	v int16
	n int64
}

func (g *exampleGen) structValue(l *schema.Layout) map[string]any {
	obj := make(map[string]any, len(l.Fields))
	for i := range l.Fields {
		f := &l.Fields[i]
		if f.Versions.Contains(g.v) {
			obj[f.JSON] = g.value(f, f.Kind)
		}
	}
	return obj
}

func (g *exampleGen) value(f *schema.Field, k schema.Kind) any {
	g.n++
	switch k {
	case schema.Bool:
		return defaultInt(f) == 0
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		x := g.n % 100
		if x == defaultInt(f) {
			x++
		}
		return json.Number(strconv.FormatInt(x, 10))
	case schema.Float64:
		return json.Number(strconv.FormatInt(g.n, 10) + ".5")
	case schema.String:
		s := exampleString(f)
		if s == f.Default {
			s += "-1"
		}
		return s
	case schema.Bytes:
		return base64.StdEncoding.EncodeToString([]byte{1, 2, 3})
	case schema.Records:
		return ExampleRecords
	case schema.UUID:
		var b [16]byte
		for i := range b {
			b[i] = byte(g.n) + byte(i)
		}
		return base64.RawURLEncoding.EncodeToString(b[:])
	case schema.Array:
		if f.Elem == schema.Struct {
			return []any{g.structValue(f.Struct)}
		}
		return []any{g.value(f, f.Elem)}
	case schema.Struct:
		return g.structValue(f.Struct)
	}
	return nil
}

func exampleString(f *schema.Field) string {
	switch f.EntityType {
	case "topicName":
		return "orders"
	case "groupId":
		return "billing"
	case "transactionalId":
		return "txn-1"
	}
	if f.JSON == "" {
		return "x"
	}
	return f.JSON
}
