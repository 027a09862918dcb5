package check

import (
	"os"
	"testing"
)

// TestAnalyzerSpent: Spent sums what every frame an Analyzer read spent,
// so a caller can bound many exchanges together (the playground's
// capture module does): a Produce of 140,000 zstd records spends its
// nodes and decompressed bytes, twice as much read twice.
func TestAnalyzerSpent(t *testing.T) {
	b, err := os.ReadFile("../../testdata/hostile/flood-zstd-records-1mib.bin")
	if err != nil {
		t.Fatal(err)
	}
	z := Analyzer{Limits: Limits{MaxNodes: 1 << 18, MaxDecompressed: 16 << 20}}
	z.Analyze(&Exchange{Conn: &Conn{ID: 1}, Request: b})
	one := z.Spent()
	if one.MaxNodes < 1<<17 || one.MaxDecompressed < 900_000 || one.MaxWork < one.MaxDecompressed {
		t.Fatalf("spent %+v on a flood of 140,000 records", one)
	}
	z.Analyze(&Exchange{Conn: &Conn{ID: 1}, Request: b})
	if two := z.Spent(); two.MaxNodes != 2*one.MaxNodes || two.MaxDecompressed != 2*one.MaxDecompressed || two.MaxWork != 2*one.MaxWork {
		t.Fatalf("spent %+v after two, %+v after one", two, one)
	}
}
