package codec

import (
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// recordsHistory is the record format each records-carrying message has
// carried, from the protocol's history: the 0.10-era protocol guide
// (shared/seeds/000) knows Produce v0-1 and Fetch v0-1 only, both before
// timestamps (magic 0); KIP-32 (0.10.0) added magic 1 with Produce v2 and
// Fetch v2, and Fetch v3 (0.10.1, max_bytes) still reads it; the schema
// files' comments put message format v2 at Produce v3 and Fetch v4
// (KIP-98, 0.11). FetchSnapshot (KIP-630) and ShareFetch (KIP-932) came
// long after: record batches only.
var recordsHistory = map[string]func(v int16) int8{
	"Produce request": func(v int16) int8 {
		switch {
		case v <= 1:
			return 0
		case v == 2:
			return 1
		}
		return 2
	},
	"Fetch response": func(v int16) int8 {
		switch {
		case v <= 1:
			return 0
		case v <= 3:
			return 1
		}
		return 2
	},
	"FetchSnapshot response": func(int16) int8 { return 2 },
	"ShareFetch response":    func(int16) int8 { return 2 },
}

// hasRecords reports whether a layout holds a records field at v.
func hasRecords(l *schema.Layout, v int16) bool {
	for i := range l.Fields {
		f := &l.Fields[i]
		if f.Versions.Contains(v) && (f.Kind == schema.Records || f.Struct != nil && hasRecords(f.Struct, v)) {
			return true
		}
	}
	return false
}

// Every example carries the record format of its version: message sets
// before Kafka 0.11, and the magic of each decodes as the history says.
func TestExamplesCarryTheirVersionsRecords(t *testing.T) {
	seen := map[string]bool{}
	checked := 0
	eachVersion(t, func(t *testing.T, api *schema.API, v int16, response bool) {
		m := api.Request
		name := api.Name + " request"
		if response {
			m, name = api.Response, api.Name+" response"
		}
		if !hasRecords(m.At(v).Root, v) {
			return
		}
		seen[name] = true
		want, ok := recordsHistory[name]
		require.True(t, ok, "%s carries records: add its history to recordsHistory", name)
		b, err := ExampleFrame(api, v, response)
		require.NoError(t, err)
		f, err := Decode(b, Options{Response: response, APIKey: api.Key, Version: v})
		require.NoError(t, err, "%s v%d", name, v)
		noWarnings(t, f.Root)
		entries := 0
		tree.Walk(f.Body, func(n *tree.Node) bool {
			if n.Field == nil || n.Kind != schema.Records {
				return true
			}
			for _, e := range n.Children {
				entries++
				require.Equal(t, int64(want(v)), e.Get("magic").Int, "%s v%d", name, v)
				wantName := "batch"
				if want(v) < 2 {
					wantName = "message"
				}
				require.Equal(t, wantName, e.Name, "%s v%d", name, v)
				var vals []string
				tree.Walk(e, func(x *tree.Node) bool {
					if (x.Name == "record" || x.Name == "message") && x.Get("value") != nil {
						vals = append(vals, string(x.Get("key").Raw)+"="+string(x.Get("value").Raw))
					}
					return true
				})
				require.Equal(t, []string{exampleRecordKey + "=" + exampleRecordValue}, vals, "%s v%d", name, v)
			}
			return false
		})
		require.Positive(t, entries, "%s v%d", name, v)
		require.Equal(t, want(v), recordsMagic(api.Key, v), "%s v%d", name, v)
		checked++
	})
	require.Len(t, seen, len(recordsHistory), "every message with a history carries records")
	t.Logf("%d records-carrying API/version/direction examples checked", checked)
}
