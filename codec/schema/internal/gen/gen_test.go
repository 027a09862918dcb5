package main

import (
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// generate runs the three stages on the schema folder dir and returns the
// formatted tables and constants.
func generate(t *testing.T, dir string) (tablesGo, constantsGo []byte) {
	tablesGo, constantsGo, _ = generateAll(t, dir)
	return tablesGo, constantsGo
}

// generateAll is generate with the internal schemas' tables (nil when
// dir has no internal/).
func generateAll(t *testing.T, dir string) (tablesGo, constantsGo, internalGo []byte) {
	t.Helper()
	src, err := read(dir)
	require.NoError(t, err)
	tb, err := resolve(src)
	require.NoError(t, err)
	tablesGo, err = format.Source(emitTables(tb))
	require.NoError(t, err)
	constantsGo, err = format.Source(emitConstants(tb))
	require.NoError(t, err)
	if src.internal != nil {
		it, err := resolveInternal(src.internal)
		require.NoError(t, err)
		require.NoError(t, distinctNames(tb, it))
		internalGo, err = format.Source(emitInternal(it))
		require.NoError(t, err)
	}
	return tablesGo, constantsGo, internalGo
}

// The committed tables are what the generator makes of the committed
// schemas, byte for byte (make check-generated says the same from the
// command line).
func TestGeneratedFilesMatchTheSchemas(t *testing.T) {
	tablesGo, constantsGo, internalGo := generateAll(t, "../../kafka")
	for name, got := range map[string][]byte{"tables_gen.go": tablesGo, "constants_gen.go": constantsGo, "internal_gen.go": internalGo} {
		want, err := os.ReadFile(filepath.Join("../..", name))
		require.NoError(t, err)
		require.True(t, string(want) == string(got), "%s is stale: run make generate", name)
	}
}

// writeSchemas lays out a schema folder in a temporary directory: ORDER
// (folders, first wins), the files of each folder, and the TSV files.
func writeSchemas(t *testing.T, order []string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		"ORDER":              strings.Join(order, "\n") + "\n",
		"errors.tsv":         "-1\tUNKNOWN_SERVER_ERROR\n0\tNONE\n2\tCORRUPT_MESSAGE\n",
		"errors-renamed.tsv": "",
		"enums.tsv":          "# enum\tvalue\tname\nIsolationLevel\t0\tREAD_UNCOMMITTED\nIsolationLevel\t1\tREAD_COMMITTED\n",
		order[len(order)-1] + "/RequestHeader.json": `{"type": "header", "name": "RequestHeader", "validVersions": "1-2", "flexibleVersions": "2+",
			"fields": [{"name": "RequestApiKey", "type": "int16", "versions": "0+"}]}`,
		order[len(order)-1] + "/ResponseHeader.json": `{"type": "header", "name": "ResponseHeader", "validVersions": "0-1", "flexibleVersions": "1+",
			"fields": [{"name": "CorrelationId", "type": "int32", "versions": "0+"}]}`,
	}
	for k, v := range files {
		all[k] = v
	}
	for name, text := range all {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

// api is a request and response pair of one API key for writeSchemas.
func api(folder, name string, key int, valid, flexible, reqFields string) map[string]string {
	return map[string]string{
		folder + "/" + name + "Request.json": `// a comment, as Kafka's files have
			{"apiKey": ` + itoa(key) + `, "type": "request", "name": "` + name + `Request", "validVersions": "` + valid +
			`", "flexibleVersions": "` + flexible + `", "fields": [` + reqFields + `]}`,
		folder + "/" + name + "Response.json": `{"apiKey": ` + itoa(key) + `, "type": "response", "name": "` + name +
			`Response", "validVersions": "` + valid + `", "flexibleVersions": "` + flexible + `", "fields": []}`,
	}
}

func itoa(i int) string { return schema.Range{Lo: int16(i), Hi: int16(i)}.String() }

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// Version N of a message comes from the first folder in ORDER that lists
// it; versions only an older folder lists still come from there; versions
// with the same layout and flexibility share one entry.
func TestResolveTakesEachVersionFromTheFirstFolderListingIt(t *testing.T) {
	dir := writeSchemas(t, []string{"new", "old"}, merge(
		api("old", "Produce", 0, "0-3", "none", `{"name": "Acks", "type": "int16", "versions": "0+"}`),
		api("new", "Produce", 0, "2-4", "4+", `{"name": "Acks", "type": "int16", "versions": "0+"}, {"name": "TransactionalId", "type": "string", "versions": "3+", "nullableVersions": "3+", "default": "null"}`),
	))
	src, err := read(dir)
	require.NoError(t, err)
	tb, err := resolve(src)
	require.NoError(t, err)
	require.Len(t, tb.apis, 1)
	req := tb.apis[0].Request
	require.Equal(t, schema.Range{Lo: 0, Hi: 4}, req.Valid)
	var got []string
	for _, v := range req.Versions {
		got = append(got, v.Versions.String()+" "+v.Source+" flexible "+v.Flexible.String())
	}
	require.Equal(t, []string{"0-1 old flexible none", "2-4 new flexible 4+"}, got,
		"0-1 only the old folder lists; 2-4 the new one lays out, one entry for its one layout")
	require.Equal(t, []int8{1, 1, 1, 1, 2}, req.HeaderVersions, "request header 2 where flexible")
	require.Equal(t, []int8{0, 0, 0, 0, 1}, tb.apis[0].Response.HeaderVersions)
	f := req.Versions[1].Root.Fields[1]
	require.Equal(t, "transactionalId", f.JSON)
	require.Equal(t, schema.Range{Lo: 3, Hi: schema.Open}, f.Nullable)
	require.Equal(t, "null", f.Default)
	require.True(t, tb.apis[0].Removed40.Empty(), "no kafka-4.0 or legacy folder: nothing removed")
}

// Identical structs are one layout, written once, whoever uses them; a
// struct whose schema gives "default": "" stays apart from one that gives
// no default, as the tables have always written it.
func TestResolveSharesIdenticalLayouts(t *testing.T) {
	topic := `{"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [{"name": "Name", "type": "string", "versions": "0+"}]}`
	emptyDefault := `{"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [{"name": "Name", "type": "string", "versions": "0+", "default": ""}]}`
	dir := writeSchemas(t, []string{"a"}, merge(
		api("a", "Metadata", 3, "0", "none", topic),
		api("a", "CreateTopics", 19, "0", "none", topic),
		api("a", "DeleteTopics", 20, "0", "none", emptyDefault),
	))
	src, err := read(dir)
	require.NoError(t, err)
	tb, err := resolve(src)
	require.NoError(t, err)
	structOf := func(i int) *schema.Layout { return tb.apis[i].Request.Versions[0].Root.Fields[0].Struct }
	require.Same(t, structOf(0), structOf(1))
	require.NotSame(t, structOf(0), structOf(2))
	src2, err := format.Source(emitTables(tb))
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(src2), `Fields: []Field{
	{Name: "Name", JSON: "name", Type: "string", Kind: String, Versions: Range{0, Open}, Nullable: none, Tagged: none, Tag: -1, Flexible: none},`))
	require.Contains(t, string(src2), `Flexible: none, Default: ""},`)
}

