package site

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/render"
)

// pageRow is one field row as a version page shows it, with where.
type pageRow struct {
	where string // "Produce v3 request topicData.name"
	row   fieldRow
	f     *schema.Field
	msg   *schema.Message
	v     int16
	api   *schema.API
}

// eachPage calls fn for the request and the response of every API
// version page, with the field rows the page shows (fieldRows).
func eachPage(fn func(a *schema.API, m *schema.Message, v int16, root *schema.Layout, rows []fieldRow)) {
	for _, a := range schema.APIs() {
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			for _, m := range []*schema.Message{a.Request, a.Response} {
				if d := m.At(v); d != nil {
					fn(a, m, v, d.Root, fieldRows(a.Key, m, d.Root, v, m.Flexible(v), "x"))
				}
			}
		}
	}
}

// eachPageRow calls fn for every field row of every API version page,
// request and response, as fieldRows makes them for the page.
func eachPageRow(fn func(r pageRow)) int {
	n := 0
	eachPage(func(a *schema.API, m *schema.Message, v int16, root *schema.Layout, rows []fieldRow) {
		dir := "request"
		if m == a.Response {
			dir = "response"
		}
		fields := map[string]*schema.Field{}
		for _, x := range flatten(root, v) {
			fields[x.path] = x.f
		}
		for _, r := range rows {
			n++
			fn(pageRow{where: a.Name + " v" + itoa(int(v)) + " " + dir + " " + r.Path, row: r, f: fields[r.Path], msg: m, v: v, api: a})
		}
	})
	return n
}

func reportRows(t *testing.T, what string, bad map[string][]string) {
	t.Helper()
	if len(bad) == 0 {
		return
	}
	var keys []string
	for k := range bad {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		w := bad[k]
		more := ""
		if len(w) > 3 {
			more = " and " + itoa(len(w)-3) + " more"
			w = w[:3]
		}
		t.Errorf("%s: %q\n\ton %s%s", what, k, strings.Join(w, "; "), more)
	}
}

// nullWord finds a meaning that says a field can hold null. "non-null",
// "never null" and "no null" say the opposite.
var (
	nullWord    = regexp.MustCompile(`\bnull\b`)
	notNullWord = regexp.MustCompile(`(?i)\b(non-null|never null|no null|not null)\b`)
)

// A meaning that says the field can be null is only shown on a row whose
// field is nullable in some version the row shows (its Nullable column):
// a field no version lets be null cannot carry one on the wire, and
// kwire's encoder refuses it.
func TestMeaningsSayNullOnlyOfNullableFields(t *testing.T) {
	bad := map[string][]string{}
	checked := 0
	n := eachPageRow(func(r pageRow) {
		m := r.row.Meaning
		if !nullWord.MatchString(m) || notNullWord.MatchString(m) {
			return
		}
		checked++
		if r.row.Nullable == "" {
			bad[m] = append(bad[m], r.where)
		}
	})
	reportRows(t, "the meaning says null, the field is never nullable", bad)
	t.Logf("%d rows, %d whose meaning speaks of null", n, checked)
	if checked < 300 {
		t.Errorf("only %d rows speak of null", checked)
	}
}

// taggedWord finds a meaning that calls its field tagged.
var taggedWord = regexp.MustCompile(`\btagged\b`)

// A meaning that calls its field tagged is only shown on a page where the
// field travels in the tagged-field section (the row's Tagged); and every
// field with a meaning of its own (a message and path row, not a name
// shared across messages) that is tagged at every version the row shows
// need not say so, but one that says so must be.
func TestMeaningsSayTaggedOnlyOfTaggedFields(t *testing.T) {
	bad := map[string][]string{}
	checked := 0
	eachPageRow(func(r pageRow) {
		m := r.row.Meaning
		if !taggedWord.MatchString(m) {
			return
		}
		checked++
		if !r.row.Tagged {
			bad[m] = append(bad[m], r.where)
		}
	})
	reportRows(t, "the meaning says tagged, the field is not tagged at that version", bad)
	if checked < 20 {
		t.Errorf("only %d rows speak of tags", checked)
	}
}

