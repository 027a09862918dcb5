package codec_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// recordingRelay forwards one connection at a time from a loopback port to
// upstream, keeping what each side sent.
type recordingRelay struct {
	ln       net.Listener
	mu       sync.Mutex
	req, rsp []byte // the first connection's bytes, client's and broker's
}

func startRelay(t *testing.T, upstream string) *recordingRelay {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	r := &recordingRelay{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		first := true
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				return
			}
			rec := first
			first = false
			go r.copy(u, c, rec, &r.req)
			go r.copy(c, u, rec, &r.rsp)
		}
	}()
	return r
}

func (r *recordingRelay) copy(dst, src net.Conn, rec bool, into *[]byte) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if rec {
				r.mu.Lock()
				*into = append(*into, buf[:n]...)
				r.mu.Unlock()
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// frames splits b into whole size-prefixed frames.
func frames(t *testing.T, b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		f, rest, ok := wire.SplitFrame(b, 0)
		require.True(t, ok, "a whole frame at %d bytes from the end", len(b))
		out, b = append(out, f), rest
	}
	return out
}

// saslExchange is one SaslAuthenticate's request and response, decoded.
type saslExchange struct {
	req, rsp         []byte
	reqJSON, rspJSON map[string]any
}

// TestSASLRealClients authenticates franz-go's client to kfake with SASL
// PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, recording the connection, and
// reads every SaslAuthenticate's authBytes as the SASL message it is: the
// user, the nonces each side adds, the salt, the iteration count, the
// proof and the server's verifier. Each frame encodes back from its JSON
// byte for byte, the tree and the tree-less walk agree, and kwire check's
// rules (frame.sasl, conn.sasl-exchange among them) find nothing but
// kfake's handshake answer listing no mechanisms (conn.sasl-handshake).
func TestSASLRealClients(t *testing.T) {
	const pass = "pa55-w0rd"
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.EnableSASL(),
		kfake.Superuser("PLAIN", "plainuser", pass),
		kfake.Superuser("SCRAM-SHA-256", "scram256", pass),
		kfake.Superuser("SCRAM-SHA-512", "scram512", pass))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	for _, tc := range []struct {
		name  string
		mech  sasl.Mechanism
		user  string
		proof int // the proof's base64 length
	}{
		{"PLAIN", plain.Auth{User: "plainuser", Pass: pass}.AsMechanism(), "plainuser", 0},
		{"SCRAM-SHA-256", scram.Auth{User: "scram256", Pass: pass}.AsSha256Mechanism(), "scram256", 44},
		{"SCRAM-SHA-512", scram.Auth{User: "scram512", Pass: pass}.AsSha512Mechanism(), "scram512", 88},
	} {
		t.Run(tc.name, func(t *testing.T) {
			relay := startRelay(t, c.ListenAddrs()[0])
			cl, err := kgo.NewClient(kgo.SeedBrokers(relay.ln.Addr().String()), kgo.SASL(tc.mech))
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, cl.Ping(ctx))
			cl.Close()
			time.Sleep(50 * time.Millisecond) // the relay's last reads
			relay.mu.Lock()
			reqs, rsps := frames(t, relay.req), frames(t, relay.rsp)
			relay.mu.Unlock()
			require.Equal(t, len(reqs), len(rsps))
			// kwire check finds nothing wrong with a real exchange, but
			// kfake's SaslHandshake answer: it lists no enabled
			// mechanism, where Kafka's broker lists them all.
			var conv [][]byte
			for i := range reqs {
				conv = append(conv, reqs[i], rsps[i])
			}
			handshakes := 0
			for _, f := range check.Check(check.FromFrames(conv)) {
				if f.Rule.ID == "conn.sasl-handshake" {
					handshakes++
					continue
				}
				require.True(t, f.Skipped, "%s", f.String())
			}
			require.Equal(t, 1, handshakes, "kfake's handshake answer, with no mechanisms, is said once")

			var auth []saslExchange
			for i, rq := range reqs {
				f, err := codec.Decode(rq, codec.Options{})
				require.NoError(t, err)
				if f.APIKey != schema.KeySaslAuthenticate {
					continue
				}
				ro := codec.Options{Response: true, APIKey: f.APIKey, Version: f.Version}
				g, err := codec.Decode(rsps[i], ro)
				require.NoError(t, err)
				x := saslExchange{req: rq, rsp: rsps[i], reqJSON: valueJSON(t, rq, f, codec.Options{}), rspJSON: valueJSON(t, rsps[i], g, ro)}
				auth = append(auth, x)
			}
			part := func(js map[string]any, name string) any {
				return js["body"].(map[string]any)["authBytes"].(map[string]any)[name]
			}
			if tc.proof == 0 {
				require.Len(t, auth, 1)
				require.Equal(t, map[string]any{"mechanism": "PLAIN", "message": "client-initial", "authzid": "", "username": tc.user, "password": pass},
					auth[0].reqJSON["body"].(map[string]any)["authBytes"])
				require.Equal(t, "", auth[0].rspJSON["body"].(map[string]any)["authBytes"]) // no bytes back
				return
			}
			require.Len(t, auth, 2)
			first, final := auth[0], auth[1]
			require.Equal(t, "client-first", part(first.reqJSON, "message"))
			require.Equal(t, tc.user, part(first.reqJSON, "username"))
			require.Equal(t, "server-first", part(first.rspJSON, "message"))
			cnonce, snonce := part(first.reqJSON, "nonce").(string), part(first.rspJSON, "nonce").(string)
			require.True(t, strings.HasPrefix(snonce, cnonce) && len(snonce) > len(cnonce), "the server's nonce %q continues the client's %q", snonce, cnonce)
			require.NotEmpty(t, part(first.rspJSON, "salt"))
			iter, err := part(first.rspJSON, "iterations").(json.Number).Int64()
			require.NoError(t, err)
			require.GreaterOrEqual(t, iter, int64(4096)) // Kafka's least

			require.Equal(t, "client-final", part(final.reqJSON, "message"))
			require.Equal(t, "biws", part(final.reqJSON, "channelBinding"))
			require.Equal(t, snonce, part(final.reqJSON, "nonce"))
			require.Len(t, part(final.reqJSON, "proof"), tc.proof)
			require.Equal(t, "server-final", part(final.rspJSON, "message"))
			require.Len(t, part(final.rspJSON, "verifier"), tc.proof)
		})
	}
}

