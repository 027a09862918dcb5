package main

import (
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kwire check - says a broken rule while the capture it reads still runs,
// whether the capture comes as a pcapng (dumpcap -w -, as tcpdump -U -w -)
// or as text (tcpdump -l -X): a client asks a kfake broker for a Produce
// with acks 5, which the broker refuses, and the finding (frame.enum, on
// body.acks) must come out before the capture stops. Its lines were held
// in a 1 MiB buffer until the input ended. Bounded: one exchange, 30 s.
func TestCheckLive(t *testing.T) {
	for _, form := range []string{"pcapng", "text"} {
		t.Run(form, func(t *testing.T) {
			port := freePort(t)
			kw, stdin, lines, stderr := startPiped(t, "check", "--fail-on", "none", "--format", "ndjson", "--port", strconv.Itoa(port), "-")

			var stop func()
			if form == "text" {
				stop = startTcpdumpText(t, needTool(t, "tcpdump"), port, stdin)
			} else {
				stop = startDumpcap(t, port, stdin).stop
			}
			cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port))
			require.NoError(t, err)
			defer cluster.Close()

			conn, err := net.Dial("tcp", cluster.ListenAddrs()[0])
			require.NoError(t, err)
			defer conn.Close()
			require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
			req := kmsg.NewPtrProduceRequest()
			req.Version, req.Acks, req.TimeoutMillis = 7, 5, 1000
			frame := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kwire-live")).AppendRequest(nil, req, 1)
			_, err = conn.Write(frame)
			require.NoError(t, err)
			var size [4]byte
			_, err = io.ReadFull(conn, size[:])
			require.NoError(t, err)
			_, err = io.ReadFull(conn, make([]byte, binary.BigEndian.Uint32(size[:])))
			require.NoError(t, err, "kfake's answer")

			timeout := time.After(30 * time.Second)
			for found := false; !found; {
				select {
				case l, ok := <-lines:
					require.True(t, ok, "kwire ended before the finding; stderr: %s", stderr.String())
					found = strings.Contains(l, `"rule":"frame.enum"`) && strings.Contains(l, "body.acks")
				case <-timeout:
					t.Fatalf("no frame.enum finding from kwire check - within 30 s, the capture running; stderr: %s", stderr.String())
				}
			}
			stop()
			for range lines {
			}
			require.NoError(t, kw.Wait(), stderr.String())
		})
	}
}
