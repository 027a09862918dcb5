package render

import (
	"github.com/kwire/kwire/codec/jsontext"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AppendGridHTML appends the byte grid of cells as HTML: a bit ruler, then
// one row per 4 bytes, each cell a labelled span placed on a CSS grid of an
// offset column and 32 bit columns. Every label and value is escaped.
// Cells carry data-node, data-start and data-end, so a page can light up the
// same span in other views. The grid is an ARIA grid: rows of a row header
// (the offset) and grid cells; the bit ruler is hidden from assistive
// technology, and a cell's accessible name is its label and value.
func AppendGridHTML(dst []byte, cells []Cell, rows []Row, buf int) []byte {
	dst = append(dst, `<div class="kw-grid" data-buf="`...)
	dst = strconv.AppendInt(dst, int64(buf), 10)
	dst = append(dst, `" role="grid" aria-readonly="true" aria-label="`...)
	if buf > 0 {
		dst = append(dst, `decompressed bytes, buffer `...)
		dst = strconv.AppendInt(dst, int64(buf), 10)
	} else {
		dst = append(dst, `bytes of the frame`...)
	}
	dst = append(dst, `" tabindex="0"><div class="kw-ruler" aria-hidden="true"><span class="kw-off"></span>`...)
	// The ruler counts bytes, as the row offsets do: +0 to +3 over the
	// eight bit columns of each byte.
	for i := 0; i < 4; i++ {
		dst = append(dst, `<span class="kw-rb">+`...)
		dst = strconv.AppendInt(dst, int64(i), 10)
		dst = append(dst, `</span>`...)
	}
	dst = append(dst, `</div>`...)
	for _, r := range rows {
		dst = append(dst, `<div role="row" class="kw-row`...)
		if r.Elided > 0 {
			dst = append(dst, ` kw-elided" data-cell="`...)
			dst = strconv.AppendInt(dst, int64(r.Cell), 10)
			dst = append(dst, `"><span class="kw-off" role="rowheader"></span><span role="gridcell" class="kw-cell kw-more" style="grid-column:2/span 32">… `...)
			dst = strconv.AppendInt(dst, int64(r.Elided), 10)
			dst = append(dst, ` more bytes of `...)
			dst = append(dst, escapeHTML(cells[r.Cell].Label)...)
			dst = append(dst, ` …</span></div>`...)
			continue
		}
		dst = append(dst, `"><span class="kw-off" role="rowheader">`...)
		dst = appendHex(dst, r.Offset, 4)
		dst = append(dst, `</span>`...)
		for _, s := range r.Segs {
			c := &cells[s.Cell]
			dst = append(dst, `<span role="gridcell" class="kw-cell kw-`...)
			dst = append(dst, c.Kind...)
			if !s.First {
				dst = append(dst, ` kw-cont`...)
			}
			if !s.Last {
				dst = append(dst, ` kw-open`...)
			}
			if c.Warn {
				dst = append(dst, ` kw-warn`...)
			}
			if c.Broken {
				dst = append(dst, ` kw-broken`...)
			}
			dst = append(dst, `" style="grid-column:`...)
			dst = strconv.AppendInt(dst, int64(2+s.Col*8), 10)
			dst = append(dst, `/span `...)
			dst = strconv.AppendInt(dst, int64(s.Span*8), 10)
			dst = append(dst, `" data-node="`...)
			dst = strconv.AppendInt(dst, int64(c.Node), 10)
			dst = append(dst, `" data-start="`...)
			dst = strconv.AppendInt(dst, int64(c.Start), 10)
			dst = append(dst, `" data-end="`...)
			dst = strconv.AppendInt(dst, int64(c.End), 10)
			dst = append(dst, `" title="`...)
			title := c.Path + " (" + c.Type + ") [" + strconv.Itoa(c.Start) + ", " + strconv.Itoa(c.End) + ")"
			if c.Value != "" {
				title += " = " + c.Value
			}
			dst = append(dst, escapeHTML(title)...)
			dst = append(dst, `"><span class="kw-label">`...)
			dst = append(dst, escapeHTML(c.Label)...)
			dst = append(dst, `</span>`...)
			if c.Value != "" && s.First {
				dst = append(dst, `<span class="kw-val">`...)
				dst = append(dst, escapeHTML(c.Value)...)
				dst = append(dst, `</span>`...)
			}
			dst = append(dst, `</span>`...)
		}
		dst = append(dst, `</div>`...)
	}
	return append(dst, `</div>`...)
}

func appendHex(dst []byte, v, width int) []byte {
	s := strconv.FormatInt(int64(v), 16)
	for i := len(s); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// AppendRowsJSON appends rows[from:from+count] of a grid as the JSON the
// playground draws, each cell written in full where it is used:
// [{"index","offset","segs":[{"col","span","first","last","cell":{...}}]} |
// {"index","offset","elided","cell":{...}}]. A cell is {"index","node",
// "start","end","kind","label","path","type"[,"value"][,"warn"][,"broken"]},
// then whatever more(dst, cell) appends before its closing brace (more may
// be nil). Every text is written HTML-safe.
func AppendRowsJSON(dst []byte, cells []Cell, rows []Row, from, count int, more func(dst []byte, c *Cell) []byte) []byte {
	dst = append(dst, '[')
	first := true
	for i := max(from, 0); i < len(rows) && i < from+count; i++ {
		r := rows[i]
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, `{"index":`...)
		dst = strconv.AppendInt(dst, int64(i), 10)
		dst = append(dst, `,"offset":`...)
		dst = strconv.AppendInt(dst, int64(r.Offset), 10)
		if r.Elided > 0 {
			dst = append(dst, `,"elided":`...)
			dst = strconv.AppendInt(dst, int64(r.Elided), 10)
			dst = appendCellJSON(append(dst, `,"cell":`...), cells, r.Cell, more)
			dst = append(dst, '}')
			continue
		}
		dst = append(dst, `,"segs":[`...)
		for j, s := range r.Segs {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"col":`...)
			dst = strconv.AppendInt(dst, int64(s.Col), 10)
			dst = append(dst, `,"span":`...)
			dst = strconv.AppendInt(dst, int64(s.Span), 10)
			dst = append(dst, `,"first":`...)
			dst = strconv.AppendBool(dst, s.First)
			dst = append(dst, `,"last":`...)
			dst = strconv.AppendBool(dst, s.Last)
			dst = appendCellJSON(append(dst, `,"cell":`...), cells, s.Cell, more)
			dst = append(dst, '}')
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, ']')
}

func appendCellJSON(dst []byte, cells []Cell, i int, more func(dst []byte, c *Cell) []byte) []byte {
	c := &cells[i]
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendInt(dst, int64(i), 10)
	dst = append(dst, `,"node":`...)
	dst = strconv.AppendInt(dst, int64(c.Node), 10)
	dst = append(dst, `,"start":`...)
	dst = strconv.AppendInt(dst, int64(c.Start), 10)
	dst = append(dst, `,"end":`...)
	dst = strconv.AppendInt(dst, int64(c.End), 10)
	dst = jsontext.AppendHTMLSafe(append(dst, `,"kind":`...), c.Kind)
	dst = jsontext.AppendHTMLSafe(append(dst, `,"label":`...), c.Label)
	dst = jsontext.AppendHTMLSafe(append(dst, `,"path":`...), c.Path)
	dst = jsontext.AppendHTMLSafe(append(dst, `,"type":`...), c.Type)
	if c.Value != "" {
		dst = jsontext.AppendHTMLSafe(append(dst, `,"value":`...), c.Value)
	}
	if c.Warn {
		dst = append(dst, `,"warn":true`...)
	}
	if c.Broken {
		dst = append(dst, `,"broken":true`...)
	}
	if more != nil {
		dst = more(dst, c)
	}
	return append(dst, '}')
}

// Terminal draws the grid as RFC-style ASCII art: a bit ruler, then rows of
// 4 bytes, each cell a box with its label and value.
func Terminal(cells []Cell, rows []Row) string {
	const byteW = 16 // characters per byte: 8 bits, 2 columns each
	var b strings.Builder
	b.WriteString("       0                   1                   2                   3\n")
	b.WriteString("       0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1\n")
	border := "      +" + strings.Repeat("-+", 32) + "\n"
	b.WriteString(border)
	for _, r := range rows {
		if r.Elided > 0 {
			text := "… " + strconv.Itoa(r.Elided) + " more bytes of " + cells[r.Cell].Label + " …"
			b.WriteString("      |" + center(text, 4*byteW-1) + "|\n")
			b.WriteString(border)
			continue
		}
		off := strconv.FormatInt(int64(r.Offset), 16)
		b.WriteString(strings.Repeat("0", max(0, 4-len(off))) + off + "  |")
		col := 0
		for _, s := range r.Segs {
			if s.Col > col {
				b.WriteString(strings.Repeat(" ", (s.Col-col)*byteW-1) + "|")
			}
			c := &cells[s.Cell]
			w := s.Span*byteW - 1
			text := c.Label
			if c.Value != "" && s.First && utf8.RuneCountInString(text+" = "+c.Value) <= w {
				// A value shows only where it fits whole: a clipped
				// number would say something false.
				text += " = " + c.Value
			}
			if !s.First {
				text = "(" + c.Label + ")"
			}
			b.WriteString(center(text, w) + "|")
			col = s.Col + s.Span
		}
		b.WriteString("\n" + border)
	}
	return b.String()
}

func center(s string, w int) string {
	r := []rune(s)
	if len(r) > w {
		if w <= 1 {
			return string(r[:w])
		}
		return string(r[:w-1]) + "…"
	}
	pad := w - len(r)
	return strings.Repeat(" ", pad/2) + s + strings.Repeat(" ", pad-pad/2)
}

// htmlEscaper is html.EscapeString's replacer, the same five
// characters and the same entities. The html package is not imported
// for it: its init links the table of every named entity, which
// UnescapeString alone reads, 21 KB gzip of kwire.wasm
// (1,194,323 -> 1,173,489 bytes).
var htmlEscaper = strings.NewReplacer(`&`, "&amp;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;", `"`, "&#34;")

// escapeHTML is html.EscapeString(s): <, >, &, ' and " as entities,
// every other byte as it is (its test compares).
func escapeHTML(s string) string { return htmlEscaper.Replace(s) }
