package capture

import (
	"bytes"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutOfOrderResponsesPair: a broker that answers a connection's
// requests out of order still has both answers paired by correlation id;
// the exchange answered first says how many requests it overtook, the one
// answered late by how many responses (and whose) it was overtaken. The
// decoder then reads each response with its request's API and version,
// not by guessing.
func TestOutOfOrderResponsesPair(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	v.req(apiVersionsReq(2))
	v.req(apiVersionsReq(3))
	v.resp(apiVersionsResp(2))
	v.resp(apiVersionsResp(1))
	v.resp(apiVersionsResp(3))

	var got []*Exchange
	_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	require.Len(t, got, 3)
	for _, x := range got {
		assert.True(t, x.Paired(), "correlation %d", x.CorrelationID)
		assert.Equal(t, x.CorrelationID, corrOf(x.Response.Bytes))
	}
	assert.Equal(t, []int32{2, 1, 3}, []int32{got[0].CorrelationID, got[1].CorrelationID, got[2].CorrelationID})
	assert.Equal(t, 1, got[0].Overtook)
	assert.Equal(t, 0, got[1].Overtook)
	assert.Equal(t, 1, got[1].Overtaken)
	assert.Equal(t, int32(2), got[1].OvertakenBy)
	assert.Equal(t, 0, got[2].Overtook+got[2].Overtaken)

	r := b.read(Options{})
	assert.Equal(t, []int32{1, 2, 3}, pairedCorrs(r), "Read keeps request order")
}

// TestOvertakenGivenUp: a request passed over by more than maxOvertaken
// responses is given up on, so a lost answer does not hold it (and the
// memory of its frame) until the connection ends.
func TestOvertakenGivenUp(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1))
	for i := int32(2); i <= maxOvertaken+2; i++ {
		v.req(apiVersionsReq(i))
		v.resp(apiVersionsResp(i))
	}
	v.req(apiVersionsReq(100)) // still waiting when the capture ends
	var got []*Exchange
	_, err := ReadFunc(bytes.NewReader(b.pcap()), Options{}, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	require.Len(t, got, maxOvertaken+3)
	x := got[maxOvertaken+1]
	assert.Equal(t, int32(1), x.CorrelationID, "given up on right after the response that passed it once too often")
	assert.Nil(t, x.Response)
	assert.Equal(t, maxOvertaken+1, x.Overtaken)
	assert.Equal(t, int32(100), got[maxOvertaken+2].CorrelationID)
}

// TestReusedCorrelation: a request whose correlation id is that of a
// request still waiting on its connection is marked; the responses pair
// with the requests in order.
func TestReusedCorrelation(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(5))
	v.req(apiVersionsReq(5))
	v.resp(apiVersionsResp(5))
	v.resp(apiVersionsResp(5))
	v.req(apiVersionsReq(5)) // none waiting now: not a reuse
	v.resp(apiVersionsResp(5))
	r := b.read(Options{})
	require.Len(t, r.Exchanges, 3)
	assert.False(t, r.Exchanges[0].ReusedCorrelation)
	assert.True(t, r.Exchanges[1].ReusedCorrelation)
	assert.False(t, r.Exchanges[2].ReusedCorrelation)
	for _, x := range r.Exchanges {
		assert.True(t, x.Paired())
		assert.Zero(t, x.Overtook+x.Overtaken)
	}
}

func corrOf(resp []byte) int32 {
	return int32(uint32(resp[4])<<24 | uint32(resp[5])<<16 | uint32(resp[6])<<8 | uint32(resp[7]))
}
