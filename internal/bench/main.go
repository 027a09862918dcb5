// Command compare measures kwire beside its peers on the same bytes, in one
// run, and prints the ratios. The traffic is realistic (package traffic):
// Metadata v9, Produce v7 and Fetch v11 exchanges with record batches,
// versions tshark 4.0 decodes too.
//
//   - kwire batch on N frames (one NDJSON object a line), on one core and
//     on all, beside a program doing the same with franz-go's kmsg and
//     encoding/json, parsing every record batch and record with kmsg's
//     readers (one core);
//   - kwire pcap on a capture of the same N frames (N/2 exchanges over 10
//     connections), on one core and on all, beside
//     tshark -d tcp.port==9092,kafka -T json;
//   - kwire check on the same capture, beside kwire pcap (target: at most
//     1.5 times its time);
//   - kwire pcap's peak memory on a capture and on one ten times larger;
//   - with -base, each kwire command also run with that binary (the one
//     before a change), in turn with the rest, and the two compared: the
//     median of each round's ratio of CPU time, which a machine whose
//     speed drifts from run to run leaves fairer than two medians do.
//
// Every child runs under a small helper (this program, -rusage) that
// reports its wall time, CPU time and peak resident set: Go starts
// children with vfork, which makes Linux count a grown parent's peak in
// the child's ru_maxrss, so the measuring process must stay small.
//
// Usage: go run ./internal/bench [-n 6000] [-rounds 5] [-kwire bin/kwire] [-base old/kwire] [-tshark=false]
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func main() {
	n := flag.Int("n", 6000, "frames (half as many exchanges in the capture)")
	kwire := flag.String("kwire", "bin/kwire", "the kwire binary")
	useTshark := flag.Bool("tshark", true, "also time tshark")
	peer := flag.Bool("peer", false, "run as the kmsg + encoding/json peer: NDJSON lines on stdin")
	rusage := flag.Bool("rusage", false, "run the command in the arguments and report its resources on stderr")
	keep := flag.String("keep", "", "write the inputs to this folder and keep them")
	rounds := flag.Int("rounds", 5, "runs of each command, taken in turn; the medians are shown")
	base := flag.String("base", "", "another kwire binary (before a change) to run each kwire command with too, in turn, and compare")
	flag.Parse()
	switch {
	case *peer:
		runPeer()
		return
	case *rusage:
		os.Exit(runMeasured(flag.Args()))
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
	lines := filepath.Join(dir, "frames.ndjson")
	pcap := filepath.Join(dir, "frames.pcap")
	st := write(lines, func(w io.Writer) (traffic.Stats, error) { return traffic.WriteNDJSON(w, *n) })
	write(pcap, func(w io.Writer) (traffic.Stats, error) {
		return traffic.WritePcap(w, traffic.PcapOptions{Pairs: *n / 2, Conns: 10, InFlight: 4})
	})
	mb := float64(st.Bytes) / 1e6
	fmt.Printf("%d frames of Metadata v9, Produce v7, Fetch v11 (requests and responses), %.1f MB of frames\n\n", st.Frames, mb)

	self, _ := os.Executable()
	m := measurer{self: self, frames: st.Frames, mb: mb}
	oneCore := []string{"GOMAXPROCS=1"}
	cmds := []command{
		{"kwire batch (1 core)", oneCore, "", *kwire, []string{"batch", "--jobs", "1", lines}},
		{"kwire batch (all cores)", nil, "", *kwire, []string{"batch", lines}},
		{"kmsg + encoding/json", oneCore, lines, self, []string{"-peer"}},
		{"kwire pcap (1 core)", oneCore, "", *kwire, []string{"pcap", "--jobs", "1", pcap}},
		{"kwire pcap (all cores)", nil, "", *kwire, []string{"pcap", pcap}},
		{"kwire check (1 core)", oneCore, "", *kwire, []string{"check", "--fail-on", "none", "--jobs", "1", pcap}},
	}
	tshark := false
	if _, err := exec.LookPath("tshark"); err == nil && *useTshark {
		tshark = true
		cmds = append(cmds, command{"tshark -T json", nil, "", "tshark", []string{"-r", pcap, "-d", "tcp.port==9092,kafka", "-T", "json"}})
	}
	kwireCmds := len(cmds)
	if *base != "" {
		for _, c := range cmds[:kwireCmds] {
			if c.name == *kwire {
				c.label, c.name = "base: "+c.label, *base
				cmds = append(cmds, c)
			}
		}
	}
	res, runs := m.measureAll(cmds, max(*rounds, 1))
	fmt.Printf("medians of %d runs of each, taken in turn\n\n", max(*rounds, 1))
	fmt.Println("batch, value JSON per frame (NDJSON in, NDJSON out):")
	kb1, _, peerRes := m.show(cmds[0], res[0]), m.show(cmds[1], res[1]), m.show(cmds[2], res[2])
	fmt.Printf("  kwire batch (1 core) vs kmsg + encoding/json: %.2fx less CPU, %.2fx faster\n", peerRes.cpu.Seconds()/kb1.cpu.Seconds(), peerRes.wall.Seconds()/kb1.wall.Seconds())
	m.perCore("kwire batch (1 core)", kb1, lines, "NDJSON")

	fmt.Println("\ncapture of the same frames:")
	kp1, kpAll, kc1 := m.show(cmds[3], res[3]), m.show(cmds[4], res[4]), m.show(cmds[5], res[5])
	m.perCore("kwire pcap (1 core)", kp1, pcap, "capture")
	fmt.Printf("  kwire check vs kwire pcap (1 core): %.2fx the time, %.2fx the CPU (target: at most 1.5x)\n", kc1.wall.Seconds()/kp1.wall.Seconds(), kc1.cpu.Seconds()/kp1.cpu.Seconds())
	if tshark {
		ts := m.show(cmds[6], res[6])
		fmt.Printf("  kwire pcap vs tshark -T json: %.1fx faster (all cores), %.1fx (1 core); %.1fx less CPU\n",
			ts.wall.Seconds()/kpAll.wall.Seconds(), ts.wall.Seconds()/kp1.wall.Seconds(), ts.cpu.Seconds()/kpAll.cpu.Seconds())
	}

	if *base != "" {
		fmt.Printf("\n%s (base) and %s, in turn: CPU, and the median of the rounds' ratios\n", *base, *kwire)
		for i, j := 0, kwireCmds; j < len(cmds); i++ {
			if cmds[i].name != *kwire {
				continue
			}
			fmt.Printf("  %-24s %7.2fs -> %7.2fs CPU   %.3fx the CPU (faster in %d of %d rounds)\n", cmds[i].label,
				res[j].cpu.Seconds(), res[i].cpu.Seconds(), pairedRatio(runs[j], runs[i]), faster(runs[j], runs[i]), len(runs[i]))
			j++
		}
	}

	fmt.Println("\nkwire pcap's peak memory as the capture grows tenfold:")
	var peaks [2]int64
	for i, pairs := range []int{3000, 30000} {
		file := filepath.Join(dir, "grow.pcap")
		s := write(file, func(w io.Writer) (traffic.Stats, error) {
			return traffic.WritePcap(w, traffic.PcapOptions{Pairs: pairs, Conns: 10, InFlight: 4})
		})
		r := measure(self, nil, "", *kwire, "pcap", file)
		peaks[i] = r.maxrss
		fmt.Printf("  %6d exchanges, %5.0f MB of frames: peak RSS %6.1f MiB, %.2fs\n", pairs, float64(s.Bytes)/1e6, float64(r.maxrss)/1024, r.wall.Seconds())
		os.Remove(file)
	}
	fmt.Printf("  tenfold capture: %.2fx the peak memory\n", float64(peaks[1])/float64(peaks[0]))
}

func write(path string, fn func(io.Writer) (traffic.Stats, error)) traffic.Stats {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	st, err := fn(f)
	if err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	return st
}

// result is what one measured run cost.
type result struct {
	wall, cpu time.Duration
	maxrss    int64 // KiB
}

type measurer struct {
	self   string
	frames int
	mb     float64
}

// command is one measured command line.
type command struct {
	label string
	env   []string
	stdin string
	name  string
	args  []string
}

// measureAll runs every command rounds times, one of each in turn (a
// slow drift of the machine then falls on all alike), and returns each
// one's median wall and CPU time and its largest peak memory (one run of
// a tenth of a second varies by half from the next), and every run.
func (m *measurer) measureAll(cmds []command, rounds int) ([]result, [][]result) {
	runs := make([][]result, len(cmds))
	for range rounds {
		for i, c := range cmds {
			runs[i] = append(runs[i], measure(m.self, c.env, c.stdin, c.name, c.args...))
		}
	}
	out := make([]result, len(cmds))
	for i, rs := range runs {
		var walls, cpus []time.Duration
		for _, r := range rs {
			walls, cpus = append(walls, r.wall), append(cpus, r.cpu)
			out[i].maxrss = max(out[i].maxrss, r.maxrss)
		}
		out[i].wall, out[i].cpu = median(walls), median(cpus)
	}
	return out, runs
}

// pairedRatio is the median over the rounds of after's CPU time over
// before's in the same round.
func pairedRatio(before, after []result) float64 {
	r := make([]float64, len(before))
	for i := range before {
		r[i] = after[i].cpu.Seconds() / before[i].cpu.Seconds()
	}
	return median(r)
}

// faster counts the rounds in which after took less CPU than before.
func faster(before, after []result) int {
	n := 0
	for i := range before {
		if after[i].cpu < before[i].cpu {
			n++
		}
	}
	return n
}

func median[T time.Duration | float64](d []T) T {
	slices.Sort(d)
	if len(d)%2 == 1 {
		return d[len(d)/2]
	}
	return (d[len(d)/2-1] + d[len(d)/2]) / 2
}

// show prints a command's line: time, CPU, frames/s, MB/s of frames, peak
// memory.
func (m *measurer) show(c command, r result) result {
	label := c.label
	fmt.Printf("  %-24s %7.2fs wall %7.2fs CPU %9.0f frames/s %7.1f MB/s %7.1f MiB peak\n",
		label, r.wall.Seconds(), r.cpu.Seconds(), float64(m.frames)/r.wall.Seconds(), m.mb/r.wall.Seconds(), float64(r.maxrss)/1024)
	return r
}

// perCore prints what a one-core run did per CPU-second (issue 25's
// measure: MB/s per core of realistic input), in MB of frames and in MB of
// the file it read (hex NDJSON is twice its frames; a capture adds its
// packet headers).
func (m *measurer) perCore(label string, r result, input, what string) {
	fi, err := os.Stat(input)
	if err != nil {
		log.Fatal(err)
	}
	in := float64(fi.Size()) / 1e6
	cpu := r.cpu.Seconds()
	fmt.Printf("  %s per CPU-second: %.1f MB of frames, %.1f MB of input (%.1f MB of %s)\n", label, m.mb/cpu, in/cpu, in, what)
}

// measure runs a command under this program's -rusage helper.
func measure(self string, env []string, stdin string, name string, args ...string) result {
	cmd := exec.Command(self, append([]string{"-rusage", "--", name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			log.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	var wall, cpu, rss int64
	if _, err := fmt.Sscanf(string(out), "%d %d %d", &wall, &cpu, &rss); err != nil {
		log.Fatalf("%s: %q: %v", name, out, err)
	}
	return result{wall: time.Duration(wall), cpu: time.Duration(cpu), maxrss: rss}
}

// runMeasured runs args with its output discarded and prints its wall
// time and CPU time (ns) and peak resident set (KiB) on standard output.
func runMeasured(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = os.Stdin
	// Output goes straight to /dev/null: through a pipe, this launcher
	// would spend a core's share copying it, which on a 2-core machine
	// took from a command using every core what one using one never missed.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer null.Close()
	cmd.Stdout, cmd.Stderr = null, null
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	fmt.Printf("%d %d %d\n", wall.Nanoseconds(), cpu.Nanoseconds(), ru.Maxrss)
	return 0
}

// runPeer reads the same NDJSON lines and does the same job with kmsg and
// encoding/json: parse the line, decode the header and body, parse every
// record batch and record with kmsg's readers, print JSON.
func runPeer() {
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if out, ok := peerLine(line); ok {
				w.Write(out)
				w.WriteByte('\n')
			}
		}
		if err != nil {
			return
		}
	}
}

func peerLine(line []byte) ([]byte, bool) {
	var in struct {
		Hex        string
		Direction  string
		APIKey     int16
		APIVersion int16
	}
	if json.Unmarshal(line, &in) != nil {
		return nil, false
	}
	b, err := hex.DecodeString(in.Hex)
	if err != nil || len(b) < 8 {
		return nil, false
	}
	b = b[4:]
	req := kmsg.RequestForKey(in.APIKey)
	if req == nil {
		return nil, false
	}
	req.SetVersion(in.APIVersion)
	var msg interface {
		ReadFrom([]byte) error
		SetVersion(int16)
	}
	var hdr any
	if in.Direction == "response" {
		corr := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if req.IsFlexible() && in.APIKey != 18 {
			b = b[1:] // an empty tag section
		}
		hdr = map[string]any{"correlationId": corr}
		msg = req.ResponseKind()
	} else {
		h, rest, err := readHeader(b, req.IsFlexible())
		if err != nil {
			return nil, false
		}
		b, hdr, msg = rest, h, req
	}
	msg.SetVersion(in.APIVersion)
	if msg.ReadFrom(b) != nil {
		return nil, false
	}
	out, err := json.Marshal(map[string]any{"direction": in.Direction, "apiKey": in.APIKey, "apiVersion": in.APIVersion,
		"header": hdr, "body": msg, "records": peerRecords(msg)})
	return out, err == nil
}

// peerBatch is a record batch with its records read.
type peerBatch struct {
	kmsg.RecordBatch
	Records []kmsg.Record `json:"records"`
}

// peerRecords reads the record batches of a Produce request or a Fetch
// response, and their records, with kmsg.
func peerRecords(msg any) []peerBatch {
	var out []peerBatch
	switch m := msg.(type) {
	case *kmsg.ProduceRequest:
		for i := range m.Topics {
			for j := range m.Topics[i].Partitions {
				p := &m.Topics[i].Partitions[j]
				out = appendBatches(out, p.Records)
				p.Records = nil // shown parsed, not also as base64
			}
		}
	case *kmsg.FetchResponse:
		for i := range m.Topics {
			for j := range m.Topics[i].Partitions {
				p := &m.Topics[i].Partitions[j]
				out = appendBatches(out, p.RecordBatches)
				p.RecordBatches = nil
			}
		}
	}
	return out
}

// appendBatches reads back-to-back magic-2 record batches (uncompressed,
// as the benchmark's are) and every record in them.
func appendBatches(out []peerBatch, b []byte) []peerBatch {
	for len(b) >= 12 {
		n := 12 + int(int32(binary.BigEndian.Uint32(b[8:])))
		if n < 12 || n > len(b) {
			break
		}
		var pb peerBatch
		if pb.RecordBatch.ReadFrom(b[:n]) != nil {
			break
		}
		recs := pb.RecordBatch.Records
		for i := int32(0); i < pb.NumRecords && len(recs) > 0; i++ {
			l, k := binary.Varint(recs)
			if k <= 0 || int(l) < 0 || k+int(l) > len(recs) {
				break
			}
			var rec kmsg.Record
			if rec.ReadFrom(recs[:k+int(l)]) != nil {
				break
			}
			pb.Records = append(pb.Records, rec)
			recs = recs[k+int(l):]
		}
		pb.RecordBatch.Records = nil
		out = append(out, pb)
		b = b[n:]
	}
	return out
}

func readHeader(b []byte, flexible bool) (map[string]any, []byte, error) {
	// api key, version, correlation id, nullable client id, tags (v2).
	if len(b) < 10 {
		return nil, nil, io.ErrUnexpectedEOF
	}
	h := map[string]any{
		"requestApiKey":     int16(binary.BigEndian.Uint16(b)),
		"requestApiVersion": int16(binary.BigEndian.Uint16(b[2:])),
		"correlationId":     int32(binary.BigEndian.Uint32(b[4:])),
	}
	n := int(int16(binary.BigEndian.Uint16(b[8:])))
	b = b[10:]
	if n > len(b) {
		return nil, nil, io.ErrUnexpectedEOF
	}
	if n > 0 {
		h["clientId"] = string(b[:n])
		b = b[n:]
	}
	if flexible {
		if len(b) < 1 {
			return nil, nil, io.ErrUnexpectedEOF
		}
		b = b[1:] // empty tag section
	}
	return h, b, nil
}
