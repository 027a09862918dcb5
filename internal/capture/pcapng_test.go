package capture

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/stretchr/testify/require"
)

// PcapngWriter writes what gopacket's pcapgo, an independent reader,
// reads back packet for packet (bytes, times to the nanosecond, link
// types, one interface per link type), and what Read reads as the same
// capture written by pcapgo.
func TestPcapngWriter(t *testing.T) {
	eth, raw := newTB(t, layers.LinkTypeEthernet), newTB(t, layers.LinkTypeRaw)
	simple(eth, 2)
	v := raw.conv("10.0.0.3:40001", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(7))
	v.resp(apiVersionsResp(7))
	raw.now = raw.now.Add(123456789 * time.Nanosecond)
	v.fin()
	var pkts []Packet
	for i, p := range eth.pkts {
		pkts = append(pkts, Packet{Data: p, Time: eth.times[i], Link: uint32(layers.LinkTypeEthernet)})
	}
	for i, p := range raw.pkts {
		pkts = append(pkts, Packet{Data: p, Time: raw.times[i], Link: linkRaw})
	}
	// Interleaved: the raw packets among the Ethernet ones.
	pkts[2], pkts[len(eth.pkts)] = pkts[len(eth.pkts)], pkts[2]
	file := appendPcapng([]byte("kept"), pkts)
	require.Equal(t, "kept", string(file[:4]))
	file = file[4:]

	r, err := pcapgo.NewNgReader(bytes.NewReader(file), pcapgo.NgReaderOptions{WantMixedLinkType: true})
	require.NoError(t, err)
	for i, p := range pkts {
		data, ci, err := r.ReadPacketData()
		require.NoError(t, err, "packet %d", i)
		require.Equal(t, p.Data, data, "packet %d", i)
		require.True(t, p.Time.Equal(ci.Timestamp), "packet %d: %v, want %v", i, ci.Timestamp, p.Time)
		require.Equal(t, len(p.Data), ci.Length)
		iface, err := r.Interface(ci.InterfaceIndex)
		require.NoError(t, err)
		require.Equal(t, p.Link, uint32(iface.LinkType), "packet %d", i)
		require.Equal(t, map[uint32]int{1: 0, linkRaw: 1}[p.Link], ci.InterfaceIndex, "packet %d: one interface per link type, in order", i)
	}
	_, _, err = r.ReadPacketData()
	require.Error(t, err, "no packet more")

	got, err := Read(bytes.NewReader(file), Options{})
	require.NoError(t, err)
	require.Empty(t, got.Notes)
	require.Equal(t, []int32{1, 2, 7}, pairedCorrs(got))
	require.Equal(t, len(pkts), got.Packets)
	want, err := Read(bytes.NewReader(mixedNg(t, eth, raw)), Options{})
	require.NoError(t, err)
	require.Equal(t, len(want.Exchanges), len(got.Exchanges))
}

// A time before 1970 or after 2262, which a pcapng holds no way, is
// written at the nearest end; a packet longer than Read takes is cut to
// it, as a snap length cuts one.
func TestPcapngWriterLimits(t *testing.T) {
	big := bytes.Repeat([]byte{0x45}, maxPacket+5)
	file := appendPcapng(nil, []Packet{
		{Data: []byte{0x45, 0, 0, 20, 0}, Time: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), Link: linkRaw},
		{Data: []byte{0x45, 0, 0, 20}, Time: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), Link: linkRaw},
		{Data: big, Link: linkRaw},
	})
	r, err := pcapgo.NewNgReader(bytes.NewReader(file), pcapgo.DefaultNgReaderOptions)
	require.NoError(t, err)
	data, ci, err := r.ReadPacketData()
	require.NoError(t, err)
	require.Equal(t, []byte{0x45, 0, 0, 20, 0}, data, "an odd length, padded in the file")
	require.Equal(t, int64(0), ci.Timestamp.UnixNano())
	_, ci, err = r.ReadPacketData()
	require.NoError(t, err)
	require.Equal(t, 2262, ci.Timestamp.UTC().Year())
	data, ci, err = r.ReadPacketData()
	require.NoError(t, err)
	require.Len(t, data, maxPacket)
	require.Equal(t, len(big), ci.Length)

	res, err := Read(bytes.NewReader(file), Options{})
	require.NoError(t, err)
	require.Equal(t, 3, res.Packets)
	require.Nil(t, res.Truncation, "the long packet reads, cut")
}

// appendPcapng appends a pcapng of pkts to b.
func appendPcapng(b []byte, pkts []Packet) []byte {
	var w PcapngWriter
	for _, p := range pkts {
		b = w.Append(b, p)
	}
	return b
}
