package hostile

import "strings"

// Record payloads (codec/payload), in gzip batches so the files stay small:
// JSON that nests or floods, and Avro and Protobuf data whose schemas (written beside the corpus, read by kwire
// decode --schemas) let a few bytes declare far more than they hold.

// PayloadSchemas are the schema files of the payload entries, by file
// name (ids 1-3, as kwire decode --schemas reads them).
func PayloadSchemas() map[string]string {
	return map[string]string{
		"1.avsc":  `{"type":"array","items":"null"}` + "\n",
		"2.avsc":  `{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}` + "\n",
		"3.proto": "syntax = \"proto3\";\nmessage N {\n  N child = 1;\n  repeated int32 v = 2;\n}\n",
		"4.proto": "syntax = \"proto3\";\npackage h;\nimport \"google/protobuf/any.proto\";\nmessage A {\n  google.protobuf.Any a = 1;\n}\n",
	}
}

// PayloadEntry is what a payload entry's value is, for the payload
// decoder's own test: the record value's bytes, and the limit that must
// cut it short when read with its schema ("" for none).
type PayloadEntry struct {
	Name  string
	Value []byte
	Limit string
	// Browser is the limit that cuts it short, schemas or not, in the
	// playground's payload.wasm (the browser's MaxNodes, 2^18, is less
	// than the CLI's): "" for none.
	Browser string
	// Decoded is the limit that cuts it short, schemas or not, wherever
	// payloads are decoded (kwire decode, payload.wasm): "" for none.
	Decoded string
}

// framedValue puts the schema registry's framing before data.
func framedValue(id int32, data []byte) []byte { return append(be32([]byte{0}, id), data...) }

// Payloads are the payload entries' record values.
func Payloads() []PayloadEntry {
	deep := strings.Repeat("[", 400000) + strings.Repeat("]", 400000)
	flood := "[" + strings.Repeat("0,", 450000) + "0]"
	// Protobuf: N nested 20,000 deep. Each level's header (tag, length)
	// depends on what it wraps, so the headers are made from the inside
	// out and written outermost first (prepending each to a copy would
	// allocate 600 MB, every time the corpus is listed).
	var heads [][]byte
	size := 0
	for i := 0; i < 20000; i++ {
		h := uvar([]byte{0x0a}, uint64(size))
		heads = append(heads, h)
		size += len(h)
	}
	nest := make([]byte, 0, size)
	for i := len(heads) - 1; i >= 0; i-- {
		nest = append(nest, heads[i]...)
	}
	packed := append(uvar([]byte{0x12}, 900000), make([]byte, 900000)...)
	// Protobuf: a google.protobuf.Any holding an Any ... 2,400 deep, the
	// last holding an empty h.A (each level: type_url, then value).
	ld := func(tag byte, b []byte) []byte { return append(uvar([]byte{tag}, uint64(len(b))), b...) }
	anys := ld(0x0a, []byte("/h.A"))
	for i := 0; i < 2400; i++ {
		anys = append(ld(0x0a, []byte("/google.protobuf.Any")), ld(0x12, anys)...)
	}
	anys = ld(0x0a, anys)
	return []PayloadEntry{
		// JSON past MaxDepth is shown as text, and the limit said.
		{"payload-json-deep.bin", []byte(deep), "MaxDepth", "", "MaxDepth"},
		// 450,001 values do not fit in the browser's 2^18 nodes.
		{"payload-json-flood.bin", []byte(flood), "", "MaxNodes", ""},
		{"payload-avro-nulls-declared.bin", framedValue(1, []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0}), "MaxNodes", "", ""},
		{"payload-avro-recursion.bin", framedValue(2, append([]byte(strings.Repeat("\x02", 300000)), 0)), "MaxDepth", "", ""},
		{"payload-protobuf-nesting.bin", framedValue(3, append([]byte{0}, nest...)), "MaxDepth", "", ""},
		{"payload-protobuf-packed-flood.bin", framedValue(3, append([]byte{0}, packed...)), "MaxNodes", "", ""},
		{"payload-protobuf-any-nesting.bin", framedValue(4, append([]byte{0}, anys...)), "MaxDepth", "", ""},
	}
}

func payloadEntries() []Entry {
	attacks := map[string]string{
		"payload-json-deep.bin":             "Produce v3, a gzip batch whose record value is JSON arrays nested 400,000 deep (800 KB): shown as text, never recursed into, the limit said",
		"payload-json-flood.bin":            "Produce v3, a gzip batch whose record value is a JSON array of 450,001 numbers (900 KB): a node each",
		"payload-avro-nulls-declared.bin":   "Produce v3, a gzip batch whose record value is Avro (schema 1: array of null) declaring 2^62 items in 9 bytes, each item zero bytes long",
		"payload-avro-recursion.bin":        "Produce v3, a gzip batch whose record value is Avro (schema 2: a recursive list) 300,000 records deep",
		"payload-protobuf-nesting.bin":      "Produce v3, a gzip batch whose record value is Protobuf (schema 3) of messages nested 20,000 deep",
		"payload-protobuf-packed-flood.bin": "Produce v3, a gzip batch whose record value is Protobuf (schema 3) of 900,000 packed int32 (a node each)",
		"payload-protobuf-any-nesting.bin":  "Produce v3, a gzip batch whose record value is Protobuf (schema 4) of a google.protobuf.Any holding an Any 2,400 deep (62 KB), which protojson expanded outside the budget and MaxDepth",
	}
	var out []Entry
	for _, p := range Payloads() {
		v := p.Value
		e := Entry{Name: p.Name, Mode: Request, Attacks: attacks[p.Name], Expect: Expect{Clean: true, BrowserPayload: p.Browser, Payload: p.Decoded},
			gen: func() []byte { return produce(3, batch(codecGzip, 0, 1, gz(record(0, 0, []byte("k"), v)))) }}
		if p.Limit != "" && p.Decoded == "" {
			// Read as the corpus is (no schemas), only the framing is
			// shown. With them (kwire decode --schemas testdata/hostile:
			// cmd/kwire's TestHostilePayloadsCLI, codec/payload's
			// TestHostilePayloads) the payload stops at the limit.
			e.Attacks += "; with --schemas testdata/hostile: a " + p.Limit + " limit warning"
		}
		out = append(out, e)
	}
	return out
}
