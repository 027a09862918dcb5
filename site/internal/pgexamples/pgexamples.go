// Package pgexamples makes the examples the playground offers on its first
// screen, one click each: a request, a response, a Produce request with
// records, a Fetch response whose records are gzip-compressed, a
// consumer-group JoinGroup request and a capture of real clients. They
// live in site/playground/static (examples.json and example.pcapng),
// written by
//
//	go run ./site/internal/pgexamples -out site/playground/static
//
// and a test in site/ checks the files there are what Files makes. The
// compressed Fetch is made here, natively: the browser's module carries no
// compressors' encoders.
package pgexamples

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// Example is one entry of examples.json.
type Example struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Hint  string `json:"hint"`
	Hex   string `json:"hex,omitempty"`
	File  string `json:"file,omitempty"` // a file beside the page (the capture)
	Dir   string `json:"dir,omitempty"`  // "request" or "response"
	API   int16  `json:"api,omitempty"`
	V     int16  `json:"v,omitempty"`
}

// CaptureSource is the capture example, relative to the repository root.
const CaptureSource = "testdata/captures/kfake-clients.pcapng"

// Files returns the contents of examples.json and example.pcapng; root is
// the repository root.
func Files(root string) (map[string][]byte, error) {
	pcap, err := os.ReadFile(filepath.Join(root, CaptureSource))
	if err != nil {
		return nil, err
	}
	xs, err := Examples()
	if err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(xs, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"examples.json": append(js, '\n'), "example.pcapng": pcap}, nil
}

// Examples lists the frames.
func Examples() ([]Example, error) {
	var out []Example
	add := func(id, label, hint string, b []byte, resp bool, api, v int16) {
		e := Example{ID: id, Label: label, Hint: hint, Hex: hex.EncodeToString(b), Dir: "request"}
		if resp {
			e.Dir, e.API, e.V = "response", api, v
		}
		out = append(out, e)
	}

	// A request: what a client sends first.
	av := schema.ByName("ApiVersions")
	b, err := codec.ExampleFrame(av, 3, false)
	if err != nil {
		return nil, err
	}
	add("request", "A request", "ApiVersions v3: the first thing a client asks a broker", b, false, 0, 0)

	// A response: Metadata, whose API and version come from its request.
	md := schema.ByName("Metadata")
	if b, err = codec.ExampleFrame(md, 12, true); err != nil {
		return nil, err
	}
	add("response", "A response", "Metadata v12: brokers, topics and partitions", b, true, md.Key, 12)

	// Produce with two records in an uncompressed batch.
	if b, err = withBatch(schema.ByName("Produce"), 9, false, "none", []record{
		{"user-42", `{"event":"signup","plan":"pro"}`, [][2]string{{"source", "web"}}},
		{"user-7", `{"event":"login"}`, nil},
	}); err != nil {
		return nil, err
	}
	add("produce", "Produce with records", "Produce v9: one batch of two records with a header", b, false, 0, 0)

	// Fetch whose batch is gzip-compressed: the records sit in a derived buffer.
	if b, err = withBatch(schema.ByName("Fetch"), 12, true, "gzip", []record{
		{"k0", "compressed value 0", nil}, {"k1", "compressed value 1", nil}, {"k2", "compressed value 2", nil},
	}); err != nil {
		return nil, err
	}
	add("fetch-gzip", "Fetch, gzip records", "Fetch v12 response: a gzip batch, decompressed in the page", b, true, schema.ByName("Fetch").Key, 12)

	// A consumer joining its group, with its subscription.
	if b, err = joinGroup(); err != nil {
		return nil, err
	}
	add("joingroup", "JoinGroup (consumer group)", "JoinGroup v9: a consumer's subscription, decoded from the protocol metadata", b, false, 0, 0)

	out = append(out, Example{ID: "capture", Label: "A capture", File: "example.pcapng",
		Hint: "pcapng of franz-go and kcat clients talking to a broker: every exchange in a table"})
	return out, nil
}

type record struct {
	key, value string
	headers    [][2]string
}

// withBatch is the example frame of api/v with its records field holding
// one batch of recs, compressed with compression.
func withBatch(api *schema.API, v int16, response bool, compression string, recs []record) ([]byte, error) {
	var rs []any
	for i, r := range recs {
		hs := []any{}
		for _, h := range r.headers {
			hs = append(hs, map[string]any{"key": h[0], "value": map[string]any{"text": h[1]}})
		}
		rs = append(rs, map[string]any{"attributes": 0, "timestampDelta": i, "offsetDelta": i,
			"key": map[string]any{"text": r.key}, "value": map[string]any{"text": r.value}, "headers": hs})
	}
	batch := map[string]any{
		"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes":      map[string]any{"compression": compression, "timestampType": "CreateTime"},
		"lastOffsetDelta": len(recs) - 1, "baseTimestamp": 1767225600000, "maxTimestamp": 1767225600000 + len(recs) - 1,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": rs,
	}
	env := codec.Example(api, v, response)
	if !replace(env, "records", []any{batch}) {
		return nil, errors.New("pgexamples: no records field in " + api.Name)
	}
	return encode(env)
}

// joinGroup is a JoinGroup v9 request from a consumer: protocol type
// "consumer", one protocol whose metadata is a ConsumerProtocolSubscription
// v1 (topics, no user data, no owned partitions).
func joinGroup() ([]byte, error) {
	var meta []byte
	meta = wire.AppendInt16(meta, 1) // version
	meta = wire.AppendInt32(meta, 2) // topics
	for _, t := range []string{"orders", "payments"} {
		meta = wire.AppendInt16(meta, int16(len(t)))
		meta = append(meta, t...)
	}
	meta = wire.AppendInt32(meta, -1) // userData: null
	meta = wire.AppendInt32(meta, 0)  // ownedPartitions: none
	env := map[string]any{"apiKey": 11, "apiVersion": 9,
		"header": map[string]any{"correlationId": 3, "clientId": "billing-consumer"},
		"body": map[string]any{"groupId": "billing", "sessionTimeoutMs": 45000, "rebalanceTimeoutMs": 60000,
			"memberId": "", "groupInstanceId": nil, "protocolType": "consumer",
			"protocols": []any{map[string]any{"name": "cooperative-sticky", "metadata": base64.StdEncoding.EncodeToString(meta)}},
			"reason":    nil}}
	return encode(env)
}

func encode(env map[string]any) ([]byte, error) {
	js, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	return codec.Encode(nil, js, codec.EncodeOptions{})
}

func replace(v any, key string, with any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == key {
				x[k] = with
				return true
			}
			if replace(e, key, with) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if replace(e, key, with) {
				return true
			}
		}
	}
	return false
}
