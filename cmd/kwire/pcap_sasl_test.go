package main

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPcapSASLv0Tokens: after a SaslHandshake v0 (clients before Kafka
// 1.0, and later ones talking to such brokers) each side sends raw SASL
// tokens, size-prefixed with no Kafka header, until the client's next
// request. kwire pcap said each was an implausible frame header and
// skipped its bytes to resynchronise, twice per token; now the tokens are
// passed over, said once per connection, and the exchanges around them
// read as before. A broker's empty answer (4 zero bytes) is a token too.
func TestPcapSASLv0Tokens(t *testing.T) {
	token := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	at := func(i int) time.Duration { return time.Duration(i) * time.Millisecond }
	for _, tc := range []struct {
		name   string
		tokens []string // client, broker, client, broker...
	}{
		{"PLAIN", []string{"\x00user\x00pass", ""}},
		{"SCRAM", []string{"n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
			"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="}},
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
			var apis []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var x struct {
					APIName string `json:"apiName"`
					Paired  bool   `json:"paired"`
				}
				require.NoError(t, json.Unmarshal([]byte(l), &x), l)
				require.True(t, x.Paired, l)
				apis = append(apis, x.APIName)
			}
			require.Equal(t, []string{"SaslHandshake", "Metadata"}, apis)
			require.NotContains(t, errOut, "implausible")
			require.NotContains(t, errOut, "resynchronise")
			require.Equal(t, 1, strings.Count(errOut, "raw SASL tokens after SaslHandshake v0"), errOut)
			first := len(tc.tokens[0])
			require.Contains(t, errOut, "(the first: "+strconv.Itoa(first)+" bytes from the client at offset ")

			// kwire check judges the exchanges around the tokens, and
			// says nothing of the tokens.
			out, errOut, code = runCLI(t, []string{"check", "--fail-on", "note", file}, nil)
			require.Equal(t, 0, code, out+errOut)
			require.NotContains(t, out, "frame.")
		})
	}
}
