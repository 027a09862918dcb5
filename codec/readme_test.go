package codec_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// The README's Go code compiles against the packages as they are: each
// ```go block is written, through the go command's -overlay (nothing is
// written into the tree), as a file of a package of its own in
// codec/testdata, which holds no Go files, and vetted. A block without a
// package clause gets one.
func TestREADMEGoCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		if goCmd, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command")
		}
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlocks(string(readme))
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	dir := t.TempDir()
	for i, b := range blocks {
		// Errors name README.md's own lines.
		b.text = "//line README.md:" + strconv.Itoa(b.line+1) + "\n" + b.text
		if !strings.HasPrefix(strings.TrimSpace(blocks[i].text), "package ") {
			b.text = "package readme\n\n" + b.text
		}
		src := filepath.Join(dir, "block.go")
		if err := os.WriteFile(src, []byte(b.text), 0o644); err != nil {
			t.Fatal(err)
		}
		overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{
			filepath.Join(root, "codec", "testdata", "readme_block.go"): src}})
		ov := filepath.Join(dir, "overlay.json")
		if err := os.WriteFile(ov, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(goCmd, "vet", "-overlay="+ov, "./codec/testdata")
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("README.md's Go block %d (line %d) does not build (a block is a Go file: declarations, its package clause optional): %v\n%s", i+1, b.line, err, out.String())
		}
	}
}

type goBlock struct {
	line int // the line of its opening fence
	text string
}

// goBlocks finds the ```go blocks of a Markdown text.
func goBlocks(md string) []goBlock {
	var out []goBlock
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```go" {
			continue
		}
		start := i
		var b strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.WriteString(lines[i])
			b.WriteByte('\n')
		}
		out = append(out, goBlock{start + 1, b.String()})
	}
	return out
}
