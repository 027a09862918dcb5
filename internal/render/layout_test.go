package render

import (
	"reflect"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/hostile"
)

// layoutAppending is Layout as it was before it counted first: rows and
// each row's segments grown by appending. Layout must lay out the same.
func layoutAppending(cells []Cell, width, elideOver int, expanded map[int]bool) []Row {
	if width <= 0 {
		width = 4
	}
	var rows []Row
	var cur *Row
	for i, c := range cells {
		pos := c.Start
		for pos < c.End {
			rowStart := pos - pos%width
			if cur == nil || cur.Offset != rowStart || cur.Elided > 0 {
				rows = append(rows, Row{Offset: rowStart})
				cur = &rows[len(rows)-1]
			}
			end := min(c.End, rowStart+width)
			cur.Segs = append(cur.Segs, Segment{Cell: i, Col: pos - rowStart, Span: end - pos, First: pos == c.Start, Last: end == c.End})
			pos = end
			if elideOver > 0 && c.End-c.Start > elideOver && !expanded[i] && pos < c.End {
				lastRow := (c.End - 1) - (c.End-1)%width
				if lastRow > pos {
					rows = append(rows, Row{Offset: pos, Elided: lastRow - pos, Cell: i})
					cur = &rows[len(rows)-1]
					pos = lastRow
				}
			}
		}
	}
	return rows
}

// gridFrames are frames to lay out: every API's example request and
// response at its newest version, and the hostile corpus's JSON payload
// flood read with payloads as the playground reads it (a node per value,
// cut at the browser's 2^18 nodes).
func gridFrames(t testing.TB) []*codec.Frame {
	t.Helper()
	var out []*codec.Frame
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			b, err := codec.ExampleFrame(api, api.Request.Valid.Hi, resp)
			if err != nil {
				continue
			}
			f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: api.Request.Valid.Hi})
			if err != nil {
				t.Fatalf("%s: %v", api.Name, err)
			}
			out = append(out, f)
		}
	}
	e, err := hostile.ByName("payload-json-flood.bin")
	if err != nil {
		t.Fatal(err)
	}
	b, err := hostile.Load(e)
	if err != nil {
		t.Fatal(err)
	}
	o := codec.Options{Payload: payload.NewDecoder(nil, payload.Config{}).Decode}
	o.MaxNodes = 1 << 18
	f, err := codec.Decode(b, o)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, f)
}

// Cells and Layout count before they fill, so that a frame's hundreds of
// thousands of cells, rows and segments take one allocation each instead
// of being copied as they grow (the playground's heap grew 405 MiB for a
// 1 KB JSON flood): the result is what appending made, and the cells'
// slice is exactly as long as its capacity.
func TestCellsAndLayoutCountFirst(t *testing.T) {
	for _, f := range gridFrames(t) {
		for buf := range f.Buffers {
			cells := Cells(f, buf)
			if cap(cells) != len(cells) {
				t.Fatalf("%v buffer %d: %d cells in a slice of capacity %d", f.API, buf, len(cells), cap(cells))
			}
			bare := CellsWithoutPaths(f, buf)
			for i := range cells {
				c := cells[i]
				c.Path = ""
				if bare[i] != c {
					t.Fatalf("buffer %d cell %d: without paths %+v, with %+v", buf, i, bare[i], cells[i])
				}
			}
			if len(bare) != len(cells) {
				t.Fatalf("buffer %d: %d cells without paths, %d with", buf, len(bare), len(cells))
			}
			for _, elide := range []int{0, 32, 96} {
				expanded := map[int]bool{len(cells) / 2: true, len(cells) - 1: true}
				got, want := Layout(cells, 4, elide, expanded), layoutAppending(cells, 4, elide, expanded)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("buffer %d, elided over %d: the layout differs from appending's (%d rows, want %d)", buf, elide, len(got), len(want))
				}
			}
		}
	}
}

// BenchmarkGrid: the grids as the docs site draws them (cells with their
// paths, laid out, as HTML) for every API's example request and response
// at its newest version, and the cells with paths of the hostile corpus's
// JSON payload flood (2^18 nodes), as kwire decode's grid makes them.
func BenchmarkGrid(b *testing.B) {
	frames := gridFrames(b)
	flood, examples := frames[len(frames)-1], frames[:len(frames)-1]
	b.Run("examples", func(b *testing.B) {
		b.ReportAllocs()
		var dst []byte
		for b.Loop() {
			for _, f := range examples {
				for buf := range f.Buffers {
					cells := Cells(f, buf)
					dst = AppendGridHTML(dst[:0], cells, Layout(cells, 4, 96, nil), buf)
				}
			}
		}
	})
	b.Run("flood", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for buf := range flood.Buffers {
				Cells(flood, buf)
			}
		}
	})
}
