package site

import (
	"encoding/base64"
	"encoding/hex"
	"hash/crc32"
	"html/template"
	"strconv"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/render"
)

// part is one labelled run of bytes in a hand-built example.
type part struct {
	label, kind, typ, value string
	b                       []byte
}

// partsGrid draws hand-built parts with the same renderer as the frames.
func partsGrid(parts []part) (template.HTML, string) {
	var cells []render.Cell
	var all []byte
	for i, p := range parts {
		cells = append(cells, render.Cell{Node: i + 1, Start: len(all), End: len(all) + len(p.b), Kind: p.kind,
			Label: p.label, Path: p.label, Value: p.value, Type: p.typ})
		all = append(all, p.b...)
	}
	return template.HTML(render.AppendGridHTML(nil, cells, render.Layout(cells, 4, 0, nil), 0)), spacedHex(all)
}

func spacedHex(b []byte) string {
	out := make([]byte, 0, 3*len(b))
	for i, c := range b {
		if i > 0 {
			out = append(out, ' ')
		}
		out = hex.AppendEncode(out, []byte{c})
	}
	return string(out)
}

// ---- primitive types ----

type typeEntry struct {
	ID       string
	Name     string
	Size     string
	Desc     string
	Examples []typeExample
}

type typeExample struct {
	Value string // what the example encodes
	Grid  template.HTML
	Hex   string
}

func uv(v uint64) []byte { return wire.AppendUvarlong(nil, v) }
func i16(v int16) []byte { return wire.AppendInt16(nil, v) }
func i32(v int32) []byte { return wire.AppendInt32(nil, v) }
func val(label, typ, value string, b []byte) part {
	return part{label: label, kind: render.KindValue, typ: typ, value: value, b: b}
}
func pre(label, typ, value string, b []byte) part {
	return part{label: label, kind: render.KindPrefix, typ: typ, value: value, b: b}
}

