package payload

import (
	"testing"

	"github.com/linkedin/goavro/v2"
)

const orderAvsc = `{"type":"record","name":"Order","namespace":"com.acme","fields":[
 {"name":"id","type":"long"},
 {"name":"customer","type":"string"},
 {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
 {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"]}},
 {"name":"tags","type":{"type":"array","items":"string"}},
 {"name":"attrs","type":{"type":"map","values":"int"}},
 {"name":"note","type":["null","string"],"default":null},
 {"name":"hash","type":{"type":"fixed","name":"MD5","size":4}},
 {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"ok","type":"boolean"},
 {"name":"ratio","type":"float"},
 {"name":"score","type":"double"}
]}`

func TestAvroGoavroRoundTrip(t *testing.T) {
	codec, err := goavro.NewCodec(orderAvsc)
	if err != nil {
		t.Fatal(err)
	}
	native, _, err := codec.NativeFromTextual([]byte(`{"id":42,"customer":"ana \"q\" é","amount":"\u0004\u00d2","status":"PAID","tags":["a","b"],"attrs":{"x":1,"y":-2},"note":{"string":"hi"},"hash":"\u0001\u0002\u0003\u00ff","at":1714564800000,"ok":true,"ratio":0.1,"score":-2.5e300}`))
	if err != nil {
		t.Fatal(err)
	}
	data, err := codec.BinaryFromNative(nil, native)
	if err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(mapSource{ids: map[int]*Schema{7: {Text: orderAvsc}}}, Config{})
	p := framed(7, data)
	r := decodeBoth(t, d, p, false, "orders", bigBudget())
	t.Logf("%s", r.json)
	if len(r.warnings) > 0 {
		t.Fatalf("warnings: %v", r.warnings)
	}
}
