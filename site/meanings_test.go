package site

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/schema"
)

// mostUsed are the 25 APIs clients send most: every field of theirs, at
// every version, has a meaning.
var mostUsed = []string{"Produce", "Fetch", "ListOffsets", "Metadata", "OffsetCommit", "OffsetFetch", "FindCoordinator",
	"JoinGroup", "Heartbeat", "LeaveGroup", "SyncGroup", "DescribeGroups", "ListGroups", "SaslHandshake", "ApiVersions",
	"CreateTopics", "DeleteTopics", "InitProducerId", "AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn", "TxnOffsetCommit",
	"DescribeConfigs", "AlterConfigs", "SaslAuthenticate"}

// messagePaths lists every field path (value-JSON names, no indices) of m
// at any version, with the field's JSON name.
func messagePaths(m *schema.Message) map[string]string {
	out := map[string]string{}
	for _, d := range m.Versions {
		var walk func(l *schema.Layout, path string)
		walk = func(l *schema.Layout, path string) {
			for i := range l.Fields {
				f := &l.Fields[i]
				p := joinField(path, f.JSON)
				out[p] = f.JSON
				if f.Struct != nil {
					walk(f.Struct, p)
				}
			}
		}
		walk(d.Root, "")
	}
	return out
}

func allMessages() map[string]*schema.Message {
	ms := map[string]*schema.Message{"RequestHeader": schema.RequestHeader(), "ResponseHeader": schema.ResponseHeader()}
	for _, a := range schema.APIs() {
		ms[a.Request.Name], ms[a.Response.Name] = a.Request, a.Response
	}
	return ms
}

