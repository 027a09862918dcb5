package api

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// HTMLPolicy is the Content-Security-Policy of every page of the docs
// site (site.HTMLPolicy is this one): no page of another origin may frame
// it (frame-ancestors, which a meta tag cannot set), nor plugins or a
// <base>; a form sends only to the site itself (the search box's GET to
// search.html). The 404 page below carries it too.
const HTMLPolicy = "frame-ancestors 'none'; base-uri 'none'; object-src 'none'; form-action 'self'"

// notFound answers a path that is no route. A browser's request for a
// page (GET or HEAD, Accept preferring text/html: a mistyped docs URL,
// such as /api/Metadata/v12.html, as the docs pages live under
// /api/<name>/ beside the routes) gets an HTML page with the site's
// policy; anything else, API clients, the JSON error, which names the
// route the path was likely meant for.
func notFound(w http.ResponseWriter, r *http.Request) {
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !IsRoute(r.URL.Path) && prefersHTML(r.Header.Values("Accept")) {
		page := notFoundPage(r.URL.Path)
		hd := w.Header()
		hd.Set("Content-Security-Policy", HTMLPolicy)
		hd.Set("X-Frame-Options", "DENY")
		write(w, http.StatusNotFound, "text/html; charset=utf-8", page)
		return
	}
	msg := "no such route: " + r.URL.Path
	if near := nearRoute(r.URL.Path); near != nil {
		msg += " (did you mean " + near.Method + " " + near.Path + "?)"
	} else {
		msg += " (routes: " + routeList() + ")"
	}
	writeError(w, http.StatusNotFound, &Error{Message: msg})
}

// prefersHTML reports whether an Accept header's values rank text/html
// above application/json, as a browser's navigation does
// ("text/html,...,*/*;q=0.8"); curl's and fetch's "*/*", or none, rank
// them the same, and so get JSON.
func prefersHTML(accept []string) bool {
	htmlQ, jsonQ := acceptQ(accept, "text", "html"), acceptQ(accept, "application", "json")
	return htmlQ > 0 && htmlQ > jsonQ
}

// acceptQ is the quality Accept gives the media type typ/sub: that of its
// most specific range that matches (typ/sub, typ/*, */*), 0 when none
// does.
func acceptQ(accept []string, typ, sub string) float64 {
	best, q := -1, 0.0
	for _, v := range accept {
		for _, item := range strings.Split(v, ",") {
			mr, params, _ := strings.Cut(item, ";")
			t, s, _ := strings.Cut(strings.ToLower(strings.TrimSpace(mr)), "/")
			spec := -1
			switch {
			case t == typ && s == sub:
				spec = 2
			case t == typ && s == "*":
				spec = 1
			case t == "*" && s == "*":
				spec = 0
			}
			if spec <= best {
				continue
			}
			best, q = spec, 1
			for _, p := range strings.Split(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
		}
	}
	return q
}

// notFoundPage is the page a browser gets for a path that is neither a
// file of the site nor a route: what was asked for, a link home and a
// search for the words of the path, with links relative to the path (as
// every link of the site is, so that it works behind a path prefix).
func notFoundPage(path string) []byte {
	root := strings.Repeat("../", max(strings.Count(path, "/")-1, 0))
	q := searchWords(path)
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex">
<title>Not found · kwire</title>
<style>body{font:1rem/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem;overflow-wrap:anywhere}input{font:inherit}</style>
</head>
<body>
<main>
<h1>Not found</h1>
<p>Nothing is at <code>`)
	b.WriteString(html.EscapeString(path))
	b.WriteString(`</code>.`)
	if lower := strings.ToLower(path); lower != path && sitePage(lower) {
		b.WriteString(` Page names are lower case: <code>` + html.EscapeString(lower) + `</code>?`)
	}
	b.WriteString(`</p>
<p><a href="`)
	b.WriteString(root)
	b.WriteString(`index.html">Every API</a>`)
	if q != "" {
		b.WriteString(` · <a href="` + root + `search.html?q=` + html.EscapeString(url.QueryEscape(q)) + `">Search for “` + html.EscapeString(q) + `”</a>`)
	}
	b.WriteString(` · <a href="` + root + `json-api.html">The JSON API</a></p>
<form role="search" action="` + root + `search.html">
<label for="q">Search the reference</label>
<input type="search" id="q" name="q" value="` + html.EscapeString(q) + `">
<button>Search</button>
</form>
</main>
</body>
</html>
`)
	return []byte(b.String())
}

// sitePage reports whether p, a path from the site's root, names a page
// of the docs site as kwire site writes it (the URL scheme in site.go):
// with or without its .html, or a folder with an index.html, from the
// schema tables as the site draws its pages. The 404 page suggests a
// path's lower case only when it is one (/api/Metadata/v99.html has
// none). Rule pages are left out (their ids are kwire check's, which
// the API does not link); the site's tests hold the rest to the pages
// written.
func sitePage(p string) bool {
	p = strings.TrimPrefix(p, "/")
	switch {
	case p == "" || strings.HasSuffix(p, "/"):
		p += "index.html"
	case !strings.HasSuffix(p, ".html"):
		p += ".html"
	}
	parts := strings.Split(p, "/")
	last := parts[len(parts)-1]
	// version reports whether last is the page of a version in r.
	version := func(r schema.Range) bool {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(last, "v"), ".html"))
		return err == nil && "v"+strconv.Itoa(n)+".html" == last && n >= int(r.Lo) && n <= int(r.Hi)
	}
	switch len(parts) {
	case 1:
		switch last {
		case "index.html", "types.html", "records.html", "protocol.html", "errors.html", "internal.html", "json-api.html", "search.html":
			return true
		}
	case 2:
		return (parts[0] == "rules" || parts[0] == "playground") && last == "index.html"
	case 3:
		if parts[0] != "api" {
			return false
		}
		for _, a := range schema.APIs() {
			if APISlug(a) == parts[1] {
				return last == "index.html" || version(a.Valid())
			}
		}
	case 4:
		if parts[0] != "internal" {
			return false
		}
		for _, t := range schema.InternalTopics() {
			if InternalSlug(t.Name) != parts[1] {
				continue
			}
			for i := range t.Records {
				if rec := &t.Records[i]; InternalSlug(rec.Value.Name) == parts[2] {
					return last == "index.html" || version(rec.Value.Valid)
				}
			}
		}
	}
	return false
}

// APISlug is the folder name of an API's pages: its name in lower case
// (api/<slug>/v12.html). The site writes its pages by it.
func APISlug(a *schema.API) string { return strings.ToLower(a.Name) }

// InternalSlug is an internal topic's or record's folder name: lower
// case, without the leading underscores (internal/<topic>/<record>/).
func InternalSlug(s string) string { return strings.ToLower(strings.TrimLeft(s, "_")) }

// searchWords are the words of a path worth searching for: its last two
// parts, without an extension, "api" or "index" ("/api/Metadata/v12.html":
// "Metadata v12"), at most 64 bytes.
func searchWords(path string) string {
	var words []string
	for _, part := range strings.FieldsFunc(path, func(c rune) bool { return c == '/' }) {
		part = strings.TrimSuffix(part, ".html")
		if lp := strings.ToLower(part); lp == "api" || lp == "index" || part == "" {
			continue
		}
		words = append(words, part)
	}
	if len(words) > 2 {
		words = words[len(words)-2:]
	}
	q := strings.Join(words, " ")
	if len(q) > 64 {
		q = q[:64]
	}
	return strings.ToValidUTF8(q, "")
}
