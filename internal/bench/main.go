// Command compare measures kwire beside its peers on the same bytes, in one
// run, and prints the ratios:
//
//   - kwire batch on 100,000 mixed frames (one NDJSON object a line), beside
//     a small program doing the same with franz-go's kmsg + encoding/json,
//     and beside tshark -T json on the same frames in a capture file;
//   - kwire pcap on that capture, frames per second, beside
//     tshark -d tcp.port==9092,kafka -T json.
//
// Usage: go run ./internal/bench [-n 100000] [-kwire bin/kwire] [-tshark=false]
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type frame struct {
	b        []byte
	response bool
	key, ver int16
}

// mix is the frame mix: the example request and response of the newest
// version of common client APIs.
func mix() []frame {
	var out []frame
	for _, name := range []string{"Produce", "Fetch", "Metadata", "ApiVersions", "FindCoordinator", "JoinGroup", "SyncGroup", "Heartbeat", "OffsetCommit", "OffsetFetch", "ListOffsets"} {
		api := schema.ByName(name)
		// The newest version kmsg knows, so the peer can read it too.
		v := kmsg.RequestForKey(api.Key).MaxVersion()
		if v > api.Request.Valid.Hi {
			v = api.Request.Valid.Hi
		}
		for _, resp := range []bool{false, true} {
			b, err := codec.ExampleFrame(api, v, resp)
			if err != nil {
				log.Fatal(err)
			}
			out = append(out, frame{b, resp, api.Key, v})
		}
	}
	return out
}

func main() {
	n := flag.Int("n", 100000, "frames")
	kwire := flag.String("kwire", "bin/kwire", "the kwire binary")
	useTshark := flag.Bool("tshark", true, "also time tshark")
	peer := flag.Bool("peer", false, "run as the kmsg + encoding/json peer: NDJSON lines on stdin")
	keep := flag.String("keep", "", "write the frames and capture to this folder and keep them")
	flag.Parse()
	if *peer {
		runPeer()
		return
	}
	dir, err := os.MkdirTemp("", "kwire-bench")
	if err != nil {
		log.Fatal(err)
	}
	if *keep != "" {
		dir = *keep
		os.MkdirAll(dir, 0o755)
	} else {
		defer os.RemoveAll(dir)
	}
	frames := mix()
	lines := filepath.Join(dir, "frames.ndjson")
	pcap := filepath.Join(dir, "frames.pcap")
	var inBytes int64
	{
		f, _ := os.Create(lines)
		w := bufio.NewWriter(f)
		for i := 0; i < *n; i++ {
			fr := frames[i%len(frames)]
			l := fmt.Sprintf(`{"hex":"%s","direction":"%s","apiKey":%d,"apiVersion":%d}`+"\n", hex.EncodeToString(fr.b), map[bool]string{false: "request", true: "response"}[fr.response], fr.key, fr.ver)
			inBytes += int64(len(fr.b))
			w.WriteString(l)
		}
		w.Flush()
		f.Close()
	}
	writePcap(pcap, frames, *n)
	fmt.Printf("%d frames, %.1f MB of frames (%d kinds)\n\n", *n, float64(inBytes)/1e6, len(frames))

	self, _ := os.Executable()
	tKwire := timeCmd(*kwire, []string{"batch", "--jobs", "1", lines})
	tKwireAll := timeCmd(*kwire, []string{"batch", lines})
	tPeer := timeCmd(self, []string{"-peer"}, lines)
	mbps := func(d time.Duration) float64 { return float64(inBytes) / 1e6 / d.Seconds() }
	fmt.Printf("batch, value JSON per frame:\n")
	fmt.Printf("  kwire batch (1 core)      %8.2fs %8.1f MB/s\n", tKwire.Seconds(), mbps(tKwire))
	fmt.Printf("  kwire batch (all cores)   %8.2fs %8.1f MB/s\n", tKwireAll.Seconds(), mbps(tKwireAll))
	fmt.Printf("  kmsg + encoding/json      %8.2fs %8.1f MB/s   kwire (1 core) is %.2fx\n", tPeer.Seconds(), mbps(tPeer), tPeer.Seconds()/tKwire.Seconds())
	tPcap := timeCmd(*kwire, []string{"pcap", pcap})
	fmt.Printf("\ncapture of the same frames:\n")
	fmt.Printf("  kwire pcap                %8.2fs %8.0f frames/s\n", tPcap.Seconds(), float64(*n)/tPcap.Seconds())
	if *useTshark {
		if _, err := exec.LookPath("tshark"); err == nil {
			tT := timeCmd("tshark", []string{"-r", pcap, "-d", "tcp.port==9092,kafka", "-T", "json"})
			fmt.Printf("  tshark -T json            %8.2fs %8.0f frames/s   kwire pcap is %.2fx, kwire batch (1 core) %.2fx\n",
				tT.Seconds(), float64(*n)/tT.Seconds(), tT.Seconds()/tPcap.Seconds(), tT.Seconds()/tKwire.Seconds())
		}
	}
}

