package site

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"golang.org/x/net/html"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fakePlayground stands in for site/playground's files: a page that loads a
// script and styles, a script that starts a worker, a worker that loads the
// Go runtime and the module, and a service worker that lists them all.
var fakePlayground = fstest.MapFS{
	"static/index.html": {Data: []byte(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>p</title>` +
		`<link rel="stylesheet" href="style.css"><link rel="stylesheet" href="grid.css"><script defer src="app.js"></script></head>` +
		`<body><a href="../index.html">docs</a></body></html>`)},
	"static/app.js":    {Data: []byte(`new Worker("worker.js"); navigator.serviceWorker.register("sw.js"); // not app.json, not myapp.js`)},
	"static/worker.js": {Data: []byte(`importScripts("wasm_exec.js"); fetch("./kwire.wasm");`)},
	"static/style.css": {Data: []byte(`body{color:red}`)},
	"static/sw.js":     {Data: []byte(`const files = ["./", "app.js", "worker.js", "style.css", "grid.css", "wasm_exec.js", "kwire.wasm"];`)},
}

// built is one site build shared by the tests that read it.
var built struct {
	once sync.Once
	dir  string
	err  error
	took time.Duration
}

func buildOnce(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "kwire-site-test")
		if err != nil {
			built.err = err
			return
		}
		wasm := filepath.Join(dir, "kwire.wasm")
		exec := filepath.Join(dir, "wasm_exec.js")
		os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644)
		os.WriteFile(exec, []byte("// go wasm_exec stand-in\n"), 0o644)
		built.dir = filepath.Join(dir, "out")
		start := time.Now()
		built.err = Build(built.dir, Options{Wasm: wasm, WasmExec: exec, Playground: fakePlayground})
		built.took = time.Since(start)
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(filepath.Dir(built.dir))
	}
	os.Exit(code)
}

// TestEveryPage renders the whole site and checks every page: well-formed
// HTML with unique ids, and every relative link and anchor resolving.
func TestEveryPage(t *testing.T) {
	out := buildOnce(t)
	var pages, files int
	var size int64
	docs := map[string]*doc{}
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		files++
		size += st.Size()
		if strings.HasSuffix(p, ".html") {
			pages++
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(out, p)
			dd, err := checkHTML(b)
			if err != nil {
				t.Errorf("%s: %v", rel, err)
			}
			docs[filepath.ToSlash(rel)] = dd
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("site: %d pages, %d files, %.1f MB, built in %v", pages, files, float64(size)/1e6, built.took.Round(time.Millisecond))

	for _, a := range schema.APIs() {
		if docs["api/"+Slug(a)+"/index.html"] == nil {
			t.Errorf("no index page for %s", a.Name)
		}
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			if docs[VersionPath(a, v)] == nil {
				t.Errorf("no page for %s v%d", a.Name, v)
			}
		}
	}
	for _, p := range []string{"index.html", "types.html", "records.html", "protocol.html", "errors.html", "playground/index.html"} {
		if docs[p] == nil {
			t.Errorf("no %s", p)
		}
	}

	links := 0
	for from, d := range docs {
		for _, ref := range d.refs {
			links++
			if err := checkLink(out, from, ref, docs); err != nil {
				t.Errorf("%s: broken link %q: %v", from, ref, err)
			}
		}
	}
	t.Logf("checked %d links", links)
}

// doc is what the checker keeps of a page.
type doc struct {
	ids  map[string]bool
	refs []string // href and src values
}

var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// blockElements may not appear inside a paragraph.
var blockElements = map[string]bool{"address": true, "article": true, "aside": true, "blockquote": true, "details": true,
	"div": true, "dl": true, "fieldset": true, "figure": true, "footer": true, "form": true, "h1": true, "h2": true,
	"h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hr": true, "main": true, "nav": true, "ol": true,
	"p": true, "pre": true, "section": true, "table": true, "ul": true}

