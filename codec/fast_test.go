package codec

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// bothPaths walks b into the tree sink (Decode) and into the JSON sink
// (Decoder.AppendJSON), both with o, and requires the same JSON (the
// tree's written by treeJSON, a writer of its own), warnings, error and,
// for a frame that reads, the same nodes counted, bytes decompressed and
// work done.
func bothPaths(tb testing.TB, b []byte, o Options) {
	tb.Helper()
	var tdec, fdec Decoder
	f, terr := tdec.Decode(b, o)
	tjs := treeJSON(f)
	if !json.Valid(tjs) {
		tb.Fatalf("tree JSON invalid: %s", tjs)
	}
	fjs, fr, ferr := fdec.AppendJSON(nil, b, o)
	if string(tjs) != string(fjs) {
		tb.Fatalf("JSON differs (%v)\ntree %s\nfast %s", terr, tjs, fjs)
	}
	if fmt.Sprint(terr) != fmt.Sprint(ferr) {
		tb.Fatalf("errors differ\ntree %v\nfast %v", terr, ferr)
	}
	if fmt.Sprint(f.Warnings) != fmt.Sprint(fr.Warnings) {
		tb.Fatalf("warnings differ\ntree %v\nfast %v", f.Warnings, fr.Warnings)
	}
	var codes, fcodes []int16
	for _, c := range f.ErrorCodes() {
		if c.Code != 0 {
			codes = append(codes, c.Code)
		}
	}
	for _, c := range fr.ErrorCodes() {
		fcodes = append(fcodes, c.Code)
	}
	if terr == nil && fmt.Sprint(sorted(codes)) != fmt.Sprint(sorted(fcodes)) {
		tb.Fatalf("error codes differ\ntree %v\nfast %v", codes, fcodes)
	}
	if terr == nil {
		if f.Spent != fr.Spent {
			tb.Fatalf("spent differs: tree %d nodes, %d work, %d decompressed; walk %d, %d, %d",
				f.Spent.MaxNodes, f.Spent.MaxWork, f.Spent.MaxDecompressed, fr.Spent.MaxNodes, fr.Spent.MaxWork, fr.Spent.MaxDecompressed)
		}
		if f.APIKey != fr.APIKey || f.Version != fr.Version || f.CorrelationID != fr.CorrelationID {
			tb.Fatalf("frames differ: tree %d v%d #%d, walk %d v%d #%d", f.APIKey, f.Version, f.CorrelationID, fr.APIKey, fr.Version, fr.CorrelationID)
		}
	}
	if rjs := f.AppendJSON(nil); string(rjs) != string(fjs) {
		tb.Fatalf("Frame.AppendJSON differs from Decoder.AppendJSON\nframe %s\nwalk  %s", rjs, fjs)
	}
}

func sorted(s []int16) []int16 {
	s = append([]int16(nil), s...)
	slices.Sort(s)
	return s
}

// jsonModes are the ways value JSON is written: records decoded, as
// base64, as their size, and Kafka's own form.
var jsonModes = []Options{{}, {Records: RecordsBase64}, {Records: RecordsSize}, {Kafka: true}}

// inMode is o writing its JSON as mode m says.
func inMode(o, m Options) Options {
	o.Records, o.Kafka = m.Records, m.Kafka
	return o
}

// Every example of every API, version and direction reads the same both ways.
func TestFastPathExamples(t *testing.T) {
	n := 0
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			m := api.Request
			if resp {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				b, err := ExampleFrame(api, v, resp)
				require.NoError(t, err)
				for _, m := range jsonModes {
					bothPaths(t, b, inMode(Options{Response: resp, APIKey: api.Key, Version: v}, m))
				}
				n++
			}
		}
	}
	t.Logf("%d examples", n)
}

