package input

import (
	"encoding/base64"
	"errors"
	"strconv"
)

// isBase64Char reports whether c is base64: either alphabet, or padding.
func isBase64Char(c byte) bool { return charClass[c]&classBase64 != 0 }

// strayChars counts the characters of b that are neither base64 (either
// alphabet, and padding) nor whitespace.
func strayChars(b []byte) int {
	n := 0
	for _, c := range b {
		if charClass[c] == 0 {
			n++
		}
	}
	return n
}

// parseBase64 decodes src[lo:hi] as base64, standard or URL alphabet, padded
// or not, ignoring whitespace. In strict mode (used when guessing) the
// unused bits of the last character must be zero, as every encoder makes
// them.
func parseBase64(t text, lo, hi int, strict bool) ([]byte, error) {
	s := t.src
	if lo >= hi {
		return nil, t.errAt(-1, ErrEmpty, "empty input")
	}
	clean := make([]byte, 0, hi-lo)
	std, url := -1, -1 // offsets of the first alphabet-specific characters
	pad := -1          // offset of the first '='
	for i := lo; i < hi; i++ {
		c := s[i]
		if isSpace(c) {
			continue
		}
		if !isBase64Char(c) {
			return nil, t.badChar(i, "base64")
		}
		if c == '=' {
			if pad < 0 {
				pad = i
			}
		} else if pad >= 0 {
			return nil, t.errAt(pad, ErrBase64, "padding '=' in the middle of base64")
		}
		switch c {
		case '+', '/':
			if std < 0 {
				std = i
			}
		case '-', '_':
			if url < 0 {
				url = i
			}
		}
		clean = append(clean, c)
	}
	if std >= 0 && url >= 0 {
		at := std
		if url > std {
			at = url
		}
		return nil, t.errAt(at, ErrBase64, "base64 mixes the standard (+/) and URL (-_) alphabets")
	}
	var enc *base64.Encoding
	switch {
	case url >= 0 && pad >= 0:
		enc = base64.URLEncoding
	case url >= 0:
		enc = base64.RawURLEncoding
	case pad >= 0:
		enc = base64.StdEncoding
	default:
		enc = base64.RawStdEncoding
	}
	if strict {
		enc = enc.Strict()
	}
	if pad >= 0 && len(clean)%4 != 0 {
		return nil, t.errAt(hi, ErrBase64, "padded base64 length "+strconv.Itoa(len(clean))+" is not a multiple of 4")
	}
	if len(clean)%4 == 1 {
		return nil, t.errAt(hi, ErrBase64, "truncated base64: "+strconv.Itoa(len(clean))+" characters is one too many or three too few")
	}
	out := make([]byte, enc.DecodedLen(len(clean)))
	n, err := enc.Decode(out, clean)
	if err != nil {
		var ce base64.CorruptInputError
		at := hi
		if errors.As(err, &ce) {
			at = nthNonSpace(s, lo, hi, int(ce))
		}
		return nil, t.errAt(at, ErrBase64, "invalid base64 data")
	}
	return out[:n], nil
}

// nthNonSpace returns the offset of the n-th (0-based) non-space byte of
// src[lo:hi], or hi.
func nthNonSpace(src []byte, lo, hi, n int) int {
	for i := lo; i < hi; i++ {
		if isSpace(src[i]) {
			continue
		}
		if n == 0 {
			return i
		}
		n--
	}
	return hi
}