func typeEntries() []typeEntry {
	uuid, _ := base64.RawURLEncoding.DecodeString("AAECAwQFBgcICQoLDA0ODw")
	type ex struct {
		name, size, desc, value string
		parts                   []part
	}
	// Further examples of some types.
	more := map[string][]ex{
		"VARINT": {{value: "150", parts: []part{{label: "n", kind: render.KindVarint, typ: "varint", value: "150", b: wire.AppendVarint(nil, 150)}}}},
		"TAG_BUFFER": {{value: "one field, leaderId with tag 0, holding INT32 9", parts: []part{
			{label: "tagged fields", kind: render.KindTags, typ: "uvarint", value: "1", b: uv(1)},
			{label: "leaderId tag", kind: render.KindTag, typ: "uvarint", value: "0", b: uv(0)},
			{label: "leaderId size", kind: render.KindTagSize, typ: "uvarint", value: "4", b: uv(4)},
			val("leaderId", "int32", "9", i32(9))}}},
	}
	xs := []ex{
		{"BOOLEAN", "1", "A byte: 0 is false, 1 is true. kwire decodes other values as true, with a warning.", "true",
			[]part{val("flag", "bool", "true", []byte{1})}},
		{"INT8", "1", "A signed byte.", "-3", []part{val("n", "int8", "-3", []byte{0xfd})}},
		{"INT16", "2", "Signed, big-endian (network order), like every fixed-width integer in the protocol.", "1000",
			[]part{val("n", "int16", "1000", i16(1000))}},
		{"UINT16", "2", "Unsigned, big-endian.", "65000", []part{val("n", "uint16", "65000", wire.AppendUint16(nil, 65000))}},
		{"INT32", "4", "Signed, big-endian.", "-2", []part{val("n", "int32", "-2", i32(-2))}},
		{"UINT32", "4", "Unsigned, big-endian.", "3000000000", []part{val("n", "uint32", "3000000000", wire.AppendUint32(nil, 3000000000))}},
		{"INT64", "8", "Signed, big-endian.", "1700000000000", []part{val("n", "int64", "1700000000000", wire.AppendInt64(nil, 1700000000000))}},
		{"FLOAT64", "8", "An IEEE 754 double, big-endian.", "1.5", []part{val("x", "float64", "1.5", wire.AppendFloat64(nil, 1.5))}},
		{"UUID", "16", "16 bytes. Kafka's JSON writes it as 22 characters of unpadded base64url; all zeros means none.", "AAECAwQFBgcICQoLDA0ODw",
			[]part{val("topicId", "uuid", "AAECAwQFBgcICQoLDA0ODw", uuid)}},
		{"UNSIGNED_VARINT", "1-5", "7 bits a byte, least significant group first; the high bit says another byte follows.", "300",
			[]part{{label: "n", kind: render.KindVarint, typ: "uvarint", value: "300", b: uv(300)}}},
		{"VARINT", "1-5", "A signed 32-bit value, zig-zag encoded ((n << 1) ^ (n >> 31), so small negatives stay short), then written as an unsigned varint.", "-1",
			[]part{{label: "n", kind: render.KindVarint, typ: "varint", value: "-1", b: wire.AppendVarint(nil, -1)}}},
		{"VARLONG", "1-10", "A signed 64-bit value, zig-zag encoded, as an unsigned varint.", "-1000000",
			[]part{{label: "n", kind: render.KindVarint, typ: "varlong", value: "-1000000", b: wire.AppendVarlong(nil, -1000000)}}},
		{"STRING", "2+n", "An INT16 length, then that many bytes of UTF-8.", `"kwire"`,
			[]part{pre("name length", "int16", "5", i16(5)), val("name", "string", `"kwire"`, []byte("kwire"))}},
		{"NULLABLE_STRING", "2+n", "As STRING; length -1 is null.", "null",
			[]part{pre("name length", "int16", "-1 (null)", i16(-1))}},
		{"COMPACT_STRING", "1+n", "An UNSIGNED_VARINT of length + 1, then the bytes. Used from a message's first flexible version.", `"kwire"`,
			[]part{pre("name length", "uvarint", "6 = 5 + 1", uv(6)), val("name", "compact_string", `"kwire"`, []byte("kwire"))}},
		{"COMPACT_NULLABLE_STRING", "1+n", "As COMPACT_STRING; a length prefix of 0 is null.", "null",
			[]part{pre("name length", "uvarint", "0 (null)", uv(0))}},
		{"BYTES", "4+n", "An INT32 length, then the bytes. NULLABLE_BYTES uses -1 for null.", "01 02 03",
			[]part{pre("data length", "int32", "3", i32(3)), val("data", "bytes", "3 bytes", []byte{1, 2, 3})}},
		{"COMPACT_BYTES", "1+n", "An UNSIGNED_VARINT of length + 1, then the bytes; COMPACT_NULLABLE_BYTES uses 0 for null.", "01 02 03",
			[]part{pre("data length", "uvarint", "4 = 3 + 1", uv(4)), val("data", "compact_bytes", "3 bytes", []byte{1, 2, 3})}},
		{"ARRAY", "4+…", "An INT32 count, then the elements one after another. -1 is a null array where the schema allows it.", "[7, 8] of INT32",
			[]part{pre("ids count", "int32", "2", i32(2)), val("ids[0]", "int32", "7", i32(7)), val("ids[1]", "int32", "8", i32(8))}},
		{"COMPACT_ARRAY", "1+…", "An UNSIGNED_VARINT of count + 1 (0 is null), then the elements.", "[7] of INT32",
			[]part{pre("ids count", "uvarint", "2 = 1 + 1", uv(2)), val("ids[0]", "int32", "7", i32(7))}},
		{"TAG_BUFFER", "1+…", "Flexible versions end every struct with tagged fields: an UNSIGNED_VARINT count, then for each field its tag (UNSIGNED_VARINT), its size (UNSIGNED_VARINT) and that many bytes of value. Tags come in increasing order; a reader skips the tags it does not know. Empty, it is the single byte 00.", "no tagged fields",
			[]part{{label: "tagged fields", kind: render.KindTags, typ: "uvarint", value: "0", b: uv(0)}}},
	}
	var out []typeEntry
	for _, x := range xs {
		t := typeEntry{ID: "type-" + slugText(x.name), Name: x.name, Size: x.size, Desc: x.desc}
		for _, e := range append([]ex{x}, more[x.name]...) {
			g, h := partsGrid(e.parts)
			t.Examples = append(t.Examples, typeExample{Value: e.value, Grid: g, Hex: h})
		}
		out = append(out, t)
	}
	return out
}

func (b *builder) typesPage() error {
	return b.render("types", "types.html", page{Title: "Primitive types", Nav: "types", Body: typeEntries()})
}

// ---- records ----

type recordsData struct {
	Batch, V0, V1 []gridData
	BatchHex      string
	V0Hex, V1Hex  string
	Tree          *treeNode
}

// recordsGrid decodes buf as a records field's bytes alone and draws it.
func recordsGrid(buf []byte) ([]gridData, *treeNode, error) {
	f, err := codec.Decode(buf, codec.Options{Data: "records"})
	if err != nil {
		return nil, nil, err
	}
	id := 0
	return grids(f, "the records bytes"), buildTree(f.Body, -1, &id), nil
}

