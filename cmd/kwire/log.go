package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/storage"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

// kwire log reads the files Kafka keeps on a broker's disk (package
// codec/storage reads their bytes; this file finds them, opens them and
// prints what it reads).

func runLog(e *env, args []string) int {
	fs := newFlags(e, "log", "[flags] PATH...",
		"kwire log logdir/orders-0",
		"kwire log logdir/orders-0/00000000000000000000.log",
		"kwire log --format tree logdir/__consumer_offsets-7/00000000000000000000.log",
		"kwire log logdir/orders-0/00000000000000000000.index",
		"cat logdir/orders-0/00000000000000000000.log | kwire log --summary -",
		"kwire log --summary logdir",
		"kwire log --topic __consumer_offsets logdir/__consumer_offsets-7/00000000000000000000.log | kwire encode")
	var c logCmd
	fs.StringVar(&c.format, "format", "ndjson", "output: ndjson (one JSON object a line), json (indented) or tree (for people: a batch's tree holds at most 2^17 nodes "+
		"and 8 MiB decompressed, a warning saying where it was cut)")
	fs.BoolVar(&c.summary, "summary", false, "print only the summaries, one per file read (a checkpoint's, a metadata file's too) and one per partition directory, with the problems counted "+
		"(without --summary each problem is a line of its own); the batches' records are not read, but for --strict, which reads them so that a warning fails as without --summary")
	fs.BoolVar(&c.strict, "strict", false, "exit 1 on any problem found, not only index mismatches (an .index or .timeindex that disagrees with its segment): "+
		"a .txnindex that disagrees with its segment or a segment with ABORT markers and no .txnindex (the log cleaner moves a compacted topic's entries, which a check per segment cannot follow), a CRC mismatch, a torn or corrupt tail, offsets out of order, a warning, a checkpoint out of order or disagreeing with the batches' leader epochs or the log end (a leader-epoch-checkpoint named alone is checked against the segments beside it)")
	fs.BoolVar(&c.kafka, "kafka", false, "Kafka's own form: the keys and values of internal topics stay bytes")
	fs.StringVar(&c.topic, "topic", "", "the topic the files belong to (default: from the partition directory's name); an internal topic's keys and values are decoded")
	fs.IntVar(&c.maxBatch, "max-batch", storage.DefaultMaxBatch, "the largest batch read, in bytes: a longer one is passed over by its length and said to be")
	color := fs.String("color", "auto", "colour for --format json and tree: auto (on a terminal, unless NO_COLOR is set and not empty), always or never")
	var pf payloadFlags
	pf.registerPayloads(fs, "")
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	var err error
	if c.payload, err = pf.hook(e.stderr); err != nil {
		fail(e, "%v", err)
		return 2
	}
	// --payloads bytes leaves internal topics' keys and values bytes, as
	// --kafka does.
	c.kafka = c.kafka || pf.raw
	switch c.format {
	case "ndjson", "json", "tree":
	default:
		fail(e, "--format must be ndjson, json or tree, not %q", c.format)
		return 2
	}
	if c.maxBatch <= 0 {
		// 0 would read as the default in SegmentOptions: said, not taken.
		fail(e, "--max-batch must be above 0, not %d", c.maxBatch)
		return 2
	}
	if c.color, err = colorOn(*color, e.stdoutIsTTY); err != nil {
		fail(e, "%v", err)
		return 2
	}
	if len(args) == 0 {
		fail(e, "log: name a file or directory Kafka wrote, or - for standard input; kwire log --help lists its flags")
		return 2
	}
	c.e = e
	c.out = bufio.NewWriterSize(e.stdout, 256<<10)
	for _, p := range args {
		c.path(p, 0)
	}
	c.out.Flush()
	if e.outFailed() != nil {
		return 1 // run says why
	}
	return c.status
}

// logCmd is one run of kwire log.
type logCmd struct {
	format, topic   string
	summary, strict bool
	kafka, color    bool
	maxBatch        int
	payload         payloadHook // --payloads, --schema-registry, --schemas
	e               *env
	out             *bufio.Writer
	status          int
	line            []byte
	quiet           bool            // --summary: a small file's lines are not printed
	lines           int             // lines printed (emit), to tell a file that printed none
	sum             *fileSum        // what the small file being read found, for its summary
	streaming       bool            // the segment read is a pipe's: its tail cannot be read again
	seen            map[string]bool // the directories read, by their path with symlinks resolved
	// found counts the Kafka files met in directories, unread the paths
	// that could not be read: a directory named that adds to neither
	// holds nothing kwire log reads, which is said, not passed in silence.
	found, unread int
	// deep is the first folder left unread for being more than maxDepth
	// below the directory named, "" when none.
	deep string
	// counted counts the problems of small files and lone indexes read
	// (fileProblem), for the partition summary's count.
	counted int
	// epochs and logEnd are the batches' leader epochs and the log end
	// offset (-1: not known) of the partition whose other files are
	// being read, its leader-epoch-checkpoint checked against them;
	// epochs is nil outside a partition.
	epochs []storage.EpochRun
	logEnd int64
	inPart bool
}

// maxDepth is how many levels of folders below a directory named are
// walked: a log directory's partitions are one down, a folder of brokers'
// log directories two or three; deeper ones are said to be left.
const maxDepth = 8

// problem marks a problem found: exit 1 under --strict.
func (c *logCmd) problem() {
	if c.strict {
		c.status = 1
	}
}

// fileSum is what reading a small file (a checkpoint, a .txnindex, a
// producer snapshot, a properties or metadata file) found: its one-line
// summary says it under --summary, and when the file printed no line.
type fileSum struct {
	entries, problems int
	list              []string // the first maxListed problems
}

// entry counts an entry of the small file being read.
func (c *logCmd) entry() {
	if c.sum != nil {
		c.sum.entries++
	}
}

// fileProblem marks a problem of the small file being read: exit 1 under
// --strict, counted and said in its summary.
func (c *logCmd) fileProblem(msg string) {
	c.problem()
	c.counted++
	if c.sum != nil {
		c.sum.problems++
		if len(c.sum.list) < maxListed {
			c.sum.list = append(c.sum.list, msg)
		}
	}
}

// mismatch marks an index that disagrees with its segment: exit 1.
func (c *logCmd) mismatch() { c.status = 1 }

// failed reports a file that could not be read.
func (c *logCmd) failed(path string, err error) {
	c.out.Flush()
	fail(c.e, "log: %v", fileError(path, err))
	c.status = 1
	c.unread++
}

// head starts a line: {"file":F,"kind":K,
func (c *logCmd) head(file, kind string) []byte {
	b := c.line[:0]
	b = append(b, `{"file":`...)
	b = jsontext.AppendString(b, []byte(file))
	b = append(b, `,"kind":`...)
	b = jsontext.AppendString(b, []byte(kind))
	return append(b, ',')
}

// emit writes one JSON object as the format asks. Lines are text for
// --format tree too: summaries and problems print as JSON there.
func (c *logCmd) emit(obj []byte) {
	c.line = obj[:0]
	if c.quiet {
		return
	}
	c.lines++
	if c.format == "json" {
		ind := &indentWriter{w: c.out, color: c.color}
		ind.Write(obj)
		ind.Close()
		c.out.WriteByte('\n')
		return
	}
	c.out.Write(obj)
	c.out.WriteByte('\n')
}

// path reads one file or directory.
func (c *logCmd) path(p string, depth int) {
	if p == "-" {
		c.stream(p, c.e.stdin)
		return
	}
	st, err := os.Stat(p)
	if err != nil {
		c.failed(p, err)
		return
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		// A pipe, /dev/stdin, <(...): read once, as it comes.
		f, err := os.Open(p)
		if err != nil {
			c.failed(p, err)
			return
		}
		defer f.Close()
		c.stream(p, f)
		return
	}
	if st.IsDir() {
		found, unread := c.found, c.unread
		c.deep = ""
		c.dir(p, depth)
		deeper := ""
		if c.deep != "" {
			deeper = " (folders are read " + strconv.Itoa(maxDepth) + " levels down; " + c.deep + " and any others deeper were not)"
		}
		if c.found == found && c.unread == unread {
			// An empty or mistyped directory is not an empty log.
			c.failed(p, errors.New("no Kafka log files found in this directory or the folders under it"+deeper))
		} else if deeper != "" {
			c.out.Flush()
			fail(c.e, "log: %s: warning: not every folder was read%s", p, deeper)
		}
		return
	}
	c.file(p, c.topicOf(p), true)
}

// stream reads a segment from r, which can be read once (a pipe,
// standard input as "-"): its first bytes are looked at in the buffer, not
// taken from the stream.
func (c *logCmd) stream(p string, r io.Reader) {
	n := storage.KindOf(filepath.Base(p))
	if p == "-" {
		n = storage.Named{Kind: storage.UnknownFile, Offset: -1}
	}
	br := bufio.NewReaderSize(r, 1<<20)
	if n.Kind == storage.UnknownFile {
		head, _ := br.Peek(storage.SegmentHeadLen)
		if !storage.SegmentHead(head) {
			c.failed(p, errors.New("not a segment (by its bytes): only segments are read from a pipe or standard input"))
			return
		}
		if !firstEntryChecks(br) {
			// An index's entries can pass for an entry's head (a piped
			// .index read as a magic 0 message at offset 30064771357).
			c.failed(p, errors.New("not a segment (by its bytes: its first entry's CRC does not match them): only segments are read from a pipe or standard input; name the file to read a damaged segment"))
			return
		}
		n.Kind = storage.SegmentFile
	}
	if n.Kind != storage.SegmentFile && n.Kind != storage.KRaftSnapshotFile {
		c.failed(p, errors.New("only segments are read from a pipe or standard input"))
		return
	}
	topic := c.topic
	if p != "-" {
		topic = c.topicOf(p)
	}
	c.streaming = true
	c.segmentFile(p, topic, n, true, br)
	c.streaming = false
}

