package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kwire/kwire/site/playground"
)

// What a playground file names that the browser then fetches: module
// imports (static and dynamic), scripts, stylesheets, workers and the
// worker's importScripts.
var playgroundRef = regexp.MustCompile(`(?m)(?:^import\s[^;'"]*?from\s*|^import\s*|\bimport\(\s*|\bnew Worker\(\s*|\bimportScripts\(\s*|\bsrc=|\bhref=)["']([^"'#?]+)["']`)

// copiedPlayground copies the real playground as the site does, with
// kwire.wasm given and a stand-in capture.wasm, and lists what it wrote.
func copiedPlayground(t *testing.T, wasm []byte) (string, []os.DirEntry) {
	out := t.TempDir()
	err := copyPlayground(out, playground.Static, wasm, []byte("// wasm_exec stand-in\n"),
		map[string][]byte{"capture.wasm": []byte("\x00asm\x01\x00\x00\x00")})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "playground")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, entries
}

// The real playground, copied as the site copies it: every module gets a
// hashed name, every import, script and worker it names resolves to a file
// that was written, and the service worker precaches every script.
func TestPlaygroundModulesResolve(t *testing.T) {
	dir, entries := copiedPlayground(t, []byte("\x00asm\x01\x00\x00\x00"))
	have := map[string]bool{}
	var scripts []string
	for _, e := range entries {
		have[e.Name()] = true
		if path.Ext(e.Name()) == ".js" {
			scripts = append(scripts, e.Name())
		}
	}
	sort.Strings(scripts)
	if len(scripts) < 10 {
		t.Fatalf("expected the page's modules, found %v", scripts)
	}
	modules := 0
	for _, name := range append([]string{"index.html"}, scripts...) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range playgroundRef.FindAllStringSubmatch(string(b), -1) {
			ref := m[1]
			if strings.Contains(ref, "://") || strings.HasPrefix(ref, "../") || strings.HasPrefix(ref, "data:") || ref == "./" || ref == "#" {
				continue
			}
			target := path.Clean(strings.TrimPrefix(ref, "./"))
			if !have[target] {
				t.Errorf("%s names %q, which was not written", name, ref)
			}
			if strings.HasPrefix(m[0], "from") || strings.HasPrefix(m[0], "import") {
				modules++
				if !HashedName(target) {
					t.Errorf("%s imports %q, which has no content hash", name, ref)
				}
			}
		}
		if name != "sw.js" && name != "index.html" && !HashedName(name) {
			t.Errorf("%s has no content hash", name)
		}
	}
	if modules < 10 {
		t.Errorf("found %d module imports; the parser of imports is broken", modules)
	}
	sw, err := os.ReadFile(filepath.Join(dir, "sw.js"))
	if err != nil {
		t.Fatal(err)
	}
	core := regexp.MustCompile(`(?s)const CORE = \[(.*?)\];`).FindSubmatch(sw)
	if core == nil {
		t.Fatal("sw.js has no CORE list")
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`'([^']+)'`).FindAllSubmatch(core[1], -1) {
		listed[string(m[1])] = true
		if n := string(m[1]); n != "./" && !have[n] {
			t.Errorf("sw.js precaches %s, which was not written", n)
		}
	}
	for _, s := range scripts {
		if s != "sw.js" && !listed[s] {
			t.Errorf("sw.js does not precache %s", s)
		}
	}
}

// Modules and scripts of 1 KiB or more get a gzip copy beside them (what
// kwire serve sends to clients that accept gzip), holding the same bytes
// as the file written; small files and pages get none.
func TestPlaygroundGzipCopies(t *testing.T) {
	dir, entries := copiedPlayground(t, append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("kwire "), 2000)...))
	copies := map[string]bool{}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".gz") {
			copies[strings.TrimSuffix(e.Name(), ".gz")] = true
		}
	}
	sawWasm, sawWorker := false, false
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".gz") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		ext := path.Ext(name)
		want := (ext == ".wasm" || ext == ".js") && len(b) >= 1<<10
		if copies[name] != want {
			t.Errorf("%s (%d bytes): gzip copy %v, want %v", name, len(b), copies[name], want)
			continue
		}
		if !want {
			continue
		}
		sawWasm = sawWasm || strings.HasPrefix(name, "kwire.")
		sawWorker = sawWorker || strings.HasPrefix(name, "worker.")
		z, err := os.ReadFile(filepath.Join(dir, name+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			t.Fatal(name, err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(plain, b) {
			t.Errorf("%s.gz does not hold %s (%v)", name, name, err)
		}
	}
	if !sawWasm || !sawWorker {
		t.Errorf("no gzip copy of kwire.wasm (%v) or worker.js (%v)", sawWasm, sawWorker)
	}
}

// The playground's scripts stay modules a reader takes in one sitting
// (issue 19: no file over 500 lines): a module that grows past it is
// split where its parts meet, not left to grow.
func TestPlaygroundScriptsStayShort(t *testing.T) {
	const most = 500
	err := fs.WalkDir(playground.Static, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".js" {
			return err
		}
		b, err := fs.ReadFile(playground.Static, p)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte("\n")); n > most {
			t.Errorf("%s has %d lines, more than %d: split it into modules", p, n, most)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
