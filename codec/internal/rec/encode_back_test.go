//go:build !js

package rec_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/input"
)

// encodesBack decodes frame b with o and checks that its value JSON
// encodes back to b: every member the decoder writes in records JSON
// (the reader's, the payload readers' and the internal topics' members
// in keys and values, KRaft control data) is one the encoder takes. A
// frame that decoded with warnings may not come back (the invariant is
// for clean frames), but never fails for a member the encoder does not
// know. It reports whether the frame's JSON holds records.
func encodesBack(t *testing.T, name string, b []byte, o codec.Options) bool {
	t.Helper()
	f, err := codec.Decode(b, o)
	if err != nil {
		return false
	}
	js := f.AppendJSON(nil)
	out, err := codec.Encode(nil, js, codec.EncodeOptions{})
	if len(f.Warnings) > 0 {
		if err != nil && strings.Contains(err.Error(), "unknown field") {
			t.Errorf("%s: %v\n%.3000s", name, err, js)
		}
		return false
	}
	if err != nil || !bytes.Equal(out, b) {
		t.Errorf("%s: decoded without warnings, encodes back to other bytes: %v\n%.3000s", name, err, js)
	}
	return bytes.Contains(js, []byte(`"records":[{`))
}

// Every example, every frame of the shared testdata and of the CLI's,
// and every segment and KRaft snapshot of testdata/storage (records of
// the internal topics, decoded with their members in keys and values, and
// every control record type) encodes back byte for byte.
func TestEncodeTakesBackEveryDecodedRecords(t *testing.T) {
	withRecords := 0
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Request
			if response {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				b, err := codec.ExampleFrame(api, v, response)
				if err != nil {
					t.Fatal(err)
				}
				for _, i64 := range []bool{false, true} {
					if encodesBack(t, api.Name, b, codec.Options{Response: response, APIKey: api.Key, Version: v, Int64Strings: i64}) {
						withRecords++
					}
				}
			}
		}
	}
	shared := filepath.Join("..", "..", "..", "testdata")
	caps, _ := filepath.Glob(filepath.Join(shared, "captures", "*.pcap*"))
	checks, _ := filepath.Glob(filepath.Join(shared, "check", "*.pcap*"))
	if len(caps) == 0 || len(checks) == 0 {
		t.Fatal("no captures")
	}
	for _, p := range append(caps, checks...) {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := capture.Read(f, capture.Options{})
		f.Close()
		if err != nil {
			t.Fatal(p, err)
		}
		for _, x := range res.Exchanges {
			if x.Request != nil && encodesBack(t, p, x.Request.Bytes, codec.Options{}) {
				withRecords++
			}
			if x.Response != nil && x.Request != nil &&
				encodesBack(t, p, x.Response.Bytes, codec.Options{Response: true, APIKey: x.APIKey, Version: x.APIVersion}) {
				withRecords++
			}
		}
	}
	cli := filepath.Join("..", "..", "..", "cmd", "kwire", "testdata")
	for _, p := range []string{filepath.Join(shared, "dumps", "frame.bin"), filepath.Join(cli, "frame.bin")} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		encodesBack(t, p, b, codec.Options{Auto: true})
	}
	hexes, err := os.ReadFile(filepath.Join(cli, "frames.hex"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(hexes, []byte("\n")) {
		if b, _, err := input.Parse(line, input.Hex); err == nil && len(b) > 0 {
			encodesBack(t, "frames.hex", b, codec.Options{Auto: true})
		}
	}
	// The storage testdata's record files, each as the records of a
	// Produce request to its topic: the internal topics' keys and values
	// decoded through Kafka's schemas (their "format":"kafka" members),
	// markers and KRaft control records (LEADER_CHANGE in the log; the
	// snapshot's header, KRaft version, voters and footer).
	files, _ := filepath.Glob(filepath.Join(shared, "storage", "logdir", "*", "*.log"))
	snaps, _ := filepath.Glob(filepath.Join(shared, "storage", "logdir", "*", "*.checkpoint"))
	files = append(files, snaps...)
	if len(files) < 7 {
		t.Fatalf("storage files %v", files)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		topic := filepath.Base(filepath.Dir(p))
		topic = topic[:strings.LastIndexByte(topic, '-')]
		for _, i64 := range []bool{false, true} {
			if !encodesBack(t, p, produceFrame(t, topic, b), codec.Options{Int64Strings: i64}) {
				t.Errorf("%s: no records decoded", p)
			}
		}
		withRecords++
	}
	if withRecords < 100 {
		t.Fatalf("%d frames with records", withRecords)
	}
	t.Logf("%d frames with records encoded back", withRecords)
}

// produceFrame is a Produce v9 request carrying records to topic.
func produceFrame(t *testing.T, topic string, records []byte) []byte {
	t.Helper()
	b, err := codec.Encode(nil, map[string]any{"direction": "request", "apiKey": 0, "apiVersion": 9,
		"header": map[string]any{"correlationId": 1, "clientId": "kwire"},
		"body": map[string]any{"transactionalId": nil, "acks": -1, "timeoutMs": 1000, "topicData": []any{map[string]any{
			"name": topic, "partitionData": []any{map[string]any{"index": 0, "records": records}}}}}}, codec.EncodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// schemas is a payload.Source of the schemas by id, and clicks-value's
// for unframed payloads.
type schemas map[int]*payload.Schema

func (s schemas) SchemaByID(id int) (*payload.Schema, error) { return s[id], nil }
func (s schemas) SchemaFor(topic string, key bool) (*payload.Schema, error) {
	if topic == "clicks" && !key {
		return s[1], nil
	}
	return nil, nil
}

// Keys and values decoded with schemas (Avro framed and by topic,
// Protobuf with its message indexes and name, JSON Schema, JSON text, a
// value that does not match its schema, one whose schema is unknown)
// carry the payload readers' members beside their bytes: the JSON encodes
// back to the same frame, plain and compressed, in batches and legacy
// messages.
func TestEncodeTakesBackDecodedPayloads(t *testing.T) {
	const avsc = `{"type":"record","name":"Click","fields":[{"name":"user","type":"string"},{"name":"amount","type":"long"},{"name":"at","type":["null","long"]}]}`
	src := schemas{
		1: {Text: avsc},
		2: {Type: payload.TypeProtobuf, Text: `syntax = "proto3"; package acme; message Unit { string name = 1; } message Order { int64 id = 1; string item = 2; Unit unit = 3; }`},
		3: {Type: payload.TypeJSON, Text: `{"type":"object","properties":{"n":{"type":"integer"}}}`},
	}
	c, err := goavro.NewCodec(avsc)
	if err != nil {
		t.Fatal(err)
	}
	avro, err := c.BinaryFromNative(nil, map[string]any{"user": "ana", "amount": int64(1250), "at": goavro.Union("long", int64(1700000000000))})
	if err != nil {
		t.Fatal(err)
	}
	framed := func(id int, b ...[]byte) []byte {
		out := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
		for _, x := range b {
			out = append(out, x...)
		}
		return out
	}
	// Order{id: 42, item: "beans", unit: {name: "kg"}}, the second message
	// of its file: message indexes [1] (a count of 1, then 1, zig-zag).
	order := []byte{0x08, 42, 0x12, 5, 'b', 'e', 'a', 'n', 's', 0x1a, 4, 0x0a, 2, 'k', 'g'}
	kvs := [][2][]byte{
		{[]byte(`{"user": "ana"}`), framed(1, avro)},
		{[]byte("ana"), avro},
		{nil, framed(2, []byte{2, 2}, order)},
		{[]byte{0xff, 0}, framed(3, []byte(`{"n": 5}`))},
		{nil, []byte(`[1, 2, {"a": null}]`)},
		{nil, framed(1, []byte{9})},
		{nil, framed(7, avro)},
		{nil, []byte{0xff, 0xfe, 0}},
	}
	part := func(b []byte) any {
		if b == nil {
			return nil
		}
		return b
	}
	dec := payload.NewDecoder(src, payload.Config{Validate: true})
	for _, compression := range []string{"none", "gzip"} {
		var recs, msgs []any
		for i, kv := range kvs {
			recs = append(recs, map[string]any{"attributes": 0, "timestampDelta": i, "offsetDelta": i, "key": part(kv[0]), "value": part(kv[1]),
				"headers": []any{map[string]any{"key": "h", "value": []byte(`{"x":1}`)}}})
			msgs = append(msgs, map[string]any{"offset": i, "magic": 1, "attributes": map[string]any{"compression": "none"}, "timestamp": 1700000000000,
				"key": part(kv[0]), "value": part(kv[1])})
		}
		batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "attributes": map[string]any{"compression": compression},
			"baseTimestamp": 1700000000000, "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}
		sets := []any{[]any{batch}}
		if compression == "none" {
			sets = append(sets, msgs)
		} else {
			// The wrapper at offset 100, as a broker assigns it: its inner
			// messages' offsets are relative, so the JSON gives each its
			// "absoluteOffset".
			sets = append(sets, []any{map[string]any{"offset": 100, "magic": 1, "attributes": map[string]any{"compression": compression},
				"timestamp": 1700000000000, "key": nil, "messages": msgs}})
		}
		for si, set := range sets {
			records, err := codec.Encode(nil, map[string]any{"data": "records", "value": set}, codec.EncodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, i64 := range []bool{false, true} {
				b := produceFrame(t, "clicks", records)
				f, err := codec.Decode(b, codec.Options{Payload: dec.Decode, Int64Strings: i64})
				if err != nil {
					t.Fatal(err)
				}
				js := f.AppendJSON(nil)
				for _, want := range []string{`"format":"avro","decoded":`, `"format":"protobuf","messageIndexes":[1],"message":"acme.Order","decoded":`,
					`"schemaId":3,"format":"jsonschema","decoded":`, `"format":"json","decoded":`, `"schemaId":7}`} {
					if !bytes.Contains(js, []byte(want)) || compression == "gzip" && si == 1 && !bytes.Contains(js, []byte(`"absoluteOffset":`)) {
						t.Fatalf("%s: no %s in %s", compression, want, js)
					}
				}
				out, err := codec.Encode(nil, js, codec.EncodeOptions{})
				if err != nil || !bytes.Equal(out, b) {
					t.Fatalf("%s: the JSON with payloads encodes back to other bytes: %v\n%s", compression, err, js)
				}
			}
		}
	}
}

// controlRecords are the records of frame JSON v that have "control".
func controlRecords(v any) []map[string]any {
	var out []map[string]any
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["control"].(map[string]any); ok {
			if _, ok := x["timestampDelta"]; ok {
				return append(out, x)
			}
		}
		for _, e := range x {
			out = append(out, controlRecords(e)...)
		}
	case []any:
		for _, e := range x {
			out = append(out, controlRecords(e)...)
		}
	}
	return out
}

// A control record's "control" is no longer passed over: with the
// record's key and value left out, they are built from it (every control
// type: the markers' version and coordinator epoch, the KRaft records'
// data through the codec's data-message encoder), and an edit to it
// shows; with them given, an edit to "control" that they do not show is
// refused at its path.
func TestControlBuildsKeyAndValue(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "testdata", "storage", "logdir")
	types := map[string]bool{}
	for _, file := range []string{
		filepath.Join("__consumer_offsets-7", "00000000000000000000.log"),
		filepath.Join("__cluster_metadata-0", "00000000000000000000.log"),
		filepath.Join("__cluster_metadata-0", "00000000000000000008-0000000001.checkpoint"),
	} {
		records, err := os.ReadFile(filepath.Join(shared, file))
		if err != nil {
			t.Fatal(err)
		}
		topic := filepath.Dir(file)
		b := produceFrame(t, topic[:strings.LastIndexByte(topic, '-')], records)
		decode := func(b []byte) any {
			t.Helper()
			f, err := codec.Decode(b, codec.Options{})
			if err != nil || len(f.Warnings) > 0 {
				t.Fatal(file, err, f.Warnings)
			}
			v, err := jsontext.Parse(f.AppendJSON(nil))
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		encode := func(v any) ([]byte, error) { return codec.Encode(nil, v, codec.EncodeOptions{}) }
		n := len(controlRecords(decode(b)))
		if n == 0 {
			t.Fatalf("%s: no control records", file)
		}
		for i := 0; i < n; i++ {
			// Key, value or both left out: built from "control", the same
			// bytes.
			for _, drop := range [][]string{{"key", "value"}, {"key"}, {"value"}} {
				v := decode(b)
				r := controlRecords(v)[i]
				for _, k := range drop {
					delete(r, k)
				}
				if out, err := encode(v); err != nil || !bytes.Equal(out, b) {
					t.Fatalf("%s: control record %d without %v: %v", file, i, drop, err)
				}
			}
			// An edit to "control": refused while the key and value say
			// otherwise; written once they are left out.
			v := decode(b)
			r := controlRecords(v)[i]
			c := r["control"].(map[string]any)
			typ := c["type"].(string)
			types[typ] = true
			var at string
			switch typ {
			case "COMMIT":
				c["coordinatorEpoch"], at = json.Number("9"), "coordinatorEpoch"
			case "LEADER_CHANGE":
				c["data"].(map[string]any)["leaderId"], at = json.Number("9"), "data"
			case "KRAFT_VERSION":
				c["data"].(map[string]any)["kRaftVersion"], at = json.Number("0"), "data"
			default:
				c["keyVersion"], at = json.Number("1"), "keyVersion"
			}
			_, err := encode(v)
			if err == nil || !strings.Contains(err.Error(), ".control."+at+`: expected what "`) {
				t.Fatalf("%s: %s record with control.%s edited: %v", file, typ, at, err)
			}
			delete(r, "key")
			delete(r, "value")
			out, err := encode(v)
			if err != nil {
				t.Fatalf("%s: %s record built from an edited control: %v", file, typ, err)
			}
			got := controlRecords(decode(out))[i]["control"]
			if want := c; fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: control %v, want %v", file, got, want)
			}
		}
	}
	if len(types) != 6 {
		t.Fatalf("control types seen: %v", types)
	}
	// What cannot be built is said.
	v, err := jsontext.Parse([]byte(`[{"baseOffset":0,"partitionLeaderEpoch":0,"magic":2,"attributes":{"control":true},"baseTimestamp":0,
		"producerId":1,"producerEpoch":0,"baseSequence":-1,"records":[{"control":{"type":"ABORT"},"headers":[]}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ edit, want string }{
		{`{"type":"ABORT"}`, `value[0].records[0].control.coordinatorEpoch: missing: the marker's coordinator epoch, to build its value`},
		{`{"keyVersion":0}`, `value[0].records[0].control.type: missing: the control record's type, to build its key`},
		{`{"type":"COMIT","coordinatorEpoch":1}`, `value[0].records[0].control.type: expected ABORT, COMMIT, LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER, KRAFT_VERSION, KRAFT_VOTERS or a number, found "COMIT"`},
		{`{"type":"COMMIT","coordinatorEpoch":1,"data":{}}`, `value[0].records[0].control.data: expected "valueVersion" and "coordinatorEpoch" for a control record of type COMMIT, found "data"`},
		{`{"type":"LEADER_CHANGE","coordinatorEpoch":1}`, `value[0].records[0].control.coordinatorEpoch: expected "data" for a control record of type LEADER_CHANGE, found "coordinatorEpoch"`},
		{`{"type":"LEADER_CHANGE"}`, `value[0].records[0].control.data: missing: the record's data, to build its value`},
		{`{"type":9}`, `value[0].records[0].control.type: expected a control type whose value kwire builds (0-6), found 9: give "value"`},
		{`{"type":"ABORT","coordinatorEpoch":1,"epoch":1}`, `value[0].records[0].control.epoch: unknown field; valid here: keyVersion, type, valueVersion, coordinatorEpoch, data`},
		{`[]`, `value[0].records[0].control: expected an object, found an array`},
	} {
		c, err := jsontext.Parse([]byte(tc.edit))
		if err != nil {
			t.Fatal(err)
		}
		v.([]any)[0].(map[string]any)["records"].([]any)[0].(map[string]any)["control"] = c
		_, err = codec.Encode(nil, map[string]any{"data": "records", "value": v}, codec.EncodeOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("control %s: %v\nwant %s", tc.edit, err, tc.want)
		}
	}
}