// checkHTML tokenizes a page strictly: a doctype, every element closed in
// order (no optional end tags left out), no duplicate attributes, unique
// ids.
func checkHTML(b []byte) (*doc, error) {
	d := &doc{ids: map[string]bool{}}
	z := html.NewTokenizer(bytes.NewReader(b))
	var stack []string
	sawDoctype := false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err().Error() != "EOF" {
				return d, z.Err()
			}
			if len(stack) > 0 {
				return d, errors.New("unclosed elements at the end: " + strings.Join(stack, " > "))
			}
			if !sawDoctype {
				return d, errors.New("no doctype")
			}
			return d, nil
		case html.DoctypeToken:
			sawDoctype = true
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			seen := map[string]bool{}
			for _, a := range tok.Attr {
				if seen[a.Key] {
					return d, errors.New("<" + tok.Data + "> repeats attribute " + a.Key)
				}
				seen[a.Key] = true
				switch a.Key {
				case "id":
					if a.Val == "" || strings.ContainsAny(a.Val, " \t\n") {
						return d, errors.New("bad id " + strconv.Quote(a.Val))
					}
					if d.ids[a.Val] {
						return d, errors.New("duplicate id " + strconv.Quote(a.Val))
					}
					d.ids[a.Val] = true
				case "href", "src":
					d.refs = append(d.refs, a.Val)
				}
			}
			if blockElements[tok.Data] && slices.Contains(stack, "p") {
				return d, errors.New("<" + tok.Data + "> inside <p> (a browser would close the paragraph)")
			}
			if tok.Data == "li" && (len(stack) == 0 || stack[len(stack)-1] != "ul" && stack[len(stack)-1] != "ol") {
				return d, errors.New("<li> outside a list")
			}
			if tt == html.StartTagToken && !voidElements[tok.Data] {
				stack = append(stack, tok.Data)
			}
		case html.EndTagToken:
			tok := z.Token()
			if len(stack) == 0 || stack[len(stack)-1] != tok.Data {
				return d, errors.New("</" + tok.Data + "> closes " + strings.Join(stack, " > "))
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// checkLink resolves a reference from a page: it must be relative, name a
// file that exists, and its #fragment an id in that file. Fragments into
// the playground carry state, not anchors.
func checkLink(out, from, ref string, docs map[string]*doc) error {
	u, err := url.Parse(ref)
	if err != nil {
		return err
	}
	if u.Scheme == "https" && (u.Host == "kafka.apache.org" && u.Path == "/protocol" && strings.HasPrefix(u.Fragment, "The_Messages_") ||
		u.Host == "cwiki.apache.org" && strings.HasPrefix(u.Query().Get("queryString"), `"KIP-`)) {
		return nil // Kafka's protocol guide and its KIPs: the only pages outside the site it links to
	}
	if u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/") {
		return errors.New("not a relative link")
	}
	target := from
	if u.Path != "" {
		target = path.Join(path.Dir(from), u.Path)
		if strings.HasSuffix(u.Path, "/") {
			target += "/index.html"
		}
		if strings.HasPrefix(target, "../") || target == ".." {
			return errors.New("leaves the site")
		}
		st, err := os.Stat(filepath.Join(out, filepath.FromSlash(target)))
		if err != nil {
			return err
		}
		if st.IsDir() {
			return errors.New("names a folder without a trailing slash")
		}
	}
	if u.Fragment == "" || strings.HasPrefix(target, "playground/") {
		return nil
	}
	d := docs[target]
	if d == nil {
		return errors.New("fragment into a non-HTML file")
	}
	if !d.ids[u.Fragment] {
		return errors.New("no id " + strconv.Quote(u.Fragment) + " in " + target)
	}
	return nil
}

// pageCell is a grid cell as the page draws it.
type pageCell struct {
	node, start, end int
	kind, label      string
}

var cellRE = regexp.MustCompile(`<span role="gridcell" class="kw-cell kw-([a-z]+)[^"]*" style="[^"]*" data-node="(\d+)" data-start="(\d+)" data-end="(\d+)" title="[^"]*"><span class="kw-label">([^<]*)</span>`)

// gridCells reads the cells of one section's first grid (buffer 0) off a
// page, joining the segments of cells that span rows.
func gridCells(t *testing.T, page []byte, section string) []pageCell {
	t.Helper()
	i := bytes.Index(page, []byte(`<section class="dir" id="`+section+`"`))
	if i < 0 {
		t.Fatalf("no %s section", section)
	}
	s := page[i:]
	j := bytes.Index(s, []byte(`<div class="kw-grid" data-buf="0"`))
	k := bytes.Index(s, []byte(`</figure>`))
	if j < 0 || k < j {
		t.Fatalf("no grid in the %s section", section)
	}
	var cells []pageCell
	for _, m := range cellRE.FindAllSubmatch(s[j:k], -1) {
		c := pageCell{kind: string(m[1]), label: html.UnescapeString(string(m[5]))}
		c.node, _ = strconv.Atoi(string(m[2]))
		c.start, _ = strconv.Atoi(string(m[3]))
		c.end, _ = strconv.Atoi(string(m[4]))
		if n := len(cells); n > 0 && cells[n-1].node == c.node && cells[n-1].start == c.start && cells[n-1].end == c.end && cells[n-1].kind == c.kind {
			continue // the same cell continued on the next row
		}
		cells = append(cells, c)
	}
	return cells
}

// TestGridMatchesCodecSpans is the golden check: the grids on the Produce
// and Fetch pages hold exactly the cells of the codec's decoded example,
// the cells tile the frame, every leaf of the decoded tree has its value
// cell, and the list matches testdata.
func TestGridMatchesCodecSpans(t *testing.T) {
	out := buildOnce(t)
	for _, name := range []string{"Produce", "Fetch"} {
		a := schema.ByName(name)
		for _, v := range []int16{a.Valid().Lo, a.Valid().Hi} {
			page, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(VersionPath(a, v))))
			if err != nil {
				t.Fatal(err)
			}
			for _, resp := range []bool{false, true} {
				section := "request"
				if resp {
					section = "response"
				}
				label := name + " v" + strconv.Itoa(int(v)) + " " + section
				got := gridCells(t, page, section)
				frame, f, err := ExampleFrame(a, v, resp)
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				want := render.Cells(f, 0)
				if len(got) != len(want) {
					t.Fatalf("%s: page has %d cells, codec %d", label, len(got), len(want))
				}
				pos := 0
				var golden strings.Builder
				for i, w := range want {
					g := got[i]
					if g.node != w.Node || g.start != w.Start || g.end != w.End || g.kind != w.Kind || g.label != w.Label {
						t.Errorf("%s: cell %d on the page is %+v, codec has %d [%d,%d) %s %q", label, i, g, w.Node, w.Start, w.End, w.Kind, w.Label)
					}
					if w.Start != pos {
						t.Errorf("%s: cells leave a gap or overlap at byte %d", label, pos)
					}
					pos = w.End
					golden.WriteString(strconv.Itoa(w.Start) + "-" + strconv.Itoa(w.End) + " " + w.Kind + " " + w.Path + "\n")
				}
				if pos != len(frame) {
					t.Errorf("%s: cells end at %d of %d bytes", label, pos, len(frame))
				}
				// Every leaf of the codec's tree in the input buffer has a
				// value cell over its data bytes.
				id := -1
				byNode := map[int][2]int{}
				for _, c := range got {
					if c.kind != render.KindPrefix && c.kind != render.KindTag && c.kind != render.KindTagSize && c.kind != render.KindTags && c.kind != render.KindMarker {
						byNode[c.node] = [2]int{c.start, c.end}
					}
				}
				var walk func(n *tree.Node, skip bool)
				walk = func(n *tree.Node, skip bool) {
					id++
					if !skip && len(n.Children) == 0 && n.Buf == 0 && n.End > n.DataStart() {
						if sp, ok := byNode[id]; !ok || sp != [2]int{n.DataStart(), n.End} {
							t.Errorf("%s: node %d (%s [%d,%d)) has no matching cell", label, id, n.Name, n.DataStart(), n.End)
						}
					}
					for _, c := range n.Children {
						walk(c, skip || n.BitView())
					}
				}
				walk(f.Root, false)
				file := filepath.Join("testdata", strings.ToLower(name)+"-v"+strconv.Itoa(int(v))+"-"+section+".cells")
				if *update {
					if err := os.WriteFile(file, []byte(golden.String()), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				wantGolden, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run go test ./site -run TestGridMatchesCodecSpans -update)", err)
				}
				if string(wantGolden) != golden.String() {
					t.Errorf("%s: the grid differs from %s:\n%s", label, file, golden.String())
				}
			}
		}
	}
}

