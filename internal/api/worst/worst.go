// Package worst builds the costliest requests the JSON API accepts under
// given limits: the largest frames the body limit lets through, record
// batches that decompress to the decompression limit with every codec,
// responses at the guessing limit, and the largest encode. Tests post them
// to the handler in-process, to kwire serve and to the Worker under
// wrangler dev, and measure what one request can cost; write.go writes
// them to a folder for the Worker's tests.
package worst

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/api"
	"github.com/pierrec/lz4/v4"
)

// Limits are the API limits the cases are built against.
type Limits struct {
	MaxBody         int
	MaxDecompressed int
	MaxGuess        int
	MaxNodes        int
}

// LimitsOf is the Limits of a handler made with o.
func LimitsOf(o api.Options) Limits {
	o = o.WithDefaults()
	return Limits{MaxBody: int(o.MaxBody), MaxDecompressed: o.MaxDecompressed, MaxGuess: o.MaxGuess, MaxNodes: o.MaxNodes}
}

// A Case is one request: POST Route+Query with Body as ContentType.
type Case struct {
	Name        string
	What        string // what it costs the server
	Route       string // "/api/decode" or "/api/encode"
	Query       string // with its "?", or ""
	ContentType string
	Body        []byte
}

// Cases returns the worst cases for l. Each is accepted: the server
// answers 200 (the work is done in full or cut by a limit it reports).
func Cases(l Limits) ([]Case, error) {
	var cs []Case
	add := func(name, what, route, query, ct string, body []byte) {
		cs = append(cs, Case{Name: name, What: what, Route: route, Query: query, ContentType: ct, Body: body})
	}
	const bin = "application/octet-stream"

	// The largest frame: a Produce request whose one batch holds as many
	// tiny records as the body limit allows.
	n := recordsIn(l.MaxBody - 256)
	big, err := produce(batch(n, 0, 0))
	if err != nil {
		return nil, err
	}
	add("records-max-body", strconv.Itoa(n)+" records of 7 bytes in one batch, "+kib(len(big)), "/api/decode", "", bin, big)
	add("records-max-body-annotated", "the same, annotated (spans for every node)", "/api/decode", "?format=annotated", bin, big)
	// As hex text the frame is half as large, and parsing the text costs too.
	hexFrame, err := produce(batch(recordsIn(l.MaxBody/2-256), 0, 0))
	if err != nil {
		return nil, err
	}
	add("records-max-body-hex", "hex text at the body limit, "+kib(len(hexFrame))+" of frame", "/api/decode", "", "text/plain",
		[]byte(hexString(hexFrame)))

	// Compressed batches whose records fill the decompression limit.
	m := recordsIn(l.MaxDecompressed)
	for _, c := range []int{1, 2, 3, 4} {
		b, err := produce(batch(m, c, 0))
		if err != nil {
			return nil, err
		}
		name := codecNames[c]
		add("records-"+name+"-max-decompressed", strconv.Itoa(m)+" records, "+kib(recordsSize(m))+" decompressed from "+kib(len(b))+" of "+name,
			"/api/decode", "", bin, b)
	}

	// The same limit filled with records of 1 KiB values (text, so that
	// value JSON writes them out): fewer nodes, the most bytes written.
	v := recordsInWith(l.MaxDecompressed, bigValue)
	for _, c := range []int{1, 2, 3, 4} {
		b, err := produce(batchWith(v, c, bigValue))
		if err != nil {
			return nil, err
		}
		name := codecNames[c]
		add("records-"+name+"-1k-values-max-decompressed", strconv.Itoa(v)+" records of 1 KiB values, "+kib(v*recordSizeWith(bigValue))+
			" decompressed from "+kib(len(b))+" of "+name, "/api/decode", "", bin, b)
	}

	// Guessing: responses at the guessing limit read without api and
	// version, so every API and version is tried on them.
	g := recordsIn(l.MaxGuess - 256)
	guessed, err := fetchResponse(batch(g, 0, 0))
	if err != nil {
		return nil, err
	}
	add("guess-fetch-max-guess", "a Fetch v11 response of "+kib(len(guessed))+" ("+strconv.Itoa(g)+" records), guessed",
		"/api/decode", "?direction=response", bin, guessed)
	gz, err := fetchResponse(batch(m, 1, 0))
	if err != nil {
		return nil, err
	}
	add("guess-fetch-gzip-max-decompressed", "a Fetch v11 response of "+kib(len(gz))+" whose gzip batch holds "+kib(recordsSize(m))+", guessed",
		"/api/decode", "?direction=response", bin, gz)

	// A flood of empty unknown tags, guessed: as many as MaxNodes lets
	// the reading taken keep (a tag and its warning cost 3 nodes; with
	// more, no reading fits and the answer is 400), within MaxGuess.
	flood, tags := tagFlood(l.MaxGuess, (l.MaxNodes-64)/3)
	add("guess-tag-flood", "a response of "+kib(len(flood))+" ending in "+strconv.Itoa(tags)+" empty unknown tags, guessed", "/api/decode", "?direction=response", bin, flood)

	// The largest encode: value JSON at the body limit, all records. (Not
	// compressed: the Worker, like the browser, has no compressors.)
	js := produceJSON(l.MaxBody - 1024)
	add("encode-max-body", kib(len(js))+" of value JSON, small records", "/api/encode", "", "application/json", js)
	return cs, nil
}

