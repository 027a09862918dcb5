package check

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"encoding/hex"

	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/hostile"
)

// decodesPerFrame is how many times checking may decode one frame: as a
// request and as the response it may be (pairing a file), for acks=0, the
// reading itself, an ApiVersions answer at v0, the other header version.
const decodesPerFrame = 8

// FuzzCheck: the check entry point on any bytes, cut into frames by their
// size prefixes and read as one connection's conversation, never panics,
// finds within the limits, and allocates within a bound proportional to
// the input (hostile.FuzzAllocBound per decoding). Seeded with every
// rule's examples.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(examplesDir, "*.hex"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var all []byte
		for _, l := range strings.Fields(string(b)) {
			fr, err := hex.DecodeString(l)
			if err != nil {
				f.Fatal(err)
			}
			all = append(all, fr...)
		}
		f.Add(all)
	}
	limits := Limits{MaxNodes: hostile.FuzzMaxNodes, MaxDecompressed: hostile.FuzzMaxDecompressed}
	f.Fuzz(func(t *testing.T, b []byte) {
		frames := splitFrames(b)
		var fs []Finding
		got := hostile.Allocated(func() { fs = CheckLimits(FromFramesLimits(frames, limits), limits) })
		runtime.KeepAlive(fs)
		if bound := decodesPerFrame * hostile.FuzzAllocBound(len(b)); got > bound {
			t.Fatalf("checking %d bytes (%d frames) allocated %s; the bound is %s", len(b), len(frames), hostile.MiB(int64(got)), hostile.MiB(int64(bound)))
		}
		for i := range fs {
			if fs[i].Rule == nil || fs[i].What == "" {
				t.Fatalf("a finding without its rule or words: %+v", fs[i])
			}
			fs[i].AppendJSON(fs[i].AppendText(nil))
		}
	})
}

// splitFrames cuts b into frames by their size prefixes, the bytes after
// the last whole one (if any) a frame of their own.
func splitFrames(b []byte) [][]byte {
	var frames [][]byte
	for rest := b; len(rest) > 0; {
		fr, r, ok := wire.SplitFrame(rest, len(b))
		if !ok {
			return append(frames, rest)
		}
		frames = append(frames, fr)
		rest = r
	}
	return frames
}
