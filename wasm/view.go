//go:build js && wasm

package main

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

// view is the last decoded frame and what the page has opened of it.
// Nodes are numbered in pre-order (root = 0), as render.Cell.Node is.
type view struct {
	f      *codec.Frame
	opts   codec.Options // how f was read, for its JSON in Kafka's form
	err    error
	nodes  []*tree.Node
	parent []int32
	depth  []int16
	open   []bool
	flat   []int32 // the visible tree rows: node numbers
	where  []int32 // node -> index in flat, or -1; nil until needed
	grids  []*grid
	ms     []int64 // decode, index, grids: milliseconds
	value  []byte  // indented value JSON, written when first asked for
	lines  []int32 // start of each line in value
	// The links between nodes and JSON lines, made with value.
	lineNode []int32    // line -> the node whose value it shows
	nodeSpan [][2]int32 // node -> its value's first and last line
	// The nodes' value-JSON paths, for the breadcrumb (nodePath), the
	// grid's cells (cellPaths) and the JSON panel's links (valueJSON,
	// which numbers its lines' paths in the same table): made when
	// first asked for (nodePaths), as the form of the JSON shown does
	// not change them.
	crumbs  *render.Paths
	crumbOf []int32
}

type grid struct {
	cells    []render.Cell
	rows     []render.Row
	expanded map[int]bool
}

// slots hold up to four decoded frames at once: the main one, a second
// (a capture's response beside its request), encode mode's output, and
// the frames the page's worker warms up on in idle time (worker.js).
// use(slot) picks the one the other functions read.
var (
	slots [4]*view
	slot  int
	// jsonOpts is the form of the value JSON shown: kwire's (records and
	// consumer-protocol data decoded) or Kafka's own (setJSONForm).
	kafkaForm bool
)

// setJSONForm(kafka) shows value JSON in Kafka's own form (every bytes
// field base64, no key of kwire's own in the body) or in kwire's; every
// frame's JSON is written again when next asked for.
func setJSONForm(this js.Value, args []js.Value) any {
	kafkaForm = arg(args, 0).Truthy()
	for _, v := range slots {
		if v != nil {
			v.value, v.lines, v.lineNode, v.nodeSpan = nil, nil, nil, nil
		}
	}
	return kafkaForm
}

// use(slot) selects the frame the window functions read and decode replaces.
func use(this js.Value, args []js.Value) any {
	if s := intArg(args, 0); s >= 0 && s < len(slots) {
		slot = s
	}
	return slot
}

// decode(bytes, response, apiKey, version, size, data) decodes one frame
// (or, with data, what codec.Options.Data names: "sasl" a raw SASL token,
// its size prefix as size says), keeps it, and returns {summary, buffers}:
// summary is JSON text
//
//	{"direction","apiKey","apiName","apiVersion","headerVersion","flexible",
//	 "data","valueType" (with data: its name, and the type of the value read),
//	 "sizePrefix","nodeCount","treeRows",
//	 "spentNodes" (what the MaxNodes limit counted: nodes and warnings),"maxNodes" (the limit),
//	 "ms":[decode, index, grids] (milliseconds),
//	 "buffers":[{"buf","len","rows","from":node|null}],
//	 "error":{"offset","buf","path","expected","found","message"}|null,"errNode",
//	 "headerDecoded" (the header was read whole: the API title can be trusted),
//	 "limit":{"message","offset","buf"}|null (a limit cut decoding short),
//	 "warnings":[{"node","buf","start","end" (the node's span),"offset" (the
//	   warning's byte, as kwire decode says it),"message","limit"?}],"warningCount"}
//
// and buffers holds the derived (decompressed) buffers' bytes, from 1.
func decode(this js.Value, args []js.Value) any {
	b := bytesArg(arg(args, 0))
	opts := codec.Options{
		Response:   arg(args, 1).Truthy(),
		APIKey:     int16(intArg(args, 2)),
		Version:    int16(intArg(args, 3)),
		Payload:    module.payload,
		TopicNames: captureTopics.Name,
		Data:       orDefault(arg(args, 5), ""),
	}
	browserLimits(&opts)
	hasSize := sizeMode(arg(args, 4)).SizedTrying(b, opts)
	opts.NoSizePrefix = !hasSize
	slots[slot] = nil // let the collector have the previous frame
	t := time.Now()
	f, err := codec.Decode(b, opts)
	v := &view{f: f, err: err, opts: opts}
	v.lap(&t)
	v.index()
	v.lap(&t)
	for i := range f.Buffers {
		cells := render.CellsWithoutPaths(f, i)
		v.grids = append(v.grids, &grid{cells: cells, rows: render.Layout(cells, 4, elideOver, nil), expanded: map[int]bool{}})
	}
	v.lap(&t)
	slots[slot] = v
	derived := js.Global().Get("Array").New()
	for _, d := range f.Buffers[1:] {
		derived.Call("push", bytesValue(d))
	}
	return map[string]any{"summary": string(v.appendSummary(nil, hasSize)), "buffers": derived}
}

