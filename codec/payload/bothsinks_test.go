package payload_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// The payload hook through both of the codec's sinks, from the outside:
// codec's own differential test (bothPaths, FuzzFastPath) cannot import
// codec/payload, so frames whose record keys and values it decodes are
// held here to the same agreement, through the public API alone:
// Decoder.Decode (the tree, its JSON written by Frame.AppendJSON) against
// Decoder.AppendJSON and Decoder.WriteJSON (no tree). And the hook itself
// is watched: each call the tree's walk makes (with a slab, nodes wanted)
// must write the same members, spend the same budget and say the same
// warnings as the tree-less walk's call on the same key or value, and the
// nodes it returns must tile the payload's bytes.

// sinkAvsc is the Avro schema of id 1: every kind of Avro type.
const sinkAvsc = `{"type":"record","name":"Order","namespace":"shop","fields":[
 {"name":"id","type":"long"},{"name":"user","type":"string"},
 {"name":"paid","type":"boolean"},{"name":"amount","type":"double"},{"name":"rate","type":"float"},
 {"name":"raw","type":"bytes"},{"name":"code","type":{"type":"fixed","name":"Code","size":2}},
 {"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","PAID","SENT"]}},
 {"name":"tags","type":{"type":"array","items":["null","long","string"]}},
 {"name":"attrs","type":{"type":"map","values":"int"}},
 {"name":"day","type":{"type":"int","logicalType":"date"}},
 {"name":"next","type":["null","Order"]}]}`

// sinkProto is the Protobuf schema of id 3.
const sinkProto = `syntax = "proto3";
package shop;
import "google/protobuf/timestamp.proto";
import "google/protobuf/any.proto";
message Order {
  int64 id = 1;
  Item item = 2;
  repeated sint32 qty = 3;
  map<string, Item> items = 4;
  google.protobuf.Timestamp at = 5;
  google.protobuf.Any extra = 6;
  oneof c { string email = 7; double score = 8; }
  enum E { Z = 0; O = 1; }
  E e = 10;
  message Item { string sku = 1; Order back = 2; }
}
message Refund { int64 order_id = 1; string reason = 2; }
`

// sinkSource holds an Avro (1), a Protobuf (3) and a JSON Schema (4)
// schema, an Avro schema that does not parse (5) and one of an unknown
// type (6); with topics, the topic "orders" has an Avro schema for its
// unframed values and a JSON Schema for its keys.
type sinkSource struct{ topics bool }

func (sinkSource) SchemaByID(id int) (*payload.Schema, error) {
	switch id {
	case 1:
		return &payload.Schema{Text: sinkAvsc}, nil
	case 3:
		return &payload.Schema{Type: payload.TypeProtobuf, Text: sinkProto}, nil
	case 4:
		return &payload.Schema{Type: payload.TypeJSON, Text: `{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}}}`}, nil
	case 5:
		return &payload.Schema{Text: `{"type":"record","name":"R","fields":[{"name":"s","type":"strin"}]}`}, nil
	case 6:
		return &payload.Schema{Type: "XML", Text: `<a/>`}, nil
	}
	return nil, nil
}

func (s sinkSource) SchemaFor(topic string, key bool) (*payload.Schema, error) {
	if !s.topics || topic != "orders" {
		return nil, nil
	}
	if key {
		return &payload.Schema{Type: payload.TypeJSON, Text: `{"type":"object"}`}, nil
	}
	return &payload.Schema{Text: `{"type":"record","name":"V","fields":[{"name":"n","type":"long"},{"name":"s","type":"string"}]}`}, nil
}

// sinkDecoders are the payload decoders a fuzz input picks from (mode&3):
// schemas by id; validating JSON Schema, with a small MaxDepth; by id and
// by topic; no source.
var sinkDecoders = []*payload.Decoder{
	payload.NewDecoder(sinkSource{}, payload.Config{}),
	payload.NewDecoder(sinkSource{}, payload.Config{Validate: true, MaxDepth: 8}),
	payload.NewDecoder(sinkSource{topics: true}, payload.Config{}),
	payload.NewDecoder(nil, payload.Config{}),
}

