package main

import (
	"testing"
	"time"
)

// The comparison with -base is the median of each round's ratio, and the
// count of rounds the new binary won: a machine that slows for a round
// slows both runs of it.
func TestPairedRatio(t *testing.T) {
	runs := func(s ...float64) []result {
		var rs []result
		for _, x := range s {
			rs = append(rs, result{cpu: time.Duration(x * float64(time.Second))})
		}
		return rs
	}
	before, after := runs(10, 20, 10), runs(5, 40, 9) // ratios 0.5, 2, 0.9
	if got := pairedRatio(before, after); got != 0.9 {
		t.Errorf("pairedRatio = %v, want 0.9", got)
	}
	if got := faster(before, after); got != 2 {
		t.Errorf("faster = %d, want 2", got)
	}
	if got := pairedRatio(runs(1, 1, 1, 1), runs(1, 2, 3, 4)); got != 2.5 {
		t.Errorf("pairedRatio of an even count = %v, want 2.5", got)
	}
}