func (v *view) lap(t *time.Time) {
	v.ms = append(v.ms, time.Since(*t).Milliseconds())
	*t = time.Now()
}

// index numbers the nodes in pre-order and opens the first levels.
func (v *view) index() {
	type item struct {
		n      *tree.Node
		parent int32
		depth  int16
	}
	stack := []item{{v.f.Root, -1, 0}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v.nodes = append(v.nodes, it.n)
		v.parent = append(v.parent, it.parent)
		v.depth = append(v.depth, it.depth)
		id := int32(len(v.nodes) - 1)
		for i := len(it.n.Children) - 1; i >= 0; i-- {
			stack = append(stack, item{it.n.Children[i], id, it.depth + 1})
		}
	}
	v.open = make([]bool, len(v.nodes))
	small := len(v.nodes) < 5000
	for i, n := range v.nodes {
		k := len(n.Children)
		v.open[i] = k > 0 && (v.depth[i] < 2 || small && v.depth[i] < 6 && k <= 20)
	}
	v.flatten()
}

func (v *view) flatten() {
	v.flat = v.flat[:0]
	v.where = nil
	var walk func(id int32) int32
	// next returns the number of the node after id's subtree.
	walk = func(id int32) int32 {
		v.flat = append(v.flat, id)
		next := id + 1
		for range v.nodes[id].Children {
			if v.open[id] {
				next = walk(next)
			} else {
				next = v.skip(next)
			}
		}
		return next
	}
	walk(0)
}

// skip returns the number of the node after id's subtree.
func (v *view) skip(id int32) int32 {
	next := id + 1
	for range v.nodes[id].Children {
		next = v.skip(next)
	}
	return next
}

func (v *view) flatIndex(id int32) int {
	if v.where == nil {
		v.where = make([]int32, len(v.nodes))
		for i := range v.where {
			v.where[i] = -1
		}
		for i, n := range v.flat {
			v.where[n] = int32(i)
		}
	}
	return int(v.where[id])
}

