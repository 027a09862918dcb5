package capture

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/require"
)

// saslToken is a raw SASL token: its size, then s.
func saslToken(s string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(s))), s...)
}

// saslHandshakeV0 is a SaslHandshake v0 request for mechanism, and the
// broker's answer enabling it; its client id is apiVersionsReq's, as a
// client sends one in every request.
func saslHandshakeV0(corr int32, mechanism string) (req, resp []byte) {
	return saslHandshakeV0From("kwire-test", corr, mechanism)
}

// saslHandshakeV0From is saslHandshakeV0 from a client of client id id.
func saslHandshakeV0From(id string, corr int32, mechanism string) (req, resp []byte) {
	body := append(binary.BigEndian.AppendUint16(nil, uint16(len(mechanism))), mechanism...)
	resp = append([]byte{0, 0, 0, 0, 0, 1}, body...) // no error, one mechanism
	return kreq(17, 0, corr, id, body), kresp(corr, resp)
}

// After a SaslHandshake v0, each raw SASL token of the client and the
// broker's answer to it are an exchange (SASLToken), in both read modes,
// whole or cut into small segments: a client token the broker does not
// answer before the client's next request, or before the connection
// closes, is one alone, and so is a broker's token that answers none. The
// exchanges around them pair as before.
func TestSASLTokens(t *testing.T) {
	type want struct {
		token    bool
		req, rsp string // the tokens ("-" for none); "" for a Kafka frame
		closed   bool
	}
	for _, tc := range []struct {
		name  string
		steps []string // ">x": the client's token x, "<x": the broker's
		want  []want
	}{
		{"SCRAM", []string{">n,,n=u,r=abc", "<r=abcdef,s=QSXC,i=4096", ">c=biws,r=abcdef,p=cHJvb2Y=", "<v=dmVyaWZpZXI="}, []want{
			{token: true, req: "n,,n=u,r=abc", rsp: "r=abcdef,s=QSXC,i=4096"}, {token: true, req: "c=biws,r=abcdef,p=cHJvb2Y=", rsp: "v=dmVyaWZpZXI="}}},
		{"PLAIN", []string{">\x00u\x00p", "<"}, []want{{token: true, req: "\x00u\x00p", rsp: ""}}},
		// The broker closes on a wrong password: no answer, then the
		// client's next request is none either.
		{"unanswered", []string{">\x00u\x00wrong"}, []want{{token: true, req: "\x00u\x00wrong", rsp: "-", closed: true}}},
		{"a broker's token alone", []string{"<unasked"}, []want{{token: true, req: "-", rsp: "unasked"}}},
		{"two client tokens", []string{">one", ">two", "<answer"}, []want{{token: true, req: "one", rsp: "-"}, {token: true, req: "two", rsp: "answer"}}},
	} {
		for _, seg := range []int{1 << 20, 3} {
			b := newTB(t, layers.LinkTypeEthernet)
			v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
			v.handshake()
			hreq, hresp := saslHandshakeV0(1, "SCRAM-SHA-256")
			v.sendAll(v.split(true, hreq, seg))
			v.sendAll(v.split(false, hresp, seg))
			for _, s := range tc.steps {
				v.sendAll(v.split(s[0] == '>', saslToken(s[1:]), seg))
			}
			closes := tc.want[len(tc.want)-1].closed
			if !closes {
				v.sendAll(v.split(true, apiVersionsReq(2), seg))
				v.sendAll(v.split(false, apiVersionsResp(2), seg))
			}
			v.fin()
			data := b.pcap()
			var streamed []*Exchange
			_, err := ReadFunc(bytes.NewReader(data), Options{}, func(x *Exchange) { streamed = append(streamed, x) })
			require.NoError(t, err)
			r, err := Read(bytes.NewReader(data), Options{})
			require.NoError(t, err)
			require.Empty(t, r.Notes, "%s: nothing to say", tc.name)
			for mode, xs := range map[string][]*Exchange{"Read": r.Exchanges, "ReadFunc": streamed} {
				var got []want
				for _, x := range xs {
					if !x.SASLToken {
						require.True(t, x.Paired(), "%s %s: the frames around the tokens pair", tc.name, mode)
						continue
					}
					require.Equal(t, [3]int{-1, -1, -1}, [3]int{int(x.APIKey), int(x.APIVersion), int(x.CorrelationID)})
					w := want{token: true, req: "-", rsp: "-", closed: x.ConnClosed}
					if x.Request != nil {
						require.True(t, x.Request.SASLToken && x.Request.FromClient)
						w.req = string(x.Request.Bytes[4:])
					}
					if x.Response != nil {
						require.True(t, x.Response.SASLToken && !x.Response.FromClient)
						w.rsp = string(x.Response.Bytes[4:])
					}
					got = append(got, w)
				}
				require.Equal(t, tc.want, got, "%s %s, segments of %d", tc.name, mode, seg)
				require.Len(t, xs, len(tc.want)+map[bool]int{true: 1, false: 2}[closes], "%s %s: the handshake, the tokens and ApiVersions", tc.name, mode)
			}
		}
	}
}

