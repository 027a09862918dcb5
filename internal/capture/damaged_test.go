package capture

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heartbeatReq is a Heartbeat v3 request as librdkafka sends it: group,
// generation, a member id of 40 bytes, no group instance id.
func heartbeatReq(corr int32) []byte {
	body := append([]byte{0, 2}, "g1"...)
	body = binary.BigEndian.AppendUint32(body, 1)
	body = append(body, 0, 40)
	body = append(body, strings.Repeat("m", 40)...)
	body = append(body, 0xff, 0xff)
	return kreq(12, 3, corr, "rdkafka", body)
}

// TestSnapLengthKeepsRequestHeaders: a capture with a snap length of 100
// bytes (editcap -s 100) cuts every request longer than what fits, but
// keeps its header: the request is handed on with what was captured of
// it (Frame.Missing saying how much was not), so that it pairs with its
// answer, whole, which then decodes as the API and version the request
// names. Frames cut before their header ends are dropped, as before.
// (kwire pcap once dropped every request cut: their answers came out
// unpaired, a Heartbeat v3 answer guessed as LeaderAndIsr v0.)
func TestSnapLengthKeepsRequestHeaders(t *testing.T) {
	for _, ports := range [][]uint16{nil, {19092}} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("127.0.0.1:56618", "127.0.0.1:19092")
		v.handshake()
		const snap = 100 // 14 + 20 + 20 bytes of headers: 46 of payload
		cut := func() {
			if p := b.pkts[len(b.pkts)-1]; len(p) > snap {
				b.pkts[len(b.pkts)-1] = p[:snap]
			}
		}
		var whole []int
		for corr := int32(1); corr <= 4; corr++ {
			req := heartbeatReq(corr)
			if corr == 2 {
				req = apiVersionsReq(corr) // fits
			}
			v.req(req)
			cut()
			v.resp(kresp(corr, []byte{0, 0, 0, 0, 0, 0}))
			cut()
			whole = append(whole, len(req))
		}
		r := b.read(Options{BrokerPorts: ports, KeepDamaged: true})
		dump(t, r)
		require.Len(t, r.Conns, 1)
		assert.Equal(t, uint16(19092), r.Conns[0].Broker.Port)
		assert.Equal(t, []int32{1, 2, 3, 4}, pairedCorrs(r))
		assert.Equal(t, 8, r.Frames, "no frame dropped")
		require.Len(t, r.Exchanges, 4)
		for i, x := range r.Exchanges {
			require.True(t, x.Paired())
			assert.Zero(t, x.Response.Missing)
			if x.CorrelationID == 2 {
				assert.Zero(t, x.Request.Missing)
				continue
			}
			assert.Equal(t, int16(12), x.APIKey)
			assert.Equal(t, int16(3), x.APIVersion)
			assert.Len(t, x.Request.Bytes, snap-54)
			assert.Equal(t, int64(whole[i]-(snap-54)), x.Request.Missing)
			assert.Equal(t, heartbeatReq(x.CorrelationID)[:snap-54], x.Request.Bytes)
		}
		assert.True(t, hasNote(r, "damaged by a gap: only its first 46 bytes are kept, 27 are missing"), "%v", r.Notes)
		assert.False(t, hasNote(r, "dropped"), "%v", r.Notes)

		// ReadFunc hands the same exchanges out.
		var got []int32
		_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{BrokerPorts: ports, KeepDamaged: true}, func(x *Exchange) {
			if x.Paired() && x.APIKey == 12 && x.Request.Missing > 0 {
				got = append(got, x.CorrelationID)
			}
		})
		require.NoError(t, err)
		assert.Equal(t, []int32{1, 3, 4}, got)
	}
}