var codecNames = [...]string{"none", "gzip", "snappy", "lz4", "zstd"}

// tagFlood is a response of at most size bytes whose body (ApiVersions
// v3's: errorCode, no apiKeys, throttleTimeMs) ends in a tag section of
// empty unknown tags to its end, at most most of them; and how many. Guessed, it reads under many an API and
// version as thousands of unknown tags, each a warning in every reading
// tried, until the guess's bound on the nodes its readings read stops
// them; it is taken as Heartbeat v4.
func tagFlood(size, most int) ([]byte, int) {
	b := []byte{0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 1, 0, 0, 0, 0}
	var tags []byte
	n := 0
	for n < most && len(b)+3+len(tags)+len(binary.AppendUvarint(nil, uint64(n)))+1 <= size { // the count takes 3 bytes
		tags = binary.AppendUvarint(tags, uint64(n))
		tags = append(tags, 0)
		n++
	}
	b = binary.AppendUvarint(b, uint64(n))
	b = append(b, tags...)
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b, n
}

func kib(n int) string { return strconv.Itoa((n+512)>>10) + " KiB" }

// recordSize is the size of every record batch writes: length,
// attributes, timestamp delta 0, an offset delta below 64, null key and
// value, no headers. The smallest record there is, so the most records
// per byte; the deltas repeat every 64 records (later offsets repeat
// earlier ones, which decoders accept), so that compressors shrink them as
// far as they shrink anything.
const recordSize = 7

func recordsSize(n int) int { return n * recordSize }

// recordsIn is the most records whose bytes fit in limit.
func recordsIn(limit int) int { return limit / recordSize }

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// bigValue is the value of the records of the *-1k-values cases: 1 KiB
// of text.
var bigValue = []byte(strings.Repeat("kwire worst case value 0123456789 abcdefghijklmnopqrstuvwxyz ", 17)[:1024])

// recordSizeWith is the size of a record whose value is v (and whose
// offset delta is below 64).
func recordSizeWith(v []byte) int {
	body := recordBody(v)
	return varintLen(body) + body
}

// recordBody is the length of a record after its length prefix:
// attributes, timestamp delta, offset delta, key -1, the value, no headers.
func recordBody(v []byte) int {
	if v == nil {
		return 6
	}
	return 1 + 1 + 1 + 1 + varintLen(len(v)) + len(v) + 1
}

func varintLen(n int) int { return len(binary.AppendVarint(nil, int64(n))) }

func recordsInWith(limit int, v []byte) int { return limit / recordSizeWith(v) }

// batch writes a magic-2 record batch of n tiny records compressed with
// codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd), at baseOffset.
func batch(n, codec int, baseOffset int64) []byte {
	return batchAt(n, codec, baseOffset, nil)
}

// batchWith is batch with records whose value is v.
func batchWith(n, codec int, v []byte) []byte { return batchAt(n, codec, 0, v) }