// TestSASLTokenLikeRequest: a raw SASL token whose bytes read as a
// request header (a plausible API and version, a correlation id, a
// printable client id within it) is a token all the same when its
// client id is not the one the client sent in its SaslHandshake: the
// tokens go on, and the client's request after them, which carries it,
// ends them. Whole or cut into segments of 3 bytes (the first 14 bytes
// were judged alone). Where the handshake carried no client id (a Java
// client's authenticator sends client.id as configured, empty by
// default), a request with a client id of its own ends them, numbered
// far past the handshake, and a token that reads as one does too only
// when it is whole, at a version within the margin, and no SASL API.
func TestSASLTokenLikeRequest(t *testing.T) {
	// Metadata v1, correlation id 77, client id "evil", then binary
	// bytes: a mechanism's token (a custom one's, or any) that reads so
	like := kreq(3, 1, 77, "evil", []byte{0x8f, 0x01, 0xfe, 0x00, 0x42})[4:]
	read := func(t *testing.T, hid string, corr int32, seg int) (tokens [][2]string, paired []int32, notes []Note) {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.handshake()
		hreq, hresp := saslHandshakeV0From(hid, 1, "CUSTOM")
		v.sendAll(v.split(true, hreq, seg))
		v.sendAll(v.split(false, hresp, seg))
		v.sendAll(v.split(true, saslToken(string(like)), seg))
		v.sendAll(v.split(false, saslToken("go on"), seg))
		v.sendAll(v.split(true, saslToken("last"), seg))
		v.sendAll(v.split(false, saslToken(""), seg))
		v.sendAll(v.split(true, kreq(18, 3, corr, "producer-1", apiVersionsReq(0)[24:]), seg))
		v.sendAll(v.split(false, apiVersionsResp(corr), seg))
		v.fin()
		r := requireAgree(t, b.pcap(), Options{})
		for _, x := range r.Exchanges {
			switch {
			case !x.Paired():
			case x.SASLToken:
				tokens = append(tokens, [2]string{string(x.Request.Bytes[4:]), string(x.Response.Bytes[4:])})
			default:
				paired = append(paired, x.CorrelationID)
			}
		}
		return tokens, paired, r.Notes
	}
	for _, seg := range []int{1 << 20, 3} {
		// the handshake named the client: the token's client id is not it
		tokens, paired, notes := read(t, "producer-1", 2, seg)
		require.Equal(t, [][2]string{{string(like), "go on"}, {"last", ""}}, tokens, "segments of %d: %v", seg, notes)
		require.Equal(t, []int32{1, 2}, paired)
		require.Empty(t, notes)
		// the handshake named none: the request after the tokens, far
		// past it, ends them; a whole token that reads as a request
		// past the margin, or as SaslAuthenticate, does not
		for _, tc := range []struct {
			key, ver int16
			token    bool
		}{{36, 1, true}, {3, 99, true}, {3, 1, false}} {
			like = kreq(tc.key, tc.ver, 77, "evil", []byte{0x8f, 0x01, 0xfe, 0x00, 0x42})[4:]
			tokens, paired, _ = read(t, "", 5000, seg)
			if tc.token {
				require.Equal(t, [][2]string{{string(like), "go on"}, {"last", ""}}, tokens, "segments of %d: %+v", seg, tc)
				require.Equal(t, []int32{1, 5000}, paired)
			} else {
				require.Empty(t, tokens, "whole, it reads as a request: %+v", tc)
			}
		}
		like = kreq(3, 1, 77, "evil", []byte{0x8f, 0x01, 0xfe, 0x00, 0x42})[4:]
	}
}
