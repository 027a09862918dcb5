package budget

import "testing"

// A limit set above zero is kept; zero and below mean the default.
func TestLimit(t *testing.T) {
	for _, c := range []struct{ v, d, want int }{{5, 9, 5}, {1, 9, 1}, {0, 9, 9}, {-1, 9, 9}, {-1 << 40, 9, 9}, {1 << 40, 9, 1 << 40}} {
		if got := Limit(c.v, c.d); got != c.want {
			t.Errorf("Limit(%d, %d) = %d, want %d", c.v, c.d, got, c.want)
		}
	}
}