func TestPlaygroundCopy(t *testing.T) {
	out := buildOnce(t)
	dir := filepath.Join(out, "playground")
	names := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		n := e.Name()
		stem := n
		if HashedName(n) {
			ext := path.Ext(n)
			stem = strings.TrimSuffix(strings.TrimSuffix(n, ext), path.Ext(strings.TrimSuffix(n, ext))) + ext
		}
		names[stem] = n
	}
	for _, f := range []string{"index.html", "sw.js", "app.js", "worker.js", "style.css", "grid.css", "wasm_exec.js", "kwire.wasm"} {
		if names[f] == "" {
			t.Fatalf("playground lacks %s: %v", f, names)
		}
	}
	for _, f := range []string{"index.html", "sw.js"} {
		if names[f] != f {
			t.Errorf("%s was renamed to %s", f, names[f])
		}
	}
	for _, f := range []string{"app.js", "worker.js", "style.css", "grid.css", "wasm_exec.js", "kwire.wasm"} {
		if !HashedName(names[f]) {
			t.Errorf("%s has no content hash: %s", f, names[f])
		}
	}
	read := func(n string) string {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	idx := read("index.html")
	for _, f := range []string{"app.js", "style.css", "grid.css"} {
		if !strings.Contains(idx, `"`+names[f]+`"`) {
			t.Errorf("index.html does not name %s: %s", names[f], idx)
		}
	}
	app := read(names["app.js"])
	if !strings.Contains(app, `"`+names["worker.js"]+`"`) || !strings.Contains(app, `"sw.js"`) || !strings.Contains(app, "app.json") || !strings.Contains(app, "myapp.js") {
		t.Errorf("app.js rewritten wrongly: %s", app)
	}
	worker := read(names["worker.js"])
	if !strings.Contains(worker, names["wasm_exec.js"]) || !strings.Contains(worker, "./"+names["kwire.wasm"]) {
		t.Errorf("worker.js rewritten wrongly: %s", worker)
	}
	if read(names["grid.css"]) != render.CSS {
		t.Error("grid.css is not render.CSS")
	}
}

