// Package site generates kwire's documentation site: static HTML pages
// for every Kafka API and version, drawn from the codec's own schema tables
// and examples, plus the WebAssembly playground copied beside them.
//
// The output is plain files with relative links only, so any static host
// serves it from any path prefix. Page assets (CSS, JS) and the
// playground's scripts, styles and module get content-hashed names.
//
// URL scheme (relative to the output folder):
//
//	index.html                    every API by category, with a filter
//	api/<name>/index.html         one API: its versions and what changed
//	api/<name>/v<N>.html          one API version: request and response
//	types.html                    primitive types with encoded examples
//	records.html                  record batches (magic 2) and message sets
//	protocol.html                 framing, request and response headers
//	errors.html                   error codes and enumerations
//	internal.html                 Kafka's internal topics and their record types
//	internal/<topic>/<record>/index.html one record type: its value versions and what changed
//	internal/<topic>/<record>/v<N>.html  one record type at one value version
//	rules/index.html              the protocol rules kwire check applies
//	rules/<id>.html               one rule: what Kafka requires, where, an example
//	json-api.html                 the JSON API kwire serve and the Worker answer (internal/api)
//	search.html, search.json      the search every page's box runs (search.json is its index)
//	playground/                   the WebAssembly playground
//	assets/                       hashed CSS and JS for the pages
//
// <name> is the API's current name in lower case, e.g. "produce".
package site

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"html/template"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/internal/render"
)

// Options say what goes into the site besides the pages.
type Options struct {
	// Wasm and WasmExec are paths of the playground's module and Go's
	// wasm_exec.js. Empty: the playground is copied without them.
	Wasm, WasmExec string
	// Extra files (such as capture.wasm) go into the playground under
	// their base names, hashed like the rest.
	Extra []string
	// Playground holds the playground's static files, either at its root or
	// under "static/". nil writes a stub page in its place.
	Playground fs.FS
	// Title names the site in page titles; "" means "kwire".
	Title string
}

//go:embed templates/*.tmpl assets/* data/*.tsv
var files embed.FS

// HTMLPolicy is the Content-Security-Policy of every page: no page of
// another origin may frame it (frame-ancestors, which a meta tag cannot
// set), nor plugins or a <base>; a form sends only to the site itself
// (the search box's GET to search.html). The
// playground's own meta policy narrows scripts, styles and connections.
// kwire serve sends it with each HTML answer; a host of the built files
// reads it from _headers. It is api.HTMLPolicy, which the API handler's
// HTML 404 page carries, from kwire serve and the Worker alike.
const HTMLPolicy = api.HTMLPolicy

// headersFile is _headers, the headers file of static hosts (Cloudflare's
// Workers static assets, which the Worker's wrangler.jsonc serves, and
// Pages, Netlify): the policy and nosniff on every path, and for each file
// whose name carries its content hash (hashed, paths from the output root)
// the long cache kwire serve gives it. Without it Cloudflare sends
// max-age=0, must-revalidate, and every visit revalidates the modules.
// One rule per file, not a pattern: a folder may hold unhashed files
// (playground/index.html, sw.js), which must stay revalidated.
func headersFile(hashed []string) ([]byte, error) {
	// Cloudflare reads at most 100 rules (the one for every path included)
	// and drops the rest.
	if len(hashed) > 99 {
		return nil, errors.New("site: " + strconv.Itoa(len(hashed)) + " hashed files need more _headers rules than Cloudflare reads (100)")
	}
	var b strings.Builder
	b.WriteString("# Written by kwire site: headers for static hosts that read _headers.\n/*\n" +
		"  Content-Security-Policy: " + HTMLPolicy + "\n" +
		"  X-Content-Type-Options: nosniff\n")
	for _, p := range hashed {
		b.WriteString("/" + p + "\n  Cache-Control: " + ImmutableCache + "\n")
	}
	return []byte(b.String()), nil
}

// ImmutableCache is the Cache-Control of a file whose name carries its
// content hash (HashedName): kwire serve sends it, and _headers gives it
// to static hosts.
const ImmutableCache = "public, max-age=31536000, immutable"