// topicOf is the topic of the file at p: --topic, else its directory's.
func (c *logCmd) topicOf(p string) string {
	if c.topic != "" {
		return c.topic
	}
	if t, _, ok := storage.PartitionDir(filepath.Base(filepath.Dir(p))); ok {
		return t
	}
	return ""
}

// dir walks a partition directory, a log directory or a folder of them.
func (c *logCmd) dir(p string, depth int) {
	ents, err := os.ReadDir(p)
	if err != nil {
		c.failed(p, err)
		return
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		// A symlink can lead back up the tree: each folder is read once.
		if c.seen[real] {
			return
		}
		if c.seen == nil {
			c.seen = map[string]bool{}
		}
		c.seen[real] = true
	}
	var files, dirs, others []string
	segments, partitionDirs := 0, 0
	for _, d := range ents {
		isDir := d.IsDir()
		if d.Type()&os.ModeSymlink != 0 {
			// A partition directory linked from another disk is read
			// where the link leads.
			if st, err := os.Stat(filepath.Join(p, d.Name())); err == nil && st.IsDir() {
				isDir = true
			}
		}
		if isDir {
			dirs = append(dirs, d.Name())
			if _, _, ok := storage.PartitionDir(d.Name()); ok {
				partitionDirs++
			}
			continue
		}
		n := storage.KindOf(d.Name())
		if n.Kind != storage.UnknownFile {
			files = append(files, d.Name())
			c.found++
		} else {
			others = append(others, d.Name())
		}
		if n.Kind == storage.SegmentFile {
			segments++
		}
	}
	// Named like a partition (kafka-logs-1, data-0 are too) and holding
	// no partition directories, or holding segments: a partition.
	if _, _, ok := storage.PartitionDir(filepath.Base(p)); ok && partitionDirs == 0 || segments > 0 {
		if len(files) > 0 || depth > 0 {
			// The directory named holding no Kafka file is said to
			// (path), not summarised as a partition of nothing; one
			// found in a walk is summarised, empty as it is.
			c.partition(p, files, others)
		}
	} else {
		sort.Strings(files)
		for _, f := range files {
			c.file(filepath.Join(p, f), c.topic, false)
		}
	}
	if depth >= maxDepth {
		if len(dirs) > 0 && c.deep == "" {
			c.deep = filepath.Join(p, dirs[0])
		}
		return
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		c.dir(filepath.Join(p, d), depth+1)
	}
}

// partitionSummary is what a partition directory's summary line says.
type partitionSummary struct {
	segments []segmentSummary
	logSpan
	tails, problems int
	// fileProblems counts the problems of its other files (checkpoints,
	// .txnindex files, snapshots, lone indexes); others are the files
	// not read, listed with what they are.
	fileProblems int
	others       []string
}

// logSpan is what a segment's batches, or a partition's segments, hold:
// the counts a segment's summary and its partition's both print.
type logSpan struct {
	first, last             int64
	firstTS, maxTS          int64
	bytes, batches, records int64
	gaps                    [][2]int64 // (last offset before, next offset)
	gapCount                int
	crcErrors               int
	// offsetProblems counts entries whose offsets go back, overlap, fall
	// below their segment's base or run past the next segment's.
	offsetProblems int
}

// noSpan is a span before its first batch: no offsets or timestamps yet.
var noSpan = logSpan{first: -1, last: -1, firstTS: -1, maxTS: -1}

// extend takes in what holds offsets first to last (a batch, or a
// segment's span; -1: none), the next in file or offset order: a gap
// from the largest offset before it is counted (the first maxListed
// listed), and the span widened.
func (s *logSpan) extend(first, last int64) {
	if s.last >= 0 && first > s.last+1 {
		s.gapCount++
		if len(s.gaps) < maxListed {
			s.gaps = append(s.gaps, [2]int64{s.last, first})
		}
	}
	if first >= 0 && (s.first < 0 || first < s.first) {
		s.first = first
	}
	s.last = max(s.last, last)
}

// appendJSON appends the span's counts as members (each led by a comma).
func (s *logSpan) appendJSON(b []byte) []byte {
	b = appendInt(b, "bytes", s.bytes)
	b = appendInt(b, "batches", s.batches)
	b = appendInt(b, "records", s.records)
	b = appendInt(b, "firstOffset", s.first)
	b = appendInt(b, "lastOffset", s.last)
	b = appendInt(b, "firstTimestamp", s.firstTS)
	b = appendInt(b, "maxTimestamp", s.maxTS)
	b = appendGaps(b, s.gapCount, s.gaps)
	b = appendInt(b, "crcErrors", int64(s.crcErrors))
	return appendInt(b, "offsetProblems", int64(s.offsetProblems))
}

// partition reads a partition directory: its segments in offset order
// with their indexes, then its other files, then a summary.
func (c *logCmd) partition(p string, files, others []string) {
	topic := c.topic
	if topic == "" {
		topic, _, _ = storage.PartitionDir(filepath.Base(p))
	}
	var segs []storage.Named
	byName := map[string]string{}
	for _, f := range files {
		n := storage.KindOf(f)
		if n.Kind == storage.SegmentFile && n.Suffix == "" {
			segs = append(segs, n)
		}
		byName[f] = f
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].Offset < segs[j].Offset })
	sum := &partitionSummary{logSpan: noSpan}
	for i, sg := range segs {
		base := strconv.FormatInt(sg.Offset, 10)
		base = strings.Repeat("0", 20-len(base)) + base
		file := filepath.Join(p, base+".log")
		c.treeHeader(file, storage.SegmentFile)
		ss := c.readSegment(file, topic, !c.summary, nil, nil)
		if ss == nil {
			continue
		}
		if i+1 < len(segs) {
			if op, ok := ss.offsets.Next(segs[i+1].Offset); ok {
				c.offsetProblem(ss, file, !c.summary, op)
			}
		}
		sum.add(ss)
	}
	// The leader-epoch-checkpoint is checked against the batches' epochs
	// and the log end offset: the next offset, or the last segment's base
	// when it is empty; not known when a segment could not be read whole.
	c.inPart = true
	c.partitionEpochs(sum.segments, segs)
	counted := c.counted
	sort.Strings(files)
	for _, f := range files {
		n := storage.KindOf(f)
		switch n.Kind {
		case storage.SegmentFile:
			if n.Suffix == "" {
				continue // read above
			}
		case storage.OffsetIndexFile, storage.TimeIndexFile:
			if byName[filepath.Base(beside(f, n, ".log"))] != "" {
				continue // read with their segment
			}
		}
		c.file(filepath.Join(p, f), topic, false)
	}
	c.inPart, c.epochs = false, nil
	sum.fileProblems = c.counted - counted
	for _, f := range files {
		if storage.KindOf(f).Suffix != "" {
			others = append(others, f) // read above, and said what it is
		}
	}
	sort.Strings(others)
	sum.others = others
	c.emit(c.partitionJSON(p, topic, sum))
}

// partitionEpochs sets c.epochs and c.logEnd, what a partition's
// leader-epoch-checkpoint is checked against, from its segments segs (in
// offset order) and the summaries of those read (in the same order): the
// batches' leader epochs, run by run, and the log end offset, the next
// offset or the last segment's base when it is empty, not known (-1) when
// a segment could not be read whole.
func (c *logCmd) partitionEpochs(read []segmentSummary, segs []storage.Named) {
	c.epochs, c.logEnd = []storage.EpochRun{}, -1
	damaged := len(read) < len(segs)
	last := int64(-1)
	for i := range read {
		ss := &read[i]
		if ss.tail != nil && !ss.tail.Zero || ss.skipped > 0 {
			damaged = true
		}
		last = max(last, ss.last)
		for _, r := range ss.epochs {
			if n := len(c.epochs); n > 0 && c.epochs[n-1].Epoch == r.Epoch {
				c.epochs[n-1].LastOffset = r.LastOffset
			} else {
				c.epochs = append(c.epochs, r)
			}
		}
	}
	if !damaged && len(segs) > 0 {
		c.logEnd = max(last+1, segs[len(segs)-1].Offset)
	}
}

// segmentsBeside reads, without printing them, the segments in the
// directory of p, a leader-epoch-checkpoint named alone, for
// partitionEpochs, as a directory run reads them (their own problems do
// not count here: the checkpoint's do); false when there is none.
func (c *logCmd) segmentsBeside(p string) bool {
	dir := filepath.Dir(p)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	var segs []storage.Named
	for _, e := range ents {
		if n := storage.KindOf(e.Name()); n.Kind == storage.SegmentFile && n.Suffix == "" && e.Type().IsRegular() {
			segs = append(segs, n)
		}
	}
	if len(segs) == 0 {
		return false
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].Offset < segs[j].Offset })
	status, unread, quiet := c.status, c.unread, c.quiet
	c.quiet = true
	var read []segmentSummary
	for _, sg := range segs {
		base := strconv.FormatInt(sg.Offset, 10)
		file := filepath.Join(dir, strings.Repeat("0", 20-len(base))+base+".log")
		if ss := c.readSegment(file, c.topicOf(file), false, nil, nil); ss != nil {
			read = append(read, *ss)
		}
	}
	c.quiet = quiet
	if c.unread == unread {
		c.status = status
	}
	c.partitionEpochs(read, segs)
	return true
}

