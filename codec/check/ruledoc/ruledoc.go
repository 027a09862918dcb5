// Package ruledoc holds the page of every rule of package check: what Kafka
// requires, where Kafka's own code or a KIP says so, what real clients do
// that the rule allows, and an example conversation that breaks the rule
// beside the same conversation without the fault (frames as hex lines, in
// examples/, written by check's TestRuleExamples -update and checked by it:
// the fault is flagged with exactly its rule, the twin with none).
//
// The docs site renders these pages; the pages are kept apart from package
// check so that the browser's WebAssembly, which runs the rules, does not
// carry their prose.
package ruledoc

import (
	"embed"
	"strings"
)

//go:embed examples/*.hex
var examples embed.FS

// Page is one rule's page. Texts are paragraphs separated by blank lines,
// with `code` spans.
type Page struct {
	ID       string
	Requires string   // what Kafka requires
	Kafka    []Source // where Kafka's code or a KIP says so
	Allowed  string   // what real clients do that the rule allows, and why the severity
	Fault    string   // what the example's fault is
}

// Source is a place in Kafka's sources (a path in the apache/kafka
// repository) or a KIP, and what it says there.
type Source struct {
	Ref  string
	Says string
}

// ByID returns the page of a rule, and whether there is one.
func ByID(id string) (Page, bool) {
	for _, p := range pages {
		if p.ID == id {
			return p, true
		}
	}
	return Page{}, false
}

// Pages returns every page, in the order of the rule table.
func Pages() []Page { return append([]Page(nil), pages...) }

// Example returns a rule's example conversation that breaks it and its
// clean twin, as frames in hex, one per line.
func Example(id string) (bad, good []string) {
	return lines("examples/" + id + ".bad.hex"), lines("examples/" + id + ".good.hex")
}

func lines(name string) []string {
	b, err := examples.ReadFile(name)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}
