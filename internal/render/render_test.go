package render

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// apiVersionsV3 is the hand-built golden "ApiVersions v3 request, header
// v2" of codec/golden_test.go (byte by byte from Kafka's protocol guide and
// KIP-482, each field annotated there): size 28, correlation id 7, client
// id "kwire", software "kwire" 1.0, empty tag sections. The other frames
// here are codec.ExampleFrame's deterministic examples.
const apiVersionsV3 = "0000001b001200030000000700056b7769726500066b7769726504312e3000"

func TestCellsTileTheFrame(t *testing.T) {
	for _, name := range []string{"Produce", "Fetch", "Metadata", "ApiVersions", "CreateTopics"} {
		api := schema.ByName(name)
		for _, resp := range []bool{false, true} {
			for _, v := range []int16{api.Request.Valid.Lo, api.Request.Valid.Hi} {
				b, err := codec.ExampleFrame(api, v, resp)
				require.NoError(t, err)
				f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
				require.NoError(t, err)
				cells := Cells(f, 0)
				pos := 0
				for _, c := range cells {
					require.Equal(t, pos, c.Start, "%s v%d: gap or overlap before %s", name, v, c.Path)
					pos = c.End
				}
				require.Equal(t, len(b), pos)
			}
		}
	}
}

func TestCellKindsAndLabels(t *testing.T) {
	b, _ := hex.DecodeString(apiVersionsV3)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	cells := Cells(f, 0)
	var got []string
	for _, c := range cells {
		got = append(got, c.Kind+":"+c.Label+"@"+itoa(c.Start)+"-"+itoa(c.End))
	}
	require.Equal(t, []string{
		"size:size@0-4", "value:requestApiKey@4-6", "value:requestApiVersion@6-8", "value:correlationId@8-12",
		"prefix:clientId length@12-14", "value:clientId@14-19", "tags:tagged fields@19-20",
		"prefix:clientSoftwareName length@20-21", "value:clientSoftwareName@21-26",
		"prefix:clientSoftwareVersion length@26-27", "value:clientSoftwareVersion@27-30", "tags:tagged fields@30-31",
	}, got)
	require.Equal(t, `"kwire"`, cells[5].Value)
	require.Equal(t, "header.clientId", cells[5].Path)
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestLayoutRowsAndElision(t *testing.T) {
	cells := []Cell{{Start: 0, End: 4, Label: "size"}, {Start: 4, End: 6, Label: "a"}, {Start: 6, End: 70, Label: "long"}, {Start: 70, End: 72, Label: "z"}}
	rows := Layout(cells, 4, 0, nil)
	require.Len(t, rows, 18)
	require.Equal(t, []Segment{{Cell: 1, Col: 0, Span: 2, First: true, Last: true}, {Cell: 2, Col: 2, Span: 2, First: true, Last: false}}, rows[1].Segs)
	rows = Layout(cells, 4, 16, nil)
	require.Len(t, rows, 4)
	require.Equal(t, 60, rows[2].Elided)
	require.Equal(t, 2, rows[2].Cell)
	require.Equal(t, 68, rows[3].Offset)
	rows = Layout(cells, 4, 16, map[int]bool{2: true})
	require.Len(t, rows, 18, "an expanded cell shows all its rows")
}

func TestHTMLEscapesUntrustedText(t *testing.T) {
	// A Metadata v0 request whose topic name is markup.
	evil := `<img src=x onerror=alert(1)>`
	js := `{"apiKey":3,"apiVersion":0,"header":{"correlationId":1,"clientId":"<script>x</script>"},"body":{"topics":[{"name":"` + evil + `"}]}}`
	b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
	require.NoError(t, err)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	cells := Cells(f, 0)
	out := string(AppendGridHTML(nil, cells, Layout(cells, 4, 0, nil), 0))
	require.NotContains(t, out, "<img")
	require.NotContains(t, out, "<script>")
	require.Contains(t, out, "&lt;img src=x onerror=alert(1)&gt;")
	rows := Layout(cells, 4, 0, nil)
	lj := AppendRowsJSON(nil, cells, rows, 0, len(rows), nil)
	require.NotContains(t, string(lj), "<")
	var got []struct {
		Index int
		Segs  []struct {
			Cell struct{ Index int }
		}
	}
	require.NoError(t, json.Unmarshal(lj, &got), "%s", lj)
	require.Len(t, got, len(rows))
	require.Equal(t, len(rows)-1, got[len(rows)-1].Index)
	require.Equal(t, rows[1].Segs[0].Cell, got[1].Segs[0].Cell.Index)
	more := AppendRowsJSON(nil, cells, rows, 1, 1, func(dst []byte, c *Cell) []byte { return append(dst, `,"more":1`...) })
	require.True(t, json.Valid(more), "%s", more)
	require.Contains(t, string(more), `,"more":1}`)
	require.Equal(t, "[]", string(AppendRowsJSON(nil, cells, rows, len(rows), 5, nil)))
}

func TestTerminalGrid(t *testing.T) {
	b, _ := hex.DecodeString(apiVersionsV3)
	f, err := codec.Decode(b, codec.Options{})
	require.NoError(t, err)
	cells := Cells(f, 0)
	out := Terminal(cells, Layout(cells, 4, 16, nil))
	require.Contains(t, out, "size = 27")
	require.Contains(t, out, "clientId = \"kwire\"")
	lines := strings.Split(strings.TrimSpace(out), "\n")[2:]
	last := len(lines) - 2 // 31 bytes: the last row holds 3 of them
	for i, line := range lines {
		width := 6 + 1 + 64
		if i == last {
			width = 6 + 1 + 48
		}
		require.Equal(t, width, len([]rune(line)), "every row is 4 bytes wide, but the last: %q", line)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"TransactionalId": "transactional_id", "ApiKey": "api_key",
		"TimeoutMs": "timeout_ms", "Topics": "topics", "ClusterId": "cluster_id", "KRaftVersion": "kraft_version",
		"IsKRaftController": "is_kraft_controller", "ISRNodes": "isrnodes", "LeaderIdAndEpoch2": "leader_id_and_epoch2",
		"AllowAutoTopicCreation": "allow_auto_topic_creation", "Includes2": "includes2"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// The CLI's text BNF: the guide's layout, tagged fields marked, arrays of
// primitives bracketed above and typed by element, records untyped by
// nullability as in Kafka's guide.
func TestBNFText(t *testing.T) {
	got := BNF(schema.ByName("Metadata").Request, 0, "Metadata Request (Version: 0)")
	require.Equal(t, "Metadata Request (Version: 0) => [topics]\n  topics => name\n    name => STRING\n", got)
	got = BNF(schema.ByName("ApiVersions").Response, 3, "t")
	require.Contains(t, got, "\n  tag 0: supported_features => name min_version max_version TAG_BUFFER\n")
	got = BNF(schema.ByName("Produce").Request, 9, "t")
	require.Contains(t, got, "\n      records => COMPACT_RECORDS\n")
	got = BNF(schema.ByName("Metadata").Response, 12, "t")
	require.Contains(t, got, " [replica_nodes] ")
	require.Contains(t, got, "\n      replica_nodes => INT32\n")
	// A nullable array's elements are not nullable; a nullable struct
	// array says so, and a nullable struct shows its presence byte.
	got = BNF(schema.ByName("ConsumerGroupHeartbeat").Request, 0, "t")
	require.Contains(t, got, "\n  subscribed_topic_names => COMPACT_STRING (array nullable)\n")
	require.Contains(t, got, "\n  topic_partitions => topic_id [partitions] TAG_BUFFER (array nullable)\n")
	got = BNF(schema.ByName("ConsumerGroupHeartbeat").Response, 0, "t")
	require.Contains(t, got, "\n  assignment => present [topic_partitions] TAG_BUFFER (nullable struct: present is INT8, -1 for null with no fields after it, 1 before the fields)\n")
	got = BNF(schema.ByName("DescribeConfigs").Request, 0, "t")
	require.Contains(t, got, "\n    configuration_keys => STRING (array nullable)\n")
}

// A field's versions are where it occurs over every file that lays out
// the message: Produce v0-2 come from a file older than v13, whose "0+"
// for a topic's name ended at v12 in the newer file; kwire schema
// printed 0+ for v0-2 and 0-12 for v3-12.
func TestFieldTableVersionsOverEveryDefinition(t *testing.T) {
	for _, c := range []struct {
		api, path string
		vs        []int16
		want      string
	}{
		{"Produce", "topicData.name", []int16{0, 2, 3, 12}, "0-12"},
		{"OffsetCommit", "topics.name", []int16{0, 1, 2, 9}, "0-9"},
		{"Produce", "acks", []int16{0, 13}, "0+"},
		{"Produce", "transactionalId", []int16{3, 13}, "3+"},
	} {
		for _, v := range c.vs {
			got := ""
			for _, r := range FieldTable(schema.ByName(c.api).Request, v) {
				if r.Path == c.path {
					got = r.Versions
				}
			}
			if got != c.want {
				t.Errorf("%s v%d %s: versions %q, want %q", c.api, v, c.path, got, c.want)
			}
		}
	}
}
