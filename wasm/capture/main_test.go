//go:build js && wasm

package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall/js"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/hostile"
	"github.com/kwire/kwire/wasm/internal/glue"
)

var update = flag.Bool("update", false, "rewrite testdata/*.summary.json from the current output")

// TestReadCaptureSummary reads the captures in testdata/captures through
// kwireCapture.read, as the page calls it, and compares the summary the
// page parses with the one kept in testdata, byte for byte: a change to
// how the summary is written (it goes through jsontext.Writer) must not
// change a byte the page reads. Under node:
//
//	PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test ./wasm/capture
func TestReadCaptureSummary(t *testing.T) {
	files, err := filepath.Glob("../../testdata/captures/*.pcap*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, path := range append(files, "../../testdata/captures/README.md") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(b)}).(map[string]any)
			got := ""
			if s, ok := r["summary"].(string); ok {
				got = s
				frames := r["frames"].(js.Value)
				if frames.Length() == 0 {
					t.Error("no frames")
				}
			} else {
				got = `{"error":` + r["error"].(string) + "}"
			}
			golden := filepath.Join("testdata", name+".summary.json")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("summary differs from %s:\n got %.300s\nwant %.300s", golden, got, want)
			}
		})
	}
}

// TestCheckSaysUnframedBytes: the page's check says, as kwire check does,
// that bytes of a connection captured from its start which no frame
// reading could take are not judged.
func TestCheckSaysUnframedBytes(t *testing.T) {
	res := &capture.Result{Notes: []capture.Note{
		{Packet: 4, Conn: &capture.Conn{ID: 1}, Message: "implausible frame header 7f ff ff ff", Unframed: true},
		{Packet: 5, Conn: &capture.Conn{ID: 1}, Message: "an ordinary note"},
	}}
	_, end, _ := checkCapture(res)
	got := string(end)
	if !strings.Contains(got, `"rule":"frame.size"`) || !strings.Contains(got, `"severity":"skipped"`) || !strings.Contains(got, "implausible frame header 7f ff ff ff") {
		t.Fatalf("end findings %s", got)
	}
	if strings.Contains(got, "an ordinary note") {
		t.Fatalf("a note that is not about unframed bytes became a finding: %s", got)
	}
}

// readSummary reads capture bytes through kwireCapture.read, as the page
// calls it, and parses the summary.
func readSummary(t *testing.T, b []byte) (summary, js.Value) {
	t.Helper()
	r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(b)}).(map[string]any)
	s, ok := r["summary"].(string)
	if !ok {
		t.Fatalf("no summary: %v", r["error"])
	}
	var sum summary
	if err := json.Unmarshal([]byte(s), &sum); err != nil {
		t.Fatalf("summary %s: %v", s, err)
	}
	return sum, r["frames"].(js.Value)
}

type finding struct{ Rule, Severity, Text string }

type summary struct {
	Exchanges []struct {
		APIName                         string
		APIKey                          int
		SASLToken                       bool
		Version, CorrelationID          int
		RequestPacket, ResponsePacket   int
		RequestBytes, ResponseBytes     int
		RequestMissing, ResponseMissing int
		Findings                        []finding
	}
	CheckEnd []finding
	Notes    []string
	APIs     []struct { // every exchange's figures, when some are not listed
		API                 string
		Count, Bytes        int
		Versions            [][2]int
		Latencies           int
		P50Ms, P99Ms, MaxMs float64
		Sampled             bool
	}
}

