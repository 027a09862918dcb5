//go:build js && wasm

package main

import (
	"encoding/json"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/hostile"
)

// The hostile corpus (testdata/hostile, see its MANIFEST) through the
// playground's own glue, as the page calls it in its Web Worker:
// kwire.decode (and kwire.guess then kwire.decode for a response of
// unknown API), under node:
//
//	PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test ./wasm
//
// The collector runs as main sets it for the page (GOGC 400, the soft
// memory limit). WebAssembly memory only grows, so runtime.MemStats'
// HeapSys is the high-water mark of the heap: an entry may grow it by hostileWasmGrowth
// at most, and the whole corpus may not take it past hostileWasmHeap
// (issue 11: a few hundred bytes took the page to its 4 GB ceiling).
const (
	hostileWasmGrowth = 256 << 20
	hostileWasmHeap   = 512 << 20
	hostileWasmAlloc  = 1 << 30
)

// hostileWasmOrder runs the cheap entries first: when an expensive one
// takes the module down, the others have been reported.
func hostileWasmOrder() []hostile.Entry {
	es := hostile.Frames()
	heavy := func(e hostile.Entry) bool {
		return e.Expect.Count > 2 || e.Expect.Limit != "" || e.Expect.Guessed || strings.Contains(e.Name, "flood")
	}
	sort.SliceStable(es, func(i, j int) bool { return !heavy(es[i]) && heavy(es[j]) })
	return es
}

type wasmSummary struct {
	Error *struct {
		Offset  int    `json:"offset"`
		Buf     int    `json:"buf"`
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"error"`
	// Limit is the first limit that cut decoding short, which the page
	// shows as a notice.
	Limit *struct {
		Message string `json:"message"`
		Offset  int    `json:"offset"`
		Buf     int    `json:"buf"`
	} `json:"limit"`
	Warnings     []hostile.Warning `json:"warnings"`
	WarningCount int               `json:"warningCount"`
}

func TestHostileWasm(t *testing.T) {
	// The collector as main sets it for the page.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit))
	for _, e := range hostileWasmOrder() {
		t.Run(e.Name, func(t *testing.T) {
			b, err := hostile.Load(e)
			if err != nil {
				t.Fatal(err)
			}
			slots[slot] = nil // the page drops its last frame for the next
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			summary, o := hostileWasmDecode(e, b)
			// payload.wasm (the tag kwire_payload) decodes record payloads.
			o.BrowserPayload = module.payload != nil
			runtime.ReadMemStats(&after)
			var s wasmSummary
			if err := json.Unmarshal([]byte(summary), &s); err != nil {
				t.Fatalf("the summary is not JSON: %v: %.300s", err, summary)
			}
			if s.Error != nil {
				o.Err, o.ErrPath, o.ErrOff, o.ErrText = true, s.Error.Path, s.Error.Offset, s.Error.Message
			}
			o.Warnings, o.WarningCount = s.Warnings, max(s.WarningCount, len(s.Warnings))
			if s.Limit != nil {
				o.Warnings = append(o.Warnings, hostile.Warning{Offset: s.Limit.Offset, Buf: s.Limit.Buf, Message: s.Limit.Message, Limit: true})
			}
			if v := slots[slot]; v != nil && v.f != nil {
				o.Counted = hostileWasmCount(v.f.Root, e.Expect.CountKey)
			}
			grew := int64(after.HeapSys) - int64(before.HeapSys)
			alloc := int64(after.TotalAlloc - before.TotalAlloc)
			t.Logf("heap grew %s to %s; allocated %s", hostile.MiB(grew), hostile.MiB(int64(after.HeapSys)), hostile.MiB(alloc))
			for _, p := range e.Check(o) {
				t.Error(p)
			}
			if grew > hostileWasmGrowth {
				t.Errorf("the heap grew by %s; the bound is %s", hostile.MiB(grew), hostile.MiB(hostileWasmGrowth))
			}
			if alloc > hostileWasmAlloc {
				t.Errorf("decoding allocated %s; the bound is %s", hostile.MiB(alloc), hostile.MiB(hostileWasmAlloc))
			}
		})
	}
	slots[slot] = nil
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("the heap's high-water mark after the corpus: %s", hostile.MiB(int64(m.HeapSys)))
	if m.HeapSys > hostileWasmHeap {
		t.Errorf("the corpus took the heap to %s; the bound is %s", hostile.MiB(int64(m.HeapSys)), hostile.MiB(hostileWasmHeap))
	}
}

// hostileWasmDecode calls the glue as the page does: a response of unknown
// API is guessed first (kwire.guess), then decoded as the likeliest.
func hostileWasmDecode(e hostile.Entry, b []byte) (string, hostile.Outcome) {
	var o hostile.Outcome
	arr := bytesValue(b)
	size := "auto"
	if e.SizeYes {
		size = "yes"
	}
	response, key, version := false, 0, 0
	switch {
	case e.Mode == hostile.Response:
		response, key, version = true, int(e.APIKey), int(e.Version)
	case e.Mode == hostile.Auto && e.Expect.ErrPath == "":
		var cands []map[string]any
		json.Unmarshal([]byte(guess(js.Undefined(), []js.Value{arr, js.ValueOf(size)}).(string)), &cands)
		if len(cands) > 0 {
			o.Guessed = true
			k, _ := cands[0]["apiKey"].(float64)
			v, _ := cands[0]["version"].(float64)
			response, key, version = true, int(k), int(v)
			for name, val := range cands[0] {
				if t, ok := val.(bool); ok && t && (name == "cut" || strings.Contains(strings.ToLower(name), "limit")) {
					o.GuessLimit = true
				}
			}
		}
	}
	res := decode(js.Undefined(), []js.Value{arr, js.ValueOf(response), js.ValueOf(key), js.ValueOf(version), js.ValueOf(size)})
	m, _ := res.(map[string]any)
	s, _ := m["summary"].(string)
	return s, o
}

// hostileWasmCount counts what an Expect counts, in the tree the page
// holds: record batches, messages and records, or the fields whose JSON
// name is key.
func hostileWasmCount(root *tree.Node, key string) int {
	n := 0
	tree.Walk(root, func(x *tree.Node) bool {
		switch {
		case key != "":
			// A schema's field by its JSON name, or a part of a nested
			// payload (a SASL message's) by its own.
			if x.Field != nil && x.Field.JSON == key || x.Field == nil && x.Role == tree.RoleField && x.Name == key {
				n++
			}
		case x.Role == tree.RoleRecord && (x.Name == "batch" || x.Name == "message" || x.Name == "record") && x.Flags&tree.Truncated == 0:
			n++
		}
		return true
	})
	return n
}
