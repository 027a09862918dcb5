package site

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/codec/schema"
)

// TestSearchFieldsLinkToRows reads the built search.json and checks every
// field entry against the version pages: the search box links to the
// entry's highest version, the index's filter to its lowest, so both
// pages must hold the field's row, and no version outside the entry's
// range may. Every field row on every version page has its entry.
func TestSearchFieldsLinkToRows(t *testing.T) {
	out := buildOnce(t)
	b, err := os.ReadFile(filepath.Join(out, "search.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Fields [][]any `json:"fields"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	ids := map[string]map[string]bool{} // version page -> its ids
	page := func(a *schema.API, v int16) map[string]bool {
		p := VersionPath(a, v)
		if m, ok := ids[p]; ok {
			return m
		}
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		d, err := checkHTML(b)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		ids[p] = d.ids
		return d.ids
	}
	indexed := map[string]bool{}
	bad := 0
	for _, f := range s.Fields {
		key, dir, path := int16(f[2].(float64)), f[3].(string), f[4].(string)
		lo, hi := int16(f[5].(float64)), int16(f[6].(float64))
		a := schema.ByKey(key)
		if a == nil {
			t.Errorf("field %s: no API %d", path, key)
			continue
		}
		anchor := dir + "-f-" + path
		indexed[strconv.Itoa(int(key))+" "+anchor] = true
		r := a.Valid()
		label := a.Name + " " + anchor + " (v" + strconv.Itoa(int(lo)) + "–" + strconv.Itoa(int(hi)) + ")"
		if lo > hi || lo < r.Lo || hi > r.Hi {
			t.Errorf("%s: range outside the API's versions %d–%d", label, r.Lo, r.Hi)
			bad++
			continue
		}
		for v := r.Lo; v <= r.Hi; v++ {
			has := page(a, v)[anchor]
			switch {
			case (v == lo || v == hi) && !has:
				t.Errorf("%s: %s has no such row, yet search links there", label, VersionPath(a, v))
				bad++
			case (v < lo || v > hi) && has:
				t.Errorf("%s: %s has the row, outside the range search shows", label, VersionPath(a, v))
				bad++
			}
		}
	}
	// Every row is searchable.
	for _, a := range schema.APIs() {
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			for id := range page(a, v) {
				if (strings.HasPrefix(id, "req-f-") || strings.HasPrefix(id, "resp-f-")) && !indexed[strconv.Itoa(int(a.Key))+" "+id] {
					t.Errorf("%s: row %s is not in search.json", VersionPath(a, v), id)
				}
			}
		}
	}
	if bad > 0 {
		t.Logf("%d of %d field entries wrong", bad, len(s.Fields))
	}
}

// The search finds the internal topics' record pages and the rule pages:
// every page entry names a page that exists, every rule has one, and a
// search for a topic's name reaches its record pages.
func TestSearchPages(t *testing.T) {
	out := buildOnce(t)
	b, err := os.ReadFile(filepath.Join(out, "search.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Pages [][]any `json:"pages"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	hrefs := map[string]bool{}
	offsets := 0
	kips := map[string][]string{} // a query as typed -> the pages it finds
	for _, p := range s.Pages {
		title, href, words := p[0].(string), p[1].(string), p[2].(string)
		hrefs[href] = true
		f := filepath.Join(out, filepath.FromSlash(href))
		if strings.HasSuffix(href, "/") {
			f = filepath.Join(f, "index.html")
		}
		if _, err := os.Stat(f); err != nil {
			t.Errorf("page %q: %v", title, err)
		}
		// As site.js matches: the query within title and words.
		if strings.Contains(strings.ToLower(title+" "+words), "__consumer_offsets") && strings.HasPrefix(href, "internal/consumer_offsets/") {
			offsets++
		}
		for _, q := range []string{"kip-516", "kip 516"} {
			if strings.Contains(strings.ToLower(title+" "+words), q) {
				kips[q] = append(kips[q], href)
			}
		}
	}
	// A KIP's number finds the versions it brought (the pages say
	// "Version 12 came with KIP-516").
	for _, q := range []string{"kip-516", "kip 516"} {
		if !slices.Contains(kips[q], "api/metadata/v12.html") || !slices.Contains(kips[q], "api/fetch/v13.html") {
			t.Errorf("a search for %q finds %v, not Metadata v12 and Fetch v13", q, kips[q])
		}
	}
	if offsets == 0 {
		t.Error("a search for __consumer_offsets finds none of its record pages")
	}
	for _, r := range check.Rules() {
		if !hrefs["rules/"+r.ID+".html"] {
			t.Errorf("rule %s is not in search.json", r.ID)
		}
	}
	for _, tp := range schema.InternalTopics() {
		for i := range tp.Records {
			rec := &tp.Records[i]
			if !hrefs[InternalPath(tp, rec, rec.Value.Valid.Hi)] {
				t.Errorf("%s %s is not in search.json", tp.Name, rec.Value.Name)
			}
		}
	}
}
