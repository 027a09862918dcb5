package jsontext

import (
	"bytes"
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// PutInt and AppendInt write what strconv.AppendInt writes, at every number of digits
// and its edges, signs and the extremes, quoted or not.
func TestPutInt(t *testing.T) {
	vals := []int64{0, 1, 9, 10, 99, 100, -1, -9, -10, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for p := int64(1); p > 0 && p <= math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, -p+1, -p, -p-1, 10*p-1)
	}
	rnd := rand.New(rand.NewSource(1))
	for i := 0; i < 10000; i++ {
		vals = append(vals, rnd.Int63()>>rnd.Intn(63), -rnd.Int63()>>rnd.Intn(63))
	}
	for x := int64(0); x < 1e8; x += 9973 { // eightDigits' lanes at many values
		vals = append(vals, x, 1e8+x, 99999999-x, 1e16+x*1e8)
	}
	buf := make([]byte, 64)
	for _, v := range vals {
		want := strconv.AppendInt([]byte("x"), v, 10)
		buf[0] = 'x'
		if got := buf[:PutInt(buf, 1, v)]; !bytes.Equal(got, want) {
			t.Fatalf("PutInt(%d) = %s, want %s", v, got, want)
		}
		if got := AppendInt([]byte("x"), v); !bytes.Equal(got, want) {
			t.Fatalf("AppendInt(%d) = %s, want %s", v, got, want)
		}
		want = append(strconv.AppendInt([]byte(`x"`), v, 10), '"')
		if got := buf[:PutInt64(buf, 1, v, true)]; !bytes.Equal(got, want) {
			t.Fatalf("PutInt64(%d, quoted) = %s, want %s", v, got, want)
		}
	}
}
