package resolve

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/internal/hostile"
)

func TestFilesLayout(t *testing.T) {
	fsys := fstest.MapFS{
		"7.avsc":                {Data: []byte(`{"type":"record","name":"Order","namespace":"com.acme","fields":[{"name":"ship","type":"com.acme.Address"}]}`)},
		"com.acme.Address.avsc": {Data: []byte(`{"type":"record","name":"Address","namespace":"com.acme","fields":[]}`)},
		"8.avsc":                {Data: []byte(`"string"`)},
		"orders-value.avsc":     {Data: []byte(`"long"`)},
		"9.proto":               {Data: []byte(`syntax = "proto3"; import "acme/money.proto"; import "google/protobuf/timestamp.proto"; message O {}`)},
		"acme/money.proto":      {Data: []byte(`syntax = "proto3"; package acme; import "acme/cur.proto"; message Money {}`)},
		"acme/cur.proto":        {Data: []byte(`syntax = "proto3"; package acme; message Cur {}`)},
		"10.proto":              {Data: []byte(`syntax = "proto3"; import "../x.proto"; message X {}`)},
		"orders-key.json":       {Data: []byte(`{"type":"object"}`)},
	}
	f := NewFiles("given", fsys)
	s, err := f.SchemaByID(7)
	if err != nil || s == nil || s.ID != 7 || s.Type != payload.TypeAvro {
		t.Fatalf("7: %+v %v", s, err)
	}
	// Only the shared type is a reference: not the other ids' schemas, not
	// a topic's.
	if len(s.References) != 1 || s.References[0].Name != "com.acme.Address.avsc" {
		t.Fatalf("7's references: %+v", s.References)
	}
	s, err = f.SchemaByID(9)
	if err != nil || s.Type != payload.TypeProtobuf || len(s.References) != 1 || s.References[0].Name != "acme/money.proto" ||
		len(s.References[0].Schema.References) != 1 || s.References[0].Schema.References[0].Name != "acme/cur.proto" {
		t.Fatalf("9: %+v %v", s, err)
	}
	if _, err := f.SchemaByID(10); err == nil || !strings.Contains(err.Error(), `import "../x.proto"`) {
		t.Fatalf("an import outside the files: %v", err)
	}
	if s, err := f.SchemaByID(11); s != nil || err != nil {
		t.Fatalf("no such id: %+v %v", s, err)
	}
	if s, err := f.SchemaFor("orders", false); err != nil || s == nil || s.Text != `"long"` {
		t.Fatalf("orders-value: %+v %v", s, err)
	}
	if s, err := f.SchemaFor("orders", true); err != nil || s == nil || s.Type != payload.TypeJSON {
		t.Fatalf("orders-key: %+v %v", s, err)
	}
	if s, err := f.SchemaFor("../orders", true); err != nil || s != nil {
		t.Fatalf("a topic that is a path: %+v %v", s, err)
	}
}

func TestFilesTooLong(t *testing.T) {
	f := NewFiles("given", fstest.MapFS{"1.json": {Data: make([]byte, MaxFile+1)}})
	if _, err := f.SchemaByID(1); err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("%v", err)
	}
}

// fake is a registry's answers by path, counting requests.
type fake struct {
	answers map[string]struct {
		status int
		body   string
	}
	calls int
	down  error
}

func (f *fake) get(path string) (int, []byte, error) {
	f.calls++
	if f.down != nil {
		return 0, nil, f.down
	}
	a, ok := f.answers[path]
	if !ok {
		return 404, []byte(`{"error_code":40403,"message":"Schema not found"}`), nil
	}
	return a.status, []byte(a.body), nil
}

