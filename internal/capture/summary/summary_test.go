package summary

import (
	"testing"
	"time"

	"github.com/kwire/kwire/codec/schema"
)

// Two latencies, one a 501 ms long poll: the 99th percentile and the
// maximum are the long poll (issue 24: it showed as the 0.22 ms one).
func TestPercentileSmallCounts(t *testing.T) {
	var l Latencies
	l.Add(220 * time.Microsecond)
	l.Add(501 * time.Millisecond)
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{.5, 220 * time.Microsecond}, {.9, 501 * time.Millisecond}, {.99, 501 * time.Millisecond}, {1, 501 * time.Millisecond}} {
		if got := l.Percentile(c.p); got != c.want {
			t.Errorf("p%v of two = %v, want %v", c.p*100, got, c.want)
		}
	}
	if l.Max() != 501*time.Millisecond || l.Count() != 2 || l.Sampled() {
		t.Errorf("max %v count %d sampled %v", l.Max(), l.Count(), l.Sampled())
	}
	var one Latencies
	one.Add(3 * time.Millisecond)
	if one.Percentile(.5) != 3*time.Millisecond || one.Percentile(.99) != 3*time.Millisecond {
		t.Error("one latency is every percentile")
	}
	var none Latencies
	if none.Percentile(.99) != 0 {
		t.Error("no latencies: 0")
	}
}

// Nearest rank over 1..100: the p-th percentile is p itself.
func TestPercentileNearestRank(t *testing.T) {
	var l Latencies
	for i := 100; i >= 1; i-- {
		l.Add(time.Duration(i))
	}
	for _, p := range []int{1, 10, 50, 90, 99} {
		if got := l.Percentile(float64(p) / 100); got != time.Duration(p) {
			t.Errorf("p%d = %d", p, got)
		}
	}
	for n, want := range map[int]int{1: 0, 2: 1, 3: 2, 100: 98, 1000: 989} {
		if got := Rank(.99, n); got != want {
			t.Errorf("Rank(.99, %d) = %d, want %d", n, got, want)
		}
	}
}

// Past MaxLatencies the percentiles come from a uniform sample, close to
// the truth; the maximum stays exact.
func TestLatencySample(t *testing.T) {
	var l Latencies
	n := 4 * MaxLatencies
	for i := 1; i <= n; i++ {
		l.Add(time.Duration(i) * time.Microsecond)
	}
	if !l.Sampled() {
		t.Fatal("not sampled")
	}
	for _, p := range []float64{.5, .9, .99} {
		got := float64(l.Percentile(p) / time.Microsecond)
		if want := p * float64(n); got < want*0.97 || got > want*1.03 {
			t.Errorf("p%v = %v, want about %v", p*100, got, want)
		}
	}
	if l.Percentile(1) != time.Duration(n)*time.Microsecond || l.Max() != time.Duration(n)*time.Microsecond {
		t.Error("the maximum is exact")
	}
}

func TestExpected(t *testing.T) {
	for _, c := range []struct {
		key, code int16
		want      bool
	}{
		{schema.KeyJoinGroup, schema.CodeMemberIDRequired, true},
		{schema.KeySyncGroup, schema.CodeMemberIDRequired, false},
		{schema.KeyHeartbeat, schema.CodeRebalanceInProgress, true},
		{schema.KeySyncGroup, schema.CodeRebalanceInProgress, true},
		{schema.KeyOffsetCommit, schema.CodeRebalanceInProgress, true},
		{schema.KeyMetadata, schema.CodeLeaderNotAvailable, true},
		{schema.KeyFindCoordinator, schema.CodeCoordinatorNotAvailable, true},
		{schema.KeyJoinGroup, schema.CodeUnknownMemberID, false},
		{schema.KeyProduce, schema.CodeNotLeaderOrFollower, false},
		{schema.KeyFetch, schema.CodeNone, false},
	} {
		if got := Expected(c.key, c.code); got != c.want {
			t.Errorf("Expected(%d, %d) = %v", c.key, c.code, got)
		}
	}
}
