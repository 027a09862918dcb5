package resolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kwire/kwire/codec/payload"
)

// MaxFile bounds a schema file.
const MaxFile = 4 << 20

// Files reads schemas from the files of a folder and its subfolders
// (kwire's --schemas, or the files dropped on the playground), given as
// an fs.FS:
//
//	7.avsc, 7.proto, 7.json             the schema registered as id 7
//	                                    (Avro, Protobuf, JSON Schema)
//	orders-value.avsc (.proto, .json)   the schema of topic orders' values
//	orders-key.avsc                     (keys) written without the
//	                                    registry's framing
//
// A file's name says what it is, in whichever folder it is (users keep
// schemas in a folder per subject or topic: orders/orders-value.avsc).
// Folders are read MaxFolderDepth levels down, MaxEntries files and
// folders listed in all (hidden ones too), nearest the top first, a
// folder no further than the bound (in chunks: one of a million files
// costs what is listed of it); hidden ones (.git) and node_modules are
// not read (Scan). Where two files name one schema (7.avsc
// in two folders), the one nearer the top is it; two as near are an
// error, as is nothing else: which one the user meant cannot be told.
//
// References: a .proto file's imports are files by their import path
// from the top, else from the importing file's own folder (import
// "address.proto" beside it; where both exist the top's, as protoc with
// -I DIR first; within one schema's imports a name stands for one file,
// protoImports) (google/protobuf/*.proto are built in); an Avro schema may
// use the named types defined in the other .avsc files (e.g.
// com.acme.Address.avsc; of files of one name in several folders, the one
// nearest the schema's folder); a JSON Schema's $refs name the other .json
// files by their paths, relative to the schema's own folder. A .json file
// named as no schema (not ID.json, TOPIC-value.json or TOPIC-key.json)
// is a JSON Schema document only when it looks like one (LooksLikeJSONSchema):
// a package.json is not. Nothing outside the fs.FS is read. Answers are
// kept while the cache holds them (cache.go: bounded, negative answers
// asked again after a while); the folder's listing is read again, at most
// once per negativeTTL, when a lookup finds nothing. The files other
// schemas may refer to are read (and a .json judged) once per listing,
// not for each schema (Scan.shared).
type Files struct {
	fsys fs.FS
	name string
	ids  cache[int]
	subs cache[string]

	mu sync.Mutex
	sc *Scan
	// now is time.Now when nil (tests set it).
	now func() time.Time
}

// Bounds of the folders Files reads: levels of folders below the top, and
// files and folders listed in all (a registry's export is far fewer).
const (
	MaxFolderDepth = 8
	MaxEntries     = 10000
)

// Scan is what Files found in its folders: the files with a schema
// extension, nearest the top first (a folder's files before its
// subfolders', each level in name order), and what was not read.
type Scan struct {
	at    time.Time
	Paths []string
	// Notes say what a bound left unread (MaxEntries, MaxFolderDepth).
	Notes []string
	// Errs are folders that could not be listed, each with why.
	Errs []string
	// byName is Paths by file name.
	byName map[string][]string
	// sharedPaths are, by extension, the Paths of files other schemas
	// may refer to (Shared), and sharedNames how many file names they
	// have: a schema's references are looked for among them, not among
	// every path (10,000 schemas by id each looking through the other
	// 9,999 took 7.5 s to check).
	sharedPaths map[string][]string
	sharedNames map[string]int

	// shared are the files other schemas may refer to (Shared) as read
	// for a schema's references, by path: each read and judged once
	// for the listing, not again for every schema (a folder of 255
	// shared .json files of 30 KB and 500 schemas took 3.5 minutes and
	// 66 GB allocated to check, each schema reading and parsing all
	// 7.8 MB again). Their texts are kept up to maxSharedText bytes in
	// all; past that a text is read again, its judgement kept.
	sharedMu    sync.Mutex
	shared      map[string]*sharedFile
	sharedBytes int
	// avro are the AvroRefs of the listing's .avsc files, by the files
	// (avroRefs), made for avroBytes of their texts in all.
	avro      map[string]*avroSet
	avroBytes int
}

// sharedFile is a shared file as read for a listing.
type sharedFile struct {
	text string
	kept bool // text is the file's (else read it again)
	// notSchema is LooksLikeJSONSchema's judgement of a .json file.
	notSchema error
}

// maxSharedText bounds the texts of shared files a listing keeps.
const maxSharedText = 64 << 20

