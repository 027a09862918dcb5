package capcheck

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/internal/capture"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run converts res's exchanges in Read's order and checks them, as a
// caller does, returning each exchange's findings and those at the end.
func run(res *capture.Result) (per [][]check.Finding, end []check.Finding, v *Conv) {
	v = &Conv{}
	var z check.Analyzer
	ck := check.NewChecker()
	for _, x := range res.Exchanges {
		cx := v.Exchange(x)
		per = append(per, append([]check.Finding(nil), ck.Add(z.Analyze(&cx))...))
	}
	return per, v.End(ck, res), v
}

// TestDamagedFrameNotJudged: kafka-ipv6-null.pcapng's third request (a
// Fetch v11) lost bytes inside it; read with KeepDamaged it is kept up to
// the gap and paired. The check is not handed its bytes (no rule can be
// judged on a frame that ends early), nor its answer's, which pairs with
// it (it was judged as a response to no request: "a response whose
// request was not captured ... is not judged", and not decoded for want
// of its request), and the end says once, at the request, that a frame
// held only in part was not judged: nothing else is said of the pair.
func TestDamagedFrameNotJudged(t *testing.T) {
	b, err := os.ReadFile("../../testdata/captures/kafka-ipv6-null.pcapng")
	require.NoError(t, err)
	res, err := capture.Read(bytes.NewReader(b), capture.Options{KeepDamaged: true})
	require.NoError(t, err)
	require.Len(t, res.Exchanges, 4)
	x := res.Exchanges[2]
	require.NotNil(t, x.Request)
	require.Positive(t, x.Request.Missing)

	v := &Conv{}
	cx := v.Exchange(x)
	assert.Nil(t, cx.Request, "a damaged frame's bytes are not judged")
	assert.Zero(t, cx.RequestPacket)
	require.NotNil(t, x.Response)
	assert.Nil(t, cx.Response, "the answer to a damaged request is left out with it")
	assert.Zero(t, cx.ResponsePacket)
	assert.Equal(t, 1, v.Damaged(), "the answer is whole: only the request is counted")
	assert.Same(t, cx.Conn, v.Exchange(res.Exchanges[0]).Conn, "one check.Conn a connection")

	per, end, _ := run(res)
	for i, fs := range per {
		for _, f := range fs {
			assert.True(t, f.Skipped, "exchange %d: %s", i, f.String())
		}
	}
	assert.Empty(t, per[2], "the pair of the damaged request says nothing of its own")
	require.Len(t, end, 1, "%v", end)
	f := end[0]
	assert.Equal(t, check.FrameDecode, f.Rule)
	assert.True(t, f.Skipped)
	assert.Equal(t, "frame.decode skipped conn 1 correlation 3 request (packet 8): a frame the capture holds only in part (bytes lost, or cut by the snap length, inside it) is not judged", f.String())

	// Without KeepDamaged the capture drops the request itself: nothing
	// is left out here, and nothing said.
	res, err = capture.Read(bytes.NewReader(b), capture.Options{})
	require.NoError(t, err)
	_, end, v = run(res)
	assert.Zero(t, v.Damaged())
	assert.Empty(t, end)
}

