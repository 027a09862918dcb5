package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/storage"
)

// Every record type of every internal topic has a page per value version,
// drawn from an example that decodes without error: a grid and a tree of
// its key (coordinator topics) and value, the record's JSON, its schema
// and fields; the index links them all.
func TestInternalPages(t *testing.T) {
	out := t.TempDir()
	b := &builder{out: out, title: "kwire"}
	require.NoError(t, b.assets())
	require.NoError(t, b.templates())
	require.NoError(t, b.internalPages())
	index, err := os.ReadFile(filepath.Join(out, "internal.html"))
	require.NoError(t, err)
	n := 0
	for _, topic := range schema.InternalTopics() {
		require.Contains(t, string(index), `id="`+internalSlug(topic.Name)+`"`)
		for i := range topic.Records {
			rec := &topic.Records[i]
			for v := rec.Value.Valid.Lo; v <= rec.Value.Valid.Hi; v++ {
				p := InternalPath(topic, rec, v)
				require.Contains(t, string(index), `href="`+p+`"`, "the index links %s", p)
				page, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
				require.NoError(t, err, p)
				s := string(page)
				require.NotContains(t, s, `class="error"`, p)
				wantGrids := 1
				if rec.Key != nil {
					wantGrids = 2
					require.Contains(t, s, "<h2>Key <span class=\"muted\">("+rec.Key.Name+")</span></h2>", p)
				}
				require.Equal(t, wantGrids, strings.Count(s, `<figure class="gridwrap">`), p)
				require.Equal(t, wantGrids, strings.Count(s, `class="treebox"`), p)
				require.Contains(t, s, `<pre class="bnf"`, p)
				require.Contains(t, s, `class="fields"`, p)
				require.Contains(t, s, rec.Value.Name+" <span class=\"ver\">v"+itoa(int(v))+"</span>", p)
				n++
			}
		}
	}
	require.Greater(t, n, 80)
	// The Internal topics section is in every page's navigation.
	page, err := os.ReadFile(filepath.Join(out, "internal/consumer_offsets/offsetcommitvalue/v4.html"))
	require.NoError(t, err)
	require.Contains(t, string(page), `href="../../../internal.html" aria-current="true">Internal topics</a>`)
	js, _, _ := strings.Cut(string(page)[strings.Index(string(page), `id="json"`):], "<section")
	require.Contains(t, js, "commitTimestamp", "the record's JSON")
	require.Contains(t, js, "OffsetCommitValue")
}

// A record type's folder (a version page's URL with the version cut off,
// internal/<topic>/<record>/) is a page, as an API's folder is: its
// index lists the value versions, linked, and the index and each version
// page link each other.
func TestInternalRecordFolderHasAnIndex(t *testing.T) {
	out := t.TempDir()
	b := &builder{out: out, title: "kwire"}
	require.NoError(t, b.assets())
	require.NoError(t, b.templates())
	require.NoError(t, b.internalPages())
	index, err := os.ReadFile(filepath.Join(out, "internal.html"))
	require.NoError(t, err)
	for _, topic := range schema.InternalTopics() {
		for i := range topic.Records {
			rec := &topic.Records[i]
			dir := "internal/" + internalSlug(topic.Name) + "/" + internalSlug(rec.Value.Name) + "/"
			require.Contains(t, string(index), `href="`+dir+`index.html"`)
			page, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(dir+"index.html")))
			require.NoError(t, err, dir)
			require.Contains(t, string(page), "<h1>"+rec.Value.Name+" ", dir)
			for v := rec.Value.Valid.Lo; v <= rec.Value.Valid.Hi; v++ {
				require.Contains(t, string(page), `href="v`+itoa(int(v))+`.html"`, dir)
			}
			vp, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(InternalPath(topic, rec, rec.Value.Valid.Hi))))
			require.NoError(t, err)
			require.Contains(t, string(vp), `<a href="index.html">`+rec.Value.Name+`</a>`, dir)
		}
	}
}

// Type 29 of __cluster_metadata is two records in Kafka's files
// (ClusterIdRecord, UnregisterControllerRecord): the internal topics'
// page and both records' pages say which kwire reads a value as, in which
// order they are tried and why (kafka/internal/CLASHES, through the
// generator), and the record pages' examples read as what they draw. Bytes
// that read as both are taken as ClusterIdRecord, and an
// UnregisterControllerRecord that reads as a ClusterIdRecord does so only
// with warnings that say something is wrong.
func TestSharedRecordTypeSaysWhichIsRead(t *testing.T) {
	out := buildOnce(t)
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(out, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const says = `Type 29 is <code>ClusterIdRecord</code> and <code>UnregisterControllerRecord</code> in Kafka's files: kwire reads a value of type 29 as the first of them, in that order, whose bytes read whole, with a warning.`
	for _, p := range []string{"internal.html", "internal/cluster_metadata/clusteridrecord/index.html", "internal/cluster_metadata/clusteridrecord/v0.html",
		"internal/cluster_metadata/unregistercontrollerrecord/index.html", "internal/cluster_metadata/unregistercontrollerrecord/v0.html"} {
		s := read(p)
		if !strings.Contains(s, says) || !strings.Contains(s, "ClusterIdRecord is tried first because") {
			t.Errorf("%s does not say how type 29 is read", p)
		}
	}
	if n := strings.Count(read("internal.html"), `class="clash"`); n != 1 {
		t.Errorf("internal.html: %d notes of shared types, want 1 (type 29)", n)
	}
	if s := read("internal/cluster_metadata/topicrecord/v0.html"); strings.Contains(s, `class="clash"`) {
		t.Error("TopicRecord's page speaks of a shared type")
	}

	for _, c := range []struct {
		value  []byte
		schema string
		warns  int
	}{
		{append(append([]byte{1, 29, 0, 23}, "5L6g3nShT-eMCtK--X86sw"...), 0), "ClusterIdRecord", 1},
		{[]byte{1, 29, 0, 0, 0, 0, 1, 0}, "UnregisterControllerRecord", 1},
		{[]byte{1, 29, 0, 4, 'a', 'b', 'c', 0}, "ClusterIdRecord", 1}, // reads as both: the first tried
		{[]byte{1, 29, 0, 0, 1, 0, 1, 0}, "ClusterIdRecord", 3},       // controller id 65537: read wrong, loudly
	} {
		r := storage.DecodeTopicRecord("__cluster_metadata", storage.BytesPart(nil), storage.BytesPart(c.value))
		js := string(r.AppendJSON(nil))
		if r.Err != nil || !strings.Contains(js, `"schema":"`+c.schema+`"`) || len(r.Warnings()) != c.warns {
			t.Errorf("% x: %v %s, want %s with %d warnings", c.value, r.Err, js, c.schema, c.warns)
		}
	}
}
