package site

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/codec/schema"
)

// The search every page offers reads search.json, written once per build:
// APIs (by name, old name and key), every field of every message with its
// meaning, error codes (by name, old name and code) with their notes,
// enumerations, the reference pages, the API versions a KIP brought (by
// the KIP's number), the internal topics' record types and the rules
// kwire check applies. site.js ranks it in the browser,
// so the search works on any static host; search.html shows every result
// when the box is submitted (or when a search is linked to).

// searchFile is search.json.
type searchFile struct {
	// APIs: [key, name, slug, lowest version, highest version, [old names], category]
	APIs [][]any `json:"apis"`
	// Fields: [json name, Kafka name, API key, "req"|"resp", path, lo, hi, meaning index or -1]
	Fields [][]any `json:"fields"`
	// Meanings are the distinct meanings the fields point at.
	Meanings []string `json:"meanings"`
	// Errors: [code, name, retriable 0|1, note, [old names]]
	Errors [][]any `json:"errors"`
	// Enums: [enumeration, value, name]
	Enums [][]any `json:"enums"`
	// Pages: [title, href, words] or [title, href, words, what the result says of it]
	Pages [][]any `json:"pages"`
}

func searchData() ([]byte, error) {
	var s searchFile
	for _, a := range schema.APIs() {
		var old []string
		for _, n := range a.Names {
			if n != a.Name {
				old = append(old, n)
			}
		}
		if old == nil {
			old = []string{}
		}
		r := a.Valid()
		s.APIs = append(s.APIs, []any{a.Key, a.Name, Slug(a), r.Lo, r.Hi, old, a.Category})
	}

	// Fields: one entry per API, direction and path, over every version.
	type entry struct {
		name, kname, dir, path string
		key, lo, hi            int16
		meaning                string
	}
	mt := fieldMeanings()
	var all []entry
	for _, a := range schema.APIs() {
		for _, x := range []struct {
			m   *schema.Message
			dir string
		}{{a.Request, "req"}, {a.Response, "resp"}} {
			seen := map[string]int{}
			for _, d := range x.m.Versions {
				// A field occurs where its own versions, those of every
				// struct enclosing it and the layout's all hold: a nested
				// field's range is intersected on the way down, and a field
				// whose intersection is empty occurs nowhere and is left out
				// (with everything under it).
				var walk func(l *schema.Layout, path string, in schema.Range)
				walk = func(l *schema.Layout, path string, in schema.Range) {
					for i := range l.Fields {
						f := &l.Fields[i]
						p := joinField(path, f.JSON)
						lo, hi := max(f.Versions.Lo, in.Lo), min(f.Versions.Hi, in.Hi)
						if lo > hi {
							continue
						}
						if j, ok := seen[p]; ok {
							all[j].lo, all[j].hi = min(all[j].lo, lo), max(all[j].hi, hi)
						} else {
							seen[p] = len(all)
							all = append(all, entry{f.JSON, f.Name, x.dir, p, a.Key, lo, hi, mt.of(x.m.Name, p, f.JSON)})
						}
						if f.Struct != nil {
							walk(f.Struct, p, schema.Range{Lo: lo, Hi: hi})
						}
					}
				}
				walk(d.Root, "", d.Versions)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].name < all[j].name })
	index := map[string]int{}
	for _, e := range all {
		m := -1
		if e.meaning != "" {
			i, ok := index[e.meaning]
			if !ok {
				i = len(s.Meanings)
				index[e.meaning] = i
				s.Meanings = append(s.Meanings, e.meaning)
			}
			m = i
		}
		s.Fields = append(s.Fields, []any{e.name, e.kname, e.key, e.dir, e.path, e.lo, e.hi, m})
	}

	// Errors, with the older names Kafka's clients still print.
	retriable, notes := retriableCodes(), errorNotes()
	oldNames := map[int16][]string{}
	for _, f := range dataLines("retriable.tsv") {
		if c, err := strconv.Atoi(f[0]); err == nil && len(f) > 1 && f[1] != schema.ErrorName(int16(c)) {
			oldNames[int16(c)] = append(oldNames[int16(c)], f[1])
		}
	}
	for c := -1; c < 1000; c++ {
		n := schema.ErrorName(int16(c))
		if n == "" {
			continue
		}
		r := 0
		if retriable[int16(c)] {
			r = 1
		}
		old := oldNames[int16(c)]
		if old == nil {
			old = []string{}
		}
		s.Errors = append(s.Errors, []any{c, n, r, notes[int16(c)], old})
	}
	for _, e := range schema.Enums() {
		for _, v := range e.Values {
			s.Enums = append(s.Enums, []any{e.Name, v.Value, v.Name})
		}
	}
	s.Pages = [][]any{
		{"Framing and headers", "protocol.html", "frame size prefix request header response header correlation id client id flexible versions tagged fields"},
		{"Primitive types", "types.html", "int8 int16 int32 int64 uint16 uint32 float64 boolean string nullable compact varint varlong uuid bytes array tagged fields tag buffer"},
		{"Record batches and message sets", "records.html", "records batch magic record header message set compression gzip snappy lz4 zstd crc timestamp offset delta control transactional"},
		{"Error codes and enumerations", "errors.html", "error codes retriable enumerations enums"},
		{"Playground", "playground/", "decode paste hex dump base64 capture pcap encode"},
		{"JSON API", "json-api.html", "json api http rest curl routes decode encode apis schema worker kwire serve cors limits errors", "decode and encode over HTTP: kwire serve and the Worker"},
	}
	// The versions a KIP brought (version-kips.tsv), by its number as
	// the pages write it ("KIP-516") and as people type it ("KIP 516").
	kips := versionKIPs()
	for _, a := range schema.APIs() {
		vs := kips[a.Key]
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			n, ok := vs[v]
			if !ok || len(n.KIPs) == 0 {
				continue
			}
			var words, names []string
			for _, k := range n.KIPs {
				num := strconv.Itoa(k.Num)
				words = append(words, "KIP-"+num, "KIP "+num)
				names = append(names, "KIP-"+num)
			}
			what := "came with " + strings.Join(names, " and ")
			if n.Note != "" {
				what += ": " + n.Note
			}
			s.Pages = append(s.Pages, []any{a.Name + " v" + strconv.Itoa(int(v)), VersionPath(a, v), strings.Join(words, " ") + " " + n.Note, what})
		}
	}
	// The internal topics' record types, each at its highest value
	// version, and the rules kwire check applies.
	topics := []string{}
	for _, t := range schema.InternalTopics() {
		topics = append(topics, t.Name)
	}
	s.Pages = append(s.Pages, []any{"Internal topics", "internal.html", "internal topics records coordinator metadata " + strings.Join(topics, " "), "the record types of Kafka's internal topics"})
	for _, t := range schema.InternalTopics() {
		for i := range t.Records {
			rec := &t.Records[i]
			words := t.Name + " record type " + strconv.Itoa(int(rec.Type))
			if rec.Key != nil {
				words += " key " + rec.Key.Name
			}
			s.Pages = append(s.Pages, []any{rec.Value.Name + " (" + t.Name + ")", InternalPath(t, rec, rec.Value.Valid.Hi), words,
				"record of " + t.Name + " · value versions " + rec.Value.Valid.String()})
		}
	}
	s.Pages = append(s.Pages, []any{"Protocol rules", "rules/index.html", "rules kwire check conformance protocol violations", "every rule kwire check applies"})
	for _, r := range check.Rules() {
		s.Pages = append(s.Pages, []any{r.ID, "rules/" + r.ID + ".html", r.Statement + " " + r.Level.String() + " rule kwire check",
			r.Severity.String() + " rule · " + r.Statement})
	}
	return json.Marshal(s)
}
