package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/check"
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
