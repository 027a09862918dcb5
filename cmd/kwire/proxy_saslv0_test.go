package main

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
)

// TestProxyKafkaPythonSASLv0 runs kafka-python through kwire proxy,
// logging in the way of KIP-43 (SaslHandshake v0, then raw SASL tokens)
// to kfake behind saslV0Front, producing and consuming. kwire proxy
// prints each token exchange as kwire pcap does ("saslToken", the
// client's token paired with the broker's answer, read as the SASL
// message it holds): their secrets masked by default (SCRAM's proof and
// verifier, PLAIN's password), the rest in sight; all of them
// with --show-secrets (SCRAM's four, nonces chained; PLAIN's credentials
// and the empty answer). --check judges none of them and finds nothing
// wrong; --summary counts them in a row of their own; the tree view
// draws them under a title of their own.
func TestProxyKafkaPythonSASLv0(t *testing.T) {
	needKafkaPython(t)
	script, err := filepath.Abs(filepath.Join("testdata", "kafkapython-sasl.py"))
	require.NoError(t, err)
	for _, tc := range []struct {
		mechanism string
		flags     []string
	}{
		{"SCRAM-SHA-256", []string{"--check", "--fail-on", "note"}},
		{"SCRAM-SHA-512", []string{"--show-secrets"}},
		{"PLAIN", []string{"--show-secrets"}},
		{"PLAIN", []string{"--summary"}},
		{"SCRAM-SHA-256", []string{"--format", "tree"}},
	} {
		t.Run(tc.mechanism+strings.Join(tc.flags, ""), func(t *testing.T) {
			port := saslV0Cluster(t)
			p := startProxyCLI(t, append([]string{"--upstream", "127.0.0.1:" + strconv.Itoa(port), "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson"}, tc.flags...)...)
			u := saslV0Users[tc.mechanism]
			runKafkaPython(t, script, "kafka-python: SASL "+tc.mechanism+" produced and consumed 3", p.addr, tc.mechanism, u[0], u[1])
			out, errOut := p.stop(t)
			show := tc.flags[0] == "--show-secrets"
			if tc.flags[0] == "--summary" {
				// A row of their own, with no version: one token exchange
				// per login (PLAIN's), every one paired.
				hs := regexp.MustCompile(`(?m)^\s+SaslHandshake\s+v0×\d+\s+(\d+)\s`).FindStringSubmatch(out)
				tok := regexp.MustCompile(`(?m)^\s+SASL tokens\s+(\d+)\s+0\s`).FindStringSubmatch(out)
				require.NotNil(t, hs, out)
				require.NotNil(t, tok, out)
				require.Equal(t, hs[1], tok[1], out)
				require.NotContains(t, out, "-2")
				require.NotContains(t, out, "v-1")
				return
			}
			if tc.flags[0] == "--format" {
				// For a terminal: each token exchange titled as one, its
				// sides drawn, what was zeroed said.
				logins := strings.Count(out, "  SaslHandshake v0  correlation id 1  ")
				require.Positive(t, logins, out)
				require.Equal(t, 2*logins, strings.Count(out, "  raw SASL token (after SaslHandshake v0)  "), out)
				require.Equal(t, logins, strings.Count(out, "secrets hidden (--show-secrets shows them): request.value.proof, response.value.verifier\n"), out)
				require.NotContains(t, out, "v-1")
				return
			}
			if tc.flags[0] == "--check" {
				require.Contains(t, errOut, "kwire: check: 0 errors, 0 warnings, 0 notes", "the tokens judged by no rule, the rest clean")
				require.NotRegexp(t, findingRE, errOut)
			}
			if !show {
				require.NotContains(t, out, u[1], "the password is never printed")
			}
			tokens, handshakes := 0, 0
			var last string // the SCRAM message before, on the connection
			var nonce string
			for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
				var l struct {
					pcapLine
					APIKey    int      `json:"apiKey"`
					SASLToken bool     `json:"saslToken"`
					Redacted  []string `json:"redacted"`
				}
				require.NoError(t, json.Unmarshal([]byte(s), &l), s)
				require.Empty(t, l.RequestError, s)
				require.Empty(t, l.ResponseError, s)
				if l.APIName == "SaslHandshake" {
					handshakes++
				}
				if !l.SASLToken {
					require.NotEqual(t, -1, l.APIKey, "every frame after the login read as a request: %s", s)
					continue
				}
				tokens++
				require.True(t, l.Paired, s)
				require.Equal(t, [2]int{-1, -1}, [2]int{l.APIKey, int(l.CorrelationID)}, s)
				require.NotContains(t, s, `"apiName"`)
				var req, rsp struct {
					Data  string          `json:"data"`
					Value json.RawMessage `json:"value"`
				}
				require.NoError(t, json.Unmarshal(l.Request, &req), s)
				require.NoError(t, json.Unmarshal(l.Response, &rsp), s)
				require.Equal(t, "sasl", req.Data, s)
				if show {
					require.Empty(t, l.Redacted, s)
				}
				var q, r map[string]any
				if tc.mechanism == "PLAIN" {
					require.NoError(t, json.Unmarshal(req.Value, &q), s)
					// kafka-python names the user as the identity to act as too.
					require.Equal(t, map[string]any{"mechanism": "PLAIN", "message": "client-initial", "authzid": u[0], "username": u[0], "password": u[1]}, q, s)
					require.Equal(t, `""`, string(rsp.Value), "PLAIN's answer on success: an empty token")
					continue
				}
				require.NoError(t, json.Unmarshal(req.Value, &q), s)
				require.NoError(t, json.Unmarshal(rsp.Value, &r), s)
				require.Equal(t, "SCRAM", q["mechanism"], s)
				switch q["message"] {
				case "client-first":
					require.Empty(t, l.Redacted, "SCRAM's first messages hold no secret: %s", s)
					require.Equal(t, u[0], q["username"], s)
					require.Equal(t, "server-first", r["message"], s)
					require.True(t, strings.HasPrefix(r["nonce"].(string), q["nonce"].(string)), "the server's nonce continues the client's: %s", s)
					nonce = r["nonce"].(string)
				case "client-final":
					require.Equal(t, "client-first", last, "client-final follows client-first: %s", s)
					require.Equal(t, nonce, q["nonce"], "client-final repeats the server's nonce: %s", s)
					require.Equal(t, "server-final", r["message"], s)
					if !show {
						require.Equal(t, []string{"request.value.proof", "response.value.verifier"}, l.Redacted, s)
						require.Regexp(t, `^\*{40,}$`, q["proof"], "masked: %s", s)
						require.Regexp(t, `^\*{40,}$`, r["verifier"], s)
					}
				default:
					t.Fatalf("unexpected SCRAM message: %s", s)
				}
				last = q["message"].(string)
			}
			require.Positive(t, handshakes)
			require.Equal(t, handshakes*saslV0Steps(tc.mechanism), tokens, "every login's tokens, each exchange a line:\n%s", out)
		})
	}
}

