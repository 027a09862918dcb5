package site

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/site/internal/pgexamples"
)

// retriable.tsv is Kafka's classification as kerr transcribes it: every
// code kerr marks retriable is listed, and no other, but the three kerr
// gives otherwise than Kafka's exceptions: BrokerNotAvailableException
// is an ApiException (kerr: retriable), ShareSessionNotFoundException and
// InvalidShareSessionEpochException are RetriableExceptions (kerr: not).
func TestRetriableMatchesKafkasDefinitions(t *testing.T) {
	kafka := map[int16]bool{8: false, 122: true, 123: true}
	got := retriableCodes()
	n := 0
	for c := -1; c < 1000; c++ {
		ke, ok := kerr.ErrorForCode(int16(c)).(*kerr.Error)
		want := ok && ke.Retriable
		if k, ok := kafka[int16(c)]; ok {
			want = k
		}
		if got[int16(c)] != want {
			t.Errorf("code %d (%s): retriable.tsv says %v, Kafka's definitions %v", c, schema.ErrorName(int16(c)), got[int16(c)], want)
		}
		if want {
			n++
		}
	}
	if n < 20 || !got[6] || !got[3] || got[10] {
		t.Errorf("%d retriable codes; NOT_LEADER_OR_FOLLOWER %v, UNKNOWN_TOPIC_OR_PARTITION %v, MESSAGE_TOO_LARGE %v", n, got[6], got[3], got[10])
	}
	// Notes exist only for codes that exist.
	for c := range errorNotes() {
		if schema.ErrorName(c) == "" {
			t.Errorf("a note for unknown code %d", c)
		}
	}
}

// releases.tsv is kversion's tables; Kafka 4.0's column agrees with the
// schema folder taken from the 4.0 branch where both speak the API.
func TestReleasesMatchKversion(t *testing.T) {
	rs := releases()
	if len(rs) < 30 {
		t.Fatalf("%d releases", len(rs))
	}
	for _, r := range rs {
		vs := kversion.FromString("v" + r.Name)
		if vs == nil {
			t.Fatalf("kversion knows no %s", r.Name)
		}
		n := 0
		vs.EachMaxKeyVersion(func(k, v int16) {
			n++
			if got, ok := r.Max[k]; !ok || got != v || r.Controller[k] {
				t.Errorf("Kafka %s, key %d: releases.tsv %d (%v, controller %v), kversion %d", r.Name, k, got, ok, r.Controller[k], v)
			}
		})
		if n != len(r.Max)-len(r.Controller) {
			t.Errorf("Kafka %s: %d APIs in releases.tsv, %d in kversion", r.Name, len(r.Max)-len(r.Controller), n)
		}
	}
	r40 := releaseNamed(rs, "4.0")
	checked := 0
	for _, m := range requests40(t) {
		if got, ok := r40.Max[m.key]; ok {
			checked++
			if int(got) != m.hi {
				t.Errorf("key %d: kversion says Kafka 4.0 speaks v%d, the 4.0 branch's file v%d", m.key, got, m.hi)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d APIs checked against the 4.0 files", checked)
	}
	// Produce: the run of releases for each highest version.
	sp := releaseSpans(schema.ByName("Produce"), rs)
	if sp[0].From != "0.8.0" || sp[0].V != 0 || sp[len(sp)-1].To != rs[0].Name {
		t.Errorf("Produce spans %+v", sp)
	}
	if s := sinceRelease(schema.ByName("Produce"), rs); s[3] != "0.11.0" {
		t.Errorf("Produce v3 since %q, want 0.11.0 (record batches)", s[3])
	}
}

func TestXXD(t *testing.T) {
	got := xxd([]byte("\x00\x00\x00\x1c\x00\x12\x00\x03\x00\x00\x00\x07\x00\x05kwire<b>"))
	want := "00000000: 0000 001c 0012 0003 0000 0007 0005 6b77  ..............kw\n" +
		"00000010: 6972 653c 623e                           ire<b>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSchemaJSONIsStructureOnly(t *testing.T) {
	a := schema.ByName("Produce")
	js := schemaJSON(a.Request, a.Request.Valid.Hi)
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatalf("%v\n%s", err, js)
	}
	if bytes.Contains(js, []byte(`"about"`)) {
		t.Error("the schema JSON carries about texts")
	}
	for _, want := range []string{`"name": "ProduceRequest"`, `"name": "TransactionalId", "type": "string"`, `"entityType": "transactionalId"`, `"fields": [`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("no %s in\n%s", want, js)
		}
	}
}