// TestDamagedFrameKept: a frame the capture holds only in part (a lost
// segment inside kafka-ipv6-null.pcapng's third request, a Fetch v11) is
// kept up to the gap, as kwire pcap and kwire check keep it: its exchange
// names its API and pairs with its answer, the summary says how many of
// its bytes were not captured, the page is handed the bytes that were,
// and kwire check's rules leave it unjudged, saying so once at the end as
// kwire check does. (Read without capture.Options.KeepDamaged, the
// request was dropped and its answer shown alone, its API unknown.)
func TestDamagedFrameKept(t *testing.T) {
	b, err := os.ReadFile("../../testdata/captures/kafka-ipv6-null.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	s, frames := readSummary(t, b)
	if len(s.Exchanges) != 4 {
		t.Fatalf("%d exchanges, want 4", len(s.Exchanges))
	}
	x := s.Exchanges[2]
	if x.APIName != "Fetch" || x.Version != 11 || x.CorrelationID != 3 || x.RequestPacket != 8 || x.ResponsePacket != 12 {
		t.Fatalf("exchange 3 %+v, want Fetch v11 correlation 3, request in packet 8 paired with the response in packet 12", x)
	}
	if x.RequestBytes != 30 || x.RequestMissing != 65 || x.ResponseMissing != 0 {
		t.Errorf("request %d bytes, %d missing; response %d missing: want 30, 65 (of 95) and 0", x.RequestBytes, x.RequestMissing, x.ResponseMissing)
	}
	if n := frames.Index(4).Length(); n != 30 {
		t.Errorf("the page is handed %d bytes of the request, want the 30 captured", n)
	}
	for i, x := range s.Exchanges {
		if i != 2 && (x.RequestMissing != 0 || x.ResponseMissing != 0) {
			t.Errorf("exchange %d %+v says bytes are missing", i+1, x)
		}
		for _, f := range x.Findings {
			if f.Severity != "skipped" {
				t.Errorf("exchange %d: %s judged on bytes that end early", i+1, f.Text)
			}
		}
	}
	want := finding{"frame.decode", "skipped", "frame.decode skipped conn 1 correlation 3 request (packet 8): a frame the capture holds only in part (bytes lost, or cut by the snap length, inside it) is not judged"}
	if len(s.CheckEnd) != 1 || s.CheckEnd[0] != want {
		t.Errorf("checkEnd %+v, want %+v", s.CheckEnd, want)
	}
}

// TestSnapLengthFramesKept: kafka.pcap as a capture with a snap length of
// 70 bytes (editcap -s 70) holds its ApiVersions requests and responses
// only in part (16 of their bytes), both sides of an exchange: both are
// kept, each saying how many bytes were not captured, and kwire check's
// rules say once that the five such frames were not judged.
func TestSnapLengthFramesKept(t *testing.T) {
	b, err := os.ReadFile("../../testdata/captures/kafka.pcap")
	if err != nil {
		t.Fatal(err)
	}
	const snap = 70
	le := binary.LittleEndian
	cut := append([]byte(nil), b[:24]...)
	for p := 24; p+16 <= len(b); {
		incl := int(le.Uint32(b[p+8:]))
		keep := min(incl, snap)
		hdr := append([]byte(nil), b[p:p+16]...)
		le.PutUint32(hdr[8:], uint32(keep))
		cut = append(append(cut, hdr...), b[p+16:p+16+keep]...)
		p += 16 + incl
	}
	s, _ := readSummary(t, cut)
	x := s.Exchanges[0]
	if x.APIName != "ApiVersions" || x.CorrelationID != 1 || x.RequestBytes != 16 || x.RequestMissing != 20 || x.ResponseBytes != 16 || x.ResponseMissing != 7 {
		t.Fatalf("exchange 1 %+v: want ApiVersions correlation 1, 16 bytes of each side kept, 20 of the request and 7 of the response missing", x)
	}
	if len(s.CheckEnd) != 1 || !strings.HasPrefix(s.CheckEnd[0].Text, "frame.decode skipped conn 1 correlation 1 request (packet 4): 5 frames the capture holds only in part") {
		t.Errorf("checkEnd %+v", s.CheckEnd)
	}
}

// TestTextDumpSummary: a text of several packets' dumps, as tshark -x
// prints a capture (testdata/textdump, written by its gen.sh), reads as
// that capture: the summary is the capture's own, byte for byte (its
// connections, exchanges, APIs, pairing, packet numbers, sizes, kwire
// check's findings and notes), but for the times, which tshark -x does
// not print (each packet is given one a millisecond after the last, and
// "dump" says so); and with tshark -P -t ad's dated summary lines, the
// times too. A dump of packets with a mistake in it says where.
func TestTextDumpSummary(t *testing.T) {
	timeless := func(t *testing.T, s string) map[string]any {
		t.Helper()
		var v map[string]any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatalf("summary %s: %v", s, err)
		}
		for _, x := range v["exchanges"].([]any) {
			for _, k := range []string{"requestTime", "responseTime", "latencyMs"} {
				delete(x.(map[string]any), k)
			}
		}
		return v
	}
	for _, c := range []struct{ capture, text, times string }{
		{"kafka.pcap", "kafka.pcap.tshark-x.txt", "it gives no times, so each packet is given one a millisecond after the last: times and latencies mean nothing"},
		{"kafka.pcap", "kafka.pcap.tshark-P-x.txt", ""},
		{"kafka-ipv6-null.pcapng", "kafka-ipv6-null.pcapng.tshark-x.txt", "it gives no times, so each packet is given one a millisecond after the last: times and latencies mean nothing"},
		{"kafkajs-clients.pcapng", "kafkajs-clients.pcapng.tshark-x.txt", "it gives no times, so each packet is given one a millisecond after the last: times and latencies mean nothing"},
	} {
		t.Run(c.text, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", c.capture+".summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			text, err := os.ReadFile(filepath.Join("testdata", "textdump", c.text))
			if err != nil {
				t.Fatal(err)
			}
			r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(text)}).(map[string]any)
			got, ok := r["summary"].(string)
			if !ok {
				t.Fatalf("not read as a capture: %v", r["error"])
			}
			if c.times == "" {
				if got != string(want) {
					t.Errorf("summary differs from the capture's:\n got %.300s\nwant %.300s", got, want)
				}
			} else if g, w := timeless(t, got), timeless(t, string(want)); !reflect.DeepEqual(g, w) {
				t.Errorf("summary, times aside, differs from the capture's:\n got %.600s\nwant %.600s", got, want)
			}
			if n := r["frames"].(js.Value).Length(); n != 2*len(timeless(t, got)["exchanges"].([]any)) {
				t.Errorf("%d frames", n)
			}
			d, _ := r["dump"].(map[string]any)
			packets := int(timeless(t, got)["packets"].(float64))
			if d == nil || d["packets"] != packets || d["name"] != "a text dump of "+strconv.Itoa(packets)+" packets (tshark -x or Wireshark's Copy as Hex Dump)" || d["times"] != c.times {
				t.Errorf("dump %v, want %d packets, times %q", d, packets, c.times)
			}
		})
	}
	t.Run("malformed", func(t *testing.T) {
		text, err := os.ReadFile(filepath.Join("testdata", "textdump", "kafka.pcap.tshark-x.txt"))
		if err != nil {
			t.Fatal(err)
		}
		bad := append(append([]byte{}, text...), "0000  00 01\n0002  0g\n"...)
		r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(bad)}).(map[string]any)
		if e, _ := r["error"].(string); !strings.Contains(e, "column 8: unexpected character 'g'") || r["notDump"] != nil {
			t.Errorf("%v, want where the mistake is", r)
		}
		r = readCapture(js.Undefined(), []js.Value{glue.Uint8Array([]byte("0000  00 01\n0000  00 02\n"))}).(map[string]any)
		if e, _ := r["error"].(string); !strings.Contains(e, "not a pcap or pcapng file") || r["notDump"] != true {
			t.Errorf("%v, want no capture and no dump of packets", r)
		}
	})
	t.Run("a pcap stays a pcap", func(t *testing.T) {
		b, err := os.ReadFile("../../testdata/captures/kafka.pcap")
		if err != nil {
			t.Fatal(err)
		}
		r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(b)}).(map[string]any)
		if _, ok := r["dump"]; ok || r["summary"] == nil {
			t.Errorf("a pcap read as %v", r)
		}
	})
}

