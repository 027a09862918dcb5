package check

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// conn.sasl-handshake: a SaslHandshake answer lists the broker's enabled
// mechanisms, the one asked for among them when it is accepted, and at
// least one, not that one, when it is refused with
// UNSUPPORTED_SASL_MECHANISM; each fault is placed at the answer's
// mechanisms. kfake's answer (error code 0, no mechanisms) went unflagged.
func TestSASLHandshakeMechanisms(t *testing.T) {
	hs := req(&kmsg.SASLHandshakeRequest{Mechanism: "PLAIN"}, 1, 1)
	for _, c := range []struct {
		name  string
		code  int16
		mechs []string
		want  string // the finding's line, "" for none
	}{
		{"accepted, none listed (kfake)", 0, nil, "conn.sasl-handshake warning frame 2 correlation 1 response at byte 10 (body.mechanisms): SaslHandshake accepted PLAIN (error code 0) but lists no enabled mechanism: Kafka's broker lists every mechanism it enables, the one accepted among them, expected the enabled mechanisms, PLAIN among them, found []"},
		{"accepted, not listed", 0, []string{"SCRAM-SHA-256"}, "conn.sasl-handshake warning frame 2 correlation 1 response at byte 10 (body.mechanisms): SaslHandshake accepted PLAIN (error code 0) but does not list it among the enabled mechanisms, expected the enabled mechanisms, PLAIN among them, found [SCRAM-SHA-256]"},
		{"accepted, listed", 0, []string{"SCRAM-SHA-256", "PLAIN"}, ""},
		{"refused, none listed", 33, nil, "conn.sasl-handshake warning frame 2 correlation 1 response at byte 10 (body.mechanisms): SaslHandshake refused PLAIN (UNSUPPORTED_SASL_MECHANISM) but lists no enabled mechanism: the client cannot say which to use, expected the enabled mechanisms, found []"},
		{"refused, listed", 33, []string{"PLAIN", "GSSAPI"}, "conn.sasl-handshake warning frame 2 correlation 1 response at byte 10 (body.mechanisms): SaslHandshake refused PLAIN (UNSUPPORTED_SASL_MECHANISM) but lists it among the enabled mechanisms, expected the enabled mechanisms, PLAIN not among them, found [PLAIN, GSSAPI]"},
		{"refused, others listed", 33, []string{"SCRAM-SHA-512"}, ""},
		{"another error, not judged", 34, nil, ""},
	} {
		answer := rsp(&kmsg.SASLHandshakeResponse{ErrorCode: c.code, SupportedMechanisms: c.mechs}, 1, 1)
		var got []string
		for _, f := range Check(FromFrames([][]byte{hs, answer})) {
			if f.Rule == ConnSASLHandshake {
				got = append(got, f.String())
			}
		}
		if c.want == "" {
			require.Empty(t, got, c.name)
		} else {
			require.Equal(t, []string{c.want}, got, c.name)
		}
	}
}