// A changed module renames everything that reaches it, and nothing else.
func TestPlaygroundHashesFollowReferences(t *testing.T) {
	files := func(wasm string) map[string][]byte {
		return map[string][]byte{"index.html": []byte(`<script src="app.js"></script><link href="style.css">`),
			"app.js": []byte(`new Worker("worker.js")`), "worker.js": []byte(`fetch("kwire.wasm")`),
			"style.css": []byte(`a{}`), "kwire.wasm": []byte(wasm)}
	}
	a, b := hashNames(files("one")), hashNames(files("two"))
	for _, f := range []string{"app.js", "worker.js", "kwire.wasm"} {
		if a[f] == b[f] {
			t.Errorf("%s kept its name %s when the module changed", f, a[f])
		}
	}
	if a["style.css"] != b["style.css"] {
		t.Errorf("style.css was renamed: %s, %s", a["style.css"], b["style.css"])
	}
	if _, ok := a["index.html"]; ok {
		t.Error("index.html was renamed")
	}
}

func bnfText(lines []bnfLine) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.Text() + "\n")
	}
	return b.String()
}

// The site's schemas read as the CLI's and the API's (render.BNF): the
// "bnf" template's text, tags left out, is render.BNF's for every API,
// version and direction, tagged fields written "tag N: name" (the site
// once wrote "name <tag N>").
func TestBNFPageTextIsRenderBNF(t *testing.T) {
	b := &builder{}
	if err := b.templates(); err != nil {
		t.Fatal(err)
	}
	tmpl := b.tmpl["version"]
	tags := regexp.MustCompile(`<[^>]*>`)
	n, tagged := 0, 0
	for _, a := range schema.APIs() {
		for _, x := range []struct {
			m   *schema.Message
			dir string
		}{{a.Request, "Request"}, {a.Response, "Response"}} {
			for v := x.m.Valid.Lo; v <= x.m.Valid.Hi; v++ {
				def := x.m.At(v)
				if def == nil {
					continue
				}
				title := a.Name + " " + x.dir + " (Version: " + strconv.Itoa(int(v)) + ")"
				var out strings.Builder
				if err := tmpl.ExecuteTemplate(&out, "bnf", bnf(title, def.Root, v, x.m.Flexible(v), "#req")); err != nil {
					t.Fatal(err)
				}
				got := html.UnescapeString(tags.ReplaceAllString(out.String(), ""))
				want := render.BNF(x.m, v, title)
				if got != want {
					t.Fatalf("%s: the site writes\n%s\nrender.BNF (the CLI, the API)\n%s", title, got, want)
				}
				n++
				if strings.Contains(want, "tag 0: ") {
					tagged++
				}
			}
		}
	}
	if n < 700 || tagged < 30 {
		t.Errorf("compared %d schemas, %d with tagged fields", n, tagged)
	}
}

// The layout follows Kafka's protocol guide.
func TestBNF(t *testing.T) {
	m := schema.ByName("Metadata").Request
	got := bnfText(bnf("Metadata Request (Version: 0)", m.At(0).Root, 0, false, "req"))
	want := "Metadata Request (Version: 0) => [topics]\n  topics => name\n    name => STRING\n"
	if got != want {
		t.Errorf("Metadata v0:\n%s\nwant\n%s", got, want)
	}
	p := schema.ByName("Produce").Request
	got = bnfText(bnf("Produce Request (Version: 9)", p.At(9).Root, 9, true, "req"))
	for _, line := range []string{
		"Produce Request (Version: 9) => transactional_id acks timeout_ms [topic_data] TAG_BUFFER\n",
		"  transactional_id => COMPACT_NULLABLE_STRING\n",
		"  topic_data => name [partition_data] TAG_BUFFER\n",
		"      records => COMPACT_RECORDS\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("Produce v9 lacks %q:\n%s", line, got)
		}
	}
}