// otherNote says what a file in a partition directory that kwire log
// does not read is.
func otherNote(name string) string {
	n := storage.KindOf(name)
	switch n.Suffix {
	case ".swap":
		return "an interrupted log-cleaner swap (a segment replacement not finished): Kafka finishes it when it next loads the log"
	case ".deleted":
		return "awaiting asynchronous deletion (file.delete.delay.ms)"
	case ".cleaned":
		return "log-cleaner output not yet swapped in: Kafka deletes it when it next loads the log"
	case ".part":
		return "a snapshot being written"
	}
	stem, ext, _ := strings.Cut(name, ".")
	switch ext {
	case "log", "index", "timeindex", "txnindex", "snapshot":
		return "not named as Kafka names its ." + ext + " files (a 20-digit base offset, not " + strconv.Quote(stem) + "): Kafka does not read it, nor does kwire log in a directory (name the file to read it)"
	case "checkpoint":
		return "not named as Kafka names a KRaft snapshot (<20-digit end offset>-<10-digit epoch>.checkpoint): not read"
	}
	return "not a file Kafka writes in a partition directory: not read"
}

// add counts segment ss, the next in offset order: a gap between it and
// the offsets before it is one past the largest of them.
func (s *partitionSummary) add(ss *segmentSummary) {
	s.segments = append(s.segments, *ss)
	s.bytes += ss.bytes
	s.batches += ss.batches
	s.records += ss.records
	if ss.firstTS >= 0 && s.firstTS < 0 {
		s.firstTS = ss.firstTS
	}
	s.maxTS = max(s.maxTS, ss.maxTS)
	s.extend(ss.first, ss.last)
	s.offsetProblems += ss.offsetProblems
	s.gapCount += ss.gapCount
	for _, g := range ss.gaps {
		if len(s.gaps) < maxListed {
			s.gaps = append(s.gaps, g)
		}
	}
	s.crcErrors += ss.crcErrors
	if ss.tail != nil && !ss.tail.Zero {
		s.tails++
	}
	s.problems += ss.indexProblems + ss.timeProblems + ss.txnProblems
}

