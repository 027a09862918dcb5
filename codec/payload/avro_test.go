package payload

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/hostile"
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

// errSource answers every id with the same error.
type errSource struct{ err error }

func (e errSource) SchemaByID(int) (*Schema, error)         { return nil, e.err }
func (e errSource) SchemaFor(string, bool) (*Schema, error) { return nil, e.err }

// TestBrokenSchemaSaidBriefly: a schema that does not parse is said in a
// few hundred bytes, however long its text (hamba/avro reads text that
// is not JSON as a type's name and quoted it whole), with where its JSON
// breaks; so is a source's long error, for every payload that names it.
func TestBrokenSchemaSaidBriefly(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"record","name":"Order","fields":[`)
	for i := range 400 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"name":"field_%d","type":["null","string"],"default":null,"doc":"a field described at some length as real schemas do"}`, i)
	}
	b.WriteString(",\n]}") // the trailing comma
	long := b.String()
	for _, c := range []struct {
		name string
		src  Source
		has  string
	}{
		{"avro", mapSource{ids: map[int]*Schema{7: {Text: long}}}, "the AVRO schema does not parse: not JSON at line 401, column 1: invalid character ']'"},
		{"avro reference", mapSource{ids: map[int]*Schema{7: {Text: `"com.acme.Order"`, References: []Reference{{Name: "com.acme.Order", Schema: &Schema{Text: long}}}}}}, `reference "com.acme.Order": not JSON at line 401`},
		{"json schema", mapSource{ids: map[int]*Schema{7: {Type: TypeJSON, Text: long}}}, "the JSON schema does not parse: not JSON at line 401, column 1"},
		{"source error", errSource{errors.New("schema registry: GET x: " + long)}, "schema registry: GET x: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := NewDecoder(c.src, Config{Validate: true})
			for range 2 {
				r := decodeBoth(t, d, framed(7, []byte{0}), false, "t", bigBudget())
				oneWarning(t, r, 1, c.has)
				if m := r.warnings[0].Message; len(m) > 1200 {
					t.Fatalf("a warning of %d bytes: %.200s...", len(m), m)
				}
			}
		})
	}
	// A bare name is still a schema, as hamba/avro reads it.
	d := NewDecoder(mapSource{ids: map[int]*Schema{7: {Text: "string"}}}, Config{})
	r := decodeBoth(t, d, framed(7, []byte{2, 'a'}), false, "t", bigBudget())
	if m := membersOf(t, r.json); string(m["decoded"]) != `"a"` || len(r.warnings) > 0 {
		t.Fatalf("%s %v", r.json, r.warnings)
	}
}

// TestAvroLogicalReadings: the tree reads a logical type inside a union
// as it does outside one (a nullable timestamp, a nullable decimal), and
// a decimal whose scale passes 64 places in E notation, as Java's
// BigDecimal writes it, not as its unscaled digits.
func TestAvroLogicalReadings(t *testing.T) {
	const avsc = `{"type":"record","name":"R","fields":[
 {"name":"t","type":["null",{"type":"long","logicalType":"timestamp-millis"}]},
 {"name":"d","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}]},
 {"name":"plain","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"tiny","type":{"type":"bytes","logicalType":"decimal","precision":80,"scale":70}},
 {"name":"small","type":{"type":"bytes","logicalType":"decimal","precision":80,"scale":70}},
 {"name":"neg","type":{"type":"bytes","logicalType":"decimal","precision":80,"scale":65}}
]}`
	var data []byte
	data = binary.AppendVarint(append(data, 2), 1700000000123)
	data = append(data, 2, 4, 0xff, 0x85) // -123
	data = binary.AppendVarint(data, 1700000000123)
	data = append(data, 2, 1)          // 1
	data = append(data, 2, 123)        // 123
	data = append(data, 4, 0xff, 0x85) // -123
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Text: avsc}}}, Config{})
	r := decodeBoth(t, d, framed(1, data), false, "t", bigBudget())
	noWarnings(t, r)
	want := map[string]string{
		"t":     "avro union[1] long (timestamp-millis) = 2023-11-14T22:13:20.123Z",
		"d":     "avro union[1] bytes (decimal) = -1.23",
		"plain": "avro long (timestamp-millis) = 2023-11-14T22:13:20.123Z",
		"tiny":  "avro bytes (decimal) = 1E-70",
		"small": "avro bytes (decimal) = 1.23E-68",
		"neg":   "avro bytes (decimal) = -1.23E-63",
	}
	root := r.nodes[len(r.nodes)-1]
	for _, n := range root.Children {
		if n.Type != want[n.Name] {
			t.Errorf("%s: %q, want %q", n.Name, n.Type, want[n.Name])
		}
	}
	if len(root.Children) != len(want) {
		t.Fatalf("%d fields", len(root.Children))
	}
}

