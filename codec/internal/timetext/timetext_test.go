package timetext

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// RFC3339 writes what time.Format(time.RFC3339) writes: at the ends of
// the years (leap years' 29 February and 31 December among them), at
// zero and negative Unix times, at year 0 and before it (time writes
// -0001), past 9999 and at time's zero, nanosecond fractions left out,
// in UTC and in zones east and west, with offsets that are not whole
// minutes or hours, and at random instants over a range wider than
// kwire check's claims can give (|s| <= 1e11).
func TestRFC3339MatchesFormat(t *testing.T) {
	zones := []*time.Location{
		time.UTC,
		time.FixedZone("east", 5*3600+30*60),
		time.FixedZone("west", -(9*3600 + 30*60)),
		time.FixedZone("sec", -30),      // under a minute west: +00:00, as time writes it
		time.FixedZone("secs", 3600+59), // the seconds dropped
		time.FixedZone("far", -(99*3600 + 59*60)),
		time.FixedZone("farther", 150*3600), // hours of three digits
	}
	var times []time.Time
	for _, y := range []int{-292277022399, -100000, -10000, -9999, -1000, -101, -100, -4, -1, 0, 1, 4, 99, 100, 400, 1600, 1899, 1900, 1969, 1970, 1971, 1999, 2000, 2004, 2023, 2024, 2100, 2400, 9999, 10000, 12345, 100000, 292277026596} {
		for _, md := range [][2]int{{1, 1}, {2, 28}, {2, 29}, {3, 1}, {12, 31}} {
			for _, ns := range []int{0, 1, 999999999} {
				times = append(times, time.Date(y, time.Month(md[0]), md[1], 23, 59, 59, ns, time.UTC),
					time.Date(y, time.Month(md[0]), md[1], 0, 0, 0, ns, time.UTC))
			}
		}
	}
	for _, s := range []int64{0, -1, 1, 1e9, -1e9, 1e11, -1e11, math.MaxInt32, math.MinInt32, 1700000000} {
		for _, ns := range []int64{0, 1, 500000000, 999999999, -1} {
			times = append(times, time.Unix(s, ns))
		}
	}
	times = append(times, time.Time{}, time.Unix(1<<62, 0), time.Unix(-1<<62, 0))
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		times = append(times, time.Unix(r.Int64N(4e11)-2e11, r.Int64N(1e9)))
	}
	for _, tm := range times {
		for _, z := range zones {
			tz := tm.In(z)
			if got, want := RFC3339(tz), tz.Format(time.RFC3339); got != want {
				t.Fatalf("%v in %s: %q, time.Format writes %q", tm.UnixNano(), z, got, want)
			}
		}
	}
	// The zone is the time's own: Local as well.
	now := time.Now()
	if got, want := RFC3339(now), now.Format(time.RFC3339); got != want {
		t.Fatalf("now: %q, time.Format writes %q", got, want)
	}
}

// Duration writes what time.Duration.String writes: zero, each unit's
// bounds, fractions of every length, whole hours with zero minutes and
// seconds, the extremes, negatives, and random durations of every
// magnitude.
func TestDurationMatchesString(t *testing.T) {
	ds := []time.Duration{0, 1, 9, 10, 999, 1000, 1001, 1500, 999999, 1000000, 1000001, 1500000,
		999999999, time.Second, time.Second + 1, 30 * time.Second, 59 * time.Second, time.Minute,
		time.Minute + time.Second, time.Hour, time.Hour + time.Nanosecond, 100 * time.Hour,
		2562047*time.Hour + 47*time.Minute + 16*time.Second,
		math.MaxInt64, math.MinInt64, math.MinInt64 + 1}
	for i := time.Duration(1); i > 0 && i < math.MaxInt64/10; i *= 10 {
		ds = append(ds, i-1, i, i+1, 3*i/2)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		d := time.Duration(r.Int64() >> r.IntN(64))
		ds = append(ds, d, d.Round(time.Second), d.Round(time.Millisecond), d.Truncate(time.Minute))
	}
	for _, d := range ds {
		for _, d := range []time.Duration{d, -d} {
			if got, want := Duration(d), d.String(); got != want {
				t.Fatalf("%d: %q, time.Duration.String writes %q", int64(d), got, want)
			}
		}
	}
}
