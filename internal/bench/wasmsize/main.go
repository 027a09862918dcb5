// Command wasmsize says where a Go WebAssembly module's bytes go: its
// sections, and its code by package (from the name section, so build
// without -ldflags=-s -w to see names), raw and as gzip -9 would make
// them on their own. A package's gzip figure is its code compressed
// alone, so the figures do not add up to the module's gzip size; they
// rank what to look at.
//
// Usage: go run ./internal/bench/wasmsize [-top 40] [-funcs 20] module.wasm
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strings"

	"github.com/kwire/kwire/internal/wasmbin"
)

func main() {
	top := flag.Int("top", 40, "packages to list")
	funcs := flag.Int("funcs", 20, "largest functions to list")
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	m, err := parse(b)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d bytes raw, %d bytes gzip\n\nsections:\n", flag.Arg(0), len(b), gz(b))
	for _, s := range m.sections {
		fmt.Printf("  %-14s %9d raw %9d gzip\n", s.name, len(s.body), gz(s.body))
	}
	fmt.Printf("\ndata (%d segments, %d bytes in them), by the runtime's module data:\n", m.segments, m.dataBytes)
	writtenMask = m.written
	for _, p := range dataParts(m.mem) {
		fmt.Printf("  %-44s %9d in memory %9d written %8d gzip\n", p.name, p.end-p.start, p.written, gz(nonzero(m.mem[p.start:p.end])))
	}
	type pkg struct {
		name string
		code []byte
		n    int
	}
	byPkg := map[string]*pkg{}
	for i, body := range m.bodies {
		name := m.names[m.imported+i]
		p := byPkg[pkgOf(name)]
		if p == nil {
			p = &pkg{name: pkgOf(name)}
			byPkg[p.name] = p
		}
		p.code = append(p.code, body...)
		p.n++
	}
	var pkgs []*pkg
	for _, p := range byPkg {
		pkgs = append(pkgs, p)
	}
	sort.Slice(pkgs, func(i, j int) bool { return len(pkgs[i].code) > len(pkgs[j].code) })
	fmt.Printf("\ncode by package (%d functions):\n", len(m.bodies))
	for i, p := range pkgs {
		if i == *top {
			break
		}
		fmt.Printf("  %9d raw %8d gzip %5d funcs  %s\n", len(p.code), gz(p.code), p.n, p.name)
	}
	idx := make([]int, len(m.bodies))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(i, j int) bool { return len(m.bodies[idx[i]]) > len(m.bodies[idx[j]]) })
	fmt.Printf("\nlargest functions:\n")
	for i := 0; i < *funcs && i < len(idx); i++ {
		fmt.Printf("  %9d  %s\n", len(m.bodies[idx[i]]), m.names[m.imported+idx[i]])
	}
}

// pkgOf is the import path of a function's name in the name section,
// where Go writes "github.com_kwire_kwire_codec.Encode" for
// github.com/kwire/kwire/codec.Encode: everything before the first dot
// past the host name, with the underscores turned back into slashes.
func pkgOf(name string) string {
	host := ""
	for _, h := range []string{"github.com_", "golang.org_", "gopkg.in_", "go.uber.org_"} {
		if strings.HasPrefix(name, h) {
			host, name = h, name[len(h):]
			break
		}
	}
	if dot := strings.IndexByte(name, '.'); dot >= 0 {
		name = name[:dot]
	}
	return strings.ReplaceAll(host+name, "_", "/")
}

func gz(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, 9)
	w.Write(b)
	w.Close()
	return buf.Len()
}

type section struct {
	name string
	body []byte
}

type module struct {
	sections  []section
	mem       []byte // linear memory as the data segments lay it out
	written   []bool // which bytes of mem a segment writes
	segments  int
	dataBytes int
	bodies    [][]byte
	names     map[int]string
	imported  int // imported functions come first in the index space
}

