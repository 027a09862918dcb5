package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/encinput"
)

// TestEncodeNamesFieldsNotGiven: a Produce request whose JSON leaves out
// acks and timeoutMs encodes (the encoder writes each field's default),
// and kwire encode says which fields it wrote so: acks 0 asks the broker
// for no answer, and Kafka's own JSON reader refuses such a document. A
// document that gives every field says nothing.
func TestEncodeNamesFieldsNotGiven(t *testing.T) {
	b, err := codec.ExampleFrame(schema.ByKey(schema.KeyProduce), 9, false)
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(f.AppendJSON(nil), &doc))
	whole, _ := json.Marshal(doc)
	body := doc["body"].(map[string]any)
	delete(body, "acks")
	delete(body, "timeoutMs")
	delete(body["topicData"].([]any)[0].(map[string]any), "name")
	cut, _ := json.Marshal(doc)

	out, errOut, code := runCLI(t, []string{"encode"}, cut)
	require.Equal(t, 0, code, errOut)
	require.Len(t, strings.Fields(out), 1)
	require.Equal(t, "kwire: not given, written as their defaults (Kafka's JSON reader requires them): body.acks, body.timeoutMs, body.topicData[0].name\n", errOut)

	_, errOut, code = runCLI(t, []string{"encode"}, whole)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)

	// In a stream, each document's line is named.
	_, errOut, code = runCLI(t, []string{"encode"}, []byte(string(whole)+"\n"+`{"apiKey":18,"apiVersion":3,"header":{"correlationId":1,"clientId":"c"},"body":{"clientSoftwareName":"k"}}`+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "kwire: line 2: not given, written as its default (Kafka's JSON reader requires it): body.clientSoftwareVersion\n", errOut)
}

// TestNotGivenNoneInDecodedFrames: what kwire decode writes gives every
// field: the example frame of every API, version and direction, decoded,
// leaves none out (no note on a round trip).
func TestNotGivenNoneInDecodedFrames(t *testing.T) {
	n := 0
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			for v := api.Valid().Lo; v <= api.Valid().Hi; v++ {
				b, err := codec.ExampleFrame(api, v, resp)
				if err != nil {
					continue
				}
				o := codec.Options{Response: resp, APIKey: api.Key, Version: v}
				f, err := codec.Decode(b, o)
				require.NoError(t, err, "%s v%d", api.Name, v)
				var doc any
				require.NoError(t, json.Unmarshal(f.AppendJSON(nil), &doc))
				require.Empty(t, encinput.NotGiven(doc), "%s v%d response %v", api.Name, v, resp)
				n++
			}
		}
	}
	require.Greater(t, n, 500)
}
