package resolve

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/kwire/kwire/internal/hostile"
)

// fuzzFS is the folder FuzzFiles reads: in is files separated by NUL
// bytes, each its path up to its first newline and its text after it
// (at most fuzzFiles of them, those whose path is a valid one: a name
// such as "../x.proto" stays in the texts, as an import).
func fuzzFS(in []byte) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, f := range bytes.Split(in, []byte{0}) {
		if len(fsys) == fuzzFiles {
			break
		}
		name, text, _ := bytes.Cut(f, []byte("\n"))
		if n := string(name); fs.ValidPath(n) && n != "." {
			fsys[n] = &fstest.MapFile{Data: text}
		}
	}
	return fsys
}

const fuzzFiles = 64

// fuzzInput is fuzzFS's input for the files named.
func fuzzInput(files map[string]string) []byte {
	var b []byte
	for _, n := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		if b != nil {
			b = append(b, 0)
		}
		b = append(append(append(b, n...), '\n'), files[n]...)
	}
	return b
}

// watchedFS counts what Files asks of a folder and fails on a path that
// is not one inside it.
type watchedFS struct {
	fs.FS
	t  *testing.T
	mu sync.Mutex
	n  int
}

func (w *watchedFS) Open(name string) (fs.File, error) {
	w.mu.Lock()
	w.n++
	w.mu.Unlock()
	if !fs.ValidPath(name) {
		w.t.Errorf("opened %q: a path outside the folder", name)
	}
	return w.FS.Open(name)
}

// FuzzFiles reads any folder of schema files (paths, nesting, imports
// that cycle or name themselves or "../", JSON nested deep, .json files
// that are no schema) as --schemas and the playground do: nothing
// panics, nothing outside the folder is opened, the listing holds only
// paths inside it within its bounds, each lookup opens a bounded number
// of files, and memory stays within a bound of the folder's size.
func FuzzFiles(f *testing.F) {
	for _, files := range []map[string]string{
		{"1.avsc": `{"type":"record","name":"R","fields":[{"name":"a","type":"com.acme.A"}]}`, "types/com.acme.A.avsc": `{"type":"fixed","name":"A","namespace":"com.acme","size":1}`},
		{"1.proto": `syntax = "proto3"; import "1.proto"; message M {}`},
		{"a/1.proto": `syntax = "proto3"; import "b.proto"; message M {}`, "a/b.proto": `syntax = "proto3"; import "a/1.proto"; import "c.proto"; message B {}`, "a/c.proto": `syntax = "proto3"; import "../x.proto"; message C {}`, "x.proto": `syntax = "proto3"; message X {}`},
		{"orders/orders-value.json": `{"type":"object","properties":{"a":{"$ref":"address.json"},"b":{"$ref":"../common/m.json"}}}`, "orders/address.json": `{"$ref":"orders-value.json"}`, "orders/package.json": `{"name":"x","type":"module"}`, "common/m.json": `{"type":"integer"}`},
		{"2.json": strings.Repeat("[", 5000) + strings.Repeat("]", 5000), "deep.json": `{"items":` + strings.Repeat(`{"items":`, 2000) + `{}` + strings.Repeat("}", 2001)},
		{"a/b/c/d/e/f/g/h/i/3.avsc": `"int"`, "a/3.avsc": `"long"`, "b/3.proto": `syntax = "proto3"; message M {}`, "t-key.avsc": `"string"`, "t-value.avsc": `"bytes"`},
		{"0.avsc": `"t002"`, "t000.avsc": `{"type":"record","name":"t000","fields":[{"name":"a","type":"int"}]}`, "t001.avsc": `{"type":"record","name":"t001","fields":[{"name":"a","type":"t000"}]}`, "t002.avsc": `{"type":"record","name":"t002","fields":[{"name":"a","type":"t001"}]}`},
	} {
		f.Add(fuzzInput(files))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		w := &watchedFS{FS: fuzzFS(in), t: t}
		d := NewFiles("fuzz", w)
		lookups := 0
		got := hostile.Allocated(func() {
			sc := d.Scan(true)
			if len(sc.Paths) > MaxEntries {
				t.Fatalf("%d paths listed", len(sc.Paths))
			}
			for _, p := range sc.Paths {
				if !fs.ValidPath(p) || depth(p) > MaxFolderDepth || schemaType(p) == "" {
					t.Fatalf("listed %q", p)
				}
			}
			bounded := func(what string, do func()) {
				w.n = 0
				do()
				lookups++
				if w.n > 4*maxRefs+16 {
					t.Fatalf("%s: %d files opened", what, w.n)
				}
			}
			for _, p := range sc.Paths {
				bounded("Check "+p, func() {
					var ns *NotSchema
					if err := d.Check(p); errors.Is(err, ErrNotSchemaName) && !errors.As(err, &ns) {
						t.Fatalf("Check %s: %v, of a name the listing took for a schema's", p, err)
					}
				})
			}
			for id := range 4 {
				bounded("SchemaByID", func() {
					if s, err := d.SchemaByID(id); s != nil && (err != nil || s.ID != id) {
						t.Fatalf("SchemaByID(%d): %+v, %v", id, s, err)
					}
				})
			}
			for _, key := range []bool{false, true} {
				bounded("SchemaFor", func() { d.SchemaFor("t", key) })
			}
		})
		if limit := uint64(256<<20 + 4096*len(in)); got > limit {
			t.Fatalf("%d bytes allocated for %d bytes of files (%d lookups)", got, len(in), lookups)
		}
	})
}
