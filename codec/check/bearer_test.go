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
	b64 := base64.RawURLEncoding.EncodeToString
	login := func(claims string, at time.Time) []Finding {
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
	exp := func(d time.Duration) string { return strconv.FormatInt(sent.Add(d).Unix(), 10) }

	fs := login(`{"sub":"alice","iat":1714557600,"exp":`+exp(-time.Hour)+`}`, sent)
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, Where{Conn: 1, Side: Request, Packet: 3, Correlation: 2, HasCorr: true, HasOffset: true, Offset: fs[0].Where.Offset, Path: "body.authBytes.jwtClaims"}, fs[0].Where)
	require.Positive(t, fs[0].Where.Offset)
	require.Equal(t, "OAUTHBEARER's JWT expired at 2024-05-01T11:00:00Z, 1h0m0s before it was sent (by the capture's or the proxy's clock): Kafka's broker refuses it, allowing 30s of clock skew by default", fs[0].What)
	require.Equal(t, "exp after 2024-05-01T11:59:30Z", fs[0].Expected)
	require.Equal(t, exp(-time.Hour)+" (2024-05-01T11:00:00Z)", fs[0].Found)

	require.Empty(t, login(`{"sub":"alice","exp":`+exp(-10*time.Second)+`}`, sent), "inside the clock skew")
	require.Empty(t, login(`{"sub":"alice","exp":`+exp(time.Hour)+`}`, sent))
	require.Empty(t, login(`{"sub":"alice","exp":`+exp(-time.Hour)+`.5}`, time.Time{}), "no time, no expiry judged")
	require.Len(t, login(`{"sub":"alice","exp":`+exp(-time.Hour)+`.5}`, sent), 1, "a NumericDate may have a fraction")

	fs = login(`{"sub":"alice"}`, time.Time{})
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, "an exp claim", fs[0].Expected)
	require.Equal(t, "none", fs[0].Found)

	fs = login(`{"sub":"alice","exp":1e300}`, sent)
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, "1e300", fs[0].Found)
	fs = login(`{"sub":"alice","exp":{"at":1}}`, sent)
	require.Len(t, fs, 1, "%v", fs)
	require.Equal(t, "an object", fs[0].Found)
	fs = login(`{"sub":"alice","exp":"1714561200"}`, sent)
	require.Len(t, fs, 1, "a NumericDate is a number, not a string: %v", fs)
	require.Equal(t, `"1714561200"`, fs[0].Found)
}