// sinkOptions are the options a fuzz input reads its frame with. mode:
// bits 0-1 the payload decoder, bit 2 Int64Strings, bit 4 the bytes are a
// records field alone (Options.Data "records"), bit 5 (FuzzPayloadBothSinks)
// the bytes are a record's value, the harness writing the records field
// around them; bit 6 Kafka's internal topics: a topic id names one
// (internalTopicName), and (FuzzPayloadBothSinks, with bit 5) the
// harness writes the record into a Fetch response of one; bit 7
// InternalTopicsAsBytes, their keys and values read by the payload
// decoder rather than the walk's own reader; limit, when not 0, is
// MaxNodes, or MaxWork when bit 3 is set. A response whose key or
// version is codec.Any is guessed; so is a frame that is not said to be
// a response and whose key is Any (Options.Auto: a request, or else the
// likeliest response).
func sinkOptions(response bool, key, version int16, mode uint8, limit uint16) (codec.Options, *payload.Decoder) {
	d := sinkDecoders[mode&3]
	o := codec.Options{Response: response, APIKey: key, Version: version, Int64Strings: mode&4 != 0,
		TopicNames: func([16]byte) string { return "orders" }}
	if !response && key == codec.Any {
		o = codec.Options{Auto: true, Int64Strings: mode&4 != 0, TopicNames: o.TopicNames}
	}
	if mode&64 != 0 {
		o.TopicNames = internalTopicName
	}
	if mode&16 != 0 {
		o = codec.Options{Data: "records", Int64Strings: mode&4 != 0}
	}
	o.InternalTopicsAsBytes = mode&128 != 0
	o.MaxNodes, o.MaxWork = 1<<16, 1<<22
	switch {
	case limit == 0:
	case mode&8 != 0:
		o.MaxWork = int(limit)
	default:
		o.MaxNodes = int(limit)
	}
	return o, d
}

// hookCall is what one call of the payload hook was handed, wrote and
// spent.
type hookCall struct {
	Key                  bool
	Buf, Start, End      int
	Topic, Path          string
	Members              string
	Nodes, Work          int // the budget spent before the call
	SpentNodes, SpentWrk int // and by it
	Warnings             []codec.Warning
}

// hookLog records the calls of a payload decoder's Decode, and checks
// the nodes each call with a slab returns.
type hookLog struct {
	t     testing.TB
	d     *payload.Decoder
	calls []hookCall
}

func (h *hookLog) decode(dst []byte, p *codec.PayloadIn) ([]byte, []*tree.Node) {
	c := hookCall{Key: p.Key, Buf: p.Buf, Start: p.Start, End: p.End, Topic: p.Topic, Path: p.Path(), Nodes: p.Budget.Nodes, Work: p.Budget.Work}
	nw := 0
	if p.Warnings != nil {
		nw = len(p.Warnings.List)
	}
	at := len(dst)
	out, nodes := h.d.Decode(dst, p)
	c.Members = string(out[at:])
	c.SpentNodes, c.SpentWrk = p.Budget.Nodes-c.Nodes, p.Budget.Work-c.Work
	if p.Warnings != nil && len(p.Warnings.List) > nw {
		c.Warnings = append(c.Warnings, p.Warnings.List[nw:]...)
	}
	if p.Slab != nil {
		tiles(h.t, nodes, p.Buf, p.Start, p.End, c.Path)
	}
	h.calls = append(h.calls, c)
	return out, nodes
}

