package codec_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/input"
	"github.com/stretchr/testify/require"
)

// Every frame in the shared testdata reads the same both ways: the
// captures' requests and responses (and the responses guessed), the
// dumps, the CLI's frames. (An external test: internal/capture imports
// codec.)
func TestFastPathTestdata(t *testing.T) {
	n := 0
	shared := filepath.Join("..", "testdata")
	caps, _ := filepath.Glob(filepath.Join(shared, "captures", "*.pcap*"))
	require.NotEmpty(t, caps)
	for _, p := range caps {
		f, err := os.Open(p)
		require.NoError(t, err)
		res, err := capture.Read(f, capture.Options{})
		f.Close()
		require.NoError(t, err, p)
		for _, x := range res.Exchanges {
			if x.Request != nil {
				codec.BothPaths(t, x.Request.Bytes, codec.Options{})
				codec.BothPaths(t, x.Request.Bytes, codec.Options{Auto: true})
				n++
			}
			if x.Response != nil && x.Request != nil {
				codec.BothPaths(t, x.Response.Bytes, codec.Options{Response: true, APIKey: x.APIKey, Version: x.APIVersion})
				codec.BothPaths(t, x.Response.Bytes, codec.Options{Response: true, APIKey: x.APIKey, Version: codec.Any})
				n++
			}
		}
	}
	for _, p := range []string{filepath.Join(shared, "dumps", "frame.bin"), filepath.Join("..", "cmd", "kwire", "testdata", "frame.bin")} {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		codec.BothPaths(t, b, codec.Options{Auto: true})
		n++
	}
	hexes, err := os.ReadFile(filepath.Join("..", "cmd", "kwire", "testdata", "frames.hex"))
	require.NoError(t, err)
	for _, line := range bytes.Split(hexes, []byte("\n")) {
		if b, _, err := input.Parse(line, input.Hex); err == nil && len(b) > 0 {
			codec.BothPaths(t, b, codec.Options{Auto: true})
			n++
		}
	}
	t.Logf("%d frames", n)
}
