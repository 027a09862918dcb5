package site

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// The facts the pages show beside the schema tables live as data files in
// data/ (see site/internal/datagen, which writes the first three):
//
//	retriable.tsv   codes Kafka's error definitions call retriable
//	releases.tsv    each Kafka release's highest version of each API
//	error-apis.tsv  the APIs whose schema files name each error code
//	error-notes.tsv short notes, in kwire's own words, on common codes
//	controller-releases.tsv  each release's highest version of the APIs
//	                its KRaft controller speaks and its broker does not
//	                (kept by hand from kversion, checked by a test)

func dataLines(name string) [][]string {
	b, err := files.ReadFile("data/" + name)
	if err != nil {
		panic("site: missing data file " + name) // embedded: a build error, not input
	}
	var out [][]string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if l == "" || l[0] == '#' {
			continue
		}
		out = append(out, strings.Split(l, "\t"))
	}
	return out
}

// retriableCodes are the codes retriable.tsv lists.
func retriableCodes() map[int16]bool {
	m := map[int16]bool{}
	for _, f := range dataLines("retriable.tsv") {
		if c, err := strconv.Atoi(f[0]); err == nil {
			m[int16(c)] = true
		}
	}
	return m
}

// errorNotes are error-notes.tsv: code -> note.
func errorNotes() map[int16]string {
	m := map[int16]string{}
	for _, f := range dataLines("error-notes.tsv") {
		if c, err := strconv.Atoi(f[0]); err == nil && len(f) > 1 {
			m[int16(c)] = f[1]
		}
	}
	return m
}

// errorAPIs are error-apis.tsv: name -> API keys.
func errorAPIs() map[string][]int16 {
	m := map[string][]int16{}
	for _, f := range dataLines("error-apis.tsv") {
		if len(f) < 2 {
			continue
		}
		for _, k := range strings.Split(f[1], ",") {
			if v, err := strconv.Atoi(k); err == nil {
				m[f[0]] = append(m[f[0]], int16(v))
			}
		}
	}
	return m
}

// release is one Kafka release and the highest version of each API it
// speaks: its broker's, or for an API its broker does not serve, its KRaft
// controller's (Controller). Vote, BrokerRegistration and the other
// APIs only controllers serve are in every release since KRaft; a table
// of brokers alone would leave them blank, which reads as "not in it".
type release struct {
	Name       string
	Max        map[int16]int16
	Controller map[int16]bool // the APIs of Max only the controller speaks
}

// releases lists releases.tsv, newest first, with controller-releases.tsv
// merged in.
func releases() []release {
	var out []release
	for _, f := range dataLines("releases.tsv") {
		r := release{Name: f[0], Max: map[int16]int16{}, Controller: map[int16]bool{}}
		if len(f) > 1 {
			eachKeyVersion(f[1], func(k, v int16) { r.Max[k] = v })
		}
		out = append(out, r)
	}
	for _, f := range dataLines("controller-releases.tsv") {
		for i := range out {
			if out[i].Name != f[0] || len(f) < 2 {
				continue
			}
			r := &out[i]
			eachKeyVersion(f[1], func(k, v int16) {
				if _, ok := r.Max[k]; !ok {
					r.Max[k], r.Controller[k] = v, true
				}
			})
		}
	}
	return out
}

// eachKeyVersion calls fn for each "key:version" of a line.
func eachKeyVersion(s string, fn func(k, v int16)) {
	for _, kv := range strings.Fields(s) {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			continue
		}
		ki, err1 := strconv.Atoi(k)
		vi, err2 := strconv.Atoi(v)
		if err1 == nil && err2 == nil {
			fn(int16(ki), int16(vi))
		}
	}
}

// releaseVersion is how the pages show release r's highest version of
// the API key: "v2", or "v2 (controller)" when only its KRaft
// controller speaks the API; "" when the release has none.
func releaseVersion(r release, key int16) string {
	v, ok := r.Max[key]
	if !ok {
		return ""
	}
	if r.Controller[key] {
		return "v" + itoa(int(v)) + " (controller)"
	}
	return "v" + itoa(int(v))
}

// releaseSpan is a run of releases that share an API's highest version
// (and whether only their controllers speak it).
type releaseSpan struct {
	From, To   string // oldest and newest release of the run
	V          int16
	Controller bool
	Href       string
}

// releaseSpans groups the releases that speak api into runs of the same
// highest version, oldest first.
func releaseSpans(a *schema.API, rs []release) []releaseSpan {
	var out []releaseSpan
	for i := len(rs) - 1; i >= 0; i-- {
		v, ok := rs[i].Max[a.Key]
		if !ok {
			continue
		}
		c := rs[i].Controller[a.Key]
		if n := len(out); n > 0 && out[n-1].V == v && out[n-1].Controller == c {
			out[n-1].To = rs[i].Name
			continue
		}
		out = append(out, releaseSpan{From: rs[i].Name, To: rs[i].Name, V: v, Controller: c, Href: "v" + itoa(int(v)) + ".html"})
	}
	return out
}

// sinceRelease names, for each version of api, the first release whose
// broker (or, for an API its broker does not serve, its KRaft controller)
// speaks it ("" when none kversion knows does).
func sinceRelease(a *schema.API, rs []release) map[int16]string {
	m := map[int16]string{}
	for i := len(rs) - 1; i >= 0; i-- {
		hi, ok := rs[i].Max[a.Key]
		if !ok {
			continue
		}
		for v := a.Valid().Lo; v <= hi; v++ {
			if _, seen := m[v]; !seen {
				m[v] = rs[i].Name
			}
		}
	}
	return m
}