// tiles fails t unless nodes tile [lo, hi) of buffer buf: each starts
// where the one before it ended, the last ends at hi, and the children of
// each tile it after its prefix. Every byte of a key or value whose
// payload has nodes is in one of them.
func tiles(t testing.TB, nodes []*tree.Node, buf, lo, hi int, where string) {
	t.Helper()
	if len(nodes) == 0 {
		return
	}
	pos := lo
	for _, n := range nodes {
		if n.Buf != buf || n.Start != pos || n.PrefixEnd < n.Start || n.End < n.PrefixEnd {
			t.Fatalf("%s: node %s (%s) [%d,%d) prefix to %d, buffer %d: want it to start at %d of buffer %d", where, n.Name, n.Type, n.Start, n.End, n.PrefixEnd, n.Buf, pos, buf)
		}
		pos = n.End
		tiles(t, n.Children, buf, n.PrefixEnd, n.End, where)
	}
	if pos != hi {
		t.Fatalf("%s: the nodes end at %d, the payload at %d: bytes with no node", where, pos, hi)
	}
}

// payloadBothSinks decodes b with the tree and without it and checks they
// agree: the JSON (Frame.AppendJSON, Decoder.AppendJSON and WriteJSON),
// the error (text: offset and path), the warnings, the budget spent, the
// frame's API and version, its error codes, and each payload hook call.
func payloadBothSinks(t testing.TB, b []byte, o codec.Options, d *payload.Decoder) {
	t.Helper()
	th, jh, rh := &hookLog{t: t, d: d}, &hookLog{t: t, d: d}, &hookLog{t: t, d: d}
	to, jo := o, o
	to.Payload, jo.Payload = th.decode, jh.decode
	var tdec, jdec, wdec codec.Decoder
	f, terr := tdec.Decode(b, to)
	treeCalls := th.calls
	th.calls = nil
	tjs := f.AppendJSON(nil) // the walk again (a frame with records is not plain): no slab
	if !json.Valid(tjs) {
		t.Fatalf("the tree's JSON is invalid (%v): %s", terr, tjs)
	}
	jjs, jf, jerr := jdec.AppendJSON(nil, b, jo)
	if string(tjs) != string(jjs) {
		t.Fatalf("JSON differs (%v)\ntree %s\njson %s", terr, tjs, jjs)
	}
	if fmt.Sprint(terr) != fmt.Sprint(jerr) {
		t.Fatalf("errors differ\ntree %v\njson %v", terr, jerr)
	}
	if fmt.Sprint(f.Warnings) != fmt.Sprint(jf.Warnings) {
		t.Fatalf("warnings differ\ntree %v\njson %v", f.Warnings, jf.Warnings)
	}
	if terr == nil {
		if f.Spent != jf.Spent {
			t.Fatalf("spent differs: tree %+v, json %+v", f.Spent, jf.Spent)
		}
		if f.APIKey != jf.APIKey || f.Version != jf.Version || f.CorrelationID != jf.CorrelationID {
			t.Fatalf("frames differ: tree %d v%d #%d, json %d v%d #%d", f.APIKey, f.Version, f.CorrelationID, jf.APIKey, jf.Version, jf.CorrelationID)
		}
		var tc, jc []string
		for _, c := range f.ErrorCodes() {
			if c.Code != 0 {
				tc = append(tc, fmt.Sprint(c.Path, c.Code))
			}
		}
		for _, c := range jf.ErrorCodes() {
			jc = append(jc, fmt.Sprint(c.Path, c.Code))
		}
		if fmt.Sprint(tc) != fmt.Sprint(jc) {
			t.Fatalf("error codes differ\ntree %v\njson %v", tc, jc)
		}
	}
	ro := o
	ro.Payload = rh.decode
	var w bytes.Buffer
	if _, err := wdec.WriteJSON(&w, b, ro); fmt.Sprint(err) != fmt.Sprint(jerr) || w.String() != string(jjs) {
		t.Fatalf("WriteJSON differs from AppendJSON (%v, %v)\nwrite  %s\nappend %s", err, jerr, w.String(), jjs)
	}
	// The hook's calls: the tree's with a slab, its JSON's and the
	// tree-less walk's without. A guessed frame is compared too: the
	// readings a guess ranks (guessResponses) are walked without records
	// (Options.raw: nothing nested), so they never call the hook, and
	// both paths make the same readings through codec's read (a request
	// first with Auto, dropped when it fails; the answer, or the reading
	// shown when nothing fits), calling the hook alike. Frame.AppendJSON
	// walks again only the reading kept, the last read makes: its calls
	// are the last of Decode's.
	for name, calls := range map[string][]hookCall{"Frame.AppendJSON": th.calls, "Decoder.AppendJSON": jh.calls} {
		tree := treeCalls
		if name == "Frame.AppendJSON" && o.Auto && len(calls) < len(tree) {
			tree = tree[len(tree)-len(calls):]
		}
		if len(calls) != len(tree) {
			t.Fatalf("%s called the payload hook %d times, Decode %d", name, len(calls), len(tree))
		}
		for i := range calls {
			tc, jc := tree[i], calls[i]
			if name == "Frame.AppendJSON" {
				tc.Warnings = nil // said once, by Decode: the walk again is quiet
			}
			if fmt.Sprintf("%+v", tc) != fmt.Sprintf("%+v", jc) {
				t.Fatalf("payload hook call %d differs\nDecode  %+v\n%s %+v", i, tc, name, jc)
			}
		}
	}
}