// TestEndOrder: the end's findings come in kwire check's order: the
// checker's own, the damaged frames' one (counting them, at the first),
// then the unframed bytes the capture's notes mark, in their order; other
// notes say nothing. The connections are told they closed before the
// checker ends.
func TestEndOrder(t *testing.T) {
	c1 := &capture.Conn{ID: 1, SYN: true, Closed: true}
	c2 := &capture.Conn{ID: 2}
	v := &Conv{}
	for i, x := range []*capture.Exchange{
		{Conn: c1, CorrelationID: 5, Request: &capture.Frame{Bytes: []byte{0, 0, 0, 9, 0, 12}, PacketIndex: 4, Missing: 7}},
		{Conn: c2, CorrelationID: -1, Response: &capture.Frame{Bytes: []byte{0, 0, 0, 9}, PacketIndex: 9, Missing: 5}},
	} {
		cx := v.Exchange(x)
		assert.Nil(t, cx.Request, "%d", i)
		assert.Nil(t, cx.Response, "%d", i)
		assert.False(t, cx.Conn.Closed, "%d: closed only once the capture ended", i)
	}
	res := &capture.Result{Notes: []capture.Note{
		{Packet: 6, Conn: c2, Message: "implausible frame header 7f ff ff ff", Unframed: true},
		{Packet: 7, Conn: c1, Message: "an ordinary note"},
		{Packet: 8, Conn: c1, Message: "implausible frame header 00 00 00 00", Unframed: true},
		{Packet: 9, Conn: c1, Message: "implausible frame header ff ff ff ff", Unframed: true, Refused: true, Size: -1},
	}}
	end := v.End(check.NewChecker(), res)
	var got []string
	for _, f := range end {
		got = append(got, f.String())
	}
	assert.Equal(t, []string{
		"frame.decode skipped conn 1 correlation 5 request (packet 4): 2 frames the capture holds only in part (bytes lost, or cut by the snap length, inside them) are not judged, the first here",
		"frame.size skipped conn 2 (packet 6): bytes of a connection captured from its start do not read as a frame (implausible frame header 7f ff ff ff): the capture skipped them to resynchronise, and what they hold is not judged",
		"frame.size skipped conn 1 (packet 8): bytes of a connection captured from its start do not read as a frame (implausible frame header 00 00 00 00): the capture skipped them to resynchronise, and what they hold is not judged",
		"frame.size error conn 1 (packet 9): the connection's first frame declares a size a broker refuses (a negative one, or one over socket.request.max.bytes, 100 MiB by default); it closes the connection, expected a size from 8 to 104857599, found -1",
	}, got)
	assert.True(t, v.conn(c1).Closed)
	assert.False(t, v.conn(c2).Closed)
}

// TestDamagedSide: a request held in part takes its whole answer out of
// judgement with it (the two pair: the answer answers it); a response held
// in part leaves its whole request to be judged.
func TestDamagedSide(t *testing.T) {
	c := &capture.Conn{ID: 1, SYN: true, Gaps: 1}
	req, rsp := []byte{0, 0, 0, 9, 0, 12, 0, 4, 0, 0, 0, 5}, []byte{0, 0, 0, 6, 0, 0, 0, 5}
	v := &Conv{}
	cx := v.Exchange(&capture.Exchange{Conn: c, CorrelationID: 5,
		Request:  &capture.Frame{Bytes: req, PacketIndex: 4, Missing: 7},
		Response: &capture.Frame{Bytes: rsp, PacketIndex: 5}})
	assert.Nil(t, cx.Request)
	assert.Nil(t, cx.Response)
	assert.Equal(t, 1, v.Damaged())
	ck := check.NewChecker()
	var z check.Analyzer
	assert.Empty(t, ck.Add(z.Analyze(&cx)), "no response to no request")

	cx = v.Exchange(&capture.Exchange{Conn: c, CorrelationID: 6,
		Request:  &capture.Frame{Bytes: req, PacketIndex: 6},
		Response: &capture.Frame{Bytes: rsp, PacketIndex: 7, Missing: 3}})
	assert.Equal(t, req, cx.Request)
	assert.Equal(t, 6, cx.RequestPacket)
	assert.Nil(t, cx.Response)
	assert.Equal(t, 2, v.Damaged())
}

// stopAt reads b, then stops the reading (kwire check's Ctrl-C) rather
// than end: the capture is cut after b.
type stopAt struct{ b []byte }

func (s *stopAt) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, capture.ErrStopped
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}

// texts is the findings' lines.
func texts(fs []check.Finding) []string {
	var got []string
	for _, f := range fs {
		got = append(got, f.String())
	}
	return got
}

// beforePacket is where packet n (from 1) of the pcapng file b starts:
// the length of the blocks before it, counted from the file's start
// (enhanced packet blocks, type 6, are its packets).
func beforePacket(b []byte, n int) int {
	off, pkt := 0, 0
	for pkt < n-1 {
		if binary.LittleEndian.Uint32(b[off:]) == 6 {
			pkt++
		}
		off += int(binary.LittleEndian.Uint32(b[off+4:]))
	}
	return off
}

