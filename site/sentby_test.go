package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// AddPartitionsToTxn v4 and v5 are requests brokers send (KIP-890; Kafka's
// schema says clients use v0-3): their pages say so, and their examples
// carry the client id Kafka's broker sends them with, where they carried
// a producer's (producer-1) as v0-3 do.
func TestBrokerSentVersionsSaySo(t *testing.T) {
	out := buildOnce(t)
	page := func(name string) string {
		b, err := os.ReadFile(filepath.Join(out, "api", "addpartitionstotxn", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const says = `<p class="sentby">Brokers send this version of the request, not clients: clients send versions 0-3.</p>`
	for _, v := range []string{"v4", "v5"} {
		s := page(v + ".html")
		if !strings.Contains(s, says) {
			t.Errorf("AddPartitionsToTxn %s: the page does not say that brokers send it", v)
		}
		if strings.Contains(s, "producer-1") || !strings.Contains(s, "AddPartitionsManager-client-1") {
			t.Errorf("AddPartitionsToTxn %s: the example is not a broker's request", v)
		}
	}
	for _, v := range []string{"v0", "v3"} {
		s := page(v + ".html")
		if strings.Contains(s, `class="sentby"`) || !strings.Contains(s, "producer-1") {
			t.Errorf("AddPartitionsToTxn %s: a producer's request, yet the page says otherwise", v)
		}
	}
	idx := page("index.html")
	if n := strings.Count(idx, `<span class="badge">sent by brokers</span>`); n != 2 {
		t.Errorf("AddPartitionsToTxn's page marks %d versions sent by brokers, want 2 (v4, v5)", n)
	}
	if b, err := os.ReadFile(filepath.Join(out, "api", "produce", "v9.html")); err != nil || strings.Contains(string(b), `class="sentby"`) {
		t.Errorf("Produce v9 says brokers send it (%v)", err)
	}
}
