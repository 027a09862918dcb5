//go:build !amd64 || purego

package main

// hexBlocks has no vector form here: hexValue's loops decode every digit.
func hexBlocks(dst, src []byte) int { return 0 }
