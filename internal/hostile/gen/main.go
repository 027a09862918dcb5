// Command gen writes the hostile corpus: every entry of package hostile
// into testdata/hostile, and the MANIFEST that says what each attacks and
// what the user must get. The output is deterministic; the files are
// committed, and a test in package hostile checks they are what gen makes.
//
// Usage:
//
//	go run ./internal/hostile/gen [-dir testdata/hostile]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kwire/kwire/internal/hostile"
)

func main() {
	dir := flag.String("dir", hostile.Dir(), "write the corpus into `DIR`")
	flag.Parse()
	if err := hostile.Write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "gen: wrote", len(hostile.Entries()), "entries and MANIFEST to", filepath.Clean(*dir))
}
