package storage

import (
	"bufio"
	"encoding/base64"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
)

// Kafka's small text files: checkpoints (CheckpointFile: a version line,
// a count line, then one entry a line), partition.metadata, the log
// directories' meta.properties and KRaft's quorum-state (JSON).

// maxLine is the longest line a text file may have: far past any entry
// Kafka writes (a topic name is at most 249 characters).
const maxLine = 64 << 10

// CheckpointKind says which text checkpoint a file is.
type CheckpointKind uint8

const (
	// LeaderEpochCheckpoint: leader-epoch-checkpoint, "epoch startOffset"
	// lines (LeaderEpochCheckpointFile).
	LeaderEpochCheckpoint CheckpointKind = iota + 1
	// OffsetCheckpoint: recovery-point-offset-checkpoint,
	// replication-offset-checkpoint, log-start-offset-checkpoint,
	// cleaner-offset-checkpoint, "topic partition offset" lines
	// (OffsetCheckpointFile).
	OffsetCheckpoint
)

// CheckpointEntry is one entry line of a checkpoint.
type CheckpointEntry struct {
	Line        int    // its line number, from 1
	Epoch       int32  // leader-epoch-checkpoint
	StartOffset int64  // leader-epoch-checkpoint
	Topic       string // offset checkpoints
	Partition   int32  // offset checkpoints
	Offset      int64  // offset checkpoints
	// Problem says what is wrong with the entry beside the ones before it
	// (epochs must rise, start offsets must not fall), or "".
	Problem string
}

// TextError is a text file that is not what its kind says: where, and
// what was found.
type TextError struct {
	Line int
	Msg  string
}

// Error says at which line the file is not what its kind says, and why.
func (e *TextError) Error() string { return "storage: line " + strconv.Itoa(e.Line) + ": " + e.Msg }

// CheckpointReader reads a checkpoint's entries one at a time.
type CheckpointReader struct {
	Version  int // the version line (0), once the first Next returned
	Declared int // the count line
	kind     CheckpointKind
	s        *bufio.Scanner
	line     int
	count    int // the count line's number, where a count the entries disagree with is reported
	n        int
	prev     *CheckpointEntry
	prevBuf  CheckpointEntry
	started  bool
	done     bool
}

// NewCheckpointReader reads the checkpoint r of kind.
func NewCheckpointReader(r io.Reader, kind CheckpointKind) *CheckpointReader {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 4096), maxLine)
	return &CheckpointReader{kind: kind, s: s}
}

func (c *CheckpointReader) next() (string, error) {
	if !c.s.Scan() {
		if err := c.s.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return "", &TextError{Line: c.line + 1, Msg: "a line longer than " + strconv.Itoa(maxLine) + " bytes"}
			}
			return "", err
		}
		return "", io.EOF
	}
	c.line++
	return c.s.Text(), nil
}

func (c *CheckpointReader) header() error {
	c.started = true
	for i, what := range [...]string{"version", "entry count"} {
		l, err := c.next()
		if errors.Is(err, io.EOF) {
			return &TextError{Line: c.line + 1, Msg: "the file ends before its " + what + " line"}
		}
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(strings.TrimSpace(l))
		if err != nil || n < 0 {
			return &TextError{Line: c.line, Msg: "the " + what + " should be a number; found " + strconv.Quote(l)}
		}
		if i == 0 {
			c.Version = n
			if n != 0 {
				return &TextError{Line: c.line, Msg: "version " + strconv.Itoa(n) + "; Kafka writes version 0"}
			}
		} else {
			c.Declared, c.count = n, c.line
		}
	}
	return nil
}

