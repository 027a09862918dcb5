// Command wasmprep rewrites a Go WebAssembly module after go build, in
// place, in two ways that leave what it computes unchanged:
//
//   - Its data segments are merged across runs of zeros shorter than -gap
//     bytes (the gaps are written as zeros). Go's linker starts a new
//     segment at every run of 8 zeros or more: some 60,000 segments in
//     kwire.wasm, whose offsets, written as LEB128 numbers, compress
//     badly. Merged, the module is 7% smaller gzip (105 KB), and the
//     pages a fresh instance touches are the same, since no gap spans a
//     page.
//   - With -import-memory, its linear memory becomes an import
//     (module "kwire", name "mem", the same limits) that it still exports
//     as "mem", so that the host can hand each new instance a memory it
//     keeps. The Worker did while it ran a fresh Go instance per request
//     (a fresh memory costs a page fault per page touched); it keeps one
//     instance per isolate now, and nothing uses this.
//
// Usage: go run ./internal/wasmprep [-gap 64] [-import-memory [-memory-js memory.mjs]] module.wasm...
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/kwire/kwire/internal/wasmbin"
)

func main() {
	gap := flag.Int("gap", 64, "merge data segments separated by fewer zeros than this")
	importMemory := flag.Bool("import-memory", false, `import the linear memory as kwire.mem`)
	memoryJS := flag.String("memory-js", "", "with -import-memory: write a JavaScript module exporting memoryPages, the memory's initial size in 64 KiB pages, to this file")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("wasmprep: ")
	if flag.NArg() == 0 || *memoryJS != "" && flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	for _, path := range flag.Args() {
		b, err := os.ReadFile(path)
		if err != nil {
			log.Fatal(err)
		}
		out, st, err := prep(b, options{gap: *gap, importMemory: *importMemory})
		if err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			log.Fatal(err)
		}
		if *memoryJS != "" {
			js := "// Written by internal/wasmprep: the initial size of " + filepath.Base(path) + "'s imported memory (kwire.mem).\n" +
				"export const memoryPages = " + strconv.Itoa(st.pages) + ";\n"
			if err := os.WriteFile(*memoryJS, []byte(js), 0o644); err != nil {
				log.Fatal(err)
			}
		}
		fmt.Printf("wasmprep: %s: %d data segments merged into %d; %d bytes, was %d\n", path, st.segments, st.merged, len(out), len(b))
	}
}

type options struct {
	gap          int
	importMemory bool
}

type stats struct{ segments, merged, pages int }

type section struct {
	id   byte
	body []byte
}

const (
	secImport = 2
	secMemory = 5
	secData   = 11
)

func prep(b []byte, o options) ([]byte, stats, error) {
	var st stats
	if len(b) < 8 || string(b[:4]) != "\x00asm" || binary.LittleEndian.Uint32(b[4:]) != 1 {
		return nil, st, errors.New("not a WebAssembly 1.0 module")
	}
	var secs []section
	for r := (wasmbin.Reader{B: b[8:]}); len(r.B) > 0; {
		id := r.Byte()
		body := r.Bytes(int(r.Uleb()))
		if r.Err != nil {
			return nil, st, r.Err
		}
		secs = append(secs, section{id, body})
	}
	var memLimits []byte
	for i, s := range secs {
		switch s.id {
		case secData:
			body, err := mergeData(s.body, o.gap, &st)
			if err != nil {
				return nil, st, err
			}
			secs[i].body = body
		case secMemory:
			r := wasmbin.Reader{B: s.body}
			if r.Uleb() != 1 || r.Err != nil {
				return nil, st, errors.New("memory section: not one memory")
			}
			memLimits = r.B
			r.Byte() // flags
			st.pages = int(r.Uleb())
		}
	}
	out := append([]byte(nil), b[:8]...)
	for _, s := range secs {
		body := s.body
		if o.importMemory {
			switch s.id {
			case secMemory:
				continue // now imported
			case secImport:
				if memLimits == nil {
					return nil, st, errors.New("no memory to import")
				}
				r := wasmbin.Reader{B: body}
				n := r.Uleb()
				nb := binary.AppendUvarint(nil, n+1)
				nb = append(nb, r.B...)
				nb = appendName(nb, "kwire")
				nb = appendName(nb, "mem")
				nb = append(nb, 2) // memory
				nb = append(nb, memLimits...)
				body = nb
			}
		}
		out = append(out, s.id)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out, st, nil
}

func appendName(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

type segment struct {
	off  int64
	data []byte
}

// mergeData rewrites a data section of active segments at constant
// offsets (what Go's linker writes, none overlapping another, so their
// order does not matter), merging neighbours less than gap bytes apart.
func mergeData(body []byte, gap int, st *stats) ([]byte, error) {
	r := wasmbin.Reader{B: body}
	n := int(r.Uleb())
	var in []segment
	for i := 0; i < n && r.Err == nil; i++ {
		if r.Uleb() != 0 || r.Byte() != 0x41 { // active, memory 0, i32.const
			return nil, errors.New("data section: a segment Go's linker does not write")
		}
		off := r.Sleb()
		if r.Byte() != 0x0b { // end
			return nil, errors.New("data section: an offset that is not a constant")
		}
		in = append(in, segment{off, r.Bytes(int(r.Uleb()))})
	}
	if r.Err != nil || len(r.B) != 0 {
		return nil, errors.New("data section: malformed")
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].off < in[j].off })
	var segs []segment
	for _, s := range in {
		if len(segs) > 0 {
			last := &segs[len(segs)-1]
			end := last.off + int64(len(last.data))
			if s.off < end {
				return nil, errors.New("data section: segments overlap")
			}
			if s.off-end < int64(gap) {
				last.data = append(last.data, make([]byte, s.off-end)...)
				last.data = append(last.data, s.data...)
				continue
			}
		}
		segs = append(segs, segment{s.off, append([]byte(nil), s.data...)})
	}
	st.segments, st.merged = n, len(segs)
	out := binary.AppendUvarint(nil, uint64(len(segs)))
	for _, s := range segs {
		out = append(out, 0, 0x41)
		out = appendSleb(out, s.off)
		out = append(out, 0x0b)
		out = binary.AppendUvarint(out, uint64(len(s.data)))
		out = append(out, s.data...)
	}
	return out, nil
}

func appendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
