package capture

import (
	"encoding/hex"
	"testing"
)

// TestUnhexAsEncodingHex: the key log's hex reads as encoding/hex reads
// it, either case, and a bad digit or an odd or wrong length is refused.
func TestUnhexAsEncodingHex(t *testing.T) {
	for _, src := range []string{"", "00", "0aFf", "DEADbeef", "0g", "g0", "abc", "ab ", "zz", "0123456789abcdefABCDEF00"} {
		dst := make([]byte, len(src)/2)
		ok := unhex(dst, []byte(src))
		want, err := hex.DecodeString(src)
		if ok != (err == nil) || ok && string(dst) != string(want) {
			t.Errorf("unhex(%q) = %x, %v; encoding/hex: %x, %v", src, dst, ok, want, err)
		}
	}
	if unhex(make([]byte, 1), []byte("abcd")) {
		t.Error("unhex took 4 digits into 1 byte")
	}
}
