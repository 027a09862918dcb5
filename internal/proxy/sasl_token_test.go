package proxy

import (
	"encoding/binary"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// RFC 5802's SCRAM exchange, as raw SASL tokens after a SaslHandshake v0
// (the fake broker's "raw-scram" client answers with the server's two).
const (
	scramClientFirst = "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL"
	scramServerFirst = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"
	scramClientFinal = "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="
	scramServerFinal = "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="
)

// TestRawSASLTokensShown: the raw SASL tokens of a SaslHandshake v0 login
// reach the sink as exchanges of their own (SASLToken, the client's token
// paired with the broker's answer), read as the SCRAM messages they hold,
// their secrets (the proof, the verifier) masked unless ShowSecrets,
// the rest (user, nonces, salt) in sight, in their place between the handshake
// and the request after them. A sink that wants only some APIs gets none.
func TestRawSASLTokensShown(t *testing.T) {
	for _, show := range []bool{false, true} {
		t.Run(map[bool]string{false: "secrets zeroed", true: "ShowSecrets"}[show], func(t *testing.T) {
			b := newFakeBroker(t)
			col := &collector{dec: Decoder{ShowSecrets: show}}
			p := startProxy(t, Config{Upstream: b.addr(), Sink: col.sink})
			c, err := net.Dial("tcp", p.Addr().String())
			require.NoError(t, err)
			defer c.Close()
			_, err = roundTrip(c, request(t, schema.KeySaslHandshake, 0, 1, "raw-scram", map[string]any{"mechanism": "SCRAM-SHA-256"}))
			require.NoError(t, err)
			for _, tok := range [][2]string{{scramClientFirst, scramServerFirst}, {scramClientFinal, scramServerFinal}} {
				got, err := roundTrip(c, sizedToken(tok[0]))
				require.NoError(t, err)
				require.Equal(t, sizedToken(tok[1]), got, "the broker's token came through as it was")
			}
			_, err = roundTrip(c, request(t, schema.KeyApiVersions, 0, 2, "after", map[string]any{}))
			require.NoError(t, err)
			c.Close()
			waitDrained(t, p)

			all := col.all()
			var apis []string
			for _, j := range all {
				apis = append(apis, j.api)
			}
			require.Equal(t, []string{"SaslHandshake", "SASL token", "SASL token", "ApiVersions"}, apis)
			require.Equal(t, int64(4), p.Stats().SASLTokens)
			masked := [][]string{nil, {"request.value.proof", "response.value.verifier"}}
			for i, want := range [][2]string{{"client-first", "server-first"}, {"client-final", "server-final"}} {
				j := all[1+i]
				x := j.exchange
				require.True(t, x.SASLToken)
				require.True(t, x.Paired(), "the client's token and the broker's answer are one exchange")
				require.Equal(t, [3]int{-1, -1, -1}, [3]int{int(x.APIKey), int(x.APIVersion), int(x.CorrelationID)})
				require.NoError(t, j.reqErr)
				require.NoError(t, j.rspErr)
				if show {
					require.Empty(t, j.redacted)
					require.Contains(t, j.req, `"message":"`+want[0]+`"`)
					require.Contains(t, j.rsp, `"message":"`+want[1]+`"`)
					continue
				}
				require.Equal(t, masked[i], j.redacted)
				require.Contains(t, j.req, `"message":"`+want[0]+`"`, "the message still reads as one")
				require.Contains(t, j.rsp, `"message":"`+want[1]+`"`)
				for _, side := range []string{j.req, j.rsp, string(x.Request), string(x.Response)} {
					require.NotContains(t, side, "v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "the client's proof is not shown")
					require.NotContains(t, side, "rmF9pqV8S7suAoZWja4dJRkFsKQ=", "nor the server's verifier")
				}
				if i == 1 {
					require.Equal(t, sizedToken("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p="+strings.Repeat("*", 28)), x.Request, "the proof masked, its size kept")
					require.Contains(t, j.req, `"proof":"****************************"`)
				}
			}
			require.Contains(t, all[1].req, `"data":"sasl"`)
			require.Contains(t, all[1].req, `"username":"user"`, "a user name is no secret")
		})
	}

	t.Run("the tree-less path", func(t *testing.T) {
		for _, show := range []bool{false, true} {
			x := &Exchange{SASLToken: true, APIKey: -1, APIVersion: -1, CorrelationID: -1,
				Request: sizedToken(scramClientFirst), Response: sizedToken(scramServerFirst), RequestSize: 4 + len(scramClientFirst), ResponseSize: 4 + len(scramServerFirst)}
			d := Decoder{ShowSecrets: show}
			js := d.DecodeJSON(x)
			require.NoError(t, js.Request.Err)
			require.NoError(t, js.Response.Err)
			if show {
				require.Equal(t, `{"data":"sasl","value":{"mechanism":"SCRAM","message":"client-first","channelBindingFlag":"n","username":"user","nonce":"fyko+d2lbbFgONRv9qkxdawL"}}`, string(js.Request.JSON))
				require.Contains(t, string(js.Response.JSON), `"message":"server-first"`)
				require.Empty(t, js.Redacted)
			} else {
				require.Contains(t, string(js.Request.JSON), `"nonce":"fyko+d2lbbFgONRv9qkxdawL"`, "SCRAM's first messages hold no secret")
				require.Empty(t, js.Redacted)
			}
		}
	})

	t.Run("a sink that wants some APIs", func(t *testing.T) {
		b := newFakeBroker(t)
		col := &collector{}
		p := startProxy(t, Config{Upstream: b.addr(), Sink: col.sink, Keep: func(k int16) bool { return k == schema.KeyApiVersions }})
		c, err := net.Dial("tcp", p.Addr().String())
		require.NoError(t, err)
		defer c.Close()
		_, err = roundTrip(c, request(t, schema.KeySaslHandshake, 0, 1, "raw-scram", map[string]any{"mechanism": "SCRAM-SHA-256"}))
		require.NoError(t, err)
		for _, tok := range []string{scramClientFirst, scramClientFinal} {
			_, err := roundTrip(c, sizedToken(tok))
			require.NoError(t, err)
		}
		_, err = roundTrip(c, request(t, schema.KeyApiVersions, 0, 2, "after", map[string]any{}))
		require.NoError(t, err)
		c.Close()
		// (waitDrained counts the exchanges not wanted as undelivered.)
		require.Eventually(t, func() bool { return p.Stats().Open == 0 && p.Stats().Delivered == 1 }, 10*time.Second, 5*time.Millisecond)
		var apis []string
		for _, j := range col.all() {
			apis = append(apis, j.api)
		}
		require.Equal(t, []string{"ApiVersions"}, apis)
		require.Equal(t, int64(4), p.Stats().SASLTokens, "relayed and counted all the same")
	})
}

// TestRawSASLTokenUnanswered: a client's token the broker never answers
// (it closed the connection) is shown alone, as closed, when the
// connection ends.
func TestRawSASLTokenUnanswered(t *testing.T) {
	b := newFakeBroker(t)
	col := &collector{dec: Decoder{ShowSecrets: true}}
	p := startProxy(t, Config{Upstream: b.addr(), Sink: col.sink})
	c, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	_, err = roundTrip(c, request(t, schema.KeySaslHandshake, 0, 1, "raw-sasl", map[string]any{"mechanism": "PLAIN"}))
	require.NoError(t, err)
	_, err = roundTrip(c, sizedToken("\x00alice\x00alice-secret"))
	require.NoError(t, err)
	// The fake broker answers one token; the second goes to it as a
	// request it cannot read, and it closes the connection.
	_, err = c.Write(sizedToken("\x00bob\x00bob-secret"))
	require.NoError(t, err)
	readEOF(t, c)
	c.Close()
	waitDrained(t, p)
	all := col.all()
	require.Len(t, all, 3)
	last := all[2]
	require.Equal(t, "SASL token", last.api)
	require.True(t, last.exchange.ConnClosed)
	require.Nil(t, last.exchange.Response)
	require.Contains(t, last.req, `"username":"bob"`)
	require.Contains(t, all[1].req, `"username":"alice"`)
	require.Equal(t, `{"data":"sasl","value":""}`, all[1].rsp, "PLAIN's answer on success: an empty token")
}

// sizedToken is a raw SASL token's frame: its 4-byte size, then s.
func sizedToken(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}
