package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// writeInternal lays out kafka/internal in a temporary schema folder:
// ORDER, TOPICS and the files (folder/module/File.json).
func writeInternal(t *testing.T, order []string, topics string, files map[string]string) *internalSource {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"ORDER": strings.Join(order, "\n") + "\n", "TOPICS": topics}
	for k, v := range files {
		all[k] = v
	}
	for name, text := range all {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	in, err := readInternal(dir)
	require.NoError(t, err)
	return in
}

const groupTopics = "group-coordinator\t__consumer_offsets\tcoordinator\nmetadata\t__cluster_metadata\tmetadata\n"

// Kafka's two ways of giving a coordinator key's record type: the older
// files as the key's one version (read at that version), the newer as an
// apiKey (read at version 0). The newer folder's file wins as a whole;
// keys and values pair by name; metadata records go by apiKey.
func TestResolveInternalPairsKeysAndValuesByRecordType(t *testing.T) {
	in := writeInternal(t, []string{"newer", "old"}, groupTopics, map[string]string{
		"old/group-coordinator/GroupMetadataKey.json": `{"type": "data", "name": "GroupMetadataKey", "validVersions": "2", "flexibleVersions": "none",
			"fields": [{"name": "group", "type": "string", "versions": "2"}]}`,
		"old/group-coordinator/GroupMetadataValue.json": `{"type": "data", "name": "GroupMetadataValue", "validVersions": "0-1", "flexibleVersions": "none",
			"fields": [{"name": "protocolType", "type": "string", "versions": "0+"}]}`,
		"newer/group-coordinator/GroupMetadataKey.json": `{"type": "coordinator-key", "apiKey": 2, "name": "GroupMetadataKey", "validVersions": "0", "flexibleVersions": "none",
			"fields": [{"name": "group", "type": "string", "versions": "0"}]}`,
		"old/group-coordinator/MemberKey.json": `{"type": "data", "name": "MemberKey", "validVersions": "5", "flexibleVersions": "none",
			"fields": [{"name": "GroupId", "type": "string", "versions": "5"}]}`,
		"newer/group-coordinator/MemberValue.json": `{"type": "coordinator-value", "apiKey": 5, "name": "MemberValue", "validVersions": "0", "flexibleVersions": "0+",
			"fields": [{"name": "RackId", "type": "string", "versions": "0+", "nullableVersions": "0+", "default": "null"}]}`,
		"old/metadata/TopicRecord.json": `{"type": "metadata", "apiKey": 2, "name": "TopicRecord", "validVersions": "0", "flexibleVersions": "0+",
			"fields": [{"name": "Name", "type": "string", "versions": "0+", "entityType": "topicName"}]}`,
		"newer/metadata/OtherRecord.json": `{"type": "metadata", "apiKey": 2, "name": "OtherRecord", "validVersions": "0", "flexibleVersions": "0+", "fields": []}`,
		"CLASHES":                         "metadata\t2\tTopicRecord,OtherRecord\tbecause\n",
	})
	it, err := resolveInternal(in)
	require.NoError(t, err)
	require.Len(t, it.topics, 2)
	group := it.topics[0]
	require.Equal(t, "__consumer_offsets", group.Name)
	require.Equal(t, schema.CoordinatorFraming, group.Framing)
	require.Len(t, group.Records, 2)
	gm := group.Records[0]
	require.Equal(t, int16(2), gm.Type)
	require.Equal(t, int16(0), gm.KeyVersion, "the newer key file wins, read at its version 0")
	require.Equal(t, "newer/group-coordinator", gm.Key.Versions[0].Source)
	require.Equal(t, "GroupMetadataValue", gm.Value.Name)
	require.Equal(t, "old/group-coordinator", gm.Value.Versions[0].Source, "only the old folder has the value")
	member := group.Records[1]
	require.Equal(t, int16(5), member.Type)
	require.Equal(t, int16(5), member.KeyVersion, "an older key is read at its type")
	require.NotNil(t, member.Key.At(member.KeyVersion))

	meta := it.topics[1]
	require.Equal(t, schema.MetadataFraming, meta.Framing)
	require.Len(t, meta.Records, 2, "two files giving apiKey 2 are both kept")
	require.Nil(t, meta.Records[0].Key)
	require.Equal(t, "TopicRecord", meta.Records[0].Value.Name, "in CLASHES' order, not the names'")
	require.Equal(t, "OtherRecord", meta.Records[1].Value.Name)
	require.Equal(t, "because", meta.Records[0].Clash)

	src := string(emitInternal(it))
	require.Contains(t, src, `{Name: "__consumer_offsets", Framing: CoordinatorFraming, Records: []InternalRecord{`)
	require.Contains(t, src, `{Type: 5, Key: &im2, KeyVersion: 5, Value: &im3},`)
	require.Contains(t, src, `{Type: 2, Value: &im5, Clash: "because"},`)
	require.Contains(t, src, `{Type: 2, Value: &im4, Clash: "because"},`)
}

