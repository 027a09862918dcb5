// Package timetext writes a time as time.Format(time.RFC3339) does, and a
// duration as time.Duration.String does, byte for byte (its tests
// compare), without time's layout formatter: Time.Format links
// Time.appendFormat and the layout parser behind it, some 20 KB gzip of
// capture.wasm, which the playground's capture module linked for
// kwire check's OAUTHBEARER findings alone (codec/check's bearerClaims).
package timetext

import "time"

// RFC3339 is t.Format(time.RFC3339): the date and time of day in t's
// location, to the second, then Z for an offset of zero or the offset
// as +hh:mm or -hh:mm (its seconds left out, as time writes it).
func RFC3339(t time.Time) string {
	year, month, day := t.Date()
	hour, min, sec := t.Clock()
	_, offset := t.Zone()
	b := make([]byte, 0, 25)
	b = appendInt(b, year, 4)
	b = append(b, '-')
	b = appendInt(b, int(month), 2)
	b = append(b, '-')
	b = appendInt(b, day, 2)
	b = append(b, 'T')
	b = appendInt(b, hour, 2)
	b = append(b, ':')
	b = appendInt(b, min, 2)
	b = append(b, ':')
	b = appendInt(b, sec, 2)
	if offset == 0 {
		return string(append(b, 'Z'))
	}
	zone := offset / 60 // minutes, the seconds dropped toward zero
	if zone < 0 {
		b = append(b, '-')
		zone = -zone
	} else {
		b = append(b, '+')
	}
	b = appendInt(b, zone/60, 2)
	b = append(b, ':')
	b = appendInt(b, zone%60, 2)
	return string(b)
}

// appendInt appends x in decimal, a minus sign first when it is
// negative, its digits padded with zeros to width.
func appendInt(b []byte, x, width int) []byte {
	u := uint64(x)
	if x < 0 {
		b = append(b, '-')
		u = -u
	}
	var d [20]byte
	i := putUint(d[:], u)
	for n := len(d) - i; n < width; n++ {
		b = append(b, '0')
	}
	return append(b, d[i:]...)
}

// Duration is d.String(): "0s"; under a second, a number of
// nanoseconds, microseconds (µs) or milliseconds with the fraction it
// has ("1.5ms"); otherwise hours, minutes and seconds, each larger unit
// only when it is not zero and every smaller one after it
// ("1h0m2.5s", "3m0s", "45s"); a minus sign first when d is negative.
func Duration(d time.Duration) string {
	var b [32]byte
	w := len(b)
	u := uint64(d)
	if d < 0 {
		u = -u
	}
	switch {
	case u == 0:
		return "0s"
	case u < uint64(time.Microsecond):
		w = put(b[:w], "ns")
		w = putUint(b[:w], u)
	case u < uint64(time.Millisecond):
		w = put(b[:w], "µs")
		w = putFrac(b[:w], u, 3)
	case u < uint64(time.Second):
		w = put(b[:w], "ms")
		w = putFrac(b[:w], u, 6)
	default:
		w = put(b[:w], "s")
		w = putFrac(b[:w], u%uint64(time.Minute), 9)
		if m := u / uint64(time.Minute); m > 0 {
			w = put(b[:w], "m")
			w = putUint(b[:w], m%60)
			if h := m / 60; h > 0 {
				w = put(b[:w], "h")
				w = putUint(b[:w], h)
			}
		}
	}
	if d < 0 {
		w = put(b[:w], "-")
	}
	return string(b[w:])
}

// put writes s at the end of b, returning where it begins.
func put(b []byte, s string) int {
	return len(b) - copy(b[len(b)-len(s):], s)
}

// putUint writes u in decimal at the end of b, returning where it begins.
func putUint(b []byte, u uint64) int {
	w := len(b)
	for {
		w--
		b[w] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			return w
		}
	}
}

// putFrac writes u, a count of units of 10^-prec, as a decimal number at
// the end of b, its fraction's trailing zeros left out (and the point
// with them when none are left), returning where it begins.
func putFrac(b []byte, u uint64, prec int) int {
	w := len(b)
	frac := false
	for i := 0; i < prec; i++ {
		digit := u % 10
		u /= 10
		if frac || digit != 0 {
			w--
			b[w] = byte('0' + digit)
			frac = true
		}
	}
	if frac {
		w--
		b[w] = '.'
	}
	return putUint(b[:w], u)
}
