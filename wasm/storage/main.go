//go:build js && wasm

// Command storage is the playground's third WebAssembly module, loaded
// only when Kafka's storage files are opened (segments, indexes,
// snapshots, checkpoints; package codec/storage reads them). It sets a
// global object kwireStorage with two functions:
//
//	kwireStorage.open(names, files, topic) -> JSON text
//	kwireStorage.record(id) -> JSON text
//
// open reads the files (names [string], files [Uint8Array], read together
// so an index is checked against the segment beside it) and keeps them
// for record. topic names the partition's topic ("" to guess among the
// internal topics from the first records): an internal topic's keys and
// values are decoded. Its answer lists each file (kind, what it holds,
// its problems: index entries that disagree with their segment, CRC
// mismatches, a torn tail, checkpoints out of order) and the records of
// the segments (at most maxRecords), each with its offset, timestamp,
// key, value, headers, producer and control marker, and for an internal
// topic its key and value decoded.
//
// record gives one record's key and value as grid rows (render's row JSON)
// and tree nodes, and its decoded JSON.
package main

import (
	"bytes"
	"encoding/base64"
	"errors"
	"io"
	"strconv"
	"syscall/js"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/storage"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

// maxRecords is how many records open lists; past it they are counted.
const maxRecords = 20000

// maxEntries is how many index entries, checkpoint lines or problems a
// file lists.
const maxEntries = 2000

func main() {
	k := js.Global().Get("Object").New()
	k.Set("open", js.FuncOf(open))
	k.Set("record", js.FuncOf(record))
	js.Global().Set("kwireStorage", k)
	if cb := js.Global().Get("kwireStorageReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}

// file is an opened file.
type file struct {
	name  string
	bytes []byte
	kind  storage.Named
}

// located is where a listed record is: its file, its batch's position.
type located struct {
	file    int
	batch   int64
	n       int // the record's index in its batch
	control bool
}

// opened is what open read, for record.
var opened struct {
	files []file
	recs  []located
	topic string
}

func bytesArg(v js.Value) []byte {
	if v.Type() != js.TypeObject {
		return nil
	}
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b
}

func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

func str(dst []byte, s string) []byte { return jsontext.AppendHTMLSafe(dst, s) }

func num(dst []byte, k string, v int64) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, k...)
	dst = append(dst, '"', ':')
	return strconv.AppendInt(dst, v, 10)
}

// open reads the files given and answers what they hold.
func open(this js.Value, args []js.Value) any {
	names, files := arg(args, 0), arg(args, 1)
	opened.files, opened.recs = nil, nil
	n := 0
	if names.Type() == js.TypeObject {
		n = names.Get("length").Int()
	}
	for i := 0; i < n; i++ {
		name := names.Index(i).String()
		f := file{name: name, bytes: bytesArg(files.Index(i)), kind: storage.KindOf(name)}
		if f.kind.Kind == storage.UnknownFile && looksLikeSegment(f.bytes) {
			f.kind.Kind = storage.SegmentFile
		}
		opened.files = append(opened.files, f)
	}
	opened.topic = arg(args, 2).String()
	if arg(args, 2).Type() != js.TypeString {
		opened.topic = ""
	}
	guessed := false
	if opened.topic == "" {
		opened.topic, guessed = guessTopic(), true
	}
	dst := []byte(`{"topic":`)
	dst = str(dst, opened.topic)
	dst = append(dst, `,"guessed":`...)
	dst = strconv.AppendBool(dst, guessed && opened.topic != "")
	dst = append(dst, `,"files":[`...)
	var recs []byte
	total := 0
	for i := range opened.files {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst, recs, total = describe(dst, recs, total, i)
	}
	dst = append(dst, `],"records":[`...)
	dst = append(dst, recs...)
	dst = append(dst, `],"recordCount":`...)
	dst = strconv.AppendInt(dst, int64(total), 10)
	return string(append(dst, '}'))
}

func looksLikeSegment(b []byte) bool {
	if len(b) < 17 {
		return false
	}
	l := int32(uint32(b[8])<<24 | uint32(b[9])<<16 | uint32(b[10])<<8 | uint32(b[11]))
	return l >= 14 && b[16] <= 2
}

// guessTopic picks the internal topic whose framing the first data
// records of the segments read without error under, or "".
func guessTopic() string {
	for _, t := range schema.InternalTopics() {
		tried, good := 0, 0
		for _, f := range opened.files {
			if f.kind.Kind != storage.SegmentFile && f.kind.Kind != storage.KRaftSnapshotFile {
				continue
			}
			seg := storage.NewSegment(bytes.NewReader(f.bytes), storage.SegmentOptions{Topic: t.Name})
			for tried < 20 {
				b, err := seg.Next()
				if err != nil {
					break
				}
				_, recs, _ := seg.Decode(b)
				for _, r := range recs {
					tried++
					if r.Topic().Err == nil {
						good++
					}
				}
			}
		}
		if tried > 0 && good*10 >= tried*9 {
			return t.Name
		}
	}
	return ""
}

// describe writes file i's description and adds its records to recs.
func describe(dst, recs []byte, total, i int) ([]byte, []byte, int) {
	f := &opened.files[i]
	dst = append(dst, `{"name":`...)
	dst = str(dst, f.name)
	dst = append(dst, `,"kind":`...)
	dst = str(dst, f.kind.Kind.String())
	dst = num(dst, "size", int64(len(f.bytes)))
	var problems []string
	switch f.kind.Kind {
	case storage.SegmentFile, storage.KRaftSnapshotFile:
		dst, recs, total, problems = segment(dst, recs, total, i, true, nil)
	case storage.OffsetIndexFile, storage.TimeIndexFile, storage.TxnIndexFile:
		dst, problems = index(dst, f)
	case storage.ProducerSnapshotFile:
		p := storage.ReadProducerSnapshot(f.bytes)
		dst = append(dst, `,"json":`...)
		dst = str(dst, string(jsontext.Indent(nil, p.AppendJSON(nil))))
		if !p.CRCValid {
			problems = append(problems, "the CRC does not match the bytes")
		}
		if p.Err != nil {
			problems = append(problems, p.Err.Error())
		}
	case storage.LeaderEpochFile, storage.OffsetCheckpointFile:
		kind := storage.OffsetCheckpoint
		if f.kind.Kind == storage.LeaderEpochFile {
			kind = storage.LeaderEpochCheckpoint
		}
		r := storage.NewCheckpointReader(bytes.NewReader(f.bytes), kind)
		dst = append(dst, `,"entries":[`...)
		for n := 0; ; n++ {
			e, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					problems = append(problems, err.Error())
				}
				break
			}
			if e.Problem != "" {
				problems = append(problems, "line "+strconv.Itoa(e.Line)+": "+e.Problem)
			}
			if n < maxEntries {
				if n > 0 {
					dst = append(dst, ',')
				}
				dst = e.AppendJSON(dst, kind)
			}
		}
		dst = append(dst, ']')
	case storage.PartitionMetadataFile:
		if pm, err := storage.ReadPartitionMetadata(f.bytes); err != nil {
			problems = append(problems, err.Error())
		} else {
			dst = append(dst, `,"json":`...)
			dst = str(dst, "version "+strconv.Itoa(pm.Version)+", topic id "+base64.RawURLEncoding.EncodeToString(pm.TopicID[:]))
		}
	case storage.MetaPropertiesFile:
		props, ps, err := storage.ReadMetaProperties(bytes.NewReader(f.bytes))
		problems = append(problems, ps...)
		if err != nil {
			problems = append(problems, err.Error())
		}
		text := ""
		for _, p := range props {
			text += p.Key + " = " + p.Value + "\n"
		}
		dst = append(dst, `,"json":`...)
		dst = str(dst, text)
	case storage.QuorumStateFile:
		if q, err := storage.ReadQuorumState(f.bytes); err != nil {
			problems = append(problems, err.Error())
		} else {
			problems = append(problems, q.Problems...)
			dst = append(dst, `,"json":`...)
			dst = str(dst, string(jsontext.Indent(nil, storage.AppendJSONValue(nil, q.Value))))
		}
	default:
		problems = append(problems, "not a file Kafka writes in a log directory (by its name), nor a segment (by its bytes)")
	}
	dst = append(dst, `,"problems":[`...)
	for j, p := range problems {
		if j == maxEntries {
			dst = append(dst, `,`...)
			dst = str(dst, strconv.Itoa(len(problems)-maxEntries)+" more")
			break
		}
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = str(dst, p)
	}
	return append(dst, "]}"...), recs, total
}

