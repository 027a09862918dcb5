package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPcapSASLv0Tokens: after a SaslHandshake v0 (clients before Kafka
// 1.0, kafka-python 2.0 to this day, and later clients talking to such
// brokers) each side sends raw SASL tokens, size-prefixed with no Kafka
// header, until the client's next request. kwire pcap said each was an
// implausible frame header, then passed them over; now each client token
// and the broker's answer are an exchange of their own ("saslToken"),
// read as the SASL messages they are, and the exchanges around them read
// as before. A broker's empty answer (4 zero bytes) is a token too.
func TestPcapSASLv0Tokens(t *testing.T) {
	token := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	at := func(i int) time.Duration { return time.Duration(i) * time.Millisecond }
	for _, tc := range []struct {
		name   string
		tokens []string // client, broker, client, broker...
		values []string // what each token's line says, request then response
	}{
		{"PLAIN", []string{"\x00user\x00pass", ""}, []string{
			`{"data":"sasl","value":{"mechanism":"PLAIN","message":"client-initial","authzid":"","username":"user","password":"pass"}}`, `{"data":"sasl","value":""}`}},
		{"SCRAM", []string{"n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
			"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="}, []string{
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"client-first","channelBindingFlag":"n","username":"user","nonce":"fyko+d2lbbFgONRv9qkxdawL"}}`,
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"server-first","nonce":"fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j","salt":"QSXCR+Q6sek8bf92","iterations":4096}}`,
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"client-final","channelBinding":"biws","nonce":"fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j","proof":"v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="}}`,
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"server-final","verifier":"rmF9pqV8S7suAoZWja4dJRkFsKQ="}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			segs := []segment{
				{true, at(0), exampleFrame(t, "SaslHandshake", 0, false, 1)},
				{false, at(1), exampleFrame(t, "SaslHandshake", 0, true, 1)},
			}
			for i, s := range tc.tokens {
				segs = append(segs, segment{i%2 == 0, at(2 + i), token(s)})
			}
			n := 2 + len(tc.tokens)
			segs = append(segs, segment{true, at(n), exampleFrame(t, "Metadata", 12, false, 7)},
				segment{false, at(n + 1), exampleFrame(t, "Metadata", 12, true, 7)})
			file := connPcap(t, true, nil, segs...)
			out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Empty(t, errOut)
			var apis, values []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var x struct {
					APIName   string          `json:"apiName"`
					APIKey    int             `json:"apiKey"`
					Paired    bool            `json:"paired"`
					SASLToken bool            `json:"saslToken"`
					Request   json.RawMessage `json:"request"`
					Response  json.RawMessage `json:"response"`
					Latency   float64         `json:"latencyMs"`
				}
				require.NoError(t, json.Unmarshal([]byte(l), &x), l)
				require.True(t, x.Paired, l)
				if x.SASLToken {
					require.Equal(t, -1, x.APIKey, l)
					require.InDelta(t, 1, x.Latency, 0.001, "the broker answered a millisecond later: %s", l)
					values = append(values, string(x.Request), string(x.Response))
					x.APIName = "token"
				}
				apis = append(apis, x.APIName)
			}
			want := []string{"SaslHandshake"}
			for range len(tc.tokens) / 2 {
				want = append(want, "token")
			}
			require.Equal(t, append(want, "Metadata"), apis)
			require.Equal(t, tc.values, values)

			// Each token encodes back to its bytes.
			for i, v := range values {
				back, _, code := runCLI(t, []string{"encode"}, []byte(v))
				require.Equal(t, 0, code)
				require.Equal(t, hex.EncodeToString(token(tc.tokens[i])), strings.TrimSpace(back), v)
			}

			// The summary counts them apart.
			out, _, code = runCLI(t, []string{"pcap", "--summary", file}, nil)
			require.Equal(t, 0, code)
			require.Regexp(t, `(?m)^ +SASL tokens +`+strconv.Itoa(len(tc.tokens)/2)+` +0 +`, out)

			// kwire check judges the exchanges around the tokens, and
			// says nothing of the tokens.
			out, errOut, code = runCLI(t, []string{"check", "--fail-on", "note", file}, nil)
			require.Equal(t, 0, code, out+errOut)
			require.NotContains(t, out, "frame.")
		})
	}
}