// TestHostileCaptures reads every capture of the hostile corpus through
// the page's module, under the browser's build: none panics, each gives
// a summary or an error, and the TLS connection that carries its secrets
// is decrypted, as kwire pcap decrypts it.
func TestHostileCaptures(t *testing.T) {
	for _, e := range hostile.Captures() {
		t.Run(e.Name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("../../testdata/hostile", e.File()))
			if err != nil {
				t.Fatal(err)
			}
			r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(b)}).(map[string]any)
			s, ok := r["summary"].(string)
			if !ok {
				if _, ok := r["error"].(string); !ok {
					t.Fatalf("neither a summary nor an error: %v", r)
				}
				return
			}
			if strings.Contains(e.Name, "tls") && !strings.Contains(s, "TLS 1.3 TLS_AES_128_GCM_SHA256") {
				t.Errorf("the TLS connection is not decrypted: %.600s", s)
			}
		})
	}
}

// TestSummaryLatencyRounded: the page's latency is the CLI's, to the
// microsecond and rounded: 1,234,567 ns is 1.235 ms (it was cut to
// 1.234).
func TestSummaryLatencyRounded(t *testing.T) {
	c := &capture.Conn{ID: 1}
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	x := &capture.Exchange{Conn: c, APIKey: 3, APIVersion: 12, CorrelationID: 1,
		Request:  &capture.Frame{Time: at, PacketIndex: 1},
		Response: &capture.Frame{Time: at.Add(1234567), PacketIndex: 2},
		Latency:  1234567}
	out := string(summaryJSON(&capture.Result{Conns: []*capture.Conn{c}, Exchanges: []*capture.Exchange{x}}, [][]byte{nil}, nil, nil))
	if !strings.Contains(out, `"latencyMs":1.235`) {
		t.Fatalf("no latencyMs 1.235 in %s", out)
	}
}

// TestGzippedCaptureSameSummary: a gzipped capture reads as the capture
// itself. capture.wasm inflates it with the standard library's gunzip
// (internal/capture/gunzip_js.go), not klauspost/compress's, which every
// other build uses (run this test with -tags kwire_hostinflate too); a
// damaged stream is said in a note.
func TestGzippedCaptureSameSummary(t *testing.T) {
	b, err := os.ReadFile("../../testdata/captures/kafka.pcap")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	w.Write(b)
	w.Close()
	plain := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(b)}).(map[string]any)
	zipped := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(z.Bytes())}).(map[string]any)
	if plain["summary"] == nil || zipped["summary"] != plain["summary"] {
		t.Fatalf("gzipped capture's summary differs:\n got %.300v\nwant %.300v", zipped, plain["summary"])
	}
	bad := bytes.Clone(z.Bytes())
	bad[len(bad)-5] ^= 0xff // the CRC-32 the trailer holds
	r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(bad)}).(map[string]any)
	if s, _ := r["summary"].(string); !strings.Contains(s, "file truncated or corrupt after packet 23: gzip: invalid checksum") {
		t.Errorf("damaged gzip: got %v, want a note of the checksum error", r)
	}
}
