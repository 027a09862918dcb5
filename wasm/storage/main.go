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
	"github.com/kwire/kwire/wasm/internal/glue"
)

// maxRecords is how many records open lists; past it they are counted.
const maxRecords = 20000

// maxEntries is how many index entries, checkpoint lines or problems a
// file lists.
const maxEntries = 2000

func main() {
	glue.Serve("kwireStorage", glue.Funcs{"open": open, "record": record})
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

// str writes the member k: s, as text the page takes as data.
func str(w *jsontext.Writer, k, s string) {
	w.Key(k)
	w.HTMLSafe(s)
}

// num writes the member k: v.
func num(w *jsontext.Writer, k string, v int64) {
	w.Key(k)
	w.Int(v)
}

// errorJSON is an answer that says only what went wrong.
func errorJSON(msg string) string {
	var w jsontext.Writer
	w.BeginObject()
	str(&w, "error", msg)
	w.EndObject()
	return string(w.B)
}

// open reads the files given and answers what they hold.
func open(this js.Value, args []js.Value) any {
	names, files := glue.Arg(args, 0), glue.Arg(args, 1)
	opened.files, opened.recs = nil, nil
	n := 0
	if names.Type() == js.TypeObject {
		n = names.Get("length").Int()
	}
	for i := 0; i < n; i++ {
		name := names.Index(i).String()
		f := file{name: name, bytes: glue.Bytes(files.Index(i)), kind: storage.KindOf(name)}
		if f.kind.Kind == storage.UnknownFile && looksLikeSegment(f.bytes) {
			f.kind.Kind = storage.SegmentFile
		}
		opened.files = append(opened.files, f)
	}
	opened.topic = glue.Arg(args, 2).String()
	if glue.Arg(args, 2).Type() != js.TypeString {
		opened.topic = ""
	}
	guessed := false
	if opened.topic == "" {
		opened.topic, guessed = guessTopic(), true
	}
	var w, recs jsontext.Writer // the records are listed after the files
	w.BeginObject()
	str(&w, "topic", opened.topic)
	w.Key("guessed")
	w.Bool(guessed && opened.topic != "")
	w.Key("files")
	w.BeginArray()
	recs.BeginArray()
	total := 0
	for i := range opened.files {
		describe(&w, &recs, &total, i)
	}
	w.EndArray()
	recs.EndArray()
	w.Key("records")
	w.Raw(recs.B)
	num(&w, "recordCount", int64(total))
	w.EndObject()
	return string(w.B)
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

// describe writes file i's description and adds its records to recs
// (total counts them).
func describe(w, recs *jsontext.Writer, total *int, i int) {
	f := &opened.files[i]
	w.BeginObject()
	str(w, "name", f.name)
	str(w, "kind", f.kind.Kind.String())
	num(w, "size", int64(len(f.bytes)))
	var problems []string
	switch f.kind.Kind {
	case storage.SegmentFile, storage.KRaftSnapshotFile:
		problems = segment(w, recs, total, i, true, nil)
	case storage.OffsetIndexFile, storage.TimeIndexFile, storage.TxnIndexFile:
		problems = index(w, f)
	case storage.ProducerSnapshotFile:
		p := storage.ReadProducerSnapshot(f.bytes)
		str(w, "json", string(jsontext.Indent(nil, p.AppendJSON(nil))))
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
		w.Key("entries")
		w.BeginArray()
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
				w.Value()
				w.B = e.AppendJSON(w.B, kind)
			}
		}
		w.EndArray()
	case storage.PartitionMetadataFile:
		if pm, err := storage.ReadPartitionMetadata(f.bytes); err != nil {
			problems = append(problems, err.Error())
		} else {
			str(w, "json", "version "+strconv.Itoa(pm.Version)+", topic id "+base64.RawURLEncoding.EncodeToString(pm.TopicID[:]))
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
		str(w, "json", text)
	case storage.QuorumStateFile:
		if q, err := storage.ReadQuorumState(f.bytes); err != nil {
			problems = append(problems, err.Error())
		} else {
			problems = append(problems, q.Problems...)
			str(w, "json", string(jsontext.Indent(nil, storage.AppendJSONValue(nil, q.Value))))
		}
	default:
		problems = append(problems, "not a file Kafka writes in a log directory (by its name), nor a segment (by its bytes)")
	}
	w.Key("problems")
	w.BeginArray()
	for j, p := range problems {
		if j == maxEntries {
			w.HTMLSafe(strconv.Itoa(len(problems)-maxEntries) + " more")
			break
		}
		w.HTMLSafe(p)
	}
	w.EndArray()
	w.EndObject()
}

// segment reads segment file i, lists its records into recs, and checks
// the indexes among the opened files that share its base offset (their
// problems are the index files' own, see index).
func segment(w, recs *jsontext.Writer, total *int, i int, list bool, checks map[storage.IndexKind]*storage.IndexCheck) []string {
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
			*total++
			if *total > maxRecords {
				continue
			}
			opened.recs = append(opened.recs, located{file: i, batch: b.Position, n: n, control: b.Control})
			recordJSON(recs, len(opened.recs)-1, i, b, ri, byNode[ri.Node])
		}
	}
	for _, c := range checks {
		c.End(end, last)
	}
	if snap != nil {
		snap.End()
		problems = append(problems, snap.Problems...)
	}
	num(w, "batches", int64(batches))
	num(w, "crcErrors", int64(crc))
	return problems
}