func TestRegistryAnswers(t *testing.T) {
	f := &fake{answers: map[string]struct {
		status int
		body   string
	}{
		"schemas/ids/1":                  {200, `{"schema":"syntax = \"proto3\"; import \"c.proto\"; message T {}","schemaType":"PROTOBUF","references":[{"name":"c.proto","subject":"c","version":2}]}`},
		"subjects/c/versions/2":          {200, `{"subject":"c","version":2,"id":5,"schema":"syntax = \"proto3\"; message C {}","schemaType":"PROTOBUF"}`},
		"schemas/ids/2":                  {200, `<html>proxy</html>`},
		"schemas/ids/3":                  {200, `{"schema":""}`},
		"schemas/ids/4":                  {502, `bad gateway`},
		"schemas/ids/5":                  {200, strings.Repeat(" ", MaxBody+1)},
		"schemas/ids/6":                  {200, `{"schema":"\"int\"","references":[{"name":"r","subject":"a/b","version":0}]}`},
		"subjects/a%2Fb/versions/latest": {200, `{"schema":"\"int\""}`},
		"subjects/loop/versions/1":       {200, `{"schema":"\"int\"","references":[{"name":"r","subject":"loop","version":1}]}`},
		"schemas/ids/7":                  {200, `{"schema":"\"int\"","references":[{"name":"r","subject":"loop","version":1}]}`},
	}}
	r := NewRegistry("http://registry/", f.get)
	for i := 0; i < 3; i++ {
		s, err := r.SchemaByID(1)
		if err != nil || s.ID != 1 || s.Type != payload.TypeProtobuf || len(s.References) != 1 || s.References[0].Subject != "c" || s.References[0].Version != 2 ||
			!strings.Contains(s.References[0].Schema.Text, "message C") {
			t.Fatalf("1: %+v %v", s, err)
		}
	}
	if f.calls != 2 {
		t.Fatalf("%d requests for a schema and its reference asked three times, want 2", f.calls)
	}
	for id, want := range map[int]string{
		2: "GET http://registry/schemas/ids/2: the answer is not the registry's JSON",
		3: "the answer holds no schema",
		4: "schemas/ids/4: 502 Bad Gateway",
		5: "the answer is longer than",
		7: "references nest deeper than 16",
		8: "GET http://registry/schemas/ids/8: Schema not found (40403 Not Found)",
	} {
		if _, err := r.SchemaByID(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d: %v, want %q", id, err, want)
		}
	}
	if s, err := r.SchemaByID(6); err != nil || s.References[0].Schema.Text != `"int"` {
		t.Fatalf("a reference to the latest version of a subject with a slash: %+v %v", s, err)
	}
	if s, err := r.SchemaFor("orders", false); s != nil || err != nil {
		t.Fatalf("SchemaFor: %+v %v", s, err)
	}
}

// Once the registry gives no answer, every later lookup fails at once
// with that error; an error with an answer (a 404) does not take it down.
func TestRegistryDown(t *testing.T) {
	f := &fake{}
	r := NewRegistry("http://registry/", f.get)
	if _, err := r.SchemaByID(1); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("1: %v", err)
	}
	f.down = &Unreachable{Err: errors.New("registry is unreachable")}
	_, err := r.SchemaByID(2)
	var u *Unreachable
	if !errors.As(err, &u) {
		t.Fatalf("2: %v", err)
	}
	calls := f.calls
	for id := 3; id < 6; id++ {
		if _, err2 := r.SchemaByID(id); err2 != err {
			t.Fatalf("%d: %v", id, err2)
		}
	}
	if f.calls != calls {
		t.Fatalf("%d requests to a registry that is down", f.calls-calls)
	}
}

type fixed struct {
	s   *payload.Schema
	err error
}

func (f fixed) SchemaByID(int) (*payload.Schema, error)         { return f.s, f.err }
func (f fixed) SchemaFor(string, bool) (*payload.Schema, error) { return f.s, f.err }

// TestChain: the first schema a source has is the answer; with none, every
// source's error is (a folder that lacks the file does not hide that the
// registry after it is down), and SchemaFor gives the first answer.
func TestChain(t *testing.T) {
	a, b := &payload.Schema{Text: "a"}, &payload.Schema{Text: "b"}
	e1, e2 := errors.New("one"), errors.New("two")
	for _, c := range []struct {
		chain Chain
		id    *payload.Schema
		idErr error
		for_  *payload.Schema
		forE  error
	}{
		{Chain{fixed{nil, nil}, fixed{b, nil}}, b, nil, b, nil},
		{Chain{fixed{a, nil}, fixed{b, nil}}, a, nil, a, nil},
		{Chain{fixed{nil, e1}, fixed{b, nil}}, b, nil, nil, e1},
		{Chain{fixed{nil, e1}, fixed{nil, e2}}, nil, errors.New("one; two"), nil, e1},
		{Chain{fixed{nil, nil}, fixed{nil, e2}}, nil, e2, nil, e2},
		{Chain{}, nil, nil, nil, nil},
	} {
		if s, err := c.chain.SchemaByID(1); s != c.id || err != c.idErr && (c.idErr == nil || err == nil || err.Error() != c.idErr.Error()) {
			t.Errorf("%v: SchemaByID %v %v", c.chain, s, err)
		}
		if s, err := c.chain.SchemaFor("t", false); s != c.for_ || err != c.forE {
			t.Errorf("%v: SchemaFor %v %v", c.chain, s, err)
		}
	}
}

// TestChainSaysEverySourcesError: with --schemas and --schema-registry
// both given, a schema neither has says why of each, and the registry's
// error can still be told apart (errors.As).
func TestChainSaysEverySourcesError(t *testing.T) {
	down := &Unreachable{Err: errors.New("schema registry http://r/ is unreachable: connection refused")}
	c := Chain{fixed{nil, errors.New("tc holds no 999.avsc, 999.proto or 999.json")}, fixed{nil, down}, fixed{nil, nil}}
	_, err := c.SchemaByID(999)
	if err == nil || err.Error() != "tc holds no 999.avsc, 999.proto or 999.json; schema registry http://r/ is unreachable: connection refused" {
		t.Fatalf("error %v", err)
	}
	var u *Unreachable
	if !errors.As(err, &u) || u != down {
		t.Fatalf("the registry's error is not found in %v", err)
	}
}