// Two files that give one record type decide nothing by themselves: the
// order the walk tries them in (the first whose bytes read whole) comes
// from CLASHES, with why, and the generator refuses a clash it does not
// list, a row that is no clash, and a row naming other records.
func TestResolveInternalClashesNeedAnOrder(t *testing.T) {
	files := map[string]string{
		"a/group-coordinator/XKey.json":   `{"type": "coordinator-key", "apiKey": 1, "name": "XKey", "validVersions": "0", "fields": []}`,
		"a/group-coordinator/XValue.json": `{"type": "coordinator-value", "apiKey": 1, "name": "XValue", "validVersions": "0", "fields": []}`,
		"a/metadata/ARecord.json":         `{"type": "metadata", "apiKey": 3, "name": "ARecord", "validVersions": "0", "fields": []}`,
		"a/metadata/BRecord.json":         `{"type": "metadata", "apiKey": 3, "name": "BRecord", "validVersions": "0", "fields": []}`,
	}
	for clashes, want := range map[string]string{
		"": "record type 3 is ARecord and BRecord in Kafka's files: CLASHES must say",
		"metadata\t3\tBRecord,ARecord\twhy\nmetadata\t4\tARecord,CRecord\twhy\n": "CLASHES: metadata type 4: no two records",
		"metadata\t3\tBRecord,CRecord\twhy\n":                                    "CLASHES: metadata type 3 lists BRecord,CRecord, but the files give it to ARecord and BRecord",
		"metadata\t3\tBRecord\twhy\n":                                            "CLASHES: metadata type 3 lists BRecord, but",
	} {
		f := map[string]string{"CLASHES": clashes}
		for k, v := range files {
			f[k] = v
		}
		_, err := resolveInternal(writeInternal(t, []string{"a"}, groupTopics, f))
		require.ErrorContains(t, err, want, clashes)
	}
	f := map[string]string{"CLASHES": "metadata\t3\tBRecord,ARecord\twhy\n"}
	for k, v := range files {
		f[k] = v
	}
	it, err := resolveInternal(writeInternal(t, []string{"a"}, groupTopics, f))
	require.NoError(t, err)
	rs := it.topics[1].Records
	require.Equal(t, []string{"BRecord", "ARecord"}, []string{rs[0].Value.Name, rs[1].Value.Name})
}

func TestResolveInternalRejectsInconsistentFiles(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"key without value": {map[string]string{
			"a/group-coordinator/XKey.json": `{"type": "coordinator-key", "apiKey": 1, "name": "XKey", "validVersions": "0", "fields": []}`,
		}, "no XValue beside it"},
		"value without key": {map[string]string{
			"a/group-coordinator/XValue.json": `{"type": "coordinator-value", "apiKey": 1, "name": "XValue", "validVersions": "0", "fields": []}`,
		}, "no key pairs with it"},
		"types disagree": {map[string]string{
			"a/group-coordinator/XKey.json":   `{"type": "coordinator-key", "apiKey": 1, "name": "XKey", "validVersions": "0", "fields": []}`,
			"a/group-coordinator/XValue.json": `{"type": "coordinator-value", "apiKey": 3, "name": "XValue", "validVersions": "0", "fields": []}`,
		}, "record type 1, but a/group-coordinator/XValue says apiKey 3"},
		"metadata record without apiKey": {map[string]string{
			"a/group-coordinator/XKey.json":   `{"type": "coordinator-key", "apiKey": 1, "name": "XKey", "validVersions": "0", "fields": []}`,
			"a/group-coordinator/XValue.json": `{"type": "coordinator-value", "apiKey": 1, "name": "XValue", "validVersions": "0", "fields": []}`,
			"a/metadata/YRecord.json":         `{"type": "metadata", "name": "YRecord", "validVersions": "0", "fields": []}`,
		}, "a metadata record needs an apiKey"},
		"one name in two modules": {map[string]string{
			"a/group-coordinator/XKey.json":   `{"type": "coordinator-key", "apiKey": 1, "name": "XKey", "validVersions": "0", "fields": []}`,
			"a/group-coordinator/XValue.json": `{"type": "coordinator-value", "apiKey": 1, "name": "XValue", "validVersions": "0", "fields": []}`,
			"a/metadata/XKey.json":            `{"type": "data", "name": "XKey", "validVersions": "0", "fields": []}`,
		}, "two messages named XKey"},
	} {
		t.Run(name, func(t *testing.T) {
			in := writeInternal(t, []string{"a"}, groupTopics, tc.files)
			_, err := resolveInternal(in)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// -import-internal takes a tree laid out as Kafka's sources, keeps
// structure only (both kinds of comment go, and a boolean written as a
// string still reads), and puts the folder first in internal/ORDER.
func TestImportInternalFlattensModules(t *testing.T) {
	dir := t.TempDir()
	src := t.TempDir()
	p := filepath.Join(src, "streams/src/main/resources/common/message/InfoData.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(`// licence
{ "name": "InfoData", "type": "data", "validVersions": "1-2",
  "fields": [
    /***** version 1 only *****/
    { "name": "x", "versions": "1", "type": "int32", "ignorable": "false", "about": "gone" }
  ] }`), 0o644))
	require.NoError(t, importInternal(dir, src, "snap"))
	got, err := os.ReadFile(filepath.Join(dir, "snap/streams/InfoData.json"))
	require.NoError(t, err)
	require.NotContains(t, string(got), "about")
	require.NotContains(t, string(got), "version 1 only")
	m, err := parseMessage(got)
	require.NoError(t, err)
	require.False(t, bool(m.Fields[0].Ignorable))
	order, err := readOrder(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"snap"}, order)
}
