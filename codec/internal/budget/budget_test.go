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

// A warning prints as a DecodeError does: where, then what.
func TestWarningString(t *testing.T) {
	if got := (Warning{Offset: 95, Path: "body.x", Message: "recordCount is 3 but the batch holds 2 records"}).String(); got != "at byte 95 (body.x): recordCount is 3 but the batch holds 2 records" {
		t.Fatal(got)
	}
	if got := (Warning{Offset: 7, Buf: 2, Message: "m"}).String(); got != "at byte 7 of derived buffer 2: m" {
		t.Fatal(got)
	}
}