// The groups of KIP-848's consumer protocol, KIP-932's share groups and
// KIP-1071's Streams groups are joined and left by heartbeat: their
// members send no JoinGroup and never rejoin. Such a group's APIs are
// those named after its heartbeat (ConsumerGroupHeartbeat: ConsumerGroup*;
// an API whose name ends in Heartbeat and whose request carries a member
// epoch), and every share-group API; no meaning shown on their pages
// speaks of JoinGroup or of rejoining, the classic protocol's words, and
// the share and Streams groups' pages do not call their group KIP-848's.
func TestHeartbeatGroupMeaningsAreNotClassic(t *testing.T) {
	var prefixes []string
	for _, a := range schema.APIs() {
		if !strings.HasSuffix(a.Name, "Heartbeat") {
			continue
		}
		for _, x := range flatten(a.Request.At(a.Valid().Hi).Root, a.Valid().Hi) {
			if x.f.Name == "MemberEpoch" {
				prefixes = append(prefixes, strings.TrimSuffix(a.Name, "Heartbeat"))
			}
		}
	}
	sort.Strings(prefixes)
	if strings.Join(prefixes, " ") != "ConsumerGroup ShareGroup StreamsGroup" {
		t.Fatalf("heartbeat groups %q", prefixes)
	}
	group := func(a *schema.API) string {
		for _, p := range prefixes {
			if strings.HasPrefix(a.Name, p) {
				return p
			}
		}
		if a.Category == "share groups" {
			return "ShareGroup"
		}
		return ""
	}
	classic := regexp.MustCompile(`\b(JoinGroup|rejoin|rejoins|rejoined|rejoining)\b`)
	bad := map[string][]string{}
	apis := map[string]bool{}
	eachPageRow(func(r pageRow) {
		g := group(r.api)
		if g == "" {
			return
		}
		apis[r.api.Name] = true
		m := r.row.Meaning
		if classic.MatchString(m) || g != "ConsumerGroup" && strings.Contains(m, "KIP-848") {
			bad[m] = append(bad[m], r.where)
		}
	})
	reportRows(t, "a meaning of another group protocol on a heartbeat group's page", bad)
	if len(apis) < 15 {
		t.Errorf("only %d APIs of heartbeat groups", len(apis))
	}
}

// partWords are the parts a meaning may say each element of a struct or
// array of structs holds, with the field that holds each.
var partWords = map[string]string{"security protocol": "SecurityProtocol", "rack": "Rack", "port": "Port", "host": "Host", "epoch": "LeaderEpoch"}

// A meaning that lists what each element holds ("a name, host, port and
// security protocol each") is shown only on a struct that has those
// fields at the version the page shows.
func TestMeaningsListOnlyPartsTheStructHas(t *testing.T) {
	each := regexp.MustCompile(`: (an? [^.;:]+) each\b`)
	bad := map[string][]string{}
	checked := 0
	eachPageRow(func(r pageRow) {
		if r.f == nil || r.f.Struct == nil {
			return
		}
		m := each.FindStringSubmatch(r.row.Meaning)
		if m == nil {
			return
		}
		checked++
		has := map[string]bool{}
		for _, c := range r.f.Struct.Fields {
			if c.Versions.Contains(r.v) {
				has[c.Name] = true
			}
		}
		for w, name := range partWords {
			if regexp.MustCompile(`\b`+w+`\b`).MatchString(m[1]) && !has[name] {
				bad[r.row.Meaning] = append(bad[r.row.Meaning], r.where+" (no "+name+")")
			}
		}
	})
	reportRows(t, "the meaning lists a part the struct lacks", bad)
	if checked < 5 {
		t.Errorf("only %d rows list their parts", checked)
	}
}

// An ACL's host is the client host it applies to and its resource name
// names what it is on: on the pages of the APIs that carry ACLs (a field
// named PermissionType), no meaning speaks of a broker's listener or of a
// config's cluster-wide default.
func TestACLMeaningsAreAboutACLs(t *testing.T) {
	acl := map[int16]bool{}
	for _, a := range schema.APIs() {
		for _, m := range []*schema.Message{a.Request, a.Response} {
			for _, d := range m.Versions {
				for _, x := range flatten(d.Root, d.Versions.Hi) {
					if x.f.Name == "PermissionType" {
						acl[a.Key] = true
					}
				}
			}
		}
	}
	if len(acl) != 3 {
		t.Fatalf("%d APIs carry ACLs, want CreateAcls, DescribeAcls and DeleteAcls", len(acl))
	}
	wrong := regexp.MustCompile(`\blistener\b|cluster-wide default`)
	bad := map[string][]string{}
	eachPageRow(func(r pageRow) {
		if acl[r.api.Key] && wrong.MatchString(r.row.Meaning) {
			bad[r.row.Meaning] = append(bad[r.row.Meaning], r.where)
		}
	})
	reportRows(t, "a meaning on an ACL page that is not about ACLs", bad)
}

// The page's field table, the CLI's kwire schema and the API's
// /api/schema/{api}/{version} show one version the same way: the same
// fields, each with the same versions, nullable versions and tag, cut to
// the structs enclosing it (render.FieldTable is the CLI's and the API's).
func TestPageFieldsMatchTheSchemaTable(t *testing.T) {
	n := 0
	eachPage(func(_ *schema.API, m *schema.Message, v int16, _ *schema.Layout, page []fieldRow) {
		table := render.FieldTable(m, v)
		if len(page) != len(table) {
			t.Errorf("%s v%d: the page shows %d fields, the schema table %d", m.Name, v, len(page), len(table))
			return
		}
		for i, p := range page {
			r := table[i]
			n++
			if p.Path != r.Path || p.Versions != r.Versions || p.Nullable != r.Nullable || p.Tag != r.Tag {
				t.Errorf("%s v%d %s: page %s/%s/%s, schema table %s %s/%s/%s", m.Name, v, p.Path, p.Versions, p.Nullable, p.Tag, r.Path, r.Versions, r.Nullable, r.Tag)
			}
		}
	})
	if n < 6000 {
		t.Errorf("only %d rows compared", n)
	}
}