// valueJSON decodes frame b's value JSON both ways (the tree's and the
// walk's alone), requires them equal and the frame to encode back from
// it, and returns it parsed.
func valueJSON(t *testing.T, b []byte, f *codec.Frame, o codec.Options) map[string]any {
	var d codec.Decoder
	walked, _, err := d.AppendJSON(nil, b, o)
	require.NoError(t, err)
	js := f.AppendJSON(nil)
	require.JSONEq(t, string(js), string(walked))
	var v map[string]any
	dec := json.NewDecoder(strings.NewReader(string(js)))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&v))
	back, err := codec.Encode(nil, v, codec.EncodeOptions{})
	require.NoError(t, err, "%s", js)
	require.Equal(t, b, back, "%s", js)
	return v
}

// saslRequest is a SaslAuthenticate v2 request carrying authBytes.
func saslRequest(t *testing.T, authBytes any) ([]byte, error) {
	return codec.Encode(nil, map[string]any{"apiKey": 36, "apiVersion": 2,
		"header": map[string]any{"correlationId": 3, "clientId": "c"}, "body": map[string]any{"authBytes": authBytes}}, codec.EncodeOptions{})
}

// TestSASLEncode writes authBytes from the message's parts, and says what
// is wrong with a message it cannot write.
func TestSASLEncode(t *testing.T) {
	b, err := saslRequest(t, map[string]any{"mechanism": "SCRAM", "message": "server-first", "nonce": "abc", "salt": "c2FsdA==", "iterations": 8192})
	require.NoError(t, err)
	require.Contains(t, string(b), "r=abc,s=c2FsdA==,i=8192")
	for _, c := range []struct {
		v    any
		path string
		msg  string
	}{
		{map[string]any{"mechanism": "CRAM-MD5"}, "body.authBytes.mechanism", `expected PLAIN, SCRAM or OAUTHBEARER, found "CRAM-MD5"`},
		{map[string]any{"mechanism": "PLAIN", "message": "client-initial", "username": "u"}, "body.authBytes.password",
			"missing: a PLAIN client-initial message has username, password, optional authzid"},
		// A NUL in a PLAIN part would make four parts of three.
		{map[string]any{"mechanism": "PLAIN", "message": "client-initial", "authzid": "", "username": "al\x00ice", "password": "s3cret"}, "body.authBytes.username", "holds a NUL"},
		{map[string]any{"mechanism": "PLAIN", "message": "client-initial", "authzid": "a\x00", "username": "alice", "password": "s3cret"}, "body.authBytes.authzid", "holds a NUL"},
		{map[string]any{"mechanism": "PLAIN", "message": "client-initial", "username": "alice", "password": "s3\x00cret"}, "body.authBytes.password", "holds a NUL"},
		{map[string]any{"mechanism": "SCRAM", "message": "client-first", "channelBindingFlag": "n", "username": "a,b", "nonce": "abc"}, "body.authBytes.username", "=2C"},
		{map[string]any{"mechanism": "SCRAM", "message": "server-final", "error": "invalid-proof", "extensions": "v=x"}, "body.authBytes.extensions", `holds "v="`},
		{map[string]any{"mechanism": "OAUTHBEARER", "message": "client-initial", "channelBindingFlag": "n", "auth": "Bearer t", "extensions": "a=b\x01\x01c=d"}, "body.authBytes.extensions", `holds "\x01\x01"`},
		// What a wrong or missing message, or no SASL object at all, is
		// said to be.
		{map[string]any{"mechanism": "PLAIN", "message": "client", "username": "alice", "password": "s3cret"}, "body.authBytes.message",
			`expected PLAIN's message, client-initial (username, password, optional authzid); found "client"`},
		{map[string]any{"mechanism": "PLAIN", "username": "alice", "password": "s3cret"}, "body.authBytes.message", "missing: expected PLAIN's message, client-initial"},
		{map[string]any{"text": "hello"}, "body.authBytes", `expected base64 text, or a SASL message object: {"mechanism":...,"message":...}`},
		{map[string]any{"mechanism": "PLAIN", "message": "client-initial", "username": "u", "password": "p", "pasword": "p"}, "body.authBytes.pasword", "valid here: mechanism, message, authzid, username, password"},
		{map[string]any{"mechanism": "SCRAM", "message": "server-first", "nonce": "a", "salt": "b", "iterations": -1}, "body.authBytes.iterations", ""},
		{[]any{1}, "body.authBytes", "expected base64 text, bytes or a SASL message object, found an array"},
	} {
		t.Run(c.path, func(t *testing.T) {
			_, err := saslRequest(t, c.v)
			var ee *codec.EncodeError
			require.ErrorAs(t, err, &ee, "%v", c.v)
			require.Equal(t, c.path, ee.Path, "%v", c.v)
			require.Contains(t, ee.Msg, c.msg, "%v", c.v)
		})
	}
}