func TestChanges(t *testing.T) {
	p := schema.ByName("Produce").Request
	var kinds []string
	for _, c := range changes(p, 9, "req") {
		kinds = append(kinds, c.Kind)
	}
	if !strings.Contains(strings.Join(kinds, " "), "flexible") || !strings.Contains(strings.Join(kinds, " "), "header") {
		t.Errorf("Produce v9 request changes: %v", kinds)
	}
	if len(changes(p, 0, "req")) != 0 {
		t.Error("the first version has changes")
	}
	// Produce v3 added the transactional id.
	found := false
	for _, c := range changes(p, 3, "req") {
		found = found || c.Kind == "added" && c.Path == "transactionalId"
	}
	if !found {
		t.Errorf("Produce v3: no transactionalId added: %+v", changes(p, 3, "req"))
	}
}

// A nested field's Versions, Nullable and Tag columns are cut to the
// versions of the structs around it: FetchResponse's snapshotId (tagged,
// 12+) holds endOffset and epoch declared "0+", which occur from v12.
func TestFieldRowsCutNestedRangesToTheirStruct(t *testing.T) {
	m := schema.ByName("Fetch").Response
	v := m.Valid.Hi
	rows := map[string]fieldRow{}
	for _, r := range fieldRows(1, m, m.At(v).Root, v, true, "resp") {
		rows[r.Path] = r
	}
	snap, end := rows["responses.partitions.snapshotId"], rows["responses.partitions.snapshotId.endOffset"]
	if snap.Versions != "12+" || !strings.Contains(snap.Tag, "(12+)") {
		t.Fatalf("snapshotId: versions %q, tag %q", snap.Versions, snap.Tag)
	}
	if end.Versions != "12+" {
		t.Errorf("snapshotId.endOffset shows versions %q, want 12+ (its struct's)", end.Versions)
	}
	// A top-level field keeps its own range.
	if r := rows["responses"]; r.Versions != "0+" {
		t.Errorf("responses: %q", r.Versions)
	}
}

// Decoded text reaches pages only escaped: chroma escapes every token.
func TestHighlightEscapes(t *testing.T) {
	h, err := highlightJSON([]byte(`{"name": "<script>alert(1)</script> & \"x\""}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, "<script>") || !strings.Contains(h, "&lt;script&gt;") {
		t.Errorf("not escaped: %s", h)
	}
	if _, err := checkHTML([]byte("<!DOCTYPE html><html><body>" + h + "</body></html>")); err != nil {
		t.Errorf("highlighted JSON is not well-formed: %v", err)
	}
}

func TestBuildRefusesASourceTree(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644)
	if err := Build(dir, Options{}); err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Fatalf("Build into a module root: %v", err)
	}
}

// _headers gives every file whose name carries its content hash the long
// cache kwire serve gives it (static hosts such as the Worker's assets
// otherwise send max-age=0), and nothing else; every path keeps the policy.
func TestHeadersFileCachesHashedFiles(t *testing.T) {
	out := buildOnce(t)
	b, err := os.ReadFile(filepath.Join(out, "_headers"))
	if err != nil {
		t.Fatal(err)
	}
	rules := map[string][]string{} // path -> its header lines
	var order []string
	cur := ""
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "  "):
			if cur == "" {
				t.Fatalf("a header before any path: %q", line)
			}
			rules[cur] = append(rules[cur], strings.TrimSpace(line))
		default:
			if _, dup := rules[line]; dup {
				t.Errorf("path %s has two rules", line)
			}
			cur = line
			rules[cur] = nil
			order = append(order, cur)
		}
	}
	if len(order) > 100 {
		t.Errorf("%d rules; Cloudflare reads 100", len(order))
	}
	if !slices.Contains(rules["/*"], "Content-Security-Policy: "+HTMLPolicy) {
		t.Errorf("/* lacks the policy: %v", rules["/*"])
	}
	long := "Cache-Control: " + ImmutableCache
	hashed := 0
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		url := "/" + filepath.ToSlash(rel)
		has := slices.Contains(rules[url], long)
		if HashedName(d.Name()) {
			hashed++
			if !has {
				t.Errorf("%s has a content hash but no long cache in _headers", url)
			}
		} else if has {
			t.Errorf("%s has no content hash but is cached for good", url)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if hashed < 8 {
		t.Errorf("only %d hashed files", hashed)
	}
	for _, p := range order {
		if p != "/*" && !slices.Equal(rules[p], []string{long}) {
			t.Errorf("rule %s: %v", p, rules[p])
		}
	}
}
