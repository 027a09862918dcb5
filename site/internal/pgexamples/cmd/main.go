// Command cmd writes the playground's examples (see package pgexamples):
//
//	go run ./site/internal/pgexamples/cmd -out site/playground/static
package main

import (
	"flag"
	"log"
	"os"
	"path/filepath"

	"github.com/kwire/kwire/site/internal/pgexamples"
)

func main() {
	out := flag.String("out", "site/playground/static", "the folder to write into")
	root := flag.String("root", ".", "the repository root")
	flag.Parse()
	files, err := pgexamples.Files(*root)
	if err != nil {
		log.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