// readShared reads the shared file name of the listing sc (once for the
// listing while maxSharedText holds it) and, for a .json file, judges
// it (once).
func (d *Files) readShared(sc *Scan, name string, json bool) (text string, notSchema, err error) {
	sc.sharedMu.Lock()
	f := sc.shared[name]
	sc.sharedMu.Unlock()
	if f != nil && f.kept {
		return f.text, f.notSchema, nil
	}
	if text, err = d.read(name); err != nil {
		return "", nil, err
	}
	if f != nil {
		return text, f.notSchema, nil
	}
	f = &sharedFile{}
	if json {
		f.notSchema = LooksLikeJSONSchema(text)
	}
	sc.sharedMu.Lock()
	defer sc.sharedMu.Unlock()
	if sc.sharedBytes+len(text) <= maxSharedText {
		f.text, f.kept = text, true
		sc.sharedBytes += len(text)
	}
	if sc.shared == nil {
		sc.shared = map[string]*sharedFile{}
	}
	sc.shared[name] = f
	return text, f.notSchema, nil
}

// Scan lists the folders (again when fresh, else the listing kept).
func (d *Files) Scan(fresh bool) *Scan {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.sc == nil || fresh {
		d.sc = scanFS(d.fsys, d.clock())
	}
	return d.sc
}

func (d *Files) clock() time.Time {
	if d.now != nil {
		return d.now()
	}
	return time.Now()
}

// skipFolder reports whether a folder is never read (as hidden files and
// folders are not: .git, .idea): node_modules (a JavaScript project's packages: thousands of
// package.json files, none a schema).
func skipFolder(name string) bool {
	return name == "node_modules"
}

// scanFS lists fsys breadth first, within the bounds. Each folder is
// listed in chunks (fs.ReadDirFile.ReadDir(n)) and no further once
// MaxEntries entries were listed in all: a folder of a million files
// costs the entries listed, not its size (fs.ReadDir reads and sorts a
// whole folder first). A folder listed whole is taken in name order; one
// the bound cuts, in name order among the entries the file system
// listed first, the note saying so.
func scanFS(fsys fs.FS, at time.Time) *Scan {
	sc := &Scan{at: at, byName: map[string][]string{}, sharedPaths: map[string][]string{}, sharedNames: map[string]int{}}
	type folder struct {
		name  string
		depth int
	}
	queue := []folder{{".", 0}}
	entries := 0
	deep := ""
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		es, whole, err := listFolder(fsys, f.name, MaxEntries-entries)
		if err != nil {
			sc.Errs = append(sc.Errs, f.name+"/: "+err.Error())
			continue
		}
		entries += len(es)
		for _, e := range es {
			n := e.Name()
			if strings.HasPrefix(n, ".") || e.IsDir() && skipFolder(n) {
				continue
			}
			p := path.Join(f.name, n)
			if e.IsDir() {
				if f.depth+1 > MaxFolderDepth {
					if deep == "" {
						deep = p
					}
					continue
				}
				queue = append(queue, folder{p, f.depth + 1})
				continue
			}
			if schemaType(n) != "" {
				sc.Paths = append(sc.Paths, p)
				sc.byName[n] = append(sc.byName[n], p)
				if ext := path.Ext(n); Shared(n, ext) {
					sc.sharedPaths[ext] = append(sc.sharedPaths[ext], p)
					if len(sc.byName[n]) == 1 {
						sc.sharedNames[ext]++
					}
				}
			}
		}
		if !whole {
			sc.Notes = append(sc.Notes, "read the first "+strconv.Itoa(MaxEntries)+" files and folders, nearest the top first; "+unread(f.name, len(es), len(queue)))
			return sc
		}
	}
	if deep != "" {
		sc.Notes = append(sc.Notes, "folders are read "+strconv.Itoa(MaxFolderDepth)+" levels down; "+deep+"/ and any others deeper were not read")
	}
	return sc
}

// listChunk is how many entries listFolder asks a folder for at a time.
const listChunk = 256

