package capture

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// text is n bytes of record text: no 4 of them read as a size a frame
// may have.
func text(n int) []byte {
	return bytes.Repeat([]byte("padding "), n/8+1)[:n]
}

// lastBatch is the end of a Fetch response: a record batch (v2, its
// CRC-32C right) holding text, from its base offset on.
func lastBatch() []byte {
	tail := append([]byte{0, 0}, text(60)...) // attributes, then "records"
	b := binary.BigEndian.AppendUint64(nil, 600)
	b = binary.BigEndian.AppendUint32(b, uint32(4+1+4+len(tail))) // batchLength
	b = binary.BigEndian.AppendUint32(b, 0)                       // partitionLeaderEpoch
	b = append(b, 2)                                              // magic
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(tail, crc32.MakeTable(crc32.Castagnoli)))
	return append(b, tail...)
}

// fetchReq is a Fetch v11 request as librdkafka sends it (its body cut
// short: framing reads no further than the header).
func fetchReq(corr int32) []byte {
	return kreq(1, 11, corr, "rdkafka", []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 1, 0xf4, 0, 0, 0, 1})
}

// TestResyncInRecordsOfAnOlderResponse: a capture that starts inside a
// Fetch response's records (editcap -r c2.pcapng mid2.pcapng 75-139)
// skips them to the answer to the first request captured. Record bytes
// read as frame headers there: a request of 74,854,660 bytes at bytes
// 04 76 31 00 (a header value "v1" and what follows), a 20-byte response
// followed by the size 34,603,138; the last batch's length, which reads
// as a response ending just where the Fetch response ends, its partition
// leader epoch as correlation id 0. Taken, the first two swallowed the
// answers after them (the request captured shown unanswered, or a
// bogus response with correlation id 1,633,968,483 shown), the third was
// a response that fits no API. A huge size needs a text client id, a
// response candidate a next header of 1 MiB at most, and bytes a CRC
// shows to be a record batch are none.
func TestResyncInRecordsOfAnOlderResponse(t *testing.T) {
	var tail []byte
	tail = append(tail, text(2000)...)
	tail = append(tail, 0, 0, 0, 16) // a 20-byte "response"...
	tail = append(tail, text(16)...)
	tail = append(tail, 0x02, 0x10, 0x00, 0x82) // ... then 34,603,138 bytes
	tail = append(tail, text(6000)...)
	tail = append(tail, 0x04, 0x76, 0x31, 0, 0, 0, 0, 0, 0, 0, 1, 0x90, 0, 0) // a "request": Produce v0, correlation id 400, empty client id
	tail = append(tail, text(2000)...)
	tail = append(tail, lastBatch()...)
	for _, ports := range [][]uint16{nil, {19092}} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("127.0.0.1:47206", "127.0.0.1:19092")
		v.resp(tail)
		v.req(fetchReq(6))
		v.resp(kresp(6, []byte{0, 0, 0, 0, 0, 0}))
		v.req(fetchReq(7))
		v.resp(kresp(7, []byte{0, 0, 0, 0, 0, 0}))
		v.fin()
		r := b.read(Options{BrokerPorts: ports})
		dump(t, r)
		require.Len(t, r.Conns, 1)
		assert.Equal(t, uint16(19092), r.Conns[0].Broker.Port)
		assert.Equal(t, []int32{6, 7}, pairedCorrs(r))
		assert.Len(t, r.Exchanges, 2, "no response made of record bytes")
		assert.Equal(t, 4, r.Frames)
		assert.Equal(t, int64(len(tail)), r.SkippedBytes)
		assert.False(t, hasNote(r, "incomplete frame"), "%v", r.Notes)
		// The answer to 6 is framed as it comes (packet 3), not when the
		// connection ends: record bytes before it that read as the start
		// of a frame reaching past its first byte wait for nothing.
		var at []int
		for _, n := range r.Notes {
			if strings.Contains(n.Message, "to resynchronise at offset") {
				at = append(at, n.Packet)
			}
		}
		assert.Equal(t, []int{3}, at, "%v", r.Notes)
	}
}

// TestResyncFrameGivesWayToAnswer: a frame begun by resynchronising in
// bytes from before the capture's first request (two headers that read
// as a response and the one after it: nothing more can be judged there)
// whose size claims the bytes after that request, is dropped when bytes
// that read as the answer to the request begin a segment: a response is
// never made of bytes from before its request. (It swallowed the
// answer, which came out as an unanswered request.)
func TestResyncFrameGivesWayToAnswer(t *testing.T) {
	var tail []byte
	tail = append(tail, text(100)...)
	tail = append(tail, 0, 0, 0, 16) // a 20-byte "response"...
	tail = append(tail, text(16)...)
	tail = append(tail, 0, 0x0f, 0, 0, 0, 0, 0, 5) // ... then one of 983,044 bytes, correlation id 5
	tail = append(tail, text(100)...)
	for _, ports := range [][]uint16{nil, {19092}} {
		b := newTB(t, layers.LinkTypeEthernet)
		v := b.conv("127.0.0.1:47206", "127.0.0.1:19092")
		v.resp(tail)
		v.req(fetchReq(9))
		v.resp(kresp(9, []byte{0, 0, 0, 0, 0, 0}))
		v.req(fetchReq(10))
		v.resp(kresp(10, []byte{0, 0, 0, 0, 0, 0}))
		v.fin()
		r := b.read(Options{BrokerPorts: ports})
		dump(t, r)
		assert.Equal(t, []int32{9, 10}, pairedCorrs(r))
		assert.True(t, hasNote(r, "found while resynchronising, dropped: the bytes at offset 228 answer correlation id 9"), "%v", r.Notes)
		assert.False(t, hasNote(r, "incomplete frame"), "%v", r.Notes)
	}
}

// TestResyncFrameAnsweringKeepsItsBytes: a frame begun by
// resynchronising that is itself the answer to a waiting request is not
// dropped for a later segment that reads as another's answer (the
// broker answers in order: that is the next answer's start, or bytes of
// this one).
func TestResyncFrameAnsweringKeepsItsBytes(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.req(fetchReq(2)) // mid-stream: the broker's stream resynchronises
	v.req(fetchReq(3))
	// the answer to 2, its second segment starting with bytes that read
	// as the answer to 3
	big := kresp(2, append(append(text(40), kresp(3, text(10))...), text(200)...))
	v.sendAll(v.split(false, big, 8+40))
	v.resp(kresp(3, []byte{0, 0}))
	r := b.read(Options{})
	dump(t, r)
	assert.Equal(t, []int32{2, 3}, pairedCorrs(r))
	assert.False(t, hasNote(r, "found while resynchronising"), "%v", r.Notes)
}
