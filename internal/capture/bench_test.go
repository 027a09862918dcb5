package capture

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/kwire/kwire/internal/bench/traffic"
)

// benchCapture builds a capture with n frames (n/2 exchanges) over 10
// connections, several frames per packet sometimes, as pcap.
func benchCapture(tb testing.TB, n int) []byte {
	b := newTB(tb, layers.LinkTypeEthernet)
	var convs []*cv
	for i := 0; i < 10; i++ {
		v := b.conv("10.0.0.1:"+itoa(40000+i), "10.0.0.2:9092")
		v.handshake()
		convs = append(convs, v)
	}
	body := bytes.Repeat([]byte{1}, 200)
	for i := 0; i < n/2; i++ {
		v := convs[i%len(convs)]
		corr := int32(i / len(convs))
		v.req(kreq(1, 11, corr, "consumer-1", body[:60]))
		v.resp(kresp(corr, body))
	}
	return b.pcap()
}

func itoa(i int) string {
	return string(appendInt(nil, i))
}

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

func BenchmarkRead(b *testing.B) {
	const frames = 100000
	data := benchCapture(b, frames)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		r, err := Read(bytes.NewReader(data), Options{})
		if err != nil || r.Frames != frames {
			b.Fatalf("%v %d", err, r.Frames)
		}
	}
	b.ReportMetric(float64(frames)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

func BenchmarkReadFunc(b *testing.B) {
	const frames = 100000
	data := benchCapture(b, frames)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		_, err := ReadFunc(bytes.NewReader(data), Options{}, func(*Exchange) { n++ })
		if err != nil || n != frames/2 {
			b.Fatalf("%v %d", err, n)
		}
	}
	b.ReportMetric(float64(frames)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkReadFuncTraffic reads realistic traffic (package traffic:
// Metadata, Produce and Fetch frames of up to 10 KB cut into 1448-byte
// segments over 10 connections): reassembly across segments, not one
// frame a packet.
func BenchmarkReadFuncTraffic(b *testing.B) {
	var buf bytes.Buffer
	st, err := traffic.WritePcap(&buf, traffic.PcapOptions{Pairs: 3000, Conns: 10, InFlight: 4})
	if err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		_, err := ReadFunc(bytes.NewReader(data), Options{}, func(*Exchange) { n++ })
		if err != nil || n != 3000 {
			b.Fatalf("%v %d", err, n)
		}
	}
	b.ReportMetric(float64(st.Frames)*float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkReadSmall reads a capture of 2 KB (testdata/captures'
// kafka.pcap), as the playground reads a pasted capture and the fuzzer
// its inputs: what a read costs whatever its size (buffers, the engine)
// weighs here, not the bytes.
func BenchmarkReadSmall(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(captures, "kafka.pcap"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
