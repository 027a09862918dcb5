package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
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
