package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
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
	for _, tc := range []struct {
		name   string
		tokens []string // client, broker, client, broker...
		values []string // what each token's line says, request then response
		// What kwire pcap hides unless --show-secrets, and the paths
		// its line names them by.
		secrets  []string
		redacted string
	}{
		{"PLAIN", []string{"\x00user\x00pass", ""}, []string{
			`{"data":"sasl","value":{"mechanism":"PLAIN","message":"client-initial","authzid":"","username":"user","password":"pass"}}`, `{"data":"sasl","value":""}`}, []string{"pass"}, `["request.value.password"]`},
		{"SCRAM", []string{"n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
			"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="}, []string{
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"client-first","channelBindingFlag":"n","username":"user","nonce":"fyko+d2lbbFgONRv9qkxdawL"}}`,
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"server-first","nonce":"fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j","salt":"QSXCR+Q6sek8bf92","iterations":4096}}`,
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"client-final","channelBinding":"biws","nonce":"fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j","proof":"v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="}}`,
			`{"data":"sasl","value":{"mechanism":"SCRAM","message":"server-final","verifier":"rmF9pqV8S7suAoZWja4dJRkFsKQ="}}`},
			[]string{"v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "rmF9pqV8S7suAoZWja4dJRkFsKQ="}, `["request.value.proof","response.value.verifier"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mech := map[string]string{"PLAIN": "PLAIN", "SCRAM": "SCRAM-SHA-256"}[tc.name]
			file := saslV0Pcap(t, mech, tc.tokens)
			out, errOut, code := runCLI(t, []string{"pcap", "--show-secrets", file}, nil)
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

			// By default the secrets are masked in the frames, so in
			// what is printed: the messages still read as themselves.
			hidden, errOut, code := runCLI(t, []string{"pcap", file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, errOut, `: secrets hidden in 1 exchange, each line's "redacted" naming them; --show-secrets shows them`)
			for _, secret := range tc.secrets {
				require.NotContains(t, hidden, `":"`+secret+`"`)
				require.Contains(t, hidden, `":"`+strings.Repeat("*", len(secret))+`"`)
			}
			require.Contains(t, hidden, `"redacted":`+tc.redacted)

			// The summary counts them apart.
			out, _, code = runCLI(t, []string{"pcap", "--summary", file}, nil)
			require.Equal(t, 0, code)
			require.Regexp(t, `(?m)^ +SASL tokens +`+strconv.Itoa(len(tc.tokens)/2)+` +0 +`, out)

			// kwire check judges the exchanges around the tokens, and the
			// tokens by the SASL rules alone: nothing to say of these.
			out, errOut, code = runCLI(t, []string{"check", "--fail-on", "note", file}, nil)
			require.Equal(t, 0, code, out+errOut)
			require.NotContains(t, out, "frame.")
		})
	}
}

// saslV0Pcap is a capture of one connection: a SaslHandshake v0 asking
// for mechanism (and taking it), then tokens (client, broker, client,
// broker...) as raw SASL tokens a millisecond apart, then a Metadata
// exchange, each request with the client id of kwire example's, as a
// client sends one in every request (the reader ends the tokens at a
// request with the handshake's).
func saslV0Pcap(t *testing.T, mechanism string, tokens []string) string {
	at := func(i int) time.Duration { return time.Duration(i) * time.Millisecond }
	frame := func(js string) []byte {
		b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
		require.NoError(t, err, js)
		return b
	}
	meta := exampleFrame(t, "Metadata", 12, false, 7)
	id := string(meta[14 : 14+binary.BigEndian.Uint16(meta[12:])])
	segs := []segment{
		{true, at(0), frame(`{"direction":"request","apiKey":17,"apiVersion":0,"header":{"correlationId":1,"clientId":"` + id + `"},"body":{"mechanism":"` + mechanism + `"}}`)},
		{false, at(1), frame(`{"direction":"response","apiKey":17,"apiVersion":0,"header":{"correlationId":1},"body":{"errorCode":0,"mechanisms":["` + mechanism + `"]}}`)},
	}
	for i, s := range tokens {
		segs = append(segs, segment{i%2 == 0, at(2 + i), append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)})
	}
	n := 2 + len(tokens)
	segs = append(segs, segment{true, at(n), meta},
		segment{false, at(n + 1), exampleFrame(t, "Metadata", 12, true, 7)})
	return connPcap(t, true, nil, segs...)
}

