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

// The requests Kafka's brokers and controllers send show, in their
// examples, the client id Kafka's sender gives them: a transaction
// coordinator's WriteTxnMarkers "broker-1-txn-marker-sender", the KRaft
// quorum's requests "raft-client-1", a broker's heartbeat to the
// controller its node id; WriteTxnMarkers' was an admin client's and
// BrokerHeartbeat's the raft client's.
func TestServerSentExamplesCarryTheSendersClientID(t *testing.T) {
	out := buildOnce(t)
	for page, id := range map[string]string{
		"writetxnmarkers/v1.html": "broker-1-txn-marker-sender",
		"vote/v0.html":            "raft-client-1",
		"fetchsnapshot/v0.html":   "raft-client-1",
		"brokerheartbeat/v0.html": `title="header.clientId (nullable_string) [14, 15) = &#34;1&#34;"`,
		"describequorum/v0.html":  "adminclient-1",
	} {
		b, err := os.ReadFile(filepath.Join(out, "api", page))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), id) {
			t.Errorf("%s: no %s in the example", page, id)
		}
		for _, other := range []string{"adminclient-1", "raft-client-1", "consumer-billing-1", "producer-1"} {
			if other != id && strings.Contains(string(b), other) {
				t.Errorf("%s: the example carries %s", page, other)
			}
		}
	}
}
