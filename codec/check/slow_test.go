package check

import "testing"

// TestUnpairedResponsesNotGuessed: found by FuzzCheck: a file of 16384
// empty frames, each a response to no request, had every one read by
// guessing its API and version among all of them (milliseconds each).
// Responses without their request are not decoded: each is a stray
// response (conn.correlation), and that they were not decoded is said
// once.
func TestUnpairedResponsesNotGuessed(t *testing.T) {
	frames := make([][]byte, 1<<14)
	for i := range frames {
		frames[i] = []byte{0, 0, 0, 0}
	}
	fs := Check(FromFrames(frames))
	strays, skipped := 0, 0
	for _, f := range fs {
		switch {
		case f.Skipped && f.Rule == FrameDecode:
			skipped++
		case f.Rule == ConnCorrelation && !f.Skipped:
			strays++
		default:
			t.Fatalf("unexpected finding: %s", f.String())
		}
	}
	if strays != len(frames) || skipped != 1 {
		t.Fatalf("%d stray responses flagged, %d skips said; want %d and 1", strays, skipped, len(frames))
	}
}
