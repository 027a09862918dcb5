package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kwire/kwire/internal/topicids"
)

// TestProxyNamesTopicIDs: kwire proxy's lines for Fetch at versions that
// name topics by id alone (13+) named only the id. The names learnt from
// the Metadata responses that passed are now given beside them: NDJSON's
// "topicNames" ({"<id>":"orders"}, the frames' JSON left as it is), and
// the tree's topicId lines end in the name.
func TestProxyNamesTopicIDs(t *testing.T) {
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "orders"))
	seed := cluster.ListenAddrs()[0]

	p := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson")
	kgoTraffic(t, p.addr, "names", "orders", 2)
	out, _ := p.stop(t)
	var ids []string
	fetches := 0
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct {
			APIName    string            `json:"apiName"`
			APIVersion int               `json:"apiVersion"`
			Request    json.RawMessage   `json:"request"`
			TopicNames map[string]string `json:"topicNames"`
		}
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		if l.APIName == "Metadata" && l.APIVersion >= 10 {
			// The id the broker gave the topic, from the response's own JSON.
			for _, m := range regexp.MustCompile(`"name":"orders","topicId":"([A-Za-z0-9_-]{22})"`).FindAllStringSubmatch(s, -1) {
				ids = append(ids, m[1])
			}
		}
		if l.APIName != "Fetch" || l.APIVersion < 13 {
			continue
		}
		var req struct {
			Body struct {
				Topics []struct {
					TopicID string `json:"topicId"`
				} `json:"topics"`
			} `json:"body"`
		}
		require.NoError(t, json.Unmarshal(l.Request, &req))
		for _, tp := range req.Body.Topics {
			fetches++
			require.Equal(t, "orders", l.TopicNames[tp.TopicID], "Fetch v%d: %s", l.APIVersion, s)
		}
		require.NotContains(t, string(l.Request), "orders", "the frame's JSON is the frame's")
	}
	require.NotEmpty(t, ids, "Metadata named the topic's id")
	require.Positive(t, fetches, "kgo fetched by topic id (Fetch 13+)")

	// The tree: the topicId line ends in its name.
	p = startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "tree", "--api", "Fetch")
	kgoTraffic(t, p.addr, "names", "orders", 1)
	out, _ = p.stop(t)
	require.Regexp(t, `topicId uuid = `+regexp.QuoteMeta(ids[0])+` \(orders\)`, out)
}

// TestAppendTopicNames: an id the session has not learnt is left alone,
// and one named twice (request and response) is given once.
func TestAppendTopicNames(t *testing.T) {
	var ids topicids.Names
	known, name, err := topicids.ParseFlag("AAAAAAAAAAAAAAAAAAAAAQ=orders")
	require.NoError(t, err)
	require.Equal(t, "orders", name)
	require.Equal(t, "x", string(appendTopicNames([]byte("x"), &ids, []byte(`{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}`))), "nothing learnt")
	ids.Set(known, name)
	req := []byte(`{"body":{"topics":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ"},{"topicId":"AAAAAAAAAAAAAAAAAAAAAg"}]}}`)
	rsp := []byte(`{"body":{"responses":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}]}}`)
	require.Equal(t, `x,"topicNames":{"AAAAAAAAAAAAAAAAAAAAAQ":"orders"}`, string(appendTopicNames([]byte("x"), &ids, req, rsp)))
	require.Equal(t, "x", string(appendTopicNames([]byte("x"), &ids, []byte(`{"topicId":"AAAAAAAAAAAAAAAAAAAAAg"}`))), "an id alone stays alone")
}