// recordJSON writes one listed record.
func recordJSON(w *jsontext.Writer, id, fi int, b *storage.Batch, ri storage.RecordInfo, tr *storage.TopicRecord) {
	w.BeginObject()
	num(w, "id", int64(id))
	num(w, "file", int64(fi))
	num(w, "batch", b.Position)
	num(w, "offset", ri.Offset)
	num(w, "timestamp", ri.Timestamp)
	num(w, "producerId", b.ProducerID)
	if b.Transactional {
		w.Key("transactional")
		w.Bool(true)
	}
	n := ri.Node
	for _, part := range []string{"key", "value"} {
		w.Key(part)
		preview(w, n.Get(part))
	}
	if k := n.Get("key"); b.Control && k != nil && len(k.Children) >= 2 {
		t := int(k.Children[1].Int)
		name := storage.ControlTypeName(t)
		if name == "" {
			name = "control type " + strconv.Itoa(t)
		}
		str(w, "marker", name)
	}
	w.Key("headers")
	w.BeginArray()
	if hs := n.Get("headers"); hs != nil {
		for _, h := range hs.Children {
			w.BeginArray()
			preview(w, h.Get("key"))
			preview(w, h.Get("value"))
			w.EndArray()
		}
	}
	w.EndArray()
	if tr != nil {
		str(w, "internal", string(tr.AppendJSON(nil)))
		if tr.Err != nil {
			str(w, "internalError", tr.Err.Error())
		}
	}
	w.EndObject()
}

// preview is a key, value or header as text (at most 300 characters, with
// "…"), "base64:..." when not text, or null.
func preview(w *jsontext.Writer, n *tree.Node) {
	if n == nil || n.Null {
		w.Null()
		return
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
	w.HTMLSafe(s)
}

// index lists an index file's entries with their problems, checked
// against the segment with the same base offset among the opened files.
func index(w *jsontext.Writer, f *file) []string {
	kind := map[storage.FileKind]storage.IndexKind{storage.OffsetIndexFile: storage.OffsetIndex, storage.TimeIndexFile: storage.TimeIndex, storage.TxnIndexFile: storage.TxnIndex}[f.kind.Kind]
	var problems []string
	var entries jsontext.Writer // listed after their count
	entries.BeginArray()
	n := 0
	on := func(e storage.IndexEntry, p string) {
		if p != "" {
			problems = append(problems, "entry "+strconv.Itoa(e.N)+": "+p)
		}
		if n < maxEntries {
			// The entry's own object, its problem added as its last member.
			entries.Value()
			entries.B = e.AppendJSON(entries.B, kind)
			if p != "" {
				entries.B = append(entries.B[:len(entries.B)-1], `,"problem":`...)
				entries.B = append(jsontext.AppendHTMLSafe(entries.B, p), '}')
			}
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
				segment(new(jsontext.Writer), nil, nil, i, false, map[storage.IndexKind]*storage.IndexCheck{kind: c})
				checked = true
				break
			}
		}
		if !checked {
			c.End(1<<62, 1<<62)
			w.Key("unchecked")
			w.Bool(true)
		}
		if c.Err != nil {
			problems = append(problems, c.Err.Error())
		}
		num(w, "unused", int64(c.Unused))
	}
	num(w, "entries", int64(n))
	entries.EndArray()
	w.Key("entryList")
	w.Raw(entries.B)
	return problems
}

