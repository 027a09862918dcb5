package site

import (
	"encoding/binary"
	"encoding/hex"
	"html/template"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/codec/check/ruledoc"
)

// The rule pages: rules/index.html, the table of every rule kwire check
// applies (generated from package check's table), and rules/<id>.html,
// one per rule, from package ruledoc: what Kafka requires, where Kafka's
// code or a KIP says so, what real clients do, and an example that breaks
// the rule with what kwire check says of it.

type ruleRow struct {
	ID, Level, Severity, Statement, Href string
}

type rulesIndex struct {
	Rules  []ruleRow
	Levels []string
}

// ruleSource is a path in apache/kafka (Path) or a KIP. The site links
// only within itself, so paths are shown, not linked.
type ruleSource struct {
	Ref  string
	Path bool
	Says string
}

type rulePage struct {
	ruleRow
	Requires, Allowed []template.HTML
	Fault             string
	Kafka             []ruleSource
	Bad, Good         []string
	Findings          []string
	// BadLinks open each frame of the example in the playground, read as
	// kwire check reads it: a request, or the response to the request
	// it answers (a raw SASL token has none).
	BadLinks []ruleFrameLink
}

// ruleFrameLink is a playground link to frame N of a rule's example.
type ruleFrameLink struct {
	N          int
	Href, What string
}

// linkMax is the most bytes of a frame a link carries (the playground's
// LINK_MAX).
const linkMax = 32 << 10

// frameLinks are the playground links of a rule example's frames (bad,
// as hex), in order, as check paired them (xs).
func frameLinks(bad []string, xs []check.Exchange) []ruleFrameLink {
	links := make([]ruleFrameLink, len(bad))
	for _, x := range xs {
		if x.SASLToken {
			continue
		}
		if x.Request != nil && x.RequestFrame > 0 {
			links[x.RequestFrame-1] = ruleFrameLink{N: x.RequestFrame, What: "request", Href: "#hex=" + bad[x.RequestFrame-1] + "&size=yes"}
		}
		if x.Response != nil && x.ResponseFrame > 0 {
			h := "#hex=" + bad[x.ResponseFrame-1] + "&dir=response&size=yes"
			if len(x.Request) >= 8 {
				h += "&api=" + strconv.Itoa(int(binary.BigEndian.Uint16(x.Request[4:]))) + "&v=" + strconv.Itoa(int(binary.BigEndian.Uint16(x.Request[6:])))
			}
			links[x.ResponseFrame-1] = ruleFrameLink{N: x.ResponseFrame, What: "response", Href: h}
		}
	}
	var out []ruleFrameLink
	for i, l := range links {
		if l.Href != "" && len(bad[i]) <= 2*linkMax {
			out = append(out, l)
		}
	}
	return out
}

func ruleRowOf(r *check.Rule) ruleRow {
	return ruleRow{ID: r.ID, Level: r.Level.String(), Severity: r.Severity.String(), Statement: r.Statement, Href: r.ID + ".html"}
}

// rulesPages writes the rule table and a page per rule.
func (b *builder) rulesPages() error {
	var idx rulesIndex
	for _, l := range []check.Level{check.LevelFrame, check.LevelRecords, check.LevelConnection, check.LevelConversation} {
		idx.Levels = append(idx.Levels, l.String())
	}
	for _, r := range check.Rules() {
		idx.Rules = append(idx.Rules, ruleRowOf(r))
		p, ok := ruledoc.ByID(r.ID)
		if !ok {
			return errString("site: rule " + r.ID + " has no page in codec/check/ruledoc")
		}
		d := rulePage{ruleRow: ruleRowOf(r), Requires: paragraphs(p.Requires), Allowed: paragraphs(p.Allowed), Fault: capitalize(p.Fault)}
		for _, s := range p.Kafka {
			d.Kafka = append(d.Kafka, ruleSource{Ref: s.Ref, Path: strings.Contains(s.Ref, "/"), Says: s.Says})
		}
		d.Bad, d.Good = ruledoc.Example(r.ID)
		var frames [][]byte
		for _, h := range d.Bad {
			f, err := hex.DecodeString(h)
			if err != nil {
				return errString("site: rule " + r.ID + ": bad example hex")
			}
			frames = append(frames, f)
		}
		xs := check.FromFrames(frames)
		d.BadLinks = frameLinks(d.Bad, xs)
		for _, f := range check.Check(xs) {
			d.Findings = append(d.Findings, f.String())
		}
		if err := b.render("rule", "rules/"+r.ID+".html", page{Title: r.ID, Nav: "rules", Body: d}); err != nil {
			return err
		}
	}
	return b.render("rules", "rules/index.html", page{Title: "Protocol rules", Nav: "rules", Body: idx})
}

type errString string

func (e errString) Error() string { return string(e) }

// paragraphs splits text at blank lines and turns `code` spans into
// <code>; everything else is escaped.
func paragraphs(text string) []template.HTML {
	var out []template.HTML
	for _, p := range strings.Split(text, "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		var b strings.Builder
		for i, part := range strings.Split(p, "`") {
			if i%2 == 1 {
				b.WriteString("<code>" + template.HTMLEscapeString(part) + "</code>")
			} else {
				b.WriteString(template.HTMLEscapeString(part))
			}
		}
		out = append(out, template.HTML(b.String()))
	}
	return out
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
