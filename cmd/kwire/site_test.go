package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSiteCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "dist")
	wasm := filepath.Join(dir, "kwire.wasm")
	exec := filepath.Join(dir, "wasm_exec.js")
	require.NoError(t, os.WriteFile(wasm, []byte("\x00asm\x01\x00\x00\x00"), 0o644))
	require.NoError(t, os.WriteFile(exec, []byte("// stand-in\n"), 0o644))
	require.NoError(t, os.MkdirAll(out, 0o755))
	keep := filepath.Join(out, "kwire.wasm")
	require.NoError(t, os.WriteFile(keep, []byte("built by make wasm"), 0o644))

	_, errOut, code := runCLI(t, []string{"site", "--out", out, "--wasm", wasm, "--wasm-exec", exec}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "pages (")
	for _, p := range []string{"index.html", "api/produce/v0.html", "api/fetch/index.html", "types.html", "records.html", "protocol.html", "errors.html", "playground/index.html"} {
		require.FileExists(t, filepath.Join(out, filepath.FromSlash(p)))
	}
	b, err := os.ReadFile(keep)
	require.NoError(t, err)
	require.Equal(t, "built by make wasm", string(b), "site must leave files it did not write")
	entries, err := os.ReadDir(filepath.Join(out, "playground"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	joined := strings.Join(names, " ")
	require.Regexp(t, `kwire\.[0-9a-f]{10}\.wasm`, joined)
	require.Regexp(t, `wasm_exec\.[0-9a-f]{10}\.js`, joined)
	require.Regexp(t, `grid\.[0-9a-f]{10}\.css`, joined)

	_, errOut, code = runCLI(t, []string{"site", "--out", out, "--wasm", filepath.Join(dir, "missing.wasm")}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "missing.wasm")
	_, _, code = runCLI(t, []string{"site", "extra"}, nil)
	require.Equal(t, 2, code)
}
