package site

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/codec/check/ruledoc"
)

// TestRulePages: the rule table lists every rule of package check with a
// link to its page, and each page shows its example flagged by that rule.
func TestRulePages(t *testing.T) {
	out := t.TempDir()
	if err := Build(out, Options{}); err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(filepath.Join(out, "rules", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range check.Rules() {
		if !strings.Contains(string(idx), `<a href="`+r.ID+`.html"><code>`+r.ID+`</code></a>`) {
			t.Errorf("the rule table does not link %s", r.ID)
		}
		page, err := os.ReadFile(filepath.Join(out, "rules", r.ID+".html"))
		if err != nil {
			t.Errorf("%s: %v", r.ID, err)
			continue
		}
		if !strings.Contains(string(page), "\n"+r.ID+" "+r.Severity.String()+" ") && !strings.Contains(string(page), `aria-label="What kwire check prints">`+r.ID+" "+r.Severity.String()+" ") {
			t.Errorf("%s: the page's example output does not show the rule flagged", r.ID)
		}
		if !strings.Contains(string(page), "<li><code>") && !strings.Contains(string(page), "<li>KIP-") {
			t.Errorf("%s: the page cites neither Kafka's code nor a KIP", r.ID)
		}
	}
}

// TestRulePageFrameLinks: a rule page opens each frame of its example in
// the playground as kwire check reads it: frames 1 and 2 of
// conn.retry-version are an ApiVersions request and its answer, whose
// link names the request's API and version (a response says neither),
// and each link holds its frame's bytes.
func TestRulePageFrameLinks(t *testing.T) {
	bad, _ := ruledoc.Example("conn.retry-version")
	var frames [][]byte
	for _, h := range bad {
		b, err := hex.DecodeString(h)
		require.NoError(t, err)
		frames = append(frames, b)
	}
	links := frameLinks(bad, check.FromFrames(frames))
	require.Len(t, links, len(frames))
	for i, l := range links {
		require.Equal(t, i+1, l.N)
		require.True(t, strings.HasPrefix(l.Href, "#hex="+bad[i]+"&"), l.Href)
	}
	require.Equal(t, "request", links[0].What)
	require.Equal(t, "#hex="+bad[0]+"&size=yes", links[0].Href)
	require.Equal(t, "response", links[1].What)
	key := int(frames[0][4])<<8 | int(frames[0][5])
	ver := int(frames[0][6])<<8 | int(frames[0][7])
	require.Equal(t, "#hex="+bad[1]+"&dir=response&size=yes&api="+strconv.Itoa(key)+"&v="+strconv.Itoa(ver), links[1].Href)

	// Every rule page carries its links.
	out := t.TempDir()
	require.NoError(t, Build(out, Options{}))
	page, err := os.ReadFile(filepath.Join(out, "rules", "conn.retry-version.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `<a class="play" href="../playground/#hex=`+bad[1]+`&amp;dir=response&amp;size=yes&amp;api=`)
}
