package main

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// TestNewerVersionDecodedAndSaid: bytes of a version newer than kwire
// knows are decoded with the newest layout (the codec's choice, kept),
// and standard error says so once a run, in words of its own: the
// versions kwire knows and the layout used. Only the codec's warning,
// "at byte 9 (body): version 99 is newer than any known", said it before,
// naming neither the API nor what kwire knows.
func TestNewerVersionDecodedAndSaid(t *testing.T) {
	ex, errOut, code := runCLI(t, []string{"example", "Metadata", "--version", "13", "--response"}, nil)
	require.Equal(t, 0, code, errOut)
	frame := strings.SplitN(ex, "\n", 2)[0]
	note := "Metadata v99 is newer than kwire knows: it knows v0-13"
	layout := "decoded v99 with the v13 layout, the newest"

	out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", "--response", "--api", "Metadata", "--version", "99", frame, frame}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 2, strings.Count(out, `"apiVersion":99`), out)
	require.Equal(t, 1, strings.Count(errOut, note), "said once a run:\n%s", errOut)
	require.Contains(t, errOut, layout)
	require.Equal(t, 2, strings.Count(errOut, "version 99 is newer than any known"), "each frame's warning stays:\n%s", errOut)

	// A request whose header says v99, nothing pinned: the same.
	req, errOut, code := runCLI(t, []string{"example", "Metadata", "--version", "13"}, nil)
	require.Equal(t, 0, code, errOut)
	hex := strings.SplitN(req, "\n", 2)[0]
	require.Equal(t, "000d", hex[12:16], "the header's version")
	_, errOut, code = runCLI(t, []string{"decode", hex[:12] + "0063" + hex[16:]}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, note)
	require.Contains(t, errOut, layout)

	// --strict still fails such a frame: it has a warning.
	_, _, code = runCLI(t, []string{"decode", "--strict", "--response", "--api", "Metadata", "--version", "99", frame}, nil)
	require.Equal(t, 1, code)
}

// TestNewerVersionRefusedWithAWayOn: kwire schema and kwire example
// refuse a version newer than kwire knows (a layout or frame printed as
// v99 would be made up), naming the versions known, and the command they
// name for the newest runs.
func TestNewerVersionRefusedWithAWayOn(t *testing.T) {
	for _, c := range []struct {
		args []string
		next string
	}{
		{[]string{"schema", "Metadata", "--version", "99", "--response"}, "kwire schema Metadata --version 13 --response shows the newest"},
		{[]string{"example", "Produce", "--version", "14"}, "kwire example Produce --version 13 prints the newest"},
	} {
		out, errOut, code := runCLI(t, c.args, nil)
		require.Equal(t, 2, code, c.args)
		require.Empty(t, out)
		require.Contains(t, errOut, "has versions 0-13, not "+c.args[3]+": v"+c.args[3]+" is newer than kwire knows", c.args)
		require.Contains(t, errOut, c.next, c.args)
		require.Contains(t, errOut, "kwire decode reads a newer version's bytes with", c.args)
		cmd := regexp.MustCompile(`kwire ((schema|example) [^;]*?) (shows|prints) the newest`).FindStringSubmatch(errOut)
		require.NotNil(t, cmd, errOut)
		_, errOut, code = runCLI(t, strings.Fields(cmd[1]), nil)
		require.Equal(t, 0, code, "the command named runs: %s", errOut)
	}
}

// TestNewerVersionSaidPastShownFailures: the once-a-run line about a
// version newer than kwire knows is said even when its frame's own lines
// are left out, past the first maxFailuresShown failing frames; it was
// lost there, and never said again.
func TestNewerVersionSaidPastShownFailures(t *testing.T) {
	req, errOut, code := runCLI(t, []string{"example", "Metadata", "--version", "13"}, nil)
	require.Equal(t, 0, code, errOut)
	hex := strings.SplitN(req, "\n", 2)[0]
	args := []string{"decode", "--strict"}
	for i := 0; i < maxFailuresShown; i++ {
		args = append(args, "00000002ffff") // cut short after its API key
	}
	args = append(args, hex[:12]+"0063"+hex[16:]) // v99: fails under --strict
	_, errOut, code = runCLI(t, args, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "1 more failing frame not shown", errOut)
	require.Contains(t, errOut, "Metadata v99 is newer than kwire knows: it knows v0-13", errOut)
}

