package hostile

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEveryFuzzTargetRunsInCI: every fuzz function in the repository is
// one of the Makefile's FUZZ_TARGETS, which `make test` runs (fuzz-ci), so
// a decoder's fuzzing does not stop at its author's machine. Three did:
// sasl's FuzzAppend, payload's FuzzCheckCompact and api's FuzzHandler.
func TestEveryFuzzTargetRunsInCI(t *testing.T) {
	root := filepath.Join("..", "..")
	// make says the list, += lines and budgets and all.
	out, err := exec.Command("make", "-s", "--no-print-directory", "-C", root,
		"--eval", "fuzz-targets: ; @echo $(FUZZ_TARGETS)", "fuzz-targets").Output()
	if err != nil {
		t.Fatalf("make: %v", err)
	}
	listed := map[string]bool{}
	for _, f := range strings.Fields(string(out)) {
		if pkg, fn, ok := strings.Cut(f, ":"); ok {
			fn, _, _ = strings.Cut(fn, ":") // a budget of its own
			listed[pkg+":"+fn] = true
		}
	}
	fuzz := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	found := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range fuzz.FindAllStringSubmatch(string(b), -1) {
			found++
			if target := "./" + filepath.ToSlash(rel) + ":" + m[1]; !listed[target] {
				t.Errorf("%s (%s) is not in the Makefile's FUZZ_TARGETS", target, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < len(listed) {
		t.Errorf("found %d fuzz functions, fewer than the %d FUZZ_TARGETS lists", found, len(listed))
	}
}
