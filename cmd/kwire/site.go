package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kwire/kwire/site"
)

// playgroundFS holds the playground's static files for kwire site; nil
// writes a stub page in the playground's place.
var playgroundFS fs.FS

func runSite(e *env, args []string) int {
	fs := newFlags(e, "site", "[--out DIR] [--wasm FILE --wasm-exec FILE] [--title TEXT]")
	out := fs.String("out", "dist", "write the site into `DIR` (kwire's own files there are replaced, others kept)")
	wasm := fs.String("wasm", "", "copy the playground's WebAssembly module from `FILE` (make wasm builds it)")
	wasmExec := fs.String("wasm-exec", "", "copy Go's wasm_exec.js from `FILE`")
	title := fs.String("title", "kwire", "the site's name in page titles")
	rest, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		fail(e, "site takes no arguments; the output folder is --out")
		return 2
	}
	start := time.Now()
	err := site.Build(*out, site.Options{Wasm: *wasm, WasmExec: *wasmExec, Playground: playgroundFS, Title: *title})
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	took := time.Since(start)
	var files, pages int
	var size int64
	filepath.WalkDir(*out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil {
			files++
			size += info.Size()
			if filepath.Ext(p) == ".html" {
				pages++
			}
		}
		return nil
	})
	msg := "kwire: wrote " + strconv.Itoa(pages) + " pages (" + strconv.Itoa(files) + " files, " +
		strconv.FormatFloat(float64(size)/1e6, 'f', 1, 64) + " MB) to " + *out + " in " + took.Round(time.Millisecond).String()
	if playgroundFS == nil {
		msg += "; the playground is a stub (no web/playground files)"
	} else if *wasm == "" {
		msg += "; the playground has no --wasm module"
	}
	e.stderr.Write([]byte(msg + "\n"))
	return 0
}
