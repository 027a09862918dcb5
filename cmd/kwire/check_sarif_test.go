package main

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/kwire/kwire/internal/bench/traffic"
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
// false, with an error notification giving the reason and the file,
// named once, as standard error says it.
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
			// In the text output's words, the file named once: Go's
			// "open NAME: " was left before them.
			text := no["message"].(map[string]any)["text"].(string)
			require.Equal(t, missing+": no such file or directory", text)
			require.Contains(t, errOut, "kwire: "+text+"\n")
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

// sarifLocations are the first location of each result of a run, and of
// each notification that has one.
func sarifLocations(run map[string]any) []map[string]any {
	var locs []map[string]any
	for _, r := range run["results"].([]any) {
		locs = append(locs, r.(map[string]any)["locations"].([]any)[0].(map[string]any))
	}
	for _, i := range run["invocations"].([]any) {
		ns, _ := i.(map[string]any)["toolExecutionNotifications"].([]any)
		for _, n := range ns {
			if ls, ok := n.(map[string]any)["locations"].([]any); ok {
				locs = append(locs, ls[0].(map[string]any))
			}
		}
	}
	return locs
}

// TestCheckSARIFRegions: a result's physicalLocation had no region. In a
// file of binary frames it is now the frame's bytes, or, for a finding at
// a byte of it, an insertion point before that byte with the frame as
// its contextRegion; in a file of hex lines, the frame's line; where the
// file's bytes are not known (a dump whose frames do not end with a line,
// a capture) there is none, and the location's properties say where in
// the conversation it is, a capture's packet included.
func TestCheckSARIFRegions(t *testing.T) {
	text, err := os.ReadFile(example(t, "conv.sequence.bad.hex"))
	require.NoError(t, err)
	var bin []byte
	var lines []string // each frame's line of hex
	for _, l := range strings.Split(strings.TrimSpace(string(text)), "\n") {
		b, err := hex.DecodeString(strings.TrimSpace(l))
		require.NoError(t, err)
		bin = append(bin, b...)
		lines = append(lines, l)
	}
	// Where each frame starts, by its size prefix.
	var starts []int
	for off := 0; off < len(bin); off += 4 + int(binary.BigEndian.Uint32(bin[off:])) {
		starts = append(starts, off)
	}
	require.Len(t, starts, len(lines), "one frame a line")
	dir := t.TempDir()
	binFile := filepath.Join(dir, "sequence.bin")
	require.NoError(t, os.WriteFile(binFile, bin, 0o644))

	out, _, _ := runCLI(t, []string{"check", "--format", "sarif", "--fail-on", "none", binFile}, nil)
	locs := sarifLocations(sarifRun0(t, out))
	require.NotEmpty(t, locs)
	var atByte int
	for _, loc := range locs {
		require.Contains(t, loc, "properties", "where in the conversation")
		require.Contains(t, loc["physicalLocation"], "region", "the frame's bytes")
		props := loc["properties"].(map[string]any)
		frame := int(props["frame"].(float64))
		start, end := starts[frame-1], len(bin)
		if frame < len(starts) {
			end = starts[frame]
		}
		phys := loc["physicalLocation"].(map[string]any)
		region := phys["region"].(map[string]any)
		if off, ok := props["offset"]; ok {
			atByte++
			require.Equal(t, map[string]any{"byteOffset": float64(start) + off.(float64)}, region, "an insertion point before the byte")
			require.Equal(t, map[string]any{"byteOffset": float64(start), "byteLength": float64(end - start)}, phys["contextRegion"])
			continue
		}
		require.Equal(t, map[string]any{"byteOffset": float64(start), "byteLength": float64(end - start)}, region)
		require.NotContains(t, phys, "contextRegion")
	}
	require.Positive(t, atByte, "conv.sequence's finding is at the baseSequence's byte")
	// The finding at a byte: the baseSequence of frame 5's record batch.
	r := sarifRun0(t, out)["results"].([]any)[0].(map[string]any)
	require.Equal(t, "conv.sequence", r["ruleId"])
	props := r["locations"].([]any)[0].(map[string]any)["properties"].(map[string]any)
	require.Equal(t, map[string]any{"frame": float64(5), "correlationId": float64(3), "side": "request",
		"offset": float64(94), "path": "body.topicData[0].partitionData[0].records[0].baseSequence"}, props)
	region := r["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["region"].(map[string]any)
	require.Equal(t, float64(starts[4]+94), region["byteOffset"])

	// Hex lines: the frame's line, nothing said of bytes.
	out, _, _ = runCLI(t, []string{"check", "--format", "sarif", "--fail-on", "none", example(t, "conv.sequence.bad.hex")}, nil)
	locs = sarifLocations(sarifRun0(t, out))
	require.NotEmpty(t, locs)
	for _, loc := range locs {
		frame := loc["properties"].(map[string]any)["frame"].(float64)
		phys := loc["physicalLocation"].(map[string]any)
		require.Equal(t, map[string]any{"startLine": frame, "endLine": frame}, phys["region"])
		require.NotContains(t, phys, "contextRegion")
	}

	// An xxd dump, 16 bytes a line: frames start and end inside lines,
	// and a byte of the frames is no byte of the text. No region.
	var dump strings.Builder // as xxd prints it
	for off := 0; off < len(bin); off += 16 {
		row := bin[off:min(off+16, len(bin))]
		hexes := ""
		for i := 0; i < len(row); i += 2 {
			hexes += hex.EncodeToString(row[i:min(i+2, len(row))]) + " "
		}
		ascii := []byte(string(row))
		for i, c := range ascii {
			if c < 0x20 || c > 0x7e {
				ascii[i] = '.'
			}
		}
		fmt.Fprintf(&dump, "%08x: %-40s %s\n", off, hexes, ascii)
	}
	dumpFile := filepath.Join(dir, "sequence.xxd")
	require.NoError(t, os.WriteFile(dumpFile, []byte(dump.String()), 0o644))
	out, errOut, _ := runCLI(t, []string{"check", "--format", "sarif", "--fail-on", "none", dumpFile}, nil)
	run := sarifRun0(t, out)
	require.Len(t, run["results"], 1, "the dump reads as the frames: %s", errOut)
	for _, loc := range sarifLocations(run) {
		require.NotContains(t, loc["physicalLocation"], "region")
		require.Contains(t, loc["properties"], "frame")
	}

	// A capture: no file offsets; the packet in the properties, beside the
	// logical location.
	capFile, err := filepath.Abs(filepath.Join(sharedTestdata, "check", "conv.sequence.bad.pcapng"))
	require.NoError(t, err)
	out, _, _ = runCLI(t, []string{"check", "--format", "sarif", "--fail-on", "none", capFile}, nil)
	run = sarifRun0(t, out)
	require.Len(t, run["results"], 1)
	loc := run["results"].([]any)[0].(map[string]any)["locations"].([]any)[0].(map[string]any)
	require.NotContains(t, loc["physicalLocation"], "region")
	props = loc["properties"].(map[string]any)
	require.Equal(t, float64(16), props["packet"])
	require.Equal(t, "request", props["side"])
	require.Equal(t, "body.topicData[0].partitionData[0].records[0].baseSequence", props["path"])
	require.Contains(t, props, "conn")
	require.Contains(t, loc["logicalLocations"].([]any)[0].(map[string]any)["fullyQualifiedName"], "(packet 16)")
}

// sarifWarningTexts are the message texts of a run's warning
// notifications (the inputs read only in part), each checked to name
// file in its location too.
func sarifWarningTexts(t *testing.T, out, uri string) []string {
	t.Helper()
	inv := sarifRun0(t, out)["invocations"].([]any)[0].(map[string]any)
	ns, _ := inv["toolExecutionNotifications"].([]any)
	var texts []string
	for _, n := range ns {
		no := n.(map[string]any)
		if no["level"] != "warning" {
			continue
		}
		texts = append(texts, no["message"].(map[string]any)["text"].(string))
		loc := no["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)["artifactLocation"].(map[string]any)
		if uri == "" {
			require.Equal(t, "standard input", loc["description"].(map[string]any)["text"])
		} else {
			require.Equal(t, uri, loc["uri"])
		}
	}
	return texts
}

// TestCheckSARIFCutInputNamesFile: the note for an input read only in
// part (a capture cut short, a reading interrupted) named the file only
// in its location, its text "file truncated or corrupt after packet N:
// ..." or "interrupted: not read whole" leaving out which file, where
// the note for a file not read says "NAME: reason". Its text is now
// standard error's line, the file named first.
func TestCheckSARIFCutInputNamesFile(t *testing.T) {
	b, err := os.ReadFile(trafficPcap(t, traffic.PcapOptions{Pairs: 20}))
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	require.NoError(t, os.WriteFile(cut, b[:len(b)-40], 0o644))
	out, errOut, code := runCLI(t, []string{"check", "--format", "sarif", "--fail-on", "none", cut}, nil)
	require.Equal(t, 1, code, errOut)
	texts := sarifWarningTexts(t, out, (&url.URL{Scheme: "file", Path: filepath.ToSlash(cut)}).String())
	require.Len(t, texts, 1, out)
	require.Regexp(t, `^`+regexp.QuoteMeta(cut)+`: packet \d+: file truncated or corrupt after packet \d+: truncated packet \(checked up to there\)$`, texts[0])
	require.Contains(t, errOut, "kwire: "+texts[0]+"\n", "in standard error's words")

	// Interrupted while reading standard input: named "-", as standard
	// error names it.
	out, errOut, code = interrupted(t, []string{"check", "--format", "sarif", "--fail-on", "none", "-"}, bigCapture(t, 6000), syscall.SIGINT, false)
	require.Equal(t, 130, code, errOut)
	texts = sarifWarningTexts(t, out, "")
	require.Len(t, texts, 1, out)
	require.Regexp(t, `^-: interrupted \(SIGINT\): not judged past packet \d+; the rest of the capture was not read$`, texts[0])
	require.Contains(t, errOut, "kwire: "+texts[0]+"\n", "in standard error's words")
}
