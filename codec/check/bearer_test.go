package check

import (
	"encoding/base64"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
)

// TestBearerExpiry: frame.sasl reads an OAUTHBEARER JWT's exp claim as
// Kafka's validators do: a token without one is refused whenever it is
// sent; one that expired more than the 30 s of clock skew Kafka allows
// before the request's time (a capture's or the proxy's clock) is refused
// then, and the finding says when it expired, at the claims' byte and
// path; without a time (frames from a file) nothing is said of expiry.
func TestBearerExpiry(t *testing.T) {
	sent := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	login := func(claims string, at time.Time) []Finding { return bearerFindings(t, claims, at) }
	exp := func(d time.Duration) string { return strconv.FormatInt(sent.Add(d).Unix(), 10) }

	fs := login(`{"sub":"alice","iat":1714557600,"exp":`+exp(-time.Hour)+`}`, sent)
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, Where{Conn: 1, Side: Request, Packet: 3, Correlation: 2, HasCorr: true, HasOffset: true, Offset: fs[0].Where.Offset, Path: "body.authBytes.jwtClaims"}, fs[0].Where)
	require.Positive(t, fs[0].Where.Offset)
	require.Equal(t, "OAUTHBEARER's JWT expired at 2024-05-01T11:00:00Z, 1h0m0s before it was sent (by the capture's or the proxy's clock): Kafka's broker refuses it, allowing 30s of clock skew by default", fs[0].What)
	require.Equal(t, "exp after 2024-05-01T11:59:30Z", fs[0].Expected)
	require.Equal(t, exp(-time.Hour)+" (2024-05-01T11:00:00Z)", fs[0].Found)

	iat := `"iat":1714550400,` // 2024-05-01T10:00:00Z, two hours before it was sent
	require.Empty(t, login(`{"sub":"alice",`+iat+`"exp":`+exp(-10*time.Second)+`}`, sent), "inside the clock skew")
	require.Empty(t, login(`{"sub":"alice",`+iat+`"exp":`+exp(time.Hour)+`}`, sent))
	require.Empty(t, login(`{"sub":"alice",`+iat+`"exp":`+exp(-time.Hour)+`.5}`, time.Time{}), "no time, no expiry judged")
	require.Len(t, login(`{"sub":"alice",`+iat+`"exp":`+exp(-time.Hour)+`.5}`, sent), 1, "a NumericDate may have a fraction")

	fs = login(`{"sub":"alice",`+iat[:len(iat)-1]+`}`, time.Time{})
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, "an exp claim", fs[0].Expected)
	require.Equal(t, "none", fs[0].Found)

	for _, bad := range []struct{ exp, found string }{
		{"1e300", "1e300"},
		{`{"at":1}`, "an object"},
		{`"1714561200"`, `"1714561200"`}, // a NumericDate is a number, not a string
	} {
		fs = login(`{"sub":"alice",`+iat+`"exp":`+bad.exp+`}`, sent)
		require.Len(t, fs, 1, "%v", fs)
		require.Equal(t, "OAUTHBEARER's JWT has an exp claim that is no time: Kafka's broker refuses it", fs[0].What)
		require.Equal(t, bad.found, fs[0].Found)
	}
}