// TestNewerVersionSaidByBatchAndPcap: kwire batch and kwire pcap say, as
// kwire decode does, once a run for each API and version, on standard
// error, that a frame was decoded at a version newer than kwire knows,
// at the first line or exchange that was (the workers decode out of
// order; the run says it in input order). They said nothing of it, only
// each frame's warning, "version 99 is newer than any known". Their
// standard output is as it was: a line of value JSON for each.
func TestNewerVersionSaidByBatchAndPcap(t *testing.T) {
	const note = "Metadata v99 is newer than kwire knows: it knows v0-13"
	const layout = "decoded v99 with the v13 layout, the newest"
	req := exampleFrame(t, "Metadata", 13, false, 1)
	binary.BigEndian.PutUint16(req[6:], 99) // the header's version
	rsp := exampleFrame(t, "Metadata", 13, true, 1)

	// batch: 6000 lines (chunks for several workers), each 3 a v99
	// request, a v99 response pinned by its line object and a v13
	// request; one line said, naming line 1.
	known := hex.EncodeToString(exampleFrame(t, "Metadata", 13, false, 1))
	three := hex.EncodeToString(req) + "\n" +
		`{"hex":"` + hex.EncodeToString(rsp) + `","direction":"response","api":"Metadata","apiVersion":99}` + "\n" +
		known + "\n"
	const n = 6000
	lines := strings.Repeat(three, n/3)
	for _, jobs := range []string{"1", "4"} {
		out, errOut, code := runCLI(t, []string{"batch", "--jobs", jobs}, []byte(lines))
		require.Equal(t, 0, code, errOut)
		outLines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, outLines, n)
		for i, l := range outLines {
			require.True(t, json.Valid([]byte(l)), l)
			require.Equal(t, i%3 != 2, strings.Contains(l, `"apiVersion":99`), "line %d: %s", i+1, l)
		}
		require.Equal(t, 1, strings.Count(errOut, note), "said once a run (--jobs %s):\n%.2000s", jobs, errOut)
		require.Contains(t, errOut, "kwire: line 1: "+note)
		require.Contains(t, errOut, layout)
		require.Less(t, strings.Index(errOut, note), strings.Index(errOut, "version 99 is newer than any known"), "before the line's warning")
		require.Equal(t, n/3*2, strings.Count(errOut, "version 99 is newer than any known"), "each line's warning stays")
	}

	// pcap: three exchanges at v14, then at v99, request and response,
	// in a capture begun mid-connection, so that only the headers say
	// where the requests are; one line said, naming the first exchange's
	// request. v99 is far past the margin a capture gives a newer Kafka
	// (8 versions past the newest known): its header is taken for a
	// request's by its client id's text, where its bytes were skipped as
	// no frame's, and its answers read with no request.
	for _, ver := range []int{14, 99} {
		v := strconv.Itoa(ver)
		noteV := "Metadata v" + v + " is newer than kwire knows: it knows v0-13"
		var segs []segment
		for corr := int32(1); corr <= 3; corr++ {
			r := exampleFrame(t, "Metadata", 13, false, corr)
			binary.BigEndian.PutUint16(r[6:], uint16(ver))
			at := time.Duration(corr) * time.Millisecond
			segs = append(segs, segment{true, at, r}, segment{false, at + 100*time.Microsecond, exampleFrame(t, "Metadata", 13, true, corr)})
		}
		file := segmentsPcap(t, segs...)
		for _, args := range [][]string{{"--jobs", "1"}, {"--jobs", "4"}, {"--summary"}} {
			out, errOut, code := runCLI(t, append(append([]string{"pcap"}, args...), file), nil)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, 1, strings.Count(errOut, noteV), "said once a run (%v):\n%s", args, errOut)
			require.Contains(t, errOut, "kwire: conn 1 correlation 1 request: "+noteV, args)
			require.Contains(t, errOut, "decoded v"+v+" with the v13 layout, the newest")
			require.NotContains(t, errOut, "skipped", args)
			require.NotContains(t, errOut, "guessed", args)
			if args[0] == "--summary" {
				require.Regexp(t, `\n\s+Metadata\s+v`+v+`×3\s+3\s+0\s+`, out)
				continue
			}
			outLines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Len(t, outLines, 3, out)
			for _, l := range outLines {
				require.True(t, json.Valid([]byte(l)), l)
				require.Contains(t, l, `"apiVersion":`+v)
				require.Contains(t, l, `"paired":true`)
			}
		}
	}
}

// TestNewerVersionSaidByProxy: kwire proxy says, as kwire batch and
// kwire pcap do, once a run for each API and version, on standard
// error, that an exchange was decoded at a version newer than kwire
// knows, naming the first exchange shown that was; it said nothing of
// it, only each side's warning. Once a run, not once a connection: what
// kwire does not know is the same on every connection, and a proxy left
// running would say it again at every client's reconnect. Two
// connections here, each a ListGroups exchange at a newer version (the
// newest plus one; v99), then one at the newest.
func TestNewerVersionSaidByProxy(t *testing.T) {
	hi := int(schema.ByKey(schema.KeyListGroups).Request.Valid.Hi)
	for _, ver := range []int{hi + 1, 99} {
		next := strconv.Itoa(ver)
		note := "ListGroups v" + next + " is newer than kwire knows: it knows v0-" + strconv.Itoa(hi)
		newer := exampleFrame(t, "ListGroups", hi, false, 1)
		binary.BigEndian.PutUint16(newer[6:], uint16(ver)) // the header's version
		script := [][2][]byte{
			{newer, exampleFrame(t, "ListGroups", hi, true, 1)},
			{exampleFrame(t, "ListGroups", hi, false, 2), exampleFrame(t, "ListGroups", hi, true, 2)},
		}
		for _, flags := range [][]string{nil, {"--summary"}, {"--format", "tree"}} {
			out, errOut, code := proxyScript(t, flags, 2, script)
			require.Equal(t, 0, code, errOut)
			require.Equal(t, 1, strings.Count(errOut, note), "said once a run (%v):\n%s", flags, errOut)
			require.Regexp(t, `kwire: conn \d+ correlation 1 request: `+regexp.QuoteMeta(note), errOut, flags)
			require.Contains(t, errOut, "decoded v"+next+" with the v"+strconv.Itoa(hi)+" layout, the newest", flags)
			require.Less(t, strings.Index(errOut, note), strings.Index(errOut, "version "+next+" is newer than any known"), "before the side's warning (%v)", flags)
			if flags == nil {
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				require.Len(t, lines, 4, out)
				for i, l := range lines {
					require.True(t, json.Valid([]byte(l)), l)
					require.Equal(t, i%2 == 0, strings.Contains(l, `"apiVersion":`+next), l)
				}
			}
		}
	}
}
