package sasl

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"math/rand/v2"
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
	require.EqualError(t, err, "channelBindingFlag: missing: a SCRAM client-first message has channelBindingFlag, username, nonce, optional authzid, extensions")
	_, err = Append(nil, "CRAM-MD5", "", none)
	require.ErrorContains(t, err, "no SASL message")
	_, err = Append(nil, Scram, "server-first", func(n string) (string, bool) {
		return map[string]string{nonce: "a", salt: "b", iterations: "many"}[n], true
	})
	require.EqualError(t, err, `iterations: expected a count, 0 to 2147483647, found "many"`)
}

// appendParts writes the message of mechanism and kind from parts.
func appendParts(mechanism, kind string, parts map[string]string) ([]byte, error) {
	return Append(nil, mechanism, kind, func(n string) (string, bool) { v, ok := parts[n]; return v, ok })
}

// TestAppendRefuses: parts that would be written as bytes reading back as
// another message (the broker reading another too), or as none, are
// refused, the part named and why.
func TestAppendRefuses(t *testing.T) {
	for _, c := range []struct {
		mech, kind string
		parts      map[string]string
		part, msg  string
	}{
		// A NUL in a PLAIN part: \0al\0ice\0s3cret is four parts.
		{Plain, "client-initial", map[string]string{authzid: "", username: "al\x00ice", password: "s3cret"}, username, "holds a NUL"},
		{Plain, "client-initial", map[string]string{authzid: "ad\x00min", username: "alice", password: "s3cret"}, authzid, "holds a NUL"},
		{Plain, "client-initial", map[string]string{username: "alice", password: "s3\x00cret"}, password, "holds a NUL"},
		{Plain, "client-initial", map[string]string{username: "", password: "s3cret"}, username, "empty: PLAIN's username and password are never empty"},
		{Plain, "client-initial", map[string]string{username: "alice", password: "s3\tcret"}, password, `control character \u0009`},
		// SCRAM: ',' ends an attribute; a name writes it =2C.
		{Scram, "client-first", map[string]string{cbind: "n", username: "al,ice", nonce: "abc"}, username, "writes as =2C"},
		{Scram, "client-first", map[string]string{cbind: "n", authzid: "ad,min", username: "alice", nonce: "abc"}, authzid, "writes as =2C"},
		{Scram, "client-first", map[string]string{cbind: "n", username: "alice", nonce: "a,bc"}, nonce, "holds ','"},
		{Scram, "client-first", map[string]string{cbind: "x", username: "alice", nonce: "abc"}, cbind, `expected "n", "y" or "p="`},
		{Scram, "server-first", map[string]string{nonce: "abc", salt: "c2Fs,dA==", iterations: "4096"}, salt, "holds ','"},
		{Scram, "client-final", map[string]string{cbinding: "biws", nonce: "abc", extensions: "x=1,p=2", proof: "pp"}, extensions, `holds ",p=", which reads as the start of proof`},
		{Scram, "client-final", map[string]string{cbinding: "biws", nonce: "abc", extensions: "p=2", proof: "pp"}, extensions, `starts with "p=", which reads as the start of proof and no extensions`},
		{Scram, "server-final", map[string]string{serverErr: "invalid-proofv=x"}, serverErr, `holds "v=", which reads as the start of verifier`},
		{Scram, "server-final", map[string]string{serverErr: "invalid-proof", extensions: "v=x"}, extensions, `holds "v="`},
		{Scram, "server-final", map[string]string{serverErr: "invalid-proof", verifier: "x"}, verifier, "not both"},
		// OAUTHBEARER: 0x01 ends a key=value pair, two end the message.
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", auth: "Bearer a\x01b"}, auth, "holds \\u0001"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", authzid: "u\x01", auth: "Bearer t"}, authzid, "holds \\u0001"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", auth: "Bearer t", extensions: ""}, extensions, "empty, which reads as no extensions"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", auth: "Bearer t", extensions: "a=b\x01"}, extensions, "ends with \"\\x01\", which with what follows reads as the message's end"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", auth: "Bearer t", extensions: "\x01a=b"}, extensions, "starts with"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", auth: "Bearer t", extensions: "a=b\x01\x01c=d"}, extensions, "reads as the message's end"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n,", auth: "Bearer t"}, cbind, "reads as the end of the GS2 header"},
		// A token that is a JWT reads back as its parts.
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", auth: "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.sig"}, auth, "reads back as jwtHeader, jwtClaims, jwtSignature instead"},
		// An authzid that makes the GS2 header SCRAM's.
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", authzid: "u,n=v,r=w", auth: "Bearer t"}, authzid, "read back as a SCRAM client-first message"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", jwtHeader: `"alg"`, jwtClaims: "{}", jwtSignature: ""}, jwtHeader, "expected a JSON object"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", jwtHeader: "{}", jwtClaims: "{\n}", jwtSignature: ""}, jwtClaims, `control character \u000a`},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", jwtHeader: "{}"}, jwtClaims, "missing: an OAUTHBEARER client-initial message has channelBindingFlag, auth (or jwtHeader, jwtClaims, jwtSignature), optional authzid, extensions"},
		{OAuthBearer, "server-error", map[string]string{serverErr: "invalid_token"}, serverErr, `expected a JSON object with a "status"`},
	} {
		t.Run(c.mech+" "+c.kind+" "+c.part, func(t *testing.T) {
			b, err := appendParts(c.mech, c.kind, c.parts)
			var se *Error
			require.ErrorAs(t, err, &se, "%q wrote %q", c.parts, b)
			require.Equal(t, c.part, se.Part, "%q: %v", c.parts, err)
			require.Contains(t, se.Msg, c.msg, "%q", c.parts)
		})
	}
}