// sinkPayloads are record keys and values: every format the registry
// frames, text and JSON, and hostile ones.
func sinkPayloads(t testing.TB) (good, bad [][]byte) {
	c, err := goavro.NewCodec(sinkAvsc)
	if err != nil {
		t.Fatal(err)
	}
	order := map[string]any{"id": int64(1042), "user": "ana", "paid": true, "amount": 12.5, "rate": float32(0.25),
		"raw": []byte{0, 0xff}, "code": []byte("ab"), "state": "PAID",
		"tags":  []any{nil, goavro.Union("long", int64(7)), goavro.Union("string", "x")},
		"attrs": map[string]any{"k": int32(1)}, "day": int32(20000), "next": nil}
	nested := map[string]any{}
	for k, v := range order {
		nested[k] = v
	}
	nested["next"] = goavro.Union("shop.Order", order)
	avro1, err := c.BinaryFromNative(nil, nested)
	if err != nil {
		t.Fatal(err)
	}
	framed := func(id byte, data ...byte) []byte { return append([]byte{0, 0, 0, 0, id}, data...) }
	order3 := []byte{0x08, 0x2a, 0x12, 0x03, 0x0a, 0x01, 'A', 0x1a, 0x02, 0x02, 0x03}
	good = [][]byte{
		framed(1, avro1...),
		framed(3, append([]byte{0}, order3...)...),                    // Order: the index list [0] as one 0
		framed(3, 2, 2, 0x08, 0x07, 0x12, 0x02, 'o', 'k'),             // Refund: indexes [1]
		framed(3, 1, 0, 0x08, 0x07),                                   // unsigned-varint indexes
		framed(3, order3...),                                          // no index list (kafkajs)
		framed(4, []byte(`{"id": 1, "tags": ["a", "b"]}`)...),         // JSON Schema
		[]byte(`{"order": 1042, "item": "espresso beans", "qty": 2}`), // plain JSON
		[]byte("order-1042"),
		{2, 6, 'a', 'n', 'a'}, // the topic's Avro schema, unframed
	}
	bad = [][]byte{
		framed(99, 1, 2, 3),                   // no such schema
		framed(5, 1, 2),                       // a schema that does not parse
		framed(6, 1),                          // a schema of no known type
		framed(1, avro1[:len(avro1)/2]...),    // Avro cut
		framed(1, append(avro1, 9)...),        // a byte after the value
		framed(3, 0x7f, 0x7f, 0x7f),           // indexes that name no message
		framed(3, 0, 0x12, 0x09, 0x0a),        // a length past the end
		framed(4, []byte(`{"tags": [1]}`)...), // does not match the schema
		framed(4, []byte(`{"id":`)...),        // not JSON
		framed(1),                             // the framing alone
		[]byte(strings.Repeat("[", 40) + strings.Repeat("]", 40)),                     // deeper than MaxDepth
		framed(4, []byte(strings.Repeat(`{"a":`, 20)+"1"+strings.Repeat("}", 20))...), // deep JSON Schema data
	}
	return good, bad
}

