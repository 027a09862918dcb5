package hostile

import "runtime"

// The allocation bound of the fuzz targets (codec's FuzzDecodeAlloc,
// records' FuzzRecordsAlloc): with small limits, decoding a frame or a
// records field and writing its value JSON may allocate a small multiple
// of the input plus what the limits allow (issue 11: memory grows with
// work done, never with a size or count the input declares).
const (
	FuzzMaxNodes        = 1 << 14
	FuzzMaxDecompressed = 1 << 20
	fuzzPerInputByte    = 64
	fuzzPerNode         = 512     // a node, its share of child slices, warnings and JSON
	fuzzSlack           = 8 << 20 // decompressors' state (an lz4 block buffer is 4 MiB)
)

// FuzzAllocBound is what decoding n bytes may allocate under the fuzz
// limits.
func FuzzAllocBound(n int) uint64 {
	return uint64(fuzzPerInputByte*n + 4*FuzzMaxDecompressed + fuzzPerNode*FuzzMaxNodes + fuzzSlack)
}

// Allocated is what fn allocates: runtime.MemStats' TotalAlloc around
// it, garbage included.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