func (v *view) appendSummary(dst []byte, hasSize bool) []byte {
	f := v.f
	w := jsontext.Writer{B: dst}
	w.BeginObject()
	w.Key("direction")
	w.Text(map[bool]string{false: "request", true: "response"}[f.Response])
	w.Key("apiKey")
	w.Int(int64(f.APIKey))
	if f.API != nil {
		w.Key("apiName")
		w.String([]byte(f.API.Name))
	}
	if v.opts.Data != "" {
		w.Key("data")
		w.HTMLSafe(v.opts.Data)
		if f.Body != nil {
			w.Key("valueType")
			w.HTMLSafe(f.Body.Type)
		}
	}
	w.Key("apiVersion")
	w.Int(int64(f.Version))
	w.Key("headerVersion")
	w.Int(int64(f.HeaderVersion))
	w.Key("flexible")
	w.Bool(f.Flexible)
	w.Key("sizePrefix")
	w.Bool(hasSize)
	w.Key("nodeCount")
	w.Int(int64(len(v.nodes)))
	// What the MaxNodes limit counts (the tree's nodes and each warning's
	// charge, budget.WarningNodes) and the limit: a page that shows the
	// tree's count beside a limit it never reached explains the two.
	w.Key("spentNodes")
	w.Int(int64(v.f.Spent.MaxNodes))
	w.Key("maxNodes")
	w.Int(int64(v.opts.MaxNodes))
	w.Key("treeRows")
	w.Int(int64(len(v.flat)))
	w.Key("ms")
	w.BeginArray()
	for _, m := range v.ms {
		w.Int(m)
	}
	w.EndArray()
	w.Key("buffers")
	w.BeginArray()
	from := make([]int32, len(f.Buffers))
	for i := range from {
		from[i] = -1
	}
	for i, n := range v.nodes {
		if p := v.parent[i]; p >= 0 && n.Buf < len(from) && from[n.Buf] < 0 && v.nodes[p].Buf != n.Buf {
			from[n.Buf] = p
		}
	}
	for i, g := range v.grids {
		w.BeginObject()
		w.Key("buf")
		w.Int(int64(i))
		w.Key("len")
		w.Int(int64(len(f.Buffers[i])))
		w.Key("rows")
		w.Int(int64(len(g.rows)))
		w.Key("from")
		if i > 0 && from[i] >= 0 {
			v.writeNode(&w, from[i])
		} else {
			w.Null()
		}
		w.EndObject()
	}
	w.EndArray()
	w.Key("error")
	w.Value()
	w.B = appendError(w.B, v.err)
	errNode := -1
	var de *codec.DecodeError
	if asDecodeError(v.err, &de) {
		for i, n := range v.nodes {
			if n.Buf == de.Buf && n.Start <= de.Offset && (de.Offset < n.End || n.Start == de.Offset) {
				errNode = i
			}
		}
	}
	w.Key("errNode")
	w.Int(int64(errNode))
	w.Key("headerDecoded")
	w.Bool(headerDecoded(f, de))
	// A limit that cut decoding short: the first one, said plainly.
	w.Key("limit")
	limit := false
	limits := v.limitWarnings()
	said := func(msg string, off, buf int) {
		limit = true
		w.BeginObject()
		w.Key("message")
		w.HTMLSafe(msg)
		w.Key("offset")
		w.Int(int64(off))
		w.Key("buf")
		w.Int(int64(buf))
		w.EndObject()
	}
	if de != nil && errors.Is(de, codec.ErrLimit) {
		said(de.Expected, de.Offset, de.Buf)
	}
	limitAt := v.warningOffsets()
	for _, n := range v.nodes {
		if limit {
			break
		}
		for _, msg := range n.Warnings {
			if limits[msg] {
				said(msg, limitAt(n, msg), n.Buf)
				break
			}
		}
	}
	if !limit {
		w.Null()
	}
	w.Key("warnings")
	w.BeginArray()
	at := v.warningOffsets()
	count := 0
	for i, n := range v.nodes {
		for _, msg := range n.Warnings {
			count++
			if count > 200 {
				continue
			}
			w.BeginObject()
			w.Key("node")
			w.Int(int64(i))
			writeSpan(&w, n.Buf, n.Start, n.End)
			w.Key("offset")
			w.Int(int64(at(n, msg)))
			w.Key("message")
			w.HTMLSafe(msg)
			if limits[msg] {
				w.Key("limit")
				w.Bool(true)
			}
			w.EndObject()
		}
	}
	w.EndArray()
	w.Key("warningCount")
	w.Int(int64(count))
	w.EndObject()
	return w.B
}

// headerDecoded reports whether the frame's header was read whole: only
// then do its API key and version name the frame (the page titles a frame
// by them; junk whose "header" failed gets no API title).
func headerDecoded(f *codec.Frame, de *codec.DecodeError) bool {
	if f == nil || f.Header == nil {
		return false
	}
	if de == nil {
		return true
	}
	return !(de.Buf == 0 && de.Offset < f.Header.End) && de.Path != "size" && !strings.HasPrefix(de.Path, "header")
}