// sinkFrames are frames whose records carry kv's keys and values: a
// records field alone, Produce v2 (a magic 1 message set), v3 and v9, the
// batch gzip'd for v3, and Fetch v4 and v13 (topics by id) responses.
func sinkFrames(t testing.TB, kv [][2][]byte) []struct {
	b                 []byte
	response, records bool
	key, version      int16
} {
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}
	}
	var recs, msgs []any
	for i, x := range kv {
		recs = append(recs, map[string]any{"attributes": 0, "timestampDelta": 0, "offsetDelta": i, "key": part(x[0]), "value": part(x[1]), "headers": []any{}})
		msgs = append(msgs, map[string]any{"offset": i, "magic": 1, "attributes": map[string]any{"compression": "none", "timestampType": "CreateTime"},
			"timestamp": 0, "key": part(x[0]), "value": part(x[1])})
	}
	batch := func(compression string) []any {
		return []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
			"attributes": map[string]any{"compression": compression}, "lastOffsetDelta": len(kv) - 1, "baseTimestamp": 0, "maxTimestamp": 0,
			"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}}
	}
	encode := func(v any) []byte {
		b, err := codec.Encode(nil, v, codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	type frame = struct {
		b                 []byte
		response, records bool
		key, version      int16
	}
	out := []frame{{b: encode(map[string]any{"data": "records", "value": batch("none")}), records: true}}
	for _, c := range []struct {
		key, version int16
		response     bool
		entries      []any
	}{
		{0, 2, false, msgs}, {0, 3, false, batch("gzip")}, {0, 9, false, batch("none")},
		{1, 4, true, batch("none")}, {1, 13, true, batch("none")},
	} {
		ex := codec.Example(schema.ByKey(c.key), c.version, c.response)
		setRecords(ex, c.entries)
		out = append(out, frame{b: encode(ex), response: c.response, key: c.key, version: c.version})
	}
	return out
}

// setRecords sets every "records" field in the example value v to rb.
func setRecords(v any, rb []any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "records" {
				x[k] = rb
				continue
			}
			setRecords(e, rb)
		}
	case []any:
		for _, e := range x {
			setRecords(e, rb)
		}
	}
}

// keyedValues pairs each payload of good as a record's value with a key:
// every third another of them, the rest none (null).
func keyedValues(good [][]byte) [][2][]byte {
	var kv [][2][]byte
	for i, v := range good {
		var k []byte
		if i%3 == 0 {
			k = good[(i+5)%len(good)]
		}
		kv = append(kv, [2][]byte{k, v})
	}
	return kv
}

