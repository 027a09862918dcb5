package resolve

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/payload"
)

// MaxFile bounds a schema file.
const MaxFile = 4 << 20

// Files reads schemas from the files of a folder (kwire's --schemas, or
// the files dropped on the playground), given as an fs.FS:
//
//	7.avsc, 7.proto, 7.json             the schema registered as id 7
//	                                    (Avro, Protobuf, JSON Schema)
//	orders-value.avsc (.proto, .json)   the schema of topic orders' values
//	orders-key.avsc                     (keys) written without the
//	                                    registry's framing
//
// References: a .proto file's imports are files by their import path
// (google/protobuf/*.proto are built in); an Avro schema may use the named
// types defined in the other .avsc files of the top folder (e.g.
// com.acme.Address.avsc); a JSON Schema's $refs name the other .json
// files by their file names. Nothing outside the fs.FS is read. Answers
// are kept while the cache holds them (cache.go: bounded, negative
// answers asked again after a while).
type Files struct {
	fsys fs.FS
	name string
	ids  cache[int]
	subs cache[string]
}

// NewFiles returns a Files over fsys, which messages call name.
func NewFiles(name string, fsys fs.FS) *Files {
	return &Files{fsys: fsys, name: name}
}

// Exts are the schema files' extensions and the type each holds, in the
// order a name is looked for.
var Exts = [...]struct{ Ext, Type string }{{".avsc", payload.TypeAvro}, {".proto", payload.TypeProtobuf}, {".json", payload.TypeJSON}}

// SchemaByID reads <id>.avsc, .proto or .json; nil, nil when there is none.
func (d *Files) SchemaByID(id int) (*payload.Schema, error) {
	return d.ids.get(id, func() (*payload.Schema, error) {
		s, err := d.find(strconv.Itoa(id))
		if s != nil {
			s.ID = id
		}
		return s, err
	})
}

// SchemaFor reads <topic>-value (or -key) .avsc, .proto or .json; nil,
// nil when there is none.
func (d *Files) SchemaFor(topic string, key bool) (*payload.Schema, error) {
	sub := topic + "-value"
	if key {
		sub = topic + "-key"
	}
	if !fs.ValidPath(sub) || strings.Contains(sub, "/") {
		return nil, nil
	}
	return d.subs.get(sub, func() (*payload.Schema, error) { return d.find(sub) })
}

// find reads base with the first schema extension there is.
func (d *Files) find(base string) (*payload.Schema, error) {
	for _, x := range Exts {
		text, err := d.read(base + x.Ext)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		s := &payload.Schema{Type: x.Type, Text: text}
		if err := d.references(s, base+x.Ext); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, nil
}

func (d *Files) read(name string) (string, error) {
	f, err := d.fsys.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return "", fmt.Errorf("%s: %v", path.Join(d.name, name), err)
	}
	if len(b) > MaxFile {
		return "", fmt.Errorf("%s: longer than %d bytes", path.Join(d.name, name), MaxFile)
	}
	return string(b), nil
}

// protoImport finds a .proto file's imports (protocompile reads the file
// itself; this only says which files to hand it).
var protoImport = regexp.MustCompile(`\bimport\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;`)

// Shared reports whether a file of the top folder is one that other
// schemas may refer to (Avro named types, JSON Schema documents): not a
// schema by id or by topic.
func Shared(name, ext string) bool {
	if !strings.HasSuffix(name, ext) {
		return false
	}
	if _, err := strconv.Atoi(strings.TrimSuffix(name, ext)); err == nil {
		return false // another id's schema, not a shared type
	}
	return !strings.HasSuffix(name, "-value"+ext) && !strings.HasSuffix(name, "-key"+ext)
}

// references gives s the files it may refer to.
func (d *Files) references(s *payload.Schema, self string) error {
	switch s.Type {
	case payload.TypeProtobuf:
		seen := map[string]*payload.Schema{self: s}
		return d.protoImports(s, seen, 0)
	case payload.TypeAvro, payload.TypeJSON:
		ext := ".avsc"
		if s.Type == payload.TypeJSON {
			ext = ".json"
		}
		entries, err := fs.ReadDir(d.fsys, ".")
		if err != nil {
			return fmt.Errorf("%s: %v", d.name, err)
		}
		var names []string
		for _, e := range entries {
			if n := e.Name(); !e.IsDir() && n != self && Shared(n, ext) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		if len(names) > maxRefs {
			return fmt.Errorf("%s: more than %d shared %s files", d.name, maxRefs, ext)
		}
		for _, n := range names {
			text, err := d.read(n)
			if err != nil {
				return err
			}
			s.References = append(s.References, payload.Reference{Name: n, Schema: &payload.Schema{Type: s.Type, Text: text}})
		}
	}
	return nil
}

func (d *Files) protoImports(s *payload.Schema, seen map[string]*payload.Schema, depth int) error {
	if depth > maxDepth || len(seen) > maxRefs {
		return fmt.Errorf("imports nest deeper than %d or pull in more than %d files", maxDepth, maxRefs)
	}
	for _, m := range protoImport.FindAllStringSubmatch(s.Text, -1) {
		imp := m[1]
		if strings.HasPrefix(imp, "google/protobuf/") {
			continue // protocompile has the well-known types
		}
		if r, ok := seen[imp]; ok {
			s.References = append(s.References, payload.Reference{Name: imp, Schema: r})
			continue
		}
		text, err := d.read(imp)
		if err != nil {
			return fmt.Errorf("import %q: %v", imp, err)
		}
		r := &payload.Schema{Type: payload.TypeProtobuf, Text: text}
		seen[imp] = r
		if err := d.protoImports(r, seen, depth+1); err != nil {
			return err
		}
		s.References = append(s.References, payload.Reference{Name: imp, Schema: r})
	}
	return nil
}

// ErrNotSchemaName is Check's error for a file whose name no lookup reads.
var ErrNotSchemaName = errors.New("not a schema file's name: ID.avsc, ID.proto or ID.json (schema id ID), TOPIC-value or TOPIC-key with one of those extensions (a topic's schema), or another .avsc, .proto or .json file they refer to")

// Check reports whether the file name can be used: nil, or why not (a
// name no lookup reads, ErrNotSchemaName; a file that cannot be read; a
// schema that does not parse with the files it may refer to, saying
// where when the parser does).
func (d *Files) Check(name string) error {
	ext := path.Ext(name)
	typ := ""
	for _, x := range Exts {
		if x.Ext == ext {
			typ = x.Type
		}
	}
	if typ == "" || ext == name || strings.HasSuffix(name, "/"+ext) {
		return ErrNotSchemaName
	}
	if strings.Contains(name, "/") && typ != payload.TypeProtobuf {
		return errors.New("only .proto files (imports, by their path) are read from folders; schemas by id or topic, Avro named types and JSON Schema documents are read from the top folder")
	}
	text, err := d.read(name)
	if err != nil {
		return err
	}
	s := &payload.Schema{Type: typ, Text: text}
	if err := d.references(s, name); err != nil {
		return err
	}
	return payload.Check(s, name)
}
