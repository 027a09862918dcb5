package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/schema"
)

// Kafka's internal record schemas (kafka/internal): the keys and values of
// its internal topics and the messages of its own files, taken from
// several points of Kafka's history like the protocol's. Each folder in
// internal/ORDER holds one subfolder per Kafka module (group-coordinator,
// metadata, ...); TOPICS says which module's records go to which topic
// and how they are framed.
//
// The precedence rule is by file, not by version: a message is laid out
// by the first folder in ORDER that has a file for it, as a whole. (The
// older files give a coordinator key's record type as its only version,
// "validVersions": "8", where the newer ones say "apiKey": 8 and version
// 0: the two cannot be merged version by version.)

// internalSource is what read gathers from kafka/internal.
type internalSource struct {
	folders  []string                          // internal/ORDER: first wins
	byFolder map[string]map[string]*rawMessage // folder -> module/name -> file
	topics   [][]string                        // TOPICS rows: module, topic, framing
	clashes  [][]string                        // CLASHES rows: module, type, records in trial order, why
}

// readInternal reads dir (kafka/internal): ORDER, the files of every
// folder it names, module by module, and TOPICS.
func readInternal(dir string) (*internalSource, error) {
	folders, err := readOrder(dir)
	if err != nil {
		return nil, err
	}
	in := &internalSource{folders: folders, byFolder: map[string]map[string]*rawMessage{}}
	for _, f := range folders {
		in.byFolder[f] = map[string]*rawMessage{}
		modules, err := os.ReadDir(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		for _, mod := range modules {
			if !mod.IsDir() {
				continue
			}
			files, err := readFolder(filepath.Join(dir, f, mod.Name()), f+"/"+mod.Name())
			if err != nil {
				return nil, err
			}
			for _, m := range files {
				in.byFolder[f][mod.Name()+"/"+m.Name] = m
			}
		}
	}
	if in.topics, err = readTSV(filepath.Join(dir, "TOPICS"), 3); err != nil {
		return nil, err
	}
	if in.clashes, err = readTSV(filepath.Join(dir, "CLASHES"), 4); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return in, nil
}

// importInternal copies the schema files under src (a tree laid out as
// Kafka's sources: MODULE/src/main/resources/.../*.json) into
// dir/name/MODULE/, structure only, and puts name first in dir/ORDER.
func importInternal(dir, src, name string) error {
	n := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		module, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		n++
		return importFile(p, filepath.Join(dir, name, module))
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("-import-internal %s: no *.json files there", src)
	}
	return putFirst(dir, name, "# Schema folders, first wins: a message is laid out by the first folder\n# here that has a file for it, the whole file (README.md says why).\n")
}

// internalTables is what internal_gen.go holds, as schema values.
type internalTables struct {
	messages     []*schema.Message // every message, ordered by module/name
	topics       []*schema.InternalTopic
	emptyDefault map[*schema.Field]bool
}

// resolveInternal applies the precedence rule by file and pairs the
// topics' keys and values.
func resolveInternal(in *internalSource) (*internalTables, error) {
	winners := map[string]*rawMessage{}
	for _, f := range in.folders {
		for k, m := range in.byFolder[f] {
			if winners[k] == nil {
				winners[k] = m
			}
		}
	}
	// One pseudo folder holding the winning files: each message then
	// comes from one file, and its versions from that file alone.
	src := &source{folders: []string{""}, byFolder: map[string]map[string]*rawMessage{"": winners}}
	r := &resolver{src: src, shared: map[string]*schema.Layout{}, t: &tables{emptyDefault: map[*schema.Field]bool{}}}
	it := &internalTables{emptyDefault: r.t.emptyDefault}
	byKey := map[string]*schema.Message{}
	names := map[string]string{}
	for _, k := range src.messageKeys() {
		m, err := r.message(k)
		if err != nil {
			return nil, err
		}
		if prev, dup := names[strings.ToLower(m.Name)]; dup {
			return nil, fmt.Errorf("%s and %s: two messages named %s", prev, k, m.Name)
		}
		names[strings.ToLower(m.Name)] = k
		it.messages = append(it.messages, m)
		byKey[k] = m
	}
	used := map[string]bool{} // the CLASHES rows (module, type) a clash was ordered by
	for _, row := range in.topics {
		module, name, framing := row[0], row[1], row[2]
		t := &schema.InternalTopic{Name: name}
		var err error
		switch framing {
		case "coordinator":
			t.Framing = schema.CoordinatorFraming
			t.Records, err = coordinatorRecords(module, winners, byKey)
		case "metadata":
			t.Framing = schema.MetadataFraming
			t.Records, err = metadataRecords(module, winners, byKey)
		default:
			err = fmt.Errorf("TOPICS: %s: unknown framing %q", name, framing)
		}
		if err != nil {
			return nil, err
		}
		if len(t.Records) == 0 {
			return nil, fmt.Errorf("TOPICS: %s: no records in module %s", name, module)
		}
		sort.SliceStable(t.Records, func(i, j int) bool { return t.Records[i].Type < t.Records[j].Type })
		if err := orderClashes(module, t, in.clashes, used); err != nil {
			return nil, err
		}
		it.topics = append(it.topics, t)
	}
	for _, row := range in.clashes {
		if !used[row[0]+"\t"+row[1]] {
			return nil, fmt.Errorf("CLASHES: %s type %s: no two records of the module share that type", row[0], row[1])
		}
	}
	return it, nil
}

