//go:build js && wasm

package main

import (
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/internal/storagedata"
	"github.com/kwire/kwire/wasm/internal/glue"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the current output")

// TestStorageAnswers opens the partition directories of testdata/storage
// through kwireStorage.open, as the page does (each directory's files
// together, as Blobs read in slices, the topic guessed), asks
// kwireStorage.record for some of the listed records, and compares every
// answer with the one kept in testdata, byte for byte: a change to how the
// answers are written (they go through jsontext.Writer) must not change a
// byte the page reads. It runs again with slices of a few bytes, so that
// every entry and index straddles reads. Under node:
//
//	PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test ./wasm/storage
func TestStorageAnswers(t *testing.T) {
	dirs := storageDirs(t)
	for _, chunks := range [][2]int{{chunkMin, chunkMax}, {7, 61}} {
		for dir, paths := range dirs {
			name := strings.ReplaceAll(strings.TrimPrefix(dir, root+"/"), "/", "_")
			t.Run(name+"/chunks"+strconv.Itoa(chunks[0]), func(t *testing.T) {
				defer setChunks(chunks[0], chunks[1])()
				names, files := blobs(t, paths)
				var got strings.Builder
				// A directory's files are a folder's, as the page opens one.
				got.WriteString(await(t, open(js.Undefined(), []js.Value{names, files, js.Undefined(), js.Undefined(), js.ValueOf(true)})))
				n := len(current().recs)
				for _, id := range []int{0, 1, n / 2, n - 1, n} { // n: no such record
					got.WriteString("\n")
					got.WriteString(await(t, record(js.Undefined(), []js.Value{js.ValueOf(id)})))
				}
				golden := filepath.Join("testdata", name+".json")
				if *update && chunks[0] == chunkMin {
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

// TestStorageProgress opens the log directory's orders partition (a
// segment and its indexes) in small slices: the progress reports come
// before the answer, count up to the files' total, and carry every listed
// record once, in order, the first before the segment is half read.
func TestStorageProgress(t *testing.T) {
	defer setChunks(256, 1024)()
	paths := storageDirs(t)[root+"/logdir/orders-0"]
	names, files := blobs(t, paths)
	var reports []map[string]any
	progress := js.FuncOf(func(this js.Value, args []js.Value) any {
		var r map[string]any
		if err := json.Unmarshal([]byte(args[0].String()), &r); err != nil {
			t.Errorf("%v: %s", err, args[0].String())
		}
		reports = append(reports, r)
		return nil
	})
	defer progress.Release()
	var answer struct {
		Records []map[string]any
		Files   []struct{ Size float64 }
	}
	if err := json.Unmarshal([]byte(await(t, open(js.Undefined(), []js.Value{names, files, js.Undefined(), progress.Value}))), &answer); err != nil {
		t.Fatal(err)
	}
	var streamed []any
	var read, total, firstAt float64 = 0, 0, -1
	for _, r := range reports {
		if r["read"].(float64) < read {
			t.Errorf("progress went back: %v after %v", r["read"], read)
		}
		read, total = r["read"].(float64), r["total"].(float64)
		recs := r["records"].([]any)
		if len(recs) > 0 && firstAt < 0 {
			firstAt = read
		}
		streamed = append(streamed, recs...)
	}
	size := 0.0
	for _, f := range answer.Files {
		size += f.Size
	}
	if len(reports) < 5 || total != size || read != size {
		t.Errorf("%d reports, the last %v of %v read; the files hold %v bytes", len(reports), read, total, size)
	}
	if len(answer.Records) < 20 || len(streamed) != len(answer.Records) {
		t.Fatalf("%d records streamed, %d answered", len(streamed), len(answer.Records))
	}
	for i := range streamed {
		if streamed[i].(map[string]any)["offset"] != answer.Records[i]["offset"] || streamed[i].(map[string]any)["value"] != answer.Records[i]["value"] {
			t.Errorf("record %d streamed as %v, answered as %v", i, streamed[i], answer.Records[i])
		}
	}
	if firstAt < 0 || firstAt > size/2 {
		t.Errorf("the first record came after %v bytes of %v", firstAt, size)
	}
}

// TestStorageSuperseded: an open that a later one replaces while it reads
// stops and answers an error; the later one answers in full, and record
// reads its records.
func TestStorageSuperseded(t *testing.T) {
	defer setChunks(64, 64)()
	paths := storageDirs(t)[root+"/logdir/orders-0"]
	names, files := blobs(t, paths)
	first := open(js.Undefined(), []js.Value{names, files, js.Undefined()})
	second := open(js.Undefined(), []js.Value{names, files, js.Undefined()})
	if got := await(t, first); !strings.Contains(got, "superseded") {
		t.Errorf("the first open answered %.200s", got)
	}
	if got := await(t, second); !strings.HasSuffix(got, `"recordCount":42}`) {
		t.Errorf("the second open answered %.200s", got)
	}
	if got := await(t, record(js.Undefined(), []js.Value{js.ValueOf(38)})); !strings.HasPrefix(got, `{"parts":[{"name":"key"`) {
		t.Errorf("record 38: %.200s", got)
	}
}

// TestStorageGuessReadsTheStart: guessing the topic reads a segment's
// first entries, not all of it once per internal topic, when they hold no
// record to try the topics on (here 2,000 transaction markers, a
// transactional producer's commits).
func TestStorageGuessReadsTheStart(t *testing.T) {
	defer setChunks(1024, 1024)()
	marker := storagedata.Batch([]storagedata.Record{{Key: []byte{0, 0, 0, 0}, Value: []byte{0, 0, 0, 0, 0, 0}}},
		storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: 7, Transactional: true, Control: true})
	var seg []byte
	for i := 0; i < 2000; i++ {
		b := append([]byte(nil), marker...)
		storagedata.Place(b, int64(i), 0)
		seg = append(seg, b...)
	}
	blob := js.Global().Get("Blob").New([]any{glue.Uint8Array(seg)})
	read := 0
	slice := js.FuncOf(func(this js.Value, args []js.Value) any {
		read += args[1].Int() - args[0].Int()
		return blob.Call("slice", args[0], args[1])
	})
	defer slice.Release()
	counting := js.Global().Get("Object").New()
	counting.Set("size", len(seg))
	counting.Set("slice", slice)
	got := await(t, open(js.Undefined(), []js.Value{js.ValueOf([]any{"00000000000000000000.log"}), js.ValueOf([]any{counting}), js.Undefined()}))
	if !strings.Contains(got, `"guessed":false`) || !strings.HasSuffix(got, `"recordCount":2000}`) {
		t.Errorf("answered %.300s", got)
	}
	if read > 2*len(seg) {
		t.Errorf("%d bytes read for a segment of %d", read, len(seg))
	}
}

const root = "../../testdata/storage"

// storageDirs are testdata/storage's partition directories with their files.
func storageDirs(t *testing.T) map[string][]string {
	dirs := map[string][]string{}
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
	return dirs
}

// blobs are the files' names and their bytes as Blobs, as the page hands
// Files over.
func blobs(t *testing.T, paths []string) (names, files js.Value) {
	names, files = js.Global().Get("Array").New(), js.Global().Get("Array").New()
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		names.Call("push", filepath.Base(p))
		files.Call("push", js.Global().Get("Blob").New([]any{glue.Uint8Array(b)}))
	}
	return names, files
}

func setChunks(lo, hi int) (restore func()) {
	was := [2]int{chunkMin, chunkMax}
	chunkMin, chunkMax = lo, hi
	return func() { chunkMin, chunkMax = was[0], was[1] }
}

// await is the text a Promise answered by open or record resolves to.
func await(t *testing.T, p any) string {
	t.Helper()
	v, err := glue.Await(p.(js.Value))
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

// TestStorageIndexAlone: an .index opened without its segment has its
// entries checked for order only (no entry is "past the segment's last
// entry" of a segment that is not there), and an .index.deleted opened
// with its .log.deleted is checked against it, as an .index is against
// its .log.
func TestStorageIndexAlone(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 6; i++ {
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}, {Value: []byte("w")}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000000 + int64(i), ProducerID: -1}))
	}
	log, index, _ := storagedata.Segment(0, 0, batches, 1)
	if len(index) < 16 {
		t.Fatalf("index of %d bytes", len(index))
	}
	bad := append([]byte(nil), index...)
	bad[15]++ // entry 1 one byte into its batch
	openFiles := func(files map[string][]byte) string {
		names, blobs := js.Global().Get("Array").New(), js.Global().Get("Array").New()
		for name, b := range files {
			names.Call("push", name)
			blobs.Call("push", js.Global().Get("Blob").New([]any{glue.Uint8Array(b)}))
		}
		return await(t, open(js.Undefined(), []js.Value{names, blobs, js.Undefined()}))
	}
	got := openFiles(map[string][]byte{"00000000000000000000.index": index})
	if strings.Contains(got, "past the segment") || !strings.Contains(got, `"unchecked":true`) {
		t.Errorf("a lone index: %.600s", got)
	}
	got = openFiles(map[string][]byte{"00000000000000000000.log.deleted": log, "00000000000000000000.index.deleted": bad})
	if !strings.Contains(got, "is not the start of an entry of the segment") {
		t.Errorf("a deleted index with its deleted segment: %.600s", got)
	}
}

// TestStorageZstdFloodSegment: a segment of 20 copies of a 184-byte zstd
// batch that declares and holds 140,000 records (3,680 bytes in all) was
// read with the CLI's limits, batch after batch, and by guessTopic once
// per internal topic besides: 7 s and 0.5 GB for one batch in Chromium,
// out of memory at 50. It reads with the browser's limits now (a batch's
// tree within 2^18 nodes, 2^12 for the guess), and records past
// maxRecords, or past maxNodes in all, are counted from their batches'
// headers, with a note that says so.
func TestStorageZstdFloodSegment(t *testing.T) {
	frame, err := os.ReadFile("../../testdata/hostile/flood-zstd-records-1mib.bin")
	if err != nil {
		t.Fatal(err)
	}
	batch := frame[0x30:]
	if len(batch) != 184 || batch[16] != 2 {
		t.Fatalf("no 184-byte batch at 0x30 of the corpus entry: %x", batch[:17])
	}
	var seg []byte
	for i := 0; i < 20; i++ {
		b := append([]byte(nil), batch...)
		storagedata.Place(b, int64(i)*140000, 0)
		seg = append(seg, b...)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got := await(t, open(js.Undefined(), []js.Value{js.ValueOf([]any{"00000000000000000000.log"}),
		js.ValueOf([]any{js.Global().Get("Blob").New([]any{glue.Uint8Array(seg)})}), js.Undefined()}))
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d bytes of segment: %d MiB allocated, heap %d -> %d MiB, answer of %d bytes", len(seg), alloc>>20, before.HeapSys>>20, after.HeapSys>>20, len(got))
	var a struct {
		Files []struct {
			Batches int
			Notes   []string
		}
		RecordCount int
	}
	if err := json.Unmarshal([]byte(got), &a); err != nil || len(a.Files) != 1 {
		t.Fatalf("%v: %.300s", err, got)
	}
	if a.Files[0].Batches != 20 || !strings.Contains(strings.Join(a.Files[0].Notes, "\n"), "records of later batches are counted from their headers, not read") {
		t.Errorf("batches %d, notes %q", a.Files[0].Batches, a.Files[0].Notes)
	}
	if a.RecordCount < 19*140000 {
		t.Errorf("recordCount %d: the unread batches' records are not counted", a.RecordCount)
	}
	// It was 8,326 MiB allocated, a heap of 2,468 MiB, in 162 s; it is
	// 417 MiB and 84 MiB.
	if alloc > 1<<30 || after.HeapSys-before.HeapSys > 256<<20 {
		t.Errorf("%d MiB allocated, the heap grown by %d MiB, for a %d-byte segment", alloc>>20, (after.HeapSys-before.HeapSys)>>20, len(seg))
	}
}
