package input

import (
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
	apiVersions, err := codec.ExampleFrame(schema.ByKey(18), 3, false)
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
