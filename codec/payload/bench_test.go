package payload

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/linkedin/goavro/v2"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/internal/slab"
)

// The payloads measured: an order as a producer writes it, about 150
// bytes of Avro and of Protobuf. Each benchmark decodes the same bytes:
// kwire to value JSON (the CLI's and batch's path), kwire to value JSON
// and spanned nodes (the tree and grid), and the format's own Go
// libraries, to Go values and to JSON.

const benchAvsc = `{"type":"record","name":"Order","namespace":"com.acme","fields":[
 {"name":"id","type":"long"},{"name":"customer","type":"string"},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"]}},
 {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
   {"name":"sku","type":"string"},{"name":"qty","type":"int"},{"name":"price","type":"double"}]}}},
 {"name":"attrs","type":{"type":"map","values":"string"}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"gift","type":"boolean"}]}`

const benchAvroJSON = `{"id":4242424242,"customer":"Ana Müller","status":"PAID",
 "lines":[{"sku":"A-100","qty":2,"price":12.5},{"sku":"B-7","qty":1,"price":99.99},{"sku":"C-3000","qty":12,"price":0.25}],
 "attrs":{"channel":"web","coupon":"SPRING"},"note":{"string":"leave at the door"},"at":1714564800000,"gift":false}`

const benchProto = `syntax = "proto3";
package acme;
message Order {
  int64 id = 1;
  string customer = 2;
  Status status = 3;
  repeated Line lines = 4;
  map<string, string> attrs = 5;
  string note = 6;
  int64 at = 7;
  bool gift = 8;
  enum Status { NEW = 0; PAID = 1; SHIPPED = 2; }
  message Line { string sku = 1; int32 qty = 2; double price = 3; }
}
`

const benchProtoJSON = `{"id":"4242424242","customer":"Ana Müller","status":"PAID",
 "lines":[{"sku":"A-100","qty":2,"price":12.5},{"sku":"B-7","qty":1,"price":99.99},{"sku":"C-3000","qty":12,"price":0.25}],
 "attrs":{"channel":"web","coupon":"SPRING"},"note":"leave at the door","at":"1714564800000","gift":false}`

func benchAvroData(b *testing.B) []byte {
	codec, err := goavro.NewCodec(benchAvsc)
	if err != nil {
		b.Fatal(err)
	}
	native, _, err := codec.NativeFromTextual([]byte(benchAvroJSON))
	if err != nil {
		b.Fatal(err)
	}
	data, err := codec.BinaryFromNative(nil, native)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func benchProtoMessage(b *testing.B) (protoreflect.MessageDescriptor, []byte) {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{"o.proto": benchProto})})}
	files, err := c.Compile(context.Background(), "o.proto")
	if err != nil {
		b.Fatal(err)
	}
	md := files[0].Messages().Get(0)
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(benchProtoJSON), m); err != nil {
		b.Fatal(err)
	}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	return md, data
}

// benchKwire decodes p (framed) over and over, with or without nodes.
func benchKwire(b *testing.B, d *Decoder, p []byte, nodes bool) {
	var s slab.Slab
	var out []byte
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bud := budget.Budget{MaxNodes: 1 << 20, NestedNodes: 1 << 20, MaxWork: 1 << 30}
		in := In{B: p, End: len(p), Budget: &bud}
		if nodes {
			s.Reset()
			in.Slab = &s
		}
		out, _ = d.Decode(out[:0], &in)
	}
	if len(out) == 0 {
		b.Fatal("nothing decoded")
	}
}