// Next returns the next entry, or io.EOF after the last. A line that is
// not an entry, a missing header, or a count that disagrees with the
// entries is a *TextError.
func (c *CheckpointReader) Next() (CheckpointEntry, error) {
	if c.done {
		return CheckpointEntry{}, io.EOF
	}
	if !c.started {
		if err := c.header(); err != nil {
			c.done = true
			return CheckpointEntry{}, err
		}
	}
	l, err := c.next()
	if err != nil {
		c.done = true
		if errors.Is(err, io.EOF) && c.n != c.Declared {
			return CheckpointEntry{}, &TextError{Line: c.count, Msg: "the count line says " + strconv.Itoa(c.Declared) + " entries; the file has " + strconv.Itoa(c.n)}
		}
		return CheckpointEntry{}, err
	}
	f := strings.Fields(l)
	e := CheckpointEntry{Line: c.line}
	bad := func(want string) (CheckpointEntry, error) {
		c.done = true
		return CheckpointEntry{}, &TextError{Line: c.line, Msg: "expected " + want + "; found " + strconv.Quote(l)}
	}
	switch c.kind {
	case LeaderEpochCheckpoint:
		if len(f) != 2 {
			return bad("\"epoch startOffset\"")
		}
		ep, err1 := strconv.ParseInt(f[0], 10, 32)
		off, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return bad("\"epoch startOffset\" as numbers")
		}
		e.Epoch, e.StartOffset = int32(ep), off
		if p := c.prev; p != nil {
			if e.Epoch <= p.Epoch {
				e.Problem = "epoch " + f[0] + " is not above the line before (" + strconv.Itoa(int(p.Epoch)) + ")"
			} else if e.StartOffset < p.StartOffset {
				e.Problem = "start offset " + f[1] + " is below the line before (" + strconv.FormatInt(p.StartOffset, 10) + ")"
			}
		}
	case OffsetCheckpoint:
		if len(f) != 3 {
			return bad("\"topic partition offset\"")
		}
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		off, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 {
			return bad("\"topic partition offset\" with numbers")
		}
		e.Topic, e.Partition, e.Offset = f[0], int32(p), off
	}
	c.n++
	if c.n > c.Declared && e.Problem == "" {
		e.Problem = "past the " + strconv.Itoa(c.Declared) + " entries the count line declares"
	}
	c.prevBuf = e
	c.prev = &c.prevBuf
	return e, nil
}

// AppendJSON appends the entry as JSON.
func (e CheckpointEntry) AppendJSON(dst []byte, kind CheckpointKind) []byte {
	dst = append(dst, `{"line":`...)
	dst = jsontext.AppendInt(dst, int64(e.Line))
	if kind == LeaderEpochCheckpoint {
		dst = append(dst, `,"epoch":`...)
		dst = jsontext.AppendInt(dst, int64(e.Epoch))
		dst = append(dst, `,"startOffset":`...)
		dst = jsontext.AppendInt(dst, e.StartOffset)
	} else {
		dst = append(dst, `,"topic":`...)
		dst = jsontext.AppendString(dst, []byte(e.Topic))
		dst = append(dst, `,"partition":`...)
		dst = jsontext.AppendInt(dst, int64(e.Partition))
		dst = append(dst, `,"offset":`...)
		dst = jsontext.AppendInt(dst, e.Offset)
	}
	if e.Problem != "" {
		dst = append(dst, `,"problem":`...)
		dst = jsontext.AppendString(dst, []byte(e.Problem))
	}
	return append(dst, '}')
}

// PartitionMetadata is a partition directory's partition.metadata.
type PartitionMetadata struct {
	Version int
	TopicID [16]byte
}

// ReadPartitionMetadata reads partition.metadata: "version: 0" and
// "topic_id: <base64url UUID>" (PartitionMetadataFile).
func ReadPartitionMetadata(b []byte) (PartitionMetadata, error) {
	var pm PartitionMetadata
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) != 2 {
		return pm, &TextError{Line: 1, Msg: "expected two lines, version and topic_id; found " + strconv.Itoa(len(lines))}
	}
	v, ok := strings.CutPrefix(lines[0], "version: ")
	n, err := strconv.Atoi(v)
	if !ok || err != nil {
		return pm, &TextError{Line: 1, Msg: "expected \"version: N\"; found " + strconv.Quote(lines[0])}
	}
	pm.Version = n
	if n != 0 {
		return pm, &TextError{Line: 1, Msg: "version " + v + "; Kafka writes version 0"}
	}
	id, ok := strings.CutPrefix(lines[1], "topic_id: ")
	raw, err := base64.RawURLEncoding.DecodeString(id)
	if !ok || err != nil || len(raw) != 16 {
		return pm, &TextError{Line: 2, Msg: "expected \"topic_id: \" and a UUID in Kafka's base64url form; found " + strconv.Quote(lines[1])}
	}
	copy(pm.TopicID[:], raw)
	return pm, nil
}

// Property is one key=value line of meta.properties.
type Property struct {
	Key, Value string
	Line       int
}

// lastOfEachKey keeps, of a key given more than once, its last entry (in
// its place), as Kafka (java.util.Properties) does, each repeat said in
// problems.
func lastOfEachKey(props []Property, problems []string) ([]Property, []string) {
	last := map[string]int{}
	for i, pr := range props {
		if j, ok := last[pr.Key]; ok {
			problems = append(problems, "key "+strconv.Quote(pr.Key)+" is given again (entry "+strconv.Itoa(i+1)+", first "+strconv.Itoa(j+1)+
				"): Kafka uses the last value, "+strconv.Quote(pr.Value))
		}
		last[pr.Key] = i
	}
	if len(last) == len(props) {
		return props, problems
	}
	kept := props[:0:0]
	for i, pr := range props {
		if last[pr.Key] == i {
			kept = append(kept, pr)
		}
	}
	return kept, problems
}

