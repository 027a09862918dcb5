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
// broker's answer enabling it.
func saslHandshakeV0(corr int32, mechanism string) (req, resp []byte) {
	body := append(binary.BigEndian.AppendUint16(nil, uint16(len(mechanism))), mechanism...)
	resp = append([]byte{0, 0, 0, 0, 0, 1}, body...) // no error, one mechanism
	return kreq(17, 0, corr, "kafka-python", body), kresp(corr, resp)
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