// legacyMessage builds one message of a magic 0 or 1 message set.
func legacyMessage(magic byte, offset int64, key, value string) []byte {
	var body []byte
	body = append(body, magic, 0) // magic, attributes
	if magic == 1 {
		body = wire.AppendInt64(body, 1748856600000) // 2025-06-02 09:30:00 UTC
	}
	body = wire.AppendInt32(body, int32(len(key)))
	body = append(body, key...)
	body = wire.AppendInt32(body, int32(len(value)))
	body = append(body, value...)
	m := wire.AppendInt64(nil, offset)
	m = wire.AppendInt32(m, int32(4+len(body)))
	m = wire.AppendUint32(m, crc32.ChecksumIEEE(body))
	return append(m, body...)
}

func (b *builder) recordsPage() error {
	// The records a Produce example carries.
	frame, err := codec.ExampleFrame(schema.ByName("Produce"), 9, false)
	if err != nil {
		return err
	}
	f, err := codec.Decode(frame, codec.Options{})
	if err != nil {
		return err
	}
	recs, err := f.Root.Lookup("body.topicData[0].partitionData[0].records")
	if err != nil {
		return err
	}
	batch := recs.Raw
	var d recordsData
	if d.Batch, d.Tree, err = recordsGrid(batch); err != nil {
		return err
	}
	d.BatchHex = xxd(batch)
	v0 := legacyMessage(0, 0, "order-1041", `{"order":1041,"item":"oat milk","qty":1}`)
	v1 := legacyMessage(1, 1, "order-1042", `{"order":1042,"item":"espresso beans","qty":2}`)
	if d.V0, _, err = recordsGrid(v0); err != nil {
		return err
	}
	if d.V1, _, err = recordsGrid(v1); err != nil {
		return err
	}
	d.V0Hex, d.V1Hex = xxd(v0), xxd(v1)
	return b.render("records", "records.html", page{Title: "Record batches and message sets", Nav: "records", Body: d})
}

// ---- framing and headers ----

type headerVersion struct {
	ID     string
	Title  string
	V      int16
	BNF    []bnfLine
	Fields []fieldRow
}

type protocolData struct {
	Request, Response []headerVersion
	Example           []gridData
	ExampleHex        string
	ExampleAPI        string
	ExampleHref       string
	Playground        string
}

func headerVersions(m *schema.Message, name, prefix string) []headerVersion {
	var out []headerVersion
	for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
		d := m.At(v)
		if d == nil {
			continue
		}
		title := name + " (Version: " + strconv.Itoa(int(v)) + ")"
		p := prefix + strconv.Itoa(int(v))
		out = append(out, headerVersion{ID: p, Title: title, V: v,
			BNF: bnf(title, d.Root, v, m.Flexible(v), "#"+p), Fields: fieldRows(-1, m, d.Root, v, m.Flexible(v), p)})
	}
	return out
}

func (b *builder) protocolPage() error {
	d := protocolData{
		Request:  headerVersions(schema.RequestHeader(), "Request Header", "reqh"),
		Response: headerVersions(schema.ResponseHeader(), "Response Header", "resph"),
	}
	a := schema.ByName("ApiVersions")
	v := a.Valid().Hi
	frame, f, err := ExampleFrame(a, v, false)
	if err != nil {
		return err
	}
	d.Example = grids(f, "the frame")
	d.ExampleHex = xxd(frame)
	d.ExampleAPI = a.Name + " v" + itoa(int(v))
	d.ExampleHref = VersionPath(a, v)
	d.Playground = playgroundLink(a, v, false, frame)
	return b.render("protocol", "protocol.html", page{Title: "Framing and headers", Nav: "protocol", Body: d})
}

// ---- errors and enums ----

type errorRow struct {
	Code      int16
	Name      string
	Retriable bool
	Note      string
	APIs      []apiRef
}

type apiRef struct {
	Name, Href string
}

type errorsData struct {
	Errors []errorRow
	Enums  []*schema.Enum
}

func (b *builder) errorsPage() error {
	var d errorsData
	retriable, notes, apis := retriableCodes(), errorNotes(), errorAPIs()
	for c := -1; c < 1000; c++ {
		n := schema.ErrorName(int16(c))
		if n == "" {
			continue
		}
		r := errorRow{Code: int16(c), Name: n, Retriable: retriable[int16(c)], Note: notes[int16(c)]}
		for _, k := range apis[n] {
			if a := schema.ByKey(k); a != nil {
				r.APIs = append(r.APIs, apiRef{a.Name, "api/" + Slug(a) + "/index.html"})
			}
		}
		d.Errors = append(d.Errors, r)
	}
	d.Enums = schema.Enums()
	return b.render("errors", "errors.html", page{Title: "Error codes and enumerations", Nav: "errors", Body: d})
}
