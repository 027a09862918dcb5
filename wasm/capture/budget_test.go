//go:build js && wasm

package main

import (
	"encoding/binary"
	"os"
	"runtime"
	"strconv"
	"syscall/js"
	"testing"
	"time"
)

// onePcap is a classic pcap of one TCP connection, 10.0.0.1:40000 to
// 10.0.0.2:9092, from its handshake: the client's bytes and the broker's
// in segments of at most 60,000 bytes, taking turns, a microsecond apart.
func onePcap(client, broker []byte) []byte {
	c := newPcapConn()
	for len(client) > 0 || len(broker) > 0 {
		if n := min(len(client), 60000); n > 0 {
			c.send(false, client[:n])
			client = client[n:]
		}
		if n := min(len(broker), 60000); n > 0 {
			c.send(true, broker[:n])
			broker = broker[n:]
		}
	}
	return c.b
}

// pcapConn writes a classic pcap of one TCP connection, 10.0.0.1:40000
// to 10.0.0.2:9092, from its handshake, a packet at a time: at, the next
// packet's time after 1700000000 s, is a microsecond past the last
// packet's unless moved.
type pcapConn struct {
	b      []byte
	at     time.Duration
	cs, bs uint32 // the client's and the broker's next sequence numbers
}

func newPcapConn() *pcapConn {
	le := binary.LittleEndian
	b := le.AppendUint32(nil, 0xa1b2c3d4)
	b = le.AppendUint16(b, 2)
	b = le.AppendUint16(b, 4)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, 262144)
	b = le.AppendUint32(b, 1) // Ethernet
	c := &pcapConn{b: b, cs: 1000, bs: 5000}
	c.pkt(false, c.cs, 0, 0x02, nil)
	c.pkt(true, c.bs, c.cs+1, 0x12, nil)
	c.pkt(false, c.cs+1, c.bs+1, 0x10, nil)
	c.cs, c.bs = c.cs+1, c.bs+1
	return c
}

// send writes a segment of payload from the broker (toClient) or the
// client.
func (c *pcapConn) send(toClient bool, payload []byte) {
	if toClient {
		c.pkt(true, c.bs, c.cs, 0x18, payload)
		c.bs += uint32(len(payload))
	} else {
		c.pkt(false, c.cs, c.bs, 0x18, payload)
		c.cs += uint32(len(payload))
	}
}

