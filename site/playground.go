package site

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/kwire/kwire/internal/render"
)

// copyPlayground writes the playground into out/playground: every file of
// pg (under "static/" when pg has that folder), the wasm module, Go's
// wasm_exec.js, extra files and the grid stylesheet. Scripts, styles and the module get
// content-hashed names and the files that name them are rewritten. A
// name's hash covers the file and every file it reaches through such
// references, so a changed module renames the worker that loads it and the
// page that starts the worker. index.html and a service worker (sw.js)
// keep their names: browsers find them by URL.
func copyPlayground(out string, pg fs.FS, wasm, wasmExec []byte, extra map[string][]byte) error {
	files := map[string][]byte{}
	if pg != nil {
		if st, err := fs.Stat(pg, "static"); err == nil && st.IsDir() {
			if pg, err = fs.Sub(pg, "static"); err != nil {
				return err
			}
		}
		err := fs.WalkDir(pg, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(pg, p)
			files[p] = b
			return err
		})
		if err != nil {
			return err
		}
	}
	if _, ok := files["index.html"]; !ok {
		files["index.html"] = []byte(stubPlayground)
	}
	if wasm != nil {
		files["kwire.wasm"] = wasm
	}
	if wasmExec != nil {
		files["wasm_exec.js"] = wasmExec
	}
	for name, b := range extra {
		files[name] = b
	}
	files["grid.css"] = []byte(render.CSS)

	renamed := hashNames(files)
	dir := filepath.Join(out, "playground")
	var zipped gzipCopies
	defer zipped.wait()
	for p, b := range files {
		if isText(p) {
			b = rewriteNames(b, renamed)
		}
		name := p
		if n, ok := renamed[p]; ok {
			name = n
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			return err
		}
		zipped.add(dst, b)
	}
	return zipped.wait()
}

// gzipCopies writes the gzip copies (writeGzipCopy) of the files added,
// one a core at a time (some 3 s of CPU for the five modules).
type gzipCopies struct {
	wg   sync.WaitGroup
	mu   sync.Mutex
	err  error
	sema chan struct{}
}

func (g *gzipCopies) add(dst string, b []byte) {
	if g.sema == nil {
		g.sema = make(chan struct{}, runtime.GOMAXPROCS(0))
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		g.sema <- struct{}{}
		defer func() { <-g.sema }()
		if err := writeGzipCopy(dst, b); err != nil {
			g.mu.Lock()
			g.err = cmp.Or(g.err, err)
			g.mu.Unlock()
		}
	}()
}

// wait waits for every copy and returns the first error.
func (g *gzipCopies) wait() error {
	g.wg.Wait()
	return g.err
}

// writeGzipCopy writes NAME.gz beside a module or script of 1 KiB or more
// (kwire.wasm: 5.2 MB, 1.1 MB gzip), for servers that send such a copy to
// clients that accept gzip, as kwire serve does; hosts that compress on
// their own ignore it. Written after the file, so it is no older. At the
// best level up to 8 MiB (kwire.wasm: 0.9% smaller than the default
// level, 0.6 s against 0.18 s), at the default above: payload.wasm
// (22 MB, loaded once schemas are given) took 3.2 s at the best level
// for 0.8% less.
func writeGzipCopy(dst string, b []byte) error {
	switch filepath.Ext(dst) {
	case ".wasm", ".js", ".mjs":
	default:
		return nil
	}
	if len(b) < 1<<10 {
		return nil
	}
	var z bytes.Buffer
	level := gzip.BestCompression
	if len(b) > 8<<20 {
		level = gzip.DefaultCompression
	}
	zw, err := gzip.NewWriterLevel(&z, level)
	if err != nil {
		return err
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return err
	}
	if z.Len() >= len(b) {
		return nil
	}
	return os.WriteFile(dst+".gz", z.Bytes(), 0o644)
}