// listFolder lists the folder name of fsys, at most most entries (hidden
// ones too: each costs its listing) sorted by name, and whether they are
// all of its entries. The folder is read in chunks and no further than
// most+1 entries, so its size does not matter; an fs.FS whose folders
// cannot be read in chunks (no fs.ReadDirFile) is listed with
// fs.ReadDir.
func listFolder(fsys fs.FS, name string, most int) (es []fs.DirEntry, whole bool, err error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	d, ok := f.(fs.ReadDirFile)
	if !ok {
		if es, err = fs.ReadDir(fsys, name); err != nil {
			return nil, false, err
		}
	} else {
		for len(es) <= most {
			chunk, err := d.ReadDir(min(listChunk, most+1-len(es)))
			es = append(es, chunk...)
			if err == io.EOF || err == nil && len(chunk) == 0 {
				break
			}
			if err != nil {
				return nil, false, err
			}
		}
		slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	if len(es) > most {
		return es[:max(most, 0)], false, nil
	}
	return es, true, nil
}

// unread says what the bound left unread: the rest of the folder name,
// of which read entries were listed, and the folders after it.
func unread(name string, read, after int) string {
	what := name + "/"
	if name == "." {
		what = "the top folder"
	}
	if read == 0 {
		what += " was not read"
	} else {
		what += " was read in part (" + strconv.Itoa(read) + " of its entries, the first in name order of those the file system listed first)"
	}
	switch after {
	case 0:
		return what
	case 1:
		return what + ", nor the 1 folder after it"
	}
	return what + ", nor the " + strconv.Itoa(after) + " folders after it"
}

// schemaType is the schema type a file's extension says ("" for none; a
// bare extension, ".avsc", names nothing).
func schemaType(name string) string {
	ext := path.Ext(name)
	if ext == name {
		return ""
	}
	for _, x := range Exts {
		if x.Ext == ext {
			return x.Type
		}
	}
	return ""
}

// depth is how many folders down p is.
func depth(p string) int { return strings.Count(p, "/") }

// locate finds the file of the schema named base (an id, TOPIC-value or
// TOPIC-key) in sc: "" when none. Of the files named base.avsc, .proto or
// .json, those nearest the top count; in one folder the extensions are
// taken in Exts' order, in two it is an error.
func (sc *Scan) locate(base string) (string, error) {
	best, bestDepth := "", -1
	var rivals []string
	for _, x := range Exts {
		for _, p := range sc.byName[base+x.Ext] {
			switch d := depth(p); {
			case bestDepth < 0 || d < bestDepth:
				best, bestDepth, rivals = p, d, nil
			case d == bestDepth && path.Dir(p) != path.Dir(best):
				rivals = append(rivals, p)
			}
		}
	}
	if len(rivals) > 0 {
		return "", fmt.Errorf("%s and %s both name %s, as near the top: which is meant cannot be told (move or rename all but one)", best, strings.Join(rivals, " and "), base)
	}
	return best, nil
}

// locate is Scan.locate over the listing kept, listed again when it finds
// nothing and the listing is older than negativeTTL (a file added since).
func (d *Files) locate(base string) (string, error) {
	sc := d.Scan(false)
	p, err := sc.locate(base)
	if p == "" && err == nil && d.clock().Sub(sc.at) >= negativeTTL {
		p, err = d.Scan(true).locate(base)
	}
	return p, err
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

// find reads the file of the schema named base (locate), nil, nil when
// there is none.
func (d *Files) find(base string) (*payload.Schema, error) {
	name, err := d.locate(base)
	if name == "" || err != nil {
		return nil, err
	}
	text, err := d.read(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // gone since the folder was listed
	}
	if err != nil {
		return nil, err
	}
	s := &payload.Schema{Type: schemaType(name), Text: text}
	if err := d.references(s, name); err != nil {
		return nil, err
	}
	return s, nil
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

// Shared reports whether a file is one that other schemas may refer to
// (Avro named types, JSON Schema documents): not a schema by id or by
// topic. name is the file's name, without its folder.
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
		seen := map[string]protoFile{self: {self, s}}
		return d.protoImports(s, self, seen, 0)
	case payload.TypeAvro, payload.TypeJSON:
		ext := ".avsc"
		if s.Type == payload.TypeJSON {
			ext = ".json"
		}
		var names []string
		nearest := map[string]int{} // Avro: a file name's index in names
		sc := d.Scan(false)
		// Every name but self's, at most, is one of names (for JSON,
		// every path): more than maxRefs said before any is looked at.
		most := len(sc.sharedPaths[ext])
		if s.Type == payload.TypeAvro {
			most = sc.sharedNames[ext]
		}
		if most-1 > maxRefs {
			return fmt.Errorf("%s: more than %d shared %s files", d.name, maxRefs, ext)
		}
		for _, p := range sc.sharedPaths[ext] {
			if p == self {
				continue
			}
			// Avro types are named by what the files define, not by
			// path: of two files of one name (a copy of
			// com.acme.Address.avsc in each topic's folder) the one
			// nearest the schema's is taken, not whichever is parsed
			// last.
			if i, ok := nearest[path.Base(p)]; ok && s.Type == payload.TypeAvro {
				if nearer(path.Dir(self), p, names[i]) {
					names[i] = p
				}
				continue
			}
			nearest[path.Base(p)] = len(names)
			names = append(names, p)
		}
		sort.Strings(names)
		if len(names) > maxRefs {
			return fmt.Errorf("%s: more than %d shared %s files", d.name, maxRefs, ext)
		}
		if s.Type == payload.TypeAvro {
			if u, refs := d.avroRefs(sc, self, names); u != nil {
				s.References, s.Avro = refs, u
				return nil
			}
		}
		for _, n := range names {
			text, notSchema, err := d.readShared(sc, n, s.Type == payload.TypeJSON)
			if errors.Is(err, fs.ErrNotExist) {
				continue // gone since the folder was listed
			}
			if err != nil {
				return err
			}
			if notSchema != nil {
				continue // a package.json, a config: no document a $ref names
			}
			// A $ref resolves against the schema's own place: a
			// reference is named by its path from the schema's folder.
			s.References = append(s.References, payload.Reference{Name: relPath(path.Dir(self), n), Schema: &payload.Schema{Type: s.Type, Text: text}})
		}
	}
	return nil
}

// maxAvroText bounds the texts of the .avsc files a listing's AvroRefs
// are made for, all told: they keep those files' parsed types.
const maxAvroText = 16 << 20

// avroRefs are the shared .avsc files names (the schema self's
// references: those nearest its folder, sorted, but self) as the
// listing's AvroRefs made for them (with self, when self is one), which
// keeps their parses for every schema of the listing they are the
// references of: a chain of 200 files, each naming the type of the one
// before, cost every file's check a parse of the chain below it, 2.6 s
// for the folder. nil when the files cannot all be read, or past
// maxAvroText (the references are then read for the schema alone).
func (d *Files) avroRefs(sc *Scan, self string, names []string) (*payload.AvroRefs, []payload.Reference) {
	all := names
	if i, found := slices.BinarySearch(names, self); !found && Shared(path.Base(self), ".avsc") {
		all = slices.Insert(slices.Clone(names), i, self)
	}
	key := strings.Join(all, "\n")
	sc.sharedMu.Lock()
	a := sc.avro[key]
	sc.sharedMu.Unlock()
	if a == nil {
		a = &avroSet{}
		size := 0
		for _, n := range all {
			text, _, err := d.readShared(sc, n, false)
			if err != nil {
				return nil, nil
			}
			size += len(text)
			a.refs = append(a.refs, payload.Reference{Name: n, Schema: &payload.Schema{Type: payload.TypeAvro, Text: text}})
		}
		sc.sharedMu.Lock()
		defer sc.sharedMu.Unlock()
		if b := sc.avro[key]; b != nil {
			a = b // made meanwhile
		} else {
			if sc.avroBytes+size > maxAvroText {
				return nil, nil
			}
			sc.avroBytes += size
			a.u = payload.NewAvroRefs(a.refs)
			if sc.avro == nil {
				sc.avro = map[string]*avroSet{}
			}
			sc.avro[key] = a
		}
	}
	refs := make([]payload.Reference, 0, len(names))
	for i, r := range a.refs {
		if all[i] != self {
			// A reference is named by its path from the schema's folder.
			refs = append(refs, payload.Reference{Name: relPath(path.Dir(self), r.Name), Schema: r.Schema})
		}
	}
	return a.u, refs
}

// avroSet is the AvroRefs of a listing's .avsc files, and the references
// it was made for (named by their paths from the top).
type avroSet struct {
	u    *payload.AvroRefs
	refs []payload.Reference
}

// protoFile is a .proto file of a schema's imports: the file read (its
// path from the top) and its schema.
type protoFile struct {
	at string
	s  *payload.Schema
}

// protoImports gives s, the file at self, the files it imports, and
// theirs. An import is the file by that path from the top, as protoc's
// -I DIR reads it; when there is none, the file by that path from the
// importing file's own folder (import "address.proto" for the file
// beside it, as with a second -I naming that folder). Where both exist
// the top's is it, as protoc takes its first import path's. The
// reference keeps the import's own name, the one the compiler looks up:
// so within one schema's imports a name is one file, and a name that
// two importers' folders make two files is an error (protoc too knows a
// file by its import name alone).
func (d *Files) protoImports(s *payload.Schema, self string, seen map[string]protoFile, depth int) error {
	if depth > maxDepth || len(seen) > maxRefs {
		return fmt.Errorf("imports nest deeper than %d or pull in more than %d files", maxDepth, maxRefs)
	}
	for _, m := range protoImport.FindAllStringSubmatch(s.Text, -1) {
		imp := m[1]
		if strings.HasPrefix(imp, "google/protobuf/") {
			continue // protocompile has the well-known types
		}
		r, ok := seen[imp]
		if ok && (r.at == imp || r.at == path.Join(path.Dir(self), imp)) {
			s.References = append(s.References, payload.Reference{Name: imp, Schema: r.s})
			continue // the file this importer's folder would find too
		}
		at, text, err := d.readImport(imp, path.Dir(self))
		if err != nil {
			return err
		}
		if ok { // at is another file than the one the name stands for
			return fmt.Errorf("import %q: %s imports it as %s, but it was already imported as %s: a schema's imports know a file by its import name alone (import one of them by its path from the top)", imp, self, at, r.at)
		}
		n := &payload.Schema{Type: payload.TypeProtobuf, Text: text}
		seen[imp] = protoFile{at, n}
		if err := d.protoImports(n, at, seen, depth+1); err != nil {
			return err
		}
		s.References = append(s.References, payload.Reference{Name: imp, Schema: n})
	}
	return nil
}

// readImport reads the file a .proto file in the folder dir imports as
// imp (protoImports): the path it was read at and its text.
func (d *Files) readImport(imp, dir string) (at, text string, err error) {
	if !fs.ValidPath(imp) {
		// Not handed to the fs.FS at all: what is outside the folder is
		// not the folder's to refuse.
		return "", "", fmt.Errorf("import %q: not a path inside %s (no \"..\", \".\", empty or leading \"/\" parts, as protoc's import paths)", imp, d.name)
	}
	text, err = d.read(imp)
	if err == nil {
		return imp, text, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || dir == "." {
		return "", "", fmt.Errorf("import %q: %v", imp, err)
	}
	at = path.Join(dir, imp)
	text, err = d.read(at)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("import %q: neither %s nor %s exists", imp, imp, at)
	}
	if err != nil {
		return "", "", fmt.Errorf("import %q: %v", imp, err)
	}
	return at, text, nil
}

// nearer reports whether file a is nearer the folder dir than file b:
// more of dir's folders in common, then nearer the top, then first by name.
func nearer(dir, a, b string) bool {
	ca, cb := common(dir, path.Dir(a)), common(dir, path.Dir(b))
	if ca != cb {
		return ca > cb
	}
	if da, db := depth(a), depth(b); da != db {
		return da < db
	}
	return a < b
}

// common is how many leading folders two folders share.
func common(x, y string) int {
	if x == "." || y == "." {
		return 0
	}
	xs, ys := strings.Split(x, "/"), strings.Split(y, "/")
	n := 0
	for n < len(xs) && n < len(ys) && xs[n] == ys[n] {
		n++
	}
	return n
}

// relPath is target's path from the folder dir, both from the top.
func relPath(dir, target string) string {
	if dir == "." {
		return target
	}
	ds, ts := strings.Split(dir, "/"), strings.Split(target, "/")
	i := 0
	for i < len(ds) && i < len(ts)-1 && ds[i] == ts[i] {
		i++
	}
	return strings.Repeat("../", len(ds)-i) + strings.Join(ts[i:], "/")
}

// jsonSchemaWords are the keywords that say a JSON object is a JSON
// Schema: those a schema's structure is made of, and no configuration
// file's (package.json's "type": "module" is no schema type; tsconfig's
// "$schema" names schemastore, not json-schema.org).
var jsonSchemaWords = [...]string{"$id", "$ref", "$defs", "definitions", "properties", "patternProperties", "additionalProperties", "items", "allOf", "anyOf", "oneOf", "enum", "const"}

// jsonSchemaTypes are the values of a schema's "type".
var jsonSchemaTypes = [...]string{"object", "array", "string", "number", "integer", "boolean", "null"}

// schemaText finds, in text that is not JSON, what says it was meant to
// be a JSON Schema: a key of jsonSchemaWords, a "type" naming one of
// jsonSchemaTypes, or json-schema.org.
var schemaText = regexp.MustCompile(`"(?:` + quoted(jsonSchemaWords[:]) + `)"\s*:|"type"\s*:\s*\[?\s*"(?:` + quoted(jsonSchemaTypes[:]) + `)"|json-schema\.org/`)

// quoted is words as alternatives of a regular expression.
func quoted(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(q, "|")
}

// LooksLikeJSONSchema reports why text, a .json file named as no
// schema, is not a JSON Schema document (nil when it is one, or meant to
// be one, broken): it is JSON but neither true, false nor an object with
// a "$schema" naming json-schema.org's drafts, a "type" naming JSON
// Schema's types (or a list of them) or one of jsonSchemaWords; or it is
// not JSON and holds none of them either (a tsconfig.json's comments).
func LooksLikeJSONSchema(text string) error {
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		if schemaText.MatchString(text) {
			return nil // meant as a schema: its parser says what is wrong
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(text, int(se.Offset))
			return fmt.Errorf("not JSON (line %d, column %d: %v)", line, col, err)
		}
		return errors.New("not JSON")
	}
	switch v := v.(type) {
	case bool:
		return nil
	case map[string]any:
		if sv, ok := v["$schema"].(string); ok && strings.Contains(sv, "json-schema.org/") {
			return nil
		}
		if isSchemaType(v["type"]) {
			return nil
		}
		for _, w := range jsonSchemaWords {
			if _, ok := v[w]; ok {
				return nil
			}
		}
		return errors.New("a JSON object with none of JSON Schema's keywords")
	case []any:
		return errors.New("a JSON array, not a JSON Schema")
	default:
		return errors.New("a JSON value that is no object, not a JSON Schema")
	}
}