// TestStoppedEndJudgesClosedConnections: a reading stopped after the
// producer's connection closed (conv.txn-end.bad.pcapng whole: records
// of a transaction, then the connection closes without EndTxn) judges
// the transaction as the capture read to its end does: the connection
// ended whole before the cut. It was said not judged, as the cut's.
// Stopped before the close, the transaction is what the cut left
// unfinished: not judged.
func TestStoppedEndJudgesClosedConnections(t *testing.T) {
	b, err := os.ReadFile("../../testdata/check/conv.txn-end.bad.pcapng")
	require.NoError(t, err)
	end := func(b []byte, stopped bool) []string {
		var res *capture.Result
		if stopped {
			res, err = capture.Read(&stopAt{b}, capture.Options{KeepDamaged: true})
		} else {
			res, err = capture.Read(bytes.NewReader(b), capture.Options{KeepDamaged: true})
		}
		require.NoError(t, err)
		require.Equal(t, stopped, res.Stopped)
		_, fs, _ := run(res)
		return texts(fs)
	}
	const warned = "conv.txn-end warning conn 2 correlation 3 request (packet 16) at byte 66 (body.topicData[0].partitionData[0].records[0]): producer id 3560889763892045510 closed its connections with a transaction open, expected EndTxn, found no EndTxn"
	assert.Equal(t, []string{warned}, end(b, false))
	assert.Equal(t, []string{warned}, end(b, true))

	// Cut at the first FIN after data (packet 18, the client's).
	off := beforePacket(b, 18)
	assert.Equal(t, []string{"conv.txn-end skipped conn 2 correlation 3 request (packet 16) at byte 66 (body.topicData[0].partitionData[0].records[0]): not judged at the capture's end: the reading was interrupted, and what it was cut in (a transaction still open when the capture ended, its producer connected, is not judged: producer id 3560889763892045510) is not where the capture ends"}, end(b[:off], true))
}

// TestStoppedEndKeepsReasonOfClosedConnections: a transaction whose start
// was not captured (conv.txn-end.bad.pcapng without its InitProducerId
// and AddPartitionsToTxn: its records alone) is not judged at the end for
// that reason, which no cut changes: a reading stopped after its
// producer's connection closed says so as the capture read to its end
// does. It was said not judged because of the cut. Stopped before the
// close, whether the transaction ended is what the cut left unknown: not
// judged because of the cut.
func TestStoppedEndKeepsReasonOfClosedConnections(t *testing.T) {
	b, err := os.ReadFile("../../testdata/check/conv.txn-end.bad.pcapng")
	require.NoError(t, err)
	end := func(r io.Reader, stopped bool) []string {
		res, err := capture.Read(r, capture.Options{KeepDamaged: true})
		require.NoError(t, err)
		require.Equal(t, stopped, res.Stopped)
		// The records alone (Produce, API key 0): the transaction's
		// start is not in the capture.
		res.Exchanges = slices.DeleteFunc(res.Exchanges, func(x *capture.Exchange) bool {
			return x.Request == nil || binary.BigEndian.Uint16(x.Request.Bytes[4:]) != 0
		})
		require.Len(t, res.Exchanges, 1)
		_, fs, _ := run(res)
		return texts(fs)
	}
	const unknown = "conv.txn-end skipped conn 2 correlation 3 request (packet 16) at byte 66 (body.topicData[0].partitionData[0].records[0]): a transaction whose start was not captured (no InitProducerId, AddPartitionsToTxn or earlier EndTxn of its producer: its coordinator's connection may not be in the capture) is not judged: producer id 3560889763892045510"
	assert.Equal(t, []string{unknown}, end(bytes.NewReader(b), false))
	assert.Equal(t, []string{unknown}, end(&stopAt{b}, true), "closed before the cut: the reason stands")

	// Cut at the first FIN after data (packet 18), as in
	// TestStoppedEndJudgesClosedConnections.
	off := beforePacket(b, 18)
	assert.Equal(t, []string{"conv.txn-end skipped conn 2 correlation 3 request (packet 16) at byte 66 (body.topicData[0].partitionData[0].records[0]): not judged at the capture's end: the reading was interrupted, and what it was cut in (a transaction whose start was not captured (no InitProducerId, AddPartitionsToTxn or earlier EndTxn of its producer: its coordinator's connection may not be in the capture) is not judged: producer id 3560889763892045510) is not where the capture ends"},
		end(&stopAt{b[:off]}, true), "connected at the cut: not judged because of it")
}
