//go:build js && wasm

package main

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall/js"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the current output")

// TestStorageAnswers opens the partition directories of testdata/storage
// through kwireStorage.open, as the page does (each directory's files
// together, the topic guessed), asks kwireStorage.record for some of the
// listed records, and compares every answer with the one kept in
// testdata, byte for byte: a change to how the answers are written (they
// go through jsontext.Writer) must not change a byte the page reads.
// Under node:
//
//	PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test ./wasm/storage
func TestStorageAnswers(t *testing.T) {
	dirs := map[string][]string{}
	root := "../../testdata/storage"
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "README.md" {
			return err
		}
		dirs[filepath.Dir(path)] = append(dirs[filepath.Dir(path)], path)
		return nil
	})
	if err != nil || len(dirs) < 8 {
		t.Fatalf("storage testdata: %d directories, %v", len(dirs), err)
	}
	for dir, paths := range dirs {
		{
			name := strings.ReplaceAll(strings.TrimPrefix(dir, root+"/"), "/", "_")
			t.Run(name, func(t *testing.T) {
				names, files := js.Global().Get("Array").New(), js.Global().Get("Array").New()
				for _, p := range paths {
					b, err := os.ReadFile(p)
					if err != nil {
						t.Fatal(err)
					}
					a := js.Global().Get("Uint8Array").New(len(b))
					js.CopyBytesToJS(a, b)
					names.Call("push", filepath.Base(p))
					files.Call("push", a)
				}
				var got strings.Builder
				got.WriteString(open(js.Undefined(), []js.Value{names, files, js.Undefined()}).(string))
				n := len(opened.recs)
				for _, id := range []int{0, 1, n / 2, n - 1, n} { // n: no such record
					got.WriteString("\n")
					got.WriteString(record(js.Undefined(), []js.Value{js.ValueOf(id)}).(string))
				}
				golden := filepath.Join("testdata", name+".json")
				if *update {
					if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if got.String() != string(want) {
					g, w := got.String(), string(want)
					i := 0
					for i < len(g) && i < len(w) && g[i] == w[i] {
						i++
					}
					t.Errorf("answers differ from %s at byte %d:\n got %.200s\nwant %.200s", golden, i, g[max(0, i-60):], w[max(0, i-60):])
				}
			})
		}
	}
}