func (c *logCmd) partitionJSON(p, topic string, s *partitionSummary) []byte {
	b := c.head(p, "partition-summary")
	b = append(b, `"topic":`...)
	b = jsontext.AppendString(b, []byte(topic))
	b = appendInt(b, "segments", int64(len(s.segments)))
	b = s.logSpan.appendJSON(b)
	b = appendInt(b, "tornOrCorruptTails", int64(s.tails))
	b = appendInt(b, "indexProblems", int64(s.problems))
	all := s.fileProblems
	for i := range s.segments {
		all += s.segments[i].problems()
	}
	b = appendInt(b, "problems", int64(all))
	if len(s.others) > 0 {
		b = append(b, `,"otherFiles":[`...)
		for i, f := range s.others {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"file":`...)
			b = jsontext.AppendString(b, []byte(f))
			b = append(b, `,"note":`...)
			b = jsontext.AppendString(b, []byte(otherNote(f)))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"segmentFiles":[`...)
	for i, ss := range s.segments {
		if i > 0 {
			b = append(b, ',')
		}
		b = ss.appendJSON(b)
	}
	return append(b, "]}"...)
}

func appendInt(b []byte, k string, v int64) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

func appendGaps(b []byte, n int, gaps [][2]int64) []byte {
	b = appendInt(b, "gaps", int64(n))
	if n == 0 {
		return b
	}
	b = append(b, `,"gapList":[`...)
	for i, g := range gaps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"after":`...)
		b = strconv.AppendInt(b, g[0], 10)
		b = append(b, `,"next":`...)
		b = strconv.AppendInt(b, g[1], 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// segmentSummary is what reading one segment found.
type segmentSummary struct {
	file string
	// base is the base offset its file name gives a segment; a KRaft
	// snapshot's name gives instead the end offset and epoch of the log it
	// stands for (its own records are numbered from 0): snapshotEnd and
	// snapshotEpoch, base -1.
	base          int64
	snapshotEnd   int64
	snapshotEpoch int32
	logSpan
	offsets                       *storage.OffsetCheck
	offsetList                    []storage.OffsetProblem // the first maxListed offset problems
	tail                          *storage.TailError
	damaged                       int64 // damaged regions read past (storage.DamageError)
	searched                      int64 // entries a resync found (storage.Batch.Searched)
	skipped                       int
	index, timeindex              *storage.IndexCheck
	positions                     *storage.IndexPositions // the .index's for resyncs (Note)
	indexProblems, timeProblems   int
	hasIndex, hasTimeIndex, kraft bool
	snapshotProblems              []string
	// txn checks the .txnindex (none: hasTxnIndex false) against the
	// batches; txnProblems counts its problems, a missing file that
	// should be there one.
	txn                  *storage.TxnCheck
	hasTxnIndex, noIndex bool
	txnProblems          int
	epochs               []storage.EpochRun // the batches' leader epochs, run by run
	warnings             int                // batches whose records warned (when read)
	txnList              []txnProblem
}

// txnProblem is a problem of a .txnindex with its segment: an entry's
// (entry >= 0), or an ABORT marker's that has none, or the file's.
type txnProblem struct {
	entry int
	msg   string
}

// txnProblemList lists what ss's TxnCheck found, in the order printed.
func txnProblemList(ss *segmentSummary) []txnProblem {
	t := ss.txn
	if !ss.hasTxnIndex {
		if t.Aborts == 0 {
			return nil
		}
		return []txnProblem{{-1, "no .txnindex beside the segment, which holds " + plural(t.Aborts, "ABORT marker") +
			": Kafka writes an entry for each aborted transaction whose marker is in the segment (read_committed consumers rely on them to skip its records)"}}
	}
	var out []txnProblem
	for _, pr := range t.Problems {
		out = append(out, txnProblem{pr.Entry, pr.Msg})
	}
	for _, m := range t.Missing {
		out = append(out, txnProblem{-1, "the ABORT marker of producer " + strconv.FormatInt(m.ProducerID, 10) + " at offset " + strconv.FormatInt(m.Offset, 10) + " has no entry"})
	}
	return out
}

// txnProblems prints each problem of the .txnindex p with its segment on
// a line of its own.
func (c *logCmd) txnProblems(p string, ss *segmentSummary) {
	for _, pr := range ss.txnList {
		b := c.head(p, "txnindex-problem")
		if pr.entry >= 0 {
			b = append(b, `"entry":`...)
			b = strconv.AppendInt(b, int64(pr.entry), 10)
			b = append(b, ',')
		}
		b = append(b, `"problem":`...)
		b = jsontext.AppendString(b, []byte(pr.msg))
		c.emit(append(b, '}'))
	}
}

func (s *segmentSummary) appendJSON(b []byte) []byte {
	b = append(b, `{"file":`...)
	b = jsontext.AppendString(b, []byte(filepath.Base(s.file)))
	return append(s.appendMembers(b), '}')
}

// appendMembers appends what the summary says after the file's name, each
// member led by a comma.
func (s *segmentSummary) appendMembers(b []byte) []byte {
	if s.kraft {
		if s.snapshotEnd >= 0 {
			// <endOffset>-<epoch>.checkpoint: what the name says is the
			// log's end the snapshot stands for, not its records' offsets.
			b = appendInt(b, "snapshotEndOffset", s.snapshotEnd)
			b = appendInt(b, "snapshotEpoch", int64(s.snapshotEpoch))
		}
	} else {
		b = appendInt(b, "baseOffset", s.base)
	}
	b = s.logSpan.appendJSON(b)
	if s.skipped > 0 {
		b = appendInt(b, "skippedBatches", int64(s.skipped))
	}
	if len(s.offsetList) > 0 {
		b = append(b, `,"offsetProblemList":[`...)
		for i, op := range s.offsetList {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOffsetProblem(append(b, '{'), &op)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if s.damaged > 0 {
		b = appendInt(b, "damagedRegions", s.damaged)
		b = appendInt(b, "entriesFoundBySearch", s.searched)
	}
	if n := s.positions.Note(); n != "" {
		b = append(b, `,"indexNotConsulted":`...)
		b = jsontext.AppendString(b, []byte(n))
	}
	if s.tail != nil {
		b = append(b, `,"tail":`...)
		b = appendTail(b, s.tail)
	}
	for _, x := range []struct {
		name string
		has  bool
		c    *storage.IndexCheck
	}{{"index", s.hasIndex, s.index}, {"timeindex", s.hasTimeIndex, s.timeindex}} {
		if !x.has {
			continue
		}
		b = append(b, `,"`...)
		b = append(b, x.name...)
		b = append(b, `":`...)
		b = appendCheck(b, x.c)
	}
	if s.txn != nil && (s.hasTxnIndex || s.txn.Aborts > 0) {
		b = append(b, `,"txnindex":{"present":`...)
		b = strconv.AppendBool(b, s.hasTxnIndex)
		b = appendInt(b, "entries", int64(len(s.txn.Entries)))
		b = appendInt(b, "abortMarkers", int64(s.txn.Aborts))
		b = appendInt(b, "problems", int64(s.txnProblems))
		if s.txn.Unchecked > 0 {
			b = appendInt(b, "unchecked", int64(s.txn.Unchecked))
		}
		if s.txn.Truncated {
			b = append(b, `,"notChecked":"the entries past the first `...)
			b = strconv.AppendInt(b, storage.MaxTxnEntries, 10)
			b = append(b, `"`...)
		}
		if len(s.txnList) > 0 {
			b = append(b, `,"problemList":[`...)
			for i, pr := range s.txnList[:min(len(s.txnList), maxListed)] {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, '{')
				if pr.entry >= 0 {
					b = append(b, `"entry":`...)
					b = strconv.AppendInt(b, int64(pr.entry), 10)
					b = append(b, ',')
				}
				b = append(b, `"problem":`...)
				b = jsontext.AppendString(b, []byte(pr.msg))
				b = append(b, '}')
			}
			b = append(b, ']')
		}
		b = append(b, '}')
	}
	if s.noIndex {
		b = append(b, `,"indexNote":"no .index beside the segment: Kafka rebuilds it when it next loads the log"`...)
	}
	if s.warnings > 0 {
		b = appendInt(b, "batchesWithWarnings", int64(s.warnings))
	}
	if s.kraft {
		b = appendStrings(b, "snapshotProblems", s.snapshotProblems)
	}
	return b
}

// problems counts every problem reading the segment found: each is a line
// of its own without --summary (a warning, only when the records are read).
func (s *segmentSummary) problems() int {
	n := s.offsetProblems + s.crcErrors + s.skipped + s.indexProblems + s.timeProblems + s.txnProblems + s.warnings + len(s.snapshotProblems)
	if s.tail != nil && !s.tail.Zero {
		n++
	}
	if s.index != nil && s.index.Err != nil {
		n++
	}
	if s.timeindex != nil && s.timeindex.Err != nil {
		n++
	}
	return n
}

// appendZeros says of a tail that it is zeros ("zero":true), or where
// the zeros that end it start ("zeroFrom"), when they do.
func appendZeros(b []byte, t *storage.TailError) []byte {
	if t.Zero {
		return append(b, `,"zero":true`...)
	}
	if t.ZeroFrom < t.Position+t.Size {
		b = appendInt(b, "zeroFrom", t.ZeroFrom)
	}
	return b
}

func appendTail(b []byte, t *storage.TailError) []byte {
	b = append(b, `{"position":`...)
	b = strconv.AppendInt(b, t.Position, 10)
	b = appendInt(b, "size", t.Size)
	b = append(b, `,"torn":`...)
	b = strconv.AppendBool(b, t.Torn)
	b = appendZeros(b, t)
	b = appendInt(b, "batchesBefore", t.Batches)
	b = append(b, `,"message":`...)
	b = jsontext.AppendString(b, []byte(t.Msg))
	return append(b, '}')
}

func appendCheck(b []byte, c *storage.IndexCheck) []byte {
	b = append(b, `{"entries":`...)
	b = strconv.AppendInt(b, int64(c.Entries-c.Unused), 10)
	b = appendInt(b, "unused", int64(c.Unused))
	b = appendInt(b, "problems", int64(c.Count))
	if c.Unchecked > 0 {
		b = appendInt(b, "unchecked", int64(c.Unchecked))
		b = append(b, `,"uncheckedWhy":"entries past where the damaged segment could be read"`...)
	}
	if len(c.Problems) > 0 {
		b = append(b, `,"problemList":[`...)
		for i, p := range c.Problems[:min(len(c.Problems), 20)] {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"entry":`...)
			b = strconv.AppendInt(b, int64(p.Entry), 10)
			b = append(b, `,"problem":`...)
			b = jsontext.AppendString(b, []byte(p.Msg))
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if c.Err != nil {
		b = append(b, `,"error":`...)
		b = jsontext.AppendString(b, []byte(c.Err.Error()))
	}
	return append(b, '}')
}

func appendStrings(b []byte, k string, ss []string) []byte {
	b = append(b, ',', '"')
	b = append(b, k...)
	b = append(b, `":[`...)
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, []byte(s))
	}
	return append(b, ']')
}

// readSegment reads the segment at p. onIndex or onTime, when set, gets
// every entry of the .index or .timeindex beside it as it is checked (and
// the other index is not read).
func (c *logCmd) readSegment(p, topic string, print bool, onIndex, onTime func(storage.IndexEntry, string)) *segmentSummary {
	f, err := os.Open(p)
	if err != nil {
		c.failed(p, err)
		return nil
	}
	defer f.Close()
	return c.readSegmentFrom(bufio.NewReaderSize(f, 1<<20), p, storage.KindOf(filepath.Base(p)), topic, print, onIndex, onTime)
}

// readSegmentFrom reads the segment p from r, named as its file name
// says (or, from a pipe, as its bytes do).
func (c *logCmd) readSegmentFrom(r io.Reader, p string, named storage.Named, topic string, print bool, onIndex, onTime func(storage.IndexEntry, string)) *segmentSummary {
	ss := &segmentSummary{file: p, base: max(named.Offset, 0), logSpan: noSpan}
	// base is the offset the file name gives the segment's entries (-1:
	// none): a KRaft snapshot's name gives the end offset of the log it
	// stands for, and its records are numbered from 0.
	base := named.Offset
	if named.Kind == storage.KRaftSnapshotFile {
		ss.base, ss.snapshotEnd, ss.snapshotEpoch, base = -1, named.Offset, named.Epoch, -1
	}
	var closers []io.Closer
	defer func() {
		for _, x := range closers {
			x.Close()
		}
	}()
	listing := onIndex != nil || onTime != nil
	check := func(ext string, kind storage.IndexKind, on func(storage.IndexEntry, string)) *storage.IndexCheck {
		if base < 0 || listing && on == nil {
			// Listing one index, the other is not read: its problems
			// would count without being printed.
			return nil
		}
		x, err := os.Open(beside(p, named, ext))
		if err != nil {
			return nil
		}
		closers = append(closers, x)
		ic := storage.NewIndexCheck(storage.NewIndexReader(bufio.NewReaderSize(x, 64<<10), kind, base))
		ic.OnEntry = on
		return ic
	}
	ss.index = check(".index", storage.OffsetIndex, onIndex)
	ss.timeindex = check(".timeindex", storage.TimeIndex, onTime)
	ss.hasIndex, ss.hasTimeIndex = ss.index != nil, ss.timeindex != nil
	if base >= 0 && !listing && named.Kind == storage.SegmentFile && named.Suffix == "" {
		// The .txnindex is read whole (34 bytes an entry), then checked
		// against the batches: nil when there is none (Kafka creates it
		// for a segment's first aborted transaction).
		var x *storage.IndexReader
		if f, err := os.Open(beside(p, named, ".txnindex")); err == nil {
			closers = append(closers, f)
			x = storage.NewIndexReader(bufio.NewReaderSize(f, 64<<10), storage.TxnIndex, base)
			ss.hasTxnIndex = true
		}
		ss.txn = storage.NewTxnCheck(x)
	}
	if base >= 0 && named.Kind == storage.SegmentFile && named.Suffix == "" && !listing {
		if _, err := os.Stat(beside(p, named, ".index")); err != nil && !c.streaming {
			ss.noIndex = true
		}
	}
	o := storage.SegmentOptions{Topic: topic, Kafka: c.kafka, MaxBatch: c.maxBatch, Payload: c.payload}
	if ss.hasIndex {
		// The positions the .index names tell a resync where entries
		// start (storage.IndexPositions), read by its check: the file
		// is read once.
		o.Index = ss.index.Positions()
		ss.positions = o.Index
	}
	if c.format == "tree" && print {
		// A tree is drawn for people, and each of its nodes costs far
		// more than the JSON written of it: the limits of kwire decode's
		// views, so that a batch declaring a million tiny records costs
		// about what its ndjson does. 2^17 nodes hold a 1 MiB batch of
		// 100-byte records.
		o.MaxNodes, o.MaxDecompressed = treeLimits.MaxNodes, treeLimits.MaxDecompressed
	}
	seg := storage.NewSegment(r, o)
	var snap *storage.SnapshotCheck
	if named.Kind == storage.KRaftSnapshotFile {
		snap, ss.kraft = storage.NewSnapshotCheck(), true
	}
	name := p
	ss.offsets = storage.NewOffsetCheck(base)
	var ops []storage.OffsetProblem
	var end int64
	var stop error // what ended the segment's reading
	for {
		b, err := seg.Next()
		var de *storage.DamageError
		if errors.As(err, &de) {
			// Bytes inside the segment that are no batch, with batches
			// after them: read on.
			ss.damaged++
			c.problem()
			if print {
				c.emit(c.damageJSON(name, de))
			}
			for _, ic := range []*storage.IndexCheck{ss.index, ss.timeindex} {
				if ic != nil {
					ic.Damage(de)
				}
			}
			continue
		}
		if err != nil {
			stop = err
			var te *storage.TailError
			if errors.As(err, &te) {
				ss.tail = te
				if !te.Zero { // preallocated space is no damage
					c.problem()
				}
				if print {
					c.emit(c.tailJSON(name, te))
				}
			} else if !errors.Is(err, io.EOF) {
				c.failed(p, err)
			}
			break
		}
		ss.batches++
		if b.Searched {
			ss.searched++
		}
		var records int64
		records, ops = ss.offsets.Batch(ops[:0], b)
		ss.records += records
		if ss.firstTS < 0 {
			ss.firstTS = b.FirstTimestamp
		}
		for i := range ops {
			c.offsetProblem(ss, name, print, ops[i])
		}
		ss.extend(b.BaseOffset, b.LastOffset)
		ss.maxTS = max(ss.maxTS, b.MaxTimestamp)
		if b.Skipped {
			ss.skipped++
			c.problem()
		} else if !b.CRCValid {
			ss.crcErrors++
			c.problem()
		}
		end = b.Position + b.Size()
		for _, ic := range []*storage.IndexCheck{ss.index, ss.timeindex} {
			if ic != nil {
				ic.Batch(b)
			}
		}
		if snap != nil {
			snap.Batch(b)
		}
		if ss.txn != nil {
			ss.txn.Batch(b)
		}
		if ep, ok := storage.BatchLeaderEpoch(b); ok && b.CRCValid && ep >= 0 {
			if n := len(ss.epochs); n > 0 && ss.epochs[n-1].Epoch == ep {
				ss.epochs[n-1].LastOffset = b.BaseOffset
			} else {
				ss.epochs = append(ss.epochs, storage.EpochRun{Epoch: ep, Offset: b.BaseOffset, LastOffset: b.BaseOffset})
			}
		}
		if print {
			if c.batch(seg, name, topic, b) {
				ss.warnings++
			}
		} else if c.strict && c.summary && onIndex == nil && onTime == nil && !b.Skipped {
			// Summaries come from the batches' headers; under --strict
			// the records are read too, so that a warning fails here as
			// it does when the batches are printed.
			if err := seg.WriteJSON(io.Discard, nil, b); err != nil || seg.Warned() {
				c.problem()
				ss.warnings++
			}
		}
	}
	ss.bytes = seg.Position()
	for _, ic := range []*storage.IndexCheck{ss.index, ss.timeindex} {
		if ic != nil {
			ic.End(end, ss.last, stop)
		}
	}
	if snap != nil {
		snap.End()
		ss.snapshotProblems = snap.Problems
		if len(snap.Problems) > 0 {
			c.problem()
		}
	}
	if ss.index != nil {
		ss.indexProblems = ss.index.Count
		if ss.index.Err != nil {
			c.problem()
		}
	}
	if ss.timeindex != nil {
		ss.timeProblems = ss.timeindex.Count
		if ss.timeindex.Err != nil {
			c.problem()
		}
	}
	if t := ss.txn; t != nil {
		t.End(base, ss.last, stop != nil && !errors.Is(stop, io.EOF))
		ss.txnList = txnProblemList(ss)
		ss.txnProblems = len(ss.txnList)
		if ss.txnProblems > 0 {
			// --strict's only: the log cleaner moves a compacted topic's
			// .txnindex entries to the segment of a transaction's first
			// offset and removes markers, which a check per segment
			// cannot follow (__consumer_offsets with transactional
			// offset commits is such a topic).
			c.problem()
		}
		if print {
			c.txnProblems(beside(p, named, ".txnindex"), ss)
		}
	}
	if ss.noIndex && print {
		b := c.head(beside(p, named, ".index"), "index-note")
		b = append(b, `"note":"no .index beside the segment: Kafka rebuilds it when it next loads the log"}`...)
		c.emit(b)
	}
	if ss.indexProblems+ss.timeProblems > 0 {
		c.mismatch()
		if print {
			// Listed entry by entry when the index was asked for; here
			// each problem gets a line of its own.
			for _, x := range []struct {
				ext string
				c   *storage.IndexCheck
			}{{".index", ss.index}, {".timeindex", ss.timeindex}} {
				if x.c == nil {
					continue
				}
				for _, pr := range x.c.Problems {
					b := c.head(beside(p, named, x.ext), "index-problem")
					b = append(b, `"entry":`...)
					b = strconv.AppendInt(b, int64(pr.Entry), 10)
					b = append(b, `,"problem":`...)
					b = jsontext.AppendString(b, []byte(pr.Msg))
					c.emit(append(b, '}'))
				}
			}
		}
	}
	return ss
}

// appendOffsetProblem appends the problem's members, the first led by no
// comma.
func appendOffsetProblem(b []byte, op *storage.OffsetProblem) []byte {
	b = append(b, `"position":`...)
	b = strconv.AppendInt(b, op.Position, 10)
	b = appendInt(b, "baseOffset", op.BaseOffset)
	b = appendInt(b, "lastOffset", op.LastOffset)
	b = append(b, `,"problem":`...)
	return jsontext.AppendString(b, []byte(op.Msg))
}

// treeLimits bound a batch's tree under --format tree (as gridLimits do
// kwire decode's grid): the limit warning says where one is cut.
var treeLimits = gridLimits

// maxListed is how many problems of a kind a summary lists (all are
// counted, and printed on lines of their own without --summary).
const maxListed = 20

// offsetProblem reports a problem of the segment file's offsets
// (storage.OffsetCheck's): a line unless only summaries are printed,
// counted and listed in the segment's summary, exit 1 under --strict.
func (c *logCmd) offsetProblem(ss *segmentSummary, file string, print bool, op storage.OffsetProblem) {
	ss.offsetProblems++
	if len(ss.offsetList) < maxListed {
		ss.offsetList = append(ss.offsetList, op)
	}
	c.problem()
	if print {
		b := appendOffsetProblem(c.head(file, "offset-problem"), &op)
		c.emit(append(b, '}'))
	}
}

func (c *logCmd) tailJSON(file string, te *storage.TailError) []byte {
	b := c.head(file, "tail")
	b = append(b, `"position":`...)
	b = strconv.AppendInt(b, te.Position, 10)
	b = appendInt(b, "size", te.Size)
	b = append(b, `,"torn":`...)
	b = strconv.AppendBool(b, te.Torn)
	b = appendZeros(b, te)
	b = appendInt(b, "batchesBefore", te.Batches)
	b = append(b, `,"message":`...)
	b = jsontext.AppendString(b, []byte(te.Msg))
	// Zeros are not carried: kwire encode writes size of them.
	// A torn tail too large to carry whole carries its bytes up to the
	// zeros that end it (a batch cut short in preallocated space):
	// kwire encode writes the zeros after them from its size.
	carried := te.Size
	if te.Size > maxTailBytes && te.Torn && te.ZeroFrom-te.Position <= maxTailBytes {
		carried = te.ZeroFrom - te.Position
	}
	if carried <= maxTailBytes && !c.streaming && !te.Zero {
		if tail, err := readAt(file, te.Position, carried); err == nil {
			b = append(b, `,"bytes":"`...)
			b = base64.StdEncoding.AppendEncode(b, tail)
			b = append(b, '"')
		}
	}
	return append(b, '}')
}

// damageJSON is the line of a damaged region inside a segment: where it
// starts, its size, where reading resumed, and its bytes (at most
// maxTailBytes of them), so that kwire encode gives the file back.
func (c *logCmd) damageJSON(file string, de *storage.DamageError) []byte {
	b := c.head(file, "damage")
	b = append(b, `"position":`...)
	b = strconv.AppendInt(b, de.Position, 10)
	b = appendInt(b, "size", de.Size)
	b = appendInt(b, "resume", de.Resume())
	b = appendInt(b, "batchesBefore", de.Batches)
	b = append(b, `,"message":`...)
	b = jsontext.AppendString(b, []byte(de.Text()))
	if de.Size <= maxTailBytes && !c.streaming {
		if p, err := readAt(file, de.Position, de.Size); err == nil {
			b = append(b, `,"bytes":"`...)
			b = base64.StdEncoding.AppendEncode(b, p)
			b = append(b, '"')
		}
	}
	return append(b, '}')
}

// maxTailBytes is the largest torn or corrupt tail whose bytes a tail
// line carries (so kwire encode gives the whole file back).
const maxTailBytes = 1 << 20

func readAt(file string, pos, n int64) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, n)
	_, err = f.ReadAt(b, pos)
	return b, err
}

