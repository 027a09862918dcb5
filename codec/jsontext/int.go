package jsontext

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// IntRoom is the room PutInt needs after n: an int64's digits and sign.
const IntRoom = 20

// AppendInt appends v's decimal digits, as strconv.AppendInt(dst, v, 10).
func AppendInt(dst []byte, v int64) []byte {
	if uint64(v) < 10 { // the commonest: one digit
		return append(dst, byte('0'+v))
	}
	if cap(dst)-len(dst) < IntRoom {
		dst = slices.Grow(dst, IntRoom)
	}
	return dst[:PutInt(dst[:cap(dst)], len(dst), v)]
}

// AppendInt64 appends an int64 field's value: v's digits, quoted when
// quote (the Int64Strings option).
func AppendInt64(dst []byte, v int64, quote bool) []byte {
	if cap(dst)-len(dst) < IntRoom+2 {
		dst = slices.Grow(dst, IntRoom+2)
	}
	return dst[:PutInt64(dst[:cap(dst)], len(dst), v, quote)]
}

// PutInt stores v's decimal digits (as strconv.AppendInt) at buf[n:],
// which has IntRoom bytes of room, and returns where they end: written in
// place, eight or two digits a step, with no buffer of their own to copy
// out of.
func PutInt(buf []byte, n int, v int64) int {
	u := uint64(v)
	if v < 0 {
		buf[n] = '-'
		n++
		u = -u
	}
	if u < 10 {
		buf[n] = '0' + byte(u)
		return n + 1
	}
	if u < 100 {
		buf[n], buf[n+1] = digitPairs[u*2], digitPairs[u*2+1]
		return n + 2
	}
	// Digits: about log10 from the bit length (1233/4096 ~ log10(2)), one
	// more when u reaches the next power of ten.
	d := bits.Len64(u) * 1233 >> 12
	if u >= pow10[d] {
		d++
	}
	end := n + d
	p := end
	_ = buf[n:end]
	for u >= 1e8 { // a timestamp's last 8 digits, say, in one step
		q := u / 1e8
		binary.BigEndian.PutUint64(buf[p-8:p], eightDigits(u-q*1e8))
		p -= 8
		u = q
	}
	for u >= 100 {
		k := u % 100 * 2
		u /= 100
		p -= 2
		buf[p], buf[p+1] = digitPairs[k], digitPairs[k+1]
	}
	if u >= 10 {
		buf[p-2], buf[p-1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		buf[p-1] = '0' + byte(u)
	}
	return end
}

// PutInt64 is PutInt for an int64 field: its digits quoted when quote
// (the Int64Strings option). buf has IntRoom+2 bytes of room.
func PutInt64(buf []byte, n int, v int64, quote bool) int {
	if !quote {
		return PutInt(buf, n, v)
	}
	buf[n] = '"'
	n = PutInt(buf, n+1, v)
	buf[n] = '"'
	return n + 1
}

// eightDigits is x (< 1e8) as 8 ASCII digits, the first in the top byte:
// split into lanes of 4 digits, then of 2, then of 1, all lanes at once
// (a multiply and a shift divide each lane, exact for the lanes' sizes).
func eightDigits(x uint64) uint64 {
	hi := x / 10000
	v := hi<<32 | (x - hi*10000)
	q := v * 10486 >> 20 & 0x0000007f_0000007f // /100 of each 32-bit lane
	v = q<<16 | (v - q*100)
	q = v * 103 >> 10 & 0x000f000f_000f000f // /10 of each 16-bit lane
	v = q<<8 | (v - q*10)
	return v | 0x30303030_30303030
}

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}
