package codec

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/kwire/kwire/codec/records"
	"github.com/kwire/kwire/codec/schema"
)

// ExampleRecords is the records value examples carry at versions that use
// record batches: base64 of a small uncompressed record batch (magic 2, one
// record, key "k", value "v", one header, timestamp 1737156468928). The
// round-trip tests decode it without a warning (its CRC is right).
const ExampleRecords = "AAAAAAAAAAAAAAA+AAAAAAL8JTYnAAAAAAAAAAABlHaYIMAAAAGUdpggwP//////////////////AAAAARgAAAACawJ2AgJoAng="

// recordsMagic is the record format a records field carries at an API
// version: Produce v0-1 and Fetch v0-1 carry message sets of magic 0;
// Produce v2 and Fetch v2-3 message sets of magic 1 (timestamps, KIP-32,
// Kafka 0.10.0; Fetch v3 added max_bytes in 0.10.1); Produce v3+ and Fetch
// v4+ record batches of magic 2 (KIP-98, Kafka 0.11), as every later API
// with records (FetchSnapshot, ShareFetch) does. The schema files' comments
// say so ("Version 3 also adds support for Kafka Message Format v2";
// "Starting in version 4, the requestor must be able to handle Kafka log
// message format version 2"), but only as prose, which the tables do not
// carry.
func recordsMagic(apiKey, version int16) int8 {
	switch {
	case apiKey == schema.KeyProduce && version <= 1, apiKey == schema.KeyFetch && version <= 1:
		return 0
	case apiKey == schema.KeyProduce && version == 2, apiKey == schema.KeyFetch && version <= 3:
		return 1
	}
	return 2
}

// exampleRecords is the records value of examples at an API version: a
// message set of one message (key "k", value "v") for magic 0 and 1,
// ExampleRecords for magic 2.
func exampleRecords(apiKey, version int16) string {
	magic := recordsMagic(apiKey, version)
	if magic == 2 {
		return ExampleRecords
	}
	msg := map[string]any{"offset": 0, "magic": magic, "attributes": map[string]any{"compression": "none"},
		"key": map[string]any{"text": "k"}, "value": map[string]any{"text": "v"}}
	if magic == 1 {
		msg["timestamp"] = int64(1737156468928)
	}
	b, _ := records.Encode(nil, []any{msg}) // a fixed, valid message: TestExamplesCarryTheirVersionsRecords decodes it
	return base64.StdEncoding.EncodeToString(b)
}

// Example returns a deterministic example envelope (value JSON in generic
// form) for an API, version and direction: every array holds one element,
// strings are short and non-empty, numbers differ from their defaults and
// every tagged field is present. Records fields hold what that version
// carries: a magic 0 or magic 1 message set before Kafka 0.11's record
// batches (Produce v0-2, Fetch v0-3), else ExampleRecords.
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
		g := exampleGen{v: version, records: exampleRecords(api.Key, version)}
		env["body"] = g.structValue(d.Root)
	}
	return env
}

// ExampleFrame encodes Example with its size prefix.
func ExampleFrame(api *schema.API, version int16, response bool) ([]byte, error) {
	return Encode(nil, Example(api, version, response), EncodeOptions{})
}

type exampleGen struct {
	v       int16
	n       int64
	records string // the records value at this version
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
		return g.records
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