// warningOffsets returns where a warning hung on node n says it is: the
// byte offset of the frame's warning it came from (Frame.Warnings, what
// kwire decode prints), which may lie inside the node (a record payload's
// warnings hang on its top-level nodes: the message indexes after the
// schema id, bytes after an Avro value), else n's start. Each frame
// warning is taken once, in order, by the first node warning of its
// message and buffer whose node holds it.
func (v *view) warningOffsets() func(n *tree.Node, msg string) int {
	var byMsg map[string][]int
	var used []bool
	return func(n *tree.Node, msg string) int {
		if v.f == nil {
			return n.Start
		}
		if byMsg == nil {
			byMsg, used = map[string][]int{}, make([]bool, len(v.f.Warnings))
			for i, w := range v.f.Warnings {
				byMsg[w.Message] = append(byMsg[w.Message], i)
			}
		}
		for _, i := range byMsg[msg] {
			if w := v.f.Warnings[i]; !used[i] && w.Buf == n.Buf && n.Start <= w.Offset && w.Offset <= n.End {
				used[i] = true
				return w.Offset
			}
		}
		return n.Start
	}
}

// limitWarnings are the messages of the frame's warnings that say a
// limit cut decoding short, as the codec flags them (Warning.Limit).
func (v *view) limitWarnings() map[string]bool {
	var m map[string]bool
	for _, w := range v.f.Warnings {
		if w.Limit {
			if m == nil {
				m = map[string]bool{}
			}
			m[w.Message] = true
		}
	}
	return m
}

// writeSpan writes a node's or cell's place: "buf", "start", "end".
func writeSpan(w *jsontext.Writer, buf, start, end int) {
	w.Key("buf")
	w.Int(int64(buf))
	w.Key("start")
	w.Int(int64(start))
	w.Key("end")
	w.Int(int64(end))
}

// writeNode writes one node without its children: the codec's annotated
// form of the node alone, plus its number, depth and tree state.
func (v *view) writeNode(w *jsontext.Writer, id int32) {
	n := v.nodes[id]
	leaf := *n
	leaf.Children = nil
	w.BeginObject()
	w.Key("id")
	w.Int(int64(id))
	w.Key("depth")
	w.Int(int64(v.depth[id]))
	w.Key("kids")
	w.Int(int64(len(n.Children)))
	w.Key("open")
	w.Bool(v.open[id])
	if n.Index >= 0 && v.parent[id] >= 0 {
		p := v.nodes[v.parent[id]]
		name := p.Name
		if p.Field != nil {
			name = p.Field.JSON
		}
		w.Key("label")
		w.HTMLSafe(name + "[" + strconv.Itoa(n.Index) + "]")
	}
	if name := codec.ValueName(n, v.f.APIKey); name != "" && n.Field == nil {
		// A coded record attribute (compression, timestampType): its name.
		w.Key("valueName")
		w.HTMLSafe(name)
	}
	if n.Kind == schema.Bytes && !n.Null && len(n.Raw) > 0 && render.Printable(n.Raw) {
		// Bytes that are text (a record's key, value or header value):
		// as the grid and kwire decode's tree show them, quoted, with
		// their length, not as the base64 of the annotated node.
		w.Key("text")
		w.HTMLSafe(render.ShortValue(n, v.f.APIKey))
	}
	if len(n.Children) > 0 {
		// A records or bytes field with decoded content still has its value.
		w.Key("hasKids")
		w.Bool(true)
	}
	w.Key("node")
	w.Value()
	w.B = v.f.AppendAnnotated(w.B, &leaf)
	w.EndObject()
}

func view0() *view {
	return slots[slot]
}

// treeRows(from, count) -> JSON [node...] for visible tree rows.
func treeRows(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return "[]"
	}
	from, count := intArg(args, 0), intArg(args, 1)
	w := jsontext.Writer{}
	w.BeginArray()
	for i := max(from, 0); i < len(v.flat) && i < from+count; i++ {
		v.writeNode(&w, v.flat[i])
	}
	w.EndArray()
	return string(w.B)
}

