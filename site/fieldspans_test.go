package site

import (
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/schema"
)

// parseRange reads a field row's Versions cell: "3", "0-12" or "4+".
func parseRange(s string) (schema.Range, bool) {
	if lo, ok := strings.CutSuffix(s, "+"); ok {
		n, err := strconv.Atoi(lo)
		return schema.Range{Lo: int16(n), Hi: schema.Open}, err == nil
	}
	a, b, dash := strings.Cut(s, "-")
	lo, err1 := strconv.Atoi(a)
	hi, err2 := lo, error(nil)
	if dash {
		hi, err2 = strconv.Atoi(b)
	}
	return schema.Range{Lo: int16(lo), Hi: int16(hi)}, err1 == nil && err2 == nil
}

// A field's Versions cell says where the field occurs, so it reads the
// same on the page of every version it names: the pages of versions laid
// out by an older schema file (Produce v0-2 and OffsetCommit v0-1, from
// the files before Kafka 4.0 dropped them) showed that file's "0+" for
// topics' name, where the pages of later versions show 0-12 (Produce) and
// 0-9 (OffsetCommit), the newer file's end of the field.
func TestFieldVersionsReadTheSameOnEveryPage(t *testing.T) {
	type key struct {
		msg  *schema.Message
		path string
	}
	shown := map[key]map[int16]string{} // the Versions cell of each page
	eachPage(func(_ *schema.API, m *schema.Message, v int16, _ *schema.Layout, rows []fieldRow) {
		for _, r := range rows {
			k := key{m, r.Path}
			if shown[k] == nil {
				shown[k] = map[int16]string{}
			}
			shown[k][v] = r.Versions
		}
	})
	for _, c := range []struct {
		api, path string
		v         int16
		want      string
	}{
		{"Produce", "topicData.name", 0, "0-12"},
		{"Produce", "topicData.name", 2, "0-12"},
		{"Produce", "topicData.name", 3, "0-12"},
		{"OffsetCommit", "topics.name", 0, "0-9"},
		{"OffsetCommit", "topics.name", 1, "0-9"},
		{"OffsetCommit", "topics.name", 2, "0-9"},
		{"Produce", "acks", 0, "0+"},
	} {
		if got := shown[key{schema.ByName(c.api).Request, c.path}][c.v]; got != c.want {
			t.Errorf("%s v%d request %s: Versions %q, want %q", c.api, c.v, c.path, got, c.want)
		}
	}
	n := 0
	for k, pages := range shown {
		for v, s := range pages {
			r, ok := parseRange(s)
			if !ok || !r.Contains(v) {
				t.Errorf("%s v%d %s: Versions %q does not hold the page's version", k.msg.Name, v, k.path, s)
				continue
			}
			for w, s2 := range pages {
				n++
				if r.Contains(w) && s2 != s {
					t.Errorf("%s %s: Versions %q on the v%d page, %q on the v%d page", k.msg.Name, k.path, s, v, s2, w)
				}
			}
		}
	}
	if n < 20000 {
		t.Errorf("only %d pairs of pages compared", n)
	}
}
