package proxy

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// exampleExchange pairs the example request and response of an API.
func exampleExchange(t *testing.T, key, ver int16) *Exchange {
	a := schema.ByKey(key)
	req, err := codec.ExampleFrame(a, ver, false)
	require.NoError(t, err)
	rsp, err := codec.ExampleFrame(a, ver, true)
	require.NoError(t, err)
	return &Exchange{APIKey: key, APIVersion: ver, CorrelationID: 7, Request: req, Response: rsp, RequestSize: len(req), ResponseSize: len(rsp)}
}

// base64Values collects every base64 value at a key anywhere in JSON.
func valuesAt(t *testing.T, js []byte, key string) []string {
	var v any
	require.NoError(t, json.Unmarshal(js, &v))
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == key {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

func allZero(t *testing.T, b64 string) bool {
	b, err := base64.StdEncoding.DecodeString(b64)
	require.NoError(t, err)
	return bytes.Count(b, []byte{0}) == len(b)
}

// TestRedactExamples: in the examples of every API carrying a secret, each
// secret's bytes are zeroed in the frames and so in the value JSON, and
// listed by path; --show-secrets leaves them.
func TestRedactExamples(t *testing.T) {
	cases := []struct {
		key   int16
		ver   int16
		field string
		paths []string
	}{
		{schema.KeyCreateDelegationToken, 3, "hmac", []string{"response.body.hmac"}},
		{schema.KeyRenewDelegationToken, 2, "hmac", []string{"request.body.hmac"}},
		{schema.KeyExpireDelegationToken, 2, "hmac", []string{"request.body.hmac"}},
		{schema.KeyDescribeDelegationToken, 3, "hmac", []string{"response.body.tokens[0].hmac"}},
		{schema.KeyAlterUserScramCredentials, 0, "saltedPassword", []string{"request.body.upsertions[0].salt", "request.body.upsertions[0].saltedPassword"}},
	}
	for _, c := range cases {
		t.Run(schema.APIName(c.key), func(t *testing.T) {
			var d Decoder
			x := exampleExchange(t, c.key, c.ver)
			orig := append(append([]byte(nil), x.Request...), x.Response...)
			got := d.Decode(x)
			require.NoError(t, got.RequestErr)
			require.NoError(t, got.ResponseErr)
			require.Equal(t, c.paths, got.Redacted)
			vals := append(valuesAt(t, got.Request.AppendJSON(nil), c.field), valuesAt(t, got.Response.AppendJSON(nil), c.field)...)
			require.NotEmpty(t, vals)
			for _, v := range vals {
				require.True(t, allZero(t, v), "%s is zeroed: %s", c.field, v)
			}
			require.NotEqual(t, orig, append(append([]byte(nil), x.Request...), x.Response...), "the frames themselves are zeroed")

			// The tree-less path zeroes them before writing: the same
			// paths, the same JSON as the trees'.
			x = exampleExchange(t, c.key, c.ver)
			js := d.DecodeJSON(x)
			require.NoError(t, js.Request.Err)
			require.NoError(t, js.Response.Err)
			require.Equal(t, c.paths, js.Redacted)
			require.Equal(t, string(got.Request.AppendJSON(nil)), string(js.Request.JSON))
			require.Equal(t, string(got.Response.AppendJSON(nil)), string(js.Response.JSON))

			d.ShowSecrets = true
			x = exampleExchange(t, c.key, c.ver)
			got = d.Decode(x)
			require.Empty(t, got.Redacted)
			for _, v := range append(valuesAt(t, got.Request.AppendJSON(nil), c.field), valuesAt(t, got.Response.AppendJSON(nil), c.field)...) {
				require.False(t, allZero(t, v))
			}
			x = exampleExchange(t, c.key, c.ver)
			js = d.DecodeJSON(x)
			require.Empty(t, js.Redacted)
			for _, v := range append(valuesAt(t, js.Request.JSON, c.field), valuesAt(t, js.Response.JSON, c.field)...) {
				require.False(t, allZero(t, v))
			}
		})
	}
}

// TestRedactGuessedResponse: a SaslAuthenticate response whose request
// was not seen is read by guessing; its secret is masked all the same, in
// the frame and the JSON, once the guess says what it is.
func TestRedactGuessedResponse(t *testing.T) {
	x := saslExchange(t, "", "v="+serverSignature)
	x.Request, x.RequestSize, x.APIKey, x.APIVersion = nil, 0, -1, -1
	var d Decoder
	js := d.DecodeJSON(x)
	require.NoError(t, js.Response.Err)
	require.NotNil(t, js.Response.Info.Guess)
	require.Equal(t, int16(schema.KeySaslAuthenticate), js.APIKey)
	require.Equal(t, []string{"response.body.authBytes.verifier"}, js.Redacted)
	require.Contains(t, string(js.Response.JSON), `"verifier":"`+strings.Repeat("*", len(serverSignature))+`"`)
	require.NotContains(t, string(x.Response), serverSignature)
}

const serverSignature = "rmF9pqV8S7suAoZWja4dJRkFsKQ="

// saslExchange is a SaslAuthenticate v2 exchange whose authBytes are req
// and rsp.
func saslExchange(t *testing.T, req, rsp string) *Exchange {
	q := encodeFrame(t, map[string]any{"apiKey": schema.KeySaslAuthenticate, "apiVersion": 2, "header": map[string]any{"correlationId": 7, "clientId": "c"},
		"body": map[string]any{"authBytes": base64.StdEncoding.EncodeToString([]byte(req))}})
	r := encodeFrame(t, map[string]any{"direction": "response", "apiKey": schema.KeySaslAuthenticate, "apiVersion": 2, "header": map[string]any{"correlationId": 7},
		"body": map[string]any{"errorCode": 0, "authBytes": base64.StdEncoding.EncodeToString([]byte(rsp)), "sessionLifetimeMs": 0}})
	return &Exchange{APIKey: schema.KeySaslAuthenticate, APIVersion: 2, CorrelationID: 7, Request: q, Response: r, RequestSize: len(q), ResponseSize: len(r)}
}

// TestRedactSASLParts: of the SASL messages in SaslAuthenticate's
// authBytes, only the parts that are secrets are hidden, masked with '*'
// so that the message still reads as one (PLAIN's password, SCRAM's proof
// and verifier, a JWT's signature, an opaque bearer token after its
// scheme); the user, nonces, salt, a JWT's claims stay in sight, and
// bytes that are no message kwire reads (Kerberos) are zeroed whole. Both
// paths alike; ShowSecrets shows all.
func TestRedactSASLParts(t *testing.T) {
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSIsImV4cCI6MTcwMDAwMDAwMH0.c2lnbmF0dXJlLXNlY3JldA"
	gss := "\x60\x82\x02\x1b\x06\x09\x2a\x86\x48\x86\xf7\x12\x01\x02\x02ticket-secret"
	cases := []struct {
		name, req, rsp string
		secrets        []string // none of which may be shown
		shown          []string // JSON text that must be
		paths          []string
	}{
		{"PLAIN", "\x00alice\x00hunter2-plain", "", []string{"hunter2-plain"},
			[]string{`"username":"alice","password":"*************"`}, []string{"request.body.authBytes.password"}},
		{"SCRAM first", "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096", nil,
			[]string{`"salt":"QSXCR+Q6sek8bf92","iterations":4096`}, nil},
		{"SCRAM final", "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", "v=" + serverSignature,
			[]string{"v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", serverSignature}, []string{`"nonce":"fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j","proof":"****`},
			[]string{"request.body.authBytes.proof", "response.body.authBytes.verifier"}},
		{"OAUTHBEARER JWT", "n,,\x01auth=Bearer " + jwt + "\x01\x01", "", []string{"c2lnbmF0dXJlLXNlY3JldA"},
			[]string{`"jwtClaims":"{\"sub\":\"alice\",\"exp\":1700000000}"`, `"jwtSignature":"**********************"`}, []string{"request.body.authBytes.jwtSignature"}},
		{"OAUTHBEARER opaque", "n,,\x01auth=Bearer opaque-token-secret\x01\x01", "", []string{"opaque-token-secret"},
			[]string{`"auth":"Bearer *******************"`}, []string{"request.body.authBytes.auth"}},
		{"GSSAPI", gss, "", []string{"ticket-secret"}, nil, []string{"request.body.authBytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d Decoder
			x := saslExchange(t, c.req, c.rsp)
			got := d.Decode(x)
			require.NoError(t, got.RequestErr)
			require.NoError(t, got.ResponseErr)
			require.Equal(t, c.paths, got.Redacted)
			js := string(got.Request.AppendJSON(nil)) + string(got.Response.AppendJSON(nil))
			for _, s := range c.secrets {
				require.NotContains(t, js, s)
				require.NotContains(t, string(x.Request)+string(x.Response), s)
			}
			for _, s := range c.shown {
				require.Contains(t, js, s)
			}

			x = saslExchange(t, c.req, c.rsp)
			dj := d.DecodeJSON(x)
			require.Equal(t, c.paths, dj.Redacted)
			require.Equal(t, js, string(dj.Request.JSON)+string(dj.Response.JSON), "the tree-less path writes the same")

			open := Decoder{ShowSecrets: true}
			x = saslExchange(t, c.req, c.rsp)
			oj := open.DecodeJSON(x)
			require.Empty(t, oj.Redacted)
			for _, s := range c.secrets {
				if c.name != "GSSAPI" { // bytes: base64
					require.Contains(t, string(oj.Request.JSON)+string(oj.Response.JSON), s)
				}
			}
		})
	}
}

// TestRedactBrokenFrame: a secret-carrying request that fails to decode has
// its whole body zeroed, as nothing shows where the secret was.
func TestRedactBrokenFrame(t *testing.T) {
	x := exampleExchange(t, schema.KeySaslAuthenticate, 1)
	x.Request = x.Request[:len(x.Request)-2]
	x.Request[3] -= 2
	var d Decoder
	got := d.Decode(x)
	require.Error(t, got.RequestErr)
	require.Contains(t, got.Redacted, "request.body")
	h, err := codec.ParseRequestHeader(x.Request, codec.Options{})
	require.NoError(t, err)
	require.Equal(t, bytes.Repeat([]byte{0}, len(x.Request)-4-h.Size), x.Request[4+h.Size:])
}

// TestSASLThroughProxy authenticates real clients through the proxy with
// SASL PLAIN and SCRAM-SHA-256, and changes a SCRAM credential: the
// password, the SCRAM proofs and the salted password reach the broker (the
// clients work) but appear nowhere in what the proxy hands out once
// decoded, in the JSON or the raw bytes.
func TestSASLThroughProxy(t *testing.T) {
	const pass = "s3cret-p4ssword-never-printed"
	c := newCluster(t, kfake.EnableSASL(), kfake.Superuser("PLAIN", "plainuser", pass),
		kfake.Superuser("SCRAM-SHA-256", "scramuser", pass), kfake.SeedTopics(1, "t"))
	col := &collector{}
	var raw [][]byte
	p := startProxy(t, Config{Upstream: c.ListenAddrs()[0], Sink: func(x *Exchange) {
		col.sink(x) // decodes, zeroing the secrets in x's frames
		raw = append(raw, x.Request, x.Response)
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for i, mech := range []kgo.Opt{
		kgo.SASL(plain.Auth{User: "plainuser", Pass: pass}.AsMechanism()),
		kgo.SASL(scram.Auth{User: "scramuser", Pass: pass}.AsSha256Mechanism()),
	} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(p.Addr().String()), mech)
		require.NoError(t, err)
		require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr())
		if i == 1 {
			req := kmsg.NewPtrAlterUserSCRAMCredentialsRequest()
			up := kmsg.NewAlterUserSCRAMCredentialsRequestUpsertion()
			up.Name, up.Mechanism, up.Iterations = "newuser", 1, 4096
			up.Salt = []byte("salt-never-printed")
			up.SaltedPassword = []byte("salted-password-never-printed")
			req.Upsertions = append(req.Upsertions, up)
			_, err := req.RequestWith(ctx, cl)
			require.NoError(t, err)
		}
		cl.Close()
	}
	waitDrained(t, p)
	var apis []string
	redacted := 0
	for _, j := range col.all() {
		apis = append(apis, j.api)
		redacted += len(j.redacted)
		for _, s := range []string{j.req, j.rsp} {
			require.NotContains(t, s, "never-printed")
			for _, v := range append(valuesAt(t, []byte(orEmpty(s)), "authBytes"), valuesAt(t, []byte(orEmpty(s)), "saltedPassword")...) {
				require.True(t, allZero(t, v))
			}
		}
	}
	for _, b := range raw {
		require.False(t, bytes.Contains(b, []byte("never-printed")), "raw frame %q", b)
		require.False(t, bytes.Contains(b, []byte("plainuser\x00"+pass)))
	}
	require.Contains(t, apis, "SaslHandshake")
	require.Contains(t, apis, "SaslAuthenticate")
	require.Contains(t, apis, "AlterUserScramCredentials")
	require.GreaterOrEqual(t, redacted, 4)
	require.True(t, strings.Contains(strings.Join(apis, " "), "Produce"))
}

func orEmpty(s string) string {
	if s == "" {
		return "{}"
	}
	return s
}

// encodeFrame encodes a whole frame from its value JSON envelope.
func encodeFrame(t *testing.T, env map[string]any) []byte {
	b, err := codec.Encode(nil, env, codec.EncodeOptions{})
	require.NoError(t, err)
	return b
}

// TestRedactConfigValues: configuration values that are or may be
// passwords (by name, by Kafka's PASSWORD list, by isSensitive, by a
// configType of PASSWORD) are zeroed in AlterConfigs,
// IncrementalAlterConfigs, CreateTopics and DescribeConfigs, both paths
// alike; the other values are left.
func TestRedactConfigValues(t *testing.T) {
	const jaas = `org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2-never-printed";`
	cfgs := []any{
		map[string]any{"name": "listener.name.internal.plain.sasl.jaas.config", "value": jaas},
		map[string]any{"name": "ssl.keystore.password", "value": "keystore-never-printed"},
		map[string]any{"name": "retention.ms", "value": "86400000"},
	}
	req := func(key, ver int16, body map[string]any) *Exchange {
		b := encodeFrame(t, map[string]any{"apiKey": key, "apiVersion": ver, "header": map[string]any{"correlationId": 3, "clientId": "c"}, "body": body})
		return &Exchange{APIKey: key, APIVersion: ver, Request: b, RequestSize: len(b)}
	}
	rsp := func(key, ver int16, body map[string]any) *Exchange {
		a := schema.ByKey(key)
		r, err := codec.ExampleFrame(a, ver, false)
		require.NoError(t, err)
		b := encodeFrame(t, map[string]any{"direction": "response", "apiKey": key, "apiVersion": ver, "header": map[string]any{"correlationId": 7}, "body": body})
		return &Exchange{APIKey: key, APIVersion: ver, Request: r, RequestSize: len(r), Response: b, ResponseSize: len(b)}
	}
	incr := []any{}
	for _, c := range cfgs {
		m := map[string]any{"configOperation": 0}
		for k, v := range c.(map[string]any) {
			m[k] = v
		}
		incr = append(incr, m)
	}
	cases := []struct {
		name  string
		x     func() *Exchange
		paths []string
	}{
		{"AlterConfigs", func() *Exchange {
			return req(schema.KeyAlterConfigs, 2, map[string]any{"resources": []any{map[string]any{"resourceType": 4, "resourceName": "1", "configs": cfgs}}})
		}, []string{"request.body.resources[0].configs[0].value", "request.body.resources[0].configs[1].value"}},
		{"IncrementalAlterConfigs", func() *Exchange {
			return req(schema.KeyIncrementalAlterConfigs, 1, map[string]any{"resources": []any{map[string]any{"resourceType": 4, "resourceName": "1", "configs": incr}}})
		}, []string{"request.body.resources[0].configs[0].value", "request.body.resources[0].configs[1].value"}},
		{"CreateTopics", func() *Exchange {
			return req(schema.KeyCreateTopics, 7, map[string]any{"topics": []any{map[string]any{"name": "t", "numPartitions": 1, "replicationFactor": 1, "configs": cfgs}}, "timeoutMs": 1000})
		}, []string{"request.body.topics[0].configs[0].value", "request.body.topics[0].configs[1].value"}},
		{"DescribeConfigs", func() *Exchange {
			return rsp(schema.KeyDescribeConfigs, 4, map[string]any{"results": []any{map[string]any{"resourceType": 4, "resourceName": "1", "configs": []any{
				// A broker that says a value is sensitive yet sends it.
				map[string]any{"name": "some.opaque.setting", "value": "sensitive-never-printed", "isSensitive": true, "synonyms": []any{}},
				// A PASSWORD by type, and a synonym named like one.
				map[string]any{"name": "plugin.setting", "value": "typed-never-printed", "configType": configTypePassword,
					"synonyms": []any{map[string]any{"name": "listener.name.x.sasl.jaas.config", "value": jaas, "source": 1}}},
				map[string]any{"name": "log.retention.ms", "value": "86400000", "synonyms": []any{}},
			}}}})
		}, []string{"response.body.results[0].configs[0].value", "response.body.results[0].configs[1].value", "response.body.results[0].configs[1].synonyms[0].value"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var d Decoder
			x := c.x()
			got := d.Decode(x)
			require.NoError(t, got.RequestErr)
			require.NoError(t, got.ResponseErr)
			require.Equal(t, c.paths, got.Redacted)
			for _, b := range [][]byte{x.Request, x.Response} {
				require.NotContains(t, string(b), "never-printed", "the frames themselves are zeroed")
			}
			x = c.x()
			js := d.DecodeJSON(x)
			require.Equal(t, c.paths, js.Redacted)
			for _, s := range [][]byte{js.Request.JSON, js.Response.JSON} {
				require.NotContains(t, string(s), "never-printed")
				require.NotContains(t, string(s), "hunter2")
			}
			require.Contains(t, string(js.Request.JSON)+string(js.Response.JSON), `"86400000"`, "other values are left")
		})
	}
}

// TestRedactUnreadableVersion: a SaslAuthenticate request whose version
// (-1) no layout reads is zeroed whole after the size prefix, header
// included: nothing shows where its password is, so none of it is shown.
func TestRedactUnreadableVersion(t *testing.T) {
	x := exampleExchange(t, schema.KeySaslAuthenticate, 1)
	const secret = "\x00user\x00hunter2-never-printed"
	x.Request = request(t, schema.KeySaslAuthenticate, 1, 5, "c", map[string]any{"authBytes": []byte(secret)})
	binary.BigEndian.PutUint16(x.Request[6:], 0xffff) // version -1
	x.APIVersion, x.RequestSize = -1, len(x.Request)
	x.Response = nil
	var d Decoder
	got := d.Decode(x)
	require.Error(t, got.RequestErr)
	require.Equal(t, []string{"request.body"}, got.Redacted)
	require.NotContains(t, string(x.Request), "hunter2")

	x.Request = request(t, schema.KeySaslAuthenticate, 1, 5, "c", map[string]any{"authBytes": []byte(secret)})
	binary.BigEndian.PutUint16(x.Request[6:], 0xffff)
	js := d.DecodeJSON(x)
	require.Equal(t, []string{"request.body"}, js.Redacted)
	require.NotContains(t, string(x.Request), "hunter2")
	require.NotContains(t, string(js.Request.JSON), "hunter2")
}

// TestRawSASLTokenLikeARequest: after a SaslHandshake v0, a raw SASL
// token whose bytes pass for a request header is still a token, handed to
// the sink as one (and zeroed whole): with PLAIN the first frame is a token whatever it
// holds (here a whole, valid ApiVersions request carrying the secret), and
// with a mechanism whose token count is not known (GSSAPI) a frame is a
// request only when it reads whole as one. The request after it is shown.
func TestRawSASLTokenLikeARequest(t *testing.T) {
	for _, c := range []struct {
		mech  string
		token []byte
	}{
		{"PLAIN", request(t, schema.KeyApiVersions, 0, 9, "password-never-printed", map[string]any{})},
		{"GSSAPI", func() []byte {
			b := append(request(t, schema.KeyApiVersions, 3, 9, "c", map[string]any{"clientSoftwareName": "a", "clientSoftwareVersion": "1"}),
				"password-never-printed"...)
			binary.BigEndian.PutUint32(b, uint32(len(b)-4))
			return b
		}()},
	} {
		t.Run(c.mech, func(t *testing.T) {
			b := newFakeBroker(t)
			col := &collector{}
			p := startProxy(t, Config{Upstream: b.addr(), Sink: col.sink})
			conn, err := net.Dial("tcp", p.Addr().String())
			require.NoError(t, err)
			defer conn.Close()
			_, err = roundTrip(conn, request(t, schema.KeySaslHandshake, 0, 1, "raw-sasl", map[string]any{"mechanism": c.mech}))
			require.NoError(t, err)
			tok, err := roundTrip(conn, c.token)
			require.NoError(t, err)
			require.Equal(t, []byte{0, 0, 0, 0}, tok, "the broker's empty token came back")
			rsp, err := roundTrip(conn, request(t, schema.KeyApiVersions, 0, 2, "after", map[string]any{}))
			require.NoError(t, err)
			require.Equal(t, int32(2), int32(binary.BigEndian.Uint32(rsp[4:])))
			conn.Close()
			waitDrained(t, p)
			var apis []string
			for _, j := range col.all() {
				apis = append(apis, j.api)
				require.NotContains(t, string(j.exchange.Request), "never-printed")
				require.NotContains(t, j.req, "never-printed")
			}
			require.Equal(t, []string{"SaslHandshake", "SASL token", "ApiVersions"}, apis, "the token shown as one, zeroed")
			require.Equal(t, int64(2), p.Stats().SASLTokens, "the client's token and the broker's")
		})
	}
}

// TestRegressionGuessedResponseFrameKept: a response to no request,
// guessed as an API that can carry secrets (CreateDelegationToken v2,
// whose hmac is empty here: nothing to zero), is shown as guessed, the
// same as with ShowSecrets. FuzzRelay found the tree path showing the
// frame decoded to look for secrets instead, which has no guess, and
// reading the guess of it: the frames of one codec.Decoder are one, so
// the secrets now have a decoder of their own (as in kwire pcap).
func TestRegressionGuessedResponseFrameKept(t *testing.T) {
	rsp := []byte("\x00\x00\x00\x9e1010\x00\x000\x00\x00\x02\x00\x00\x00\x01B7B0000x00020110021pAZ00080\x000110000000807000000101010110+111A21111\x01\x02\x00\x00\a100X0Y01B10111\xc1001101101101001\x00\x00\x0000\x00 \x0001\x00\x00\x00\x000\x00\x000\x01\x00\x00\x00\x02\x00\x000\x030\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x01\x00\x80")
	var d, open Decoder
	open.ShowSecrets = true
	x := &Exchange{APIKey: -1, APIVersion: -1, Response: bytes.Clone(rsp)}
	got := d.Decode(x)
	require.Equal(t, [2]int16{schema.KeyCreateDelegationToken, 2}, [2]int16{got.APIKey, got.APIVersion})
	require.True(t, HasSecrets(got.APIKey, got.APIVersion))
	require.Empty(t, got.Redacted)
	require.NotEmpty(t, got.Guessed)
	require.NotNil(t, got.Response.Guess, "the guessed frame, not the one read for secrets")
	want := open.Decode(&Exchange{APIKey: -1, APIVersion: -1, Response: bytes.Clone(rsp)})
	require.Equal(t, string(want.Response.AppendJSON(nil)), string(got.Response.AppendJSON(nil)))

	js := d.DecodeJSON(&Exchange{APIKey: -1, APIVersion: -1, Response: bytes.Clone(rsp)})
	require.NotNil(t, js.Response.Info.Guess)
	wantJS := open.DecodeJSON(&Exchange{APIKey: -1, APIVersion: -1, Response: bytes.Clone(rsp)})
	require.Equal(t, string(wantJS.Response.JSON), string(js.Response.JSON))
}
