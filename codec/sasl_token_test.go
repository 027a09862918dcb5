package codec

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/tree"
)

// saslTokens are raw SASL tokens as kafka-python 2.0.2 and a broker
// exchange them after a SaslHandshake v0 (RFC 5802's SCRAM example, RFC
// 4616's PLAIN), each with the JSON its value decodes to.
var saslTokens = []struct {
	name, token, json string
}{
	{"SCRAM client-first", "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL",
		`{"mechanism":"SCRAM","message":"client-first","channelBindingFlag":"n","username":"user","nonce":"fyko+d2lbbFgONRv9qkxdawL"}`},
	{"SCRAM server-first", "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096",
		`{"mechanism":"SCRAM","message":"server-first","nonce":"fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j","salt":"QSXCR+Q6sek8bf92","iterations":4096}`},
	{"SCRAM client-final", "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=",
		`{"mechanism":"SCRAM","message":"client-final","channelBinding":"biws","nonce":"fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j","proof":"v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="}`},
	{"SCRAM server-final", "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=",
		`{"mechanism":"SCRAM","message":"server-final","verifier":"rmF9pqV8S7suAoZWja4dJRkFsKQ="}`},
	{"PLAIN", "\x00alice\x00alice-secret",
		`{"mechanism":"PLAIN","message":"client-initial","authzid":"","username":"alice","password":"alice-secret"}`},
	// PLAIN's answer on success, and a GSSAPI token: bytes.
	{"empty", "", `""`},
	{"GSSAPI", "\x60\x82\x02\x1b\x06\x09\x2a\x86\x48\x86\xf7\x12\x01\x02\x02", `"YIICGwYJKoZIhvcSAQIC"`},
}

// sized is b after its 4-byte big-endian size.
func sized(b []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
}

// A raw SASL token (Options.Data "sasl"), with its size or without
// (NoSizePrefix), decodes to the message its bytes hold, each part a node
// on its bytes, the same through the tree and the JSON walk, and encodes
// back to the same bytes; a token that is no message kwire reads stays
// bytes.
func TestSASLTokenData(t *testing.T) {
	for _, tc := range saslTokens {
		for _, noSize := range []bool{false, true} {
			b := []byte(tc.token)
			if !noSize {
				b = sized(b)
			}
			o := Options{Data: "sasl", NoSizePrefix: noSize}
			f, err := Decode(b, o)
			require.NoError(t, err, tc.name)
			require.Empty(t, f.Warnings, tc.name)
			js := string(f.AppendJSON(nil))
			require.Equal(t, `{"data":"sasl","value":`+tc.json+`}`, js, tc.name)
			bothPaths(t, b, o)
			back, err := Encode(nil, []byte(js), EncodeOptions{NoSizePrefix: noSize})
			require.NoError(t, err, tc.name)
			require.Equal(t, string(b), string(back), "%s: decode, then encode: the same bytes", tc.name)

			// Every byte has its node: the size, then the value, whose
			// parts stand on their bytes.
			require.Equal(t, len(b), f.Root.End)
			at := 0
			if !noSize {
				size := f.Root.Children[0]
				require.Equal(t, tree.RoleSize, size.Role)
				require.Equal(t, [2]int{0, 4}, [2]int{size.Start, size.End})
				require.EqualValues(t, len(tc.token), size.Int)
				at = 4
			}
			require.Equal(t, [2]int{at, len(b)}, [2]int{f.Body.Start, f.Body.End}, tc.name)
			for _, c := range f.Body.Children {
				if c.End > c.Start && c.Name != "iterations" {
					require.Equal(t, string(c.Raw), string(b[c.Start:c.End]), "%s: %s stands on its bytes", tc.name, c.Name)
				}
			}
		}
	}
	user, err := mustDecode(t, sized([]byte(saslTokens[0].token)), Options{Data: "sasl"}).Root.Lookup("value.username")
	require.NoError(t, err)
	require.Equal(t, "user", string(user.Raw))
	require.Equal(t, [2]int{4 + strings.Index(saslTokens[0].token, "user"), 4 + strings.Index(saslTokens[0].token, ",r=")}, [2]int{user.Start, user.End})
}

func mustDecode(t *testing.T, b []byte, o Options) *Frame {
	t.Helper()
	f, err := Decode(b, o)
	require.NoError(t, err)
	return f
}