// batch prints one entry of a segment.
func (c *logCmd) batch(seg *storage.Segment, file, topic string, b *storage.Batch) (warned bool) {
	if c.format == "tree" {
		return c.batchTree(seg, file, b)
	}
	head := c.head(file, "batch")
	if topic != "" {
		head = append(head, `"topic":`...)
		head = jsontext.AppendString(head, []byte(topic))
		head = append(head, ',')
	}
	if c.format == "json" {
		ind := &indentWriter{w: c.out, color: c.color}
		if err := seg.WriteJSON(ind, head, b); err != nil {
			c.failed(file, err)
		}
		ind.Close()
	} else if err := seg.WriteJSON(c.out, head, b); err != nil {
		c.failed(file, err)
	}
	c.line = head[:0]
	c.out.WriteByte('\n')
	if seg.Warned() {
		c.problem()
		return true
	}
	return false
}

// batchTree draws one entry for people: its records, each byte range a
// position in the file, an internal topic's keys and values decoded.
func (c *logCmd) batchTree(seg *storage.Segment, file string, b *storage.Batch) (warned bool) {
	paint := func(code, s string) string {
		if !c.color {
			return s
		}
		return code + s + ansiReset
	}
	w := c.out
	kind := "batch"
	if b.Magic < 2 {
		kind = "message"
	}
	w.WriteString(paint(ansiBold, kind) + " " + paint(ansiDim, "magic "+strconv.Itoa(int(b.Magic))) +
		" offsets " + strconv.FormatInt(b.BaseOffset, 10) + "-" + strconv.FormatInt(b.LastOffset, 10) +
		" at " + strconv.FormatInt(b.Position, 10) + " (" + strconv.FormatInt(b.Size(), 10) + " bytes)")
	// What the header says of the batch as a whole, as the ndjson's
	// attributes and producer fields say it.
	if b.Compression > 0 {
		w.WriteString(" " + compressionName(b.Compression))
	}
	if b.Transactional {
		w.WriteString(" transactional")
	}
	if b.Control {
		w.WriteString(" control")
	}
	if b.ProducerID >= 0 {
		w.WriteString(" producer " + strconv.FormatInt(b.ProducerID, 10))
	}
	if !b.CRCValid {
		w.WriteString(" " + paint(ansiRed, "CRC mismatch"))
	}
	if b.Searched {
		w.WriteString(" " + paint(ansiDim, "found by searching past damage"))
	}
	if b.Skipped {
		w.WriteString(" " + paint(ansiRed, "too large: passed over"))
		w.WriteByte('\n')
		return false
	}
	w.WriteByte('\n')
	res, recs, err := seg.Decode(b)
	byNode := map[*tree.Node]*storage.TopicRecord{}
	for _, r := range recs {
		byNode[r.Node()] = r.Topic()
	}
	if res != nil {
		for _, ri := range res.Records {
			c.recordTree(res, b, ri, byNode[ri.Node], paint)
		}
	}
	for _, x := range seg.Warnings() {
		w.WriteString("  " + paint(ansiRed, "warning") + " " + x.Path + ": " + x.Message + "\n")
	}
	if err != nil {
		w.WriteString("  " + paint(ansiRed, "error") + " " + err.Error() + "\n")
	}
	if err != nil || seg.Warned() {
		c.problem()
		return true
	}
	return false
}

