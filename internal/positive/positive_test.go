package positive

import (
	"testing"
	"time"
)

func TestOr(t *testing.T) {
	for _, c := range []struct{ v, d, want int }{
		{0, 7, 7},
		{-1, 7, 7},
		{1, 7, 1},
		{100, 7, 100},
	} {
		if got := Or(c.v, c.d); got != c.want {
			t.Errorf("Or(%d, %d) = %d, want %d", c.v, c.d, got, c.want)
		}
	}
	if got := Or(-time.Second, 15*time.Second); got != 15*time.Second {
		t.Errorf("Or(-1s, 15s) = %v, want 15s", got)
	}
	if got := Or(2*time.Second, 15*time.Second); got != 2*time.Second {
		t.Errorf("Or(2s, 15s) = %v, want 2s", got)
	}
}
