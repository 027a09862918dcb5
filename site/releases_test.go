package site

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The index's release column shows the APIs only KRaft controllers serve
// at their controllers' version, marked so; it left their cells blank.
func TestIndexReleaseCellOfControllerAPIs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(buildOnce(t), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, c := range []struct{ key, want string }{
		{"52", "v2 (controller)"}, // Vote
		{"53", "v1 (controller)"}, // BeginQuorumEpoch
		{"62", "v4 (controller)"}, // BrokerRegistration
		{"0", "v13"},              // Produce
		{"4", ""},                 // LeaderAndIsr: gone with ZooKeeper
	} {
		i := strings.Index(s, `<tr class="api" data-key="`+c.key+`"`)
		if i < 0 {
			t.Fatalf("no row for key %s", c.key)
		}
		row := s[i : i+strings.Index(s[i:], "</tr>")]
		cell := regexp.MustCompile(`<td class="rel"[^>]*>([^<]*)</td>`).FindStringSubmatch(row)
		if cell == nil || cell[1] != c.want {
			t.Errorf("key %s: release cell %q, want %q", c.key, cell, c.want)
		}
	}
}
