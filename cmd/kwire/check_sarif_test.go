package main

import (
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
			require.Contains(t, loc["uri"], "missing.pcapng")
		}
		require.True(t, found, "no error notification for the file not read:\n%s", out)
	}
	// Every input read: successful.
	out, _, _ := runCLI(t, []string{"check", "--format", "sarif", "--fail-on", "none", good}, nil)
	require.Equal(t, true, sarifRun0(t, out)["invocations"].([]any)[0].(map[string]any)["executionSuccessful"])
}