func TestSearchIndexHasFieldNames(t *testing.T) {
	js, err := searchData()
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Fields   [][]any  `json:"fields"`
		Meanings []string `json:"meanings"`
		Errors   [][]any  `json:"errors"`
		APIs     [][]any  `json:"apis"`
	}
	if err := json.Unmarshal(js, &idx); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range idx.Fields {
		if r[0] == "topicId" && r[2] == float64(1) && r[3] == "req" && r[4] == "topics.topicId" {
			found = true
			if m := int(r[7].(float64)); m < 0 || !strings.Contains(idx.Meanings[m], "topic's id") {
				t.Errorf("topics.topicId's meaning: %v", r[7])
			}
		}
	}
	if !found {
		t.Error("Fetch's request field topics.topicId is not in the search index")
	}
	names := map[string]bool{}
	for _, e := range idx.Errors {
		names[e[1].(string)] = true
		for _, o := range e[4].([]any) {
			names[o.(string)] = true
		}
	}
	for _, n := range []string{"NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_FOR_PARTITION", "UNKNOWN_TOPIC_OR_PARTITION"} {
		if !names[n] {
			t.Errorf("error %s is not in the search index", n)
		}
	}
	if len(idx.APIs) != len(schema.APIs()) {
		t.Errorf("%d APIs in the search index, %d in the tables", len(idx.APIs), len(schema.APIs()))
	}
	if len(js) > 600<<10 {
		t.Errorf("search.json is %d bytes", len(js))
	}
	t.Logf("search.json: %d bytes, %d fields, %d meanings", len(js), len(idx.Fields), len(idx.Meanings))
}

// The playground's examples in site/playground/static are what
// pgexamples makes (go run ./site/internal/pgexamples/cmd).
func TestPlaygroundExamplesAreCurrent(t *testing.T) {
	files, err := pgexamples.Files("..")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("playground", "static", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("site/playground/static/%s is stale: go run ./site/internal/pgexamples/cmd", name)
		}
	}
}

// INVALID_PRODUCER_EPOCH (47) is abortable since KIP-588: its note must
// not say what PRODUCER_FENCED (90) means. LISTENER_NOT_FOUND (72) is
// about the leader's listeners, not the broker the request went to.
func TestErrorNotesOfEpochAndListener(t *testing.T) {
	n := errorNotes()
	if s := n[47]; strings.Contains(s, "must stop") || !strings.Contains(s, "abort") {
		t.Errorf("47's note describes a fenced producer: %q", s)
	}
	if s := n[72]; !strings.Contains(s, "leader") {
		t.Errorf("72's note does not say whose listener is missing: %q", s)
	}
}

// A version some release's broker advertises (releases.tsv) is released:
// no page, no index row and no API answer may call it unstable, which is
// what schema.Message.Unstable decides for all of them. Where a folder of
// Kafka's schemas marked such a version unstable (its file taken before
// the release), codec/schema/kafka/released.tsv says so and names the
// release; that release is the page's "Since".
func TestReleasedVersionsAreNotUnstable(t *testing.T) {
	rs := releases()
	for _, a := range schema.APIs() {
		since := sinceRelease(a, rs)
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			if s := since[v]; s != "" && (a.Request.Unstable.Contains(v) || a.Response.Unstable.Contains(v)) {
				t.Errorf("%s v%d: Kafka %s advertises it, yet it is marked unstable", a.Name, v, s)
			}
		}
	}
	rows, err := os.ReadFile(filepath.Join("..", "codec", "schema", "kafka", "released.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(rows), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		k, _ := strconv.Atoi(f[0])
		v, _ := strconv.Atoi(f[1])
		a := schema.ByKey(int16(k))
		if a == nil || len(f) != 3 {
			t.Errorf("released.tsv: %q", line)
			continue
		}
		if got := sinceRelease(a, rs)[int16(v)]; got != f[2] {
			t.Errorf("released.tsv: %s v%d since %s, releases.tsv says %q", a.Name, v, f[2], got)
		}
	}
}