// segment reads segment file i, lists its records into recs, and checks
// the indexes among the opened files that share its base offset (their
// problems are the index files' own, see index).
func segment(dst, recs []byte, total, i int, list bool, checks map[storage.IndexKind]*storage.IndexCheck) ([]byte, []byte, int, []string) {
	f := &opened.files[i]
	var problems []string
	seg := storage.NewSegment(bytes.NewReader(f.bytes), storage.SegmentOptions{Topic: opened.topic})
	var snap *storage.SnapshotCheck
	if f.kind.Kind == storage.KRaftSnapshotFile {
		snap = storage.NewSnapshotCheck()
	}
	batches, crc := 0, 0
	var end, last int64 = 0, -1
	for {
		b, err := seg.Next()
		if err != nil {
			var te *storage.TailError
			if errors.As(err, &te) {
				problems = append(problems, te.Error())
			}
			break
		}
		batches++
		end, last = b.Position+b.Size(), b.LastOffset
		for _, c := range checks {
			c.Batch(b)
		}
		if snap != nil {
			snap.Batch(b)
		}
		if b.Skipped {
			problems = append(problems, "the batch at "+strconv.FormatInt(b.Position, 10)+" is too large to read")
			continue
		}
		if !b.CRCValid {
			crc++
			problems = append(problems, "the CRC of the batch at "+strconv.FormatInt(b.Position, 10)+" does not match its bytes")
		}
		if !list {
			continue // an index's check: the records are not listed
		}
		res, decoded, _ := seg.Decode(b)
		if res == nil {
			continue
		}
		byNode := map[*tree.Node]*storage.TopicRecord{}
		for _, d := range decoded {
			byNode[d.Node()] = d.Topic()
		}
		for n, ri := range res.Records {
			total++
			if total > maxRecords {
				continue
			}
			if len(recs) > 0 {
				recs = append(recs, ',')
			}
			opened.recs = append(opened.recs, located{file: i, batch: b.Position, n: n, control: b.Control})
			recs = recordJSON(recs, len(opened.recs)-1, i, b, res, ri, byNode[ri.Node])
		}
	}
	for _, c := range checks {
		c.End(end, last)
	}
	if snap != nil {
		snap.End()
		problems = append(problems, snap.Problems...)
	}
	dst = num(dst, "batches", int64(batches))
	dst = num(dst, "crcErrors", int64(crc))
	return dst, recs, total, problems
}

