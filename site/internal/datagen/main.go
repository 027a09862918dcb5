// Command datagen writes the facts the docs site shows beside the schema
// tables, as data files in site/data:
//
//	go run ./site/internal/datagen -schemas ../shared/kafka-message-schemas
//
// retriable.tsv  each error code Kafka considers retriable (its error
// definitions: the exception class extends RetriableException), from
// franz-go's kerr, which transcribes them
// releases.tsv   the highest version of each API a Kafka release's
// broker speaks, from franz-go's kversion tables
// error-apis.tsv the APIs whose message schemas name each error code
// (in their comments or field texts: "Supported errors: ..."), read from
// Kafka's original JSON files, comments included
//
// Tests in site/ check the first two against kerr and kversion; the third
// is read from files the repository keeps without their comments.
package main

import (
	"bytes"
	"flag"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kwire/kwire/codec/schema"
)

func main() {
	schemas := flag.String("schemas", "", "a folder of Kafka's message JSON files with their comments (its subfolders are read too)")
	out := flag.String("out", "site/data", "the folder to write into")
	flag.Parse()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("retriable.tsv", retriable())
	write("releases.tsv", releases())
	if *schemas != "" {
		b, err := errorAPIs(*schemas)
		if err != nil {
			log.Fatal(err)
		}
		write("error-apis.tsv", b)
	}
}

var apiKeyRe = regexp.MustCompile(`"apiKey":\s*(\d+)`)
var typeRe = regexp.MustCompile(`"type":\s*"(request|response)"`)

// errorAPIs finds, for each error name, the API keys whose request or
// response files mention it.
func errorAPIs(dir string) ([]byte, error) {
	var names []string
	for c := -1; c < 1000; c++ {
		if n := schema.ErrorName(int16(c)); n != "" && c != 0 {
			names = append(names, n)
		}
	}
	found := map[string]map[int]bool{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		m := apiKeyRe.FindSubmatch(b)
		if m == nil || typeRe.Find(b) == nil {
			return nil
		}
		key, _ := strconv.Atoi(string(m[1]))
		for _, n := range names {
			if wordIn(b, n) {
				if found[n] == nil {
					found[n] = map[int]bool{}
				}
				found[n][key] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString("# error name, then the API keys whose schema files name it (see site/internal/datagen)\n")
	sort.Strings(names)
	for _, n := range names {
		if len(found[n]) == 0 {
			continue
		}
		var keys []int
		for k := range found[n] {
			keys = append(keys, k)
		}
		sort.Ints(keys)
		buf.WriteString(n)
		for i, k := range keys {
			if i == 0 {
				buf.WriteByte('\t')
			} else {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.Itoa(k))
		}
		buf.WriteByte('\n')
	}
	return buf.Bytes(), nil
}

// retriable lists the codes kerr marks retriable, with kerrOverrides.
func retriable() []byte {
	var buf bytes.Buffer
	buf.WriteString("# error code, name: the codes Kafka's error definitions call retriable (from franz-go's kerr, where it agrees with Kafka's Errors.java)\n")
	for c := -1; c < 1000; c++ {
		e := kerr.ErrorForCode(int16(c))
		ke, ok := e.(*kerr.Error)
		if !ok {
			continue
		}
		r := ke.Retriable
		if o, ok := kerrOverrides[int16(c)]; ok {
			r = o
		}
		if r {
			buf.WriteString(strconv.Itoa(c) + "\t" + ke.Message + "\n")
		}
	}
	return buf.Bytes()
}

// kerrOverrides are the codes whose retriability kerr gives otherwise than
// Kafka's exceptions (a RetriableException or not), Kafka's answer:
// BrokerNotAvailableException is an ApiException; ShareSessionNotFound-
// and InvalidShareSessionEpochException are RetriableExceptions.
var kerrOverrides = map[int16]bool{8: false, 122: true, 123: true}

// releases lists, for each Kafka release kversion knows, the highest
// version of each API its broker speaks.
func releases() []byte {
	var buf bytes.Buffer
	buf.WriteString("# release, then key:version for each API its broker speaks, highest versions (from franz-go's kversion)\n")
	for _, name := range kversion.VersionStrings() {
		vs := kversion.FromString(name)
		if vs == nil {
			continue
		}
		buf.WriteString(strings.TrimPrefix(name, "v"))
		first := true
		vs.EachMaxKeyVersion(func(k, v int16) {
			if first {
				buf.WriteByte('\t')
				first = false
			} else {
				buf.WriteByte(' ')
			}
			buf.WriteString(strconv.Itoa(int(k)) + ":" + strconv.Itoa(int(v)))
		})
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func wordIn(b []byte, w string) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(w))
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(w)
		word := func(c byte) bool {
			return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		}
		if (at == 0 || !word(b[at-1])) && (end == len(b) || !word(b[end])) {
			return true
		}
		i = at + 1
	}
}
