package main

import (
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// sarifRun0 is the first run of a SARIF report, validated.
func sarifRun0(t *testing.T, out string) map[string]any {
	t.Helper()
	return validateSARIF(t, []byte(out))["runs"].([]any)[0].(map[string]any)
}

// sarifArtifacts are the artifactLocations of a run's results and
// notifications.
func sarifArtifacts(run map[string]any) []map[string]any {
	var as []map[string]any
	add := func(locs any) {
		ls, _ := locs.([]any)
		for _, l := range ls {
			if p, ok := l.(map[string]any)["physicalLocation"].(map[string]any); ok {
				as = append(as, p["artifactLocation"].(map[string]any))
			}
		}
	}
	for _, r := range run["results"].([]any) {
		add(r.(map[string]any)["locations"])
	}
	for _, i := range run["invocations"].([]any) {
		ns, _ := i.(map[string]any)["toolExecutionNotifications"].([]any)
		for _, n := range ns {
			add(n.(map[string]any)["locations"])
		}
	}
	return as
}

// TestCheckSARIFInputNotRead: kwire check --format sarif of a file that
// does not exist said "executionSuccessful": true with no notification,
// the reason on standard error alone (exit 1). The invocation now says
// false, with an error notification giving the reason and the file.
func TestCheckSARIFInputNotRead(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.pcapng")
	good := example(t, "conn.order.good.hex")
	for _, args := range [][]string{{missing}, {good, missing}} {
		out, errOut, code := runCLI(t, append([]string{"check", "--format", "sarif", "--fail-on", "none"}, args...), nil)
		require.Equal(t, 1, code, errOut)
		inv := sarifRun0(t, out)["invocations"].([]any)[0].(map[string]any)
		require.Equal(t, false, inv["executionSuccessful"], out)
		var found bool
		ns, _ := inv["toolExecutionNotifications"].([]any)
		for _, n := range ns {
			no := n.(map[string]any)
			if no["level"] != "error" {
				continue
			}
			found = true
			require.Contains(t, no["message"].(map[string]any)["text"], "no such file or directory")
			loc := no["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
			require.Equal(t, (&url.URL{Scheme: "file", Path: filepath.ToSlash(missing)}).String(), loc["uri"])
		}
		require.True(t, found, "no error notification for the file not read:\n%s", out)
	}
	// Every input read: successful.
	out, _, _ := runCLI(t, []string{"check", "--format", "sarif", "--fail-on", "none", good}, nil)
	require.Equal(t, true, sarifRun0(t, out)["invocations"].([]any)[0].(map[string]any)["executionSuccessful"])
}

// TestCheckSARIFArtifactURI: a finding's artifactLocation.uri was the
// path as given, "/tmp/a b#c%.hex" with its space, # and % raw: no URI.
// An absolute path is now a file:// URI, percent-encoded; a relative one
// a relative reference with uriBaseId %SRCROOT%, which the run's
// originalUriBaseIds give as the working directory, so that resolving
// one against the other names the file; standard input has no uri but a
// description.
func TestCheckSARIFArtifactURI(t *testing.T) {
	b, err := os.ReadFile(example(t, "conn.order.bad.hex"))
	require.NoError(t, err)
	dir := t.TempDir()
	file := filepath.Join(dir, "a b#c%?.hex")
	require.NoError(t, os.WriteFile(file, b, 0o644))
	want := (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()

	out, _, _ := runCLI(t, []string{"check", "--format", "sarif", file}, nil)
	as := sarifArtifacts(sarifRun0(t, out))
	require.NotEmpty(t, as)
	for _, a := range as {
		require.Equal(t, want, a["uri"])
		u, err := url.Parse(a["uri"].(string))
		require.NoError(t, err)
		require.Equal(t, filepath.ToSlash(file), u.Path)
		require.NotContains(t, a, "uriBaseId")
	}

	rel, err := filepath.Rel(workDir, file)
	require.NoError(t, err)
	out, _, _ = runCLI(t, []string{"check", "--format", "sarif", rel}, nil)
	run := sarifRun0(t, out)
	base := run["originalUriBaseIds"].(map[string]any)["%SRCROOT%"].(map[string]any)["uri"].(string)
	bu, err := url.Parse(base)
	require.NoError(t, err)
	require.True(t, bu.IsAbs(), base)
	as = sarifArtifacts(run)
	require.NotEmpty(t, as)
	for _, a := range as {
		require.Equal(t, "%SRCROOT%", a["uriBaseId"])
		ru, err := url.Parse(a["uri"].(string))
		require.NoError(t, err, a["uri"])
		require.False(t, ru.IsAbs())
		require.Equal(t, filepath.ToSlash(rel), ru.Path)
		// The working directory may be reached through links: compare
		// the files, not the strings.
		got, err := os.Stat(filepath.FromSlash(bu.ResolveReference(ru).Path))
		require.NoError(t, err)
		st, err := os.Stat(file)
		require.NoError(t, err)
		require.True(t, os.SameFile(st, got))
	}

	out, _, _ = runCLI(t, []string{"check", "--format", "sarif"}, b)
	run = sarifRun0(t, out)
	require.NotContains(t, run, "originalUriBaseIds")
	as = sarifArtifacts(run)
	require.NotEmpty(t, as)
	for _, a := range as {
		require.NotContains(t, a, "uri")
		require.Equal(t, "standard input", a["description"].(map[string]any)["text"])
	}
}
