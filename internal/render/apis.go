package render

import (
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
)

// APIInfo summarises one API for lists: the CLI's apis --json, the JSON
// API's /api/apis.
type APIInfo struct {
	Key        int16    `json:"key"`
	Name       string   `json:"name"`
	Names      []string `json:"names,omitempty"`
	Category   string   `json:"category"`
	MinVersion int16    `json:"minVersion"`
	MaxVersion int16    `json:"maxVersion"`
	Removed40  string   `json:"removedInKafka40,omitempty"`
	Unstable   []int16  `json:"unstableVersions,omitempty"`
}

// APIList summarises every API the tables know, ordered by key.
func APIList() []APIInfo {
	all := schema.APIs()
	out := make([]APIInfo, 0, len(all))
	for _, a := range all {
		i := APIInfo{Key: a.Key, Name: a.Name, Category: a.Category,
			MinVersion: a.Request.Valid.Lo, MaxVersion: a.Request.Valid.Hi}
		if len(a.Names) > 1 {
			i.Names = a.Names
		}
		if !a.Removed40.Empty() {
			i.Removed40 = a.Removed40.String()
		}
		if u := a.Request.Unstable; !u.Empty() {
			for v := u.Lo; v <= u.Hi; v++ {
				i.Unstable = append(i.Unstable, v)
			}
		}
		out = append(out, i)
	}
	return out
}

// AppendAPIList appends APIList as a JSON array (the members of APIInfo's
// tags), written through the codec's JSON writer.
func AppendAPIList(dst []byte) []byte {
	w := jsontext.Writer{B: dst}
	w.BeginArray()
	for _, i := range APIList() {
		w.BeginObject()
		w.Key("key")
		w.Int(int64(i.Key))
		w.Key("name")
		w.String([]byte(i.Name))
		if len(i.Names) > 0 {
			w.Key("names")
			w.Strings(i.Names)
		}
		w.Key("category")
		w.String([]byte(i.Category))
		w.Key("minVersion")
		w.Int(int64(i.MinVersion))
		w.Key("maxVersion")
		w.Int(int64(i.MaxVersion))
		if i.Removed40 != "" {
			w.Key("removedInKafka40")
			w.String([]byte(i.Removed40))
		}
		if len(i.Unstable) > 0 {
			w.Key("unstableVersions")
			w.BeginArray()
			for _, v := range i.Unstable {
				w.Int(int64(v))
			}
			w.EndArray()
		}
		w.EndObject()
	}
	w.EndArray()
	return w.B
}