// setOpen(id, open) opens (1), closes (0) or toggles (-1) a node and
// returns the number of visible tree rows.
func setOpen(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return 0
	}
	id, how := intArg(args, 0), intArg(args, 1)
	if id >= 0 && id < len(v.nodes) && len(v.nodes[id].Children) > 0 {
		if how < 0 {
			v.open[id] = !v.open[id]
		} else {
			v.open[id] = how > 0
		}
		v.flatten()
	}
	return len(v.flat)
}

// reveal(id) opens a node's ancestors: {"treeIndex","treeRows","gridRow","node"}.
func reveal(this js.Value, args []js.Value) any {
	v := view0()
	id := intArg(args, 0)
	if v == nil || id < 0 || id >= len(v.nodes) {
		return "null"
	}
	changed := false
	for p := v.parent[id]; p >= 0; p = v.parent[p] {
		if !v.open[p] {
			v.open[p], changed = true, true
		}
	}
	if changed {
		v.flatten()
	}
	n := v.nodes[id]
	w := jsontext.Writer{}
	w.BeginObject()
	w.Key("treeIndex")
	w.Int(int64(v.flatIndex(int32(id))))
	w.Key("treeRows")
	w.Int(int64(len(v.flat)))
	w.Key("gridRow")
	w.Int(int64(v.rowOf(n.Buf, n.Start)))
	w.Key("node")
	v.writeNode(&w, int32(id))
	w.EndObject()
	return string(w.B)
}

func (v *view) grid(buf int) *grid {
	if buf < 0 || buf >= len(v.grids) {
		return nil
	}
	return v.grids[buf]
}

func (v *view) rowOf(buf, off int) int {
	g := v.grid(buf)
	if g == nil {
		return -1
	}
	// The last row starting at or before off (the first when none does).
	return max(sort.Search(len(g.rows), func(i int) bool { return g.rows[i].Offset > off })-1, 0)
}

func rowOf(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return -1
	}
	return v.rowOf(intArg(args, 0), intArg(args, 1))
}

// gridRows(buf, from, count) -> JSON [{"index","offset","segs":[{"col","span",
// "first","last","cell":{...}}]} | {"index","offset","elided","cell":{...}}].
func gridRows(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return "[]"
	}
	g := v.grid(intArg(args, 0))
	if g == nil {
		return "[]"
	}
	from, count := intArg(args, 1), intArg(args, 2)
	v.cellPaths(g, from, count)
	return string(render.AppendRowsJSON(nil, g.cells, g.rows, from, count, func(dst []byte, c *render.Cell) []byte {
		if c.Node < len(v.nodes) {
			dst = v.appendBits(dst, v.nodes[c.Node])
		}
		return dst
	}))
}

// cellPaths names the cells of g's rows [from, from+count) by their
// nodes' value-JSON paths, as kwire decode's grid and the breadcrumb
// (nodePath) name them, for their tooltips: the cells are made without
// (a path per node is a fifth of the heap of a big frame), so those shown
// get theirs, once.
func (v *view) cellPaths(g *grid, from, count int) {
	name := func(i int) {
		c := &g.cells[i]
		if c.Path != "" || c.Node >= len(v.nodes) {
			return
		}
		c.Path = v.crumbs.String(v.nodePaths()[c.Node])
	}
	for i := max(from, 0); i < len(g.rows) && i < from+count; i++ {
		if r := &g.rows[i]; r.Elided > 0 {
			name(r.Cell)
		} else {
			for _, s := range r.Segs {
				name(s.Cell)
			}
		}
	}
}

// appendBits writes the bit fields of an attributes-like node, whose
// children all cover its own bytes and are typed "bit N" or "bits N-M":
// ,"bits":[{"name","type","value"}].
func (v *view) appendBits(dst []byte, n *tree.Node) []byte {
	if len(n.Children) == 0 {
		return dst
	}
	for _, k := range n.Children {
		if k.Start != n.Start || k.End != n.End || len(k.Type) < 5 || k.Type[:4] != "bit " && k.Type[:5] != "bits " {
			return dst
		}
	}
	w := jsontext.Writer{B: dst}
	w.Fresh()
	w.B = append(w.B, ',')
	w.Key("bits")
	w.BeginArray()
	for _, k := range n.Children {
		w.BeginObject()
		w.Key("name")
		w.HTMLSafe(k.Name)
		w.Key("type")
		w.HTMLSafe(k.Type)
		w.Key("value")
		w.HTMLSafe(render.ShortValue(k, v.f.APIKey))
		w.EndObject()
	}
	w.EndArray()
	return w.B
}

