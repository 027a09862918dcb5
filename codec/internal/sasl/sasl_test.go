package sasl

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/sasl/oauth"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

// parts is m's parts as name -> text.
func parts(b []byte, m *Message) map[string]string {
	out := map[string]string{}
	for _, p := range m.Parts {
		out[p.Name] = string(b[p.Start:p.End])
		if p.Value != nil {
			out[p.Name] = string(p.Value)
		}
	}
	return out
}

// TestParseMessages reads each message a client or broker sends (RFC
// 5802's SCRAM exchange, RFC 7628's OAUTHBEARER error) into its parts.
func TestParseMessages(t *testing.T) {
	for _, c := range []struct {
		in         string
		mech, kind string
		want       map[string]string
	}{
		{"\x00alice\x00alice-secret", Plain, "client-initial", map[string]string{authzid: "", username: "alice", password: "alice-secret"}},
		{"admin\x00alice\x00pw", Plain, "client-initial", map[string]string{authzid: "admin", username: "alice", password: "pw"}},
		{"n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL", Scram, "client-first",
			map[string]string{cbind: "n", username: "user", nonce: "fyko+d2lbbFgONRv9qkxdawL"}},
		{"n,a=admin,n=user,r=abc,tokenauth=true", Scram, "client-first",
			map[string]string{cbind: "n", authzid: "admin", username: "user", nonce: "abc", extensions: "tokenauth=true"}},
		{"r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096", Scram, "server-first",
			map[string]string{nonce: "fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j", salt: "QSXCR+Q6sek8bf92", iterations: "4096"}},
		{"c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", Scram, "client-final",
			map[string]string{cbinding: "biws", nonce: "fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j", proof: "v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="}},
		{"c=biws,r=abc,x=1,p=pp", Scram, "client-final", map[string]string{cbinding: "biws", nonce: "abc", extensions: "x=1", proof: "pp"}},
		// FuzzParse found the proof listed before the extensions ahead of it.
		{"c=,r=,0,p=", Scram, "client-final", map[string]string{cbinding: "", nonce: "", extensions: "0", proof: ""}},
		{"v=rmF9pqV8S7suAoZWja4dJRkFsKQ=", Scram, "server-final", map[string]string{verifier: "rmF9pqV8S7suAoZWja4dJRkFsKQ="}},
		{"e=invalid-proof", Scram, "server-final", map[string]string{serverErr: "invalid-proof"}},
		{"n,,\x01auth=Bearer abc.def.ghi\x01\x01", OAuthBearer, "client-initial", map[string]string{cbind: "n", auth: "Bearer abc.def.ghi"}},
		{"n,a=u,\x01auth=Bearer t\x01host=h\x01port=9\x01\x01", OAuthBearer, "client-initial",
			map[string]string{cbind: "n", authzid: "u", auth: "Bearer t", extensions: "host=h\x01port=9"}},
		// An unsecured JWT (no signature), as librdkafka's default token is.
		{"n,,\x01auth=Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhZG1pbiIsImV4cCI6MTc2NDk1MDQwMH0.\x01\x01", OAuthBearer, "client-initial",
			map[string]string{cbind: "n", jwtHeader: `{"alg":"none"}`, jwtClaims: `{"sub":"admin","exp":1764950400}`, jwtSignature: ""}},
		// Padded base64 is no JWT's: the token stays whole.
		{"n,,\x01auth=Bearer eyJhbGciOiJub25lIn0=.eyJzdWIiOiJhIn0.\x01\x01", OAuthBearer, "client-initial",
			map[string]string{cbind: "n", auth: "Bearer eyJhbGciOiJub25lIn0=.eyJzdWIiOiJhIn0."}},
		{`{"status":"invalid_token","scope":"kafka"}`, OAuthBearer, "server-error", map[string]string{serverErr: `{"status":"invalid_token","scope":"kafka"}`}},
		{"\x01", OAuthBearer, "error-acknowledgement", map[string]string{}},
	} {
		var m Message
		require.True(t, Parse([]byte(c.in), &m), "%q", c.in)
		require.Equal(t, c.mech, m.Mechanism, "%q", c.in)
		require.Equal(t, c.kind, m.Kind, "%q", c.in)
		require.Equal(t, c.want, parts([]byte(c.in), &m), "%q", c.in)
		last := 0
		has := func(name string) (string, bool) { v, ok := c.want[name]; return v, ok }
		for _, p := range m.Parts {
			require.Contains(t, Names(m.Mechanism, m.Kind, has), p.Name)
			require.GreaterOrEqual(t, p.Start, last, "%q: %s out of order", c.in, p.Name)
			last = p.End
		}
	}
}

