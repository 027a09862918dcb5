package sortfunc

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// thing is a key with many ties and where it was, so that the order of
// equal keys, which sort.Slice does not keep, is compared too.
type thing struct{ key, at int }

// Slice leaves things in the order sort.Slice does, equal keys
// included, and Stable in sort.SliceStable's, for every length up to
// 300 (pdqsort's insertion sort, its pattern breaking and its heapsort
// fallback all reached), keys from few distinct values to all distinct,
// runs already sorted, reversed and random.
func TestSameOrderAsSortSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 0; n <= 300; n++ {
		for _, distinct := range []int{1, 2, 3, 10, n + 1} {
			for shape := range 3 {
				in := make([]thing, n)
				for i := range in {
					in[i] = thing{r.IntN(distinct), i}
				}
				switch shape {
				case 1:
					slices.SortFunc(in, func(a, b thing) int { return a.key - b.key })
				case 2:
					slices.SortFunc(in, func(a, b thing) int { return b.key - a.key })
				}
				for i := range in {
					in[i].at = i
				}
				want, got := slices.Clone(in), slices.Clone(in)
				sort.Slice(want, func(i, j int) bool { return want[i].key < want[j].key })
				Slice(len(got), func(i, j int) bool { return got[i].key < got[j].key }, func(i, j int) { got[i], got[j] = got[j], got[i] })
				if !slices.Equal(got, want) {
					t.Fatalf("n %d, %d keys, shape %d: Slice gave %v, sort.Slice %v", n, distinct, shape, got, want)
				}
				want, got = slices.Clone(in), slices.Clone(in)
				sort.SliceStable(want, func(i, j int) bool { return want[i].key < want[j].key })
				Stable(len(got), func(i, j int) bool { return got[i].key < got[j].key }, func(i, j int) { got[i], got[j] = got[j], got[i] })
				if !slices.Equal(got, want) {
					t.Fatalf("n %d, %d keys, shape %d: Stable gave %v, sort.SliceStable %v", n, distinct, shape, got, want)
				}
			}
		}
	}
	// Larger inputs, where pdqsort's choices of pivot differ most.
	for _, n := range []int{1000, 4096, 20000} {
		in := make([]thing, n)
		for i := range in {
			in[i] = thing{r.IntN(50), i}
		}
		want, got := slices.Clone(in), slices.Clone(in)
		sort.Slice(want, func(i, j int) bool { return want[i].key < want[j].key })
		Slice(len(got), func(i, j int) bool { return got[i].key < got[j].key }, func(i, j int) { got[i], got[j] = got[j], got[i] })
		if !slices.Equal(got, want) {
			t.Fatalf("n %d: Slice differs from sort.Slice", n)
		}
	}
}
