package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

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

// captureIn is the capture kwire pcap and kwire check read from in:
// itself, or, for a text dump of whole packets, a pcapng of its packets,
// said on stderr. A text that is no such dump is no capture either.
func captureIn(stderr io.Writer, file string, in io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	head, _ := br.Peek(4)
	if isCapture(head) || !textStart(head) {
		return br, nil // the capture reader says what it is not
	}
	if file == "-" {
		// Piped from a live tcpdump -X, nothing would show until it
		// stopped: say why, and what shows each exchange as it comes.
		fmt.Fprintf(stderr, "kwire: -: text is read to its end before any packet in it is decoded; for exchanges as they happen, pipe the capture itself (tcpdump -U -w - | kwire pcap -)\n")
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
		return nil, fmt.Errorf("%w, nor a text dump of whole packets (tshark -x, tcpdump -X): kwire decode reads frames", capture.ErrFormat)
	}
	return nil, err
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
