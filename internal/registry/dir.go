package registry

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec/payload"
)

// Dir reads schemas from files in a folder (--schemas DIR):
//
//	DIR/7.avsc, DIR/7.proto, DIR/7.json   the schema registered as id 7
//	                                      (Avro, Protobuf, JSON Schema)
//	DIR/orders-value.avsc (.proto, .json) the schema of topic orders'
//	DIR/orders-key.avsc                   values (keys) written without
//	                                      the registry's framing
//
// References: a .proto file's imports are files under DIR by their import
// path (google/protobuf/*.proto are built in); an Avro schema may use the
// named types defined in DIR's other .avsc files (e.g.
// com.acme.Address.avsc); a JSON Schema's $refs name DIR's other .json
// files by their file names. Nothing outside DIR is read (os.Root).
type Dir struct {
	root *os.Root
	name string
	mu   sync.Mutex
	ids  map[int]*entry
	subs map[string]*entry
}

// maxFile bounds a schema file.
const maxFile = 4 << 20

// OpenDir opens the folder dir.
func OpenDir(dir string) (*Dir, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("--schemas: %v", err)
	}
	return &Dir{root: r, name: dir, ids: map[int]*entry{}, subs: map[string]*entry{}}, nil
}

var schemaExts = [...]struct{ ext, typ string }{{".avsc", payload.TypeAvro}, {".proto", payload.TypeProtobuf}, {".json", payload.TypeJSON}}

// SchemaByID reads DIR/<id>.avsc, .proto or .json.
func (d *Dir) SchemaByID(id int) (*payload.Schema, error) {
	return d.cached(d.ids, id, "", func() (*payload.Schema, error) {
		s, err := d.find(strconv.Itoa(id))
		if s == nil && err == nil {
			err = fmt.Errorf("%s holds no %d.avsc, %d.proto or %d.json", d.name, id, id, id)
		}
		if s != nil {
			s.ID = id
		}
		return s, err
	})
}

// SchemaFor reads DIR/<topic>-value (or -key) .avsc, .proto or .json;
// nil, nil when there is none.
func (d *Dir) SchemaFor(topic string, key bool) (*payload.Schema, error) {
	sub := topic + "-value"
	if key {
		sub = topic + "-key"
	}
	if !fs.ValidPath(sub) || strings.Contains(sub, "/") {
		return nil, nil
	}
	return d.cached(nil, 0, sub, func() (*payload.Schema, error) { return d.find(sub) })
}

func (d *Dir) cached(ids map[int]*entry, id int, sub string, f func() (*payload.Schema, error)) (*payload.Schema, error) {
	d.mu.Lock()
	var e *entry
	if ids != nil {
		if e = ids[id]; e == nil {
			e = &entry{}
			ids[id] = e
		}
	} else if e = d.subs[sub]; e == nil {
		e = &entry{}
		d.subs[sub] = e
	}
	d.mu.Unlock()
	e.once.Do(func() { e.s, e.err = f() })
	return e.s, e.err
}

// find reads base with the first schema extension there is.
func (d *Dir) find(base string) (*payload.Schema, error) {
	for _, x := range schemaExts {
		text, err := d.read(base + x.ext)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		s := &payload.Schema{Type: x.typ, Text: text}
		if err := d.references(s, base+x.ext); err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, nil
}

func (d *Dir) read(name string) (string, error) {
	f, err := d.root.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return "", fmt.Errorf("%s: %v", path.Join(d.name, name), err)
	}
	if len(b) > maxFile {
		return "", fmt.Errorf("%s: longer than %d bytes", path.Join(d.name, name), maxFile)
	}
	return string(b), nil
}

// protoImport finds a .proto file's imports (protocompile reads the file
// itself; this only says which files of DIR to hand it).
var protoImport = regexp.MustCompile(`\bimport\s+(?:public\s+|weak\s+)?"([^"]+)"\s*;`)

// references gives s the files it may refer to.
func (d *Dir) references(s *payload.Schema, self string) error {
	switch s.Type {
	case payload.TypeProtobuf:
		seen := map[string]*payload.Schema{self: s}
		return d.protoImports(s, seen, 0)
	case payload.TypeAvro, payload.TypeJSON:
		ext := ".avsc"
		if s.Type == payload.TypeJSON {
			ext = ".json"
		}
		entries, err := fs.ReadDir(d.root.FS(), ".")
		if err != nil {
			return fmt.Errorf("%s: %v", d.name, err)
		}
		var names []string
		for _, e := range entries {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ext) || n == self {
				continue
			}
			if _, err := strconv.Atoi(strings.TrimSuffix(n, ext)); err == nil {
				continue // another id's schema, not a shared type
			}
			if strings.HasSuffix(n, "-value"+ext) || strings.HasSuffix(n, "-key"+ext) {
				continue
			}
			names = append(names, n)
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

func (d *Dir) protoImports(s *payload.Schema, seen map[string]*payload.Schema, depth int) error {
	if depth > 16 || len(seen) > maxRefs {
		return errors.New("imports nest deeper than 16 or pull in more than 256 files")
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
