package traffic

import (
	"bytes"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/capture"
	"github.com/stretchr/testify/require"
)

// TestMixDecodes: every frame of the mix decodes cleanly as the API and
// version it claims, records included, and re-encodes to its bytes.
func TestMixDecodes(t *testing.T) {
	for _, p := range Mix() {
		for _, f := range []Frame{p.Request, p.Response} {
			fr, err := codec.Decode(f.Bytes, codec.Options{Response: f.Response, APIKey: f.Key, Version: f.Version})
			require.NoError(t, err, "key %d v%d response %v", f.Key, f.Version, f.Response)
			require.Equal(t, f.Key, fr.APIKey)
			require.Equal(t, f.Version, fr.Version)
			js := fr.AppendJSON(nil)
			require.Contains(t, string(js), `"body"`)
			back, err := codec.Encode(nil, js, codec.EncodeOptions{})
			require.NoError(t, err)
			require.Equal(t, f.Bytes, back)
		}
	}
}

// TestPcapPairs: the capture reads back as exactly the exchanges written,
// every one paired.
func TestPcapPairs(t *testing.T) {
	var buf bytes.Buffer
	st, err := WritePcap(&buf, PcapOptions{Pairs: 300, Conns: 7, InFlight: 5})
	require.NoError(t, err)
	require.Equal(t, 600, st.Frames)
	r, err := capture.Read(bytes.NewReader(buf.Bytes()), capture.Options{})
	require.NoError(t, err)
	require.Empty(t, r.Notes)
	require.Equal(t, 7, r.Connections)
	require.Len(t, r.Exchanges, 300)
	var n int64
	for _, x := range r.Exchanges {
		require.True(t, x.Paired())
		n += int64(len(x.Request.Bytes) + len(x.Response.Bytes))
	}
	require.Equal(t, st.Bytes, n)
	var again bytes.Buffer
	_, err = WritePcap(&again, PcapOptions{Pairs: 300, Conns: 7, InFlight: 5})
	require.NoError(t, err)
	require.Equal(t, buf.Bytes(), again.Bytes(), "deterministic")
}