// The APIs only KRaft controllers serve (Vote, BeginQuorumEpoch,
// BrokerRegistration, ...) are in every release since KRaft, at the
// versions its controllers speak: the index's release column, the API
// pages' release table and "Since" show them, where they were blank as
// if the release lacked them. controller-releases.tsv is kversion's
// controller tables: its 4.2 row is what kversion.Stable() (4.2's broker,
// then its controller, then 3.9's ZooKeeper broker, merged in that order)
// adds to 4.2's broker table, but for the ZooKeeper-era APIs 4.0 dropped;
// its 4.0 row agrees with the schema files of Kafka's 4.0 branch, whose
// listeners name the controller.
func TestControllerOnlyAPIsAreInTheirReleases(t *testing.T) {
	rs := releases()
	ctl := 0
	for _, r := range rs {
		ctl += len(r.Controller)
	}
	if ctl < 100 {
		t.Fatalf("%d controller versions in all releases", ctl)
	}
	r42 := rs[0]
	if r42.Name != "4.2" {
		t.Fatalf("newest release %s", r42.Name)
	}
	broker := kversion.V4_2_0()
	kversion.Stable().EachMaxKeyVersion(func(k, v int16) {
		if broker.HasKey(k) {
			return
		}
		if a := schema.ByKey(k); a != nil && a.Removed40 == a.Valid() {
			return // ZooKeeper's, from 3.9's table
		}
		if got, ok := r42.Max[k]; !ok || got != v || !r42.Controller[k] {
			t.Errorf("Kafka 4.2, key %d: %d (%v, controller %v), kversion's controller %d", k, got, ok, r42.Controller[k], v)
		}
	})
	for k := range r42.Controller {
		if v, ok := kversion.Stable().LookupMaxKeyVersion(k); !ok || v != r42.Max[k] {
			t.Errorf("Kafka 4.2, key %d: controller v%d, kversion v%d (%v)", k, r42.Max[k], v, ok)
		}
	}
	r40 := releaseNamed(rs, "4.0")
	checked := 0
	for _, m := range requests40(t) {
		if !r40.Controller[m.key] {
			continue
		}
		checked++
		if int(r40.Max[m.key]) != m.hi || !slices.Contains(m.listeners, "controller") {
			t.Errorf("key %d: Kafka 4.0's controller v%d, the 4.0 branch's file v%d, listeners %v", m.key, r40.Max[m.key], m.hi, m.listeners)
		}
	}
	if checked != len(r40.Controller) || checked < 10 {
		t.Errorf("%d of Kafka 4.0's %d controller APIs checked against the 4.0 files", checked, len(r40.Controller))
	}
	// What the pages show: the index's cell, the API page's releases.
	vote := schema.ByName("Vote")
	if got := releaseVersion(r42, vote.Key); got != "v2 (controller)" {
		t.Errorf("Vote in Kafka 4.2: %q", got)
	}
	if got := indexAPIByKey(indexData(schema.APIs()), vote.Key); got.Latest != "v2 (controller)" || !strings.HasPrefix(got.Releases, "4.2:2:c ") {
		t.Errorf("Vote's index row: Latest %q, Releases %q", got.Latest, got.Releases)
	}
	if got := indexAPIByKey(indexData(schema.APIs()), schema.KeyProduce); got.Latest != "v13" || strings.Contains(got.Releases, ":c") {
		t.Errorf("Produce's index row: Latest %q, Releases %q", got.Latest, got.Releases)
	}
	sp := releaseSpans(vote, rs)
	if len(sp) == 0 || sp[len(sp)-1].To != "4.2" || sp[len(sp)-1].V != 2 || !sp[len(sp)-1].Controller {
		t.Errorf("Vote's releases %+v", sp)
	}
	if s := sinceRelease(vote, rs); s[2] != "4.0" || s[0] != "2.8" {
		t.Errorf("Vote since %v", s)
	}
	if got := releaseVersion(r42, schema.KeyLeaderAndIsr); got != "" {
		t.Errorf("LeaderAndIsr in Kafka 4.2: %q", got)
	}
}

func indexAPIByKey(p indexPage, key int16) indexAPI {
	for _, c := range p.Cats {
		for _, a := range c.APIs {
			if a.Key == key {
				return a
			}
		}
	}
	return indexAPI{}
}

// releaseNamed is the release of that name in rs.
func releaseNamed(rs []release, name string) release {
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	return release{}
}

// request40 is what a test reads of a request schema from Kafka's 4.0
// branch: its API key, highest version and listeners.
type request40 struct {
	key       int16
	hi        int
	listeners []string
}

func requests40(t *testing.T) []request40 {
	files, _ := filepath.Glob("../codec/schema/kafka/kafka-4.0/*Request.json")
	var out []request40
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			APIKey        *int16   `json:"apiKey"`
			ValidVersions string   `json:"validVersions"`
			Listeners     []string `json:"listeners"`
		}
		if json.Unmarshal(b, &m) != nil || m.APIKey == nil {
			continue
		}
		hi, _ := strconv.Atoi(m.ValidVersions[strings.LastIndexAny(m.ValidVersions, "-")+1:])
		out = append(out, request40{*m.APIKey, hi, m.Listeners})
	}
	return out
}
