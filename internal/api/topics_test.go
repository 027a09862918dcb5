package api

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
)

// The JSON API decodes the records of Kafka's internal topics as the CLI
// and the playground do (issue 20): a Produce v9 of an offset commit to
// __consumer_offsets (the frame the playground's topics test pastes)
// answers with the key and value read through Kafka's schemas for them.
func TestDecodeInternalTopicRecord(t *testing.T) {
	const commit = "000000ab000000090000000700056b776972650000ffff0000753002135f5f636f6e73756d65725f6f66667365747302000000007800000000000000000000006b000000000269ab659c0000000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff00000001720000002e0001000762696c6c696e6700066f72646572730000000338000300000000000010920000000700046e6f74650000018bcfe5687b00000000"
	for _, worker := range []bool{false, true} {
		o := Options{}
		if worker {
			o = WorkerOptions
		}
		w := do(t, New(o), "POST", "/api/decode", "text/plain", []byte(commit))
		m := jsonBody(t, w)
		require.Equal(t, "Produce", m["apiName"])
		body := w.Body.String()
		for _, want := range []string{`"schema":"OffsetCommitKey"`, `"schema":"OffsetCommitValue"`, `"group":"billing"`, `"topic":"orders"`, `"metadata":"note"`} {
			require.True(t, strings.Contains(body, want), "worker %v: %s not in %s", worker, want, body)
		}
	}
}

// A Fetch v13 response names its topics by id: topicId=ID=NAME says which
// is __consumer_offsets, as the CLI's --topic-id does; without it the
// records stay bytes.
func TestDecodeTopicIDParameter(t *testing.T) {
	const commit = "000000ab000000090000000700056b776972650000ffff0000753002135f5f636f6e73756d65725f6f66667365747302000000007800000000000000000000006b000000000269ab659c0000000000000000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff00000001720000002e0001000762696c6c696e6700066f72646572730000000338000300000000000010920000000700046e6f74650000018bcfe5687b00000000"
	b, err := hex.DecodeString(commit)
	require.NoError(t, err)
	// The commit's batch, as value JSON, into a Fetch v13 response.
	f, err := codec.Decode(b, codec.Options{Records: codec.RecordsBase64})
	require.NoError(t, err)
	recs, err := f.Root.Lookup("body.topicData[0].partitionData[0].records")
	require.NoError(t, err)
	const id = "AAECAwQFBgcICQoLDA0ODw" // 00010203-0405-0607-0809-0a0b0c0d0e0f
	resp := `{"apiKey":1,"apiVersion":13,"direction":"response","header":{"correlationId":7},"body":{"throttleTimeMs":0,"errorCode":0,"sessionId":0,` +
		`"responses":[{"topicId":"` + id + `","partitions":[{"partitionIndex":0,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,` +
		`"abortedTransactions":null,"preferredReadReplica":-1,"records":"` + base64.StdEncoding.EncodeToString(recs.Raw) + `"}]}]}}`
	fetch, err := codec.Encode(nil, []byte(resp), codec.EncodeOptions{})
	require.NoError(t, err)
	h := New(Options{})
	q := "/api/decode?direction=response&api=Fetch&version=13&input=binary"
	plain := do(t, h, "POST", q, "application/octet-stream", fetch)
	jsonBody(t, plain)
	require.NotContains(t, plain.Body.String(), "OffsetCommitKey", "no name for the id: records stay records of an unknown topic")
	for _, idForm := range []string{id, "00010203-0405-0607-0809-0a0b0c0d0e0f"} {
		named := do(t, h, "POST", q+"&topicId="+url.QueryEscape(idForm+"=__consumer_offsets"), "application/octet-stream", fetch)
		jsonBody(t, named)
		require.Contains(t, named.Body.String(), `"schema":"OffsetCommitValue"`, idForm)
	}
	bad := errorBody(t, do(t, h, "POST", q+"&topicId=nonsense", "application/octet-stream", fetch))
	require.Equal(t, "?topicId", bad["path"])
}