// TestRegistryBackoff: with SetRetry, a registry that gave no answer is
// asked again after the backoff, which doubles with each failure up to its
// most, lookups failing at once in between; an answer ends it.
func TestRegistryBackoff(t *testing.T) {
	now := time.Unix(0, 0)
	up, asked := false, 0
	r := NewRegistry("http://r/", func(path string) (int, []byte, error) {
		asked++
		if !up {
			return 0, nil, &Unreachable{Err: errors.New("down")}
		}
		return 200, []byte(`{"schema":"\"string\""}`), nil
	})
	r.SetRetry(time.Second, 3*time.Second, func() time.Time { return now })
	step := func(d time.Duration, wantAsked int, wantErr bool) {
		t.Helper()
		now = now.Add(d)
		_, err := r.SchemaByID(1)
		if asked != wantAsked || (err != nil) != wantErr {
			t.Fatalf("at %v: asked %d times, want %d; error %v", now.Sub(time.Unix(0, 0)), asked, wantAsked, err)
		}
	}
	step(0, 1, true)
	step(999*time.Millisecond, 1, true) // within 1 s
	step(time.Millisecond, 2, true)     // tried: down again, now for 2 s
	step(1999*time.Millisecond, 2, true)
	step(time.Millisecond, 3, true) // and for 3 s, the most
	step(2999*time.Millisecond, 3, true)
	up = true
	step(time.Millisecond, 4, false)
	step(0, 4, false) // kept
	up = false
	if _, err := r.SchemaByID(2); err == nil || asked != 5 {
		t.Fatalf("down again: %v, asked %d", err, asked)
	}
	step(0, 5, false) // answers kept stay
}

// TestRegistryDownUntil: Down says when the backoff lets the next lookup ask
// (the playground's status says it), and nothing once the registry
// answered; without SetRetry it is down for good, with no time.
func TestRegistryDownUntil(t *testing.T) {
	now := time.Unix(100, 0)
	up := false
	get := func(path string) (int, []byte, error) {
		if !up {
			return 0, nil, &Unreachable{Err: errors.New("down")}
		}
		return 200, []byte(`{"schema":"\"string\""}`), nil
	}
	r := NewRegistry("http://r/", get)
	r.SetRetry(time.Second, 3*time.Second, func() time.Time { return now })
	if until, err := r.Down(); err != nil || !until.IsZero() {
		t.Fatalf("before any lookup: %v %v", until, err)
	}
	r.SchemaByID(1)
	if until, err := r.Down(); err == nil || !until.Equal(now.Add(time.Second)) {
		t.Fatalf("down: until %v, %v", until, err)
	}
	now = now.Add(time.Second)
	up = true
	if _, err := r.SchemaByID(1); err != nil {
		t.Fatal(err)
	}
	if until, err := r.Down(); err != nil || !until.IsZero() {
		t.Fatalf("back: %v %v", until, err)
	}
	up = false
	never := NewRegistry("http://r/", get)
	never.SchemaByID(1)
	if until, err := never.Down(); err == nil || !until.IsZero() {
		t.Fatalf("without SetRetry: %v %v", until, err)
	}
}

