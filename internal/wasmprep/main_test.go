package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kwire/kwire/internal/wasmbin"
)

// A Go module for js/wasm, built once: the same kind of input the
// Makefile and the Worker's build give wasmprep.
func goModule(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	os.WriteFile(src, []byte("package main\n\nimport \"strings\"\n\nvar table = strings.Repeat(\"kwire\", 1000)\n\nfunc main() { println(len(table)) }\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module prep\n\ngo 1.21\n"), 0o644)
	out := filepath.Join(dir, "m.wasm")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// image is the linear memory the data segments lay out, the sections in
// order of appearance, and the imports' and exports' raw bodies.
func image(t *testing.T, b []byte) (mem []byte, ids []byte, secs map[byte][]byte) {
	t.Helper()
	secs = map[byte][]byte{}
	for r := (wasmbin.Reader{B: b[8:]}); len(r.B) > 0; {
		id := r.Byte()
		body := r.Bytes(int(r.Uleb()))
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		ids = append(ids, id)
		secs[id] = body
		if id != secData {
			continue
		}
		d := wasmbin.Reader{B: body}
		for n := d.Uleb(); n > 0; n-- {
			d.Uleb()
			d.Byte()
			off := int(d.Sleb())
			d.Byte()
			seg := d.Bytes(int(d.Uleb()))
			if d.Err != nil {
				t.Fatal(d.Err)
			}
			if end := off + len(seg); end > len(mem) {
				mem = append(mem, make([]byte, end-len(mem))...)
			}
			copy(mem[off:], seg)
		}
	}
	return mem, ids, secs
}

// Merging keeps every byte of memory where it was, in far fewer segments.
func TestMergeKeepsMemory(t *testing.T) {
	b := goModule(t)
	out, st, err := prep(b, options{gap: 64})
	if err != nil {
		t.Fatal(err)
	}
	memIn, idsIn, secsIn := image(t, b)
	memOut, idsOut, secsOut := image(t, out)
	if !bytes.Equal(bytes.TrimRight(memIn, "\x00"), bytes.TrimRight(memOut, "\x00")) {
		t.Fatal("the memory the data segments lay out changed")
	}
	if st.segments < 1000 || st.merged > st.segments/100 {
		t.Errorf("%d segments merged into %d", st.segments, st.merged)
	}
	if !bytes.Equal(idsIn, idsOut) {
		t.Errorf("sections %v, were %v", idsOut, idsIn)
	}
	for id, body := range secsIn {
		if id != secData && !bytes.Equal(body, secsOut[id]) {
			t.Errorf("section %d changed", id)
		}
	}
	// Again: nothing left to merge, the same bytes.
	again, _, err := prep(out, options{gap: 64})
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("a second run changed the module (%v)", err)
	}
}

// -import-memory: no memory section, an import kwire.mem with the
// memory's limits, the export "mem" kept.
func TestImportMemory(t *testing.T) {
	b := goModule(t)
	out, _, err := prep(b, options{gap: 64, importMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	_, _, secsIn := image(t, b)
	_, _, secs := image(t, out)
	if _, ok := secs[secMemory]; ok {
		t.Fatal("the memory section is still there")
	}
	limits := secsIn[secMemory][1:]
	want := append(appendName(appendName(nil, "kwire"), "mem"), 2)
	want = append(want, limits...)
	if !bytes.HasSuffix(secs[secImport], want) {
		t.Errorf("import section ends %x, want %x", secs[secImport][max(0, len(secs[secImport])-len(want)):], want)
	}
	if !bytes.Contains(secs[7], append(appendName(nil, "mem"), 2, 0)) {
		t.Error("the memory is no longer exported as mem")
	}
	if _, _, err := prep([]byte("\x00asm\x01\x00\x00\x00\x05\x01"), options{}); err == nil {
		t.Error("a cut module was accepted")
	}
}
