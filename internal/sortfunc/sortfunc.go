// Package sortfunc sorts n things by index, through a less and a swap
// function, into the order sort.Slice and sort.SliceStable give (the
// same algorithms: sort.Sort's and sort.Stable's), without the slice
// in an interface. sort.Slice takes its slice as an interface and
// slices.SortFunc's generic dictionary names its type, and either way the
// linker keeps the methods of every type the elements hold that an
// interface could call: time.Time's String, and with it time's layout
// formatter, some 20 KB gzip of capture.wasm, for sorting connections,
// exchanges and packets, which hold times (wasm/capture's sorts, and
// internal/capture's, internal/input's and summary's that it links).
// The codec's and storage's sorts use it too: a module that links both
// this and sort.Slice carries two copies of the sorting code and
// sort.Slice's reflective swapper, 3.7 KB gzip of capture.wasm.
package sortfunc

import "sort"

// Slice sorts the n things less and swap index into sort.Slice's order
// (not stable).
func Slice(n int, less func(i, j int) bool, swap func(i, j int)) {
	sort.Sort(funcs{n, less, swap})
}

// Stable sorts the n things less and swap index, keeping equal ones in
// the order they were, as sort.SliceStable does.
func Stable(n int, less func(i, j int) bool, swap func(i, j int)) {
	sort.Stable(funcs{n, less, swap})
}

// funcs is sort.Interface over the two functions: no type of the
// things sorted appears in it.
type funcs struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (f funcs) Len() int           { return f.n }
func (f funcs) Less(i, j int) bool { return f.less(i, j) }
func (f funcs) Swap(i, j int)      { f.swap(i, j) }