// FuzzPayloadBothSinks: frames whose record keys and values the payload
// hook decodes (Avro, Protobuf, JSON Schema through the registry's
// framing, the topic's schemas, text, JSON) read the same through the
// tree and without it, under limits the input picks, and the hook's nodes
// cover every byte of each key and value they describe.
func FuzzPayloadBothSinks(f *testing.F) {
	good, bad := sinkPayloads(f)
	kv := keyedValues(good)
	for _, fr := range sinkFrames(f, kv) {
		mode := uint8(0)
		if fr.records {
			mode = 16
		}
		for _, m := range []uint8{0, 1, 2, 3, 4} {
			f.Add(fr.b, fr.response, fr.key, fr.version, mode|m, uint16(0))
		}
		f.Add(fr.b, fr.response, fr.key, fr.version, mode, uint16(200))
		f.Add(fr.b, fr.response, fr.key, fr.version, mode|8, uint16(400))
		if !fr.records {
			// Guessed: a response's API or version, or (Auto) whether
			// it is a request at all.
			f.Add(fr.b, fr.response, fr.key, int16(codec.Any), mode, uint16(0))
			f.Add(fr.b, false, int16(codec.Any), int16(0), mode|1, uint16(0))
		}
	}
	// Hostile payloads, a few to a frame, each with a good one beside.
	for i, v := range bad {
		kv := [][2][]byte{{v, good[i%len(good)]}, {nil, v}}
		for j, fr := range sinkFrames(f, kv) {
			if j%2 == i%2 {
				mode := uint8(i % 4)
				if fr.records {
					mode |= 16
				}
				f.Add(fr.b, fr.response, fr.key, fr.version, mode, uint16(0))
			}
		}
	}
	// Payload bytes alone (mode bit 5), framed by the harness.
	for _, p := range append(good, bad...) {
		f.Add(p, false, int16(0), int16(0), uint8(32), uint16(0))
		f.Add(p, false, int16(0), int16(0), uint8(32|2), uint16(0))
	}
	// Kafka's internal topics (mode bit 6): their segments' batches in
	// Fetch responses (by name; by id, TopicNames naming the topic), read
	// by the walk's own reader and (bit 7) as bytes by the payload
	// decoder, whole and under limits; and each record's key and value
	// alone (with bit 5), the harness writing the frame around them.
	for i, seg := range internalSegments(f) {
		for _, fr := range internalFrames(f, seg.topic, seg.log) {
			for _, m := range []uint8{64, 64 | 4, 64 | 128, 64 | 128 | 2} {
				f.Add(fr.b, true, int16(1), fr.version, m|uint8(i&1), uint16(0))
			}
			f.Add(fr.b, true, int16(1), fr.version, uint8(64|i&3), uint16(60+40*i))
			f.Add(fr.b, true, int16(1), fr.version, uint8(64|8|128), uint16(200))
		}
		for j, r := range seg.records {
			kl := int16(-1) // a null key
			if r[0] != nil {
				kl = int16(len(r[0]))
			}
			v := append(append([]byte(nil), r[0]...), r[1]...)
			f.Add(v, false, int16(i), kl, uint8(32|64|j&3), uint16(0))
			f.Add(v, false, int16(i), kl, uint8(32|64|128|2), uint16(0))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, response bool, key, version int16, mode uint8, limit uint16) {
		o, d := sinkOptions(response, key, version, mode, limit)
		if mode&96 == 96 {
			// b is a record's key (its first version bytes; none, a
			// null key, when version is negative) and value, in a
			// Fetch response of the internal topic key picks.
			topics := schema.InternalTopics()
			topic := topics[int(uint16(key))%len(topics)].Name
			var k []byte
			if version >= 0 {
				n := min(int(version), len(b))
				k, b = b[:n:n], b[n:]
			}
			b = internalFetch(t, topic, k, b)
			o.Data, o.APIKey, o.Version, o.Response = "", 1, 12, true
		} else if mode&32 != 0 {
			// b is a record's value, and the record's key too when it
			// is short, in a records field the harness writes: every
			// mutation reaches the payload decoder, the lengths and the
			// CRC around it right.
			var k []byte
			if len(b) < 16 {
				k = b
			}
			b = recordsField(t, k, b)
			o.Data, o.APIKey, o.Version, o.Response = "records", 0, 0, false
		}
		payloadBothSinks(t, b, o, d)
	})
}

// recordsField is a records field of one batch of one record with key
// and value (nil: null), as Encode writes it.
func recordsField(t testing.TB, key, value []byte) []byte {
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}
	}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": "none"}, "lastOffsetDelta": 0, "baseTimestamp": 0, "maxTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []any{map[string]any{"attributes": 0, "timestampDelta": 0,
			"offsetDelta": 0, "key": part(key), "value": part(value), "headers": []any{}}}}}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// internalTopicName is Options.TopicNames naming ids Kafka's internal
// topics (fuzz mode bit 6): the id's last byte picks one.
func internalTopicName(id [16]byte) string {
	topics := schema.InternalTopics()
	return topics[int(id[15])%len(topics)].Name
}

