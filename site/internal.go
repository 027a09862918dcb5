package site

import (
	"html/template"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/storage"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/api"
)

// The records of Kafka's internal topics (__consumer_offsets,
// __cluster_metadata, ...): an index of every topic and record type, and
// one page per record type and value version, drawn as the API pages are
// from an example laid out by codec/storage.
//
//	internal.html                               the topics and their record types
//	internal/<topic>/<record>/index.html        one record type: its versions and what changed
//	internal/<topic>/<record>/v<N>.html         one record type at one value version
//
// A record type's folder has an index, as an API's does, so that its URL
// with the version cut off (internal/<topic>/<record>/) is a page too.

// internalSlug is a topic's or record's folder name (api.InternalSlug:
// the 404 page's hints know the same names).
func internalSlug(s string) string { return api.InternalSlug(s) }

// InternalPath is the page of record type rec of topic t at value version v.
func InternalPath(t *schema.InternalTopic, rec *schema.InternalRecord, v int16) string {
	return "internal/" + internalSlug(t.Name) + "/" + internalSlug(rec.Value.Name) + "/v" + itoa(int(v)) + ".html"
}

type internalIndexData struct {
	Topics []internalTopicRow
}

type internalTopicRow struct {
	Name, Slug, Framing string
	Coordinator         bool
	Records             []internalRecordRow
	// Clashes say, for each record type Kafka's files give more than one
	// schema, which kwire tries first and why (InternalRecord.Clash).
	Clashes []internalClash
}

// internalClash is a record type that two or more schemas share.
type internalClash struct {
	Type  int16
	Names []string // in the order kwire tries them
	Why   string
}

type internalRecordRow struct {
	Type       int16
	Clash      bool // the type is another record's too (the topic's Clashes)
	Key        string
	KeyVersion int16
	Value      string
	Index      string // the record type's index page
	Versions   []versionLink
}

// internalRecordData is a record type's index page.
type internalRecordData struct {
	Topic, TopicSlug string
	Coordinator      bool
	Type             int16
	Value, Key       string
	KeyVersion       int16
	Lo, Hi           int16
	Rows             []internalVersionRow
	Clash            *internalClash
}

type internalVersionRow struct {
	V       int16
	Href    string
	First   bool
	Changes []change
}

type internalPageData struct {
	Topic, TopicSlug string
	Coordinator      bool
	Type             int16
	Value            string
	Key              string
	KeyVersion       int16
	V                int16
	versionNav
	Parts   []*partData
	JSON    template.HTML
	Changes []change
	First   bool
	Error   string
	Clash   *internalClash
}

// clashOf is the clash rec's type is part of in t, nil when none.
func clashOf(t *schema.InternalTopic, rec *schema.InternalRecord) *internalClash {
	if rec.Clash == "" {
		return nil
	}
	c := &internalClash{Type: rec.Type, Why: rec.Clash}
	for _, r := range t.RecordType(rec.Type) {
		c.Names = append(c.Names, r.Value.Name)
	}
	return c
}

// partData is a key or value of the example record.
type partData struct {
	ID, Title, Message string
	Hexdump            string
	Size               int
	Grids              []gridData
	Tree               *treeNode
	BNF                []bnfLine
	Fields             []fieldRow
	Schema             template.HTML
	SchemaSource       string
}

func (b *builder) internalPages() error {
	var idx internalIndexData
	for _, t := range schema.InternalTopics() {
		row := internalTopicRow{Name: t.Name, Slug: internalSlug(t.Name), Framing: t.Framing.String(), Coordinator: t.Framing == schema.CoordinatorFraming}
		for i := range t.Records {
			rec := &t.Records[i]
			r := internalRecordRow{Type: rec.Type, Clash: rec.Clash != "", Value: rec.Value.Name, KeyVersion: rec.KeyVersion, Index: internalRecordPath(t, rec)}
			if c := clashOf(t, rec); c != nil && (len(row.Clashes) == 0 || row.Clashes[len(row.Clashes)-1].Type != c.Type) {
				row.Clashes = append(row.Clashes, *c)
			}
			if rec.Key != nil {
				r.Key = rec.Key.Name
			}
			for v := rec.Value.Valid.Lo; v <= rec.Value.Valid.Hi; v++ {
				r.Versions = append(r.Versions, versionLink{V: v, Href: InternalPath(t, rec, v)})
				if err := b.internalPage(t, rec, v); err != nil {
					return err
				}
			}
			if err := b.internalRecordPage(t, rec); err != nil {
				return err
			}
			row.Records = append(row.Records, r)
		}
		idx.Topics = append(idx.Topics, row)
	}
	return b.render("internalindex", "internal.html", page{Title: "Internal topics", Nav: "internal", Body: idx})
}

