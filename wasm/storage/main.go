//go:build js && wasm

// Command storage is the playground's third WebAssembly module, loaded
// only when Kafka's storage files are opened (segments, indexes,
// snapshots, checkpoints; package codec/storage reads them). It sets a
// global object kwireStorage with three functions, each answering a
// Promise (they wait for the files' bytes, which the browser reads
// asynchronously: see glue.Promise):
//
//	kwireStorage.open(names, files, topic, progress, folder, payload) -> Promise of JSON text
//	kwireStorage.record(id, payload) -> Promise of JSON text
//	kwireStorage.payloads(from, to, payload) -> Promise of JSON text
//
// open reads the files (names [string], files [Blob or File], read
// together so an index is checked against the segment beside it, in the
// segment's pass) and keeps them, not their bytes, for record. A file is
// read in slices as it is needed (chunkMin growing to chunkMax bytes), so
// memory stays flat however big a segment is (Kafka's default is 1 GiB).
// topic names the partition's topic ("" to guess among the internal
// topics: __cluster_metadata for a KRaft snapshot's name, else from the
// first records that carry a topic's framing): an internal topic's keys
// and values are decoded. Its answer lists each file (kind, what it holds, its problems,
// what kwire log reports: index entries that disagree with their segment,
// a .txnindex that disagrees with its segment (storage.TxnCheck; a segment
// whose ABORT markers have no .txnindex when its .index or .timeindex was
// given, the partition's files and not a segment alone), a
// leader-epoch-checkpoint that disagrees with the segments' leader epochs
// or their log end (storage.CheckLeaderEpochs, when segments are given;
// the log end only when folder is true, the files being all of a
// partition folder's, and the newest segment their names give is among
// them: else a note says why not),
// offsets out of order (storage.OffsetCheck, the next segment being the
// one among the files with the least base offset above), CRC mismatches,
// a torn tail, a batch's warnings, checkpoints out of order; its notes,
// which are no problem: zeros to the end) and the records of the segments
// (a legacy compressed wrapper's messages, not the wrapper; at most
// maxRecords; past it they are counted), each with its offset, timestamp,
// key, value, headers, producer and control marker, and for an internal
// topic its key and value decoded. progress, when a function, is called
// with JSON text {read, total, records} before each slice is read: the
// bytes read so far, of all the files' total, and the records listed
// since the last call, so that the page shows the first batch while the
// rest is read. A later open supersedes one still reading (which then
// answers an error).
//
// payload, when given, is payload.wasm's kwirePayload (the worker hands it
// over once the user gave schemas): an ordinary topic's keys and values
// (no internal topic's, no control record's) are then read with the
// schemas given, as kwire log --schemas reads them, this module carrying
// no payload decoder. A listed record then has keyPayload and valuePayload
// (what kwirePayload.payloads answers: the decoded value's JSON, cut at
// 300 bytes, its schema id and format, or warnings that say why it did not
// decode), read a batch at a time.
//
// record gives one record's key and value as grid rows (render's row JSON)
// and tree nodes, and its decoded JSON (with internalError, why it did not
// decode, as open's listing says it), reading only its batch again. With
// payload, an ordinary topic's key and value are drawn by payload.wasm
// (kwirePayload.payload: their fields' nodes, and warnings), and json is
// the record's key and value as kwire log --schemas writes them.
//
// payloads reads the keys and values of the records listed (ids from to
// to) again with payload, for schemas given after the files were opened:
// only those records' batches are read again, not the files (a second
// pass over a 1 GiB segment).
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall/js"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/storage"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
	"github.com/kwire/kwire/internal/sortfunc"
	"github.com/kwire/kwire/wasm/internal/glue"
	"github.com/kwire/kwire/wasm/internal/partview"
)

// maxRecords is how many records open lists; past it they are counted.
const maxRecords = 20000

// The browser's limits on reading a batch, as kwire.wasm's on a frame
// (wasm/main.go): a wasm32 heap cannot grow past 4 GB, and a batch of a
// few hundred bytes may declare a million records. maxNodes bounds what
// the batches of one open decode to in all; guessNodes what each batch
// guessTopic reads may, which wants its first records only.
const (
	batchNodes        = 1 << 18
	batchDecompressed = 16 << 20
	maxNodes          = 4 * batchNodes
	guessNodes        = 1 << 12
)

// batchOptions are the options a batch of the session's segments is
// read with, whether listed or shown (record): the same, so a record's
// index in its batch is the same in both.
func (s *session) batchOptions() storage.SegmentOptions {
	return storage.SegmentOptions{Topic: s.topic, MaxNodes: batchNodes, MaxDecompressed: batchDecompressed}
}

// countNodes is how many nodes the trees ns hold.
func countNodes(ns []*tree.Node) int {
	n := len(ns)
	for _, c := range ns {
		n += countNodes(c.Children)
	}
	return n
}

// maxEntries is how many index entries, checkpoint lines or problems a
// file lists.
const maxEntries = 2000

func main() {
	glue.Serve("kwireStorage", glue.Funcs{"open": open, "record": record, "payloads": payloads})
}

// chunkMin and chunkMax bound the slices a file is read in: the first
// small, so that the first batch shows at once, then each twice the last,
// up to chunkMax, so a big file takes few reads (and holds no more).
var chunkMin, chunkMax = 64 << 10, 4 << 20

// file is an opened file.
type file struct {
	name string
	blob js.Value // a Blob or File, read in slices
	size int64
	kind storage.Named
}

// located is where a listed record is: its file, its batch's position and
// size.
type located struct {
	file        int
	batch, size int64
	n           int // the record's index in its batch
	control     bool
}