// TestGapBeforeHeaderDropsFrame: a frame a gap cuts into before its
// header is whole (a request's first 12 bytes, a response's first 8) is
// dropped, as it says nothing to pair it by.
func TestGapBeforeHeaderDropsFrame(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.resp(apiVersionsResp(1))
	req := heartbeatReq(2)
	segs := v.split(true, req, 10)
	v.send(segs[0])
	v.b.tcp(v.s, v.c, v.ss, v.cs, fACK, nil) // the rest is lost
	v.resp(kresp(2, []byte{0, 0, 0, 0, 0, 0}))
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(3))
	r := b.read(Options{KeepDamaged: true})
	dump(t, r)
	assert.Equal(t, []int32{1, 3}, pairedCorrs(r))
	assert.True(t, hasNote(r, "damaged by a gap, dropped"), "%v", r.Notes)
	for _, x := range r.Exchanges {
		for _, f := range []*Frame{x.Request, x.Response} {
			if f != nil {
				assert.Zero(t, f.Missing)
			}
		}
	}
}

// TestKeepDamagedGaps: the gaps of TestGapInsideFrame, TestGapAtFrameTail
// and TestGapAcrossFrames with Options.KeepDamaged: the request a gap cut
// into is kept with the bytes before the gap, pairs with its answer, and
// the stream goes on as it did (in sync after a gap inside a frame,
// resynchronised after one across frames).
func TestKeepDamagedGaps(t *testing.T) {
	keep := Options{KeepDamaged: true}
	t.Run("inside", func(t *testing.T) {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.handshake()
		v.req(apiVersionsReq(1))
		v.resp(apiVersionsResp(1))
		req := kreq(1, 11, 2, "consumer", bytes.Repeat([]byte{0}, 100))
		segs := v.split(true, req, 40)
		v.send(segs[0])
		v.send(segs[2])
		v.send(segs[3])
		v.b.tcp(v.s, v.c, v.ss, v.cs, fACK, nil) // broker acks everything
		v.resp(kresp(2, []byte{0, 0}))
		v.req(apiVersionsReq(3))
		v.resp(apiVersionsResp(3))
		r := b.read(keep)
		dump(t, r)
		assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
		assert.Equal(t, 1, r.Conns[0].Gaps)
		assert.True(t, hasNote(r, "damaged by a gap: only its first 40 bytes are kept, 82 are missing"), "%v", r.Notes)
		require.Len(t, r.Exchanges, 3)
		x := r.Exchanges[1]
		require.True(t, x.Paired())
		assert.Equal(t, int16(1), x.APIKey)
		assert.Equal(t, int16(11), x.APIVersion)
		assert.Equal(t, segs[0].data, x.Request.Bytes)
		assert.Equal(t, int64(len(req)-40), x.Request.Missing)
		assert.Zero(t, x.Response.Missing)
		assert.Zero(t, r.Exchanges[2].Request.Missing)
	})
	t.Run("tail", func(t *testing.T) {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		tailLost(v)
		v.resp(kresp(2, []byte{0, 0}))
		v.req(apiVersionsReq(3))
		v.resp(apiVersionsResp(3))
		v.fin()
		r := b.read(keep)
		dump(t, r)
		assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
		assert.False(t, hasNote(r, "incomplete frame"), "%v", r.Notes)
		// handed out once the gap is counted
		var gapped []bool
		_, err := ReadFunc(bytes.NewReader(b.pcap()), keep, func(x *Exchange) {
			if x.Request != nil && x.Request.Missing > 0 {
				gapped = append(gapped, x.Paired() && x.Conn.Gaps > 0)
			}
		})
		require.NoError(t, err)
		assert.Equal(t, []bool{true}, gapped)
	})
	t.Run("across", func(t *testing.T) {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
		v.handshake()
		var stream []byte
		for i := int32(1); i <= 6; i++ {
			stream = append(stream, kreq(1, 11, i, "consumer", bytes.Repeat([]byte{0}, 30))...)
		}
		segs := v.split(true, stream, 50)
		for i, s := range segs {
			if i != 2 {
				v.send(s)
			}
		}
		for i := int32(1); i <= 6; i++ {
			v.resp(kresp(i, []byte{0, 0}))
		}
		r := b.read(keep)
		dump(t, r)
		// frame 2 spans bytes 52..103 and frame 3 104..155: segment 2
		// (100..149) takes frame 2's last 4 bytes and frame 3's header
		assert.Equal(t, []int32{1, 2, 4, 5, 6}, pairedCorrs(r))
		require.True(t, r.Exchanges[1].Paired())
		assert.Equal(t, int64(4), r.Exchanges[1].Request.Missing)
	})
}