func timeCmd(name string, args []string, stdin ...string) time.Duration {
	cmd := exec.Command(name, args...)
	cmd.Stdout = io.Discard
	cmd.Stderr = io.Discard
	if len(stdin) > 0 {
		f, err := os.Open(stdin[0])
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			log.Fatalf("%s: %v", name, err)
		}
	}
	return time.Since(start)
}

// runPeer reads the same NDJSON lines and does the same job with kmsg and
// encoding/json: parse, decode the header and body, print JSON.
func runPeer() {
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var in struct {
				Hex        string
				Direction  string
				APIKey     int16
				APIVersion int16
			}
			if json.Unmarshal(line, &in) != nil {
				continue
			}
			b, _ := hex.DecodeString(in.Hex)
			b = b[4:]
			var msg interface {
				ReadFrom([]byte) error
				SetVersion(int16)
			}
			req := kmsg.RequestForKey(in.APIKey)
			var hdr any
			if in.Direction == "response" {
				rsp := req.ResponseKind()
				req.SetVersion(in.APIVersion)
				flexible := req.IsFlexible()
				corr := int32(b[0])<<24 | int32(b[1])<<16 | int32(b[2])<<8 | int32(b[3])
				b = b[4:]
				if flexible && in.APIKey != 18 {
					b = b[1:]
				}
				hdr = map[string]any{"correlationId": corr}
				msg = rsp
			} else {
				req.SetVersion(in.APIVersion)
				h, rest, err := readHeader(b, req.IsFlexible())
				if err != nil {
					continue
				}
				b, hdr, msg = rest, h, req
			}
			msg.SetVersion(in.APIVersion)
			if msg.ReadFrom(b) == nil {
				out, _ := json.Marshal(map[string]any{"direction": in.Direction, "apiKey": in.APIKey, "apiVersion": in.APIVersion, "header": hdr, "body": msg})
				w.Write(out)
				w.WriteByte('\n')
			}
		}
		if err != nil {
			return
		}
	}
}

func readHeader(b []byte, flexible bool) (map[string]any, []byte, error) {
	// api key, version, correlation id, nullable client id, tags (v2).
	if len(b) < 10 {
		return nil, nil, io.ErrUnexpectedEOF
	}
	h := map[string]any{
		"requestApiKey":     int16(b[0])<<8 | int16(b[1]),
		"requestApiVersion": int16(b[2])<<8 | int16(b[3]),
		"correlationId":     int32(b[4])<<24 | int32(b[5])<<16 | int32(b[6])<<8 | int32(b[7]),
	}
	n := int(int16(b[8])<<8 | int16(b[9]))
	b = b[10:]
	if n > 0 {
		h["clientId"] = string(b[:n])
		b = b[n:]
	}
	if flexible {
		b = b[1:] // empty tag section
	}
	return h, b, nil
}

// writePcap writes the frames as one TCP conversation on port 9092:
// requests from the client, responses from the broker, one frame a packet.
func writePcap(path string, frames []frame, n int) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	w := pcapgo.NewWriter(f)
	w.WriteFileHeader(262144, layers.LinkTypeEthernet)
	seq := map[bool]uint32{false: 1000, true: 5000}
	ts := time.Unix(1700000000, 0)
	corr := int32(0)
	for i := 0; i < n; i++ {
		fr := frames[i%len(frames)]
		if !fr.response {
			corr++
		}
		b := append([]byte(nil), fr.b...)
		// Correlation ids must pair requests with their responses.
		at := 8
		if fr.response {
			at = 4
		}
		b[at], b[at+1], b[at+2], b[at+3] = byte(corr>>24), byte(corr>>16), byte(corr>>8), byte(corr)
		src, dst := net.IP{127, 0, 0, 1}, net.IP{127, 0, 0, 2}
		sp, dp := layers.TCPPort(40000), layers.TCPPort(9092)
		if fr.response {
			src, dst, sp, dp = dst, src, dp, sp
		}
		eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2}, EthernetType: layers.EthernetTypeIPv4}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolTCP, SrcIP: src, DstIP: dst}
		tcp := &layers.TCP{SrcPort: sp, DstPort: dp, Seq: seq[fr.response], ACK: true, PSH: true, Ack: seq[!fr.response], Window: 65535}
		tcp.SetNetworkLayerForChecksum(ip)
		buf := gopacket.NewSerializeBuffer()
		if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, eth, ip, tcp, gopacket.Payload(b)); err != nil {
			log.Fatal(err)
		}
		seq[fr.response] += uint32(len(b))
		ts = ts.Add(50 * time.Microsecond)
		data := buf.Bytes()
		w.WritePacket(gopacket.CaptureInfo{Timestamp: ts, CaptureLength: len(data), Length: len(data)}, data)
	}
	_ = strconv.Itoa
}
