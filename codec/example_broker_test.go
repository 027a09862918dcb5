package codec_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// broker is a small Kafka broker kept in memory, written from go doc
// alone: it answers ApiVersions, Metadata, InitProducerId, Produce,
// ListOffsets and Fetch at every version it advertises, keeps the records
// it is sent, decoded, and hands them back. Its handlers know no versions:
// each builds one response holding every field any version has, and the
// encoder (EncodeOptions.Lenient) drops what the version the client asked
// at lacks, as kmsg does. kcat and franz-go's kgo produce to it and
// consume from it (TestBrokerExampleClients).
type broker struct {
	host string
	port int32

	mu      sync.Mutex
	topics  map[string]*topic
	names   []string         // topic names in the order they were made
	dropped map[string]bool  // fields the encoder left out of some answer
	asked   map[[2]int16]int // (API key, version) -> requests answered
	errs    []error          // what made the broker hang up
	nextPID int64            // the next producer id InitProducerId gives
	grew    *sync.Cond       // broadcast when records arrive, for Fetch's wait
}

// topic is one topic: its id and its partitions' logs.
type topic struct {
	id   [16]byte
	logs [][]record
}

// record is a record as the broker keeps it.
type record struct {
	Offset, Timestamp int64
	Key, Value        []byte
	Headers           [][2]string // key, value
}

// advertised are the APIs the broker answers and their version ranges:
// every version the codec knows, but Produce from v3 and Fetch from v4,
// the first with record batches, and ListOffsets from v1, as Kafka 4.
var advertised = map[int16][2]int16{
	schema.KeyProduce:        {3, schema.ByKey(schema.KeyProduce).Request.Valid.Hi},
	schema.KeyFetch:          {4, schema.ByKey(schema.KeyFetch).Request.Valid.Hi},
	schema.KeyListOffsets:    {1, schema.ByKey(schema.KeyListOffsets).Request.Valid.Hi},
	schema.KeyMetadata:       {0, schema.ByKey(schema.KeyMetadata).Request.Valid.Hi},
	schema.KeyApiVersions:    {0, schema.ByKey(schema.KeyApiVersions).Request.Valid.Hi},
	schema.KeyInitProducerId: {0, schema.ByKey(schema.KeyInitProducerId).Request.Valid.Hi},
}

func newBroker(host string, port int32) *broker {
	b := &broker{host: host, port: port, topics: map[string]*topic{}, dropped: map[string]bool{},
		asked: map[[2]int16]int{}, nextPID: 1000}
	b.grew = sync.NewCond(&b.mu)
	b.create("orders", 2)
	return b
}

// create makes a topic (the caller holds mu, or no one else has b yet).
func (b *broker) create(name string, partitions int) *topic {
	t := &topic{logs: make([][]record, partitions)}
	sum := sha256.Sum256([]byte(name)) // a stable id, so that answers are deterministic
	copy(t.id[:], sum[:])
	b.topics[name] = t
	b.names = append(b.names, name)
	return t
}

// serve answers the requests on conn until the client hangs up, or sends
// what the broker cannot read (Kafka closes such a connection too).
func (b *broker) serve(conn net.Conn) {
	defer conn.Close()
	var buf []byte
	var dec codec.Decoder // reuses its memory from one request to the next
	for {
		frame, err := wire.ReadFrame(conn, buf, 1<<24)
		if err != nil {
			return // io.EOF: the client hung up
		}
		buf = frame // reused: what the broker keeps it copies
		resp, err := b.answer(&dec, frame)
		if err != nil {
			b.mu.Lock()
			b.errs = append(b.errs, err)
			b.mu.Unlock()
			return
		}
		if resp == nil {
			continue // Produce with acks=0: no answer
		}
		if _, err := conn.Write(resp); err != nil {
			return
		}
	}
}

