package input

import (
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// TestSizedTrying: whole frames followed by more bytes (another frame, a
// frame cut short, a size of zero) are read with their size prefix, the
// first frame and then the rest reported; LooksSizePrefixed alone read
// them as one unsized frame, the size taken for a Produce header of
// version 28. Every example frame without its prefix, request and
// response, stays unsized: its first bytes may split into chance frames,
// which never decode clean.
func TestSizedTrying(t *testing.T) {
	// ApiVersions v3 with an empty client id: no header as clients send
	// it, so LooksSizePrefixed leaves the bytes to SizedTrying (with a
	// client id it says yes itself: TestSizeThatLies).
	apiVersions, err := hex.DecodeString("000000170012000300000007000000076b776972652004312e3000")
	if err != nil {
		t.Fatal(err)
	}
	auto := codec.Options{Auto: true}
	for _, tail := range [][]byte{apiVersions, {0, 0, 0, 0x1c, 0, 18, 0, 3}, {0, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff, 0xff}} {
		b := append(append([]byte{}, apiVersions...), tail...)
		if LooksSizePrefixed(b) {
			t.Fatalf("LooksSizePrefixed(%x) already says yes: the case is not tested", b)
		}
		if !SizeAuto.SizedTrying(b, auto) {
			t.Errorf("SizedTrying(frame + %x) = false, want true", tail)
		}
		if SizeNo.SizedTrying(b, auto) {
			t.Errorf("SizeNo.SizedTrying(frame + %x) = true", tail)
		}
	}
	n := 0
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			m := api.Request
			if resp {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				fr, err := codec.ExampleFrame(api, v, resp)
				if err != nil {
					t.Fatal(err)
				}
				b := fr[4:]
				if LooksSizePrefixed(b) {
					continue // said sized before trying: not this test's case
				}
				o := auto
				if resp {
					o = codec.Options{Response: true, APIKey: api.Key, Version: v}
				}
				if SizeAuto.SizedTrying(b, o) {
					t.Errorf("%s v%d response %v without its prefix read as sized", api.Name, v, resp)
				}
				n++
			}
		}
	}
	if n < 500 {
		t.Fatalf("only %d unsized examples tried", n)
	}
}

// TestSizeThatLies: a size prefix smaller than the bytes after it, before
// a request header as clients send it, where the bytes read without a
// size make no such header (the size's bytes read as Produce v16, a
// version no Kafka has), is the frame's size: the decoder then says that
// it is short of the bytes that follow, where the bytes were read as a
// Produce of an unknown version. Every example request stays unsized
// without its prefix (TestSizedTrying).
func TestSizeThatLies(t *testing.T) {
	fr, err := codec.ExampleFrame(schema.ByKey(0), 9, false)
	if err != nil {
		t.Fatal(err)
	}
	b := append([]byte{0, 0, 0, 16}, fr[4:]...)
	if !LooksSizePrefixed(b) {
		t.Fatalf("LooksSizePrefixed(%x) = false, want true", b)
	}
	_, err = codec.Decode(b, codec.Options{})
	if err == nil || !strings.Contains(err.Error(), "within the 16 bytes its size prefix declares, though "+strconv.Itoa(len(fr)-4)+" follow it") {
		t.Errorf("decode error %v, want it to say the size prefix is short", err)
	}
}