// expandCell(buf, cell) shows every row of an elided cell; it returns the
// number of rows.
func expandCell(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return 0
	}
	g := v.grid(intArg(args, 0))
	if g == nil {
		return 0
	}
	g.expanded[intArg(args, 1)] = true
	g.rows = render.Layout(g.cells, 4, elideOver, g.expanded)
	return len(g.rows)
}

// cellAt(buf, off) -> JSON {"buf","start","end","node"} of the cell holding
// byte off, or null.
func cellAt(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return "null"
	}
	buf, off := intArg(args, 0), intArg(args, 1)
	g := v.grid(buf)
	if g == nil {
		return "null"
	}
	// The last cell starting at or before off.
	best := sort.Search(len(g.cells), func(i int) bool { return g.cells[i].Start > off }) - 1
	if best < 0 || off >= g.cells[best].End {
		return "null"
	}
	c := g.cells[best]
	w := jsontext.Writer{}
	w.BeginObject()
	w.Key("node")
	w.Int(int64(c.Node))
	writeSpan(&w, buf, c.Start, c.End)
	if c.Node >= 0 && c.Node < len(v.nodes) {
		// The node the cell is part of: a selection is always a node.
		n := v.nodes[c.Node]
		w.Key("nodeStart")
		w.Int(int64(n.Start))
		w.Key("nodeEnd")
		w.Int(int64(n.End))
	}
	w.EndObject()
	return string(w.B)
}

// valueJSON writes the indented value JSON on first use: a big frame's
// first screen does not wait for it.
func (v *view) valueJSON() {
	if v.lines != nil {
		return
	}
	var js []byte
	if kafkaForm {
		// Kafka's form is another reading (nothing nested): the walk again
		// with it, straight to JSON.
		o := v.opts
		o.Kafka = true
		js, _, _ = new(codec.Decoder).AppendJSON(nil, v.f.Buffers[0], o)
	} else {
		js = v.f.AppendJSON(nil)
	}
	v.value = jsontext.Indent(nil, js)
	v.lines = append(v.lines, 0)
	for i := 0; ; {
		j := bytes.IndexByte(v.value[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		v.lines = append(v.lines, int32(i))
	}
	// Link lines and nodes through their value-JSON paths; a path the
	// other side lacks falls back to its nearest ancestor.
	// The nodes' paths are the breadcrumb's and the grid's (nodePaths),
	// numbered once; the lines' are numbered in the same table.
	paths := v.nodePaths()
	ps := v.crumbs
	jl := render.ScanJSONLines(v.value, ps)
	byPath := make([]int32, ps.Len()) // a path's first node, or -1
	for i := range byPath {
		byPath[i] = -1
	}
	for i, p := range paths {
		if byPath[p] < 0 {
			byPath[p] = int32(i)
		}
	}
	hasNode := func(p int32) bool { return byPath[p] >= 0 }
	v.lineNode = make([]int32, len(jl.Paths))
	for i, p := range jl.Paths {
		v.lineNode[i] = max(byPath[ps.Resolve(p, hasNode)], 0)
		// An entry's "_raw" (a batch or legacy message with warnings:
		// all its bytes, as base64) or "_truncated" (an entry cut
		// short: the bytes there are) shows the entry's bytes, not those
		// of the raw or first node below it that has the member's path:
		// its line is the entry's. Bytes that are an entry alone,
		// {"_raw": ...}, have no entry node: their line stays theirs.
		if name, ok := ps.Member(p); ok && (name == "_raw" || name == "_truncated") {
			if e := byPath[ps.Parent(p)]; e >= 0 && render.IsEntry(v.nodes[e]) {
				v.lineNode[i] = e
			}
		}
	}
	v.nodeSpan = make([][2]int32, len(paths))
	var root int32
	if len(paths) > 0 {
		root = ps.Resolve(paths[0], jl.Has)
	}
	for i, p := range paths {
		if r := ps.Resolve(p, jl.Has); i == 0 || r != root {
			v.nodeSpan[i] = jl.Span(r)
		} else {
			// No line of its own, nor of a part it is in, but the
			// document's: the size prefix, bytes after the frame or not
			// read. It lights no line rather than all of them.
			v.nodeSpan[i] = [2]int32{-1, -1}
		}
	}
}

// jsonNodeAt(line) -> the node a line of value JSON shows, or -1.
func jsonNodeAt(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return -1
	}
	v.valueJSON()
	if i := intArg(args, 0); i >= 0 && i < len(v.lineNode) {
		return int(v.lineNode[i])
	}
	return -1
}

// jsonSpanOf(id) -> [first, last]: the lines of value JSON that show a
// node; null when none does.
func jsonSpanOf(this js.Value, args []js.Value) any {
	v := view0()
	id := intArg(args, 0)
	if v == nil || id < 0 || id >= len(v.nodes) {
		return "null"
	}
	v.valueJSON()
	sp := v.nodeSpan[id]
	if sp[0] < 0 {
		return "null"
	}
	return "[" + strconv.Itoa(int(sp[0])) + "," + strconv.Itoa(int(sp[1])) + "]"
}

// jsonCount() -> the number of lines of the indented value JSON.
func jsonCount(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return 0
	}
	v.valueJSON()
	return len(v.lines)
}