// TestAvroDuplicateMapKeysSummarized: a map whose keys repeat says the
// first repeated key where it is and counts the rest in one warning, not
// one warning per entry (112,000 of them from a 300 KB payload).
func TestAvroDuplicateMapKeysSummarized(t *testing.T) {
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Text: `{"type":"map","values":"int"}`}}}, Config{})
	data := binary.AppendVarint(nil, 1000)
	for range 1000 {
		data = append(data, 2, 'k', 0)
	}
	data = append(data, 0)
	r := decodeBoth(t, d, framed(1, data), false, "t", bigBudget())
	if len(r.warnings) != 2 ||
		r.warnings[0].Offset != 5+2+3+1 || r.warnings[0].Message != `avro: map key "k" appears more than once` ||
		r.warnings[1].Offset != 5+len(data)-3 || r.warnings[1].Message != "avro: 998 more keys of this map appear more than once, the last here" {
		t.Fatalf("warnings %+v", r.warnings)
	}
	if m := membersOf(t, r.json); !strings.HasPrefix(string(m["decoded"]), `{"k":0,"k":0,`) {
		t.Fatalf("decoded %.40s", m["decoded"])
	}
}

// TestAvroNegativeZero: -0.0 keeps its sign in the JSON (as -0, the way
// 1.0 is 1), in a double and a float alike.
func TestAvroNegativeZero(t *testing.T) {
	const avsc = `{"type":"record","name":"R","fields":[{"name":"d","type":"double"},{"name":"f","type":"float"}]}`
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Text: avsc}}}, Config{})
	data := binary.LittleEndian.AppendUint64(nil, 1<<63)
	data = binary.LittleEndian.AppendUint32(data, 1<<31)
	r := decodeBoth(t, d, framed(1, data), false, "t", bigBudget())
	if got := string(membersOf(t, r.json)["decoded"]); got != `{"d":-0,"f":-0}` {
		t.Fatalf("decoded %s", got)
	}
}

