package codec

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// bothPaths walks b into the tree sink (Decode) and into the JSON sink
// (Decoder.AppendJSON), and requires the same JSON (the tree's written by
// treeJSON, a writer of its own), warnings, error and, for a frame that
// reads, the same nodes counted and work done.
func bothPaths(tb testing.TB, b []byte, o Options, jo JSONOptions) {
	tb.Helper()
	var tdec, fdec Decoder
	to := o
	to.skipRecords = jo.Records != rec.Decoded
	if jo.Kafka {
		to.RawRecords = true // Kafka's form decodes nothing nested
	}
	f, terr := tdec.Decode(b, to)
	tjs := treeJSON(f, jo)
	if !json.Valid(tjs) {
		tb.Fatalf("tree JSON invalid: %s", tjs)
	}
	fjs, info, ferr := fdec.AppendJSON(nil, b, o, jo)
	if string(tjs) != string(fjs) {
		tb.Fatalf("JSON differs (%v)\ntree %s\nfast %s", terr, tjs, fjs)
	}
	if fmt.Sprint(terr) != fmt.Sprint(ferr) {
		tb.Fatalf("errors differ\ntree %v\nfast %v", terr, ferr)
	}
	if fmt.Sprint(f.Warnings()) != fmt.Sprint(info.Warnings) {
		tb.Fatalf("warnings differ\ntree %v\nfast %v", f.Warnings(), info.Warnings)
	}
	var codes []int16
	for _, c := range f.ErrorCodes() {
		if c.Code != 0 {
			codes = append(codes, c.Code)
		}
	}
	if terr == nil && fmt.Sprint(sorted(codes)) != fmt.Sprint(sorted(info.ErrorCodes)) {
		tb.Fatalf("error codes differ\ntree %v\nfast %v", codes, info.ErrorCodes)
	}
	if terr == nil {
		if f.spent.Nodes != info.Nodes || f.spent.Work != info.Work || f.spent.Decompressed != info.Decompressed {
			tb.Fatalf("spent differs: tree %d nodes, %d work, %d decompressed; walk %d, %d, %d",
				f.spent.Nodes, f.spent.Work, f.spent.Decompressed, info.Nodes, info.Work, info.Decompressed)
		}
		if f.APIKey != info.APIKey || f.Version != info.Version || f.CorrelationID != info.CorrelationID {
			tb.Fatalf("info differs")
		}
	}
	if rjs := f.AppendJSON(nil, jo); string(rjs) != string(fjs) {
		tb.Fatalf("Frame.AppendJSON differs from Decoder.AppendJSON\nframe %s\nwalk  %s", rjs, fjs)
	}
}

func sorted(s []int16) []int16 {
	s = append([]int16(nil), s...)
	slices.Sort(s)
	return s
}

var jsonModes = []JSONOptions{{}, {Records: rec.Base64}, {Records: rec.Size}, {Kafka: true}}

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
				for _, jo := range jsonModes {
					bothPaths(t, b, Options{Response: resp, APIKey: api.Key, Version: v}, jo)
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
	f.Add(mustHexF(f, "0000001d 0012 0003 00000007 0005 6b77697265 00 8700 6b7769726520 04 312e30 00"), false, int16(0), int16(0), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, response bool, key, version int16, mode uint8) {
		o := Options{Response: response, APIKey: key, Version: version, Limits: Limits{MaxNodes: 1 << 16, MaxWork: 1 << 22}}
		if mode&4 != 0 {
			o.Auto = true
		}
		if mode&8 != 0 {
			o.RawRecords = true
		}
		bothPaths(t, b, o, jsonModes[int(mode&3)%len(jsonModes)])
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
	bothPaths(t, b, o, JSONOptions{Records: rec.Base64})
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
	o := Options{Auto: true, RawRecords: true, APIKey: -23, Version: 13, Limits: Limits{MaxNodes: 1 << 16, MaxWork: 1 << 22}}
	bothPaths(t, b, o, JSONOptions{})
	var dec Decoder
	_, _, err := dec.AppendJSON(nil, b, o, JSONOptions{})
	require.ErrorContains(t, err, "at byte 0 (size)")
}