func (c *logCmd) recordTree(res *storage.Entry, b *storage.Batch, ri storage.RecordInfo, tr *storage.TopicRecord, paint func(string, string) string) {
	w := c.out
	n := ri.Node
	line := "  " + paint(ansiBold, "record") + " offset " + strconv.FormatInt(ri.Offset, 10) + " timestamp " + strconv.FormatInt(ri.Timestamp, 10) +
		" " + spanText(n, b.Position)
	w.WriteString(line + "\n")
	if tr != nil {
		for _, part := range []*tree.Node{tr.KeyNode, tr.ValueNode} {
			if part != nil {
				c.nodeTree(part, 2, b.Position, paint)
			}
		}
		if tr.Err != nil {
			w.WriteString("    " + paint(ansiRed, "error") + " " + topicRecordError(tr, b.Position) + "\n")
		}
		return
	}
	for _, name := range []string{"key", "value"} {
		k := n.Get(name)
		if k == nil {
			continue
		}
		v := "null"
		if !k.Null {
			v = shortBytes(k.Raw)
		}
		if t := k.Get("type"); b.Control && name == "key" && t != nil {
			// A control record's key says what it is: COMMIT, ABORT, ...
			if cn := storage.ControlTypeName(int(t.Int)); cn != "" {
				v = paint(ansiBold, cn) + " (" + v + ")"
			}
		}
		w.WriteString("    " + name + " " + spanText(k, b.Position) + " = " + v + "\n")
		// What was read from it: a control key's or value's fields, a
		// payload's framing and value decoded (--schemas, JSON).
		for _, x := range k.Warnings {
			w.WriteString("      " + paint(ansiRed, "warning") + " " + x + "\n")
		}
		for _, kid := range k.Children {
			c.nodeTree(kid, 3, b.Position, paint)
		}
	}
	if hs := n.Get("headers"); hs != nil && len(hs.Children) > 0 {
		w.WriteString("    headers " + strconv.Itoa(len(hs.Children)) + "\n")
		for _, h := range hs.Children {
			line := "      [" + strconv.Itoa(h.Index) + "] " + spanText(h, b.Position)
			for _, part := range h.Children {
				v := "null"
				if !part.Null {
					v = shortBytes(part.Raw)
				}
				line += " " + part.Name + " = " + v
			}
			w.WriteString(line + "\n")
		}
	}
}

// topicRecordError says why an internal topic's record did not decode,
// where the ndjson's "error" says it: a position in the segment (the
// entry starting at pos) when it is in the entry's own bytes, else an
// offset in a decompressed buffer, named as the tree's spans name it.
func topicRecordError(tr *storage.TopicRecord, pos int64) string {
	re, off, buf := tr.ErrorAt(pos)
	if re == nil {
		return tr.Err.Error()
	}
	at := re.Part + " at byte " + strconv.FormatInt(off, 10)
	if buf != 0 {
		at += " of buf" + strconv.Itoa(buf)
	}
	if re.Path != "" {
		at += " (" + re.Path + ")"
	}
	return at + ": " + re.Msg
}

// compressionName is the name Kafka's CompressionType enum gives codec c
// ("gzip"), or its number.
func compressionName(c int) string {
	for _, e := range schema.Enums() {
		if e.Name == "CompressionType" {
			if n := e.ValueName(int64(c)); n != "" {
				return n
			}
		}
	}
	return "codec " + strconv.Itoa(c)
}

// nodeTree draws n and its subtree, offsets in buffer 0 made positions.
func (c *logCmd) nodeTree(n *tree.Node, depth int, pos int64, paint func(string, string) string) {
	name, typ := n.Name, n.Type
	if n.Field != nil {
		name = n.Field.JSON
	}
	if n.Role == tree.RoleElement {
		name = "[" + strconv.Itoa(n.Index) + "]"
	}
	if strings.HasPrefix(typ, name+" ") {
		// A message named by its type ("OffsetCommitKey v0"): once.
		name, typ = typ, ""
	}
	line := strings.Repeat("  ", depth) + paint(ansiBold, name)
	if typ != "" {
		line += " " + paint(ansiDim, typ)
	}
	if len(n.Children) == 0 || n.Kind == 0 {
		if v := render.ShortValue(n, -1); v != "" {
			line += " = " + v + internalValueName(n)
		}
	}
	c.out.WriteString(line + " " + paint(ansiDim, spanText(n, pos)) + "\n")
	for _, x := range n.Warnings {
		c.out.WriteString(strings.Repeat("  ", depth+1) + paint(ansiRed, "warning") + " " + x + "\n")
	}
	for _, k := range n.Children {
		c.nodeTree(k, depth+1, pos, paint)
	}
}

// internalValueName is " " and the name of an internal topic's value
// that Kafka names and its schema does not (a __transaction_state
// value's transactionStatus: "1 Ongoing"), or "": a read integer's.
func internalValueName(n *tree.Node) string {
	if n.Field == nil || n.Null || n.Flags&tree.Broken != 0 || n.Kind != schema.Int8 && n.Kind != schema.Int16 && n.Kind != schema.Int32 {
		return ""
	}
	if name := storage.ValueName(n.Field.Name, n.Int); name != "" {
		return " " + name
	}
	return ""
}

func spanText(n *tree.Node, pos int64) string {
	if n.Buf != 0 {
		return "buf" + strconv.Itoa(n.Buf) + "[" + strconv.Itoa(n.Start) + "," + strconv.Itoa(n.End) + ")"
	}
	return "[" + strconv.FormatInt(pos+int64(n.Start), 10) + "," + strconv.FormatInt(pos+int64(n.End), 10) + ")"
}

func shortBytes(b []byte) string {
	s := string(b)
	printable := true
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfffd {
			printable = false
			break
		}
	}
	if !printable {
		s = base64.StdEncoding.EncodeToString(b)
	}
	// A long one is cut at a character's start, and the cut is marked
	// outside the quotes: "…" inside them would read as the value's own.
	more := ""
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s, more = s[:cut], "…"
	}
	if printable {
		return strconv.Quote(s) + more
	}
	return "base64 " + s + more
}

// file reads one file by its kind. alone is set for a file named on the
// command line: a segment's summary is printed after its batches then,
// and an index's entries are listed.
func (c *logCmd) file(p, topic string, alone bool) {
	if c.e.outFailed() != nil {
		return // standard output failed: no more files are read for it
	}
	n := storage.KindOf(filepath.Base(p))
	if n.Kind == storage.UnknownFile && alone {
		// Not named as Kafka names its files: a segment if its bytes say so.
		if looksLikeSegment(p) {
			n.Kind = storage.SegmentFile
		} else {
			c.failed(p, errors.New("not a file Kafka writes in a log directory (by its name), nor a segment (by its bytes)"))
			return
		}
	}
	if n.Kind != storage.SegmentFile && n.Kind != storage.KRaftSnapshotFile &&
		n.Kind != storage.OffsetIndexFile && n.Kind != storage.TimeIndexFile {
		c.smallFile(p, topic, n)
		return
	}
	c.fileBody(p, topic, n, alone)
}

// treeHeader starts file p's lines under --format tree: a line naming it
// and its kind, so that one file's entries are not taken for the one's
// before it (positions start again at 0). Its other lines (tails,
// problems, summaries) are JSON, each naming its file.
func (c *logCmd) treeHeader(p string, kind storage.FileKind) {
	if c.format != "tree" || c.summary {
		return
	}
	what := "file"
	if c.color {
		what = ansiBold + what + ansiReset
	}
	c.out.WriteString(what + " " + p + " (" + kind.String() + ")\n")
}