// FuzzFastPath: the same bytes give the same JSON, warnings and error
// through the tree and without it (the walk's own error included: same
// offset and path), in every records mode.
func FuzzFastPath(f *testing.F) {
	seedFrames(func(b []byte, response bool, key, version int16) { f.Add(b, response, key, version, uint8(0)) })
	f.Add(mustHexF(f, "0000001c 0012 0003 00000007 0005 6b77697265 00 8600 6b77697265 04 312e30 00"), false, int16(0), int16(0), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, response bool, key, version int16, mode uint8) {
		o := Options{Response: response, APIKey: key, Version: version, Limits: Limits{MaxNodes: 1 << 16, MaxWork: 1 << 22}}
		if mode&4 != 0 {
			o.Auto = true
		}
		if mode&8 != 0 {
			o.raw = true // nothing nested decoded, kwire's keys kept
		}
		bothPaths(t, b, inMode(o, jsonModes[int(mode&3)%len(jsonModes)]))
	})
}

func mustHexF(tb testing.TB, s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Found by FuzzFastPath (testdata/fuzz/FuzzFastPath/694fcb5f2fdf9c7e): a
// Fetch v18 response partition whose tag section holds divergingEpoch
// twice, the second copy cut short, then a short currentLeader. Fetch
// partitions declare their tagged fields before abortedTransactions, so
// the tree-less path decodes them first, at their declared place; it
// failed on currentLeader where the tree, reading the section in order,
// fails earlier on the second divergingEpoch. The failure now waits for
// the section.
func TestRegressionPrescannedTagFailsInSectionOrder(t *testing.T) {
	b := []byte("\x00\x00\x00\xe20000\x000000000000\x020000000000000000\x02000000000000000000000000000000\x020000000000000000\x000000K00000000000000000000000000000000000000000000000000000000000000000000000000\x03\x00&000000000000\x000000000000000000000000000\x00\x00\x01\x00000000000000000000000")
	o := Options{Response: true, APIKey: 1, Version: 18, Limits: Limits{MaxNodes: 1 << 16, MaxWork: 1 << 22}}
	bothPaths(t, b, inMode(o, Options{Records: RecordsBase64}))
	_, err := Decode(b, o)
	require.ErrorContains(t, err, "divergingEpoch.epoch")
}

// Found by FuzzFastPath (testdata/fuzz/FuzzFastPath/auto_size_bad): a
// frame read with Auto whose size says far more than the bytes given. The
// tree refuses it at "size" before reading anything (a guess never starts
// from a frame cut short); the tree-less walk read it as a cut-short
// request and failed at header.requestApiKey. Its output was right (a
// failed frame is written by the tree), its own error was not.
func TestRegressionAutoSizeBadFailsAtSize(t *testing.T) {
	b := []byte("0000")
	o := Options{Auto: true, raw: true, APIKey: -23, Version: 13, Limits: Limits{MaxNodes: 1 << 16, MaxWork: 1 << 22}}
	bothPaths(t, b, o)
	var dec Decoder
	_, _, err := dec.AppendJSON(nil, b, o)
	require.ErrorContains(t, err, "at byte 0 (size)")
}

// TestTaggedEarlyReadFailsInItsSection (FuzzFastPath afeec52fc46a46ce): a
// Fetch v18 partition whose tagged snapshotId, declared before untagged
// fields, fails inside its own tag section. Its early reading is dropped,
// the untagged fields are read and written, and the section meets the
// failure again: the partial snapshotId then follows them in both sinks,
// with the error at its offset and path.
func TestTaggedEarlyReadFailsInItsSection(t *testing.T) {
	b := []byte("00000000\x00000000000000000000000000000\x8b\x00000000000000000000000000000000\x000000\x00\x01\x02\x100000000000000000")
	o := Options{Response: true, APIKey: 1, Version: 18, Limits: Limits{MaxNodes: 1 << 16, MaxWork: 1 << 22}}
	bothPaths(t, b, o)
	js, _, err := new(Decoder).AppendJSON(nil, b, o)
	var de *DecodeError
	require.ErrorAs(t, err, &de)
	require.Equal(t, 89, de.Offset)
	require.Equal(t, "body.responses[0].partitions[0].snapshotId", de.Path)
	require.Contains(t, string(js), `"records":null,"snapshotId":{"endOffset":3472328296227680304,"epoch":808464432}}`)
}