func BenchmarkAvro(b *testing.B) {
	data := benchAvroData(b)
	p := framed(1, data)
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Text: benchAvsc}}}, Config{})
	b.Run("kwire-json", func(b *testing.B) { benchKwire(b, d, p, false) })
	b.Run("kwire-json+tree", func(b *testing.B) { benchKwire(b, d, p, true) })
	hs, err := avro.Parse(benchAvsc)
	if err != nil {
		b.Fatal(err)
	}
	type line struct {
		Sku   string  `avro:"sku"`
		Qty   int     `avro:"qty"`
		Price float64 `avro:"price"`
	}
	type order struct {
		ID       int64             `avro:"id"`
		Customer string            `avro:"customer"`
		Status   string            `avro:"status"`
		Lines    []line            `avro:"lines"`
		Attrs    map[string]string `avro:"attrs"`
		Note     *string           `avro:"note"`
		At       int64             `avro:"at"`
		Gift     bool              `avro:"gift"`
	}
	b.Run("hamba-struct", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var o order
			if err := avro.Unmarshal(hs, data, &o); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hamba-map+encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var v any
			if err := avro.Unmarshal(hs, data, &v); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	codec, _ := goavro.NewCodec(benchAvsc)
	b.Run("goavro-native", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, _, err := codec.NativeFromBinary(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goavro-textual", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			v, _, err := codec.NativeFromBinary(data)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := codec.TextualFromNative(nil, v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkProtobuf(b *testing.B) {
	md, data := benchProtoMessage(b)
	p := framed(1, []byte{0}, data)
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Type: TypeProtobuf, Text: benchProto}}}, Config{})
	b.Run("kwire-json", func(b *testing.B) { benchKwire(b, d, p, false) })
	b.Run("kwire-json+tree", func(b *testing.B) { benchKwire(b, d, p, true) })
	b.Run("dynamicpb", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			m := dynamicpb.NewMessage(md)
			if err := proto.Unmarshal(data, m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("dynamicpb+protojson", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			m := dynamicpb.NewMessage(md)
			if err := proto.Unmarshal(data, m); err != nil {
				b.Fatal(err)
			}
			if _, err := protojson.Marshal(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkJSON decodes JSON record values with no schema source, the
// default of batch and pcap: the text checked and written compacted in
// one pass (checkCompact). An order as the benchmark traffic's producers
// write it, compact; the Avro benchmark's order as a person writes it
// (spaces, new lines, UTF-8); and an event with a long text field.
func BenchmarkJSON(b *testing.B) {
	long := `{"level":"info","ts":"2025-03-01T12:00:00.123Z","msg":"` +
		strings.Repeat("request served from cache after revalidation, ", 12) + `","status":200}`
	for _, c := range []struct{ name, text string }{
		{"order", `{"order":714572124,"sku":"SKU-95659","qty":3,"price":21011,"currency":"EUR","note":"express delivery"}`},
		{"spaced", benchAvroJSON},
		{"long-text", long},
	} {
		d := NewDecoder(nil, Config{})
		b.Run(c.name, func(b *testing.B) { benchKwire(b, d, []byte(c.text), false) })
	}
}

// BenchmarkAvroRefsLoop compiles every schema of a folder of 51 .avsc
// files whose records name each other in one loop, through one AvroRefs,
// as kwire's --schemas folder does: each file's schema reaches the loop,
// whose parses are not kept (avroRef.clean). parses/op counts hamba's.
func BenchmarkAvroRefsLoop(b *testing.B) {
	refs := avroChainRefs(51, 0) // t000 names t050, each other the one before it
	schemas := avroFolder(refs)
	b.ReportAllocs()
	before := avroParses.Load()
	for i := 0; i < b.N; i++ {
		u := NewAvroRefs(refs)
		for _, s := range schemas {
			s := *s
			s.Avro = u
			if got := avroResult(&s); got != "51 records in a loop" {
				b.Fatal(got)
			}
		}
	}
	b.ReportMetric(float64(avroParses.Load()-before)/float64(b.N), "parses/op")
}

// avroIntoLoopRefs are the 51 files of avroChainRefs(51, 0), whose
// records name each other in one loop, and outside files u000.avsc to
// u<outside-1>, each a record naming one record of the loop: t000 to
// t<names-1> in turn.
func avroIntoLoopRefs(outside, names int) []Reference {
	refs := avroChainRefs(51, 0)
	for i := range outside {
		refs = append(refs, Reference{Name: fmt.Sprintf("u%03d.avsc", i), Schema: &Schema{
			Text: fmt.Sprintf(`{"type":"record","name":"u%03d","namespace":"com.acme","fields":[{"name":"a","type":"com.acme.t%03d"}]}`, i, i%names)}})
	}
	return refs
}

// BenchmarkAvroRefsIntoLoop compiles every schema of a folder of the 51
// files of BenchmarkAvroRefsLoop's loop and 50 files outside it, each
// naming a record of the loop (all t000, or each another), through one
// AvroRefs. parses/op counts hamba's.
func BenchmarkAvroRefsIntoLoop(b *testing.B) {
	for _, names := range []int{1, 50} {
		b.Run(fmt.Sprint("names=", names), func(b *testing.B) { benchAvroRefsIntoLoop(b, names) })
	}
}

func benchAvroRefsIntoLoop(b *testing.B, names int) {
	refs := avroIntoLoopRefs(50, names)
	schemas := avroFolder(refs)
	b.ReportAllocs()
	before := avroParses.Load()
	for i := 0; i < b.N; i++ {
		u := NewAvroRefs(refs)
		for k, s := range schemas {
			s := *s
			s.Avro = u
			want := "51 records in a loop"
			if k >= 51 {
				want = "52 records in a loop"
			}
			if got := avroResult(&s); got != want {
				b.Fatal(k, got)
			}
		}
	}
	b.ReportMetric(float64(avroParses.Load()-before)/float64(b.N), "parses/op")
}
