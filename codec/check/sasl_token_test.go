package check

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/hostile"
)

// TestSASLTokens: raw SASL tokens after a SaslHandshake v0
// (Exchange.SASLToken) are judged by the SASL rules alone, as
// SaslAuthenticate's messages are: findings name the token's side, the
// part's byte and its value-JSON path under "value", carry no correlation
// id, and no rule for Kafka frames reads a token (its size and bytes pass
// for no header). A clean SCRAM login says nothing.
func TestSASLTokens(t *testing.T) {
	enc := func(js string) []byte {
		b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
		require.NoError(t, err, js)
		return b
	}
	tok := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	const (
		clientFirst = "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL"
		serverFirst = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"
		clientFinal = "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="
		serverFinal = "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="
	)
	login := func(mechanism string, tokens ...string) []Finding {
		conn := &Conn{ID: 1, FromStart: true}
		c := NewChecker()
		var z Analyzer
		var out []Finding
		hs := Exchange{Conn: conn, RequestPacket: 1, ResponsePacket: 2,
			Request:  enc(`{"direction":"request","apiKey":17,"apiVersion":0,"header":{"correlationId":1,"clientId":"c"},"body":{"mechanism":"` + mechanism + `"}}`),
			Response: enc(`{"direction":"response","apiKey":17,"apiVersion":0,"header":{"correlationId":1},"body":{"errorCode":0,"mechanisms":["` + mechanism + `"]}}`)}
		out = append(out, c.Add(z.Analyze(&hs))...)
		for i := 0; i+1 < len(tokens); i += 2 {
			x := Exchange{Conn: conn, SASLToken: true, Request: tok(tokens[i]), Response: tok(tokens[i+1]), RequestPacket: 3 + i, ResponsePacket: 4 + i}
			out = append(out, c.Add(z.Analyze(&x))...)
		}
		return append(out, c.End()...)
	}
	judged := func(fs []Finding) []Finding {
		var j []Finding
		for _, f := range fs {
			if !f.Skipped {
				j = append(j, f)
			}
		}
		return j
	}

	require.Empty(t, judged(login("SCRAM-SHA-256", clientFirst, serverFirst, clientFinal, serverFinal)))
	require.Empty(t, judged(login("PLAIN", "\x00user\x00pass", "")))
	require.Empty(t, judged(login("GSSAPI", "\x60\x82\x02\x1b\x06\x09\x2a\x86\x48\x86\xf7\x12\x01\x02\x02", "")), "a token that is no message kwire reads is not judged")

	fs := judged(login("PLAIN", clientFirst, serverFirst))
	require.Len(t, fs, 1)
	require.Equal(t, ConnSASLExchange, fs[0].Rule)
	require.Equal(t, Where{Conn: 1, Side: Request, Packet: 3, HasOffset: true, Offset: 4, Path: "value"}, fs[0].Where)

	fs = judged(login("SCRAM-SHA-512", clientFirst, "r=other,s=QSXCR+Q6sek8bf92,i=100", "c=biws,r=other,p=x", serverFinal))
	require.Len(t, fs, 2, "%v", fs)
	require.Equal(t, FrameSASL, fs[0].Rule)
	require.Equal(t, Where{Conn: 1, Side: Response, Packet: 4, HasOffset: true, Offset: 33, Path: "value.iterations"}, fs[0].Where)
	require.Equal(t, ConnSASLExchange, fs[1].Rule)
	require.Equal(t, Where{Conn: 1, Side: Response, Packet: 4, HasOffset: true, Offset: 6, Path: "value.nonce"}, fs[1].Where)
	require.Equal(t, `"other"`, fs[1].Found)

	// A username's ',' and '=' are written =2C and =3D; any other '='
	// Kafka refuses.
	require.Empty(t, judged(login("SCRAM-SHA-256", "n,,n=a=2Cb=3Dc,r=abc", "r=abcdef,s=c2FsdA==,i=4096")))
	fs = judged(login("SCRAM-SHA-256", "n,,n=us=er,r=abc", "r=abcdef,s=c2FsdA==,i=4096"))
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, FrameSASL, fs[0].Rule)
	require.Equal(t, Where{Conn: 1, Side: Request, Packet: 3, HasOffset: true, Offset: 9, Path: "value.username"}, fs[0].Where)
	require.Equal(t, `"us=er"`, fs[0].Found)
	require.Len(t, judged(login("SCRAM-SHA-256", "n,,n=a=3=2CD,r=abc", "r=abcdef,s=c2FsdA==,i=4096")), 1, "=2C read first, as Kafka reads it, leaves =3,D")
}