// What the files must not say: versions with a hole, a type no file
// defines, a tag without tagged versions, a folder without an API's other
// half.
func TestResolveRejectsInconsistentSchemas(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"versions with a hole": {merge(api("a", "Produce", 0, "0-1", "none", ""), api("b", "Produce", 0, "3", "none", "")), "versions are not contiguous"},
		"unknown struct type":  {api("a", "Produce", 0, "0", "none", `{"name": "X", "type": "[]Nowhere", "versions": "0+"}`), `unknown type "Nowhere"`},
		"tag without taggedVersions": {api("a", "Produce", 0, "0", "0+", `{"name": "X", "type": "int32", "versions": "0+", "tag": 0}`),
			"tag without taggedVersions"},
		"primitive with fields": {api("a", "Produce", 0, "0", "none", `{"name": "X", "type": "int32", "versions": "0+", "fields": []}`+
			`, {"name": "Y", "type": "int32", "versions": "0+", "fields": [{"name": "Z", "type": "int8", "versions": "0+"}]}`), "primitive with fields"},
		"request without response": {map[string]string{"a/FetchRequest.json": `{"apiKey": 1, "type": "request", "name": "FetchRequest", "validVersions": "0", "fields": []}`},
			"api 1 lacks a request or response"},
		"unknown message type": {map[string]string{"a/X.json": `{"type": "sideways", "name": "X", "validVersions": "0", "fields": []}`}, `unknown message type "sideways"`},
		"bad range":            {api("a", "Produce", 0, "0", "none", `{"name": "X", "type": "int32", "versions": "zero+"}`), `bad version "zero"`},
	} {
		t.Run(name, func(t *testing.T) {
			order := []string{"a"}
			if name == "versions with a hole" {
				order = []string{"b", "a"}
			}
			src, err := read(writeSchemas(t, order, tc.files))
			if err == nil {
				_, err = resolve(src)
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestParseRange(t *testing.T) {
	for in, want := range map[string]schema.Range{
		"": {Lo: 1, Hi: 0}, "none": {Lo: 1, Hi: 0}, "3": {Lo: 3, Hi: 3}, "1-4": {Lo: 1, Hi: 4}, "3+": {Lo: 3, Hi: schema.Open}, " 0+ ": {Lo: 0, Hi: schema.Open},
	} {
		got, err := parseRange(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"x", "1-", "-1", "1-x", "40000", "32767"} {
		_, err := parseRange(in)
		require.Error(t, err, in)
	}
}

// make generate KAFKA=DIR: a newer Kafka's files are copied without their
// prose (about texts, // comments), every other member kept in order, and
// their folder goes first in ORDER.
func TestImportKeepsStructureOnlyAndGoesFirst(t *testing.T) {
	dir := writeSchemas(t, []string{"a"}, api("a", "Produce", 0, "0", "none", ""))
	kafka := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(kafka, "ProduceRequest.json"), []byte(`// Licensed to the Apache Software Foundation (ASF)
// a second line of licence
{
  "apiKey": 0,
  "type": "request", // a comment after a member
  "name": "ProduceRequest",
  "validVersions": "0-1",
  "flexibleVersions": "none",
  "fields": [
    { "name": "Acks", "type": "int16", "versions": "0+", "about": "The acks // not a comment", "default": "-1" },
    { "name": "Url", "type": "string", "versions": "1+", "default": "http://x" }
  ]
}
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(kafka, "ProduceResponse.json"), []byte(`{"apiKey": 0, "type": "response", "name": "ProduceResponse", "validVersions": "0-1", "fields": []}`), 0o644))
	require.NoError(t, importFolder(dir, kafka, "kafka-9.9"))

	got, err := os.ReadFile(filepath.Join(dir, "kafka-9.9", "ProduceRequest.json"))
	require.NoError(t, err)
	require.Equal(t, `{
  "apiKey": 0,
  "type": "request",
  "name": "ProduceRequest",
  "validVersions": "0-1",
  "flexibleVersions": "none",
  "fields": [
    {
      "name": "Acks",
      "type": "int16",
      "versions": "0+",
      "default": "-1"
    },
    {
      "name": "Url",
      "type": "string",
      "versions": "1+",
      "default": "http://x"
    }
  ]
}
`, string(got))
	order, err := readOrder(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"kafka-9.9", "a"}, order)

	tablesGo, _ := generate(t, dir)
	require.Contains(t, string(tablesGo), `Valid: Range{0, 1}`)
	require.Contains(t, string(tablesGo), `Source: "kafka-9.9"`)
	require.NoError(t, importFolder(dir, kafka, "kafka-9.9"), "importing again")
	order, _ = readOrder(dir)
	require.Equal(t, []string{"kafka-9.9", "a"}, order, "a folder stands in ORDER once")
}

// The TSV files: error names from the lowest code with gaps left empty,
// old names checked against today's, enumerations in file order.
func TestResolveErrorsAndEnums(t *testing.T) {
	dir := writeSchemas(t, []string{"a"}, api("a", "Produce", 0, "0", "none", ""))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "errors-renamed.tsv"), []byte("2\tOLD_CORRUPT\tCORRUPT_MESSAGE\t9.9\n"), 0o644))
	src, err := read(dir)
	require.NoError(t, err)
	tb, err := resolve(src)
	require.NoError(t, err)
	require.Equal(t, -1, tb.errorBase)
	require.Equal(t, []string{"UNKNOWN_SERVER_ERROR", "NONE", "", "CORRUPT_MESSAGE"}, tb.errorNames)
	require.Equal(t, []renamedError{{2, "OLD_CORRUPT", "9.9"}}, tb.renamed)
	require.Len(t, tb.enums, 1)
	require.Equal(t, []schema.EnumValue{{Value: 0, Name: "READ_UNCOMMITTED"}, {Value: 1, Name: "READ_COMMITTED"}}, tb.enums[0].Values)
	_, constantsGo := generate(t, dir)
	require.Contains(t, string(constantsGo), "CodeOldCorrupt = 2")
	require.Contains(t, string(constantsGo), "KeyProduce = 0")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "errors-renamed.tsv"), []byte("2\tOLD\tNOT_THIS\t9.9\n"), 0o644))
	src, err = read(dir)
	require.NoError(t, err)
	_, err = resolve(src)
	require.ErrorContains(t, err, "code 2 is CORRUPT_MESSAGE in errors.tsv, not NOT_THIS")
}

// A tables file that no longer compiles (a half-merged edit, a schema type
// changed under it) regenerates all the same: the generator builds the
// schema package with the schema_bootstrap tag, without the tables.
func TestGeneratorRegeneratesBrokenTables(t *testing.T) {
	root := t.TempDir()
	copyTree(t, "../../../..", root, []string{"go.mod", "go.sum", "codec/schema"})
	tables := filepath.Join(root, "codec/schema/tables_gen.go")
	want, err := os.ReadFile(tables)
	require.NoError(t, err)
	broken := strings.Replace(string(want), "var apis = []*API{", "var apis = []*API{ this does not compile", 1)
	require.NoError(t, os.WriteFile(tables, []byte(broken), 0o644))

	cmd := exec.Command("go", "run", "-tags", "schema_bootstrap", "./internal/gen")
	cmd.Dir = filepath.Join(root, "codec/schema")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	got, err := os.ReadFile(tables)
	require.NoError(t, err)
	require.True(t, string(want) == string(got), "the tables are written back as they were")
}

// copyTree copies the files and folders paths of src into dst.
func copyTree(t *testing.T, src, dst string, paths []string) {
	t.Helper()
	for _, p := range paths {
		require.NoError(t, filepath.WalkDir(filepath.Join(src, p), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, path)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(dst, rel), 0o755)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
		}))
	}
}

// A tagged field without "versions" is there in its tagged versions, as
// Kafka's generator reads it (TransactionLogValue's fields are written so).
func TestTaggedFieldWithoutVersions(t *testing.T) {
	dir := writeSchemas(t, []string{"a"}, api("a", "Produce", 0, "0-1", "1+", `{"name": "Hint", "type": "int64", "taggedVersions": "1+", "tag": 0, "default": -1}`))
	src, err := read(dir)
	require.NoError(t, err)
	tb, err := resolve(src)
	require.NoError(t, err)
	f := tb.apis[0].Request.Versions[0].Root.Fields[0]
	require.Equal(t, schema.Range{Lo: 1, Hi: schema.Open}, f.Versions)
	require.True(t, f.IsTagged(1))
}