// TestFilesCheck: each file given says whether a lookup can use it, and
// why not: a name no lookup reads, a schema that does not parse (where,
// when the parser says). A folder's .avsc is a shared type, as the top
// folder's are.
func TestFilesCheck(t *testing.T) {
	fsys := fstest.MapFS{
		"1.avsc":                {Data: []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"com.acme.Address"}]}`)},
		"com.acme.Address.avsc": {Data: []byte(`{"type":"record","name":"Address","namespace":"com.acme","fields":[{"name":"s","type":"string"}]}`)},
		"2.avsc":                {Data: []byte(`{"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]}`)},
		"3.proto":               {Data: []byte("syntax = \"proto3\";\nimport \"acme/money.proto\";\nmessage O { acme.Money m = 1; }")},
		"acme/money.proto":      {Data: []byte(`syntax = "proto3"; package acme; message Money { int64 units = 1; }`)},
		"4.proto":               {Data: []byte("syntax = \"proto3\";\nmessage O { int32 a = 1 }")},
		"5.json":                {Data: []byte(`{bad`)},
		"orders-value.json":     {Data: []byte(`{"type":"object"}`)},
		"foo.txt":               {Data: []byte(`{}`)},
		".avsc":                 {Data: []byte(`"int"`)},
		"acme/x.avsc":           {Data: []byte(`"int"`)},
	}
	f := NewFiles("the schemas given", fsys)
	for name, want := range map[string]string{
		"1.avsc": "", "com.acme.Address.avsc": "", "3.proto": "", "acme/money.proto": "", "orders-value.json": "",
		"2.avsc":      "the AVRO schema does not parse",
		"4.proto":     "4.proto:2:25: syntax error",
		"5.json":      "not JSON at line 1, column 2",
		"foo.txt":     "not a schema file's name",
		".avsc":       "not a schema file's name",
		"acme/x.avsc": "",
	} {
		err := f.Check(name)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// TestFilesSubfolders: schemas are found in subfolders by their file
// names (a folder per topic or subject); the one nearest the top is
// taken, two as near are an error naming both; hidden folders and
// node_modules are not read; a JSON Schema's $refs name documents by
// their path from its own folder, and a package.json is no document.
func TestFilesSubfolders(t *testing.T) {
	fsys := fstest.MapFS{
		"orders/orders-value.json":     {Data: []byte(`{"type":"object","properties":{"ship":{"$ref":"address.json"},"pay":{"$ref":"../common/money.json"}}}`)},
		"orders/address.json":          {Data: []byte(`{"type":"object"}`)},
		"orders/package.json":          {Data: []byte(`{"name":"x","type":"module"}`)},
		"common/money.json":            {Data: []byte(`{"type":"integer"}`)},
		"subjects/clicks-value/3.avsc": {Data: []byte(`{"type":"record","name":"C","fields":[{"name":"a","type":"com.acme.A"}]}`)},
		"types/com.acme.A.avsc":        {Data: []byte(`{"type":"fixed","name":"A","namespace":"com.acme","size":1}`)},
		"4.avsc":                       {Data: []byte(`"int"`)},
		"archive/4.avsc":               {Data: []byte(`"long"`)},
		"a/5.avsc":                     {Data: []byte(`"int"`)},
		"b/5.proto":                    {Data: []byte(`syntax = "proto3"; message M {}`)},
		".git/6.avsc":                  {Data: []byte(`"int"`)},
		"node_modules/x/7.avsc":        {Data: []byte(`"int"`)},
	}
	f := NewFiles("given", fsys)
	s, err := f.SchemaFor("orders", false)
	if err != nil || s == nil || s.Type != payload.TypeJSON {
		t.Fatalf("orders-value: %+v %v", s, err)
	}
	var refs []string
	for _, r := range s.References {
		refs = append(refs, r.Name)
	}
	if strings.Join(refs, " ") != "../common/money.json address.json" {
		t.Fatalf("references by path from orders/: %v", refs)
	}
	if err := f.Check("orders/orders-value.json"); err != nil {
		t.Fatalf("the $refs resolve: %v", err)
	}
	s, err = f.SchemaByID(3)
	if err != nil || s == nil || s.Type != payload.TypeAvro || len(s.References) != 1 {
		t.Fatalf("3, in a subject's folder, with a shared type of another folder: %+v %v", s, err)
	}
	if err := f.Check("subjects/clicks-value/3.avsc"); err != nil {
		t.Fatal(err)
	}
	if s, err := f.SchemaByID(4); err != nil || s == nil || s.Text != `"int"` {
		t.Fatalf("4: the top folder's: %+v %v", s, err)
	}
	var ns *NotSchema
	if err := f.Check("archive/4.avsc"); !errors.As(err, &ns) || !strings.Contains(err.Error(), "not read: 4.avsc is 4's schema") {
		t.Fatalf("archive/4.avsc: %v", err)
	}
	if _, err := f.SchemaByID(5); err == nil || err.Error() != "a/5.avsc and b/5.proto both name 5, as near the top: which is meant cannot be told (move or rename all but one)" {
		t.Fatalf("5: %v", err)
	}
	if err := f.Check("a/5.avsc"); err == nil || errors.As(err, &ns) {
		t.Fatalf("a/5.avsc: an error, not a skip: %v", err)
	}
	for _, id := range []int{6, 7} {
		if s, err := f.SchemaByID(id); s != nil || err != nil {
			t.Fatalf("%d: hidden folders and node_modules are not read: %+v %v", id, s, err)
		}
	}
	if err := f.Check("orders/package.json"); !errors.As(err, &ns) {
		t.Fatalf("package.json: %v", err)
	}
}

// TestFilesListedAgain: a schema added after the folder was listed is
// found once the listing is older than negativeTTL, as the negative
// answer is asked again.
func TestFilesListedAgain(t *testing.T) {
	fsys := fstest.MapFS{"1.avsc": {Data: []byte(`"int"`)}}
	now := time.Unix(1000, 0)
	f := NewFiles("given", fsys)
	f.now = func() time.Time { return now }
	f.ids.now, f.subs.now = f.now, f.now
	if s, err := f.SchemaByID(2); s != nil || err != nil {
		t.Fatalf("%+v %v", s, err)
	}
	fsys["sub/2.avsc"] = &fstest.MapFile{Data: []byte(`"long"`)}
	now = now.Add(negativeTTL)
	if s, err := f.SchemaByID(2); s == nil || err != nil {
		t.Fatalf("added: %+v %v", s, err)
	}
}

// TestFilesScanBounds: the folders are read MaxFolderDepth levels down
// and MaxEntries entries in all, nearest the top first, each bound said.
func TestFilesScanBounds(t *testing.T) {
	fsys := fstest.MapFS{"1.avsc": {Data: []byte(`"int"`)}}
	deep := strings.Repeat("d/", MaxFolderDepth)
	fsys[deep+"2.avsc"] = &fstest.MapFile{Data: []byte(`"int"`)}
	fsys[deep+"e/3.avsc"] = &fstest.MapFile{Data: []byte(`"int"`)}
	sc := NewFiles("given", fsys).Scan(true)
	if strings.Join(sc.Paths, " ") != "1.avsc "+deep+"2.avsc" {
		t.Fatalf("%v", sc.Paths)
	}
	if len(sc.Notes) != 1 || sc.Notes[0] != "folders are read 8 levels down; "+deep+"e/ and any others deeper were not read" {
		t.Fatalf("%q", sc.Notes)
	}
	many := fstest.MapFS{}
	for i := 0; i < MaxEntries; i++ {
		many["f/"+strconv.Itoa(i)+".avsc"] = &fstest.MapFile{Data: []byte(`"int"`)}
	}
	many["top.avsc"] = &fstest.MapFile{Data: []byte(`"int"`)}
	sc = NewFiles("given", many).Scan(true)
	if len(sc.Paths) != MaxEntries-1 || sc.Paths[0] != "top.avsc" { // the folder f is an entry
		t.Fatalf("%d paths, first %s", len(sc.Paths), sc.Paths[0])
	}
	if len(sc.Notes) != 1 || !strings.HasPrefix(sc.Notes[0], "read the first 10000 files and folders, nearest the top first; f/") {
		t.Fatalf("%q", sc.Notes)
	}
}

// TestLooksLikeJSONSchema: what a .json named as no schema must be to be
// read as a JSON Schema document.
func TestLooksLikeJSONSchema(t *testing.T) {
	for text, schema := range map[string]bool{
		`true`:                       true,
		`{"type":"object"}`:          true,
		`{"type":["string","null"]}`: true,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema"}`: true,
		`{"$defs":{}}`:                          true,
		`{"properties":{"a":{}}}`:               true,
		`{"type": "object", "properties": {},}`: true, // broken, meant as one
		`{"name":"x","version":"1.0.0","type":"module","dependencies":{"a":"^1"}}`: false,
		`{"$schema":"https://json.schemastore.org/tsconfig","compilerOptions":{}}`: false,
		"// a comment\n{\"compilerOptions\":{}}":                                   false,
		`{}`:                                                                       false,
		`[1,2]`:                                                                    false,
		`"text"`:                                                                   false,
		`not JSON`:                                                                 false,
		`{"type":[]}`:                                                              false,
	} {
		if err := LooksLikeJSONSchema(text); (err == nil) != schema {
			t.Errorf("%s: %v", text, err)
		}
	}
}

// TestFilesAvroTypeNearestTheSchema: two files of one Avro type's name in
// different folders (a copy in each topic's folder) are not both handed
// to the parser, where the last would win, silently: each schema gets the
// copy nearest its own folder.
func TestFilesAvroTypeNearestTheSchema(t *testing.T) {
	fsys := fstest.MapFS{
		"orders/orders-value.avsc":     {Data: []byte(`{"type":"record","name":"O","fields":[{"name":"a","type":"com.acme.A"}]}`)},
		"orders/com.acme.A.avsc":       {Data: []byte(`{"type":"fixed","name":"A","namespace":"com.acme","size":1}`)},
		"payments/com.acme.A.avsc":     {Data: []byte(`{"type":"fixed","name":"A","namespace":"com.acme","size":2}`)},
		"payments/payments-value.avsc": {Data: []byte(`{"type":"record","name":"P","fields":[{"name":"a","type":"com.acme.A"}]}`)},
		"top-value.avsc":               {Data: []byte(`{"type":"record","name":"T","fields":[{"name":"a","type":"com.acme.A"}]}`)},
	}
	f := NewFiles("given", fsys)
	for topic, want := range map[string]string{"orders": "orders/com.acme.A.avsc", "payments": "payments/com.acme.A.avsc", "top": "orders/com.acme.A.avsc"} {
		s, err := f.SchemaFor(topic, false)
		if err != nil || s == nil || len(s.References) != 1 || s.References[0].Schema.Text != string(fsys[want].Data) {
			t.Errorf("%s: %+v %v, want the type of %s", topic, s, err, want)
		}
	}
}

// TestFilesProtoImportBeside: a .proto file's import is the file by that
// path from the top, else the one by that path from the importing file's
// own folder (a folder per subject: import "address.proto" for the file
// beside it, and that file's own imports beside it in turn); where both
// exist, the top's; a name that two importers' folders make two files is
// an error naming both; an import found in neither place says both.
func TestFilesProtoImportBeside(t *testing.T) {
	fsys := fstest.MapFS{
		"orders/orders-value.proto":   {Data: []byte(`syntax = "proto3"; import "address.proto"; import "common/money.proto"; message O { Address a = 1; }`)},
		"orders/address.proto":        {Data: []byte(`syntax = "proto3"; import "street.proto"; message Address { Street s = 1; }`)},
		"orders/street.proto":         {Data: []byte(`syntax = "proto3"; message Street {}`)},
		"common/money.proto":          {Data: []byte(`syntax = "proto3"; message Money {}`)},
		"orders/common/money.proto":   {Data: []byte(`syntax = "proto3"; message Money { int64 units = 1; }`)},
		"refunds/refunds-value.proto": {Data: []byte(`syntax = "proto3"; import "nope.proto"; message R {}`)},
		"mixed/mixed-value.proto":     {Data: []byte(`syntax = "proto3"; import "a.proto"; import "sub/b.proto"; message M {}`)},
		"mixed/a.proto":               {Data: []byte(`syntax = "proto3"; message A {}`)},
		"mixed/sub/b.proto":           {Data: []byte(`syntax = "proto3"; import "a.proto"; message B {}`)},
		"mixed/sub/a.proto":           {Data: []byte(`syntax = "proto3"; message A2 {}`)},
	}
	f := NewFiles("given", fsys)
	s, err := f.SchemaFor("orders", false)
	if err != nil || s == nil || len(s.References) != 2 {
		t.Fatalf("orders: %+v %v", s, err)
	}
	addr, money := s.References[0], s.References[1]
	if addr.Name != "address.proto" || addr.Schema.Text != string(fsys["orders/address.proto"].Data) ||
		len(addr.Schema.References) != 1 || addr.Schema.References[0].Name != "street.proto" || addr.Schema.References[0].Schema.Text != string(fsys["orders/street.proto"].Data) {
		t.Errorf("orders' address.proto: %+v", addr)
	}
	if money.Name != "common/money.proto" || money.Schema.Text != string(fsys["common/money.proto"].Data) {
		t.Errorf("orders' common/money.proto, the top's: %+v", money)
	}
	if err := f.Check("orders/orders-value.proto"); err != nil {
		t.Errorf("orders/orders-value.proto with the files beside it: %v", err)
	}
	if _, err := f.SchemaFor("refunds", false); err == nil || err.Error() != `import "nope.proto": neither nope.proto nor refunds/nope.proto exists` {
		t.Errorf("refunds: %v", err)
	}
	if _, err := f.SchemaFor("mixed", false); err == nil || err.Error() != `import "a.proto": mixed/sub/b.proto imports it as mixed/sub/a.proto, but it was already imported as mixed/a.proto: a schema's imports know a file by its import name alone (import one of them by its path from the top)` {
		t.Errorf("mixed: %v", err)
	}
}

// TestFilesProtoImportOutside: an import that is no path inside the
// folder ("../x.proto", "/etc/x.proto") is said so, and never handed to
// the fs.FS: Files kept out of the folder only because the fs.FS refused
// it (FuzzFiles' first seeds).
func TestFilesProtoImportOutside(t *testing.T) {
	for _, imp := range []string{"../x.proto", "/x.proto", "a//x.proto", "./x.proto"} {
		w := &watchedFS{FS: fstest.MapFS{"a/1.proto": {Data: []byte(`syntax = "proto3"; import "` + imp + `"; message M {}`)}, "x.proto": {Data: []byte(`syntax = "proto3"; message X {}`)}}, t: t}
		_, err := NewFiles("given", w).SchemaByID(1)
		if want := `import "` + imp + `": not a path inside given`; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", imp, err, want)
		}
	}
}