// fileBody reads one file of kind n.
func (c *logCmd) fileBody(p, topic string, n storage.Named, alone ...bool) {
	if n.Kind != storage.SegmentFile && n.Kind != storage.KRaftSnapshotFile {
		c.treeHeader(p, n.Kind) // segmentFile writes a segment's
	}
	switch n.Kind {
	case storage.SegmentFile, storage.KRaftSnapshotFile:
		c.segmentFile(p, topic, n, len(alone) > 0 && alone[0], nil)
	case storage.OffsetIndexFile, storage.TimeIndexFile:
		c.index(p, n)
	case storage.TxnIndexFile:
		c.txnIndex(p, n)
	case storage.ProducerSnapshotFile:
		c.producerSnapshot(p)
	case storage.LeaderEpochFile, storage.OffsetCheckpointFile:
		c.checkpoint(p, n)
	case storage.PartitionMetadataFile:
		c.partitionMetadata(p)
	case storage.MetaPropertiesFile:
		c.metaProperties(p)
	case storage.QuorumStateFile:
		c.quorumState(p)
	}
}

// segmentFile reads the segment or KRaft snapshot p (from r when set),
// its summary printed after it when alone.
func (c *logCmd) segmentFile(p, topic string, n storage.Named, alone bool, r io.Reader) {
	if n.Kind == storage.KRaftSnapshotFile && topic == "" {
		topic = "__cluster_metadata"
	}
	c.treeHeader(p, n.Kind)
	var ss *segmentSummary
	if r != nil {
		ss = c.readSegmentFrom(r, p, n, topic, !c.summary, nil, nil)
	} else {
		ss = c.readSegment(p, topic, !c.summary, nil, nil)
	}
	if ss != nil && c.inPart {
		c.counted += ss.problems() // a leftover's, a KRaft snapshot's: in its partition's count
	}
	if ss != nil && (alone || c.summary || n.Kind == storage.KRaftSnapshotFile) {
		b := c.head(p, "segment-summary")
		b = ss.appendMembers(b[:len(b)-1]) // head ends with a comma; the members start with one
		c.emit(append(b, '}'))
	}
}

// smallFile reads a file that is not a segment or an offset or time
// index: its lines (none under --summary), then its summary line, kind
// "<what>-summary", with its entries and problems counted (the first
// listed), under --summary or when it printed no line (an empty
// .txnindex, a checkpoint of no entries), so that every file given says
// something and an exit status of 1 is explained on screen.
func (c *logCmd) smallFile(p, topic string, n storage.Named) {
	sum := &fileSum{}
	c.quiet, c.sum = c.summary, sum
	unread, lines := c.unread, c.lines
	c.fileBody(p, topic, n)
	c.quiet, c.sum = false, nil
	if c.unread != unread || !c.summary && c.lines != lines {
		return // could not be read (said on standard error), or said its piece
	}
	what := map[storage.FileKind]string{storage.TxnIndexFile: "txnindex", storage.ProducerSnapshotFile: "producer-snapshot",
		storage.LeaderEpochFile: "leader-epoch", storage.OffsetCheckpointFile: "offset-checkpoint", storage.PartitionMetadataFile: "partition-metadata",
		storage.MetaPropertiesFile: "meta-properties", storage.QuorumStateFile: "quorum-state"}[n.Kind]
	b := c.head(p, what+"-summary")
	b = b[:len(b)-1] // head ends with a comma; the members start with one
	switch n.Kind {
	case storage.TxnIndexFile, storage.ProducerSnapshotFile, storage.LeaderEpochFile, storage.OffsetCheckpointFile, storage.MetaPropertiesFile:
		b = appendInt(b, "entries", int64(sum.entries))
	}
	b = appendInt(b, "problems", int64(sum.problems))
	if len(sum.list) > 0 {
		b = appendStrings(b, "problemList", sum.list)
	}
	c.emit(append(b, '}'))
}

// beside is the path of the file with extension ext (".log", ".index",
// ".timeindex") that goes with Kafka's file p, named n: the same base
// offset and the same suffix (X.index.deleted goes with X.log.deleted).
func beside(p string, n storage.Named, ext string) string {
	name := strings.TrimSuffix(filepath.Base(p), n.Suffix)
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	return filepath.Join(filepath.Dir(p), name+ext+n.Suffix)
}

func looksLikeSegment(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var head [storage.SegmentHeadLen]byte
	n, _ := io.ReadFull(f, head[:])
	return storage.SegmentHead(head[:n])
}

// firstEntryChecks reports whether the first entry in br, a stream whose
// head is a segment's (storage.SegmentHead), has the CRC of its bytes; true when
// the entry is longer than br's buffer or cut short, as nothing else
// looks like a segment's head that far.
func firstEntryChecks(br *bufio.Reader) bool {
	head, _ := br.Peek(12)
	n := 12 + int(int32(binary.BigEndian.Uint32(head[8:])))
	if n > br.Size() {
		return true
	}
	entry, err := br.Peek(n)
	if err != nil {
		return true
	}
	b, err := storage.NewSegment(bytes.NewReader(entry), storage.SegmentOptions{}).Next()
	return err == nil && b.CRCValid
}

// index lists an .index or .timeindex entry by entry, each checked
// against the segment beside it (read without printing it).
func (c *logCmd) index(p string, n storage.Named) {
	kind := storage.OffsetIndex
	if n.Kind == storage.TimeIndexFile {
		kind = storage.TimeIndex
	}
	on := func(e storage.IndexEntry, problem string) {
		if c.summary {
			return
		}
		b := c.head(p, kind.String())
		je := e.AppendJSON(nil, kind)
		b = append(b, je[1:len(je)-1]...)
		if problem != "" {
			b = append(b, `,"problem":`...)
			b = jsontext.AppendString(b, []byte(problem))
		}
		c.emit(append(b, '}'))
	}
	// Its segment has its name with .log for the extension, and the same
	// suffix: an X.index.deleted is X.log.deleted's.
	logPath := beside(p, n, ".log")
	_, err := os.Stat(logPath)
	alone := err != nil
	var ic *storage.IndexCheck
	if !alone {
		// The segment is read for the index's sake: its own problems (a
		// tail, a CRC) are not printed here, so they do not count; the
		// index's do, below.
		status, unread := c.status, c.unread
		var ss *segmentSummary
		if kind == storage.OffsetIndex {
			ss = c.readSegment(logPath, c.topicOf(logPath), false, on, nil)
		} else {
			ss = c.readSegment(logPath, c.topicOf(logPath), false, nil, on)
		}
		if ss == nil {
			return
		}
		if c.unread == unread {
			c.status = status
		}
		ic = ss.index
		if kind == storage.TimeIndex {
			ic = ss.timeindex
		}
		if ic != nil && ic.Count > 0 {
			c.mismatch()
		}
	} else {
		// No segment beside it: the entries and their order only.
		f, err := os.Open(p)
		if err != nil {
			c.failed(p, err)
			return
		}
		defer f.Close()
		ic = storage.NewIndexCheck(storage.NewIndexReader(bufio.NewReaderSize(f, 64<<10), kind, n.Offset))
		ic.OnEntry = on
		ic.EndAlone()
		if ic.Count > 0 {
			c.mismatch()
		}
	}
	if ic == nil {
		return
	}
	if c.inPart {
		c.counted += ic.Count
		if ic.Err != nil {
			c.counted++
		}
	}
	if ic.Unused > 0 && !c.summary {
		b := c.head(p, kind.String()+"-unused")
		b = append(b, `"entry":`...)
		b = strconv.AppendInt(b, int64(ic.UnusedFrom), 10)
		b = appendInt(b, "count", int64(ic.Unused))
		c.emit(append(b, '}'))
	}
	var te *storage.IndexTailError
	if errors.As(ic.Err, &te) && !c.summary {
		c.emit(indexTailJSON(c.head(p, kind.String()+"-tail"), te))
	}
	b := c.head(p, kind.String()+"-summary")
	cj := appendCheck(nil, ic)
	b = append(b, cj[1:len(cj)-1]...)
	if alone {
		b = append(b, `,"segment":"none beside it: entries checked for order only"`...)
	}
	c.emit(append(b, '}'))
	if ic.Err != nil {
		c.problem()
	}
}

// indexTailJSON ends the line b of an index's partial last entry: where
// it is, what is wrong, and its bytes, which kwire encode gives back.
func indexTailJSON(b []byte, te *storage.IndexTailError) []byte {
	b = append(b, `"entry":`...)
	b = strconv.AppendInt(b, int64(te.Entry), 10)
	b = appendInt(b, "position", te.Position())
	b = appendInt(b, "size", int64(te.Size))
	b = append(b, `,"problem":`...)
	b = jsontext.AppendString(b, []byte(te.Error()))
	b = append(b, `,"bytes":"`...)
	b = base64.StdEncoding.AppendEncode(b, te.Bytes)
	return append(b, `"}`...)
}

