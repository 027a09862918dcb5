package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/internal/input"
	"github.com/stretchr/testify/require"
)

// packetDumps are whole packets as tcpdump -X, tshark -x and Wireshark
// print them (internal/input/testdata/packets, whose gen.sh says how).
var packetDumps = filepath.Join("..", "..", "internal", "input", "testdata", "packets")

// TestDecodeWholePacket: a whole captured packet decodes as the Kafka
// frame its TCP segment carries, not as if its link, IP and TCP headers
// were Kafka bytes, and standard error says the headers were stripped,
// with the ports; batch reads such a line the same way.
func TestDecodeWholePacket(t *testing.T) {
	for _, c := range []struct{ file, api, note string }{
		{"p8.tcpdump-X", "Metadata", "a whole packet (IPv4, TCP port 47164 to 19092): its 52 bytes of headers are stripped, its TCP payload of 29 bytes decoded"},
		{"p8.wireshark", "Metadata", "a whole packet (Ethernet, IPv4, TCP port 47164 to 19092): its 66 bytes of headers"},
		{"p8.tshark-x", "Metadata", "a whole packet (Ethernet, IPv4, TCP port 47164 to 19092): its 66 bytes of headers"},
		{"sll-4.tshark-x", "ApiVersions", "a whole packet (Linux cooked (SLL), IPv4, TCP port 60358 to 19092): its 68 bytes of headers"},
		{"ipv6-null-4.tshark-x", "ApiVersions", "a whole packet (loopback (null), IPv6, TCP port 51000 to 19092): its 64 bytes of headers"},
		{"kfake-6.tshark-x", "ApiVersions", "a whole packet (Ethernet, IPv4, TCP port 37751 to 36574): its 66 bytes of headers are stripped, its TCP payload of 592 bytes decoded"},
	} {
		path, err := filepath.Abs(filepath.Join(packetDumps, c.file))
		require.NoError(t, err)
		out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", path}, nil)
		require.Equal(t, 0, code, "%s: %s", c.file, errOut)
		require.Contains(t, out, `"apiName":"`+c.api+`"`, c.file)
		require.Contains(t, errOut, "kwire: "+path+": "+c.note, c.file)
		require.NotContains(t, errOut, "warning", c.file)

		// As a line of batch: the packet's bytes in hex.
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		b, _, err := input.Parse(text, input.Auto)
		require.NoError(t, err)
		out, errOut, code = runCLI(t, []string{"batch"}, []byte(hex.EncodeToString(b)+"\n"))
		require.Equal(t, 0, code, "%s: %s", c.file, errOut)
		require.Contains(t, out, `"apiName":"`+c.api+`"`, c.file)
		require.Contains(t, errOut, "kwire: line 1: "+c.note, c.file)
	}
	// A Kafka frame is never taken for a packet.
	_, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
}

// A pcap or pcapng file given to kwire decode or kwire batch, a natural
// first try, is said to be the capture it is, with the commands that read
// it, as a text dump of packets is: it was read as a frame whose size
// (the file's magic) is 1,295,823,521 bytes, or as 22 lines that fail.
func TestDecodeAndBatchSayACaptureIsOne(t *testing.T) {
	pcapng, err := os.ReadFile(filepath.Join(workDir, "kfake-clients.pcapng"))
	require.NoError(t, err)
	for _, c := range []struct {
		args  []string
		stdin []byte
		want  string
	}{
		{[]string{"decode", "kafka.pcap"}, nil, "kwire: kafka.pcap: a pcap capture, not frames: decode reads frames; kwire pcap kafka.pcap decodes the Kafka conversations it holds, and kwire check kafka.pcap applies the protocol rules to them\n"},
		{[]string{"decode"}, pcapng, "kwire: a pcapng capture, not frames: decode reads frames; kwire pcap - decodes the Kafka conversations it holds, and kwire check - applies the protocol rules to them\n"},
		{[]string{"batch", "kafka.pcap"}, nil, "kwire: kafka.pcap: a pcap capture, not frames: batch reads a frame a line; kwire pcap kafka.pcap decodes the Kafka conversations it holds, and kwire check kafka.pcap applies the protocol rules to them\n"},
		{[]string{"batch"}, pcapng, "kwire: a pcapng capture, not frames: batch reads a frame a line; kwire pcap - decodes the Kafka conversations it holds, and kwire check - applies the protocol rules to them\n"},
	} {
		out, errOut, code := runCLI(t, c.args, c.stdin)
		require.Equal(t, 1, code, c.args)
		require.Empty(t, out, c.args)
		require.Equal(t, c.want, errOut, c.args)
	}
}
