package codec

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestApiVersionsUnsupportedReadAtV0: a broker answers an ApiVersions
// request of a version it does not know with UNSUPPORTED_VERSION in the v0
// layout (KIP-511), and Kafka's client reads it so. Read as the response
// to a v5 request, the frame is that v0 reading, clean, in the tree and
// both JSON writers alike; a real v3 answer stays v3; bytes that read at
// neither stay the v5 reading, with its error.
func TestApiVersionsUnsupportedReadAtV0(t *testing.T) {
	v0 := kmsg.NewApiVersionsResponse()
	v0.SetVersion(0)
	v0.ErrorCode = 35 // UNSUPPORTED_VERSION
	for _, k := range []int16{0, 1, 3, 18} {
		v0.ApiKeys = append(v0.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: k, MinVersion: 0, MaxVersion: 4})
	}
	frame := func(r kmsg.Response) []byte {
		body := r.AppendTo(nil)
		b := []byte{0, 0, 0, 0, 0, 0, 0, 7} // size, correlation id 7 (a v0 response header)
		b = append(b, body...)
		b[3] = byte(len(b) - 4)
		return b
	}
	b := frame(&v0)
	o := Options{Response: true, APIKey: 18, Version: 5}

	var dec Decoder
	f, err := dec.Decode(b, o)
	require.NoError(t, err)
	require.Empty(t, f.Warnings)
	require.Equal(t, int16(0), f.Version)
	require.Equal(t, int32(7), f.CorrelationID)
	tree := string(f.AppendJSON(nil))
	require.Contains(t, tree, `"apiVersion":0,"header":{"correlationId":7},"body":{"errorCode":35,"apiKeys":[{"apiKey":0,"minVersion":0,"maxVersion":4},`)

	js, jf, err := dec.AppendJSON([]byte("x"), b, o)
	require.NoError(t, err)
	require.Equal(t, "x"+tree, string(js), "the JSON writer reads it as the tree does")
	require.Equal(t, int16(0), jf.Version)
	var out bytes.Buffer
	_, err = dec.WriteJSON(&out, b, o)
	require.NoError(t, err)
	require.Equal(t, tree, out.String())

	v3 := kmsg.NewApiVersionsResponse()
	v3.SetVersion(3)
	v3.ApiKeys = v0.ApiKeys
	f, err = dec.Decode(frame(&v3), Options{Response: true, APIKey: 18, Version: 3})
	require.NoError(t, err)
	require.Equal(t, int16(3), f.Version, "a clean reading at the request's version is kept")

	// A v0 answer cut short reads at neither: the v5 reading and its
	// error are what is said, in both writers.
	cut := append([]byte(nil), b[:len(b)-3]...)
	cut[3] = byte(len(cut) - 4)
	f, err = dec.Decode(cut, o)
	require.Error(t, err)
	require.Equal(t, int16(5), f.Version)
	msg := err.Error()
	tree = string(f.AppendJSON(nil))
	js, jf, err = dec.AppendJSON(nil, cut, o)
	require.Error(t, err)
	require.Equal(t, msg, err.Error())
	require.Equal(t, int16(5), jf.Version)
	require.Equal(t, tree, string(js))
}