// TestAppendWritesBack: parts that only look like trouble are written,
// and read back as themselves.
func TestAppendWritesBack(t *testing.T) {
	for _, c := range []struct {
		mech, kind string
		parts      map[string]string
		want       string
	}{
		{Plain, "client-initial", map[string]string{authzid: "", username: "al ice", password: "s3,=cret"}, "\x00al ice\x00s3,=cret"},
		// A SCRAM name as written, its escapes kept (kwire check judges them).
		{Scram, "client-first", map[string]string{cbind: "n", username: "a=2Cb=3Dc", nonce: "abc"}, "n,,n=a=2Cb=3Dc,r=abc"},
		{Scram, "client-first", map[string]string{cbind: "n", authzid: "", username: "u", nonce: "abc", extensions: ""}, "n,a=,n=u,r=abc,"},
		{Scram, "client-final", map[string]string{cbinding: "biws", nonce: "abc", extensions: "x=1,", proof: "pp"}, "c=biws,r=abc,x=1,,p=pp"},
		{Scram, "server-final", map[string]string{serverErr: "other-error", extensions: "x=1,y"}, "e=other-error,x=1,y"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", authzid: "u,b", auth: "Bearer t", extensions: "a=b\x01c=d"}, "n,a=u,b,\x01auth=Bearer t\x01a=b\x01c=d\x01\x01"},
		{OAuthBearer, "client-initial", map[string]string{cbind: "n", jwtHeader: "{}", jwtClaims: "{}", jwtSignature: "s.i.g"}, "n,,\x01auth=Bearer e30.e30.s.i.g\x01\x01"},
	} {
		b, err := appendParts(c.mech, c.kind, c.parts)
		require.NoError(t, err, "%q", c.parts)
		require.Equal(t, c.want, string(b))
		var m Message
		require.True(t, Parse(b, &m), "%q", b)
		require.Equal(t, c.parts, parts(b, &m))
	}
	// PLAIN's authzid left out is written, and read, as empty.
	b, err := appendParts(Plain, "client-initial", map[string]string{username: "alice", password: "pw"})
	require.NoError(t, err)
	require.Equal(t, "\x00alice\x00pw", string(b))
}

// TestUnknown: an object that is no message here says what is missing or
// wrong, and what would be valid there.
func TestUnknown(t *testing.T) {
	kindOf := func(any) string { return "a number" }
	for _, c := range []struct {
		obj       map[string]any
		part, msg string
	}{
		{map[string]any{"mechanism": "PLAIN", "message": "client", "username": "alice", "password": "s3cret"}, "message",
			`expected PLAIN's message, client-initial (username, password, optional authzid); found "client"`},
		{map[string]any{"mechanism": "PLAIN", "username": "alice"}, "message",
			`missing: expected PLAIN's message, client-initial (username, password, optional authzid)`},
		{map[string]any{"mechanism": "SCRAM", "message": "client-initial"}, "message",
			`expected one of SCRAM's messages: client-first (channelBindingFlag, username, nonce, optional authzid, extensions); ` +
				`server-first (nonce, salt, iterations, optional extensions); client-final (channelBinding, nonce, proof, optional extensions); ` +
				`server-final (verifier or error, optional extensions); found "client-initial"`},
		{map[string]any{"mechanism": "OAUTHBEARER", "message": 1}, "message", "error-acknowledgement (no parts); found a number"},
		{map[string]any{"text": "hello"}, "", `expected base64 text, or a SASL message object: {"mechanism":...,"message":...} and the message's parts, for one of PLAIN client-initial (username, password, optional authzid); SCRAM client-first (`},
		{map[string]any{"text": "hello"}, "", "OAUTHBEARER error-acknowledgement (no parts); found an object with text"},
		{map[string]any{}, "", "; found an empty object"},
		{map[string]any{"message": "client-initial"}, "mechanism", "missing: a SASL message object names its mechanism and message, one of PLAIN client-initial ("},
		{map[string]any{"mechanism": "GSSAPI"}, "mechanism", `expected PLAIN, SCRAM or OAUTHBEARER, found "GSSAPI" (other mechanisms' bytes, GSSAPI's among them, are written as base64 text); the messages: PLAIN client-initial`},
		{map[string]any{"mechanism": 3}, "mechanism", "expected PLAIN, SCRAM or OAUTHBEARER, found a number; the messages: "},
	} {
		e := Unknown(c.obj, kindOf)
		require.Equal(t, c.part, e.Part, "%v", c.obj)
		require.Contains(t, e.Msg, c.msg, "%v", c.obj)
	}
}

// TestAppendFragments: parts made of the pieces messages are cut by
// (separators, attribute names, a JWT's and a GS2 header's pieces) are
// written only when they read back as themselves, and refused naming
// the part otherwise.
func TestAppendFragments(t *testing.T) {
	frags := []string{"", "a", ",", "=", "\x00", "\x01", "v=", ",p=", "p=", ",n=", "n", "y", "p=x", "r=", "a=", ",\x01auth=", "{}", `{"status":"x"}`,
		"Bearer ", "e30", ".", "=2C", "\t", "4096"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		l := &layouts[r.IntN(len(layouts))]
		given := map[string]string{}
		for _, s := range l.steps {
			if s.name != "" && r.IntN(4) != 0 {
				v := ""
				for range r.IntN(4) {
					v += frags[r.IntN(len(frags))]
				}
				given[s.name] = v
			}
		}
		b, err := appendParts(l.mechanism, l.kind, given)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || se.Part == "" {
				t.Fatalf("%s %s %q: refused naming no part: %v", l.mechanism, l.kind, given, err)
			}
			continue
		}
		if _, ok := given[authzid]; !ok && l.mechanism == Plain {
			given[authzid] = "" // none is written as empty
		}
		var m Message
		if !Parse(b, &m) || m.Mechanism != l.mechanism || m.Kind != l.kind || !maps.Equal(parts(b, &m), given) {
			t.Fatalf("%s %s %q wrote %q, read as %s %s %q", l.mechanism, l.kind, given, b, m.Mechanism, m.Kind, parts(b, &m))
		}
	}
}