// orderClashes orders the records of t that share a type as CLASHES
// says (the walk tries them in table order, taking the first whose bytes
// read whole) and gives each the row's reason (InternalRecord.Clash): a
// clash CLASHES does not list is an error, so a new one is decided, not
// left to the files' name order. used records the rows taken.
func orderClashes(module string, t *schema.InternalTopic, clashes [][]string, used map[string]bool) error {
	rs := t.Records
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j].Type == rs[i].Type {
			j++
		}
		if j-i > 1 {
			typ := strconv.Itoa(int(rs[i].Type))
			var names []string
			for _, r := range rs[i:j] {
				names = append(names, r.Value.Name)
			}
			var row []string
			for _, c := range clashes {
				if c[0] == module && c[1] == typ {
					row = c
				}
			}
			if row == nil {
				return fmt.Errorf("TOPICS: %s: record type %s is %s in Kafka's files: CLASHES must say in which order they are tried, and why", t.Name, typ, strings.Join(names, " and "))
			}
			order := strings.Split(row[2], ",")
			if len(order) != len(names) {
				return fmt.Errorf("CLASHES: %s type %s lists %s, but the files give it to %s", module, typ, row[2], strings.Join(names, " and "))
			}
			group := append([]schema.InternalRecord(nil), rs[i:j]...)
			for k, name := range order {
				at := slices.IndexFunc(group, func(r schema.InternalRecord) bool { return r.Value.Name == name })
				if at < 0 {
					return fmt.Errorf("CLASHES: %s type %s lists %s, but the files give it to %s", module, typ, row[2], strings.Join(names, " and "))
				}
				rs[i+k] = group[at]
				rs[i+k].Clash = row[3]
			}
			used[module+"\t"+typ] = true
		}
		i = j
	}
	return nil
}

// moduleKeys is the sorted message keys of module.
func moduleKeys(module string, winners map[string]*rawMessage) []string {
	var keys []string
	for k := range winners {
		if strings.HasPrefix(k, module+"/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// coordinatorRecords pairs each XKey of module with its XValue. A key
// file of the newer form ("type": "coordinator-key") gives the record
// type as its apiKey and is read at its one version; one of the older
// form gives the type as its versions, and is read at that version.
func coordinatorRecords(module string, winners map[string]*rawMessage, byKey map[string]*schema.Message) ([]schema.InternalRecord, error) {
	var out []schema.InternalRecord
	paired := map[string]bool{}
	for _, k := range moduleKeys(module, winners) {
		key := winners[k]
		prefix, ok := strings.CutSuffix(key.Name, "Key")
		if !ok {
			continue
		}
		vk := module + "/" + prefix + "Value"
		value := winners[vk]
		if value == nil {
			return nil, fmt.Errorf("%s/%s: no %sValue beside it", key.folder, key.Name, prefix)
		}
		paired[vk] = true
		var types []int16
		if key.Type == "coordinator-key" {
			if key.APIKey == nil || key.valid.Empty() || key.valid.Lo != key.valid.Hi {
				return nil, fmt.Errorf("%s/%s: a coordinator-key needs an apiKey and one version", key.folder, key.Name)
			}
			types = []int16{int16(*key.APIKey)}
		} else {
			for v := key.valid.Lo; v <= key.valid.Hi; v++ {
				types = append(types, v)
			}
		}
		for _, typ := range types {
			if value.APIKey != nil && int16(*value.APIKey) != typ {
				return nil, fmt.Errorf("%s/%s: record type %d, but %s/%s says apiKey %d", key.folder, key.Name, typ, value.folder, value.Name, *value.APIKey)
			}
			kv := typ
			if key.Type == "coordinator-key" {
				kv = key.valid.Lo
			}
			out = append(out, schema.InternalRecord{Type: typ, Key: byKey[k], KeyVersion: kv, Value: byKey[vk]})
		}
	}
	for _, k := range moduleKeys(module, winners) {
		if v := winners[k]; strings.HasSuffix(v.Name, "Value") && !paired[k] && (v.Type == "coordinator-value" || winners[strings.TrimSuffix(k, "Value")+"Key"] != nil) {
			return nil, fmt.Errorf("%s/%s: no key pairs with it", v.folder, v.Name)
		}
	}
	return out, nil
}

// metadataRecords lists the "type": "metadata" files of module by apiKey.
func metadataRecords(module string, winners map[string]*rawMessage, byKey map[string]*schema.Message) ([]schema.InternalRecord, error) {
	var out []schema.InternalRecord
	for _, k := range moduleKeys(module, winners) {
		m := winners[k]
		if m.Type != "metadata" {
			continue
		}
		if m.APIKey == nil || *m.APIKey < 0 || *m.APIKey > 0x7fff {
			return nil, fmt.Errorf("%s/%s: a metadata record needs an apiKey", m.folder, m.Name)
		}
		out = append(out, schema.InternalRecord{Type: int16(*m.APIKey), Value: byKey[k]})
	}
	return out, nil
}

// distinctNames checks that no internal message shares its name with a
// protocol message: schema.DataMessage finds both by name.
func distinctNames(t *tables, it *internalTables) error {
	protocol := map[string]bool{}
	for _, m := range t.messages {
		protocol[strings.ToLower(m.Name)] = true
	}
	for _, m := range it.messages {
		if protocol[strings.ToLower(m.Name)] {
			return fmt.Errorf("internal message %s has the name of a protocol message", m.Name)
		}
	}
	return nil
}