// session is what one call of open read, for record.
type session struct {
	files []file
	topic string

	mu   sync.Mutex // recs: record reads them while open still lists
	recs []located

	list        jsontext.Writer // the records listed, an array
	sent        int             // list.B up to here went with a progress report
	progress    js.Value        // the page's progress callback (or undefined)
	read, total int64           // bytes read in the listing pass, of the files' total
	// nodes counts the nodes the session's batches decoded to: past
	// maxNodes, or once maxRecords are listed, batches are checked but
	// their records not read (segment says so).
	nodes int

	// What the segments' pass found for the files read after it, as kwire
	// log checks a partition directory: each segment's leader-epoch runs
	// (by file), its last offset, whether one could not be read whole; and
	// each .txnindex's check against its segment (by the index's file).
	epochs  map[int][]storage.EpochRun
	lasts   map[int]int64
	damaged bool
	txns    map[int]*storage.TxnCheck

	// folder: the files are all of a partition folder's (open's fifth
	// argument), so the newest segment among them is the partition's and
	// its end the log end.
	folder bool

	// payload reads an ordinary topic's keys and values (open's sixth
	// argument: payload.wasm's kwirePayload, or undefined): see payloads.
	payload js.Value
}

// payloads says whether the session's keys and values are read by the
// payload hook: one was given and the topic is no internal topic (whose
// records this module reads through Kafka's schemas).
func (s *session) payloads(payload js.Value) bool {
	return payload.Type() == js.TypeObject && schema.InternalTopicByName(s.topic) == nil
}

// payloadPart is what the payload hook (payload.wasm's kwirePayload)
// answers for part ("key" or "value") n of the record drawn (nil when it
// is null or empty: nothing to read): the part drawn, and its value JSON
// (see wasm/payload.go's payloadJSON).
func (s *session) payloadPart(payload js.Value, part string, n *tree.Node) (drawn, json []byte) {
	if !hasBytes(n) {
		return nil, nil
	}
	r := payload.Call("payload", s.topic, part == "key", glue.Uint8Array(n.Raw), true)
	if r.Type() == js.TypeObject && r.Length() == 2 {
		return []byte(r.Index(0).String()), []byte(r.Index(1).String())
	}
	return nil, nil
}

// hasBytes says whether n, a record's key or value, holds bytes for the
// payload hook to read: not missing, null or empty.
func hasBytes(n *tree.Node) bool { return n != nil && !n.Null && len(n.Raw) > 0 }

// payloadRows reads the keys and values of a batch's records listed
// (recs) with the payload hook given, in one call (kwirePayload.payloads: a
// call into a Go module costs more than reading a small payload), and
// answers each one's row JSON: rows[2*i] record i's key's, rows[2*i+1] its
// value's (nil: null or empty).
func (s *session) payloadRows(payload js.Value, recs []storage.RecordInfo) [][]byte {
	rows := make([][]byte, 2*len(recs))
	var packed []byte
	var at []int // the parts packed, by index in rows
	for i, ri := range recs {
		for j, part := range []string{"key", "value"} {
			n := ri.Node.Get(part)
			if !hasBytes(n) {
				continue
			}
			packed = append(packed, byte(1-j))
			packed = binary.BigEndian.AppendUint32(packed, uint32(len(n.Raw)))
			packed = append(packed, n.Raw...)
			at = append(at, 2*i+j)
		}
	}
	if len(at) == 0 {
		return rows
	}
	r := payload.Call("payloads", s.topic, glue.Uint8Array(packed))
	if r.Type() != js.TypeString {
		return rows
	}
	lines := bytes.Split([]byte(r.String()), []byte{'\n'})
	if len(lines) != len(at) {
		return rows
	}
	for k, i := range at {
		rows[i] = lines[k]
	}
	return rows
}

var (
	curMu sync.Mutex
	cur   *session // the latest open's
)

func current() *session {
	curMu.Lock()
	defer curMu.Unlock()
	return cur
}

var errSuperseded = errors.New("superseded by a later open")

// superseded says whether a later open replaced s: its reads stop.
func (s *session) superseded() bool { return current() != s }

// reader reads a file from its start in slices, the first chunkMin bytes,
// each one after twice its predecessor up to chunkMax; counted reads add
// to the session's progress (which they report first).
type reader struct {
	s       *session
	f       *file
	pos     int64 // the next byte to read from the file
	buf     []byte
	at      int // buf[at:] is not yet read
	chunk   int
	counted bool
}

func (s *session) reader(f *file, counted bool) *reader {
	return &reader{s: s, f: f, counted: counted}
}

func (r *reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.at < len(r.buf) {
		n := copy(p, r.buf[r.at:])
		r.at += n
		return n, nil
	}
	if r.pos >= r.f.size {
		return 0, io.EOF
	}
	if r.s.superseded() {
		return 0, errSuperseded
	}
	r.chunk = max(chunkMin, min(2*r.chunk, chunkMax))
	want := min(int64(r.chunk), r.f.size-r.pos)
	direct := int64(len(p)) >= want // read straight into p, as much as it asks for
	var dst []byte
	if direct {
		dst = p[:min(int64(len(p)), r.f.size-r.pos)]
	} else {
		if int64(cap(r.buf)) < want {
			r.buf = make([]byte, want)
		}
		dst = r.buf[:want]
	}
	if r.counted {
		r.s.report()
	}
	n, err := glue.ReadBlob(r.f.blob, r.pos, dst)
	if err != nil {
		return 0, errors.New("reading " + r.f.name + ": " + err.Error())
	}
	if n == 0 {
		return 0, io.ErrUnexpectedEOF // the file is shorter than it was
	}
	r.pos += int64(n)
	if r.counted {
		r.s.read += int64(n)
	}
	if direct {
		return n, nil
	}
	r.buf, r.at = dst[:n], 0
	n = copy(p, r.buf)
	r.at = n
	return n, nil
}

// whole reads all of a small file (producer snapshots, partition
// metadata, quorum state: read from bytes).
func (s *session) whole(f *file) ([]byte, error) {
	return io.ReadAll(s.reader(f, true))
}