// answer reads one request frame and returns the response frame, or nil
// when there is none to send.
func (b *broker) answer(dec *codec.Decoder, frame []byte) ([]byte, error) {
	h, err := codec.ParseRequestHeader(frame, codec.Options{})
	if err != nil {
		return nil, err
	}
	vr, ok := advertised[h.APIKey]
	if !ok {
		return nil, fmt.Errorf("%s is not answered here", schema.APIName(h.APIKey))
	}
	version := h.Version
	if h.Version < vr[0] || h.Version > vr[1] {
		if h.APIKey != schema.KeyApiVersions {
			return nil, fmt.Errorf("%s v%d is not supported", schema.APIName(h.APIKey), h.Version)
		}
		// KIP-511: an ApiVersions the broker does not know is answered at
		// v0, whose layout every client reads, with UNSUPPORTED_VERSION
		// and the broker's ranges, so the client can ask again at one.
		version = 0
	}
	// One call reads the header and the body; paths and offsets in its
	// errors are the frame's.
	var req *codec.Frame
	if version == h.Version {
		if req, err = dec.Decode(frame, codec.Options{}); err != nil {
			return nil, err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked[[2]int16{h.APIKey, h.Version}]++
	var body map[string]any
	switch h.APIKey {
	case schema.KeyApiVersions:
		body = b.apiVersions(version != h.Version)
	case schema.KeyMetadata:
		body = b.metadata(req.Body)
	case schema.KeyInitProducerId:
		body = b.initProducerID()
	case schema.KeyProduce:
		if body = b.produce(req.Body); body == nil {
			return nil, nil
		}
	case schema.KeyListOffsets:
		body = b.listOffsets(req.Body)
	case schema.KeyFetch:
		body = b.fetch(req.Body)
	}
	return codec.EncodeResponse(nil, h, version, body, codec.EncodeOptions{Lenient: true, Dropped: func(path string) {
		b.dropped[schema.APIName(h.APIKey)+" "+unindexed(path)] = true
	}})
}

// apiVersions answers ApiVersions: the broker's ranges.
func (b *broker) apiVersions(unsupported bool) map[string]any {
	code := schema.CodeNone
	if unsupported {
		code = schema.CodeUnsupportedVersion
	}
	var keys []map[string]any
	for _, k := range []int16{schema.KeyProduce, schema.KeyFetch, schema.KeyListOffsets, schema.KeyMetadata, schema.KeyApiVersions, schema.KeyInitProducerId} {
		keys = append(keys, map[string]any{"apiKey": k, "minVersion": advertised[k][0], "maxVersion": advertised[k][1]})
	}
	return map[string]any{"errorCode": code, "apiKeys": keys, "throttleTimeMs": 0}
}

// metadata answers Metadata: this broker as the only one, the leader of
// every partition, and the topics asked for (all when none are named),
// made on first mention as auto.create.topics.enable does.
func (b *broker) metadata(req *tree.Node) map[string]any {
	var names []string
	for _, t := range req.Get("topics").Elems() {
		name, _ := t.Get("name").Value().(string) // null or absent when asked by id
		if name == "" {
			name = b.nameOf(t.Get("topicId"))
		}
		names = append(names, name)
	}
	if len(names) == 0 {
		// Null (v1+) or empty: every topic. (Empty means none from v1,
		// but a client that asked for none ignores topics it did not ask
		// for, so the broker need not tell the versions apart.)
		names = b.names
	}
	var topics []map[string]any
	for _, name := range names {
		t := b.topics[name]
		if t == nil && name != "" {
			t = b.create(name, 1)
		}
		out := map[string]any{"errorCode": schema.CodeNone, "name": name, "isInternal": false,
			"partitions": []map[string]any{}, "topicAuthorizedOperations": -2147483648}
		if t == nil {
			out["errorCode"] = schema.CodeUnknownTopicID
			topics = append(topics, out)
			continue
		}
		out["topicId"] = t.id
		var parts []map[string]any
		for i := range t.logs {
			parts = append(parts, map[string]any{"errorCode": schema.CodeNone, "partitionIndex": i, "leaderId": 1, "leaderEpoch": 0,
				"replicaNodes": []int32{1}, "isrNodes": []int32{1}, "offlineReplicas": []int32{}})
		}
		out["partitions"] = parts
		topics = append(topics, out)
	}
	return map[string]any{
		"throttleTimeMs": 0,
		"brokers":        []map[string]any{{"nodeId": 1, "host": b.host, "port": b.port, "rack": nil}},
		"clusterId":      "kwire-example",
		"controllerId":   1,
		"topics":         topics,
	}
}

// initProducerID answers InitProducerId with a new producer id, as an
// idempotent producer (kgo's default) asks for before producing.
func (b *broker) initProducerID() map[string]any {
	b.nextPID++
	return map[string]any{"throttleTimeMs": 0, "errorCode": schema.CodeNone, "producerId": b.nextPID, "producerEpoch": 0}
}

// produce keeps the records of a Produce request and answers with each
// partition's base offset, or nil when acks is 0 (no answer is wanted).
// Records are kept whole or not at all: a request of Produce v3 or later
// holds record batches only (magic 2), as Kafka requires.
func (b *broker) produce(req *tree.Node) map[string]any {
	var responses []map[string]any
	for _, td := range req.Get("topicData").Elems() {
		name, _ := td.Get("name").Value().(string) // topicId instead from v13
		if name == "" {
			name = b.nameOf(td.Get("topicId"))
		}
		t := b.topics[name]
		var parts []map[string]any
		for _, pd := range td.Get("partitionData").Elems() {
			i := pd.Get("index").Int
			out := map[string]any{"index": i, "errorCode": schema.CodeNone, "baseOffset": -1, "logAppendTimeMs": -1, "logStartOffset": 0}
			switch {
			case t == nil || i < 0 || i >= int64(len(t.logs)):
				out["errorCode"] = schema.CodeUnknownTopicOrPartition
			default:
				log, ok := keep(t.logs[i], pd.Get("records"))
				if !ok {
					out["errorCode"] = schema.CodeInvalidRecord
					break
				}
				out["baseOffset"] = int64(len(t.logs[i]))
				t.logs[i] = log
			}
			parts = append(parts, out)
		}
		resp := map[string]any{"name": name, "partitionResponses": parts}
		if t != nil {
			resp["topicId"] = t.id
		}
		responses = append(responses, resp)
	}
	b.grew.Broadcast()
	if req.Get("acks").Int == 0 {
		return nil
	}
	return map[string]any{"responses": responses, "throttleTimeMs": 0}
}

// keep appends the records a records field holds to log, read from the
// tree as Go values: each record of each batch, decompressed when
// compressed. It returns false, and log as it was, when the field holds
// anything but record batches.
func keep(log []record, records *tree.Node) ([]record, bool) {
	n := len(log)
	for _, batch := range records.Elems() {
		if batch.Get("magic").Value() != int64(2) {
			return log[:n], false
		}
		base := batch.Get("baseTimestamp").Int
		for _, r := range batch.Get("records").Elems() {
			v := r.Value().(map[string]any) // keyed by JSON name, as value JSON shows a record
			// Bytes share the frame's memory (or its decompressed
			// copy's): the broker keeps copies, since it reuses both.
			k := record{Offset: int64(len(log)), Timestamp: base + v["timestampDelta"].(int64),
				Key: bytes.Clone(asBytes(v["key"])), Value: bytes.Clone(asBytes(v["value"]))}
			for _, h := range v["headers"].([]any) {
				h := h.(map[string]any)
				k.Headers = append(k.Headers, [2]string{h["key"].(string), string(asBytes(h["value"]))})
			}
			log = append(log, k)
		}
	}
	return log, true
}

// listOffsets answers ListOffsets: a partition's first offset for the
// timestamp -2 (earliest), else its next offset (-1, latest, and any
// other time, which this broker does not index).
func (b *broker) listOffsets(req *tree.Node) map[string]any {
	var topics []map[string]any
	for _, lt := range req.Get("topics").Elems() {
		name := lt.Get("name").Value().(string)
		t := b.topics[name]
		var parts []map[string]any
		for _, lp := range lt.Get("partitions").Elems() {
			i := lp.Get("partitionIndex").Int
			out := map[string]any{"partitionIndex": i, "errorCode": schema.CodeNone, "timestamp": -1, "offset": 0, "leaderEpoch": 0}
			switch {
			case t == nil || i < 0 || i >= int64(len(t.logs)):
				out["errorCode"] = schema.CodeUnknownTopicOrPartition
			case lp.Get("timestamp").Int != -2:
				out["offset"] = len(t.logs[i])
			}
			parts = append(parts, out)
		}
		topics = append(topics, map[string]any{"name": name, "partitions": parts})
	}
	return map[string]any{"throttleTimeMs": 0, "topics": topics}
}

// fetch answers Fetch with each partition's records from the offset asked,
// in one record batch built from Go values. When there are none anywhere
// it waits for some, up to the request's maxWaitMs (at most five
// seconds). Fetch sessions are not kept: sessionId 0 tells the client so,
// and it asks in full each time.
func (b *broker) fetch(req *tree.Node) map[string]any {
	wait := time.Duration(min(req.Get("maxWaitMs").Int, 5000)) * time.Millisecond
	timer := time.AfterFunc(wait, func() { b.mu.Lock(); b.grew.Broadcast(); b.mu.Unlock() })
	defer timer.Stop()
	for deadline := time.Now().Add(wait); ; b.grew.Wait() {
		body, found := b.fetchNow(req)
		if found || !time.Now().Before(deadline) {
			return body
		}
	}
}

func (b *broker) fetchNow(req *tree.Node) (map[string]any, bool) {
	found := false
	var responses []map[string]any
	for _, ft := range req.Get("topics").Elems() {
		name, _ := ft.Get("topic").Value().(string) // topicId instead from v13
		if name == "" {
			name = b.nameOf(ft.Get("topicId"))
		}
		t := b.topics[name]
		var parts []map[string]any
		for _, fp := range ft.Get("partitions").Elems() {
			i, from := fp.Get("partition").Int, fp.Get("fetchOffset").Int
			out := map[string]any{"partitionIndex": i, "errorCode": schema.CodeNone, "highWatermark": -1, "lastStableOffset": -1,
				"logStartOffset": 0, "abortedTransactions": []any{}, "preferredReadReplica": -1, "records": []byte{}}
			switch {
			case t == nil || i < 0 || i >= int64(len(t.logs)):
				out["errorCode"] = schema.CodeUnknownTopicOrPartition
			case from < 0 || from > int64(len(t.logs[i])):
				out["errorCode"] = schema.CodeOffsetOutOfRange
			default:
				log := t.logs[i]
				out["highWatermark"], out["lastStableOffset"] = len(log), len(log)
				if from < int64(len(log)) {
					out["records"] = batchOf(log[from:])
					found = true
				}
			}
			parts = append(parts, out)
		}
		resp := map[string]any{"topic": name, "partitions": parts}
		if t != nil {
			resp["topicId"] = t.id
		}
		responses = append(responses, resp)
	}
	return map[string]any{"throttleTimeMs": 0, "errorCode": schema.CodeNone, "sessionId": 0, "responses": responses}, found
}

// batchOf is one record batch holding rs, as Go values in the form value
// JSON shows a batch, which the encoder takes for a records field.
func batchOf(rs []record) []map[string]any {
	first, last := rs[0].Timestamp, rs[0].Timestamp
	recs := make([]map[string]any, len(rs))
	for i, r := range rs {
		first, last = min(first, r.Timestamp), max(last, r.Timestamp)
		var hs []map[string]any
		for _, h := range r.Headers {
			hs = append(hs, map[string]any{"key": h[0], "value": []byte(h[1])})
		}
		recs[i] = map[string]any{"offsetDelta": i, "timestamp": r.Timestamp, "key": r.Key, "value": r.Value, "headers": hs}
	}
	return []map[string]any{{"baseOffset": rs[0].Offset, "partitionLeaderEpoch": 0, "magic": 2, "lastOffsetDelta": len(rs) - 1,
		"baseTimestamp": first, "maxTimestamp": last, "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}}
}

func asBytes(v any) []byte { b, _ := v.([]byte); return b }

// nameOf is the name of the topic whose id node n holds, or "".
func (b *broker) nameOf(n *tree.Node) string {
	id, ok := n.Value().([16]byte)
	if !ok {
		return ""
	}
	for name, t := range b.topics {
		if t.id == id {
			return name
		}
	}
	return ""
}

// unindexed drops a path's element indexes: "body.topics.partitions.leaderEpoch".
func unindexed(path string) string {
	out := make([]byte, 0, len(path))
	in := false
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '[':
			in = true
		case c == ']':
			in = false
		case !in:
			out = append(out, c)
		}
	}
	return string(out)
}

// records returns a copy of the records of a topic's partition.
func (b *broker) records(name string, partition int) []record {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t := b.topics[name]; t != nil && partition < len(t.logs) {
		return slices.Clone(t.logs[partition])
	}
	return nil
}

// client is the other end: requests built from Go values, responses
// decoded at the version asked (a response does not say what it answers).
type client struct {
	conn net.Conn
	next int32
}

// The client too writes one body for every version: Lenient drops what a
// version lacks (a topic's name from v13 of Fetch and Produce, its id
// before).
func (c *client) call(apiKey, version int16, body map[string]any) (*codec.Frame, error) {
	c.next++
	at := min(version, schema.ByKey(apiKey).Request.Valid.Hi)
	req, err := codec.Encode(nil, map[string]any{
		"apiKey": apiKey, "apiVersion": at,
		"header": map[string]any{"correlationId": c.next, "clientId": "example"},
		"body":   body,
	}, codec.EncodeOptions{Lenient: true})
	if err != nil {
		return nil, err
	}
	if at != version {
		// A client newer than the codec: its request's version is one the
		// encoder does not know, so it is written over the known one.
		req[6], req[7] = byte(version>>8), byte(version)
	}
	if _, err := c.conn.Write(req); err != nil {
		return nil, err
	}
	if apiKey == schema.KeyProduce && body["acks"] == 0 {
		return nil, nil
	}
	frame, err := wire.ReadFrame(c.conn, nil, 1<<24)
	if err != nil {
		return nil, err
	}
	if apiKey == schema.KeyApiVersions && version > advertised[apiKey][1] {
		version = 0 // KIP-511: the answer to an unknown version is v0
	}
	return codec.Decode(frame, codec.Options{Response: true, APIKey: apiKey, Version: version})
}

// must panics on an error: the example's client expects none.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// A broker answers ApiVersions, Metadata, Produce and Fetch over a
// connection (here the two ends of net.Pipe) at old and new versions with
// the same handlers, keeps the records produced, decoded, and hands them
// back. The client's requests are Go values; its reading of the answers
// shows Value (Go values from a node), Elems, JSON names throughout,
// Lookup's errors, and ErrorCodes.
func Example_broker() {
	b := newBroker("localhost", 9092)
	conn, server := net.Pipe()
	go b.serve(server)
	defer conn.Close()
	c := &client{conn: conn}

	// ApiVersions at a version the broker knows, then at one it does not.
	f := must(c.call(schema.KeyApiVersions, 3, map[string]any{"clientSoftwareName": "example", "clientSoftwareVersion": "1.0"}))
	for _, k := range f.Body.Get("apiKeys").Elems() {
		fmt.Printf("%s v%d-%d\n", schema.APIName(int16(k.Get("apiKey").Int)), k.Get("minVersion").Int, k.Get("maxVersion").Int)
	}
	f = must(c.call(schema.KeyApiVersions, 99, map[string]any{}))
	fmt.Println("ApiVersions v99:", f.ErrorCodes()[0].Name, "at", f.Version, "with", f.Body.Get("apiKeys").Count(), "ranges")

	// Metadata at v0 and v13: one handler, one answer, each version's fields.
	for _, v := range []int16{0, 13} {
		f = must(c.call(schema.KeyMetadata, v, map[string]any{"topics": []map[string]any{{"name": "orders"}}}))
		orders := must(f.Body.Lookup("topics[0]"))
		id := orders.Get("topicId") // nil at v0, which has no topic ids
		fmt.Printf("Metadata v%d: %s, %d partitions, topic id %t, cluster %v\n", v,
			orders.Get("name").Value(), orders.Get("partitions").Count(), id != nil, f.Body.Get("clusterId").Value())
	}
	id := must(f.Root.Lookup("body.topics[0].topicId")).Value().([16]byte)

	// Produce: by name at v3, by topic id at v13, acks 0 at v9 (no answer).
	batch := func(kv ...string) []map[string]any {
		var recs []map[string]any
		for i := 0; i < len(kv); i += 2 {
			recs = append(recs, map[string]any{"offsetDelta": i / 2, "key": []byte(kv[i]), "value": []byte(kv[i+1]),
				"headers": []map[string]any{{"key": "n", "value": []byte(fmt.Sprint(i / 2))}}})
		}
		return []map[string]any{{"baseOffset": 0, "partitionLeaderEpoch": -1, "magic": 2, "lastOffsetDelta": len(recs) - 1,
			"baseTimestamp": 1700000000000, "maxTimestamp": 1700000000000, "producerId": -1, "producerEpoch": -1, "baseSequence": -1,
			"records": recs}}
	}
	f = must(c.call(schema.KeyProduce, 3, map[string]any{"acks": -1, "timeoutMs": 1000, "topicData": []map[string]any{
		{"name": "orders", "partitionData": []map[string]any{{"index": 0, "records": batch("k1", "espresso", "k2", "beans")}, {"index": 7, "records": batch("k3", "lost")}}},
	}}))
	for _, e := range f.ErrorCodes() {
		fmt.Println("Produce v3:", e.Path, e.Name)
	}
	f = must(c.call(schema.KeyProduce, 13, map[string]any{"acks": 1, "timeoutMs": 1000, "topicData": []map[string]any{
		{"topicId": id, "partitionData": []map[string]any{{"index": 0, "records": batch("k4", "milk")}}},
	}}))
	fmt.Println("Produce v13: base offset", must(f.Root.Lookup("body.responses[0].partitionResponses[0].baseOffset")).Value())
	_, err := f.Root.Lookup("body.responses[0].partitions[0].baseOffset")
	fmt.Println(err)
	must(c.call(schema.KeyProduce, 9, map[string]any{"acks": 0, "timeoutMs": 1000, "topicData": []map[string]any{
		{"name": "orders", "partitionData": []map[string]any{{"index": 1, "records": batch("k5", "sugar")}}},
	}}))
	must(c.call(schema.KeyApiVersions, 0, map[string]any{})) // after the acks=0 Produce: the broker has read it

	for p := range 2 {
		for _, r := range b.records("orders", p) {
			fmt.Printf("orders/%d@%d %s=%s %v\n", p, r.Offset, r.Key, r.Value, r.Headers)
		}
	}

	// Fetch from offset 1 at v4 and v18: the records come back as a batch.
	for _, v := range []int16{4, 18} {
		f = must(c.call(schema.KeyFetch, v, map[string]any{"maxWaitMs": 0, "minBytes": 1, "maxBytes": 1 << 20, "topics": []map[string]any{
			{"topic": "orders", "topicId": id, "partitions": []map[string]any{{"partition": 0, "fetchOffset": 1, "partitionMaxBytes": 1 << 20}}},
		}}))
		p := must(f.Root.Lookup("body.responses[0].partitions[0]"))
		fmt.Printf("Fetch v%d: high watermark %d:", v, p.Get("highWatermark").Int)
		for _, batch := range p.Get("records").Elems() {
			for _, r := range batch.Get("records").Elems() {
				fmt.Printf(" %d %s=%s", batch.Get("baseOffset").Int+r.Get("offsetDelta").Int, r.Get("key").Raw, r.Get("value").Raw)
			}
		}
		fmt.Println()
	}
	b.mu.Lock()
	var dropped []string
	for d := range b.dropped {
		if strings.HasPrefix(d, "Metadata") {
			dropped = append(dropped, strings.TrimPrefix(d, "Metadata body."))
		}
	}
	sort.Strings(dropped)
	fmt.Println("left out of some Metadata answer:", strings.Join(dropped, ", "))
	fmt.Println("hung up:", errors.Join(b.errs...))
	b.mu.Unlock()
	// Output:
	// Produce v3-13
	// Fetch v4-18
	// ListOffsets v1-11
	// Metadata v0-13
	// ApiVersions v0-5
	// InitProducerId v0-6
	// ApiVersions v99: UNSUPPORTED_VERSION at 0 with 6 ranges
	// Metadata v0: orders, 2 partitions, topic id false, cluster <nil>
	// Metadata v13: orders, 2 partitions, topic id true, cluster kwire-example
	// Produce v3: body.responses[0].partitionResponses[0].errorCode NONE
	// Produce v3: body.responses[0].partitionResponses[1].errorCode UNKNOWN_TOPIC_OR_PARTITION
	// Produce v13: base offset 2
	// tree: path "body.responses[0].partitions[0].baseOffset": no "partitions" (there: topicId, partitionResponses) after body.responses[0]
	// orders/0@0 k1=espresso [[n 0]]
	// orders/0@1 k2=beans [[n 1]]
	// orders/0@2 k4=milk [[n 0]]
	// orders/1@0 k5=sugar [[n 0]]
	// Fetch v4: high watermark 3: 1 k2=beans 2 k4=milk
	// Fetch v18: high watermark 3: 1 k2=beans 2 k4=milk
	// left out of some Metadata answer: brokers.rack, clusterId, controllerId, throttleTimeMs, topics.isInternal, topics.partitions.leaderEpoch, topics.partitions.offlineReplicas, topics.topicAuthorizedOperations, topics.topicId
	// hung up: <nil>
}
