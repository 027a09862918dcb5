package wire_test

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/hostile"
)

// The hostile corpus's frames read off a stream with ReadFrame, as a
// broker built on the library reads its clients, with Kafka's default
// limit (socket.request.max.bytes, 100 MiB): what reading costs follows
// the bytes the stream holds, never the sizes its frames declare.
func TestHostileReadFrame(t *testing.T) {
	for _, e := range hostile.Frames() {
		b, err := hostile.Load(e)
		require.NoError(t, err, e.Name)
		var a, z runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&a)
		r := bytes.NewReader(b)
		var buf []byte
		frames := 0
		for {
			f, err := wire.ReadFrame(r, buf, 100<<20)
			if err != nil {
				if err != io.EOF && err != io.ErrUnexpectedEOF {
					var we *wire.Error
					require.ErrorAs(t, err, &we, e.Name)
				}
				break
			}
			frames++
			buf = f
		}
		runtime.ReadMemStats(&z)
		got := z.TotalAlloc - a.TotalAlloc
		require.Less(t, got, uint64(4*len(b)+256<<10), "%s: %d bytes in %d frames cost %d bytes", e.Name, len(b), frames, got)
	}
}
