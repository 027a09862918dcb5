package main

import (
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kwire/kwire/site"
	"github.com/kwire/kwire/site/playground"
)

// The WebAssembly modules the playground loads besides kwire.wasm; kwire
// site copies each one it finds beside the --wasm file.
var extraModules = []string{"capture.wasm", "storage.wasm", "payload.wasm", "inflate.wasm"}

func runSite(e *env, args []string) int {
	fs := newFlags(e, "site", "[--out DIR] [--wasm FILE --wasm-exec FILE] [--title TEXT]")
	out := fs.String("out", "dist", "write the site into `DIR` (kwire's own files there are replaced, others kept)")
	wasm := fs.String("wasm", "", "copy the playground's WebAssembly module from `FILE` (make wasm builds it), and capture.wasm and inflate.wasm beside it when they are there")
	wasmExec := fs.String("wasm-exec", "", "copy Go's wasm_exec.js from `FILE`")
	title := fs.String("title", "kwire", "the site's name in page titles")
	if code := parseFlagsOnly(e, fs, args, "; the output folder is --out"); code >= 0 {
		return code
	}
	var extra []string
	if *wasm != "" {
		for _, m := range extraModules {
			p := filepath.Join(filepath.Dir(*wasm), m)
			if _, err := os.Stat(p); err == nil {
				extra = append(extra, p)
			}
		}
	}
	start := time.Now()
	err := site.Build(*out, site.Options{Wasm: *wasm, WasmExec: *wasmExec, Extra: extra, Playground: playground.Static, Title: *title})
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
	if *wasm == "" {
		msg += "; the playground has no --wasm module"
	}
	e.stderr.Write([]byte(msg + "\n"))
	return 0
}