// TestSASLLimit: a SASL message the node budget has no room for stays
// bytes, and the limit is said on it.
func TestSASLLimit(t *testing.T) {
	b, err := saslRequest(t, []byte("n,,n=alice,r=abcdef"))
	require.NoError(t, err)
	o := codec.Options{Limits: codec.Limits{MaxNodes: 12}}
	f, err := codec.Decode(b, o)
	require.NoError(t, err)
	ab := f.Body.Children[0]
	require.Equal(t, "AuthBytes", ab.Name)
	require.Empty(t, ab.Children)
	require.Len(t, f.Warnings, 1)
	require.Contains(t, f.Warnings[0].Message, "not decoded as a SASL message: the MaxNodes limit (12 nodes)")
	require.True(t, f.Warnings[0].Limit)
	valueJSON(t, b, f, o)
	f, err = codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	require.Len(t, f.Body.Children[0].Children, 5)
}

// TestSASLOAuthBearerJWT: a bearer token that is a JWT shows its header
// and claims decoded, each on the bytes of its base64url, and encodes
// back from them.
func TestSASLOAuthBearerJWT(t *testing.T) {
	msg := "n,,\x01auth=Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsImV4cCI6MTc2NDk1MDQwMH0.\x01\x01"
	b, err := saslRequest(t, []byte(msg))
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	js := valueJSON(t, b, f, codec.Options{})
	require.Equal(t, map[string]any{"mechanism": "OAUTHBEARER", "message": "client-initial", "channelBindingFlag": "n",
		"jwtHeader": `{"alg":"none"}`, "jwtClaims": `{"sub":"admin","exp":1764950400}`, "jwtSignature": ""}, js["body"].(map[string]any)["authBytes"])
	claims := f.Body.Children[0].Get("jwtClaims")
	require.NotNil(t, claims)
	at := strings.Index(string(b), "eyJzdWIi")
	require.Equal(t, [2]int{at, at + len("eyJzdWIiOiJhZG1pbiIsImV4cCI6MTc2NDk1MDQwMH0")}, [2]int{claims.Start, claims.End})
	// An edit of the claims is written as base64url again.
	js["body"].(map[string]any)["authBytes"].(map[string]any)["jwtClaims"] = `{"sub":"alice"}`
	edited, err := codec.Encode(nil, js, codec.EncodeOptions{})
	require.NoError(t, err)
	require.Contains(t, string(edited), "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.\x01\x01")
}