// FuzzCheckSASLTokens: a SaslHandshake v0 (its mechanism chosen by the
// first byte), then any bytes cut into raw SASL tokens by their size
// prefixes, paired client and broker, checked as one connection: never
// panics, every finding has its rule and words, and what it allocates is
// bound by the input as FuzzCheck's is.
func FuzzCheckSASLTokens(f *testing.F) {
	tok := func(s string) []byte { return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...) }
	f.Add(append([]byte{1}, append(tok("n,,n=user,r=abc"), tok("r=abcdef,s=c2FsdA==,i=4096")...)...))
	f.Add(append([]byte{0}, append(tok("\x00user\x00pass"), tok("")...)...))
	f.Add(append([]byte{3}, append(tok("n,,n=u,r=x"), tok("r=y,s=,i=1")...)...))
	f.Add(append([]byte{3}, append(tok("n,,\x01auth=Bearer eyJhbGciOiJub25lIn0.eyJleHAiOjE3MTQ1NjEyMDB9.c2ln\x01\x01"), tok("")...)...))
	mechanisms := []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER", "GSSAPI"}
	hsReq, err := codec.Encode(nil, []byte(`{"direction":"request","apiKey":17,"apiVersion":0,"header":{"correlationId":1,"clientId":"c"},"body":{"mechanism":"PLAIN"}}`), codec.EncodeOptions{})
	if err != nil {
		f.Fatal(err)
	}
	hsRsp, err := codec.Encode(nil, []byte(`{"direction":"response","apiKey":17,"apiVersion":0,"header":{"correlationId":1},"body":{"errorCode":0,"mechanisms":[]}}`), codec.EncodeOptions{})
	if err != nil {
		f.Fatal(err)
	}
	limits := Limits{MaxNodes: hostile.FuzzMaxNodes, MaxDecompressed: hostile.FuzzMaxDecompressed}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		mech := mechanisms[int(b[0])%len(mechanisms)]
		req := binary.BigEndian.AppendUint32(nil, uint32(len(hsReq)-4+len(mech)-len("PLAIN")))
		req = append(append(append(req, hsReq[4:len(hsReq)-7]...), byte(len(mech)>>8), byte(len(mech))), mech...)
		tokens := splitFrames(b[1:])
		conn := &Conn{ID: 1, FromStart: true}
		c := NewChecker()
		z := Analyzer{Limits: limits}
		var fs []Finding
		got := hostile.Allocated(func() {
			fs = append(fs, c.Add(z.Analyze(&Exchange{Conn: conn, Request: req, Response: hsRsp}))...)
			for i := 0; i < len(tokens); i += 2 {
				// (A time, for a bearer token's expiry.)
				x := Exchange{Conn: conn, SASLToken: true, Request: tokens[i], RequestTime: time.Unix(1714564800, 0)}
				if i+1 < len(tokens) {
					x.Response = tokens[i+1]
				}
				fs = append(fs, c.Add(z.Analyze(&x))...)
			}
			fs = append(fs, c.End()...)
		})
		if bound := decodesPerFrame * hostile.FuzzAllocBound(len(b)+len(req)+len(hsRsp)); got > bound {
			t.Fatalf("checking %d bytes (%d tokens) allocated %s; the bound is %s", len(b), len(tokens), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
		for i := range fs {
			if fs[i].Rule == nil || fs[i].What == "" {
				t.Fatalf("a finding without its rule or words: %+v", fs[i])
			}
			fs[i].AppendJSON(fs[i].AppendText(nil))
		}
	})
}