// isSchemaType reports whether t is a JSON Schema "type": a type name or
// a list of them.
func isSchemaType(t any) bool {
	switch t := t.(type) {
	case string:
		return slices.Contains(jsonSchemaTypes[:], t)
	case []any:
		for _, x := range t {
			if _, ok := x.(string); !ok || !isSchemaType(x) {
				return false
			}
		}
		return len(t) > 0
	}
	return false
}

// position is the line and column of byte offset off of text, from 1.
func position(text string, off int) (line, col int) {
	off = min(max(off, 0), len(text))
	line = 1 + strings.Count(text[:off], "\n")
	return line, off - strings.LastIndexByte(text[:off], '\n')
}

// NotSchema is Check's error for a file that is plainly no schema (a
// .json named as no schema that is not a JSON Schema, or a schema's file
// that another, nearer the top, stands for): it is skipped, not an error
// the user must fix.
type NotSchema struct{ Why string }

func (e *NotSchema) Error() string { return e.Why }

// ErrNotSchemaName is Check's error for a file whose name no lookup reads.
var ErrNotSchemaName = errors.New("not a schema file's name: ID.avsc, ID.proto or ID.json (schema id ID), TOPIC-value or TOPIC-key with one of those extensions (a topic's schema), or another .avsc, .proto or .json file they refer to")