// recordJSON writes one listed record.
func recordJSON(dst []byte, id, fi int, b *storage.Batch, res *storage.Entry, ri storage.RecordInfo, tr *storage.TopicRecord) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, int64(id), 10)
	dst = num(dst, "file", int64(fi))
	dst = num(dst, "batch", b.Position)
	dst = num(dst, "offset", ri.Offset)
	dst = num(dst, "timestamp", ri.Timestamp)
	dst = num(dst, "producerId", b.ProducerID)
	if b.Transactional {
		dst = append(dst, `,"transactional":true`...)
	}
	n := ri.Node
	for _, part := range []string{"key", "value"} {
		dst = append(dst, ',', '"')
		dst = append(dst, part...)
		dst = append(dst, '"', ':')
		dst = preview(dst, n.Get(part))
	}
	if k := n.Get("key"); b.Control && k != nil && len(k.Children) >= 2 {
		t := int(k.Children[1].Int)
		name := storage.ControlTypeName(t)
		if name == "" {
			name = "control type " + strconv.Itoa(t)
		}
		dst = append(dst, `,"marker":`...)
		dst = str(dst, name)
	}
	dst = append(dst, `,"headers":[`...)
	if hs := n.Get("headers"); hs != nil {
		for j, h := range hs.Children {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, '[')
			dst = preview(dst, h.Get("key"))
			dst = append(dst, ',')
			dst = preview(dst, h.Get("value"))
			dst = append(dst, ']')
		}
	}
	dst = append(dst, ']')
	if tr != nil {
		dst = append(dst, `,"internal":`...)
		dst = str(dst, string(tr.AppendJSON(nil)))
		if tr.Err != nil {
			dst = append(dst, `,"internalError":`...)
			dst = str(dst, tr.Err.Error())
		}
	}
	return append(dst, '}')
}

// preview is a key, value or header as text (at most 300 characters, with
// "…"), "base64:..." when not text, or null.
func preview(dst []byte, n *tree.Node) []byte {
	if n == nil || n.Null {
		return append(dst, "null"...)
	}
	b := n.Raw
	s := ""
	if utf8.Valid(b) {
		s = string(b)
		if len(s) > 300 {
			s = s[:300] + "…"
		}
	} else {
		if len(b) > 225 {
			b = b[:225]
		}
		s = "base64:" + base64.StdEncoding.EncodeToString(b)
	}
	return str(dst, s)
}

