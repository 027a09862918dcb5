//go:build js && wasm

package main

import (
	"os"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/wasm/internal/glue"
)

// A whole packet pasted as tshark -x prints it reads as its TCP payload,
// and parseInput says so for the page's status; one with no payload is an
// error that says why.
func TestParseInputWholePacket(t *testing.T) {
	dump, err := os.ReadFile("../internal/input/testdata/packets/p8.tshark-x")
	if err != nil {
		t.Fatal(err)
	}
	r := parseInput(js.Undefined(), []js.Value{js.ValueOf(string(dump)), js.ValueOf("auto")}).(map[string]any)
	if r["error"] != nil {
		t.Fatal(r["error"])
	}
	b := glue.Bytes(r["bytes"].(js.Value))
	if len(b) != 29 || b[3] != 25 || r["sizePrefix"] != true || r["format"] != "wireshark" ||
		r["packet"] != "a whole packet (Ethernet, IPv4, TCP port 47164 to 19092): its 66 bytes of headers are stripped, its TCP payload of 29 bytes decoded" {
		t.Errorf("parseInput = %x, %v", b, r)
	}
	// Its first 54 bytes, the IPv4 length made 40 (no checksum) and the
	// TCP header 20 bytes: a segment without data.
	lines := strings.SplitAfter(string(dump), "\n")
	ack := strings.Join(lines[:3], "") + "0030  00 40 fe 45 00 00\n"
	ack = strings.Replace(ack, "0010  00 51 a8 05 40 00 40 06 94 9f", "0010  00 28 a8 05 40 00 40 06 00 00", 1)
	ack = strings.Replace(ack, "94 9a 80 18", "94 9a 50 18", 1)
	r = parseInput(js.Undefined(), []js.Value{js.ValueOf(ack), js.ValueOf("auto")}).(map[string]any)
	if e, _ := r["error"].(string); !strings.HasSuffix(e, "with no TCP payload: no Kafka bytes to decode") {
		t.Errorf("no payload: %v", r)
	}
}

// Several packets' dumps (two of kfake-clients.pcapng, as tshark -x
// printed each) are no frame: parseInput says the text may be a capture's
// packets, which the page then hands to the capture module; one packet's
// dump still decodes (above), and text that is no dump is only an error.
func TestParseInputPackets(t *testing.T) {
	var text []byte
	for _, f := range []string{"kfake-4.tshark-x", "kfake-6.tshark-x"} {
		b, err := os.ReadFile("../internal/input/testdata/packets/" + f)
		if err != nil {
			t.Fatal(err)
		}
		text = append(text, b...)
	}
	for _, mode := range []string{"auto", "hex"} {
		r := parseInput(js.Undefined(), []js.Value{js.ValueOf(string(text)), js.ValueOf(mode)}).(map[string]any)
		if r["packets"] != true || r["error"] == nil || r["bytes"] != nil {
			t.Errorf("%s: %v, want an error with packets set", mode, r)
		}
	}
	r := parseInput(js.Undefined(), []js.Value{js.ValueOf("00 01 0g"), js.ValueOf("auto")}).(map[string]any)
	if r["packets"] != false || r["error"] == nil {
		t.Errorf("bad hex: %v", r)
	}
}
