package codec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/internal/budget"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// corpusCase is one input of a Go fuzz corpus file.
type corpusCase struct {
	name     string
	b        []byte
	response bool
	key, ver int16
}

// readCorpus parses the "go test fuzz v1" files of dir whose values are
// ([]byte, bool, int16, int16), as FuzzDecode's are.
func readCorpus(tb testing.TB, dir string) []corpusCase {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var out []corpusCase
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
		if len(lines) != 5 || lines[0] != "go test fuzz v1" {
			continue
		}
		c := corpusCase{name: e.Name()}
		arg := func(l, pre string) string {
			return strings.TrimSuffix(strings.TrimPrefix(l, pre+"("), ")")
		}
		s, err := strconv.Unquote(arg(lines[1], "[]byte"))
		if err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		c.b = []byte(s)
		c.response = arg(lines[2], "bool") == "true"
		k, _ := strconv.Atoi(arg(lines[3], "int16"))
		v, _ := strconv.Atoi(arg(lines[4], "int16"))
		c.key, c.ver = int16(k), int16(v)
		out = append(out, c)
	}
	return out
}

// recordsCorpus is every records fuzz corpus entry as the records field of
// a Produce v0 request: batches and message sets as they are, compressed
// payloads inside a batch with their codec.
func recordsCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	dirs := []struct {
		name  string
		codec int16
	}{{"FuzzBatch", -1}, {"FuzzMessageSet", -1}, {"FuzzGzip", 1}, {"FuzzSnappy", 2}, {"FuzzLZ4", 3}, {"FuzzZstd", 4}}
	var out []corpusCase
	for _, d := range dirs {
		dir := filepath.Join("internal", "rec", "testdata", "fuzz", d.name)
		entries, err := os.ReadDir(dir)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range entries {
			raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				tb.Fatal(err)
			}
			lines := strings.Split(string(raw), "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
				continue
			}
			v, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
			if err != nil {
				tb.Fatalf("%s: %v", e.Name(), err)
			}
			recs := []byte(v)
			if d.codec >= 0 {
				recs = recordBatch(d.codec, 4, recs)
			}
			out = append(out, corpusCase{name: d.name + "/" + e.Name(), b: produceV0(recs)})
		}
	}
	return out
}

// treeWarnings walks f's tree depth first and lists every node's warnings
// with the path the walk gives the node: the order and the paths
// Frame.Warnings must have.
func treeWarnings(f *Frame) []string {
	var out []string
	var walk func(n *tree.Node, path string, parent *tree.Node)
	join := func(p, s string) string {
		if p == "" {
			return s
		}
		return p + "." + s
	}
	walk = func(n *tree.Node, path string, parent *tree.Node) {
		for _, w := range n.Warnings {
			out = append(out, path+": "+w)
		}
		for i, c := range n.Children {
			var cp string
			switch {
			case n.Role == tree.RoleFrame:
				cp = c.Name
			case c.Role == tree.RoleTags:
				cp = join(path, "_tagged")
			case c.Role == tree.RoleUnknownTag:
				cp = strings.TrimSuffix(path, "._tagged") + "._unknownTaggedFields"
			case c.Field != nil && n.Role == tree.RoleTags:
				cp = strings.TrimSuffix(path, "._tagged") + "." + c.Field.JSON
			case c.Name == "inflated" && n.Name == "value":
				cp = strings.TrimSuffix(path, ".value") + ".messages"
			case c.Name == "inflated":
				cp = path
			case c.Role == tree.RoleElement:
				cp = path + "[" + strconv.Itoa(c.Index) + "]"
			case c.Field != nil:
				cp = join(path, c.Field.JSON)
			case n.Kind == schema.Records && n.Role != tree.RoleRecord, // the entries of a records field
				n.Name == "records" && n.Role == tree.RoleRecord, // the records of a batch
				n.Name == "inflated", n.Name == "headers":
				cp = path + "[" + strconv.Itoa(i) + "]"
			case c.Role == tree.RoleRecord && n.Name == "value" && c.Name != "version" && c.Name != "coordinatorEpoch" && c.Name != "rest":
				cp = strings.TrimSuffix(path, ".value") + ".control.data"
			default:
				cp = join(path, c.Name)
			}
			if c.Role == tree.RoleField && c.Field == nil && n.Name == "value" {
				cp = strings.TrimSuffix(path, ".value") + ".control.data" // a KRaft value's data message
			}
			walk(c, cp, n)
		}
	}
	walk(f.Root, "", nil)
	return out
}

func listedWarnings(f *Frame) []string {
	var out []string
	for _, w := range f.Warnings {
		out = append(out, w.Path+": "+w.Message)
	}
	return out
}

// Frame.Warnings lists the warnings of the tree's nodes in document order,
// each with its node's path: checked on every FuzzDecode corpus entry,
// most of which decode with warnings or fail part way.
func TestWarningsInDocumentOrder(t *testing.T) {
	cases := readCorpus(t, filepath.Join("testdata", "fuzz", "FuzzDecode"))
	require.NotEmpty(t, cases)
	cases = append(cases, recordsCorpus(t)...)
	with := 0
	for _, c := range cases {
		f, _ := Decode(c.b, Options{Response: c.response, APIKey: c.key, Version: c.ver})
		want := treeWarnings(f)
		if len(want) > 0 {
			with++
		}
		require.Equal(t, want, listedWarnings(f), "%s", c.name)
	}
	t.Logf("%d corpus frames, %d with warnings", len(cases), with)
	require.Greater(t, with, 10)
}