// hashedFiles lists, sorted and with forward slashes, the files under the
// given entries of out whose names carry a content hash.
func hashedFiles(out string, entries ...string) ([]string, error) {
	var found []string
	for _, e := range entries {
		err := filepath.WalkDir(filepath.Join(out, e), func(p string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			if err != nil || d.IsDir() || !HashedName(d.Name()) {
				return err
			}
			rel, err := filepath.Rel(out, p)
			if err != nil {
				return err
			}
			found = append(found, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(found)
	return found, nil
}

// The output entries Build owns and replaces on every run.
var owned = []string{"_headers", "api", "assets", "playground", "favicon.ico", "index.html", "types.html", "records.html", "protocol.html", "errors.html", "internal", "internal.html", "rules", "search.html", "search.json", "json-api.html"}

// Build writes the site into out, replacing what an earlier Build wrote
// there and leaving other files (such as a kwire.wasm built beside it)
// alone.
func Build(out string, o Options) error {
	if o.Title == "" {
		o.Title = "kwire"
	}
	var wasm, wasmExec []byte
	var err error
	if o.Wasm != "" {
		if wasm, err = os.ReadFile(o.Wasm); err != nil {
			return err
		}
	}
	if o.WasmExec != "" {
		if wasmExec, err = os.ReadFile(o.WasmExec); err != nil {
			return err
		}
	}
	extra := map[string][]byte{}
	for _, p := range o.Extra {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		extra[filepath.Base(p)] = b
	}
	if _, err := os.Stat(filepath.Join(out, "go.mod")); err == nil {
		return errors.New("site: " + out + " holds a go.mod; write the site into a folder of its own")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, name := range owned {
		if err := os.RemoveAll(filepath.Join(out, name)); err != nil {
			return err
		}
	}
	b := &builder{out: out, title: o.Title}
	if err := b.assets(); err != nil {
		return err
	}
	if err := b.templates(); err != nil {
		return err
	}
	if err := copyPlayground(out, o.Playground, wasm, wasmExec, extra); err != nil {
		return err
	}
	if err := b.pages(); err != nil {
		return err
	}
	// Last, when every hashed file is written.
	hashed, err := hashedFiles(out, "assets", "playground")
	if err != nil {
		return err
	}
	hf, err := headersFile(hashed)
	if err != nil {
		return err
	}
	return b.write("_headers", hf)
}

// builder carries what every page needs.
type builder struct {
	out    string
	title  string
	css    string // hashed asset paths relative to the output root
	js     string
	icon   string
	tmpl   map[string]*template.Template
	mkdirs sync.Map
}

// hashName inserts the first 10 hex digits of content's SHA-256 before the
// extension: "site.css" -> "site.0123456789.css".
func hashName(name string, content []byte) string {
	sum := sha256.Sum256(content)
	h := hex.EncodeToString(sum[:5])
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + h + ext
}

func (b *builder) assets() error {
	style, err := files.ReadFile("assets/style.css")
	if err != nil {
		return err
	}
	var css bytes.Buffer
	css.Write(style)
	css.WriteString("\n")
	css.WriteString(render.CSS)
	css.WriteString("\n")
	if err := highlightCSS(&css); err != nil {
		return err
	}
	js, err := files.ReadFile("assets/site.js")
	if err != nil {
		return err
	}
	ico, err := favicon()
	if err != nil {
		return err
	}
	if err := b.write("favicon.ico", ico); err != nil {
		return err
	}
	icon, err := files.ReadFile("assets/icon.svg")
	if err != nil {
		return err
	}
	b.icon = "assets/" + hashName("icon.svg", icon)
	if err := b.write(b.icon, icon); err != nil {
		return err
	}
	b.css = "assets/" + hashName("site.css", css.Bytes())
	b.js = "assets/" + hashName("site.js", js)
	if err := b.write(b.css, css.Bytes()); err != nil {
		return err
	}
	return b.write(b.js, js)
}

func (b *builder) write(rel string, data []byte) error {
	p := filepath.Join(b.out, filepath.FromSlash(rel))
	dir := filepath.Dir(p)
	if _, done := b.mkdirs.Load(dir); !done {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		b.mkdirs.Store(dir, true)
	}
	return os.WriteFile(p, data, 0o644)
}

var funcs = template.FuncMap{
	"add": func(a, b int) int { return a + b },
	"rng": func(r schema.Range) string { return r.String() },
	"repeat": func(n int) []struct{} {
		return make([]struct{}, n)
	},
	"int":   func(v int16) int { return int(v) },
	"slug":  slugText,
	"cap":   capitalize,
	"break": breakable,
	"dict": func(kv ...any) map[string]any {
		m := make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	},
}

func (b *builder) templates() error {
	base, err := template.New("base").Funcs(funcs).ParseFS(files, "templates/base.tmpl", "templates/parts.tmpl")
	if err != nil {
		return err
	}
	b.tmpl = map[string]*template.Template{}
	for _, name := range []string{"index", "api", "version", "types", "records", "protocol", "errors", "internal", "internalindex", "internalrecord", "rules", "rule", "search", "jsonapi"} {
		t, err := template.Must(base.Clone()).ParseFS(files, "templates/"+name+".tmpl")
		if err != nil {
			return err
		}
		b.tmpl[name] = t
	}
	return nil
}

// page is what the base template reads; Body is the page's own data.
type page struct {
	Title string // the page's title, before the site's
	Site  string
	Root  string // relative path to the output root: "", "../../"
	CSS   string
	JS    string
	Icon  string
	Nav   string // which top-level section is current
	Here  bool   // the page is its section's own (the header's link to the section is this page)
	Body  any
}

// navPages are the pages the header's section links go to, by section.
var navPages = map[string]string{
	"index": "index.html", "protocol": "protocol.html", "types": "types.html", "records": "records.html",
	"errors": "errors.html", "internal": "internal.html", "rules": "rules/index.html", "jsonapi": "json-api.html",
}

func (b *builder) render(name, rel string, p page) error {
	p.Site = b.title
	p.Root = strings.Repeat("../", strings.Count(rel, "/"))
	p.CSS = p.Root + b.css
	p.JS = p.Root + b.js
	p.Icon = p.Root + b.icon
	p.Here = p.Nav != "" && navPages[p.Nav] == rel
	var buf bytes.Buffer
	buf.Grow(64 << 10)
	if err := b.tmpl[name].ExecuteTemplate(&buf, "base", p); err != nil {
		return errors.New("site: " + rel + ": " + err.Error())
	}
	return b.write(rel, buf.Bytes())
}

// pages renders every page, the API versions in parallel.
func (b *builder) pages() error {
	apis := schema.APIs()
	if err := b.render("index", "index.html", page{Title: "Kafka protocol reference", Nav: "index", Body: indexData(apis)}); err != nil {
		return err
	}
	js, err := searchData()
	if err != nil {
		return err
	}
	if err := b.write("search.json", js); err != nil {
		return err
	}
	if err := b.render("search", "search.html", page{Title: "Search", Body: nil}); err != nil {
		return err
	}
	for _, fn := range []func() error{b.typesPage, b.recordsPage, b.protocolPage, b.errorsPage, b.internalPages, b.rulesPages, b.jsonAPIPage} {
		if err := fn(); err != nil {
			return err
		}
	}
	type job struct {
		api *schema.API
		v   int16
	}
	jobs := make(chan job)
	errc := make(chan error, 1)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if err := b.versionPage(j.api, j.v); err != nil {
					select {
					case errc <- err:
					default:
					}
				}
			}
		}()
	}
	for _, a := range apis {
		if err = b.apiPage(a); err != nil {
			break
		}
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			jobs <- job{a, v}
		}
	}
	close(jobs)
	wg.Wait()
	if err != nil {
		return err
	}
	select {
	case err = <-errc:
	default:
	}
	return err
}

// Slug is the folder name of an API's pages (api.APISlug: the 404
// page's hints know the same names).
func Slug(a *schema.API) string { return api.APISlug(a) }

// VersionPath is the path of an API version's page relative to the site root.
func VersionPath(a *schema.API, v int16) string {
	return "api/" + Slug(a) + "/v" + itoa(int(v)) + ".html"
}

func itoa(i int) string {
	return string(appendInt(nil, i))
}

func appendInt(dst []byte, i int) []byte {
	if i < 0 {
		dst = append(dst, '-')
		i = -i
	}
	if i >= 10 {
		dst = appendInt(dst, i/10)
	}
	return append(dst, byte('0'+i%10))
}
