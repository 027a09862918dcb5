package records

import (
	"bytes"
	"testing"

	kpayload "github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/tree"
	"github.com/linkedin/goavro/v2"
)

type avroSource string

func (s avroSource) SchemaByID(id int) (*kpayload.Schema, error) {
	if id != 1 {
		return nil, nil
	}
	return &kpayload.Schema{Text: string(s)}, nil
}
func (avroSource) SchemaFor(string, bool) (*kpayload.Schema, error) { return nil, nil }

// TestPayloadHook: the payload hook on both paths (tree + AppendJSON, and
// WriteJSON) gives the same JSON, warnings and budget, in plain and
// compressed batches and under tight limits, and the nodes it returns hang
// under the key and value nodes.
func TestPayloadHook(t *testing.T) {
	const avsc = `{"type":"record","name":"C","fields":[{"name":"user","type":"string"},{"name":"n","type":"long"}]}`
	codec, err := goavro.NewCodec(avsc)
	if err != nil {
		t.Fatal(err)
	}
	avro, _ := codec.BinaryFromNative(nil, map[string]any{"user": "ana", "n": int64(7)})
	framed := append([]byte{0, 0, 0, 0, 1}, avro...)
	bad := append([]byte{0, 0, 0, 0, 1}, 9)
	missing := append([]byte{0, 0, 0, 0, 2}, avro...)
	recs := []tRec{
		{key: []byte(`{"id": 1}`), val: framed},
		{key: []byte("text"), val: bad},
		{key: nil, val: missing},
		{key: []byte{0xff}, val: []byte(`[1, 2, {"a": null}]`)},
	}
	d := kpayload.NewDecoder(avroSource(avsc), kpayload.Config{})
	hook := func(dst []byte, p *PayloadIn) ([]byte, []*tree.Node) {
		in := kpayload.In(*p)
		return d.Decode(dst, &in)
	}
	for _, codecID := range []int{CodecNone, CodecGzip} {
		data := buildBatch(t, codecID, 0, 0, recs)
		js := bothWays(t, data, Options{Payload: hook, Topic: "clicks"})
		for _, want := range []string{
			`"key":{"text":"{\"id\": 1}","format":"json","decoded":{"id":1}}`,
			`"value":{"base64":"AAAAAAEGYW5hDg==","schemaId":1,"format":"avro","decoded":{"user":"ana","n":7}}`,
			`"value":{"base64":"AAAAAAEJ","schemaId":1,"format":"avro"}`,
			`"value":{"base64":"AAAAAAIGYW5hDg==","schemaId":2}`,
			`"value":{"text":"[1, 2, {\"a\": null}]","format":"json","decoded":[1,2,{"a":null}]}`,
		} {
			if !bytes.Contains(js, []byte(want)) {
				t.Errorf("codec %d: no %s in\n%s", codecID, want, js)
			}
		}
		for _, n := range []int{30, 60, 90} {
			bothWays(t, data, Options{Payload: hook, MaxNodes: n})
		}
		var s tree.Slab
		res, err := Decode(&s, data, Options{Payload: hook})
		if err != nil {
			t.Fatal(err)
		}
		checkTree(t, res, 0, len(data))
		v := res.Records[0].Node.Child("value")
		if len(v.Children) != 3 || v.Children[2].Name != "avro" || v.Children[2].Child("user") == nil {
			t.Fatalf("value children: %v", v.Children)
		}
	}
}
