package render

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// internalTopicProduce is a Produce v9 request carrying the segment of
// internal topic in testdata/storage/logdir as its records.
func internalTopicProduce(t *testing.T, topic string) []byte {
	part := map[bool]string{true: "7", false: "0"}[topic == "__consumer_offsets"]
	log, err := os.ReadFile(filepath.Join("..", "..", "testdata", "storage", "logdir", topic+"-"+part, "00000000000000000000.log"))
	require.NoError(t, err)
	js := `{"direction":"request","apiKey":0,"apiVersion":9,"header":{"correlationId":1,"clientId":"t"},` +
		`"body":{"transactionalId":null,"acks":-1,"timeoutMs":30000,"topicData":[{"name":"` + topic +
		`","partitionData":[{"index":0,"records":"` + base64.StdEncoding.EncodeToString(log) + `"}]}]}}`
	b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
	require.NoError(t, err)
	return b
}

// TestInternalTopicPaths: the records of Kafka's internal topics, read
// through their schemas, link their nodes to the lines value JSON shows
// them on. An internal topic's key or value message ("OffsetCommitKey")
// is its key's or value's "decoded", as tree's Get names it too; a
// control record's fields (the LEADER_CHANGE record __cluster_metadata
// holds) are the record's "control" members. Every node with a path of
// its own finds a value there, and outside "control" tree's Lookup finds
// the node by it.
func TestInternalTopicPaths(t *testing.T) {
	for _, topic := range []string{"__consumer_offsets", "__transaction_state", "__share_group_state", "__cluster_metadata", "__remote_log_metadata"} {
		t.Run(topic, func(t *testing.T) {
			f, err := codec.Decode(internalTopicProduce(t, topic), codec.Options{})
			require.NoError(t, err)
			require.Empty(t, f.Warnings)
			l := link(t, f)
			js, doc, ps, lines, paths, nodes := jsontext.Indent(nil, f.AppendJSON(nil)), l.doc, &l.ps, l.lines, l.paths, l.nodes
			parent := map[*tree.Node]int32{}
			derived := map[string]bool{"batchLength": true, "recordCount": true, "length": true, "messageSize": true}
			decoded, control := 0, 0
			for i, n := range nodes {
				for _, k := range n.Children {
					parent[k] = paths[i]
				}
				if i == 0 || paths[i] == parent[n] || n.Role == tree.RoleSize || n.Role == tree.RoleRecord && derived[n.Name] {
					continue // on its container's path (framing, the bytes after a control key's fields), or what Kafka's JSON leaves out
				}
				p := ps.String(paths[i])
				require.True(t, lines.Has(paths[i]), "%s (%s): no JSON line for %q", n.Name, n.Type, p)
				_, ok := locate(doc, p)
				require.True(t, ok, "%s (%s): %q is not in the JSON", n.Name, n.Type, p)
				if strings.Contains(p, ".control.") {
					control++
					continue
				}
				got, err := f.Root.Lookup(p)
				require.NoError(t, err, "%s (%s)", n.Name, n.Type)
				require.Same(t, n, got, "%s: Lookup finds another node than %s (%s)", p, n.Name, n.Type)
				if strings.HasSuffix(p, ".decoded") {
					decoded++
				}
			}
			require.Equal(t, strings.Count(string(js), `"decoded": {`), decoded, "every key's and value's message")
			require.Positive(t, decoded)
			if topic == "__cluster_metadata" {
				// LEADER_CHANGE: its key's version and type, its value's
				// data message and that message's fields.
				require.Greater(t, control, 3)
			}
		})
	}
}