// FuzzAppend: whatever parts Append writes read back as themselves;
// parts it refuses, it names.
func FuzzAppend(f *testing.F) {
	for _, s := range [][6]string{{"", "alice", "pw"}, {"n", "", "u", "abc", "x=1"}, {"abc", "c2FsdA==", "4096", ""},
		{"biws", "abc", "x=1,p=2", "pp"}, {"e", "v=x", "y"}, {"n", "u,n=v,r=w", "{}", "{}", "s", "a=b\x01"}, {"n", "", "Bearer t", "\x01"}} {
		for k := range layouts {
			f.Add(uint8(k), uint8(0xff), s[0], s[1], s[2], s[3], s[4], s[5])
		}
	}
	f.Fuzz(func(t *testing.T, which, present uint8, p0, p1, p2, p3, p4, p5 string) {
		l := &layouts[int(which)%len(layouts)]
		given := map[string]string{}
		vals := []string{p0, p1, p2, p3, p4, p5}
		k := 0
		for _, s := range l.steps {
			if s.name != "" {
				if present&(1<<k) != 0 {
					given[s.name] = vals[k]
				}
				k++
			}
		}
		b, err := appendParts(l.mechanism, l.kind, given)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || se.Part == "" {
				t.Fatalf("%s %s %q: refused naming no part: %v", l.mechanism, l.kind, given, err)
			}
			return
		}
		if _, ok := given[authzid]; !ok && l.mechanism == Plain {
			given[authzid] = "" // none is written as empty
		}
		if _, ok := given[authzid]; !ok && l.mechanism == Plain {
			given[authzid] = "" // none is written as empty
		}
		var m Message
		if !Parse(b, &m) || m.Mechanism != l.mechanism || m.Kind != l.kind {
			t.Fatalf("%s %s %q wrote %q, read as %s %s", l.mechanism, l.kind, given, b, m.Mechanism, m.Kind)
		}
		if got := parts(b, &m); !maps.Equal(got, given) {
			t.Fatalf("%s %s %q wrote %q, read as %q", l.mechanism, l.kind, given, b, got)
		}
	})
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
		// The encoder takes back what was read: Append writes the
		// parts as they were read, the very bytes.
		got := parts(b, &m)
		back, err := Append(nil, m.Mechanism, m.Kind, func(n string) (string, bool) { v, ok := got[n]; return v, ok })
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("%q read as %q, written back as %q: %v", b, got, back, err)
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