func (c *logCmd) txnIndex(p string, n storage.Named) {
	// Named alone, it is checked against the segment beside it (read
	// without printing it; its own problems do not count here): in a
	// partition directory, the segment's reading said its problems.
	var ss *segmentSummary
	if logPath := beside(p, n, ".log"); !c.inPart && n.Suffix == "" {
		if _, err := os.Stat(logPath); err == nil {
			status, unread, quiet := c.status, c.unread, c.quiet
			c.quiet = true
			ss = c.readSegment(logPath, c.topicOf(logPath), false, nil, nil)
			c.quiet = quiet
			if c.unread == unread {
				c.status = status
			}
			if ss != nil && (ss.txn == nil || !ss.hasTxnIndex) {
				ss = nil
			}
		}
	}
	f, err := os.Open(p)
	if err != nil {
		c.failed(p, err)
		return
	}
	defer f.Close()
	if ss != nil {
		defer func() {
			for _, pr := range ss.txnList {
				if pr.entry < 0 {
					c.fileProblem(pr.msg)
					if !c.summary {
						b := c.head(p, "txnindex-problem")
						b = append(b, `"problem":`...)
						b = jsontext.AppendString(b, []byte(pr.msg))
						c.emit(append(b, '}'))
					}
				}
			}
			if ss.txnProblems > 0 {
				c.problem() // --strict's only, as in a partition
			}
		}()
	}
	x := storage.NewIndexReader(bufio.NewReaderSize(f, 64<<10), storage.TxnIndex, n.Offset)
	for {
		e, err := x.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				c.fileProblem(err.Error())
				var te *storage.IndexTailError
				if errors.As(err, &te) {
					c.emit(indexTailJSON(c.head(p, "txnindex-tail"), te))
				} else {
					c.failed(p, err)
				}
			}
			break
		}
		c.entry()
		pr := storage.TxnProblem(e)
		if ss != nil {
			if x := ss.txn.EntryProblems(e.N); x != "" && pr != "" {
				pr += "; " + x
			} else if x != "" {
				pr = x
			}
		}
		if pr != "" {
			c.fileProblem("entry " + strconv.Itoa(e.N) + ": " + pr)
		}
		if c.summary {
			continue
		}
		b := c.head(p, "txnindex")
		je := e.AppendJSON(nil, storage.TxnIndex)
		b = append(b, je[1:len(je)-1]...)
		if pr != "" {
			b = append(b, `,"problem":`...)
			b = jsontext.AppendString(b, []byte(pr))
		}
		c.emit(append(b, '}'))
	}
}

// maxSmallFile is the largest producer snapshot, properties or quorum
// state read (they are read whole): far past what a broker writes.
const maxSmallFile = 64 << 20

func readSmall(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSmallFile+1))
	if err == nil && len(b) > maxSmallFile {
		return nil, errors.New("larger than " + strconv.Itoa(maxSmallFile) + " bytes: not read")
	}
	return b, err
}

func (c *logCmd) producerSnapshot(p string) {
	b, err := readSmall(p)
	if err != nil {
		c.failed(p, err)
		return
	}
	ps := storage.ReadProducerSnapshot(b)
	if ps.Node != nil {
		if es := ps.Node.Get("producerEntries"); es != nil && c.sum != nil {
			c.sum.entries = len(es.Children)
		}
	}
	for _, pr := range ps.Problems() {
		c.fileProblem(pr)
	}
	if c.format == "tree" && ps.Node != nil && !c.quiet {
		c.lines++
		c.out.WriteString("producer snapshot v" + strconv.Itoa(int(ps.Version)) + " crc valid " + strconv.FormatBool(ps.CRCValid) + "\n")
		c.nodeTree(ps.Node, 1, 0, func(_, s string) string { return s })
		if ps.Err != nil {
			c.out.WriteString("  error " + ps.Err.Error() + "\n")
		}
		return
	}
	line := c.head(p, "producer-snapshot")
	pj := ps.AppendJSON(nil)
	c.emit(append(line, pj[1:]...))
}

func (c *logCmd) checkpoint(p string, n storage.Named) {
	f, err := os.Open(p)
	if err != nil {
		c.failed(p, err)
		return
	}
	defer f.Close()
	kind, name := storage.OffsetCheckpoint, "offset-checkpoint"
	if n.Kind == storage.LeaderEpochFile {
		kind, name = storage.LeaderEpochCheckpoint, "leader-epoch"
	}
	r := storage.NewCheckpointReader(bufio.NewReader(f), kind)
	var entries []storage.CheckpointEntry
	ordered := true
	for {
		e, err := r.Next()
		if err != nil {
			if errors.Is(err, io.EOF) && kind == storage.LeaderEpochCheckpoint && n.Suffix == "" {
				// In a partition directory, against what its segments'
				// reading found; named alone, against the segments beside
				// it, read for it.
				if c.inPart {
					c.epochCheck(p, entries, ordered)
				} else if c.segmentsBeside(p) {
					c.epochCheck(p, entries, ordered)
					c.epochs, c.logEnd = nil, -1
				}
			}
			if !errors.Is(err, io.EOF) {
				c.fileProblem(err.Error())
				b := c.head(p, name+"-error")
				b = append(b, `"message":`...)
				b = jsontext.AppendString(b, []byte(err.Error()))
				c.emit(append(b, '}'))
			}
			return
		}
		c.entry()
		entries = append(entries, e)
		if e.Problem != "" {
			ordered = false
			c.fileProblem("line " + strconv.Itoa(e.Line) + ": " + e.Problem)
		}
		if c.summary {
			continue
		}
		b := c.head(p, name)
		je := e.AppendJSON(nil, kind)
		c.emit(append(b, je[1:]...))
	}
}

// epochCheck checks the partition's leader-epoch-checkpoint p against
// its batches' epochs and its log end offset (storage.CheckLeaderEpochs):
// each problem a line, counted in its summary. Out of order, only its
// start offsets are checked against the log end.
func (c *logCmd) epochCheck(p string, entries []storage.CheckpointEntry, ordered bool) {
	runs := c.epochs
	if !ordered {
		runs = nil
	}
	for _, msg := range storage.CheckLeaderEpochs(entries, runs, c.logEnd) {
		c.fileProblem(msg)
		b := c.head(p, "leader-epoch-problem")
		b = append(b, `"problem":`...)
		b = jsontext.AppendString(b, []byte(msg))
		c.emit(append(b, '}'))
	}
}

// wholeFile prints the line of a small file read whole: kind's head, then
// what fill appends from what read made of the file's bytes, or "error"
// when read fails (a problem).
func wholeFile[T any](c *logCmd, p, kind string, read func([]byte) (T, error), fill func(b []byte, v T) []byte) {
	raw, err := readSmall(p)
	if err != nil {
		c.failed(p, err)
		return
	}
	b := c.head(p, kind)
	if v, err := read(raw); err != nil {
		c.fileProblem(err.Error())
		b = append(b, `"error":`...)
		b = jsontext.AppendString(b, []byte(err.Error()))
	} else {
		b = fill(b, v)
	}
	c.emit(append(b, '}'))
}

func (c *logCmd) partitionMetadata(p string) {
	wholeFile(c, p, "partition-metadata", storage.ReadPartitionMetadata, func(b []byte, pm storage.PartitionMetadata) []byte {
		b = append(b, `"version":`...)
		b = strconv.AppendInt(b, int64(pm.Version), 10)
		b = append(b, `,"topicId":"`...)
		b = base64.RawURLEncoding.AppendEncode(b, pm.TopicID[:])
		return append(b, '"')
	})
}

func (c *logCmd) metaProperties(p string) {
	f, err := os.Open(p)
	if err != nil {
		c.failed(p, err)
		return
	}
	defer f.Close()
	props, problems, err := storage.ReadMetaProperties(io.LimitReader(f, maxSmallFile))
	if c.sum != nil {
		c.sum.entries = len(props)
	}
	b := c.head(p, "meta-properties")
	b = append(b, `"properties":{`...)
	for i, pr := range props {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, []byte(pr.Key))
		b = append(b, ':')
		b = jsontext.AppendString(b, []byte(pr.Value))
	}
	b = append(b, '}')
	if err != nil {
		problems = append(problems, err.Error())
	}
	for _, pr := range problems {
		c.fileProblem(pr)
	}
	if len(problems) > 0 {
		b = appendStrings(b, "problems", problems)
	}
	c.emit(append(b, '}'))
}

func (c *logCmd) quorumState(p string) {
	wholeFile(c, p, "quorum-state", storage.ReadQuorumState, func(b []byte, q *storage.QuorumState) []byte {
		b = append(b, `"dataVersion":`...)
		b = strconv.AppendInt(b, q.DataVersion, 10)
		b = append(b, `,"state":`...)
		b = storage.AppendJSONValue(b, q.Value)
		for _, pr := range q.Problems {
			c.fileProblem(pr)
		}
		if len(q.Problems) > 0 {
			b = appendStrings(b, "problems", q.Problems)
		}
		return b
	})
}

// encodeAny encodes one JSON value for kwire encode: a line kwire log
// wrote (it has "kind") gives the bytes it was read from, b followed by
// zeros zero bytes (storage.EncodeLineZeros: counted, for the caller to
// write in pieces), any other value a frame (codec.Encode).
func encodeAny(v any, opts codec.EncodeOptions) (b []byte, zeros int64, err error) {
	if obj, ok := v.(map[string]any); ok {
		if kind, ok := obj["kind"].(string); ok {
			return storage.EncodeLineZeros(kind, obj)
		}
	}
	b, err = codec.Encode(nil, v, opts)
	return b, 0, err
}