// Check reports whether the file name can be used: nil, or why not (a
// name no lookup reads, ErrNotSchemaName; a file that is plainly no
// schema, *NotSchema; two files as near the top naming one schema; a
// file that cannot be read; a schema that does not parse with the files
// it may refer to, saying where when the parser does).
func (d *Files) Check(name string) error {
	typ := schemaType(path.Base(name))
	if typ == "" {
		return ErrNotSchemaName
	}
	ext := path.Ext(name)
	if base := strings.TrimSuffix(path.Base(name), ext); !Shared(path.Base(name), ext) {
		at, err := d.locate(base)
		if err != nil {
			return err
		}
		if at != "" && at != name {
			return &NotSchema{Why: "not read: " + at + " is " + base + "'s schema, nearer the top or first in its folder"}
		}
	}
	text, err := d.read(name)
	if err != nil {
		return err
	}
	if typ == payload.TypeJSON && Shared(path.Base(name), ext) {
		if err := LooksLikeJSONSchema(text); err != nil {
			return &NotSchema{Why: err.Error() + ", named as no schema (ID.json, TOPIC-value.json or TOPIC-key.json): not read"}
		}
	}
	s := &payload.Schema{Type: typ, Text: text}
	if err := d.references(s, name); err != nil {
		return err
	}
	return payload.Check(s, name)
}