// Every field of the 25 most used APIs (and of both headers) has a
// meaning, its own or its name's.
func TestFieldMeaningsCoverTheMostUsedAPIs(t *testing.T) {
	mt := fieldMeanings()
	n := 0
	msgs := []*schema.Message{schema.RequestHeader(), schema.ResponseHeader()}
	for _, name := range mostUsed {
		a := schema.ByName(name)
		if a == nil {
			t.Fatalf("no API %s", name)
		}
		msgs = append(msgs, a.Request, a.Response)
	}
	var missing []string
	for _, m := range msgs {
		for p, json := range messagePaths(m) {
			n++
			if mt.of(m.Name, p, json) == "" {
				missing = append(missing, m.Name+"\t"+p)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d fields of the most used APIs have no meaning in data/field-meanings.tsv:\n%s", len(missing), strings.Join(missing, "\n"))
	}
	if n < 450 {
		t.Errorf("only %d fields checked", n)
	}
	// And across every API, most fields are covered by their name at least.
	all, covered := 0, 0
	for _, m := range allMessages() {
		for p, json := range messagePaths(m) {
			all++
			if mt.of(m.Name, p, json) != "" {
				covered++
			}
		}
	}
	t.Logf("meanings: every field of the %d most used APIs (%d paths); %d of %d paths of all %d APIs", len(mostUsed), n, covered, all, len(schema.APIs()))
}

// Every row of field-meanings.tsv names a field that exists (a message and
// path the schemas have, or for "*" a JSON name some message has), says
// something, and is written once.
func TestFieldMeaningsAreNotStale(t *testing.T) {
	msgs := allMessages()
	names := map[string]bool{}
	paths := map[string]map[string]string{}
	for name, m := range msgs {
		paths[name] = messagePaths(m)
		for _, json := range paths[name] {
			names[json] = true
		}
	}
	seen := map[string]bool{}
	for i, f := range dataLines("field-meanings.tsv") {
		if len(f) != 3 {
			t.Errorf("row %d: want message, path and meaning, got %q", i, f)
			continue
		}
		key := f[0] + " " + f[1]
		if seen[key] {
			t.Errorf("%s: given twice", key)
		}
		seen[key] = true
		if len(f[2]) < 10 || !strings.HasSuffix(f[2], ".") {
			t.Errorf("%s: %q is not a sentence", key, f[2])
		}
		if f[0] == "*" {
			if !names[f[1]] {
				t.Errorf("* %s: no message has a field of that name", f[1])
			}
			continue
		}
		ps, ok := paths[f[0]]
		if !ok {
			t.Errorf("%s: no message %s", key, f[0])
			continue
		}
		if _, ok := ps[f[1]]; !ok {
			t.Errorf("%s: %s has no field at %s", key, f[0], f[1])
		}
	}
}

// The meanings are kwire's own words: none repeats a sentence of the
// "about" texts of Kafka's schema files, when those are at hand (a Kafka
// checkout in KAFKA_SCHEMAS; the repository keeps none of that prose).
func TestFieldMeaningsAreOurOwnWords(t *testing.T) {
	dir := os.Getenv("KAFKA_SCHEMAS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "kafka-message-schemas")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	more, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	files = append(files, more...)
	// In the repository itself, no "about" survives (codec/schema/kafka's
	// README says so); that is what is checked when no checkout is near.
	repoFiles, _ := filepath.Glob(filepath.Join("..", "codec", "schema", "kafka", "*", "*.json"))
	about := regexp.MustCompile(`"about":\s*"((?:[^"\\]|\\.)*)"`)
	for _, p := range repoFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if about.Match(b) {
			t.Fatalf("%s keeps Kafka's about texts", p)
		}
	}
	abouts := map[string]bool{}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, m := range about.FindAllSubmatch(b, -1) {
			s, err := strconv.Unquote(`"` + string(m[1]) + `"`)
			if err == nil && len(s) > 25 {
				abouts[strings.ToLower(strings.TrimSuffix(s, "."))] = true
			}
		}
	}
	if len(abouts) == 0 {
		t.Logf("no Kafka checkout with about texts at %s: only the repository's schemas were checked", dir)
		return
	}
	for _, f := range dataLines("field-meanings.tsv") {
		if len(f) == 3 && abouts[strings.ToLower(strings.TrimSuffix(f[2], "."))] {
			t.Errorf("%s %s: the meaning is Kafka's about text", f[0], f[1])

		}
	}
	t.Logf("compared with %d about texts of %d schema files", len(abouts), len(files))
}

// version-kips.tsv names APIs and versions that exist, KIPs by number, and
// every entry reaches its API page and version page.
func TestVersionKIPs(t *testing.T) {
	n := 0
	for _, f := range dataLines("version-kips.tsv") {
		if len(f) != 4 {
			t.Errorf("%q: want API, version, KIPs and a note", f)
			continue
		}
		a := schema.ByName(f[0])
		if a == nil {
			t.Errorf("%q: no API %s", f, f[0])
			continue
		}
		v, err := strconv.Atoi(f[1])
		if err != nil || !a.Valid().Contains(int16(v)) {
			t.Errorf("%q: %s has no version %s", f, a.Name, f[1])
		}
		if !regexp.MustCompile(`^KIP-\d+(, KIP-\d+)*$`).MatchString(f[2]) {
			t.Errorf("%q: KIPs must read KIP-n[, KIP-m]", f)
		}
		n++
	}
	if n < 100 {
		t.Errorf("only %d entries", n)
	}
	out := buildOnce(t)
	page, err := os.ReadFile(filepath.Join(out, "api", "produce", "v3.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<a href="`+kipURL(98)+`">KIP-98</a>`) {
		t.Error("Produce v3's page does not link KIP-98")
	}
	if !strings.Contains(string(page), `href="https://kafka.apache.org/protocol#The_Messages_Produce"`) {
		t.Error("Produce v3's page does not link Kafka's protocol guide")
	}
	idx, err := os.ReadFile(filepath.Join(out, "api", "fetch", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(idx), `<a href="`+kipURL(227)+`">KIP-227</a>`) {
		t.Error("Fetch's page does not list KIP-227 beside v7")
	}
	v13, err := os.ReadFile(filepath.Join(out, "api", "produce", "v13.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(v13), `data-label="Meaning">How many replicas must have the records`) {
		t.Error("Produce v13's field table does not say what acks means")
	}
}

func TestBreakable(t *testing.T) {
	for in, want := range map[string]string{
		"StreamsGroupTopologyDescriptionUpdate": "Streams<wbr>Group<wbr>Topology<wbr>Description<wbr>Update",
		"NOT_LEADER_OR_FOLLOWER":                "NOT_<wbr>LEADER_<wbr>OR_<wbr>FOLLOWER",
		"ApiVersions":                           "Api<wbr>Versions",
		"<b>x</b>":                              "&lt;b&gt;x&lt;/b&gt;",
		"V3AndBelow":                            "V3<wbr>And<wbr>Below",
	} {
		if got := string(breakable(in)); got != want {
			t.Errorf("breakable(%q) = %q, want %q", in, got, want)
		}
	}
}