// TestProxyCheckSASLv0Tokens: kwire proxy --check judges a SaslHandshake
// v0 login's raw tokens as kwire check judges a capture's: a broker whose
// SCRAM nonce does not continue the client's is a conn.sasl-exchange
// finding at the broker's token, and the proxy exits 1 (--fail-on error).
func TestProxyCheckSASLv0Tokens(t *testing.T) {
	token := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	// A broker of KIP-43 whose server-first nonce is not the client's
	// continued.
	out, errOut, code := proxyCheckScript(t, [][2][]byte{
		{encodeJSON(t, `{"direction":"request","apiKey":17,"apiVersion":0,"header":{"correlationId":1,"clientId":"old-client"},"body":{"mechanism":"SCRAM-SHA-256"}}`),
			encodeJSON(t, `{"direction":"response","apiKey":17,"apiVersion":0,"header":{"correlationId":1},"body":{"errorCode":0,"mechanisms":["SCRAM-SHA-256"]}}`)},
		{token("n,,n=user,r=clientnonce"), token("r=XXXXclientnonce0server,s=QSXCR+Q6sek8bf92,i=4096")},
		{token("c=biws,r=XXXXclientnonce0server,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="), token("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")},
	})
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, `kwire: check: conn.sasl-exchange error conn 1 response at byte 6 (value.nonce): the server's SCRAM nonce does not continue the client's: the Java client refuses it, expected a nonce starting "clientnonce", found "XXXXclientnonce0server"`)
	require.Contains(t, errOut, "kwire: check: 1 error, 0 warnings, 0 notes")
	require.Equal(t, 2, strings.Count(out, `"saslToken":true`), out)
}

