package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/input"
)

// A text dump of several packets (tshark -x of a capture, tcpdump -X,
// Wireshark's "Copy as Hex Dump" of several packets) is a capture:
// kwire pcap and kwire check read its packets (input.ParsePackets) as a
// pcapng written in memory (capture.PcapngWriter), so they go through
// the capture reader's reassembly, pairing and notes as a pcap's do;
// kwire decode and kwire batch, which read frames, say so and send the
// user there.

// textCapture reads raw, a text dump of whole packets, as a capture: a
// pcapng of its packets (capture.DumpPcapng), and the dump. The error
// wraps input.ErrNoPackets when raw is no such text.
func textCapture(raw []byte) ([]byte, *input.PacketDump, error) {
	d, err := input.ParsePackets(raw)
	if err != nil {
		return nil, nil, err
	}
	return capture.DumpPcapng(d), d, nil
}

// readAsCapture says that the dump d is read as a capture, and, with
// times set, what its times are where the dump gave none or no date.
func readAsCapture(d *input.PacketDump, times bool) string {
	note := "read as a capture: " + d.Name()
	if n := d.TimesNote(); times && n != "" {
		note += "; " + n
	}
	return note
}

// manyPackets is the error of kwire decode and kwire batch for a text
// dump of several packets (nil for anything else): they read frames,
// and kwire pcap and kwire check read such a text as the capture it is.
// name is the file's, "" for standard input.
func manyPackets(raw []byte, name, reads string) error {
	d, err := input.ParsePackets(raw)
	if err != nil || len(d.Packets) < 2 {
		return nil
	}
	if name == "" {
		name = "-"
	}
	return errors.New(d.Name() + ": " + reads + "; kwire pcap " + name +
		" reads them as a capture (frames reassembled across packets, requests paired with their responses), and kwire check " +
		name + " applies the protocol rules to them")
}

// captureKind is "pcap" or "pcapng" when raw starts as such a file does,
// else "" (gzip's magic too: maybe a capture, maybe not).
func captureKind(raw []byte) string {
	switch {
	case len(raw) < 4 || !isCapture(raw[:4]) || raw[0] == 0x1f:
		return ""
	case raw[0] == 0x0a:
		return "pcapng"
	}
	return "pcap"
}

// capturePassed is the error of kwire decode and kwire batch for raw,
// an input that starts as a pcap or pcapng file does (nil for any
// other): a capture, which kwire pcap and kwire check read. No frame
// starts so: its size would be negative or over 100 MiB. name is the
// file's, "" for standard input.
func capturePassed(raw []byte, name, reads string) error {
	kind := captureKind(raw)
	if kind == "" {
		return nil
	}
	if name == "" {
		name = "-"
	}
	return errors.New("a " + kind + " capture, not frames: " + reads + "; kwire pcap " + name +
		" decodes the Kafka conversations it holds, and kwire check " + name + " applies the protocol rules to them")
}

// captureIn is the capture kwire pcap and kwire check read from in:
// itself, or, for a text dump of whole packets, a pcapng of its packets,
// said on stderr. A text that is no such dump is no capture either.
func captureIn(stderr io.Writer, file string, in io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(4)
	if len(head) == 4 && !isCapture(head) && !textStart(head) {
		// Bytes, no capture: a frame file, most often. (The capture
		// reader's "unknown magic" gave them as a little-endian number.)
		return nil, fmt.Errorf("%w: it starts % x, no capture file's magic: kwire decode reads frames, and kwire check their protocol rules", capture.ErrFormat, head)
	}
	if isCapture(head) || !textStart(head) {
		return br, nil // the capture reader says what it is not
	}
	if file == "-" {
		// Piped, maybe from a live tcpdump -l -X: each exchange shows
		// as it comes.
		return streamCapture(stderr, br)
	}
	raw, err := io.ReadAll(br)
	if err != nil {
		return nil, err
	}
	pcapng, d, err := textCapture(raw)
	switch {
	case err == nil:
		fmt.Fprintf(stderr, "kwire: %s: %s\n", file, readAsCapture(d, true))
		return bytes.NewReader(pcapng), nil
	case errors.Is(err, input.ErrNoPackets):
		return nil, noDump()
	}
	return nil, err
}

// noDump is the error of a text that is no dump of whole packets.
func noDump() error {
	return fmt.Errorf("%w, nor a text dump of whole packets (tshark -x, tcpdump -X): kwire decode reads frames", capture.ErrFormat)
}

// textPause is how long a text dump on standard input must pause before
// an open dump that holds a whole packet is read (input.PacketStream):
// tcpdump -l writes a packet's lines one by one, and the next packet's
// first line is what otherwise ends a dump.
const textPause = 20 * time.Millisecond

// streamCapture reads the text dump in (tcpdump -l -X, tshark -l -x) as
// it comes, for kwire pcap (streamText). A text with no packet is an
// error here, as a text read whole is.
func streamCapture(stderr io.Writer, in io.Reader) (io.Reader, error) {
	s, ts, err := streamText(stderr, in, true)
	if err != nil {
		s.Close()
		if errors.Is(err, input.ErrNoPackets) {
			return nil, noDump()
		}
		return nil, err
	}
	return ts, nil
}

// streamText reads the text dump in as it comes (input.PacketStream): a
// pcapng of its packets, each written as soon as its dump ends, so the
// capture reader sees each exchange once its response's dump has ended.
// It waits for the first packet: the error is that of a text that gives
// none (s.Text() then holds it). What it reads is said on stderr, at the
// first packet and at the end, with what its times are when times is
// set; a mistake in a later dump ends the capture (textFailed).
func streamText(stderr io.Writer, in io.Reader, times bool) (*input.PacketStream, *textStream, error) {
	s := input.NewPacketStream(in, textPause)
	s.Waiting = func(why string) { fmt.Fprintf(stderr, "kwire: -: %s\n", why) }
	p, err := s.Next()
	if err != nil {
		return s, nil, err
	}
	fmt.Fprintf(stderr, "kwire: -: %s, read as a capture packet by packet as it comes\n", s.Kind())
	pr, pw := io.Pipe()
	ts := &textStream{PipeReader: pr}
	go func() {
		defer s.Close()
		var w capture.PcapngWriter
		var b []byte
		for ; err == nil; p, err = s.Next() {
			b = w.Append(b[:0], capture.Packet{Data: p.Data, Time: p.Time, Link: uint32(p.LinkType)})
			if _, err := pw.Write(b); err != nil {
				return // the capture reader stopped
			}
		}
		if err != io.EOF {
			ts.err = err
			pw.CloseWithError(err)
			return
		}
		note := "read as a capture: " + s.Name()
		if n := s.TimesNote(); times && n != "" {
			note += "; " + n
		}
		fmt.Fprintf(stderr, "kwire: -: %s\n", note)
		pw.Close()
	}()
	return s, ts, nil
}

// textStream is the pcapng streamCapture writes; err, once it is read to
// its end, is the text's mistake that ended it (the capture reader takes
// an error of its input for a capture cut short), which fails the command
// as a text read whole fails.
type textStream struct {
	*io.PipeReader
	err error
}

// textFailed is the mistake a text dump streamed in ended with, or nil.
func textFailed(in io.Reader) error {
	if ts, ok := in.(*textStream); ok {
		return ts.err
	}
	return nil
}

// textStart says whether a file that starts with head may be text: a
// printable or blank ASCII character, or a byte order mark (UTF-8, or
// UTF-16, which PowerShell's > writes). No capture starts so.
func textStart(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	c := head[0]
	return c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' || c == '\r' || c == 0xef || c == 0xff || c == 0xfe
}