// A token's size that says more than the bytes is an error at byte 0
// with the partial result; one that says less leaves the rest trailing,
// warned; and a message the node limit has no room for stays bytes, said.
func TestSASLTokenLimits(t *testing.T) {
	tok := []byte(saslTokens[0].token)
	b := sized(tok)
	binary.BigEndian.PutUint32(b, uint32(len(tok)+10))
	f, err := Decode(b, Options{Data: "sasl"})
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 0, de.Offset)
	require.Equal(t, "size", de.Path)
	require.Contains(t, err.Error(), "expected a size of at most 36")
	require.Equal(t, len(b), f.Root.End, "the bytes stay visible")
	bothPaths(t, b, Options{Data: "sasl"})

	binary.BigEndian.PutUint32(b, uint32(len(tok)-4))
	f, err = Decode(b, Options{Data: "sasl"})
	require.NoError(t, err)
	require.Len(t, f.Warnings, 1)
	require.Equal(t, "_trailing", f.Warnings[0].Path)
	bothPaths(t, b, Options{Data: "sasl"})

	o := Options{Data: "sasl", Limits: Limits{MaxNodes: 4}}
	f, err = Decode(sized(tok), o)
	require.NoError(t, err)
	require.Len(t, f.Warnings, 1)
	require.Contains(t, f.Warnings[0].Message, "not decoded as a SASL message: the MaxNodes limit")
	require.Empty(t, f.Body.Children)
	bothPaths(t, sized(tok), o)
}

// Encoding a token refuses what is no message, naming where.
func TestSASLTokenEncodeErrors(t *testing.T) {
	for js, want := range map[string]string{
		`{"data":"sasl","value":"%%%"}`: "value: invalid base64",
		`{"data":"sasl","value":{"mechanism":"SCRAM","message":"client-first","username":"u"}}`:                        "value.channelBindingFlag: missing: a SCRAM client-first message has",
		`{"data":"sasl","value":{"mechanism":"NTLM","message":"x"}}`:                                                   `value.mechanism: expected PLAIN, SCRAM or OAUTHBEARER, found "NTLM"`,
		`{"data":"sasl","value":{"mechanism":"PLAIN","message":"client-initial","username":"u\u0000","password":"p"}}`: "value.username: holds a NUL",
		`{"data":"sasl","value":3}`: "expected base64 text, bytes or a SASL message object, found a number",
	} {
		_, err := Encode(nil, []byte(js), EncodeOptions{})
		require.ErrorContains(t, err, want, js)
	}
}

// FuzzSASLToken: any bytes read as a raw SASL token, with or without
// their size, never panic, read the same through the tree and the JSON
// walk, and, when clean, encode back to themselves.
func FuzzSASLToken(f *testing.F) {
	for _, tc := range saslTokens {
		f.Add(sized([]byte(tc.token)), false)
		f.Add([]byte(tc.token), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, noSize bool) {
		o := Options{Data: "sasl", NoSizePrefix: noSize, Limits: Limits{MaxNodes: 1 << 12}}
		bothPaths(t, b, o)
		fr, err := Decode(b, o)
		if err != nil || len(fr.Warnings) > 0 {
			return
		}
		back, err := Encode(nil, fr.AppendJSON(nil), EncodeOptions{NoSizePrefix: noSize})
		if err != nil {
			t.Fatalf("decoded cleanly but does not encode: %v\n%s", err, fr.AppendJSON(nil))
		}
		if !bytes.Equal(back, b) {
			t.Fatalf("round trip differs\nin  %q\nout %q", b, back)
		}
	})
}

// Found by FuzzSASLToken (testdata/fuzz/FuzzSASLToken/52b2e47791e6e8c6):
// one byte read as a sized token fails at its size, reading no value; the
// tree's JSON had "value":null where the walk's has no value, as a frame
// whose size fails has no body.
func TestRegressionSASLTokenShortOfItsSize(t *testing.T) {
	bothPaths(t, []byte("0"), Options{Data: "sasl"})
	f, err := Decode([]byte("0"), Options{Data: "sasl"})
	require.ErrorContains(t, err, "at byte 0 (size)")
	require.Nil(t, f.Body)
	require.Equal(t, `{"data":"sasl"}`, string(f.AppendJSON(nil)))
}