// internalRecordPath is the index page of record type rec of topic t.
func internalRecordPath(t *schema.InternalTopic, rec *schema.InternalRecord) string {
	return "internal/" + internalSlug(t.Name) + "/" + internalSlug(rec.Value.Name) + "/index.html"
}

// internalRecordPage writes a record type's index: its value versions,
// each with what changed from the one before.
func (b *builder) internalRecordPage(t *schema.InternalTopic, rec *schema.InternalRecord) error {
	d := internalRecordData{Topic: t.Name, TopicSlug: internalSlug(t.Name), Coordinator: t.Framing == schema.CoordinatorFraming,
		Type: rec.Type, Value: rec.Value.Name, KeyVersion: rec.KeyVersion, Lo: rec.Value.Valid.Lo, Hi: rec.Value.Valid.Hi, Clash: clashOf(t, rec)}
	if rec.Key != nil {
		d.Key = rec.Key.Name
	}
	for v := rec.Value.Valid.Lo; v <= rec.Value.Valid.Hi; v++ {
		d.Rows = append(d.Rows, internalVersionRow{V: v, Href: "v" + itoa(int(v)) + ".html", First: v == rec.Value.Valid.Lo, Changes: changes(rec.Value, v, "value")})
	}
	return b.render("internalrecord", internalRecordPath(t, rec), page{Title: rec.Value.Name + " · " + t.Name, Nav: "internal", Body: d})
}

func (b *builder) internalPage(t *schema.InternalTopic, rec *schema.InternalRecord, v int16) error {
	d := internalPageData{Topic: t.Name, TopicSlug: internalSlug(t.Name), Coordinator: t.Framing == schema.CoordinatorFraming,
		Type: rec.Type, Value: rec.Value.Name, KeyVersion: rec.KeyVersion, V: v, versionNav: newVersionNav(rec.Value.Valid, v), Clash: clashOf(t, rec)}
	if rec.Key != nil {
		d.Key = rec.Key.Name
	}
	d.Changes = changes(rec.Value, v, "value")
	d.First = v == rec.Value.Valid.Lo
	key, value, err := storage.ExampleTopicRecord(t, rec, v)
	if err != nil {
		d.Error = err.Error()
	} else {
		tr := storage.DecodeTopicRecord(t.Name, storage.BytesPart(key), storage.BytesPart(value))
		if tr.Err != nil {
			d.Error = tr.Err.Error()
		}
		if rec.Key != nil {
			d.Parts = append(d.Parts, internalPart("key", "Key", rec.Key, rec.KeyVersion, key, tr.KeyNode))
		}
		d.Parts = append(d.Parts, internalPart("value", "Value", rec.Value, v, value, tr.ValueNode))
		h, err := highlightJSON(jsontext.Indent(nil, tr.AppendJSON(nil)))
		if err != nil {
			return err
		}
		d.JSON = template.HTML(h)
	}
	title := rec.Value.Name + " v" + itoa(int(v))
	return b.render("internal", InternalPath(t, rec, v), page{Title: title + " · " + t.Name, Nav: "internal", Body: d})
}

// internalPart draws one key or value: its bytes as a grid and a tree (framing
// and message), and the message's schema at version v.
func internalPart(id, title string, m *schema.Message, v int16, b []byte, n *tree.Node) *partData {
	p := &partData{ID: id, Title: title, Message: m.Name, Hexdump: xxd(b), Size: len(b)}
	def := m.At(min(v, m.Valid.Hi))
	flex := m.Flexible(v)
	p.BNF = bnf(m.Name+" (Version: "+itoa(int(v))+")", def.Root, v, flex, "#"+id)
	p.Fields = fieldRows(-1, m, def.Root, v, flex, id)
	if js := schemaJSON(m, v); js != nil {
		if h, err := highlightJSON(js); err == nil {
			p.Schema = template.HTML(h)
			p.SchemaSource = "internal/" + def.Source
		}
	}
	if n != nil {
		f := &codec.Frame{Root: n, Buffers: [][]byte{b}, APIKey: -1}
		p.Grids = grids(f, "the "+id)
		idn := 0
		p.Tree = buildTree(n, -1, &idn)
	}
	return p
}
