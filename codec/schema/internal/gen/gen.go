// Command gen reads Kafka's JSON message schemas and writes kwire's schema
// tables, in three stages: read (read.go: the files as written), resolve
// (resolve.go: the precedence rule of kafka/README.md, applied into the
// schema package's own types) and emit (emit.go: Go source for those
// values). Only structure is carried over; the files' prose ("about"
// texts, comments) is dropped, both from the tables and from the copy
// kept in kafka/ (importing.go).
//
// It is run from codec/schema with the schema_bootstrap build tag, which
// builds the schema package without its generated tables (bootstrap.go
// stands in for them), so the generator never needs the tables it writes
// to compile: a change to the schema types that the old tables no longer
// fit regenerates them all the same. constants_gen.go is plain constants
// and stays in.
//
//	go run -tags schema_bootstrap ./internal/gen                       # kafka/ -> tables_gen.go, constants_gen.go
//	go run -tags schema_bootstrap ./internal/gen -import DIR -as NAME  # copy Kafka's files from DIR into kafka/NAME,
//	                                                                   # first in kafka/ORDER, then generate
package main

import (
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	dir := flag.String("schemas", "kafka", "the schema folder: ORDER, the folders it names, errors.tsv, enums.tsv")
	out := flag.String("out", "tables_gen.go", "output file")
	constsOut := flag.String("consts", "constants_gen.go", "output file for the API key and error code constants")
	internalOut := flag.String("internal", "internal_gen.go", "output file for the internal topics' record schemas (from -schemas/internal)")
	imp := flag.String("import", "", "copy Kafka's message files (clients/src/main/resources/common/message) from `DIR` first")
	as := flag.String("as", "kafka-import", "the folder name the imported files get under -schemas")
	impInternal := flag.String("import-internal", "", "copy Kafka's internal record schemas from `DIR` (laid out as Kafka's sources: MODULE/src/main/resources/...) first")
	internalAs := flag.String("internal-as", "internal-import", "the folder name the -import-internal files get under -schemas/internal")
	flag.Parse()

	if *imp != "" {
		if err := importFolder(*dir, *imp, *as); err != nil {
			log.Fatal(err)
		}
	}
	if *impInternal != "" {
		if err := importInternal(filepath.Join(*dir, "internal"), *impInternal, *internalAs); err != nil {
			log.Fatal(err)
		}
	}
	src, err := read(*dir)
	if err != nil {
		log.Fatal(err)
	}
	t, err := resolve(src)
	if err != nil {
		log.Fatal(err)
	}
	outputs := []struct {
		path string
		src  []byte
	}{{*out, emitTables(t)}, {*constsOut, emitConstants(t)}}
	if src.internal != nil {
		it, err := resolveInternal(src.internal)
		if err != nil {
			log.Fatal(err)
		}
		if err := distinctNames(t, it); err != nil {
			log.Fatal(err)
		}
		outputs = append(outputs, struct {
			path string
			src  []byte
		}{*internalOut, emitInternal(it)})
	}
	for _, o := range outputs {
		if err := writeGo(o.path, o.src); err != nil {
			log.Fatal(err)
		}
	}
}

// writeGo formats Go source and writes it to path; source that does not
// format is left beside it, in path.broken, to be read.
func writeGo(path string, src []byte) error {
	b, err := format.Source(src)
	if err != nil {
		os.WriteFile(path+".broken", src, 0o644)
		return fmt.Errorf("format %s: %v (the source is in %s.broken)", path, err, path)
	}
	return os.WriteFile(path, b, 0o644)
}