const stubPlayground = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kwire playground</title></head>
<body><p>The playground was not part of this build. <a href="../index.html">Back to the reference</a>.</p></body></html>
`

// hashable says whether a file gets a content-hashed name.
func hashable(p string) bool {
	base := path.Base(p)
	if base == "sw.js" {
		return false
	}
	switch path.Ext(p) {
	case ".js", ".mjs", ".css", ".wasm":
		return true
	}
	return false
}

func isText(p string) bool {
	switch path.Ext(p) {
	case ".html", ".js", ".mjs", ".css", ".json", ".webmanifest", ".svg", ".txt":
		return true
	}
	return false
}

// hashNames gives every hashable file its new path (same folder, hashed
// base name).
func hashNames(files map[string][]byte) map[string]string {
	var names []string
	for p := range files {
		names = append(names, p)
	}
	sort.Strings(names)
	// refs[p] lists the hashable files whose base names p's text mentions.
	refs := map[string][]string{}
	for _, p := range names {
		if !isText(p) {
			continue
		}
		for _, q := range names {
			if q != p && hashable(q) && mentions(files[p], path.Base(q)) {
				refs[p] = append(refs[p], q)
			}
		}
	}
	renamed := map[string]string{}
	for _, p := range names {
		if !hashable(p) {
			continue
		}
		// Hash p and everything it reaches, in name order.
		seen := map[string]bool{p: true}
		stack := []string{p}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range refs[x] {
				if !seen[y] {
					seen[y] = true
					stack = append(stack, y)
				}
			}
		}
		var reach []string
		for x := range seen {
			reach = append(reach, x)
		}
		sort.Strings(reach)
		h := sha256.New()
		for _, x := range reach {
			h.Write([]byte(x))
			h.Write([]byte{0})
			h.Write(files[x])
			h.Write([]byte{0})
		}
		dir, base := path.Split(p)
		renamed[p] = dir + hashName(base, h.Sum(nil))
	}
	return renamed
}

// mentions reports whether text names base as a whole word: not preceded
// or followed by a character that could belong to a longer file name.
func mentions(text []byte, base string) bool {
	return len(wordIndexes(text, base)) > 0
}

func nameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
}

func wordIndexes(text []byte, word string) []int {
	var out []int
	w := []byte(word)
	for i := 0; ; {
		j := bytes.Index(text[i:], w)
		if j < 0 {
			return out
		}
		at := i + j
		end := at + len(w)
		if (at == 0 || !nameChar(text[at-1])) && (end == len(text) || !nameChar(text[end]) || text[end] == '.' && (end+1 == len(text) || !nameChar(text[end+1]))) {
			out = append(out, at)
		}
		i = at + 1
	}
}

// rewriteNames replaces every whole-word mention of a renamed file's base
// name with its new base name.
func rewriteNames(text []byte, renamed map[string]string) []byte {
	type rep struct {
		at, n int
		to    string
	}
	var reps []rep
	for from, to := range renamed {
		fb, tb := path.Base(from), path.Base(to)
		for _, at := range wordIndexes(text, fb) {
			reps = append(reps, rep{at, len(fb), tb})
		}
	}
	if len(reps) == 0 {
		return text
	}
	sort.Slice(reps, func(i, j int) bool {
		return reps[i].at < reps[j].at || reps[i].at == reps[j].at && reps[i].n > reps[j].n
	})
	var b bytes.Buffer
	last := 0
	for _, r := range reps {
		if r.at < last {
			continue
		}
		b.Write(text[last:r.at])
		b.WriteString(r.to)
		last = r.at + r.n
	}
	b.Write(text[last:])
	return b.Bytes()
}

// HashedName reports whether a file name carries a content hash, as the
// generator writes it ("app.0123456789.js"): such a file never changes, so
// a server may let it be cached for good (kwire serve does).
func HashedName(name string) bool {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	h := path.Ext(stem)
	if len(h) != 11 {
		return false
	}
	for _, c := range h[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