func batchAt(n, codec int, baseOffset int64, v []byte) []byte {
	recs := make([]byte, 0, n*recordSizeWith(v))
	for i := 0; i < n; i++ {
		recs = binary.AppendVarint(recs, int64(recordBody(v)))
		recs = append(recs, 0, 0) // attributes, timestamp delta
		recs = binary.AppendVarint(recs, int64(i%64))
		recs = append(recs, 1) // key -1
		if v == nil {
			recs = append(recs, 1)
		} else {
			recs = binary.AppendVarint(recs, int64(len(v)))
			recs = append(recs, v...)
		}
		recs = append(recs, 0) // no headers
	}
	if codec != 0 {
		recs = compress(codec, recs)
	}
	b := binary.BigEndian.AppendUint64(nil, uint64(baseOffset))
	b = binary.BigEndian.AppendUint32(b, 0) // batch length, below
	b = binary.BigEndian.AppendUint32(b, 0) // partition leader epoch
	b = append(b, 2)                        // magic
	b = binary.BigEndian.AppendUint32(b, 0) // crc, below
	crcStart := len(b)
	b = binary.BigEndian.AppendUint16(b, uint16(codec))
	b = binary.BigEndian.AppendUint32(b, uint32(max(n-1, 0))) // last offset delta
	b = binary.BigEndian.AppendUint64(b, 0)                   // base timestamp
	b = binary.BigEndian.AppendUint64(b, 0)                   // max timestamp
	b = binary.BigEndian.AppendUint64(b, ^uint64(0))          // producer id -1
	b = binary.BigEndian.AppendUint16(b, 0xffff)              // producer epoch -1
	b = binary.BigEndian.AppendUint32(b, 0xffffffff)          // base sequence -1
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	b = append(b, recs...)
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	binary.BigEndian.PutUint32(b[crcStart-4:], crc32.Checksum(b[crcStart:], crc32c))
	return b
}

func compress(codec int, src []byte) []byte {
	var buf bytes.Buffer
	switch codec {
	case 1:
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		w.Write(src)
		w.Close()
	case 2:
		return s2.EncodeSnappyBest(nil, src)
	case 3:
		w := lz4.NewWriter(&buf)
		w.Write(src)
		w.Close()
	case 4:
		// One shot, with the content size in the frame header, as
		// librdkafka writes it.
		w, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression))
		return w.EncodeAll(src, nil)
	}
	return buf.Bytes()
}

// produce is a Produce v9 request carrying records for one partition.
func produce(records []byte) ([]byte, error) {
	return codec.Encode(nil, []byte(`{"direction":"request","apiKey":0,"apiVersion":9,"header":{"correlationId":1,"clientId":"worst"},`+
		`"body":{"acks":-1,"timeoutMs":30000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":"`+
		base64.StdEncoding.EncodeToString(records)+`"}]}]}}`), codec.EncodeOptions{})
}

// fetchResponse is a Fetch v11 response carrying records for one partition.
func fetchResponse(records []byte) ([]byte, error) {
	return codec.Encode(nil, []byte(`{"direction":"response","apiKey":1,"apiVersion":11,"header":{"correlationId":1},`+
		`"body":{"responses":[{"topic":"t","partitions":[{"partitionIndex":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,`+
		`"abortedTransactions":[],"preferredReadReplica":-1,"records":"`+base64.StdEncoding.EncodeToString(records)+`"}]}]}}`),
		codec.EncodeOptions{})
}

// produceJSON is the value JSON of a Produce v9 request, at most size
// bytes, whose batch holds as many small records as fit.
func produceJSON(size int) []byte {
	const head = `{"direction":"request","apiKey":0,"apiVersion":9,"header":{"correlationId":1,"clientId":"worst"},` +
		`"body":{"acks":-1,"timeoutMs":30000,"topicData":[{"name":"t","partitionData":[{"index":0,"records":[{"baseOffset":0,` +
		`"partitionLeaderEpoch":0,"magic":2,"attributes":{"compression":"none","timestampType":"CreateTime","transactional":false,` +
		`"control":false},"lastOffsetDelta":`
	const tail = `]}]}]}]}}`
	var recs []string
	total := len(head) + 20 + len(tail) + 200
	for i := 0; ; i++ {
		r := `{"attributes":0,"timestampDelta":0,"offsetDelta":` + strconv.Itoa(i) + `,"key":null,"value":{"text":"v` +
			strconv.Itoa(i) + `"},"headers":[]}`
		if total+len(r)+1 > size {
			break
		}
		total += len(r) + 1
		recs = append(recs, r)
	}
	return []byte(head + strconv.Itoa(len(recs)-1) + `,"baseTimestamp":0,"maxTimestamp":0,"producerId":-1,"producerEpoch":-1,` +
		`"baseSequence":-1,"records":[` + strings.Join(recs, ",") + tail)
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	s := make([]byte, 2*len(b))
	for i, c := range b {
		s[2*i], s[2*i+1] = digits[c>>4], digits[c&15]
	}
	return string(s)
}

// PeakRSS is the peak resident memory of process pid, in bytes: VmHWM
// from /proc/PID/status (Linux). A child's rusage is no use for this: its
// maximum counts the parent's memory at the fork.
func PeakRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/" + strconv.Itoa(pid) + "/status")
}
