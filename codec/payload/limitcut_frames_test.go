package payload_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
)

// cutSource has an Avro schema (id 1) and a JSON Schema (id 2).
type cutSource struct{ avsc string }

func (s cutSource) SchemaByID(id int) (*payload.Schema, error) {
	switch id {
	case 1:
		return &payload.Schema{Text: s.avsc}, nil
	case 2:
		return &payload.Schema{Type: payload.TypeJSON, Text: `{"type":"object"}`}, nil
	}
	return nil, nil
}
func (cutSource) SchemaFor(string, bool) (*payload.Schema, error) { return nil, nil }

// cutFrames are a records data message and a Produce v9 request whose
// batch holds the records of kv, plain.
func cutFrames(t *testing.T, kv [][2][]byte) (records, produce []byte) {
	t.Helper()
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}
	}
	var recs []any
	for i, x := range kv {
		recs = append(recs, map[string]any{"attributes": 0, "timestampDelta": 0, "offsetDelta": i, "key": part(x[0]), "value": part(x[1]), "headers": []any{}})
	}
	batch := []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": "none"}, "lastOffsetDelta": len(kv) - 1, "baseTimestamp": 0, "maxTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}}
	records, err := codec.Encode(nil, map[string]any{"data": "records", "value": batch}, codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(records, codec.Options{Data: "records"})
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
	ex := codec.Example(schema.ByKey(0), 9, false)
	body := ex["body"].(map[string]any)
	pd := body["topicData"].([]any)[0].(map[string]any)["partitionData"].([]any)[0].(map[string]any)
	pd["records"] = batch
	produce, err = codec.Encode(nil, ex, codec.EncodeOptions{})
	require.NoError(t, err)
	return records, produce
}

// TestPayloadCutByLimitFrames: a frame whose record keys and values a
// payload hook decodes, at every MaxNodes from nothing to enough, has
// records JSON that is valid JSON and the same on the tree's path
// (Frame.AppendJSON) and the tree-less one (Decoder.AppendJSON), with
// the same warnings. A JSON payload cut by the limit had a "decoded"
// member with no value, `"decoded":}`, where the tree's path wrote none;
// it has no "decoded" now, and a limit warning says where it stopped.
func TestPayloadCutByLimitFrames(t *testing.T) {
	const avsc = `{"type":"record","name":"C","fields":[{"name":"user","type":"string"},{"name":"n","type":{"type":"array","items":"long"}}]}`
	c, err := goavro.NewCodec(avsc)
	require.NoError(t, err)
	avro, err := c.BinaryFromNative(nil, map[string]any{"user": "ana", "n": []any{int64(1), int64(2), int64(3), int64(4)}})
	require.NoError(t, err)
	doc := []byte(`{"a":[1,2,3,4,5,6]}`)
	kv := [][2][]byte{
		{[]byte(`{"id": [1, 2]}`), doc},
		{nil, append([]byte{0, 0, 0, 0, 1}, avro...)},
		{nil, append([]byte{0, 0, 0, 0, 2}, doc...)},
		{[]byte("k"), doc},
	}
	records, produce := cutFrames(t, kv)
	for _, src := range []payload.Source{nil, cutSource{avsc}} {
		d := payload.NewDecoder(src, payload.Config{})
		for _, fr := range []struct {
			name string
			b    []byte
			o    codec.Options
		}{
			{"records", records, codec.Options{Data: "records"}},
			{"Produce", produce, codec.Options{}},
		} {
			name := fmt.Sprintf("%s, source %v", fr.name, src != nil)
			o := fr.o
			o.Payload = d.Decode
			full, err := codec.Decode(fr.b, o)
			require.NoError(t, err)
			require.Empty(t, full.Warnings, name)
			cuts := 0 // the limits that cut a JSON value with "format":"json" kept
			for n := 1; n <= 4*full.Spent.MaxNodes; n++ {
				o.MaxNodes = n
				f, terr := codec.Decode(fr.b, o)
				var dec codec.Decoder
				fjs, fr2, ferr := dec.AppendJSON(nil, fr.b, o)
				require.Equal(t, fmt.Sprint(terr), fmt.Sprint(ferr), "%s, MaxNodes %d", name, n)
				if terr != nil {
					continue
				}
				tjs := f.AppendJSON(nil)
				require.True(t, json.Valid(tjs), "%s, MaxNodes %d: tree JSON invalid: %s", name, n, tjs)
				require.True(t, json.Valid(fjs), "%s, MaxNodes %d: JSON invalid: %s", name, n, fjs)
				require.Equal(t, string(tjs), string(fjs), "%s, MaxNodes %d", name, n)
				require.Equal(t, f.Warnings, fr2.Warnings, "%s, MaxNodes %d", name, n)
				require.Equal(t, f.Spent, fr2.Spent, "%s, MaxNodes %d", name, n)
				if strings.Contains(string(tjs), `"format":"json"}`) {
					cuts++
					limit := false
					for _, w := range f.Warnings {
						limit = limit || w.Limit && strings.Contains(w.Path, ".value")
					}
					require.True(t, limit, "%s, MaxNodes %d: a value cut without a limit warning: %v", name, n, f.Warnings)
				}
			}
			require.NotZero(t, cuts, "%s: no limit cut a JSON value", name)
		}
	}
}