// record(id) answers one listed record's key and value: grid rows and
// tree nodes of each, and its decoded JSON for an internal topic.
func record(this js.Value, args []js.Value) any {
	id := glue.Arg(args, 0).Int()
	if id < 0 || id >= len(opened.recs) {
		return errorJSON("no such record")
	}
	loc := opened.recs[id]
	f := &opened.files[loc.file]
	seg := storage.NewSegment(bytes.NewReader(f.bytes[loc.batch:]), storage.SegmentOptions{Topic: opened.topic})
	b, err := seg.Next()
	if err != nil {
		return errorJSON(err.Error())
	}
	res, decoded, _ := seg.Decode(b)
	if res == nil || loc.n >= len(res.Records) {
		return errorJSON("the record's batch no longer reads")
	}
	ri := res.Records[loc.n]
	var tr *storage.TopicRecord
	for _, d := range decoded {
		if d.Node() == ri.Node {
			tr = d.Topic()
		}
	}
	var w jsontext.Writer
	w.BeginObject()
	w.Key("parts")
	w.BeginArray()
	for _, part := range []string{"key", "value"} {
		node := ri.Node.Get(part)
		if tr != nil {
			node = map[string]*tree.Node{"key": tr.KeyNode, "value": tr.ValueNode}[part]
		}
		w.BeginObject()
		str(&w, "name", part)
		if node == nil || node.Null {
			w.Key("null")
			w.Bool(true)
			w.EndObject()
			continue
		}
		buf := res.Buffer(b.Bytes, node.Buf)
		f := &codec.Frame{Root: node, Buffers: make([][]byte, node.Buf+1), APIKey: -1}
		f.Buffers[node.Buf] = buf
		cells := render.Cells(f, node.Buf)
		rows := render.Layout(cells, 4, 96, nil)
		num(&w, "buf", int64(node.Buf))
		w.Key("rows")
		w.Value()
		w.B = render.AppendRowsJSON(w.B, cells, rows, 0, min(len(rows), 400), nil)
		w.Key("tree")
		w.BeginArray()
		var walk func(n *tree.Node, depth int)
		walk = func(n *tree.Node, depth int) {
			name := render.TreeName(n)
			w.BeginObject()
			num(&w, "depth", int64(depth))
			str(&w, "name", name)
			str(&w, "type", n.Type)
			num(&w, "start", int64(n.Start))
			num(&w, "end", int64(n.End))
			if len(n.Children) == 0 || n.Kind == 0 {
				str(&w, "value", render.ShortValue(n, -1))
			}
			if len(n.Warnings) > 0 {
				str(&w, "warning", n.Warnings[0])
			}
			w.EndObject()
			for _, k := range n.Children {
				walk(k, depth+1)
			}
		}
		walk(node, 0)
		w.EndArray()
		w.EndObject()
	}
	w.EndArray()
	if tr != nil {
		str(&w, "json", string(jsontext.Indent(nil, tr.AppendJSON(nil))))
	}
	w.EndObject()
	return string(w.B)
}
