package payload_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
)

// schemas is a Source over schemas a program holds: the two methods a
// Decoder asks, here over a map (a program's own registry client would
// do as well).
type schemas map[int]*payload.Schema

func (s schemas) SchemaByID(id int) (*payload.Schema, error) {
	if sc, ok := s[id]; ok {
		return sc, nil
	}
	return nil, errors.New("no schema " + fmt.Sprint(id))
}

func (s schemas) SchemaFor(topic string, key bool) (*payload.Schema, error) { return nil, nil }

// A record value in the schema registry's framing (magic 0, schema id 1)
// holding Avro, read through a Source of the program's own.
func ExampleNewDecoder() {
	src := schemas{1: {ID: 1, Type: payload.TypeAvro, Text: `{"type":"record","name":"Order","fields":[{"name":"item","type":"string"}]}`}}
	d := payload.NewDecoder(src, payload.Config{})
	value := []byte{0, 0, 0, 0, 1, 4, 'h', 'i'} // framing, then Avro: the string "hi"
	batch := map[string]any{"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2, "baseTimestamp": 0,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": []map[string]any{{"key": nil, "value": value}}}
	b, err := codec.Encode(nil, map[string]any{"data": "records", "value": []any{batch}}, codec.EncodeOptions{})
	if err != nil {
		panic(err)
	}
	f, err := codec.Decode(b, codec.Options{Data: "records", Payload: d.Decode})
	if err != nil {
		panic(err)
	}
	js := f.AppendJSON(nil)
	start := bytes.Index(js, []byte(`"value":{"base64"`))
	end := bytes.Index(js[start:], []byte(`,"headers"`))
	fmt.Println(string(js[start : start+end]))
	v, _ := f.Root.Lookup("value[0].records[0].value")
	for _, c := range v.Children { // the value's bytes, each part's span within them
		fmt.Printf("%s (%s) [%d,%d)\n", c.Name, c.Type, c.Start-v.DataStart(), c.End-v.DataStart())
	}
	// Output:
	// "value":{"base64":"AAAAAAEEaGk=","schemaId":1,"format":"avro","decoded":{"item":"hi"}}
	// magic (int8) [0,1)
	// schemaId (int32) [1,5)
	// avro (avro record Order) [5,8)
}