// TestParseRefuses leaves bytes that are no SASL message, or one that
// would not be written back the same, as bytes.
func TestParseRefuses(t *testing.T) {
	for _, in := range []string{
		"", "hello", "\x00\x00", "a\x00\x00pw", "a\x00user\x00", "a\x00b\x00c\x00d", "a\x00b\x01\x00c",
		"n,,r=abc",                  // no username
		"n,,n=u",                    // no nonce
		"x,,n=u,r=abc",              // no channel binding flag
		"n,b=z,n=u,r=abc",           // not an authzid
		"r=abc,s=salt",              // no iterations
		"r=abc,s=salt,i=04096",      // a count JSON would write otherwise
		"r=abc,s=salt,i=-1",         // not a count
		"r=abc,s=salt,i=9999999999", // past int32
		"c=biws,r=abc",              // no proof
		"c=biws,p=pp",               // no nonce
		"n,,\x01auth=Bearer t\x01",  // no final 0x01
		"n,,\x01host=h\x01\x01",     // no auth first
		"n,,\x01auth=Bear\ter\x01\x01",
		"{}", `{"status":"x"`,
		"\xff\xfe", "n,,n=u\xff,r=abc",
		// A Kerberos AP-REQ's first bytes: GSSAPI's tokens stay bytes.
		string([]byte{0x60, 0x82, 0x02, 0x10, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02, 0x01, 0x00, 0x6e, 0x82}),
	} {
		var m Message
		require.False(t, Parse([]byte(in), &m), "%q read as %+v", in, m)
	}
}

// TestParseClients reads what franz-go's SASL clients send.
func TestParseClients(t *testing.T) {
	ctx := context.Background()
	_, first, err := plain.Auth{User: "alice", Pass: "alice-secret"}.AsMechanism().Authenticate(ctx, "broker:9092")
	require.NoError(t, err)
	var m Message
	require.True(t, Parse(first, &m))
	require.Equal(t, map[string]string{authzid: "", username: "alice", password: "alice-secret"}, parts(first, &m))

	sess, first, err := scram.Auth{User: "bob", Pass: "pw"}.AsSha512Mechanism().Authenticate(ctx, "broker:9092")
	require.NoError(t, err)
	require.True(t, Parse(first, &m))
	got := parts(first, &m)
	require.Equal(t, "client-first", m.Kind)
	require.Equal(t, "bob", got[username])
	server := []byte("r=" + got[nonce] + "servernonce,s=c2FsdA==,i=4096")
	require.True(t, Parse(server, &m))
	require.Equal(t, "server-first", m.Kind)
	_, final, err := sess.Challenge(server)
	require.NoError(t, err)
	require.True(t, Parse(final, &m))
	got = parts(final, &m)
	require.Equal(t, "client-final", m.Kind)
	require.Equal(t, "biws", got[cbinding])
	require.Len(t, got[proof], 88) // SHA-512 in base64

	_, first, err = oauth.Auth{Token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln", Extensions: map[string]string{"logicalCluster": "lkc-1"}}.AsMechanism().Authenticate(ctx, "broker:9092")
	require.NoError(t, err)
	require.True(t, Parse(first, &m))
	got = parts(first, &m)
	require.Equal(t, map[string]string{cbind: "n", jwtHeader: `{"alg":"HS256"}`, jwtClaims: `{"sub":"alice"}`, jwtSignature: "c2ln",
		extensions: "logicalCluster=lkc-1"}, got)
	_, first, err = oauth.Auth{Token: "opaque-token"}.AsMechanism().Authenticate(ctx, "broker:9092")
	require.NoError(t, err)
	require.True(t, Parse(first, &m))
	require.Equal(t, map[string]string{cbind: "n", auth: "Bearer opaque-token"}, parts(first, &m))
}

// TestAppendErrors: a message written from parts says what it lacks.
func TestAppendErrors(t *testing.T) {
	none := func(string) (string, bool) { return "", false }
	_, err := Append(nil, Scram, "client-first", none)
	require.EqualError(t, err, "SCRAM client-first needs channelBindingFlag")
	_, err = Append(nil, "CRAM-MD5", "", none)
	require.ErrorContains(t, err, "no SASL message")
	_, err = Append(nil, Scram, "server-first", func(n string) (string, bool) {
		return map[string]string{nonce: "a", salt: "b", iterations: "many"}[n], true
	})
	require.ErrorContains(t, err, "iterations must be a count")
}

// FuzzParse: whatever Parse takes, its parts lie in order inside the
// message and write it back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"\x00alice\x00pw", "n,,n=u,r=abc", "r=a,s=b,i=1", "c=biws,r=a,p=b", "v=x", "e=y",
		"n,,\x01auth=Bearer t\x01a=b\x01\x01", `{"status":"x"}`, "\x01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Message
		if !Parse(b, &m) {
			return
		}
		last := 0
		for _, p := range m.Parts {
			if p.Start < last || p.End < p.Start || p.End > len(b) {
				t.Fatalf("%q: part %+v out of place", b, p)
			}
			last = p.End
		}
		names := Names(m.Mechanism, m.Kind, func(string) (string, bool) { return "", true })
		if names == nil {
			t.Fatalf("%q: no names for %s %s", b, m.Mechanism, m.Kind)
		}
	})
}

// BenchmarkParse reads SCRAM's client-final message, the longest of an
// exchange (SHA-512's proof), and writes it back (as Parse does).
func BenchmarkParse(b *testing.B) {
	msg := []byte("c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=" + strings.Repeat("v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=", 3))
	var m Message
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	for b.Loop() {
		if !Parse(msg, &m) {
			b.Fatal("not read")
		}
	}
}
