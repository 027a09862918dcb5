package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A tshark -P -x summary line is never a dump line, even where its frame
// number is the offset the dump's next line would have (packet 77's dump
// ends at 0x78, and packet 78's summary line follows), nor where the
// number has four digits, as every frame number from 1000 on has. Both
// were read as a dump's line: "unexpected character '.' in Wireshark hex
// dump", "offset 0x1078 does not follow the previous line".
func TestParsePacketsSummaryNumber(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "summaries", "tshark-Px-77-79.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, text string }{
		{"78 after a dump ending at 0x78", string(b)},
		{"frame numbers of four digits", strings.NewReplacer("   77 ", " 1077 ", "   78 ", " 1078 ", "   79 ", " 1079 ").Replace(string(b))},
		{"frame numbers of five digits", strings.NewReplacer("   77 ", "10077 ", "   78 ", "10078 ", "   79 ", "10079 ").Replace(string(b))},
	} {
		d, err := ParsePackets([]byte(c.text))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(d.Packets) != 3 {
			t.Fatalf("%s: %d packets, want 3", c.name, len(d.Packets))
		}
		for k, want := range []int{120, 66, 66} {
			if got := len(d.Packets[k].Data); got != want {
				t.Errorf("%s: packet %d has %d bytes, want %d", c.name, k+1, got, want)
			}
		}
		want := []time.Duration{248719023, 249046013, 249234510}
		for k, p := range d.Packets {
			if got := p.Time.Sub(time.Unix(0, 0)); got != want[k] {
				t.Errorf("%s: packet %d time %v, want %v", c.name, k+1, got, want[k])
			}
		}
	}
}
