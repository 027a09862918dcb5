//go:build js && wasm

package check

// treeLess: see treeless.go.
const treeLess = false