var sectionNames = []string{"custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "datacount"}

func parse(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("not a wasm module")
	}
	m := &module{names: map[int]string{}}
	r := wasmbin.Reader{B: b[8:]}
	for len(r.B) > 0 {
		id := r.Byte()
		body := r.Bytes(int(r.Uleb()))
		if r.Err != nil {
			return nil, r.Err
		}
		name := fmt.Sprint("section ", id)
		if int(id) < len(sectionNames) {
			name = sectionNames[id]
		}
		sr := wasmbin.Reader{B: body}
		switch id {
		case 0:
			cname := string(sr.Bytes(int(sr.Uleb())))
			name = "custom " + cname
			if cname == "name" {
				for len(sr.B) > 0 && sr.Err == nil {
					sub := sr.Byte()
					sb := wasmbin.Reader{B: sr.Bytes(int(sr.Uleb()))}
					if sub != 1 {
						continue
					}
					for n := sb.Uleb(); n > 0 && sb.Err == nil; n-- {
						i := int(sb.Uleb())
						m.names[i] = string(sb.Bytes(int(sb.Uleb())))
					}
				}
			}
		case 2:
			for n := sr.Uleb(); n > 0 && sr.Err == nil; n-- {
				sr.Bytes(int(sr.Uleb())) // module
				sr.Bytes(int(sr.Uleb())) // field
				switch sr.Byte() {
				case 0:
					sr.Uleb()
					m.imported++
				case 1:
					sr.Byte()
					limits(&sr)
				case 2:
					limits(&sr)
				case 3:
					sr.Byte()
					sr.Byte()
				}
			}
		case 10:
			for n := sr.Uleb(); n > 0 && sr.Err == nil; n-- {
				m.bodies = append(m.bodies, sr.Bytes(int(sr.Uleb())))
			}
		case 11:
			for n := sr.Uleb(); n > 0 && sr.Err == nil; n-- {
				if sr.Uleb() != 0 || sr.Byte() != 0x41 { // active, i32.const offset
					return nil, errors.New("data: a segment Go does not write")
				}
				off := int(sr.Sleb())
				sr.Byte() // end
				d := sr.Bytes(int(sr.Uleb()))
				if off < 0 || off > 1<<30 {
					return nil, errors.New("data: a segment out of range")
				}
				if end := off + len(d); end > len(m.mem) {
					m.mem = append(m.mem, make([]byte, end-len(m.mem))...)
					m.written = append(m.written, make([]bool, end-len(m.written))...)
				}
				copy(m.mem[off:], d)
				for i := range d {
					m.written[off+i] = true
				}
				m.segments++
				m.dataBytes += len(d)
			}
		}
		if sr.Err != nil {
			return nil, fmt.Errorf("%s: %w", name, sr.Err)
		}
		m.sections = append(m.sections, section{name, body})
	}
	return m, nil
}

func limits(r *wasmbin.Reader) {
	if r.Byte()&1 != 0 {
		r.Uleb()
	}
	r.Uleb()
}

// part is a range of linear memory and how many of its bytes the data
// segments write (the rest are zeros the linker left out).
type part struct {
	name       string
	start, end int
	written    int
}

func nonzero(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c != 0 {
			out = append(out, c)
		}
	}
	return out
}

// dataParts splits the data by what the runtime's moduledata says: the
// pcHeader (Go 1.20+ magic 0xfffffff1) and the moduledata pointing at it
// give the function tables (names, files, pc tables, func info), the type
// descriptors and the data and noptrdata sections; the rest of read-only
// data (strings, constant tables) is what lies before the types and
// between them and the tables.
func dataParts(mem []byte) []part {
	le := binary.LittleEndian
	hdr := -1
	for i := 0; i+8 <= len(mem); i += 8 {
		if le.Uint32(mem[i:]) == 0xfffffff1 && mem[i+4] == 0 && mem[i+5] == 0 && mem[i+7] == 8 {
			hdr = i
			break
		}
	}
	if hdr < 0 {
		return []part{{name: "all (no pcHeader found)", end: len(mem)}}
	}
	md := -1
	for i := 0; i+16 <= len(mem); i += 8 {
		if le.Uint64(mem[i:]) == uint64(hdr) && le.Uint64(mem[i+8:]) == uint64(hdr)+le.Uint64(mem[hdr+32:]) {
			md = i
			break
		}
	}
	if md < 0 {
		return []part{{name: "all (no moduledata found)", end: len(mem)}}
	}
	word := func(i int) int { return int(le.Uint64(mem[md+8*i:])) }
	// moduledata: pcHeader, 6 slices (3 words each), findfunctab, minpc,
	// maxpc, then pairs of addresses.
	slice := func(i int) (int, int) { return word(1 + 3*i), word(1+3*i) + word(2+3*i) }
	const after = 1 + 6*3 + 3 // findfunctab, minpc, maxpc
	noptrdata, enoptrdata := word(after+2), word(after+3)
	data, edata := word(after+4), word(after+5)
	types, etypes := word(after+15), word(after+16)
	rodata := word(after + 17)
	epclntab := word(after + 19)
	var parts []part
	add := func(name string, start, end int) {
		end = min(end, len(mem))
		if start < 0 || start >= end {
			return
		}
		p := part{name: name, start: start, end: end}
		for _, w := range writtenOf(mem, start, end) {
			if w {
				p.written++
			}
		}
		parts = append(parts, p)
	}
	fn0, fn1 := slice(0)
	cu0, cu1 := slice(1)
	fi0, fi1 := slice(2)
	pc0, pc1 := slice(3)
	pl0, _ := slice(4)
	add("before read-only data", 0, min(rodata, types))
	add("type descriptors and read-only data", min(rodata, types), max(etypes, hdr))
	add("pclntab: header and function names", hdr, fn1)
	add("pclntab: compilation units", cu0, cu1)
	add("pclntab: file names", fi0, fi1)
	add("pclntab: pc-value tables", pc0, pc1)
	add("pclntab: function table and func info", pl0, epclntab)
	add("noptrdata (pointer-free variables)", noptrdata, enoptrdata)
	add("data (variables with pointers)", data, edata)
	_ = fn0
	return parts
}

var writtenMask []bool

func writtenOf(mem []byte, start, end int) []bool { return writtenMask[start:end] }
