package proxy

import (
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/kwire/kwire/codec/wire"
	"github.com/stretchr/testify/require"
)

// A peer that declares a large frame and then stalls costs the proxy what
// it sent, not what it declared: the sink's copies of a request and of a
// response grow with the bytes relayed. Both sides are tried: a client
// whose Produce request declares 48 MiB and sends 20 bytes of it, and a
// broker whose ListGroups answer declares 48 MiB and sends 8.
func TestDeclaredSizeCostsWhatWasSent(t *testing.T) {
	const declared = 48 << 20
	broker := acceptEach(t, func(c net.Conn) {
		defer c.Close()
		f, err := wire.ReadFrame(c, nil, 1<<20)
		if err != nil {
			return
		}
		// The answer's size, its correlation id, 4 bytes more; then nothing.
		resp := binary.BigEndian.AppendUint32(nil, declared)
		resp = append(resp, f[8:12]...)
		c.Write(append(resp, 0, 0, 0, 0))
		time.Sleep(10 * time.Second)
	})
	col := &collector{}
	p := startProxy(t, Config{Upstream: broker, Sink: col.sink})
	addr := p.Listeners()[0].Addr.String()

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	// The client's request: a size of 48 MiB, Produce v9's key and version,
	// a correlation id, then a little of a header.
	up, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer up.Close()
	req := binary.BigEndian.AppendUint32(nil, declared)
	req = append(req, 0, 0, 0, 9, 0, 0, 0, 1, 0, 3, 'c', 'l', 'i', 0, 0, 0, 0, 0, 0, 0)
	_, err = up.Write(req)
	require.NoError(t, err)

	// A ListGroups v0 request, answered with a size of 48 MiB (relayed as
	// it comes: ListGroups names no broker, so nothing is held to rewrite).
	down, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer down.Close()
	_, err = down.Write([]byte{0, 0, 0, 10, 0, 16, 0, 0, 0, 0, 0, 7, 0xff, 0xff})
	require.NoError(t, err)
	down.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, 12)
	_, err = io.ReadFull(down, got)
	require.NoError(t, err)

	require.Eventually(t, func() bool { return p.Stats().BytesUp >= int64(len(req))+14 }, 5*time.Second, 5*time.Millisecond)
	runtime.ReadMemStats(&after)
	t.Logf("allocated %d bytes while the two frames were relayed", after.TotalAlloc-before.TotalAlloc)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20),
		"a request and a response declaring %d bytes each, of which 20 and 8 came", declared)
}
