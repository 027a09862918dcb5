//go:build amd64 && !purego

package main

// hexBlocks decodes src's digits, 32 at a time, into dst, 16 bytes at a
// time, for as long as dst has room and a step's 32 bytes are all hex
// digits (either case); it returns the steps done. In SSE2 (hex_amd64.s):
// hexValue's loop of table look-ups reads about 3 GB/s of digits, a third
// of kwire batch's time on realistic lines, and no library in reach (the
// standard library's encoding/hex is a byte at a time) does it in vectors.
//
//go:noescape
func hexBlocks(dst, src []byte) int
