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

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/codec/wire"
)

// broker is a small Kafka broker kept in memory, written from go doc
// alone: it answers ApiVersions, Metadata, InitProducerId and Produce at
// every version it advertises, and keeps the records it is sent, decoded.
// Its handlers know no versions: each builds one response holding every
// field any version has, and the encoder (EncodeOptions.Lenient) drops
// what the version the client asked at lacks, as kmsg does. kcat and
// franz-go's kgo produce to it (TestBrokerExampleClients).
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
	arrived chan struct{}    // told (without blocking) when records arrive
}

// topic is one topic: its id and its partitions' logs.
type topic struct {
	id   [16]byte
	logs [][]record
}

// record is a record as the broker keeps it.
type record struct {
	Offset     int64
	Key, Value []byte
	Headers    []string // "key=value"
}

// advertised are the APIs the broker answers and their version ranges:
// every version the codec knows, but Produce from v3, the first with
// record batches (Kafka 4 takes no older).
var advertised = map[int16][2]int16{
	schema.KeyApiVersions:    {0, schema.ByKey(schema.KeyApiVersions).Request.Valid.Hi},
	schema.KeyMetadata:       {0, schema.ByKey(schema.KeyMetadata).Request.Valid.Hi},
	schema.KeyInitProducerId: {0, schema.ByKey(schema.KeyInitProducerId).Request.Valid.Hi},
	schema.KeyProduce:        {3, schema.ByKey(schema.KeyProduce).Request.Valid.Hi},
}

func newBroker(host string, port int32) *broker {
	b := &broker{host: host, port: port, topics: map[string]*topic{}, dropped: map[string]bool{},
		asked: map[[2]int16]int{}, nextPID: 1000, arrived: make(chan struct{}, 1)}
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
	for _, k := range []int16{schema.KeyProduce, schema.KeyMetadata, schema.KeyApiVersions, schema.KeyInitProducerId} {
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
		names = b.names // null (v1+) or empty (v0): every topic
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
			if t == nil || i < 0 || i >= int64(len(t.logs)) {
				out["errorCode"] = schema.CodeUnknownTopicOrPartition
			} else {
				out["baseOffset"] = int64(len(t.logs[i]))
				t.logs[i] = keep(t.logs[i], pd.Get("records"))
			}
			parts = append(parts, out)
		}
		resp := map[string]any{"name": name, "partitionResponses": parts}
		if t != nil {
			resp["topicId"] = t.id
		}
		responses = append(responses, resp)
	}
	select {
	case b.arrived <- struct{}{}:
	default:
	}
	if req.Get("acks").Int == 0 {
		return nil
	}
	return map[string]any{"responses": responses, "throttleTimeMs": 0}
}

// keep appends the records a records field holds to log, as Go values:
// each record of a batch (decompressed when compressed), and each message
// of an older message set (what librdkafka sends to a broker that does
// not advertise Fetch v4, the mark of the record-batch format), the
// messages inside a compressed wrapper included.
func keep(log []record, records *tree.Node) []record {
	for _, e := range records.Elems() {
		if batch := e.Get("records"); batch != nil {
			for _, r := range batch.Elems() {
				log = append(log, kept(r, int64(len(log))))
			}
		} else if wrapped := e.Get("messages"); wrapped != nil {
			log = keep(log, wrapped)
		} else {
			log = append(log, kept(e, int64(len(log))))
		}
	}
	return log
}

// kept is a record (or message) node as the broker keeps it.
func kept(n *tree.Node, offset int64) record {
	v := n.Value().(map[string]any) // keyed by JSON name, as value JSON shows it
	// Bytes share the frame's memory (or its decompressed copy's): the
	// broker keeps copies, since it reuses the frame's buffer.
	r := record{Offset: offset, Key: bytes.Clone(asBytes(v["key"])), Value: bytes.Clone(asBytes(v["value"]))}
	hs, _ := v["headers"].([]any) // none in a message
	for _, h := range hs {
		h := h.(map[string]any)
		r.Headers = append(r.Headers, h["key"].(string)+"="+string(asBytes(h["value"])))
	}
	return r
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
	var s strings.Builder
	in := false
	for _, c := range path {
		switch {
		case c == '[':
			in = true
		case c == ']':
			in = false
		case !in:
			s.WriteRune(c)
		}
	}
	return s.String()
}

// records returns the records of a topic's partition, and the dropped
// fields, as the broker has them now.
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

func (c *client) call(apiKey, version int16, body map[string]any) (*codec.Frame, error) {
	c.next++
	at := min(version, schema.ByKey(apiKey).Request.Valid.Hi)
	req, err := codec.Encode(nil, map[string]any{
		"apiKey": apiKey, "apiVersion": at,
		"header": map[string]any{"correlationId": c.next, "clientId": "example"},
		"body":   body,
	}, codec.EncodeOptions{})
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

// A broker answers ApiVersions, Metadata and Produce over a connection
// (here the two ends of net.Pipe) at old and new versions with the same
// handlers, and keeps the records produced, decoded. The client's
// requests are Go values; its reading of the answers shows Value (Go
// values from a node), Elems, JSON names throughout, Lookup's errors,
// and ErrorCodes.
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
		orders := f.Body.Get("topics").Elem(0)
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
	// Metadata v0-13
	// ApiVersions v0-5
	// InitProducerId v0-6
	// ApiVersions v99: UNSUPPORTED_VERSION at 0 with 4 ranges
	// Metadata v0: orders, 2 partitions, topic id false, cluster <nil>
	// Metadata v13: orders, 2 partitions, topic id true, cluster kwire-example
	// Produce v3: body.responses[0].partitionResponses[0].errorCode NONE
	// Produce v3: body.responses[0].partitionResponses[1].errorCode UNKNOWN_TOPIC_OR_PARTITION
	// Produce v13: base offset 2
	// tree: path "body.responses[0].partitions[0].baseOffset": no "partitions" (there: topicId, partitionResponses) after body.responses[0]
	// orders/0@0 k1=espresso [n=0]
	// orders/0@1 k2=beans [n=1]
	// orders/0@2 k4=milk [n=0]
	// orders/1@0 k5=sugar [n=0]
	// left out of some Metadata answer: brokers.rack, clusterId, controllerId, throttleTimeMs, topics.isInternal, topics.partitions.leaderEpoch, topics.partitions.offlineReplicas, topics.topicAuthorizedOperations, topics.topicId
	// hung up: <nil>
}
