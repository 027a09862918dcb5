package resolve

import (
	"fmt"
	"testing"
	"testing/fstest"
)

// avroChain is a folder of n .avsc files, each a record naming the
// record of the one before (com.acme.t000.avsc to t<n-1>), and ids
// schemas 1.avsc ... naming the last.
func avroChain(n, ids int) fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := range n {
		typ := `"int"`
		if i > 0 {
			typ = fmt.Sprintf(`"com.acme.t%03d"`, i-1)
		}
		fsys[fmt.Sprintf("types/com.acme.t%03d.avsc", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`{"type":"record","name":"t%03d","namespace":"com.acme","fields":[{"name":"a","type":%s}]}`, i, typ))}
	}
	for i := range ids {
		fsys[fmt.Sprintf("%d.avsc", i+1)] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`"com.acme.t%03d"`, n-1))}
	}
	return fsys
}

// BenchmarkFilesAvroChain checks every file of a folder of 200 .avsc
// files, each naming the type of the one before, and 50 schemas naming
// the last (kwire's --schemas at start): each file's references are
// parsed once for the folder, not once for each schema needing them.
func BenchmarkFilesAvroChain(b *testing.B) {
	fsys := avroChain(200, 50)
	b.ReportAllocs()
	for b.Loop() {
		f := NewFiles("given", fsys)
		for _, p := range f.Scan(true).Paths {
			if err := f.Check(p); err != nil {
				b.Fatalf("%s: %v", p, err)
			}
		}
	}
}