// TestAvroLaterBlockCountIsItsOwnNode: an array written in two blocks
// (a count of 1, then a count of -1 with its block's size, then the
// closing 0) shows each later block's count as a node of its own, typed
// as the block count it is, beside the items; it was folded into the next
// item's prefix, which the views label as that item's length (a string's
// prefix then covered the count, the size and its length as one).
func TestAvroLaterBlockCountIsItsOwnNode(t *testing.T) {
	d := NewDecoder(mapSource{ids: map[int]*Schema{1: {Text: `{"type":"array","items":"string"}`}}}, Config{})
	data := []byte{2, 2, 'a', 1, 4, 2, 'b', 0}
	r := decodeBoth(t, d, framed(1, data), false, "t", bigBudget())
	if got := string(membersOf(t, r.json)["decoded"]); got != `["a","b"]` {
		t.Fatalf("decoded %s", got)
	}
	var arr *tree.Node
	for _, n := range r.nodes {
		tree.Walk(n, func(x *tree.Node) bool {
			if x.Kind == schema.Array {
				arr = x
			}
			return true
		})
	}
	if arr == nil {
		t.Fatal("no array node")
	}
	var got []string
	for _, k := range arr.Children {
		got = append(got, fmt.Sprintf("%s %q [%d,%d,%d) %d", k.Name, k.Type, k.Start-5, k.PrefixEnd-5, k.End-5, k.Int))
	}
	want := []string{
		`array "avro string" [1,2,3) 0`,
		`count "avro block count and byte size" [3,3,5) 1`,
		`array "avro string" [5,6,7) 0`,
		`end "avro block count 0" [7,7,8) 0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("the array's children:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestAvroReferencesChainLinear: references that each name the type of
// the next are parsed as the names are met, each once (and again once
// its name is defined), not every pending one in each pass until a pass
// makes no progress: 255 references in the order that made that take a
// pass for each (a folder's t000.avsc to t254.avsc, each naming the one
// before it, read in name order) cost 33,000 parses, 1.9 s and GBs
// allocated for every Avro schema of the folder, "int" included. A
// schema that needs none of them parses none; one that needs the whole
// chain gets it, and a name no reference defines is still said.
func TestAvroReferencesChainLinear(t *testing.T) {
	var refs []Reference
	for i := range 255 {
		typ := `"int"`
		if i > 0 {
			typ = fmt.Sprintf(`"com.acme.t%03d"`, i-1)
		}
		refs = append(refs, Reference{Name: fmt.Sprintf("t%03d.avsc", i), Schema: &Schema{
			Text: fmt.Sprintf(`{"type":"record","name":"t%03d","namespace":"com.acme","fields":[{"name":"a","type":%s}]}`, i, typ)}})
	}
	for _, c := range []struct {
		text  string
		bound uint64
		err   string
	}{
		{`"int"`, 1 << 20, ""},
		{`{"type":"record","name":"M","fields":[{"name":"last","type":"com.acme.t254"}]}`, 64 << 20, ""},
		{`{"type":"record","name":"M","fields":[{"name":"x","type":"com.acme.Nope"}]}`, 64 << 20, "unknown type: com.acme.Nope"},
	} {
		var err error
		var typ *avroType
		got := hostile.Allocated(func() { typ, err = compileAvro(&Schema{Text: c.text, References: refs}) })
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want %q", c.text, err, c.err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", c.text, err)
		}
		if got > c.bound {
			t.Errorf("%s: %d bytes allocated, want at most %d", c.text, got, c.bound)
		}
		if c.err == "" && c.text != `"int"` {
			depth := 0
			for x := typ; x.kind == aRecord; x = x.fields[0].t {
				depth++
			}
			if depth != 256 {
				t.Errorf("%s: %d records nested, want 256", c.text, depth)
			}
		}
	}
}

// avroChainRefs are n .avsc files, each a record naming the record of
// the one before (t000.avsc to t<n-1>), but loop's, which names the
// one after loop+50: those between name each other in a loop.
func avroChainRefs(n, loop int) []Reference {
	var refs []Reference
	for i := range n {
		typ := `"int"`
		switch {
		case i == loop:
			typ = fmt.Sprintf(`"com.acme.t%03d"`, i+50)
		case i > 0:
			typ = fmt.Sprintf(`"com.acme.t%03d"`, i-1)
		}
		refs = append(refs, Reference{Name: fmt.Sprintf("t%03d.avsc", i), Schema: &Schema{
			Text: fmt.Sprintf(`{"type":"record","name":"t%03d","namespace":"com.acme","fields":[{"name":"a","type":%s}]}`, i, typ)}})
	}
	return refs
}

// avroFolder are the schemas of a folder of the files refs: each file's,
// with the others its references, and schemas naming the types names.
func avroFolder(refs []Reference, names ...string) []*Schema {
	var schemas []*Schema
	for i := range refs {
		schemas = append(schemas, &Schema{Text: refs[i].Schema.Text, References: append(refs[:i:i], refs[i+1:]...)})
	}
	for _, name := range names {
		schemas = append(schemas, &Schema{Text: `"com.acme.` + name + `"`, References: refs})
	}
	return schemas
}

// avroResult is what compiling s gives: how many records it nests (and
// whether the last names one before it, types that name each other in
// a loop), or its error.
func avroResult(s *Schema) string {
	typ, err := compileAvro(s)
	if err != nil {
		return err.Error()
	}
	seen := map[*avroType]bool{}
	for x := typ; x.kind == aRecord; x = x.fields[0].t {
		if seen[x] {
			return fmt.Sprint(len(seen), " records in a loop")
		}
		seen[x] = true
	}
	return fmt.Sprint(len(seen), " records")
}

// TestAvroRefsParsedOnce: the schemas of one set of references (a
// folder's .avsc files, each a schema whose references are the others)
// share what parsing each reference found (AvroRefs): 255 files, each
// naming the type of the one before, cost a few parses each for the
// whole folder, where each schema parsing the chain below it cost
// 65,000 parses. A file's own type stays out of its references, and the
// results are those without AvroRefs, whichever schema came first.
func TestAvroRefsParsedOnce(t *testing.T) {
	refs := avroChainRefs(255, -1)
	schemas := avroFolder(refs, "t254", "Nope")
	want := map[int]string{0: "1 records", 1: "2 records", 254: "255 records", 255: "255 records", 256: "avro: unknown type: com.acme.Nope"}
	for i, w := range want {
		if got := avroResult(schemas[i]); got != w {
			t.Fatalf("%d without AvroRefs: %s, want %s", i, got, w)
		}
	}
	for _, order := range []string{"up", "down"} {
		u := NewAvroRefs(refs)
		before := avroParses.Load()
		for k := range schemas {
			i := k
			if order == "down" {
				i = len(schemas) - 1 - k
			}
			s := *schemas[i]
			s.Avro = u
			got := avroResult(&s)
			if w, ok := want[i]; ok && got != w || !ok && got != fmt.Sprint(i+1, " records") {
				t.Errorf("%s %d: %s", order, i, got)
			}
		}
		// A parse for each schema and reference, again for each name it
		// lacked: some 4 a file, not the chain below it each time.
		if n := avroParses.Load() - before; n > 6*int64(len(schemas)) {
			t.Errorf("%s: %d parses for %d schemas", order, n, len(schemas))
		}
	}
}

// TestAvroRefsLoopParsedOnce: a folder of 51 files whose records name
// each other in one loop reads each file as the loop, the files' texts
// that do not parse alone (each lacking the next file's type) tried
// alone once for the folder (AvroRefs.bare), not once for each file
// that reaches them: some 2 parses a file, where each file parsed the
// 50 others (2,652 parses).
func TestAvroRefsLoopParsedOnce(t *testing.T) {
	refs := avroChainRefs(51, 0) // t000 names t050, each other the one before it
	schemas := avroFolder(refs)
	u := NewAvroRefs(refs)
	before := avroParses.Load()
	for i, s := range schemas {
		s := *s
		s.Avro = u
		if got := avroResult(&s); got != "51 records in a loop" {
			t.Fatalf("%d: %s", i, got)
		}
	}
	if n := avroParses.Load() - before; n > 3*int64(len(schemas)) {
		t.Errorf("%d parses for %d schemas", n, len(schemas))
	}
}

// TestAvroRefsIntoLoopParsedOnce: files naming into a loop of files
// from outside, all at one type of it, enter the loop alike: the first
// one's parses of the loop serve the others (AvroRefs.entered), where
// each parsed the loop's 51 files again (2,803 parses for the folder of
// 101 files). Each schema reads as without AvroRefs.
func TestAvroRefsIntoLoopParsedOnce(t *testing.T) {
	refs := avroIntoLoopRefs(50, 1) // u000 to u049 all name t000
	schemas := avroFolder(refs)
	want := make([]string, len(schemas))
	for i, s := range schemas {
		want[i] = avroResult(s)
		if w := map[bool]string{false: "51 records in a loop", true: "52 records in a loop"}[i >= 51]; want[i] != w {
			t.Fatalf("%d without AvroRefs: %s, want %s", i, want[i], w)
		}
	}
	u := NewAvroRefs(refs)
	before := avroParses.Load()
	for i, s := range schemas {
		s := *s
		s.Avro = u
		if got := avroResult(&s); got != want[i] {
			t.Errorf("%d: %s, want %s", i, got, want[i])
		}
	}
	if parses := avroParses.Load() - before; parses > 4*int64(len(schemas)) {
		t.Errorf("%d parses for %d schemas", parses, len(schemas))
	}
}

// TestAvroRefsSameResults: with AvroRefs, each schema of a folder
// compiles as without it, in any order and from several goroutines:
// with types that name each other in a loop, a schema given references
// in another order than AvroRefs' (parsed for it alone), and a schema
// whose references leave some out.
func TestAvroRefsSameResults(t *testing.T) {
	refs := avroChainRefs(90, 20)
	schemas := avroFolder(refs, "t019", "t089", "t040", "Nope")
	rev := slices.Clone(refs)
	slices.Reverse(rev)
	schemas = append(schemas, &Schema{Text: `"com.acme.t019"`, References: rev}, &Schema{Text: `"com.acme.t019"`, References: refs[10:]})
	want := make([]string, len(schemas))
	for i, s := range schemas {
		want[i] = avroResult(s)
	}
	// The loop (t020 naming t070, t021 to t070 each the one before)
	// reads from any of its files, and from those naming into it.
	for w, r := range map[int]string{0: "1 records", 19: "20 records", 90: "20 records", 20: "51 records in a loop",
		40: "51 records in a loop", 70: "51 records in a loop", 71: "52 records in a loop", 89: "70 records in a loop", 91: "70 records in a loop",
		92: "51 records in a loop", 93: "avro: unknown type: com.acme.Nope", 94: "20 records", 95: "avro: unknown type: com.acme.t019"} {
		if want[w] != r {
			t.Fatalf("%d: %s, want %s", w, want[w], r)
		}
	}
	for _, order := range []string{"up", "down"} {
		u := NewAvroRefs(refs)
		var parses []int64 // by schema, in order
		for k := range schemas {
			i := k
			if order == "down" {
				i = len(schemas) - 1 - k
			}
			s := *schemas[i]
			s.Avro = u
			before := avroParses.Load()
			if got := avroResult(&s); got != want[i] {
				t.Errorf("%s %d: %s, want %s", order, i, got, want[i])
			}
			parses = append(parses, avroParses.Load()-before)
		}
		// The parses each schema cost: the loop's are not kept (see
		// avroRef.clean), so each schema reaching it parses it again,
		// but where one entered it first at the same reference
		// (AvroRefs.entered).
		t.Logf("%s: parses by schema %v", order, parses)
	}
	u := NewAvroRefs(refs)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := g; k < len(schemas); k += 4 {
				s := *schemas[k]
				s.Avro = u
				if got := avroResult(&s); got != want[k] {
					t.Errorf("%d: %s, want %s", k, got, want[k])
				}
			}
		})
	}
	wg.Wait()
}

// avroFuzzFolder makes a folder of up to 12 .avsc files from in: each
// byte a field of the current file's record t<i> (a zero byte starts the
// next file), its type by the byte: a primitive, another file's record
// (a chain, a loop, a name no file defines), an enum E<k> defined inline
// (in several files: one name, several definers), one used by name, a
// union of them, or a text that is no schema.
func avroFuzzFolder(in []byte) []Reference {
	var files [][]string
	cur := []string{}
	for _, b := range in {
		if b == 0 {
			files = append(files, cur)
			if cur = []string{}; len(files) == 12 {
				break
			}
			continue
		}
		var typ string
		switch k := int(b>>4) % 4; b % 8 {
		case 0:
			typ = `"int"`
		case 1, 2:
			typ = fmt.Sprintf(`"com.acme.t%d"`, int(b>>3)%13)
		case 3:
			typ = fmt.Sprintf(`{"type":"enum","name":"E%d","symbols":["s%d"]}`, k, b>>6)
		case 4:
			typ = fmt.Sprintf(`"E%d"`, k)
		case 5:
			typ = fmt.Sprintf(`["null","com.acme.t%d"]`, int(b>>3)%13)
		case 6:
			typ = fmt.Sprintf(`{"type":"record","name":"R%d","fields":[{"name":"x","type":"com.acme.t%d"}]}`, k, int(b>>5)%13)
		default:
			typ = `{"type":`
		}
		cur = append(cur, fmt.Sprintf(`{"name":"f%d","type":%s}`, len(cur), typ))
	}
	if len(files) < 12 {
		files = append(files, cur)
	}
	var refs []Reference
	for i, fields := range files {
		refs = append(refs, Reference{Name: fmt.Sprintf("t%d.avsc", i), Schema: &Schema{
			Text: fmt.Sprintf(`{"type":"record","name":"t%d","namespace":"com.acme","fields":[%s]}`, i, strings.Join(fields, ","))}})
	}
	return refs
}

// FuzzAvroRefs: each schema of a folder of .avsc files naming each
// other (avroFuzzFolder) compiles with AvroRefs as without it, whichever
// schema comes first: what AvroRefs keeps of a reference's parse holds
// for every schema it is given to.
func FuzzAvroRefs(f *testing.F) {
	f.Add([]byte{0x01, 0x03, 0, 0x09, 0, 0x11, 0x13, 0, 0x04})
	f.Add([]byte{0x11, 0, 0x01, 0, 0x0a, 0x13, 0, 0x33, 0x06, 0, 0x24, 0x15})
	f.Add([]byte{0x0e, 0, 0x16, 0x07, 0, 0x03, 0x13, 0x33, 0, 0x44, 0x14, 0x05})
	// t1 and t2 name each other, t2 defines R2 twice: the loop's parses
	// read otherwise by where the loop is entered (kept, one schema's
	// error named the other reference; see avroResolver.resolve).
	f.Add([]byte("y\x00y\x00&&0"))
	f.Fuzz(func(t *testing.T, in []byte) {
		refs := avroFuzzFolder(in)
		var names []string
		for i := range refs {
			names = append(names, fmt.Sprintf("t%d", i))
		}
		schemas := avroFolder(refs, names...)
		want := make([]string, len(schemas))
		for i, s := range schemas {
			want[i] = avroFuzzResult(s)
		}
		for _, step := range []int{1, -1, 5} {
			u := NewAvroRefs(refs)
			for k := range schemas {
				i := k * step
				if step < 0 {
					i = len(schemas) - 1 - k
				} else if step > 1 {
					i = (k * step) % len(schemas)
					if len(schemas)%step == 0 {
						i = k
					}
				}
				s := *schemas[i]
				s.Avro = u
				if got := avroFuzzResult(&s); got != want[i] {
					t.Fatalf("step %d, schema %d (%s): %s\nwant %s", step, i, s.Text, got, want[i])
				}
			}
		}
	})
}

// avroFuzzResult is what compiling s gives: its types' labels, or its
// error.
func avroFuzzResult(s *Schema) string {
	typ, err := compileAvro(s)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	seen := map[*avroType]bool{}
	var walk func(x *avroType)
	walk = func(x *avroType) {
		if seen[x] {
			b.WriteString("^" + x.name)
			return
		}
		seen[x] = true
		b.WriteString("(" + x.label + strings.Join(x.symbols, "|"))
		for _, f := range x.fields {
			b.WriteString(" " + f.name + ":")
			walk(f.t)
		}
		for _, y := range x.types {
			walk(y)
		}
		if x.items != nil {
			walk(x.items)
		}
		b.WriteString(")")
	}
	walk(typ)
	return b.String()
}

// TestAvroRefsLoop: a record of one schema naming a type of another
// that names it back (Person's employer a Company, Company's founder a
// Person, each in a schema of its own) decodes, however the schemas
// reach each other: as a registry holds them (each the other's
// reference), as a folder's files (each with the others as references,
// with and without AvroRefs), through a third schema naming one of them,
// and a loop of three. Such references did not parse: each parse waited
// on the other's, and Avro names a type only once it is defined; the
// type they lack is now put in where the loop first names it.
func TestAvroRefsLoop(t *testing.T) {
	// Company is in a namespace of its own, so that its definition,
	// put inside Person's, keeps it (and its enum Kind's).
	const (
		person  = `{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"name","type":"string"},{"name":"employer","type":["null","com.acme.org.Company"]}]}`
		company = `{"type":"record","name":"Company","namespace":"com.acme.org","fields":[{"name":"title","type":"string"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["LTD","INC"]}},{"name":"founder","type":["null","com.acme.Person"]}]}`
		// The same types in one schema, for goavro to write the data.
		whole = `{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"name","type":"string"},{"name":"employer","type":["null",` + company + `]}]}`
	)
	c, err := goavro.NewCodec(whole)
	require.NoError(t, err)
	data, err := c.BinaryFromNative(nil, map[string]any{"name": "ada", "employer": goavro.Union("com.acme.org.Company", map[string]any{
		"title": "acme", "kind": "INC", "founder": goavro.Union("com.acme.Person", map[string]any{"name": "bob", "employer": nil})})})
	require.NoError(t, err)
	const want = `{"name":"ada","employer":{"com.acme.org.Company":{"title":"acme","kind":"INC","founder":{"com.acme.Person":{"name":"bob","employer":null}}}}}`

	p := &Schema{Text: person}
	co := &Schema{Text: company}
	p.References = []Reference{{Name: "com.acme.org.Company", Schema: co}}
	co.References = []Reference{{Name: "com.acme.Person", Schema: p}}
	folder := []Reference{{Name: "person.avsc", Schema: &Schema{Text: person}}, {Name: "company.avsc", Schema: &Schema{Text: company}}}
	u := NewAvroRefs(folder)
	// A loop of three: Person's employer a Company, whose site a Site,
	// whose owner a Person.
	site := `{"type":"record","name":"Site","namespace":"com.acme","fields":[{"name":"owner","type":["null","Person"]}]}` // com.acme.Person
	company3 := strings.Replace(company, `{"name":"founder","type":["null","com.acme.Person"]}`, `{"name":"founder","type":["null","com.acme.Site"]}`, 1)
	three := []Reference{{Name: "company.avsc", Schema: &Schema{Text: company3}}, {Name: "site.avsc", Schema: &Schema{Text: site}}}
	data3 := []byte{6, 'a', 'd', 'a', 2, 8, 'a', 'c', 'm', 'e', 2, 2, 2, 6, 'b', 'o', 'b', 0} // kind INC, then the unions' second branches
	const want3 = `{"name":"ada","employer":{"com.acme.org.Company":{"title":"acme","kind":"INC","founder":{"com.acme.Site":{"owner":{"com.acme.Person":{"name":"bob","employer":null}}}}}}}`
	for _, tc := range []struct {
		name string
		s    *Schema
		data []byte
		want string
	}{
		{"registry: Person", p, data, want},
		{"folder: person.avsc", &Schema{Text: person, References: folder[1:]}, data, want},
		{"folder: person.avsc, AvroRefs", &Schema{Text: person, References: folder[1:], Avro: u}, data, want},
		{"folder: named", &Schema{Text: `"com.acme.Person"`, References: folder}, data, want},
		{"folder: named, AvroRefs", &Schema{Text: `"com.acme.Person"`, References: folder, Avro: u}, data, want},
		{"a third schema", &Schema{Text: `{"type":"record","name":"Envelope","namespace":"com.acme","fields":[{"name":"p","type":"Person"}]}`, References: folder}, data,
			`{"p":` + want + `}`},
		{"a loop of three", &Schema{Text: person, References: three}, data3, want3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(mapSource{ids: map[int]*Schema{1: tc.s}}, Config{})
			r := decodeBoth(t, d, framed(1, tc.data), false, "t", bigBudget())
			require.Empty(t, r.warnings)
			require.Contains(t, r.json, `"decoded":`+tc.want)
		})
	}
	// Company's own file reads too (Person put in where it names it),
	// its data a Company.
	cdata, err := goavro.NewCodec(strings.Replace(company, `"com.acme.Person"`, `{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"name","type":"string"},{"name":"employer","type":["null","com.acme.org.Company"]}]}`, 1))
	require.NoError(t, err)
	cb, err := cdata.BinaryFromNative(nil, map[string]any{"title": "acme", "kind": "LTD", "founder": goavro.Union("com.acme.Person", map[string]any{"name": "bob", "employer": nil})})
	require.NoError(t, err)
	for _, s := range []*Schema{co, {Text: company, References: folder[:1]}, {Text: company, References: folder[:1], Avro: u}} {
		d := NewDecoder(mapSource{ids: map[int]*Schema{2: s}}, Config{})
		r := decodeBoth(t, d, framed(2, cb), false, "t", bigBudget())
		require.Empty(t, r.warnings)
		require.Contains(t, r.json, `"decoded":{"title":"acme","kind":"LTD","founder":{"com.acme.Person":{"name":"bob","employer":null}}}`)
	}
}