func (c *pcapConn) pkt(toClient bool, seq, ack uint32, flags byte, payload []byte) {
	le := binary.LittleEndian
	src, dst, sport, dport := []byte{10, 0, 0, 1}, []byte{10, 0, 0, 2}, uint16(40000), uint16(9092)
	if toClient {
		src, dst, sport, dport = dst, src, dport, sport
	}
	p := []byte{0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 1, 8, 0}
	ip := []byte{0x45, 0}
	ip = binary.BigEndian.AppendUint16(ip, uint16(40+len(payload)))
	ip = append(ip, 0, 0, 0x40, 0, 64, 6, 0, 0)
	ip = append(append(ip, src...), dst...)
	var s uint32
	for i := 0; i < 20; i += 2 {
		s += uint32(ip[i])<<8 | uint32(ip[i+1])
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	binary.BigEndian.PutUint16(ip[10:], ^uint16(s))
	tc := binary.BigEndian.AppendUint16(nil, sport)
	tc = binary.BigEndian.AppendUint16(tc, dport)
	tc = binary.BigEndian.AppendUint32(tc, seq)
	tc = binary.BigEndian.AppendUint32(tc, ack)
	tc = append(tc, 5<<4, flags, 0xff, 0xff, 0, 0, 0, 0)
	p = append(append(append(p, ip...), tc...), payload...)
	c.at += time.Microsecond
	c.b = le.AppendUint32(c.b, 1700000000+uint32(c.at/time.Second))
	c.b = le.AppendUint32(c.b, uint32(c.at%time.Second/time.Microsecond))
	c.b = le.AppendUint32(c.b, uint32(len(p)))
	c.b = le.AppendUint32(c.b, uint32(len(p)))
	c.b = append(c.b, p...)
}

// readMeasured reads a capture through kwireCapture.read, as the page
// does, and returns the summary, the frames handed to the page, and what
// the read allocated and how much the heap grew.
func readMeasured(t *testing.T, b []byte) (s summary, frames js.Value, alloc, heapGrew uint64) {
	t.Helper()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	s, frames = readSummary(t, b)
	runtime.ReadMemStats(&m1)
	return s, frames, m1.TotalAlloc - m0.TotalAlloc, max(m1.HeapSys, m0.HeapSys) - m0.HeapSys
}

// TestCaptureCheckBudget: kwire check's rules, applied to every exchange
// of a capture with records decoded, spend at most checkBudget on the
// whole capture, and the page is told how many exchanges were left
// unjudged and that kwire check judges them all. Each of these 24
// Produce requests, the hostile corpus's 232-byte zstd batch of 140,000
// records, costs the check 2^18 nodes and some 0.2 s (the probe's 100 of
// them, a 594-byte pcap.gz: 24.5 s, 483 MiB, nothing said); the old code
// judged all 24, the budget stops at 16.
func TestCaptureCheckBudget(t *testing.T) {
	flood, err := os.ReadFile("../../testdata/hostile/flood-zstd-records-1mib.bin")
	if err != nil {
		t.Fatal(err)
	}
	const n = 24
	var client []byte
	for i := 0; i < n; i++ {
		f := append([]byte(nil), flood...)
		binary.BigEndian.PutUint32(f[8:], uint32(i)) // correlation id
		client = append(client, f...)
	}
	start := time.Now()
	s, frames, alloc, _ := readMeasured(t, onePcap(client, nil))
	judged := 0
	for _, x := range s.Exchanges {
		if len(x.Findings) > 0 {
			judged++
		}
	}
	t.Logf("%d exchanges, %d judged: %v, %d MB allocated", len(s.Exchanges), judged, time.Since(start), alloc>>20)
	if len(s.Exchanges) != n || frames.Length() != 2*n {
		t.Errorf("%d exchanges and %d frames listed, want all %d: the budget stops checking, not listing", len(s.Exchanges), frames.Length(), n)
	}
	if judged == 0 || judged > 17 {
		t.Errorf("%d of %d exchanges judged: want at most 17 (checkBudget's nodes are 16 such frames')", judged, n)
	}
	want := "kwire check's rules judged " + strconv.Itoa(judged) + " of the 24 exchanges listed (the first to complete) and left " + strconv.Itoa(n-judged) +
		" unjudged: the page checks a capture with at most 4,194,304 nodes, 256 MiB decompressed and 1 GiB of work in all (checkBudget); kwire check judges them all"
	if len(s.Notes) == 0 || s.Notes[0] != want {
		t.Errorf("notes %q, want first %q", s.Notes, want)
	}
	if checkBudget.MaxNodes != 4194304 || checkBudget.MaxDecompressed != 256<<20 || checkBudget.MaxWork != 1<<30 {
		t.Errorf("checkBudget %+v: the note says another", checkBudget)
	}
}

// TestCaptureListBounded: a capture of many tiny exchanges (60,000
// ApiVersions v0 requests and answers of 14 and 14 bytes, 1.7 MB of pcap)
// lists the first maxListed, hands the page their frames only, and says
// how many it left out, of which APIs, and that kwire pcap and kwire check
// read them all; memory grows with what is listed. It held every
// exchange (the probe's 200,000: 54 s, 700 MiB, an 83 MB summary; its
// 1,000,000 from 36 KB of gzip: over 3.2 GB): here the old code's heap
// grew by 95 MB and it allocated 236 MB (now 15 and 61).
func TestCaptureListBounded(t *testing.T) {
	const n = 60000
	var client, broker []byte
	for i := 0; i < n; i++ {
		client = binary.BigEndian.AppendUint32(client, 10)
		client = append(client, 0, 18, 0, 0) // ApiVersions v0
		client = binary.BigEndian.AppendUint32(client, uint32(i))
		client = append(client, 0xff, 0xff) // no client id
		broker = binary.BigEndian.AppendUint32(broker, 10)
		broker = binary.BigEndian.AppendUint32(broker, uint32(i))
		broker = append(broker, 0, 0, 0, 0, 0, 0) // no error, no APIs
	}
	s, frames, alloc, grew := readMeasured(t, onePcap(client, broker))
	t.Logf("%d exchanges listed: heap grew %d MB, %d MB allocated", len(s.Exchanges), grew>>20, alloc>>20)
	if grew > 48<<20 || alloc > 128<<20 {
		t.Errorf("reading %d tiny exchanges grew the heap by %d MB and allocated %d MB, want under 48 and 128", n, grew>>20, alloc>>20)
	}
	if len(s.Exchanges) != maxListed || frames.Length() != 2*maxListed {
		t.Fatalf("%d exchanges and %d frames handed to the page, want the first %d", len(s.Exchanges), frames.Length(), maxListed)
	}
	for i, x := range s.Exchanges {
		if x.CorrelationID != i || x.APIName != "ApiVersions" {
			t.Fatalf("exchange %d: %+v, want the capture's %dth, in order", i, x, i+1)
		}
	}
	want := "50000 of the capture's 60000 exchanges are not listed or checked (ApiVersions 50000): the page lists the first 10000 (by their first packet), their frames at most 128 MiB; the per-API summary counts them all, but for errors and expected codes; kwire pcap and kwire check read them all"
	if len(s.Notes) == 0 || s.Notes[0] != want {
		t.Errorf("notes %q, want first %q", s.Notes, want)
	}
}