// TestBearerClaims: the claims besides exp that Kafka's validators judge
// (sub, iat, nbf) are judged as they do, each finding at the claims.
func TestBearerClaims(t *testing.T) {
	sent := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return strconv.FormatInt(sent.Add(d).Unix(), 10) }
	good := func(except string, more string) string {
		claims := map[string]string{"sub": `"alice"`, "iat": at(-time.Hour), "exp": at(time.Hour)}
		delete(claims, except)
		s := "{" + more
		for _, k := range []string{"sub", "iat", "exp"} {
			if v, ok := claims[k]; ok {
				if len(s) > 1 {
					s += ","
				}
				s += `"` + k + `":` + v
			}
		}
		return s + "}"
	}
	require.Empty(t, bearerFindings(t, good("", ""), sent))
	require.Empty(t, bearerFindings(t, good("", `"nbf":`+at(-time.Hour)), sent))
	require.Empty(t, bearerFindings(t, good("", `"nbf":`+at(20*time.Second)), sent), "inside the clock skew")
	require.Empty(t, bearerFindings(t, good("iat", `"iat":`+at(20*time.Second)), sent), "inside the clock skew")

	cases := []struct {
		name, claims     string
		what             string
		expected, found  string
		withoutTimeAlone bool // found also when the exchange has no time
	}{
		{"no sub", good("sub", ""),
			"OAUTHBEARER's JWT names no subject: Kafka's broker takes the principal from its sub claim (sasl.oauthbearer.sub.claim.name, by default) and refuses a token without one",
			"sub, a string that is not blank", "none", true},
		{"blank sub", good("sub", `"sub":" "`), "", "sub, a string that is not blank", `" "`, true},
		{"sub a number", good("sub", `"sub":7`), "", "sub, a string that is not blank", "7", true},
		{"no iat", good("iat", ""),
			"OAUTHBEARER's JWT has no iat claim: Kafka's broker refuses it with the validator that checks signatures (BrokerJwtValidator requires when a token was issued; the unsecured one does not)",
			"an iat claim", "none", true},
		{"iat no time", good("iat", `"iat":true`), "OAUTHBEARER's JWT has an iat claim that is no time: Kafka's broker refuses it", "iat as seconds since 1970", "true", true},
		{"exp before iat", `{"sub":"alice","iat":` + at(20*time.Second) + `,"exp":` + at(10*time.Second) + `}`,
			"OAUTHBEARER's JWT expires at 2024-05-01T12:00:10Z, not after it was issued at 2024-05-01T12:00:20Z: Kafka's unsecured validator refuses it",
			"exp after iat", "exp 2024-05-01T12:00:10Z, iat 2024-05-01T12:00:20Z", true},
		{"issued in the future", good("iat", `"iat":`+at(10*time.Minute)),
			"OAUTHBEARER's JWT was issued at 2024-05-01T12:10:00Z, 10m0s after it was sent (by the capture's or the proxy's clock): Kafka's unsecured validator refuses a token issued in the future",
			"iat before 2024-05-01T12:00:30Z", at(10*time.Minute) + " (2024-05-01T12:10:00Z)", false},
		{"not yet valid", good("", `"nbf":`+at(5*time.Minute)),
			"OAUTHBEARER's JWT is not valid before 2024-05-01T12:05:00Z, 5m0s after it was sent (by the capture's or the proxy's clock): Kafka's broker refuses a token not yet valid, allowing 30s of clock skew by default",
			"nbf before 2024-05-01T12:00:30Z", at(5*time.Minute) + " (2024-05-01T12:05:00Z)", false},
		{"nbf no time", good("", `"nbf":"soon"`), "OAUTHBEARER's JWT has a nbf claim that is no time: Kafka's broker refuses it", "nbf as seconds since 1970", `"soon"`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := bearerFindings(t, c.claims, sent)
			require.Len(t, fs, 1, "%s: %v", c.claims, fs)
			if c.what != "" {
				require.Equal(t, c.what, fs[0].What)
			}
			require.Equal(t, c.expected, fs[0].Expected)
			require.Equal(t, c.found, fs[0].Found)
			require.Equal(t, "body.authBytes.jwtClaims", fs[0].Where.Path)
			if c.withoutTimeAlone {
				require.Len(t, bearerFindings(t, c.claims, time.Time{}), 1)
			} else {
				require.Empty(t, bearerFindings(t, c.claims, time.Time{}), "no time, no time judged")
			}
		})
	}
}

// bearerFindings is the frame.sasl findings of an OAUTHBEARER login whose
// JWT holds claims, its SaslAuthenticate sent at at (zero: no time).
func bearerFindings(t *testing.T, claims string, at time.Time) []Finding {
	b64 := base64.RawURLEncoding.EncodeToString
	jwt := b64([]byte(`{"alg":"RS256","kid":"k1"}`)) + "." + b64([]byte(claims)) + "." + b64([]byte("signature"))
	msg := "n,,\x01auth=Bearer " + jwt + "\x01\x01"
	enc := func(js string) []byte {
		b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
		require.NoError(t, err, js)
		return b
	}
	conn := &Conn{ID: 1, FromStart: true}
	var z Analyzer
	c := NewChecker()
	var out []Finding
	for _, x := range []Exchange{
		{Conn: conn, RequestPacket: 1, ResponsePacket: 2, RequestTime: at,
			Request:  enc(`{"direction":"request","apiKey":17,"apiVersion":1,"header":{"correlationId":1,"clientId":"c"},"body":{"mechanism":"OAUTHBEARER"}}`),
			Response: enc(`{"direction":"response","apiKey":17,"apiVersion":1,"header":{"correlationId":1},"body":{"errorCode":0,"mechanisms":["OAUTHBEARER"]}}`)},
		{Conn: conn, RequestPacket: 3, ResponsePacket: 4, RequestTime: at,
			Request:  enc(`{"direction":"request","apiKey":36,"apiVersion":2,"header":{"correlationId":2,"clientId":"c"},"body":{"authBytes":"` + base64.StdEncoding.EncodeToString([]byte(msg)) + `"}}`),
			Response: enc(`{"direction":"response","apiKey":36,"apiVersion":2,"header":{"correlationId":2},"body":{"errorCode":58,"errorMessage":"invalid token","authBytes":"","sessionLifetimeMs":0}}`)},
	} {
		out = append(out, c.Add(z.Analyze(&x))...)
	}
	var judged []Finding
	for _, f := range append(out, c.End()...) {
		if !f.Skipped && f.Rule == FrameSASL {
			judged = append(judged, f)
		}
	}
	return judged
}