// TestFilesSharedReadOncePerListing: the files other schemas may refer
// to are read and judged once for the listing, not again for every
// schema's references: a folder of 255 shared .json files of 30 KB and
// 500 schemas took 3.5 minutes and 66 GB allocated to check (kwire's
// --schemas at start), each schema reading and parsing all 7.8 MB again.
// A .json that is no schema (package.json) is still no document.
func TestFilesSharedReadOncePerListing(t *testing.T) {
	var props []string
	for i := range 400 {
		props = append(props, fmt.Sprintf(`"p%03d":{"type":"string","description":"a property described at some length"}`, i))
	}
	shared := `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
	fsys := fstest.MapFS{
		"shared/package.json": {Data: []byte(`{"name":"x","type":"module"}`)},
		"99.json":             {Data: []byte(`{"$ref":"shared/s000.json"}`)},
	}
	for i := range 64 {
		fsys[fmt.Sprintf("shared/s%03d.json", i)] = &fstest.MapFile{Data: []byte(shared)}
	}
	for i := range 98 {
		fsys[fmt.Sprintf("%d.json", i)] = &fstest.MapFile{Data: []byte(`{"type":"string"}`)}
	}
	w := &watchedFS{FS: fsys, t: t}
	f := NewFiles("given", w)
	paths := f.Scan(true).Paths
	got := hostile.Allocated(func() {
		for _, p := range paths {
			var ns *NotSchema
			if err := f.Check(p); err != nil && !(p == "shared/package.json" && errors.As(err, &ns)) {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
	if w.n > 2*len(fsys) {
		t.Errorf("%d files opened checking %d", w.n, len(fsys))
	}
	if got > 64<<20 {
		t.Errorf("%d bytes allocated checking %d files of %d bytes of shared text", got, len(fsys), 64*len(shared))
	}
	s, err := f.SchemaByID(99)
	if err != nil || s == nil || len(s.References) != 64 {
		t.Fatalf("99: %v, %d references, want the 64 documents (no package.json)", err, len(s.References))
	}
}

// TestFilesReferencesLookAtSharedFilesOnly: a schema's references are
// looked for among the listing's shared files, not among every path: a
// folder of 10,000 schemas took 7.5 s to check, each looking through
// every other file's name (here, 3,000 topics' schemas, each name judged
// 3,000 times, cost 580 MB allocated); more shared files than maxRefs
// are said before any is looked at.
func TestFilesReferencesLookAtSharedFilesOnly(t *testing.T) {
	fsys := fstest.MapFS{"types/com.acme.A.avsc": {Data: []byte(`{"type":"fixed","name":"A","namespace":"com.acme","size":1}`)}}
	for i := range 3000 {
		fsys[fmt.Sprintf("t%d-value.avsc", i)] = &fstest.MapFile{Data: []byte(`"int"`)}
	}
	f := NewFiles("given", fsys)
	paths := f.Scan(true).Paths
	got := hostile.Allocated(func() {
		for _, p := range paths {
			if err := f.Check(p); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		}
	})
	if got > 64<<20 {
		t.Errorf("%d bytes allocated checking %d files", got, len(paths))
	}
	if s, err := f.SchemaFor("t7", false); err != nil || s == nil || len(s.References) != 1 || s.References[0].Name != "types/com.acme.A.avsc" {
		t.Fatalf("t7-value: %+v %v", s, err)
	}
	for i := range maxRefs + 1 {
		fsys[fmt.Sprintf("types/T%d.avsc", i)] = &fstest.MapFile{Data: []byte(`"int"`)}
	}
	if err := NewFiles("given", fsys).Check("t7-value.avsc"); err == nil || err.Error() != "given: more than 256 shared .avsc files" {
		t.Fatalf("%v", err)
	}
}

// hugeFS is a folder "big" of n files, made up as they are listed (no
// memory of its own), beside top.avsc; it counts the entries it handed
// out and refuses to list "big" whole (ReadDir(-1), as fs.ReadDir does).
type hugeFS struct {
	n      int
	handed atomic.Int64
}

func (h *hugeFS) Open(name string) (fs.File, error) {
	switch name {
	case ".":
		return &hugeDir{h: h, names: []string{"big", "top.avsc"}}, nil
	case "big":
		return &hugeDir{h: h, n: h.n}, nil
	case "top.avsc":
		return fstest.MapFS{"top.avsc": {Data: []byte(`"int"`)}}.Open(name)
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

type hugeDir struct {
	h     *hugeFS
	names []string // the top folder's
	n     int      // big's files, f0000000.avsc ...
	at    int
}

func (d *hugeDir) Stat() (fs.FileInfo, error) { return hugeInfo{"dir", true}, nil }
func (d *hugeDir) Read([]byte) (int, error)   { return 0, errors.New("a folder") }
func (d *hugeDir) Close() error               { return nil }

func (d *hugeDir) ReadDir(n int) ([]fs.DirEntry, error) {
	total := d.n + len(d.names)
	if n <= 0 {
		return nil, errors.New("listed whole: all of a folder of any size read at once")
	}
	var es []fs.DirEntry
	for ; d.at < total && len(es) < n; d.at++ {
		if d.names != nil {
			es = append(es, fs.FileInfoToDirEntry(hugeInfo{d.names[d.at], d.names[d.at] == "big"}))
		} else {
			// Not in name order, as a file system may list them.
			es = append(es, fs.FileInfoToDirEntry(hugeInfo{fmt.Sprintf("f%07d.avsc", (d.at*7919)%d.n), false}))
		}
	}
	d.h.handed.Add(int64(len(es)))
	if len(es) == 0 {
		return nil, io.EOF
	}
	return es, nil
}

type hugeInfo struct {
	name string
	dir  bool
}

func (i hugeInfo) Name() string { return i.name }
func (i hugeInfo) Size() int64  { return 5 }
func (i hugeInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i hugeInfo) ModTime() time.Time { return time.Time{} }
func (i hugeInfo) IsDir() bool        { return i.dir }
func (i hugeInfo) Sys() any           { return nil }

// TestFilesScanBoundedListing: a folder is listed in chunks and no
// further than MaxEntries entries in all: one of 5,000,000 files costs
// the 10,000 listed (fs.ReadDir read and sorted every entry of a folder
// before the bound was looked at). The entries taken are in name order
// among those listed, and the note says what was left.
func TestFilesScanBoundedListing(t *testing.T) {
	h := &hugeFS{n: 5_000_000}
	sc := NewFiles("given", h).Scan(true)
	if len(sc.Errs) != 0 {
		t.Fatalf("%q", sc.Errs)
	}
	if n := h.handed.Load(); n > MaxEntries+listChunk {
		t.Errorf("%d entries listed, want at most %d", n, MaxEntries+listChunk)
	}
	if len(sc.Paths) != MaxEntries-1 || sc.Paths[0] != "top.avsc" || !slices.IsSorted(sc.Paths[1:]) {
		t.Fatalf("%d paths, first %v", len(sc.Paths), sc.Paths[:min(3, len(sc.Paths))])
	}
	want := "read the first 10000 files and folders, nearest the top first; big/ was read in part (9998 of its entries, the first in name order of those the file system listed first)"
	if len(sc.Notes) != 1 || sc.Notes[0] != want {
		t.Fatalf("%q\nwant %q", sc.Notes, want)
	}
}

// TestFilesScanBoundAtAFolder: the bound spent where a folder ends says
// which folders after it were not read; empty folders cost nothing.
func TestFilesScanBoundAtAFolder(t *testing.T) {
	fsys := fstest.MapFS{"a/1.avsc": {Data: []byte(`"int"`)}, "b/2.avsc": {Data: []byte(`"int"`)}, "c/3.avsc": {Data: []byte(`"int"`)}, "e": {Mode: fs.ModeDir}}
	for i := range MaxEntries - 5 {
		fsys[fmt.Sprintf("%05d.txt", i)] = &fstest.MapFile{}
	}
	sc := NewFiles("given", fsys).Scan(true)
	if strings.Join(sc.Paths, " ") != "a/1.avsc" {
		t.Fatalf("%v", sc.Paths)
	}
	if want := "read the first 10000 files and folders, nearest the top first; b/ was not read, nor the 2 folders after it"; len(sc.Notes) != 1 || sc.Notes[0] != want {
		t.Fatalf("%q", sc.Notes)
	}
	// The top's entries and a/1.avsc are the 10,000; e/ is empty.
	delete(fsys, "c/3.avsc")
	delete(fsys, "b/2.avsc")
	fsys["09995.txt"], fsys["09996.txt"] = &fstest.MapFile{}, &fstest.MapFile{}
	if sc := NewFiles("given", fsys).Scan(true); strings.Join(sc.Paths, " ") != "a/1.avsc" || len(sc.Notes) != 0 {
		t.Fatalf("%v %q", sc.Paths, sc.Notes)
	}
}

// TestFilesAvroChainLinear: a folder of .avsc files each naming the
// type of the one before is checked with each file parsed about once,
// not once for every schema above it in the chain: 200 of them (20 KB)
// and 50 schemas naming the last took 3.2 s and 1.2 GB allocated to
// check (every schema parsing the chain below it again, each parse
// copying every type parsed before it), now 50 MB. The schemas read as
// before: each with every other file of the folder its reference.
func TestFilesAvroChainLinear(t *testing.T) {
	fsys := avroChain(200, 50)
	f := NewFiles("given", fsys)
	paths := f.Scan(true).Paths
	got := hostile.Allocated(func() {
		for _, p := range paths {
			if err := f.Check(p); err != nil {
				t.Errorf("%s: %v", p, err)
			}
		}
	})
	if got > 300<<20 {
		t.Errorf("%d bytes allocated checking %d files", got, len(paths))
	}
	s, err := f.SchemaByID(7)
	if err != nil || s == nil || len(s.References) != 200 || s.References[0].Name != "types/com.acme.t000.avsc" {
		t.Fatalf("7: %v %+v", err, s)
	}
	if err := payload.Check(s, "7.avsc"); err != nil {
		t.Fatal(err)
	}
	// Two files whose types name each other in a loop read (each file's
	// type put inside the other's where it names it), and so do those
	// naming into the loop; the file's own type is not among its
	// references.
	fsys["types/com.acme.t100.avsc"] = &fstest.MapFile{Data: []byte(`{"type":"record","name":"t100","namespace":"com.acme","fields":[{"name":"a","type":"com.acme.t100x"}]}`)}
	fsys["types/com.acme.t100x.avsc"] = &fstest.MapFile{Data: []byte(`{"type":"record","name":"t100x","namespace":"com.acme","fields":[{"name":"a","type":"com.acme.t100"}]}`)}
	f = NewFiles("given", fsys)
	for _, p := range []string{"types/com.acme.t099.avsc", "types/com.acme.t100.avsc", "types/com.acme.t100x.avsc", "types/com.acme.t199.avsc", "7.avsc"} {
		if err := f.Check(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	s = &payload.Schema{Type: payload.TypeAvro}
	if err := f.references(s, "types/com.acme.t100.avsc"); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.References {
		if r.Name == "types/com.acme.t100.avsc" {
			t.Fatalf("t100.avsc is among its own references")
		}
	}
	if len(s.References) != 200 {
		t.Fatalf("%d references", len(s.References))
	}
}