// TestCheckSASLv0Tokens: kwire check judges the raw SASL tokens of a
// SaslHandshake v0 login by the rules it judges SaslAuthenticate's
// messages by (frame.sasl, conn.sasl-exchange): a message of another
// mechanism than the handshake took, SCRAM nonces that do not chain, too
// few iterations, an authorization id not the user's. Each finding names
// the token's packet and the value-JSON path of the part at fault
// ("value.nonce"), at its byte.
func TestCheckSASLv0Tokens(t *testing.T) {
	const (
		clientFirst = "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL"
		serverFirst = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"
		clientFinal = "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="
		serverFinal = "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="
	)
	for _, tc := range []struct {
		name, mechanism string
		tokens          []string
		finding         string // a line kwire check prints
	}{
		{"PLAIN after SCRAM was taken", "SCRAM-SHA-256", []string{"\x00user\x00pass", ""},
			"conn.sasl-exchange error conn 1 request (packet 6) at byte 4 (value): a PLAIN message after SaslHandshake chose SCRAM-SHA-256: Kafka's broker reads it as SCRAM-SHA-256, expected a SCRAM message, found PLAIN client-initial"},
		{"a server nonce that does not continue the client's", "SCRAM-SHA-512", []string{clientFirst, strings.Replace(serverFirst, "r=fyko", "r=XXXX", 1), strings.Replace(clientFinal, "r=fyko", "r=XXXX", 1), serverFinal},
			`conn.sasl-exchange error conn 1 response (packet 7) at byte 6 (value.nonce): the server's SCRAM nonce does not continue the client's: the Java client refuses it, expected a nonce starting "fyko+d2lbbFgONRv9qkxdawL", found "XXXX+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j"`},
		{"a final message that does not repeat the server's nonce", "SCRAM-SHA-256", []string{clientFirst, serverFirst, strings.Replace(clientFinal, "3rfc", "0000", 1), serverFinal},
			`conn.sasl-exchange error conn 1 request (packet 8) at byte 13 (value.nonce): SCRAM's final message does not repeat the server's nonce: Kafka's broker refuses it, expected "fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j", found "fyko+d2lbbFgONRv9qkxdawL0000NHYJY1ZVvWVs7j"`},
		{"too few iterations", "SCRAM-SHA-256", []string{clientFirst, strings.Replace(serverFirst, "i=4096", "i=1000", 1), clientFinal, serverFinal},
			"frame.sasl error conn 1 response (packet 7) at byte 70 (value.iterations): SCRAM asks for 1000 iterations: the Java client refuses fewer than 4096, expected at least 4096, found 1000"},
		{"an authorization id not the user's", "PLAIN", []string{"admin\x00user\x00pass", ""},
			`frame.sasl error conn 1 request (packet 6) at byte 4 (value.authzid): PLAIN asks for the authorization id "admin", not the user "user": Kafka's broker refuses it, expected no authorization id, or "user", found "admin"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := saslV0Pcap(t, tc.mechanism, tc.tokens)
			out, errOut, code := runCLI(t, []string{"check", file}, nil)
			require.Equal(t, 1, code, out+errOut)
			require.Contains(t, out, tc.finding+"\n")
			require.Regexp(t, `kwire: check: 1 error, 0 warnings, 0 notes`, errOut)
		})
	}
}

// TestCheckBearerExpired: kwire check reads a captured OAUTHBEARER login
// (SaslHandshake v1, then SaslAuthenticate) whose JWT expired an hour
// before the packet that sent it: a frame.sasl error at the claims, saying
// when it expired; the same login at the token's time is clean, and one
// sent before the token was issued says so.
func TestCheckBearerExpired(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	// The capture's packets are sent from 2024-05-01T12:00:00Z on.
	jwt := b64([]byte(`{"alg":"RS256"}`)) + "." + b64([]byte(`{"sub":"alice","iat":1714557600,"exp":1714561200}`)) + "." + b64([]byte("sig"))
	frame := func(js string) []byte {
		b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
		require.NoError(t, err, js)
		return b
	}
	pcap := func(shift time.Duration) string {
		at := func(i int) time.Duration { return shift + time.Duration(i)*time.Millisecond }
		auth := base64.StdEncoding.EncodeToString([]byte("n,,\x01auth=Bearer " + jwt + "\x01\x01"))
		return connPcap(t, true, nil,
			segment{true, at(0), frame(`{"direction":"request","apiKey":17,"apiVersion":1,"header":{"correlationId":1,"clientId":"c"},"body":{"mechanism":"OAUTHBEARER"}}`)},
			segment{false, at(1), frame(`{"direction":"response","apiKey":17,"apiVersion":1,"header":{"correlationId":1},"body":{"errorCode":0,"mechanisms":["OAUTHBEARER"]}}`)},
			segment{true, at(2), frame(`{"direction":"request","apiKey":36,"apiVersion":2,"header":{"correlationId":2,"clientId":"c"},"body":{"authBytes":"` + auth + `"}}`)},
			segment{false, at(3), frame(`{"direction":"response","apiKey":36,"apiVersion":2,"header":{"correlationId":2},"body":{"errorCode":58,"errorMessage":"expired","authBytes":"","sessionLifetimeMs":0}}`)})
	}
	out, errOut, code := runCLI(t, []string{"check", pcap(0)}, nil)
	require.Equal(t, 1, code, out+errOut)
	require.Regexp(t, `(?m)^frame\.sasl error conn 1 correlation 2 request \(packet 6\) at byte \d+ \(body\.authBytes\.jwtClaims\): OAUTHBEARER's JWT expired at 2024-05-01T11:00:00Z, 1h0m0s before it was sent \(by the capture's or the proxy's clock\): Kafka's broker refuses it, allowing 30s of clock skew by default, expected exp after 2024-05-01T11:59:30Z, found 1714561200 \(2024-05-01T11:00:00Z\)$`, out)
	require.Contains(t, errOut, "kwire: check: 1 error,")

	// Sent at 10:30, half an hour before it expired: nothing to say of it.
	out, errOut, code = runCLI(t, []string{"check", "--fail-on", "error", pcap(-90 * time.Minute)}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.NotContains(t, out, "frame.sasl")

	// Sent at 09:00, an hour before it was issued: the clocks disagree.
	out, errOut, code = runCLI(t, []string{"check", pcap(-3 * time.Hour)}, nil)
	require.Equal(t, 1, code, out+errOut)
	require.Regexp(t, `(?m)^frame\.sasl error conn 1 correlation 2 request \(packet 6\) at byte \d+ \(body\.authBytes\.jwtClaims\): OAUTHBEARER's JWT was issued at 2024-05-01T10:00:00Z, 1h0m0s after it was sent \(by the capture's or the proxy's clock\): Kafka's unsecured validator refuses a token issued in the future, expected iat before 2024-05-01T09:00:30Z, found 1714557600 \(2024-05-01T10:00:00Z\)$`, out)
}
