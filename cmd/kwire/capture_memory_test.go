package main

import (
	"bufio"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/stretchr/testify/require"
)

// heldFramesCapture writes a gzipped pcap of conns connections to port
// 9092, each from its SYN a Produce request header declaring a frame of
// 99,000,000 bytes, then sent bytes of zeros in 60 KB segments, and
// neither the frame's end nor a FIN: about 1,000 times its size in
// memory, when every frame being gathered was held whole, at 4 times its
// bytes.
func heldFramesCapture(t *testing.T, conns, sent int) string {
	p := filepath.Join(t.TempDir(), "held.pcap.gz")
	f, err := os.Create(p)
	require.NoError(t, err)
	z, err := gzip.NewWriterLevel(f, gzip.BestSpeed)
	require.NoError(t, err)
	w := bufio.NewWriterSize(z, 1<<20)
	hdr := []uint32{0xa1b2c3d4, 0x00040002, 0, 0, 262144, 1}
	for _, v := range hdr {
		binary.Write(w, binary.LittleEndian, v)
	}
	packet := func(port uint16, seq uint32, flags byte, payload []byte) {
		b := []byte{2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00}
		ip := []byte{0x45, 0, 0, 0, 0, 1, 0x40, 0, 64, 6, 0, 0, 127, 0, 0, 1, 127, 0, 0, 2}
		binary.BigEndian.PutUint16(ip[2:], uint16(40+len(payload)))
		tcp := binary.BigEndian.AppendUint16(nil, port)
		tcp = binary.BigEndian.AppendUint16(tcp, 9092)
		tcp = binary.BigEndian.AppendUint32(tcp, seq)
		tcp = binary.BigEndian.AppendUint32(tcp, 1)
		tcp = append(tcp, 5<<4, flags, 0xff, 0xff, 0, 0, 0, 0)
		b = append(append(b, ip...), tcp...)
		rec := binary.LittleEndian.AppendUint32(nil, 1700000000)
		rec = binary.LittleEndian.AppendUint32(rec, 0)
		rec = binary.LittleEndian.AppendUint32(rec, uint32(len(b)+len(payload)))
		rec = binary.LittleEndian.AppendUint32(rec, uint32(len(b)+len(payload)))
		w.Write(rec)
		w.Write(b)
		w.Write(payload)
	}
	zeros := make([]byte, 60000)
	for c := range conns {
		port := uint16(20000 + c)
		packet(port, 999, 0x02, nil) // SYN
		head := binary.BigEndian.AppendUint32(nil, 99_000_000)
		head = append(head, 0, 0, 0, 3, 0, 0, 0, byte(c), 0, 5, 'k', 'w', 'i', 'r', 'e')
		packet(port, 1000, 0x18, head)
		seq := 1000 + uint32(len(head))
		for left := sent; left > 0; left -= len(zeros) {
			n := min(left, len(zeros))
			packet(port, seq, 0x18, zeros[:n])
			seq += uint32(n)
		}
	}
	require.NoError(t, w.Flush())
	require.NoError(t, z.Close())
	require.NoError(t, f.Close())
	return p
}

// rssRun runs kwire with args through the maxrss helper (see decodeRSS),
// its output thrown away, and returns its peak resident memory in bytes,
// its exit code and its standard error.
func rssRun(t *testing.T, args ...string) (int64, int, string) {
	t.Helper()
	cmd := exec.Command(maxrssHelper(t), append([]string{kwireBin}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	s := strings.TrimSpace(stderr.String())
	i := strings.LastIndex(s, "\n")
	kib, err := strconv.ParseInt(strings.TrimPrefix(s[i+1:], "maxrss "), 10, 64)
	require.NoError(t, err, s)
	return kib << 10, code, s[:max(i, 0)]
}

// TestHeldFramesMemory: kwire pcap and kwire check hold the frames being
// gathered over all connections to 256 MiB (capture.Options.MaxBuffered),
// at about their size: three connections each gathering 95 MB of a frame
// that never ends take some 280 MiB, one frame skipped and said (they
// took 1.2 GB: the probe's 20 such connections, a 3 MB gzip capture, 3.2
// GB).
func TestHeldFramesMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 285 MB of a capture")
	}
	p := heldFramesCapture(t, 3, 95_000_000)
	for _, cmd := range []string{"pcap", "check"} {
		rss, code, stderr := rssRun(t, cmd, p)
		t.Logf("kwire %s: peak RSS %d MiB, exit %d", cmd, rss>>20, code)
		require.LessOrEqual(t, code, 1, stderr)
		require.LessOrEqual(t, rss, int64(256<<20+96<<20), stderr)
		require.Contains(t, stderr, "conn 3 127.0.0.1:20002->127.0.0.2:9092: a frame skipped, not held, at stream offset 0 of the client stream: what all connections held for frames not yet whole passed 256 MiB; its ")
		if cmd == "check" {
			require.Regexp(t, `a frame skipped, not held, .* the rest streamed past, not checked`, stderr)
		}
	}
}