// report calls the page's progress callback with the bytes read so far
// and the records listed since the last report.
func (s *session) report() {
	if s.progress.Type() != js.TypeFunction {
		return
	}
	var w jsontext.Writer
	w.BeginObject()
	num(&w, "read", s.read)
	num(&w, "total", s.total)
	w.Key("records")
	fresh := s.list.B[min(s.sent, len(s.list.B)):]
	if len(fresh) > 0 && fresh[0] == ',' {
		fresh = fresh[1:]
	}
	w.Value()
	w.B = append(append(append(w.B, '['), fresh...), ']')
	w.EndObject()
	s.sent = len(s.list.B)
	s.progress.Invoke(string(w.B))
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

// open reads the files given and answers (a Promise of) what they hold.
func open(this js.Value, args []js.Value) any {
	names, files := glue.Arg(args, 0), glue.Arg(args, 1)
	s := &session{progress: glue.Arg(args, 3), epochs: map[int][]storage.EpochRun{}, lasts: map[int]int64{}, txns: map[int]*storage.TxnCheck{}}
	n := 0
	if names.Type() == js.TypeObject && files.Type() == js.TypeObject {
		n = min(names.Get("length").Int(), files.Get("length").Int())
	}
	for i := 0; i < n; i++ {
		name, blob := names.Index(i).String(), files.Index(i)
		f := file{name: name, blob: blob, kind: storage.KindOf(name)}
		if blob.Type() == js.TypeObject && blob.Get("slice").Type() == js.TypeFunction {
			f.size = int64(blob.Get("size").Float())
		} else {
			f.blob = js.Global().Get("Blob").New(js.Global().Get("Array").New()) // not a file: read as empty
		}
		s.files = append(s.files, f)
	}
	s.topic = glue.String(args, 2)
	s.folder = glue.Arg(args, 4).Type() == js.TypeBoolean && glue.Arg(args, 4).Bool()
	s.payload = glue.Arg(args, 5)
	curMu.Lock()
	cur = s
	curMu.Unlock()
	return glue.Promise(func() (any, error) { return s.open(), nil })
}

// open reads the session's files and answers what they hold.
func (s *session) open() string {
	for i := range s.files {
		f := &s.files[i]
		s.total += f.size
		if f.kind.Kind == storage.UnknownFile {
			head := make([]byte, storage.SegmentHeadLen)
			if n, err := glue.ReadBlob(f.blob, 0, head); err == nil && storage.SegmentHead(head[:n]) {
				f.kind.Kind = storage.SegmentFile
			}
		}
	}
	guessed := false
	if s.topic == "" {
		s.topic, guessed = s.guessTopic(), true
	}
	// Each file's description is written on its own, in two passes: the
	// segments first, each read once, listing its records and checking
	// the indexes beside it as it goes; then the other files. The answer
	// lists them in the order given.
	descs := make([]jsontext.Writer, len(s.files))
	indexes := make([]*indexFile, len(s.files))
	s.list.BeginArray()
	s.sent = len(s.list.B)
	total := 0
	for i := range s.files {
		if k := s.files[i].kind.Kind; k != storage.SegmentFile && k != storage.KRaftSnapshotFile {
			continue
		}
		var checks []*indexFile
		for j := range s.files {
			if g := &s.files[j]; s.checkedBy(j) == i {
				indexes[j] = s.newIndex(g)
				checks = append(checks, indexes[j])
			}
		}
		s.describe(&descs[i], &total, i, checks, nil)
	}
	for i := range s.files {
		if k := s.files[i].kind.Kind; k != storage.SegmentFile && k != storage.KRaftSnapshotFile {
			s.describe(&descs[i], &total, i, nil, indexes[i])
		}
	}
	s.report() // the last records, all read
	s.list.EndArray()
	if s.superseded() {
		return errorJSON(errSuperseded.Error())
	}
	var w jsontext.Writer
	w.BeginObject()
	str(&w, "topic", s.topic)
	w.Key("guessed")
	w.Bool(guessed && s.topic != "")
	w.Key("files")
	w.BeginArray()
	for i := range descs {
		w.Raw(descs[i].B)
	}
	w.EndArray()
	w.Key("records")
	w.Raw(s.list.B)
	num(&w, "recordCount", int64(total))
	w.EndObject()
	s.list = jsontext.Writer{} // record needs only where the records are
	return string(w.B)
}

// checkedBy is the segment file index j is checked against: the first
// segment with its base offset and suffix (X.index.deleted is
// X.log.deleted's), or -1 (not an offset or time index, or
// no such segment among the files).
func (s *session) checkedBy(j int) int {
	f := &s.files[j]
	if k := f.kind.Kind; k != storage.OffsetIndexFile && k != storage.TimeIndexFile || f.kind.Offset < 0 {
		return -1
	}
	for i := range s.files {
		if g := &s.files[i]; g.kind.Kind == storage.SegmentFile && g.kind.Offset == f.kind.Offset && g.kind.Suffix == f.kind.Suffix {
			return i
		}
	}
	return -1
}

// guessBatches is how many entries of the segments guessTopic reads at
// most for its 20 records, for each topic: segments of entries without
// records it can read (too large, or whose keys are null) are not read to
// their end once per internal topic.
const guessBatches = 100

// guessTopic picks the internal topic the files are evidently of, or "":
// a KRaft snapshot's name makes them __cluster_metadata's; else the topic
// whose framing the first data records of the segments read without error
// under, counting only records that carry the framing (a coordinator
// record's key, a metadata record's value: a record whose key and value
// are null reads as a tombstone of any coordinator topic, which says
// nothing).
func (s *session) guessTopic() string {
	for i := range s.files {
		if s.files[i].kind.Kind == storage.KRaftSnapshotFile {
			return "__cluster_metadata"
		}
	}
	for _, t := range schema.InternalTopics() {
		coordinator := t.Framing == schema.CoordinatorFraming
		tried, good, batches := 0, 0, 0
		for i := range s.files {
			f := &s.files[i]
			if f.kind.Kind != storage.SegmentFile && f.kind.Kind != storage.KRaftSnapshotFile {
				continue
			}
			seg := storage.NewSegment(s.reader(f, false), storage.SegmentOptions{Topic: t.Name, MaxNodes: guessNodes, MaxDecompressed: batchDecompressed})
			for ; tried < 20 && batches < guessBatches; batches++ {
				b, err := seg.Next()
				if err != nil {
					break
				}
				_, recs, _ := seg.Decode(b)
				for _, r := range recs {
					tr := r.Topic()
					if coordinator && tr.Key.Null || !coordinator && tr.Value.Null {
						continue
					}
					tried++
					if tr.Err == nil {
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

// describe writes file i's description and lists a segment's records
// (total counts them), checking the indexes given against it as it is
// read; x is an index file's check, when it was run with its segment.
func (s *session) describe(w *jsontext.Writer, total *int, i int, checks []*indexFile, x *indexFile) {
	f := &s.files[i]
	w.BeginObject()
	str(w, "name", f.name)
	str(w, "kind", f.kind.Kind.String())
	num(w, "size", f.size)
	var problems, notes []string
	switch f.kind.Kind {
	case storage.SegmentFile, storage.KRaftSnapshotFile:
		problems, notes = s.segment(w, total, i, checks)
	case storage.OffsetIndexFile, storage.TimeIndexFile, storage.TxnIndexFile:
		if x == nil {
			x = s.newIndex(f)
		}
		if f.kind.Kind == storage.TxnIndexFile {
			x.txn = s.txns[i]
		}
		problems = s.index(w, x)
	case storage.ProducerSnapshotFile:
		b, err := s.whole(f)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		p := storage.ReadProducerSnapshot(b)
		str(w, "json", string(jsontext.Indent(nil, p.AppendJSON(nil))))
		problems = append(problems, p.Problems()...)
	case storage.LeaderEpochFile, storage.OffsetCheckpointFile:
		kind := storage.OffsetCheckpoint
		if f.kind.Kind == storage.LeaderEpochFile {
			kind = storage.LeaderEpochCheckpoint
		}
		// Its entries after their count, as an index's are: entryList
		// holds the first maxEntries, entries counts them all.
		r := storage.NewCheckpointReader(s.reader(f, true), kind)
		var list jsontext.Writer
		list.BeginArray()
		n := 0
		var entries []storage.CheckpointEntry // a leader-epoch-checkpoint's, to check against the segments
		ordered := true
		for ; ; n++ {
			e, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					problems = append(problems, err.Error())
				} else if kind == storage.LeaderEpochCheckpoint && f.kind.Suffix == "" {
					ps, why, checked := s.epochProblems(entries, ordered)
					problems = append(problems, ps...)
					if why != "" {
						notes = append(notes, why)
					}
					w.Key("checkedAgainstSegments")
					w.Bool(checked)
				}
				break
			}
			if kind == storage.LeaderEpochCheckpoint {
				entries = append(entries, e)
			}
			if e.Problem != "" {
				ordered = false
				problems = append(problems, "line "+strconv.Itoa(e.Line)+": "+e.Problem)
			}
			if n < maxEntries {
				list.Value()
				list.B = e.AppendJSON(list.B, kind)
			}
		}
		list.EndArray()
		num(w, "entries", int64(n))
		w.Key("entryList")
		w.Raw(list.B)
	case storage.PartitionMetadataFile:
		b, err := s.whole(f)
		if err != nil {
			problems = append(problems, err.Error())
		} else if pm, err := storage.ReadPartitionMetadata(b); err != nil {
			problems = append(problems, err.Error())
		} else {
			str(w, "json", "version "+strconv.Itoa(pm.Version)+", topic id "+base64.RawURLEncoding.EncodeToString(pm.TopicID[:]))
		}
	case storage.MetaPropertiesFile:
		props, ps, err := storage.ReadMetaProperties(s.reader(f, true))
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
		b, err := s.whole(f)
		if err != nil {
			problems = append(problems, err.Error())
		} else if q, err := storage.ReadQuorumState(b); err != nil {
			problems = append(problems, err.Error())
		} else {
			problems = append(problems, q.Problems...)
			str(w, "json", string(jsontext.Indent(nil, storage.AppendJSONValue(nil, q.Value))))
		}
	default:
		problems = append(problems, "not a file Kafka writes in a log directory (by its name), nor a segment (by its bytes)")
	}
	for j := range i {
		if s.files[j].name == f.name {
			// Two partitions' files, read as one partition's: their
			// records were listed together, offsets twice, with no word.
			problems = append([]string{"another file given is named " + strconv.Quote(f.name) + " too: the files given are read as one partition's, " +
				"and a partition holds one file of a name (open each partition's files on their own)"}, problems...)
			break
		}
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
	if len(notes) > 0 {
		// What kwire log says and does not count as a problem: zeros to
		// the end, space a broker preallocated.
		w.Key("notes")
		w.BeginArray()
		for _, n := range notes {
			w.HTMLSafe(n)
		}
		w.EndArray()
	}
	w.EndObject()
}

// segment reads segment file i once, lists its records, and checks the
// indexes given (their problems are the index files' own, see index) and
// its offsets, as kwire log does (storage.OffsetCheck: within the
// segment, and against the next segment among the files). notes are what
// is said but is no problem: zeros to the end, preallocated space.
func (s *session) segment(w *jsontext.Writer, total *int, i int, checks []*indexFile) (problems, notes []string) {
	f := &s.files[i]
	o := s.batchOptions()
	if f.kind.Kind == storage.SegmentFile && f.kind.Offset >= 0 {
		for _, x := range checks {
			if x.kind == storage.OffsetIndex {
				// The positions the .index names tell a resync where
				// entries start, as kwire log's do, read by its check:
				// the file is read once.
				o.Index = x.c.Positions()
			}
		}
	}
	seg := storage.NewSegment(s.reader(f, true), o)
	var snap *storage.SnapshotCheck
	base := f.kind.Offset // a KRaft snapshot's name gives the log's end, not its records' offsets
	if f.kind.Kind == storage.KRaftSnapshotFile {
		snap, base = storage.NewSnapshotCheck(), -1
	}
	offsets := storage.NewOffsetCheck(base)
	var ops []storage.OffsetProblem
	// The .txnindex beside the segment is checked against its batches
	// (storage.TxnCheck), as kwire log checks it: its problems are the
	// index file's own. With none among the files, ABORT markers that
	// need one are said when the segment's other indexes were given (the
	// partition's files, not a segment picked alone).
	var txn *storage.TxnCheck
	txnAt := -1
	partOf := f.kind.Kind == storage.SegmentFile && f.kind.Offset >= 0 && f.kind.Suffix == ""
	if partOf {
		if txnAt = s.beside(i, storage.TxnIndexFile); txnAt >= 0 {
			txn = storage.NewTxnCheck(storage.NewIndexReader(s.reader(&s.files[txnAt], false), storage.TxnIndex, f.kind.Offset))
		} else if s.beside(i, storage.OffsetIndexFile) >= 0 || s.beside(i, storage.TimeIndexFile) >= 0 {
			txn = storage.NewTxnCheck(nil)
		}
	}
	var runs []storage.EpochRun // the batches' leader epochs, for the leader-epoch-checkpoint
	offsetProblem := func(op *storage.OffsetProblem) {
		problems = append(problems, "offsets "+strconv.FormatInt(op.BaseOffset, 10)+"-"+strconv.FormatInt(op.LastOffset, 10)+
			" of the batch at "+strconv.FormatInt(op.Position, 10)+": "+op.Msg)
	}
	batches, crc, wrappers, unread := 0, 0, 0, 0
	var end, last int64 = 0, -1
	var stop error // what ended the segment's reading
	for {
		b, err := seg.Next()
		var de *storage.DamageError
		if errors.As(err, &de) {
			// Bytes inside the segment that are no batch, with batches
			// after them (as kwire log's "damage" line): read on.
			problems = append(problems, de.Text())
			for _, x := range checks {
				x.c.Damage(de)
			}
			continue
		}
		if err != nil {
			var te *storage.TailError
			if stop = err; errors.As(err, &te) && te.Zero {
				notes = append(notes, err.Error())
			} else if !errors.Is(err, io.EOF) {
				problems = append(problems, err.Error()) // a damaged tail, or the file could not be read
				s.damaged = true
			}
			break
		}
		batches++
		end, last = b.Position+b.Size(), max(last, b.LastOffset)
		if b.Searched {
			// Its CRC holds, but it was found by searching past the
			// damage said above, not by following lengths.
			notes = append(notes, "the batch at "+strconv.FormatInt(b.Position, 10)+" was found by searching past the damage before it, not by following the lengths of the entries before it")
		}
		_, ops = offsets.Batch(ops[:0], b)
		for j := range ops {
			offsetProblem(&ops[j])
		}
		for _, x := range checks {
			x.c.Batch(b)
		}
		if snap != nil {
			snap.Batch(b)
		}
		if txn != nil {
			txn.Batch(b)
		}
		if ep, ok := storage.BatchLeaderEpoch(b); ok && b.CRCValid && ep >= 0 {
			if n := len(runs); n > 0 && runs[n-1].Epoch == ep {
				runs[n-1].LastOffset = b.BaseOffset
			} else {
				runs = append(runs, storage.EpochRun{Epoch: ep, Offset: b.BaseOffset, LastOffset: b.BaseOffset})
			}
		}
		if b.Skipped {
			s.damaged = true
			problems = append(problems, "the batch at "+strconv.FormatInt(b.Position, 10)+" is too large to read")
			continue
		}
		if !b.CRCValid {
			crc++
			problems = append(problems, "the CRC of the batch at "+strconv.FormatInt(b.Position, 10)+" does not match its bytes")
		}
		if *total >= maxRecords || s.nodes >= maxNodes {
			// Listed in full already, or read to the budget: the batch's
			// records are counted from its header, not read.
			*total += b.Records
			unread += b.Records
			continue
		}
		res, decoded, derr := seg.Decode(b)
		if res != nil {
			s.nodes += countNodes(res.Nodes)
		}
		// What kwire log writes in the batch's line, and counts a
		// problem: the reading's warnings and its error.
		for _, x := range seg.Warnings() {
			if !b.CRCValid && x.Buf == 0 && strings.HasPrefix(x.Message, "CRC-32") {
				continue // said above, once
			}
			at := "at byte " + strconv.FormatInt(b.Position+int64(x.Offset), 10)
			if x.Buf != 0 {
				at = "at byte " + strconv.Itoa(x.Offset) + " of its decompressed records"
			}
			problems = append(problems, "the batch at "+strconv.FormatInt(b.Position, 10)+", "+at+": "+x.Message)
		}
		if derr != nil {
			problems = append(problems, "the batch at "+strconv.FormatInt(b.Position, 10)+": "+derr.Error())
		}
		if res == nil {
			continue
		}
		byNode := map[*tree.Node]*storage.TopicRecord{}
		for _, d := range decoded {
			byNode[d.Node()] = d.Topic()
			if tr := d.Topic(); tr != nil && tr.Err != nil {
				ri, _ := res.Info(d.Node())
				problems = append(problems, "the record at offset "+strconv.FormatInt(ri.Offset, 10)+" (the batch at "+strconv.FormatInt(b.Position, 10)+
					") is not a record of "+s.topic+": "+recordError(tr, b.Position))
			}
		}
		var rows [][]byte // the keys' and values' rows the payload hook read
		if res.Records != nil && !b.Control && s.payloads(s.payload) && *total < maxRecords {
			rows = s.payloadRows(s.payload, res.Records) // (past maxRecords, a batch's last are read for nothing)
		}
		for n, ri := range res.Records {
			if isWrapper(ri.Node) {
				// A legacy compressed wrapper: its messages are the
				// records, listed after it (kwire log counts them, not
				// it).
				wrappers++
				continue
			}
			*total++
			if *total > maxRecords {
				continue
			}
			s.mu.Lock()
			s.recs = append(s.recs, located{file: i, batch: b.Position, size: b.Size(), n: n, control: b.Control})
			id := len(s.recs) - 1
			s.mu.Unlock()
			var kv [2][]byte
			if 2*n+1 < len(rows) {
				kv = [2][]byte{rows[2*n], rows[2*n+1]}
			}
			recordJSON(&s.list, id, i, b, ri, byNode[ri.Node], kv)
		}
	}
	if next, ok := s.nextSegment(i); ok {
		if op, ok := offsets.Next(next); ok {
			offsetProblem(&op)
		}
	}
	if n := o.Index.Note(); n != "" {
		notes = append(notes, n)
	}
	for _, x := range checks {
		x.c.End(end, last, stop)
		x.checked = true
	}
	if snap != nil {
		snap.End()
		problems = append(problems, snap.Problems...)
	}
	if txn != nil {
		txn.End(f.kind.Offset, last, stop != nil && !errors.Is(stop, io.EOF))
		if txnAt >= 0 {
			s.txns[txnAt] = txn
		} else if txn.Aborts > 0 {
			problems = append(problems, "no .txnindex beside the segment, which holds "+abortMarkers(txn.Aborts)+
				": Kafka writes an entry for each aborted transaction whose marker is in the segment (read_committed consumers rely on them to skip its records)")
		}
	}
	if partOf {
		s.epochs[i], s.lasts[i] = runs, last
	}
	if unread > 0 {
		why := "the first " + strconv.Itoa(maxRecords) + " records are listed"
		if s.nodes >= maxNodes {
			why = "the batches read so far decoded to " + strconv.Itoa(s.nodes) + " nodes, the browser's limit being " + strconv.Itoa(maxNodes)
		}
		notes = append(notes, strconv.Itoa(unread)+" records of later batches are counted from their headers, not read: "+why+
			" (their CRCs, offsets and indexes are checked; kwire log reads every record)")
	}
	num(w, "batches", int64(batches))
	num(w, "crcErrors", int64(crc))
	if wrappers > 0 {
		num(w, "wrappers", int64(wrappers))
	}
	return problems, notes
}

// nextSegment is the base offset of the segment after file i among the
// files, as its partition orders them: the least above i's of the
// segments named with the same suffix (ok is false when there is none).
func (s *session) nextSegment(i int) (next int64, ok bool) {
	f := &s.files[i]
	if f.kind.Kind != storage.SegmentFile || f.kind.Offset < 0 {
		return 0, false
	}
	for j := range s.files {
		g := &s.files[j]
		if g.kind.Kind == storage.SegmentFile && g.kind.Suffix == f.kind.Suffix && g.kind.Offset > f.kind.Offset && (!ok || g.kind.Offset < next) {
			next, ok = g.kind.Offset, true
		}
	}
	return next, ok
}

// beside is the file among the files of kind k that belongs to segment
// file i (its base offset and suffix), or -1.
func (s *session) beside(i int, k storage.FileKind) int {
	f := &s.files[i]
	for j := range s.files {
		if g := &s.files[j]; g.kind.Kind == k && g.kind.Offset == f.kind.Offset && g.kind.Suffix == f.kind.Suffix {
			return j
		}
	}
	return -1
}

// epochProblems checks a leader-epoch-checkpoint's entries against the
// leader epochs of the segments among the files, in offset order, and
// their log end offset, as kwire log checks a partition directory's
// (storage.CheckLeaderEpochs); checked is false when no segment was
// given. Out of order, only the start offsets are checked against the
// log end.
//
// The log end is the newest segment's, which the files given may not
// hold: it is judged only when they are a partition folder's (s.folder),
// the newest segment that their names give (a segment's .index,
// .timeindex, .txnindex are named by its base offset) is among them and
// every segment read whole. Otherwise why says why it was not (a note,
// not a problem): an entry past the given segments' end is no problem
// when a newer segment was left out.
func (s *session) epochProblems(entries []storage.CheckpointEntry, ordered bool) (problems []string, why string, checked bool) {
	var segs []int
	for i := range s.files {
		if _, ok := s.epochs[i]; ok {
			segs = append(segs, i)
		}
	}
	if len(segs) == 0 {
		return nil, "", false
	}
	sortfunc.Slice(len(segs), func(a, b int) bool { return s.files[segs[a]].kind.Offset < s.files[segs[b]].kind.Offset }, func(a, b int) { segs[a], segs[b] = segs[b], segs[a] })
	runs := []storage.EpochRun{}
	last := int64(-1)
	for _, i := range segs {
		last = max(last, s.lasts[i])
		for _, r := range s.epochs[i] {
			if n := len(runs); n > 0 && runs[n-1].Epoch == r.Epoch {
				runs[n-1].LastOffset = r.LastOffset
			} else {
				runs = append(runs, r)
			}
		}
	}
	newest := s.files[segs[len(segs)-1]].kind.Offset
	logEnd := int64(-1)
	named := -1 // the file naming a newer segment than any given
	for i := range s.files {
		switch g := &s.files[i]; g.kind.Kind {
		case storage.SegmentFile, storage.OffsetIndexFile, storage.TimeIndexFile, storage.TxnIndexFile:
			if g.kind.Suffix == "" && g.kind.Offset > newest && (named < 0 || g.kind.Offset > s.files[named].kind.Offset) {
				named = i
			}
		}
	}
	switch {
	case named >= 0:
		n := s.files[named].name
		why = "the log end is not checked: the newest segment, " + n[:20] + ".log (" + n + " is its), is not among the segments read"
	case s.damaged:
		why = "the log end is not checked: a segment could not be read whole"
	case !s.folder:
		why = "the log end is not checked: these files were picked, not opened as the partition's folder, and a segment newer than " +
			s.files[segs[len(segs)-1]].name + " may have been left out (open the folder to check it)"
	default:
		logEnd = max(last+1, newest)
	}
	if !ordered {
		runs = nil
	}
	return storage.CheckLeaderEpochs(entries, runs, logEnd), why, true
}

// recordError says where and why an internal topic's record did not
// decode, its position in the segment (whose entry starts at pos) when it
// is in the entry's own bytes, else its offset in the decompressed
// records, as kwire log's "error" says it.
func recordError(tr *storage.TopicRecord, pos int64) string {
	re, off, buf := tr.ErrorAt(pos)
	if re == nil {
		return tr.Err.Error()
	}
	at := "at byte " + strconv.FormatInt(off, 10)
	if buf != 0 {
		at += " of its decompressed records"
	}
	if re.Path != "" {
		at += " (" + re.Path + ")"
	}
	return "its " + re.Part + ", " + at + ": " + re.Msg
}

// isWrapper says whether a records node is a legacy message that wraps
// compressed messages (magic 0 or 1, its compression bits set).
func isWrapper(n *tree.Node) bool {
	if n == nil || n.Name != "message" {
		return false
	}
	a := n.Get("attributes")
	return a != nil && a.Int&7 != 0
}

// recordJSON writes one listed record; payloads are its key's and value's
// rows as the payload hook read them (nil: not read).
func recordJSON(w *jsontext.Writer, id, fi int, b *storage.Batch, ri storage.RecordInfo, tr *storage.TopicRecord, payloads [2][]byte) {
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
		str(w, "internal", string(tr.AppendJSONAt(nil, b.Position)))
		if tr.Err != nil {
			str(w, "internalError", recordError(tr, b.Position))
		}
	} else {
		payloadMembers(w, payloads)
	}
	w.EndObject()
}

// payloadMembers writes an ordinary topic's key and value as the payload
// hook read them with the schemas given (rows[0] the key's, rows[1] the
// value's): keyPayload, valuePayload.
func payloadMembers(w *jsontext.Writer, rows [2][]byte) {
	for i, part := range []string{"key", "value"} {
		if p := rows[i]; len(p) > 2 { // not {}: text or bytes with nothing more to say
			w.Key(part + "Payload")
			w.Raw(p)
		}
	}
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
	// Text as the records' JSON has it (a control record's key, 00 00 00
	// 01, is valid UTF-8 and showed as escaped NULs).
	if render.Printable(b) {
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

// indexFile is an index file being read: its entries as they come, with
// their problems, checked against its segment when that is among the
// files (in the segment's pass).
type indexFile struct {
	kind     storage.IndexKind
	x        *storage.IndexReader
	c        *storage.IndexCheck // nil for a transaction index
	checked  bool                // c was run in its segment's pass
	txn      *storage.TxnCheck   // a transaction index's check, run in its segment's pass (nil: no segment)
	entries  jsontext.Writer     // listed after their count
	n        int
	problems []string
}

func (s *session) newIndex(f *file) *indexFile {
	x := &indexFile{kind: map[storage.FileKind]storage.IndexKind{storage.OffsetIndexFile: storage.OffsetIndex, storage.TimeIndexFile: storage.TimeIndex, storage.TxnIndexFile: storage.TxnIndex}[f.kind.Kind]}
	x.entries.BeginArray()
	x.x = storage.NewIndexReader(s.reader(f, true), x.kind, max(f.kind.Offset, 0))
	if x.kind != storage.TxnIndex {
		x.c = storage.NewIndexCheck(x.x)
		x.c.OnEntry = x.on
	}
	return x
}

// on takes an entry and its problem.
func (x *indexFile) on(e storage.IndexEntry, p string) {
	if p != "" {
		x.problems = append(x.problems, "entry "+strconv.Itoa(e.N)+": "+p)
	}
	if x.n < maxEntries {
		// The entry's own object, its problem added as its last member.
		x.entries.Value()
		x.entries.B = e.AppendJSON(x.entries.B, x.kind)
		if p != "" {
			x.entries.B = append(x.entries.B[:len(x.entries.B)-1], `,"problem":`...)
			x.entries.B = append(jsontext.AppendHTMLSafe(x.entries.B, p), '}')
		}
	}
	x.n++
}

// index lists an index file's entries with their problems: a transaction
// index's read here, an offset or time index's checked against its
// segment in the segment's pass (or, with no segment beside it, read
// here, its entries' order checked only).
func (s *session) index(w *jsontext.Writer, x *indexFile) []string {
	if x.c == nil {
		for {
			e, err := x.x.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					x.problems = append(x.problems, err.Error())
				}
				break
			}
			p := storage.TxnProblem(e)
			if x.txn != nil {
				if more := x.txn.EntryProblems(e.N); more != "" && p != "" {
					p += "; " + more
				} else if more != "" {
					p = more
				}
			}
			x.on(e, p)
		}
		if x.txn == nil {
			w.Key("unchecked")
			w.Bool(true)
		} else {
			for _, m := range x.txn.Missing {
				x.problems = append(x.problems, "the ABORT marker of producer "+strconv.FormatInt(m.ProducerID, 10)+" at offset "+strconv.FormatInt(m.Offset, 10)+" has no entry")
			}
		}
	} else {
		if !x.checked {
			x.c.EndAlone()
			w.Key("unchecked")
			w.Bool(true)
		}
		if x.c.Err != nil {
			x.problems = append(x.problems, x.c.Err.Error())
		}
		num(w, "unused", int64(x.c.Unused))
		if x.c.Unchecked > 0 { // entries past a damaged segment's tail
			num(w, "entriesPastDamage", int64(x.c.Unchecked))
		}
	}
	num(w, "entries", int64(x.n))
	x.entries.EndArray()
	w.Key("entryList")
	w.Raw(x.entries.B)
	return x.problems
}

// valueName names a value Kafka names and the schema does not (a
// __transaction_state value's transactionStatus), as kwire log's tree
// names it.
func valueName(n *tree.Node) string {
	if n.Field != nil && !n.Null && n.Flags&tree.Broken == 0 && n.Kind == schema.Int8 {
		return storage.ValueName(n.Field.Name, n.Int)
	}
	return ""
}

// payloads(from, to, payload) answers (a Promise of) the keys and values
// of the records listed from id from to id to (excluded) read again with
// payload (payload.wasm's kwirePayload: see open), as the listing reads
// them, for the schemas given after the files were opened:
//
//	{"records": [{"id", "keyPayload"?, "valuePayload"?}]}
//
// a record for each of those whose batch reads again (a control record's
// with its id alone), or {"error"}. Only their batches are read again, in
// slices of at most chunkMax bytes (a run of batches in one), not the
// files: a 1 GiB segment's 20,000 records listed are some megabytes.
func payloads(this js.Value, args []js.Value) any {
	from, to := -1, -1
	if a := glue.Arg(args, 0); a.Type() == js.TypeNumber {
		from = a.Int()
	}
	if a := glue.Arg(args, 1); a.Type() == js.TypeNumber {
		to = a.Int()
	}
	s := current()
	payload := glue.Arg(args, 2)
	return glue.Promise(func() (any, error) { return s.payloadsAgain(from, to, payload), nil })
}

// payloadsAgain reads the payloads of records from to to again (see
// payloads).
func (s *session) payloadsAgain(from, to int, payload js.Value) string {
	if s == nil {
		return errorJSON("no files are open")
	}
	if !s.payloads(payload) {
		if payload.Type() != js.TypeObject {
			return errorJSON("no payload decoder was given")
		}
		return errorJSON("the records of " + s.topic + " are read with Kafka's schemas for it, not the schemas given")
	}
	s.mu.Lock()
	from, to = max(from, 0), min(to, len(s.recs))
	var recs []located
	if from < to {
		recs = append(recs, s.recs[from:to]...)
	}
	s.mu.Unlock()
	var w jsontext.Writer
	w.BeginObject()
	w.Key("records")
	w.BeginArray()
	var win []byte // the bytes of file winFile from winAt
	winFile, winAt := -1, int64(0)
	for i := 0; i < len(recs); {
		loc := recs[i]
		j := i + 1 // recs[i:j] are of one batch
		for j < len(recs) && recs[j].file == loc.file && recs[j].batch == loc.batch {
			j++
		}
		if s.superseded() {
			return errorJSON(errSuperseded.Error())
		}
		if winFile != loc.file || loc.batch < winAt || loc.batch+loc.size > winAt+int64(len(win)) {
			// A new window from this batch, to the end of the last batch
			// after it that fits chunkMax (the batch alone when it does
			// not).
			end := loc.batch + loc.size
			for k := j; k < len(recs) && recs[k].file == loc.file && recs[k].batch >= loc.batch; k++ {
				if e := recs[k].batch + recs[k].size; e-loc.batch <= int64(chunkMax) {
					end = max(end, e)
				} else {
					break
				}
			}
			f := &s.files[loc.file]
			win = make([]byte, end-loc.batch)
			n, err := glue.ReadBlob(f.blob, loc.batch, win)
			if err != nil {
				return errorJSON("reading " + f.name + ": " + err.Error())
			}
			win, winFile, winAt = win[:n], loc.file, loc.batch
		}
		var rows [][]byte
		if off := loc.batch - winAt; !loc.control && off+loc.size <= int64(len(win)) {
			seg := storage.NewSegment(bytes.NewReader(win[off:off+loc.size]), s.batchOptions())
			if b, err := seg.Next(); err == nil {
				if res, _, _ := seg.Decode(b); res != nil {
					rows = s.payloadRows(payload, res.Records)
				}
			}
		}
		for k := i; k < j; k++ {
			n := recs[k].n
			if !recs[k].control && 2*n+1 >= len(rows) {
				continue // the batch no longer reads
			}
			w.BeginObject()
			num(&w, "id", int64(from+k))
			if !recs[k].control {
				payloadMembers(&w, [2][]byte{rows[2*n], rows[2*n+1]})
			}
			w.EndObject()
		}
		i = j
	}
	w.EndArray()
	w.EndObject()
	return string(w.B)
}

// record(id) answers (a Promise of) one listed record's key and value:
// grid rows and tree nodes of each, and its decoded JSON for an internal
// topic.
func record(this js.Value, args []js.Value) any {
	id := -1
	if a := glue.Arg(args, 0); a.Type() == js.TypeNumber {
		id = a.Int()
	}
	s := current()
	payload := glue.Arg(args, 1)
	return glue.Promise(func() (any, error) { return s.record(id, payload), nil })
}

// record reads record id's batch again, alone, and answers its record;
// payload, when given (payload.wasm's kwirePayload), reads an ordinary
// topic's key and value (see payloadPart).
func (s *session) record(id int, payload js.Value) string {
	if s == nil {
		return errorJSON("no such record")
	}
	s.mu.Lock()
	ok := id >= 0 && id < len(s.recs)
	var loc located
	if ok {
		loc = s.recs[id]
	}
	s.mu.Unlock()
	if !ok {
		return errorJSON("no such record")
	}
	f := &s.files[loc.file]
	buf := make([]byte, loc.size)
	n, err := glue.ReadBlob(f.blob, loc.batch, buf)
	if err != nil {
		return errorJSON("reading " + f.name + ": " + err.Error())
	}
	seg := storage.NewSegment(bytes.NewReader(buf[:n]), s.batchOptions())
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
	read := tr == nil && !b.Control && s.payloads(payload)
	var drawn, parts [2][]byte // the parts the payload hook read: drawn, and as value JSON
	for i, part := range []string{"key", "value"} {
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
		if read {
			drawn[i], parts[i] = s.payloadPart(payload, part, node)
		}
		if p := drawn[i]; len(p) > 2 && p[0] == '{' {
			// Drawn by payload.wasm: its members after the name ("buf",
			// "rows", "tree", "json", "warnings").
			w.B = append(append(w.B, ','), p[1:len(p)-1]...)
		} else {
			partview.Append(&w, node, res.Buffer(b.Bytes, node.Buf), valueName)
		}
		w.EndObject()
	}
	w.EndArray()
	if read {
		// The record's key and value as kwire log --schemas writes them.
		var j jsontext.Writer
		j.BeginObject()
		for i, part := range []string{"key", "value"} {
			j.Key(part)
			if v := parts[i]; len(v) > 0 {
				j.Raw(v)
			} else if n := ri.Node.Get(part); n == nil || n.Null {
				j.Null()
			} else {
				j.Value()
				j.B = jsontext.AppendTextOrBase64(j.B, n.Raw)
			}
		}
		j.EndObject()
		str(&w, "json", string(jsontext.Indent(nil, j.B)))
	}
	if tr != nil {
		str(&w, "json", string(jsontext.Indent(nil, tr.AppendJSONAt(nil, loc.batch))))
		if tr.Err != nil {
			// Said above the parts, as the listing's internalError.
			str(&w, "internalError", recordError(tr, loc.batch))
		}
	}
	w.EndObject()
	return string(w.B)
}

// abortMarkers counts ABORT markers: "1 ABORT marker", "2 ABORT markers".
func abortMarkers(n int) string {
	if n == 1 {
		return "1 ABORT marker"
	}
	return strconv.Itoa(n) + " ABORT markers"
}