// jsonLines(from, count) -> lines of the indented value JSON, joined by
// newlines.
func jsonLines(this js.Value, args []js.Value) any {
	v := view0()
	if v == nil {
		return ""
	}
	v.valueJSON()
	from, count := max(intArg(args, 0), 0), intArg(args, 1)
	if from >= len(v.lines) || count <= 0 {
		return ""
	}
	to := min(from+count, len(v.lines))
	end := len(v.value)
	if to < len(v.lines) {
		end = int(v.lines[to]) - 1
	}
	return string(v.value[v.lines[from]:end])
}

// nodeJSON(id) -> the annotated JSON of a node and its subtree.
func nodeJSON(this js.Value, args []js.Value) any {
	v := view0()
	id := intArg(args, 0)
	if v == nil || id < 0 || id >= len(v.nodes) {
		return "null"
	}
	return string(jsontext.Indent(nil, v.f.AppendAnnotated(nil, v.nodes[id])))
}

// path(id) -> "body › topics[0] › name": the node's value-JSON path, a
// step at a time, the path warnings, errors, codec's Lookup and the JSON
// panel name it by ("body.topics[0].name"), as render.NodePaths gives it.
// A batch or record is its list's element ("records[0] › records[3]"),
// a payload's data its key's or value's "decoded", a control record's
// fields its "control" members, bytes left undecoded the "_raw" that
// shows them; what has no member of its own (a container's framing, a
// tagged-field section, a batch's decompressed bytes) is on the path of
// what holds it.
func nodePath(this js.Value, args []js.Value) any {
	v := view0()
	id := intArg(args, 0)
	if v == nil || id < 0 || id >= len(v.nodes) {
		return ""
	}
	return v.crumbs.Steps(v.nodePaths()[id], " › ")
}

// nodePaths is every node's value-JSON path in v.crumbs, made when first
// asked for: the breadcrumb's and the grid's cells' one naming.
func (v *view) nodePaths() []int32 {
	if v.crumbs == nil {
		v.crumbs = &render.Paths{}
		v.crumbOf = render.NodePaths(v.f.Root, v.crumbs)
	}
	return v.crumbOf
}

func parentOf(this js.Value, args []js.Value) any {
	v := view0()
	id := intArg(args, 0)
	if v == nil || id < 0 || id >= len(v.nodes) {
		return -1
	}
	return int(v.parent[id])
}