// TestProxyCheckBearerExpired: kwire proxy --check judges an OAUTHBEARER
// token by the proxy's clock: one that expired in 2024 is a frame.sasl
// error when a client logs in with it now.
func TestProxyCheckBearerExpired(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString
	jwt := b64([]byte(`{"alg":"RS256"}`)) + "." + b64([]byte(`{"sub":"alice","iat":1714557600,"exp":1714561200}`)) + "." + b64([]byte("sig"))
	auth := base64.StdEncoding.EncodeToString([]byte("n,,\x01auth=Bearer " + jwt + "\x01\x01"))
	_, errOut, code := proxyCheckScript(t, [][2][]byte{
		{encodeJSON(t, `{"direction":"request","apiKey":17,"apiVersion":1,"header":{"correlationId":1,"clientId":"c"},"body":{"mechanism":"OAUTHBEARER"}}`),
			encodeJSON(t, `{"direction":"response","apiKey":17,"apiVersion":1,"header":{"correlationId":1},"body":{"errorCode":0,"mechanisms":["OAUTHBEARER"]}}`)},
		{encodeJSON(t, `{"direction":"request","apiKey":36,"apiVersion":2,"header":{"correlationId":2,"clientId":"c"},"body":{"authBytes":"`+auth+`"}}`),
			encodeJSON(t, `{"direction":"response","apiKey":36,"apiVersion":2,"header":{"correlationId":2},"body":{"errorCode":58,"errorMessage":"expired","authBytes":"","sessionLifetimeMs":0}}`)},
	})
	require.Equal(t, 1, code, errOut)
	require.Regexp(t, `kwire: check: frame\.sasl error conn 1 correlation 2 request at byte \d+ \(body\.authBytes\.jwtClaims\): OAUTHBEARER's JWT expired at 2024-05-01T11:00:00Z, \d+h\d+m\d+s before it was sent`, errOut)
	require.Contains(t, errOut, "kwire: check: 1 error, 0 warnings, 0 notes")
}

// proxyCheckScript runs kwire proxy --check in front of a broker that
// answers each frame it reads with the next of a script, and a client
// that sends the script's frames one at a time, reading each answer; it
// returns the proxy's output, log and exit status. Every connection is
// served: the proxy dials a spare one ahead, which may or may not be the
// client's.
func proxyCheckScript(t *testing.T, script [][2][]byte) (string, string, int) {
	return proxyScript(t, []string{"--check"}, 1, script)
}

// proxyScript is proxyCheckScript with the proxy's flags (past its
// upstream, listen address, --decode-cpu 0 and --format ndjson) given,
// the client running the script on conns connections, one after the
// other.
func proxyScript(t *testing.T, flags []string, conns int, script [][2][]byte) (string, string, int) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(30 * time.Second))
				for _, step := range script {
					if _, err := readSized(c); err != nil {
						return
					}
					c.Write(step[1])
				}
				readSized(c) // until the client closes
			}()
		}
	}()
	p := startProxyCLI(t, append([]string{"--upstream", l.Addr().String(), "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson"}, flags...)...)
	for range conns {
		c, err := net.DialTimeout("tcp", p.addr, 5*time.Second)
		require.NoError(t, err)
		c.SetDeadline(time.Now().Add(20 * time.Second))
		for _, step := range script {
			_, err := c.Write(step[0])
			require.NoError(t, err)
			_, err = readSized(c)
			require.NoError(t, err)
		}
		c.Close()
	}
	return p.stopStatus(t)
}

// encodeJSON encodes a frame from its value JSON.
func encodeJSON(t *testing.T, js string) []byte {
	b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
	require.NoError(t, err, js)
	return b
}