// internalSegment is an internal topic's segment from the storage
// testdata (a broker's own records): its batches, and each record's key
// and value (nil: null).
type internalSegment struct {
	topic   string
	log     []byte
	records [][2][]byte
}

// internalSegments reads the segments of every internal topic the
// storage testdata holds, in schema.InternalTopics' order.
func internalSegments(t testing.TB) []internalSegment {
	var out []internalSegment
	for _, it := range schema.InternalTopics() {
		dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "storage", "logdir", it.Name+"-*", "00000000000000000000.log"))
		if err != nil || len(dirs) == 0 {
			t.Fatalf("no segment of %s in the storage testdata (%v)", it.Name, err)
		}
		log, err := os.ReadFile(dirs[0])
		if err != nil {
			t.Fatal(err)
		}
		seg := internalSegment{topic: it.Name, log: log}
		for b := log; len(b) >= 12; {
			var rb kmsg.RecordBatch
			if err := rb.ReadFrom(b); err != nil {
				t.Fatalf("%s: %v", it.Name, err)
			}
			b = b[min(len(b), 12+int(rb.Length)):]
			if rb.Attributes&7 != 0 {
				t.Fatalf("%s: a compressed batch", it.Name)
			}
			recs := rb.Records
			for i := int32(0); i < rb.NumRecords && len(recs) > 0; i++ {
				var r kmsg.Record
				if err := r.ReadFrom(recs); err != nil {
					t.Fatalf("%s: %v", it.Name, err)
				}
				_, n := binary.Varint(recs)
				recs = recs[min(len(recs), n+int(r.Length)):]
				seg.records = append(seg.records, [2][]byte{r.Key, r.Value})
			}
		}
		if len(seg.records) == 0 {
			t.Fatalf("%s: no records", it.Name)
		}
		out = append(out, seg)
	}
	return out
}

// internalFrames are Fetch responses carrying batches (records field
// bytes) of topic: v4 and v12 by its name, v13 by an id internalTopicName
// names it by.
func internalFrames(t testing.TB, topic string, batches []byte) []struct {
	b       []byte
	version int16
} {
	var id [16]byte
	for i, it := range schema.InternalTopics() {
		if it.Name == topic {
			id[15] = byte(i)
		}
	}
	var out []struct {
		b       []byte
		version int16
	}
	for _, v := range []int16{4, 12, 13} {
		ex := codec.Example(schema.ByKey(1), v, true)
		setField(ex, "records", base64.StdEncoding.EncodeToString(batches))
		setField(ex, "topic", topic)
		setField(ex, "topicId", base64.RawURLEncoding.EncodeToString(id[:]))
		b, err := codec.Encode(nil, ex, codec.EncodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, struct {
			b       []byte
			version int16
		}{b, v})
	}
	return out
}

