package api

import (
	"net/http"
	"strconv"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/render"
)

func apis(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, render.AppendAPIList(nil))
}

// schemaDoc is GET /api/schema/{api}/{version}.
type schemaDoc struct {
	Key      int16       `json:"key"`
	Name     string      `json:"name"`
	Category string      `json:"category"`
	Version  int16       `json:"version"`
	Request  *messageDoc `json:"request"`
	Response *messageDoc `json:"response"`
}

type messageDoc struct {
	Name          string     `json:"name"`
	Flexible      bool       `json:"flexible"`
	HeaderVersion int16      `json:"headerVersion"`
	BNF           string     `json:"bnf"`
	Fields        []fieldDoc `json:"fields"`
}

type fieldDoc struct {
	Path       string `json:"path"`
	Depth      int    `json:"depth"`
	Type       string `json:"type"`
	Versions   string `json:"versions"`
	Nullable   string `json:"nullable"`
	Tag        string `json:"tag"`
	Default    string `json:"default"`
	EntityType string `json:"entityType"`
	MapKey     bool   `json:"mapKey"`
}

func schemaRoute(w http.ResponseWriter, name, version string) {
	a := schema.ByName(name)
	if a == nil {
		writeError(w, http.StatusNotFound, &Error{Message: "unknown API " + strconv.Quote(name) + " (GET /api/apis lists them)",
			Path: "{api}", Expected: "an API name or key", Found: name})
		return
	}
	n, err := strconv.Atoi(version)
	if err != nil || n < 0 || n > 0x7fff {
		writeError(w, http.StatusBadRequest, &Error{Message: "the version must be a number from 0 to 32767",
			Path: "{version}", Expected: "a version number", Found: version})
		return
	}
	v := int16(n)
	if !a.Request.Valid.Contains(v) {
		writeError(w, http.StatusNotFound, &Error{Message: a.Name + " has versions " + a.Request.Valid.String() + ", not " + version,
			Path: "{version}", Expected: a.Request.Valid.String(), Found: version})
		return
	}
	d := schemaDoc{Key: a.Key, Name: a.Name, Category: a.Category, Version: v,
		Request:  messageInfo(a.Request, v, a.Name+" Request (Version: "+version+")"),
		Response: messageInfo(a.Response, v, a.Name+" Response (Version: "+version+")")}
	writeJSON(w, http.StatusOK, d.appendJSON(nil))
}

// appendJSON appends d as JSON (its fields' tags), through the codec's
// JSON writer.
func (d *schemaDoc) appendJSON(dst []byte) []byte {
	w := jsontext.Writer{B: dst}
	w.BeginObject()
	w.Key("key")
	w.Int(int64(d.Key))
	w.Key("name")
	w.String([]byte(d.Name))
	w.Key("category")
	w.String([]byte(d.Category))
	w.Key("version")
	w.Int(int64(d.Version))
	for _, m := range []struct {
		key string
		doc *messageDoc
	}{{"request", d.Request}, {"response", d.Response}} {
		w.Key(m.key)
		if m.doc == nil {
			w.Null()
			continue
		}
		m.doc.write(&w)
	}
	w.EndObject()
	return w.B
}

func (m *messageDoc) write(w *jsontext.Writer) {
	w.BeginObject()
	w.Key("name")
	w.String([]byte(m.Name))
	w.Key("flexible")
	w.Bool(m.Flexible)
	w.Key("headerVersion")
	w.Int(int64(m.HeaderVersion))
	w.Key("bnf")
	w.String([]byte(m.BNF))
	w.Key("fields")
	w.BeginArray()
	for _, f := range m.Fields {
		w.BeginObject()
		w.Key("path")
		w.String([]byte(f.Path))
		w.Key("depth")
		w.Int(int64(f.Depth))
		for _, kv := range [...][2]string{{"type", f.Type}, {"versions", f.Versions}, {"nullable", f.Nullable},
			{"tag", f.Tag}, {"default", f.Default}, {"entityType", f.EntityType}} {
			w.Key(kv[0])
			w.String([]byte(kv[1]))
		}
		w.Key("mapKey")
		w.Bool(f.MapKey)
		w.EndObject()
	}
	w.EndArray()
	w.EndObject()
}

// messageInfo describes version v of m, or nil when m does not define it.
func messageInfo(m *schema.Message, v int16, title string) *messageDoc {
	if m == nil || m.At(v) == nil {
		return nil
	}
	d := &messageDoc{Name: m.Name, Flexible: m.Flexible(v), HeaderVersion: m.HeaderVersion(v),
		BNF: render.BNF(m, v, title), Fields: []fieldDoc{}}
	for _, r := range render.FieldTable(m, v) {
		d.Fields = append(d.Fields, fieldDoc{Path: r.Path, Depth: r.Depth, Type: r.Type, Versions: r.Versions,
			Nullable: r.Nullable, Tag: r.Tag, Default: r.Default, EntityType: r.EntityType, MapKey: r.MapKey})
	}
	return d
}