// index lists an index file's entries with their problems, checked
// against the segment with the same base offset among the opened files.
func index(dst []byte, f *file) ([]byte, []string) {
	kind := map[storage.FileKind]storage.IndexKind{storage.OffsetIndexFile: storage.OffsetIndex, storage.TimeIndexFile: storage.TimeIndex, storage.TxnIndexFile: storage.TxnIndex}[f.kind.Kind]
	var problems []string
	var entries []byte
	n := 0
	on := func(e storage.IndexEntry, p string) {
		if p != "" {
			problems = append(problems, "entry "+strconv.Itoa(e.N)+": "+p)
		}
		if n < maxEntries {
			if n > 0 {
				entries = append(entries, ',')
			}
			je := e.AppendJSON(nil, kind)
			entries = append(entries, je[:len(je)-1]...)
			if p != "" {
				entries = append(entries, `,"problem":`...)
				entries = str(entries, p)
			}
			entries = append(entries, '}')
		}
		n++
	}
	x := storage.NewIndexReader(bytes.NewReader(f.bytes), kind, max(f.kind.Offset, 0))
	if kind == storage.TxnIndex {
		for {
			e, err := x.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					problems = append(problems, err.Error())
				}
				break
			}
			on(e, storage.TxnProblem(e))
		}
	} else {
		c := storage.NewIndexCheck(x)
		c.OnEntry = on
		checked := false
		for i := range opened.files {
			g := &opened.files[i]
			if g.kind.Kind == storage.SegmentFile && g.kind.Offset == f.kind.Offset && f.kind.Offset >= 0 {
				segment(nil, nil, 0, i, false, map[storage.IndexKind]*storage.IndexCheck{kind: c})
				checked = true
				break
			}
		}
		if !checked {
			c.End(1<<62, 1<<62)
			dst = append(dst, `,"unchecked":true`...)
		}
		if c.Err != nil {
			problems = append(problems, c.Err.Error())
		}
		dst = num(dst, "unused", int64(c.Unused))
	}
	dst = num(dst, "entries", int64(n))
	dst = append(dst, `,"entryList":[`...)
	dst = append(dst, entries...)
	return append(dst, ']'), problems
}

// record(id) answers one listed record's key and value: grid rows and
// tree nodes of each, and its decoded JSON for an internal topic.
func record(this js.Value, args []js.Value) any {
	id := arg(args, 0).Int()
	if id < 0 || id >= len(opened.recs) {
		return `{"error":"no such record"}`
	}
	loc := opened.recs[id]
	f := &opened.files[loc.file]
	seg := storage.NewSegment(bytes.NewReader(f.bytes[loc.batch:]), storage.SegmentOptions{Topic: opened.topic})
	b, err := seg.Next()
	if err != nil {
		return `{"error":` + string(str(nil, err.Error())) + `}`
	}
	res, decoded, _ := seg.Decode(b)
	if res == nil || loc.n >= len(res.Records) {
		return `{"error":"the record's batch no longer reads"}`
	}
	ri := res.Records[loc.n]
	var tr *storage.TopicRecord
	for _, d := range decoded {
		if d.Node() == ri.Node {
			tr = d.Topic()
		}
	}
	dst := []byte(`{"parts":[`)
	for i, part := range []string{"key", "value"} {
		if i > 0 {
			dst = append(dst, ',')
		}
		node := ri.Node.Get(part)
		if tr != nil {
			node = map[string]*tree.Node{"key": tr.KeyNode, "value": tr.ValueNode}[part]
		}
		dst = append(dst, `{"name":`...)
		dst = str(dst, part)
		if node == nil || node.Null {
			dst = append(dst, `,"null":true}`...)
			continue
		}
		buf := res.Buffer(b.Bytes, node.Buf)
		f := &codec.Frame{Root: node, Buffers: make([][]byte, node.Buf+1), APIKey: -1}
		f.Buffers[node.Buf] = buf
		cells := render.Cells(f, node.Buf)
		rows := render.Layout(cells, 4, 96, nil)
		dst = append(dst, `,"buf":`...)
		dst = strconv.AppendInt(dst, int64(node.Buf), 10)
		dst = append(dst, `,"rows":`...)
		dst = render.AppendRowsJSON(dst, cells, rows, 0, min(len(rows), 400), nil)
		dst = append(dst, `,"tree":[`...)
		first := true
		var walk func(n *tree.Node, depth int)
		walk = func(n *tree.Node, depth int) {
			if !first {
				dst = append(dst, ',')
			}
			first = false
			name := n.Name
			if n.Field != nil {
				name = n.Field.JSON
			}
			if n.Role == tree.RoleElement {
				name = "[" + strconv.Itoa(n.Index) + "]"
			}
			dst = append(dst, `{"depth":`...)
			dst = strconv.AppendInt(dst, int64(depth), 10)
			dst = append(dst, `,"name":`...)
			dst = str(dst, name)
			dst = append(dst, `,"type":`...)
			dst = str(dst, n.Type)
			dst = num(dst, "start", int64(n.Start))
			dst = num(dst, "end", int64(n.End))
			if len(n.Children) == 0 || n.Kind == 0 {
				dst = append(dst, `,"value":`...)
				dst = str(dst, render.ShortValue(n, -1))
			}
			if len(n.Warnings) > 0 {
				dst = append(dst, `,"warning":`...)
				dst = str(dst, n.Warnings[0])
			}
			dst = append(dst, '}')
			for _, k := range n.Children {
				walk(k, depth+1)
			}
		}
		walk(node, 0)
		dst = append(dst, "]}"...)
	}
	dst = append(dst, ']')
	if tr != nil {
		dst = append(dst, `,"json":`...)
		dst = str(dst, string(jsontext.Indent(nil, tr.AppendJSON(nil))))
	}
	return string(append(dst, '}'))
}