// internalFetch is a Fetch v12 response of topic holding one batch of one
// record with key and value (nil: null).
func internalFetch(t testing.TB, topic string, key, value []byte) []byte {
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return map[string]any{"base64": base64.StdEncoding.EncodeToString(b)}
	}
	ex := codec.Example(schema.ByKey(1), 12, true)
	setRecords(ex, []any{map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes": map[string]any{"compression": "none"}, "lastOffsetDelta": 0, "baseTimestamp": 0, "maxTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []any{map[string]any{"attributes": 0, "timestampDelta": 0,
			"offsetDelta": 0, "key": part(key), "value": part(value), "headers": []any{}}}}})
	setField(ex, "topic", topic)
	b, err := codec.Encode(nil, ex, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setField sets every member name of the example value v that is present
// to x.
func setField(v any, name string, x any) {
	switch m := v.(type) {
	case map[string]any:
		for k, e := range m {
			if k == name {
				m[k] = x
				continue
			}
			setField(e, name, x)
		}
	case []any:
		for _, e := range m {
			setField(e, name, x)
		}
	}
}

// TestPayloadBothSinksInternalTopics: FuzzPayloadBothSinks' internal-topic
// modes do what they say: each internal topic's segment, in Fetch
// responses by name and by id, decodes its records through Kafka's
// schemas (mode bit 6), or, with InternalTopicsAsBytes (bit 7), leaves
// them to the payload decoder, both sinks agreeing; and a record's key
// and value alone (bits 5 and 6) reach the same reader.
func TestPayloadBothSinksInternalTopics(t *testing.T) {
	for i, seg := range internalSegments(t) {
		t.Run(seg.topic, func(t *testing.T) {
			for _, fr := range internalFrames(t, seg.topic, seg.log) {
				for _, mode := range []uint8{64, 64 | 128} {
					o, d := sinkOptions(true, 1, fr.version, mode, 0)
					payloadBothSinks(t, fr.b, o, d)
					var dec codec.Decoder
					js, _, err := dec.AppendJSON(nil, fr.b, o)
					if err != nil {
						t.Fatalf("v%d mode %d: %v", fr.version, mode, err)
					}
					kafka := strings.Contains(string(js), `"format":"kafka"`)
					if kafka != (mode&128 == 0) {
						t.Fatalf("v%d mode %d: read through Kafka's schemas %v: %s", fr.version, mode, kafka, js)
					}
				}
			}
			r := seg.records[len(seg.records)-1]
			b := internalFetch(t, seg.topic, r[0], r[1])
			o, d := sinkOptions(true, 1, 12, 64, 0)
			payloadBothSinks(t, b, o, d)
			var dec codec.Decoder
			js, _, err := dec.AppendJSON(nil, b, o)
			if err != nil || !strings.Contains(string(js), `"schema":`) {
				t.Fatalf("topic %d: a record alone not read through its schema (%v): %s", i, err, js)
			}
		})
	}
}

// TestPayloadBothSinksGuessed: frames read by a guess (a response's API
// or version Any; Auto, a request or else a response) are held to
// payloadBothSinks' hook-by-hook comparison too, which skipped them: the
// readings a guess ranks never call the payload hook, and both paths make
// the same readings. A request that fails after its records (a tagged
// field count past its last byte), read with Auto, is read twice (the
// request's reading dropped for a guessed response, none fitting, then
// the request's again to show): Decode and Decoder.AppendJSON call the
// hook for both readings alike, Frame.AppendJSON for the one kept, the
// last.
func TestPayloadBothSinksGuessed(t *testing.T) {
	good, _ := sinkPayloads(t)
	kv := keyedValues(good)
	guessed, withCalls, dropped := 0, 0, 0
	for _, fr := range sinkFrames(t, kv) {
		if fr.records {
			continue
		}
		bs := [][]byte{fr.b}
		if !fr.response && fr.version >= 9 {
			b := append([]byte(nil), fr.b...)
			b[len(b)-1] = 5 // the request's tagged-field count, after its records
			bs = append(bs, b)
		}
		for _, b := range bs {
			for _, kv := range [][3]int16{{1, codec.Any, fr.version}, {1, fr.key, codec.Any}, {1, codec.Any, codec.Any}, {0, codec.Any, 0}} {
				for m := uint8(0); m < 16; m++ {
					o, d := sinkOptions(kv[0] == 1, kv[1], kv[2], m, 0)
					payloadBothSinks(t, b, o, d)
					h := &hookLog{t: t, d: d}
					o.Payload = h.decode
					f, _ := codec.Decode(b, o)
					calls := len(h.calls)
					h.calls = nil
					f.AppendJSON(nil)
					if f.Guess != nil {
						guessed++
						if calls > 0 {
							withCalls++
						}
					}
					if calls > len(h.calls) {
						dropped++
					}
				}
			}
		}
	}
	if withCalls == 0 || dropped == 0 {
		t.Fatalf("guessed frames %d, with hook calls %d; frames whose dropped reading called the hook %d", guessed, withCalls, dropped)
	}
	t.Logf("guessed frames %d, with hook calls %d; frames whose dropped reading called the hook %d", guessed, withCalls, dropped)
}