// A limit that stops the frame's own fields is an error whose cause is
// budget.ErrLimit, so a program (and the playground) can tell "a larger
// limit would read this" from "these bytes are wrong" without reading
// the message.
func TestLimitErrorsAreErrLimit(t *testing.T) {
	b, err := ExampleFrame(schema.ByName("Metadata"), 12, true)
	require.NoError(t, err)
	for _, lim := range []Limits{{MaxNodes: 3}, {MaxDepth: 1}} {
		_, err := Decode(b, Options{Response: true, APIKey: 3, Version: 12, Limits: lim})
		require.Error(t, err)
		require.ErrorIs(t, err, budget.ErrLimit, "%+v", lim)
		var dec Decoder
		_, _, ferr := dec.AppendJSON(nil, b, Options{Response: true, APIKey: 3, Version: 12, Limits: lim})
		require.ErrorIs(t, ferr, budget.ErrLimit, "%+v (tree-less)", lim)
	}
	_, err = Decode(b[:len(b)-3], Options{Response: true, APIKey: 3, Version: 12, NoSizePrefix: true})
	require.Error(t, err)
	require.NotErrorIs(t, err, budget.ErrLimit)
}

// Once the MaxNodes limit is reached, every records field after that byte
// of a Fetch response of many partitions may be cut (the playground's
// limit cut a Fetch response of 5,500 partitions in 2,471 of them): the
// first cut's warning says how many more there were and where the last
// is, one warning, not one a partition; the tree's and the JSON writers'
// paths alike. The message says what share of the limit records may
// take, so a tree that ends well under the limit is explained.
func TestRecordsCutsAreOneWarning(t *testing.T) {
	env := Example(schema.ByName("Fetch"), 12, true)
	js, err := json.Marshal(env)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(js, &v))
	topic := v["body"].(map[string]any)["responses"].([]any)[0].(map[string]any)
	parts := make([]any, 1000)
	for i := range parts {
		parts[i] = topic["partitions"].([]any)[0]
	}
	topic["partitions"] = parts
	js, err = json.Marshal(v)
	require.NoError(t, err)
	b, err := Encode(nil, js, EncodeOptions{})
	require.NoError(t, err)

	o := Options{Response: true, APIKey: schema.KeyFetch, Version: 12, Limits: Limits{MaxNodes: 30000}}
	f, err := Decode(b, o)
	require.NoError(t, err)
	require.Len(t, f.Warnings, 1, "%v", listedWarnings(f))
	w := f.Warnings[0]
	require.True(t, w.Limit)
	m := regexp.MustCompile(`^(?:entries|records) from byte (\d+) not decoded: the MaxNodes limit \(30000 nodes\) is reached for records \(they may take (\d+) nodes; the rest is kept for the frame's own fields after them and a margin\); so were the entries of (\d+) more records fields after it, the last from byte (\d+)$`).FindStringSubmatch(w.Message)
	require.NotNil(t, m, w.Message)
	first, _ := strconv.Atoi(m[1])
	share, _ := strconv.Atoi(m[2])
	more, _ := strconv.Atoi(m[3])
	last, _ := strconv.Atoi(m[4])
	// The records' share of the limit is said: the tree ends under the
	// limit, and the message says why.
	require.Less(t, share, 30000)
	require.Less(t, countNodes(f), 30000)
	require.Equal(t, first, w.Offset)
	require.Equal(t, treeWarnings(f), listedWarnings(f), "on the first cut's node")
	// Every records field cut is told: the raw nodes the cuts left.
	var cuts []int
	tree.Walk(f.Root, func(n *tree.Node) bool {
		if n.Role == tree.RoleRaw {
			cuts = append(cuts, n.Start)
		}
		return true
	})
	require.Greater(t, more, 100)
	require.Len(t, cuts, more+1)
	require.Equal(t, first, cuts[0])
	require.Equal(t, last, cuts[len(cuts)-1])

	var dec Decoder
	out, _, err := dec.AppendJSON(nil, b, o)
	require.NoError(t, err)
	require.Equal(t, string(f.AppendJSON(nil)), string(out))
	require.Contains(t, string(out), `"warnings":[{"offset":`+m[1])
}

// A MaxNodes too small to leave records any room after the frame's own
// fields and the margin says so, with no negative share.
func TestRecordsNoRoomIsSaid(t *testing.T) {
	b, err := ExampleFrame(schema.ByKey(schema.KeyProduce), 9, false)
	require.NoError(t, err)
	f, err := Decode(b, Options{Limits: Limits{MaxNodes: 60}})
	require.NoError(t, err)
	require.Len(t, f.Warnings, 1)
	require.Regexp(t, `^entries from byte \d+ not decoded: the MaxNodes limit \(60 nodes\) is reached for records: it leaves them no room after what is kept for the frame's own fields after them and a margin \(\d+ nodes\)$`, f.Warnings[0].Message)
}