// ReadMetaProperties reads a log directory's meta.properties (Java
// properties, # comments) and says what its version requires and lacks:
// version 0 (ZooKeeper mode) broker.id; version 1 node.id and cluster.id.
// A key given twice is a problem, and only its last value is kept, the
// one Kafka reads.
func ReadMetaProperties(r io.Reader) (props []Property, problems []string, err error) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 4096), maxLine)
	line := 0
	for s.Scan() {
		line++
		l := strings.TrimSpace(s.Text())
		if l == "" || l[0] == '#' || l[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			k, v, ok = strings.Cut(l, ":")
		}
		if !ok {
			return props, problems, &TextError{Line: line, Msg: "expected key=value; found " + strconv.Quote(l)}
		}
		props = append(props, Property{Key: strings.TrimSpace(k), Value: strings.TrimSpace(v), Line: line})
	}
	props, problems = lastOfEachKey(props, problems)
	if err := s.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return props, problems, &TextError{Line: line + 1, Msg: "a line longer than " + strconv.Itoa(maxLine) + " bytes"}
		}
		return props, problems, err
	}
	get := func(k string) (string, bool) {
		for _, p := range props {
			if p.Key == k {
				return p.Value, true
			}
		}
		return "", false
	}
	v, ok := get("version")
	var need []string
	switch {
	case !ok:
		problems = append(problems, "no version")
	case v == "0":
		need = []string{"broker.id"}
	case v == "1":
		need = []string{"node.id", "cluster.id"}
	default:
		problems = append(problems, "version "+v+"; Kafka writes 0 or 1")
	}
	for _, k := range need {
		if _, ok := get(k); !ok {
			problems = append(problems, "version "+v+" needs "+k)
		}
	}
	// What Kafka's MetaProperties parses: the ids as an int, the
	// directory id as a Uuid (22 characters of URL-safe base64).
	for _, k := range []string{"broker.id", "node.id"} {
		if id, ok := get(k); ok {
			if _, err := strconv.ParseInt(id, 10, 32); err != nil {
				problems = append(problems, k+" "+strconv.Quote(id)+" is not an int, as Kafka reads it")
			}
		}
	}
	if id, ok := get("directory.id"); ok {
		if b, err := base64.RawURLEncoding.DecodeString(strings.TrimSuffix(id, "==")); err != nil || len(b) != 16 {
			problems = append(problems, "directory.id "+strconv.Quote(id)+" is not a Uuid (22 characters of URL-safe base64, 16 bytes), as Kafka reads it")
		}
	}
	return props, problems, nil
}

// QuorumState is KRaft's quorum-state file: QuorumStateData as Kafka's
// JSON converter writes it, plus "data_version".
type QuorumState struct {
	DataVersion int64
	Value       map[string]any // the file's members, numbers exact
	Problems    []string       // members the schema does not have at that version, and what it needs
}

// ReadQuorumState reads quorum-state and checks its members against the
// QuorumStateData schema at its data_version.
func ReadQuorumState(b []byte) (*QuorumState, error) {
	v, err := parseJSON(b)
	if err != nil {
		return nil, &TextError{Line: 1, Msg: "not JSON: " + err.Error()}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, &TextError{Line: 1, Msg: "expected a JSON object"}
	}
	q := &QuorumState{Value: obj, DataVersion: -1}
	dv, err := intField(obj, "data_version", "", 0, 0x7fff)
	if err != nil {
		q.Problems = append(q.Problems, "data_version: "+err.Error())
		return q, nil
	}
	q.DataVersion = dv
	m := schema.DataMessage("QuorumStateData")
	d := m.At(int16(dv))
	if d == nil {
		q.Problems = append(q.Problems, "data_version "+itoa(dv)+": QuorumStateData has versions "+m.Valid.String())
		return q, nil
	}
	known := map[string]bool{"data_version": true}
	for _, f := range d.Root.Fields {
		if f.Versions.Contains(int16(dv)) {
			known[f.JSON] = true
			if _, ok := obj[f.JSON]; !ok && !f.IsTagged(int16(dv)) && f.Default == "" {
				q.Problems = append(q.Problems, "no "+f.JSON+", which version "+itoa(dv)+" has")
			}
		}
	}
	var keys []string
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !known[k] {
			q.Problems = append(q.Problems, k+" is not a member of QuorumStateData version "+itoa(dv))
		}
	}
	return q, nil
}
