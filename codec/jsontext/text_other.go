//go:build !amd64 || purego

package jsontext

// haveEscapeBlocks: no vector step here (see text_amd64.go).
const haveEscapeBlocks = false

func escapeBlocks(dst, src []byte) (read, written int) { return 0, 0 }
