package site

import (
	"html/template"
	"strconv"
	"strings"
	"sync"

	"github.com/kwire/kwire/codec/schema"
)

// Field meanings and the KIPs behind each version, as data files in data/:
//
//	field-meanings.tsv  one line, in kwire's own words, per field (by message
//	                    and value-JSON path, or by field name for every message)
//	version-kips.tsv    the KIPs that introduced an API version (only those
//	                    known for sure)
//
// Tests check both against the schema tables (meanings_test.go).

// meaningTable is field-meanings.tsv: "Message path" -> meaning, and
// "* name" -> the meaning of a field name anywhere.
type meaningTable map[string]string

var (
	meaningsOnce sync.Once
	meanings     meaningTable
)

func fieldMeanings() meaningTable {
	meaningsOnce.Do(func() {
		meanings = meaningTable{}
		for _, f := range dataLines("field-meanings.tsv") {
			if len(f) == 3 {
				meanings[f[0]+" "+f[1]] = f[2]
			}
		}
	})
	return meanings
}

// of is the meaning of the field at path (value-JSON names, no indices) of
// message msg, whose own JSON name is name: its own row, else the row for
// its name in every message; "" when neither exists.
func (t meaningTable) of(msg, path, name string) string {
	if m, ok := t[msg+" "+path]; ok {
		return m
	}
	return t["* "+name]
}

// kip is a Kafka Improvement Proposal behind an API version.
type kip struct {
	Num  int
	Href string
}

// kipURL is where a KIP's page is found: the wiki's search for its
// number, which lands on the KIP (the wiki's page names carry the KIPs'
// titles, which this project does not keep).
func kipURL(n int) string {
	return "https://cwiki.apache.org/confluence/dosearchsite.action?queryString=%22KIP-" + strconv.Itoa(n) + "%22"
}

// versionNote is version-kips.tsv's line for one API version.
type versionNote struct {
	KIPs []kip
	Note string // what the version brought, in a few words
}

var (
	kipsOnce sync.Once
	kipTable map[int16]map[int16]versionNote
)

// versionKIPs is version-kips.tsv: API key -> version -> its KIPs.
func versionKIPs() map[int16]map[int16]versionNote {
	kipsOnce.Do(func() {
		kipTable = map[int16]map[int16]versionNote{}
		for _, f := range dataLines("version-kips.tsv") {
			if len(f) < 3 {
				continue
			}
			a := schema.ByName(f[0])
			v, err := strconv.Atoi(f[1])
			if a == nil || err != nil {
				continue
			}
			var n versionNote
			for _, k := range strings.Split(f[2], ",") {
				if x, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(k), "KIP-")); err == nil {
					n.KIPs = append(n.KIPs, kip{x, kipURL(x)})
				}
			}
			if len(f) > 3 {
				n.Note = f[3]
			}
			if kipTable[a.Key] == nil {
				kipTable[a.Key] = map[int16]versionNote{}
			}
			kipTable[a.Key][int16(v)] = n
		}
	})
	return kipTable
}

// guideURL is the section of Kafka's protocol guide on an API's messages.
func guideURL(a *schema.API) string {
	return "https://kafka.apache.org/protocol#The_Messages_" + a.Name
}

// breakable writes a name so that it can wrap between its words on a
// narrow screen: a <wbr> before each capital that follows a lower-case
// letter or digit (camel case), after each underscore and after each dot.
// Every part is escaped.
func breakable(s string) template.HTML {
	var b strings.Builder
	start := 0
	for i := 1; i < len(s); i++ {
		c, p := s[i], s[i-1]
		hump := c >= 'A' && c <= 'Z' && (p >= 'a' && p <= 'z' || p >= '0' && p <= '9')
		after := p == '_' || p == '.'
		if hump || after {
			b.WriteString(template.HTMLEscapeString(s[start:i]))
			b.WriteString("<wbr>")
			start = i
		}
	}
	b.WriteString(template.HTMLEscapeString(s[start:]))
	return template.HTML(b.String())
}
