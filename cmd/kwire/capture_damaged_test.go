package main

import (
	"encoding/binary"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// snapPcap cuts every packet of the classic pcap file at snap bytes, as
// a capture with that snap length holds them (editcap -s), and returns
// the file.
func snapPcap(t *testing.T, file string, snap int) string {
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	le := binary.LittleEndian
	out := append([]byte(nil), b[:24]...)
	for p := 24; p+16 <= len(b); {
		incl := int(le.Uint32(b[p+8:]))
		hdr := append([]byte(nil), b[p:p+16]...)
		keep := min(incl, snap)
		le.PutUint32(hdr[8:], uint32(keep))
		out = append(append(out, hdr...), b[p+16:p+16+keep]...)
		p += 16 + incl
	}
	require.NoError(t, os.WriteFile(file, out, 0o644))
	return file
}

// TestCheckSnapLengthSaysCutFramesNotJudged: in a capture with a snap
// length (editcap -s 100), the capture keeps a request cut short whose
// header was captured (capture.Options.KeepDamaged), and kwire check
// judges nothing on its bytes, which end early (no frame.decode error),
// nor its answer as a pair: it says once that such frames were not
// judged, and finds nothing.
func TestCheckSnapLengthSaysCutFramesNotJudged(t *testing.T) {
	file := snapPcap(t, connPcap(t, true, nil,
		segment{true, 0, exampleFrame(t, "Heartbeat", 3, false, 7)},
		segment{false, time.Millisecond, exampleFrame(t, "Heartbeat", 3, true, 7)},
		segment{true, 2 * time.Millisecond, exampleFrame(t, "Heartbeat", 3, false, 8)},
		segment{false, 3 * time.Millisecond, exampleFrame(t, "Heartbeat", 3, true, 8)}), 100)
	out, errOut, code := runCLI(t, []string{"check", file}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.Contains(t, errOut, "check: 0 errors, 0 warnings, 0 notes")
	require.NotContains(t, out, "frame.decode error")
	require.Contains(t, out, "frame.decode skipped conn 1 correlation 7 request (packet 4): 2 frames the capture holds only in part (bytes lost, or cut by the snap length, inside them) are not judged, the first here\n")
}
