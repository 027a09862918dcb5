package capture

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxFuzzRead bounds the inputs FuzzRead reads while fuzzing. Go's
// fuzzer minimises each input that finds new coverage before it fuzzes
// on, for up to -fuzzminimizetime (60 s unless told; go.dev/issue/48820),
// and its minimiser tries removing every run of bytes: up to n*n/2 calls
// for n bytes, each 100 µs or more here however little the reader does (the
// fuzzer's own work: a goroutine, 64 KB of coverage counters cleared and
// compared). A 1.7 KB sample capture's mutant so took the whole minute,
// the fuzzer standing still at its first 200 inputs: FuzzRead stalled in
// its minimiser, not in the reader. Inputs of at most 512 bytes minimise
// in seconds; longer ones (six of the corpus's) are still read whole by
// go test without -fuzz.
const maxFuzzRead = 512

// seedCaptures are FuzzRead's seeds: the sample captures and small ones
// built here (IPv4 and IPv6, pcap and pcapng), each at most maxFuzzRead
// long as it is, a longer one cut into runs of its packets, each run a
// pcapng file of at most maxFuzzRead bytes (the handshakes, SASL, the
// clients' requests and answers, for mutations to start from).
func seedCaptures(t testing.TB) [][]byte {
	var whole [][]byte
	files, _ := filepath.Glob(filepath.Join(captures, "*.pcap*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		whole = append(whole, data)
	}
	b := newTB(t, layers.LinkTypeEthernet)
	simple(b, 2)
	whole = append(whole, b.pcap(), b.pcapng())
	n := newTB(t, layers.LinkTypeNull)
	v := n.conv("[fd00::1]:40000", "[fd00::2]:9092")
	v.req(apiVersionsReq(1)[3:])
	v.resp(apiVersionsResp(1))
	v.req(produceReq(2, 3, 0))
	whole = append(whole, n.pcap(), n.pcapng())
	var out [][]byte
	for _, data := range whole {
		out = append(out, captureRuns(t, data, maxFuzzRead)...)
	}
	return out
}

// captureRuns is data if it is at most limit bytes long, else its packets
// in runs written as pcapng files of at most limit bytes each (a packet too
// long for one on its own left out).
func captureRuns(t testing.TB, data []byte, limit int) [][]byte {
	if len(data) <= limit {
		return [][]byte{data}
	}
	src, err := openFile(bufio.NewReader(bytes.NewReader(data)))
	require.NoError(t, err)
	var out [][]byte
	var w PcapngWriter
	var run []byte
	for {
		pkt, ts, link, err := src.next()
		if err != nil {
			break
		}
		p := Packet{Data: bytes.Clone(pkt), Time: ts, Link: link}
		next := w.Append(bytes.Clone(run), p)
		if len(next) > limit && run != nil {
			out = append(out, run)
			w, run = PcapngWriter{}, nil
			next = w.Append(nil, p)
		}
		if len(next) <= limit {
			run = next
		} else {
			w = PcapngWriter{}
		}
	}
	if run != nil {
		out = append(out, run)
	}
	require.NotEmpty(t, out)
	return out
}

func checkResult(t *testing.T, r *Result) {
	for _, x := range r.Exchanges {
		for _, f := range []*Frame{x.Request, x.Response} {
			if f == nil {
				continue
			}
			if len(f.Bytes) < 4 || int64(binary.BigEndian.Uint32(f.Bytes))+4 != int64(len(f.Bytes))+f.Missing {
				t.Fatalf("bad frame %x (%d bytes missing)", f.Bytes, f.Missing)
			}
			if f.Missing < 0 || f.Missing > 0 && len(f.Bytes) < 8 {
				t.Fatalf("damaged frame %x (%d bytes missing) without its header", f.Bytes, f.Missing)
			}
			if f.Conn != x.Conn {
				t.Fatal("frame conn mismatch")
			}
		}
		if x.Request == nil && x.Response == nil {
			t.Fatal("empty exchange")
		}
		if x.Evicted && (x.Request == nil || x.Response != nil) {
			t.Fatal("an evicted exchange must be an unanswered request")
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range seedCaptures(f) {
		f.Add(s)
	}
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	f.Fuzz(func(t *testing.T, data []byte) {
		if fuzzing && len(data) > maxFuzzRead {
			return
		}
		// A small window, so evictions happen too; damaged frames kept
		// for half the inputs.
		opts := Options{MaxStreamBuffer: 1 << 16, MaxWaiting: 8, KeepDamaged: len(data)%2 == 0}
		r, err := Read(bytes.NewReader(data), opts)
		if err != nil {
			return
		}
		checkResult(t, r)
		if len(r.Conns) != r.Connections {
			t.Fatalf("%d connections listed, %d counted", len(r.Conns), r.Connections)
		}
		var read, streamed []string
		for _, x := range r.Exchanges {
			read = append(read, exchangeKey(x))
		}
		r2, err := ReadFunc(bytes.NewReader(data), opts, func(x *Exchange) {
			streamed = append(streamed, exchangeKey(x))
			if x.Evicted && (x.Request == nil || x.Response != nil) {
				t.Fatal("an evicted exchange must be an unanswered request")
			}
		})
		require.NoError(t, err)
		// ReadFunc hands out the same exchanges as Read, in its own order:
		// a response framed before its request is held (holdEarly) in
		// both.
		slices.Sort(read)
		slices.Sort(streamed)
		if !slices.Equal(read, streamed) || r2.Frames != r.Frames {
			t.Fatalf("ReadFunc gave exchanges %q / %d frames, Read %q / %d", streamed, r2.Frames, read, r.Frames)
		}
		if r2.Packets != r.Packets || r2.NonKafka != r.NonKafka || r2.Connections != r.Connections {
			t.Fatalf("ReadFunc counted %d packets, %d non-Kafka, %d connections; Read %d, %d, %d",
				r2.Packets, r2.NonKafka, r2.Connections, r.Packets, r.NonKafka, r.Connections)
		}
	})
}

// reassemblyStreams are the two byte streams FuzzReassemble cuts into
// segments.
func reassemblyStreams() (cli, srv []byte, reqs, resps [][]byte) {
	for i := int32(1); i <= 6; i++ {
		q := kreq(int16(i), 1, i, "fz", bytes.Repeat([]byte{byte(i)}, int(i)*7))
		p := kresp(i, bytes.Repeat([]byte{byte(i)}, int(i)*5))
		reqs, resps = append(reqs, q), append(resps, p)
		cli, srv = append(cli, q...), append(srv, p...)
	}
	return
}

// FuzzReassemble feeds the TCP layer a sequence of segments cut from a
// fixed client and broker stream: each 4 fuzz bytes are
// flags, offset (2 bytes), length. If both SYNs were sent first, no
// RST/FIN/ACK was used, no small bound was set (the first byte's bits 1
// and 2: MaxStreamBuffer, MaxBuffered) and the segments cover both
// streams, every frame must come out intact.
func FuzzReassemble(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 255, 1, 0, 0, 255})
	f.Add([]byte{1, 0, 0, 50, 255, 0, 0, 0, 60, 1, 0, 0, 255, 0, 0, 40, 255})
	f.Add([]byte{0, 0, 0, 10, 20, 1, 0, 5, 30, 4, 0, 0, 255})
	f.Add([]byte{1, 2, 0, 100, 255, 3, 0, 0, 255, 0, 0, 0, 99, 16, 0, 0, 0})
	f.Add([]byte{5, 0, 0, 0, 255, 1, 0, 0, 255, 0, 0, 200, 255, 0, 1, 0, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 4000 {
			return
		}
		cli, srv, reqs, resps := reassemblyStreams()
		opts := Options{}
		if data[0]&2 != 0 {
			opts.MaxStreamBuffer = 300 // forces gaps
		}
		if data[0]&4 != 0 {
			opts.MaxBuffered = 400 // frames skipped, gaps forced, early decisions
		}
		e := newEngine(opts, nil)
		c := Endpoint{netip.MustParseAddr("10.0.0.1"), 40000}
		s := Endpoint{netip.MustParseAddr("10.0.0.2"), 9092}
		const cisn, sisn = 0xfffffff0, 77 // client wraps around 2^32
		now := time.Unix(1700000000, 0)
		send := func(fromClient bool, seq, ack uint32, flags uint8, payload []byte) {
			e.res.Packets++
			e.pkt = e.res.Packets
			now = now.Add(time.Millisecond)
			e.now = now
			p := &tcpPacket{seq: seq, ack: ack, flags: flags, payload: payload}
			if fromClient {
				p.src, p.sport, p.dst, p.dport = c.IP, c.Port, s.IP, s.Port
			} else {
				p.src, p.sport, p.dst, p.dport = s.IP, s.Port, c.IP, c.Port
			}
			e.tcp(p)
		}
		syn := data[0]&1 == 1
		strict := syn && opts.MaxStreamBuffer == 0 && opts.MaxBuffered == 0
		if syn {
			send(true, cisn, 0, tcpSYN, nil)
			send(false, sisn, cisn+1, tcpSYN|tcpACK, nil)
		}
		covered := [2][]bool{make([]bool, len(cli)), make([]bool, len(srv))}
		data = data[1:]
		for len(data) >= 4 {
			fl, off, n := data[0], int(binary.BigEndian.Uint16(data[1:])), int(data[3])+1
			data = data[4:]
			fromClient := fl&1 == 0
			stream, isn, di := srv, uint32(sisn), 1
			if fromClient {
				stream, isn, di = cli, cisn, 0
			}
			off %= len(stream)
			end := min(off+n, len(stream))
			var flags uint8
			var ack uint32
			if fl&2 != 0 {
				flags |= tcpACK
				ack = isnOther(fromClient, cisn, sisn) + 1 + uint32(fl>>4)*8
				strict = false
			}
			if fl&4 != 0 {
				flags |= tcpFIN
				strict = false
			}
			if fl&8 != 0 && fl&0xf0 == 0xf0 {
				flags |= tcpRST
				strict = false
			}
			for i := off; i < end; i++ {
				covered[di][i] = true
			}
			send(fromClient, isn+1+uint32(off), ack, flags, stream[off:end])
		}
		e.finish()
		if e.buffered != 0 {
			t.Fatalf("%d bytes held counted after the end", e.buffered)
		}
		for _, cv := range covered {
			for _, ok := range cv {
				if !ok {
					strict = false
				}
			}
		}
		var gotReq, gotResp []*Frame
		for _, x := range e.res.Exchanges {
			if x.Request != nil {
				gotReq = append(gotReq, x.Request)
			}
			if x.Response != nil {
				gotResp = append(gotResp, x.Response)
			}
		}
		checkResult(t, e.res)
		if strict {
			require.Equal(t, reqs, frameBytes(gotReq))
			require.Equal(t, resps, frameBytes(gotResp))
		}
	})
}

func isnOther(fromClient bool, cisn, sisn uint32) uint32 {
	if fromClient {
		return sisn
	}
	return cisn
}

func frameBytes(fs []*Frame) [][]byte {
	sort.Slice(fs, func(i, j int) bool { return fs[i].StreamOffset < fs[j].StreamOffset })
	var out [][]byte
	for _, f := range fs {
		out = append(out, f.Bytes)
	}
	return out
}

// TestRegressionFlushShortHeader: FuzzReassemble found a panic when a
// stream in sync ended with fewer than 4 bytes of the next frame's size
// prefix buffered (testdata/fuzz/FuzzReassemble/fa8d9dea41169254).
func TestRegressionFlushShortHeader(t *testing.T) {
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9092")
	v.handshake()
	v.req(apiVersionsReq(1)[:3])
	r := b.read(Options{})
	assert.True(t, hasNote(r, "incomplete frame header"), "%v", r.Notes)
	assert.Equal(t, int64(3), r.SkippedBytes)
}

// TestRegressionReadFuncLateRequest: FuzzRead found Read and ReadFunc
// framing a capture differently (testdata/fuzz/FuzzRead/78feafef0d229830):
// a response framed before its request (the client stream was
// resynchronising) was paired with it by Read, while in ReadFunc, which
// had handed the response out alone, the request went on waiting; the
// broker stream's resynchronising, which weighs frames by the requests
// waiting, then found a frame in Read that it skipped in ReadFunc. The
// request an early response answered waits for nothing in either now:
// both find the same frames, and ReadFunc hands the pair out at once
// (the response held until then, holdEarly).
func TestRegressionReadFuncLateRequest(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzRead", "78feafef0d229830"))
	require.NoError(t, err)
	lit := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[1])
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
	require.NoError(t, err)
	data := []byte(s)
	opts := Options{MaxStreamBuffer: 1 << 16, MaxWaiting: 8, KeepDamaged: len(data)%2 == 0}
	r, err := Read(bytes.NewReader(data), opts)
	require.NoError(t, err)
	var got []*Exchange
	r2, err := ReadFunc(bytes.NewReader(data), opts, func(x *Exchange) { got = append(got, x) })
	require.NoError(t, err)
	assert.Equal(t, 3, r.Frames)
	assert.Equal(t, r.Frames, r2.Frames)
	var paired bool
	for _, x := range r.Exchanges {
		paired = paired || x.CorrelationID == 1 && x.Paired()
	}
	assert.True(t, paired, "Read pairs the late request with its early response")
	for _, x := range got {
		if x.Request != nil && x.CorrelationID == 1 {
			assert.False(t, x.ConnClosed, "the request was answered: it did not wait until the end")
			assert.True(t, x.Paired(), "ReadFunc pairs it as Read does")
		}
	}
}
