//go:build ignore

// Write writes the worst cases for the API's limits into a folder, for the
// Worker's tests: one file per case's body and index.json listing them
// (name, what, route, query, contentType, file).
//
//	go run internal/api/worst/write.go [-worker] DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/internal/api/worst"
)

func main() {
	worker := flag.Bool("worker", false, "the Worker's limits (api.WorkerOptions) instead of kwire serve's")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: go run internal/api/worst/write.go [-worker] DIR")
		os.Exit(2)
	}
	o := api.Options{}
	if *worker {
		o = api.WorkerOptions
	}
	cs, err := worst.Cases(worst.LimitsOf(o))
	if err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
	dir := flag.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
	type entry struct {
		Name        string `json:"name"`
		What        string `json:"what"`
		Route       string `json:"route"`
		Query       string `json:"query"`
		ContentType string `json:"contentType"`
		File        string `json:"file"`
	}
	var index []entry
	for _, c := range cs {
		f := c.Name + ".bin"
		if err := os.WriteFile(filepath.Join(dir, f), c.Body, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "write:", err)
			os.Exit(1)
		}
		index = append(index, entry{c.Name, c.What, c.Route, c.Query, c.ContentType, f})
	}
	b, _ := json.MarshalIndent(index, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "index.json"), append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "write:", err)
		os.Exit(1)
	}
}
