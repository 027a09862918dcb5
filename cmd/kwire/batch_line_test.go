package main

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// TestLineErrorEscapesAsEncodingJSON: a batch line's error object escapes
// its strings as encoding/json did when it wrote them (<, > and &,
// U+2028 and U+2029, invalid UTF-8, quotes, control characters), now that
// jsontext.Writer writes it. (\b and \f differ: encoding/json writes them
// short, jsontext as \u0008 and \u000c; both are the same JSON string.)
func TestLineErrorEscapesAsEncodingJSON(t *testing.T) {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for _, s := range []string{"", "plain", `a "quoted" \ path`, "<script>&amp;</script>", "line\nbreak\ttab\rret\x00\x1f\x7f",
		"\u2028\u2029", "caf\xc3\xa9 \xff\xfe bad", "emoji \U0001F600", "nbsp\u00a0"} {
		de := &codec.DecodeError{Offset: 7, Path: "body." + s, Expected: "x" + s, Found: s + "y"}
		got := string(lineError(nil, 3, de, s))
		want := `{"line":3,"error":{"message":` + q(s) + `,"offset":7,"path":` + q(de.Path) + `,"expected":` + q(de.Expected) + `,"found":` + q(de.Found) + `}}`
		require.Equal(t, want, got, strconv.Quote(s))
		require.True(t, json.Valid([]byte(got)))
		require.Equal(t, `{"line":3,"error":{"message":`+q(s)+`}}`, string(lineError(nil, 3, nil, s)))
	}
}

// TestBatchLineKeepsPartialValue: a line whose frame fails partway (a
// Produce v13 request cut at 150 bytes, in its records, as a snap length cuts
// one) gets, beside its error, "partial": the value JSON as far as the
// frame decoded, as kwire decode prints it before its error and as the
// API's "partial" holds it, in Kafka's form too with --kafka; whether the
// line says its direction or not.
func TestBatchLineKeepsPartialValue(t *testing.T) {
	full, err := codec.ExampleFrame(schema.ByName("Produce"), 13, false)
	require.NoError(t, err)
	cut := hex.EncodeToString(full[:150])
	for _, flags := range [][]string{nil, {"--kafka"}} {
		want, errOut, code := runCLI(t, append([]string{"decode", "--format", "ndjson"}, append(flags, cut)...), nil)
		require.Equal(t, 1, code)
		require.Contains(t, want, `"apiName":"Produce","apiVersion":13`)
		for _, line := range []string{cut, `{"hex":"` + cut + `","direction":"request"}`} {
			out, _, code := runCLI(t, append([]string{"batch"}, flags...), []byte(line+"\n"))
			require.Equal(t, 1, code)
			var got struct {
				Line  int `json:"line"`
				Error struct {
					Message string `json:"message"`
					Path    string `json:"path"`
				} `json:"error"`
				Partial json.RawMessage `json:"partial"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &got), out)
			require.Equal(t, 1, got.Line)
			require.Equal(t, "kwire: "+got.Error.Message+"\n", errOut[:len(got.Error.Message)+8], "the error decode gives")
			require.NotEmpty(t, got.Error.Path)
			require.Equal(t, strings.TrimSuffix(want, "\n"), string(got.Partial), "%v %s", flags, line)
		}
	}
	// No partial where nothing was decoded: a line that is not hex.
	out, _, _ := runCLI(t, []string{"batch"}, []byte("zz\n"))
	require.NotContains(t, out, "partial")
}

// TestBatchLineRefusesUnknownAndConflictingMembers: a misspelt member was
// ignored (the line read without it), "hex" silently won over "base64",
// and a JSON array was read as hex ("odd number of hex digits"). Each is
// now the line's error, saying what is wrong.
func TestBatchLineRefusesUnknownAndConflictingMembers(t *testing.T) {
	const frame = "0000000a00000007000000000000"
	for line, want := range map[string]string{
		`{"hex":"` + frame + `","drection":"response","api":"ApiVersions","apiVersion":0}`: `unknown member "drection" in a line object (did you mean direction?)`,
		`{"hex":"` + frame + `","apiversoin":0,"api":18}`:                                  `unknown member "apiversoin" in a line object (did you mean apiVersion?)`,
		`{"hex":"` + frame + `","colour":"red"}`:                                           `unknown member "colour" in a line object (it may have hex, base64, direction, response, request, apiKey, api, apiVersion, version, sizePrefix)`,
		`{"hex":"` + frame + `","base64":"AAAA"}`:                                          `a line object gives its frame as "hex" or as "base64", not both`,
		`{"base64":"AAAA","hex":"` + frame + `"}`:                                          `a line object gives its frame as "hex" or as "base64", not both`,
		`[1,"2"]`: `a JSON line must be an object, not an array (a line is hex, base64, or {"hex":...})`,
	} {
		out, _, code := runCLI(t, []string{"batch"}, []byte(line+"\n"))
		require.Equal(t, 1, code, line)
		var got struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		require.Equal(t, want, got.Error.Message, line)
	}
	// The members it knows, in any case encoding/json matches, still read.
	out, errOut, code := runCLI(t, []string{"batch"}, []byte(`{"hex":"`+frame+`","Direction":"response","api":"ApiVersions","apiVersion":0}`+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"apiName":"ApiVersions"`)
}

// TestBatchSaysADumpIsNoFrameALine: xxd's or hexdump -C's lines piped to
// batch each failed at the size, saying nothing of why; a line read as a
// dump's now says batch wants a frame a line, and what reads a dump.
func TestBatchSaysADumpIsNoFrameALine(t *testing.T) {
	const hint = "a line of a hex dump, not a frame: batch reads one frame per line; use kwire decode for a dump"
	for _, dump := range []string{
		"00000000: 0000 001c 0012 0003 0000 0007 0005 6b77  ..............kw\n" +
			"00000010: 6972 6500 076b 7769 7265 2004 312e 3000  ire..kwire .1.0.\n",
		"00000000  00 00 00 1c 00 12 00 03  00 00 00 07 00 05 6b 77  |..............kw|\n" +
			"00000010  69 72 65 00 07 6b 77 69  72 65 20 04 31 2e 30 00  |ire..kwire .1.0.|\n",
	} {
		out, _, code := runCLI(t, []string{"batch"}, []byte(dump))
		require.Equal(t, 1, code)
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		require.Len(t, lines, 2)
		for i, l := range lines {
			require.Equal(t, `{"line":`+strconv.Itoa(i+1)+`,"error":{"message":"`+hint+`"}}`, l)
		}
	}
	// A line of plain hex that fails says why, as before.
	out, _, _ := runCLI(t, []string{"batch"}, []byte("0000001c0012\n"))
	require.NotContains(t, out, "hex dump")
	require.Contains(t, out, `"path":"size"`)
}

// TestBatchCountsInWords: "1 line decoded", not "1 lines"; --jobs below 0
// is misuse, as any other bad flag value.
func TestBatchCountsInWords(t *testing.T) {
	const req = "0000001b001200030000000700056b7769726500066b7769726504312e3000"
	_, errOut, code := runCLI(t, []string{"batch"}, []byte(req+"\n"))
	require.Equal(t, 0, code)
	require.Equal(t, "kwire: 1 line decoded\n", errOut)
	_, errOut, code = runCLI(t, []string{"batch"}, []byte("zz\n"))
	require.Equal(t, 1, code)
	require.Equal(t, "kwire: 1 of 1 line failed\n", errOut)
	_, errOut, code = runCLI(t, []string{"batch"}, []byte(req+"\nzz\n"))
	require.Equal(t, 1, code)
	require.Equal(t, "kwire: 1 of 2 lines failed\n", errOut)
	for _, cmd := range []string{"batch", "pcap", "check"} {
		out, errOut, code := runCLI(t, []string{cmd, "--jobs", "-1", "frames.hex"}, nil)
		require.Equal(t, 2, code, "%s: %s", cmd, errOut)
		require.Empty(t, out)
		require.Equal(t, "kwire: --jobs must not be negative, not -1\n", errOut, cmd)
	}
}

// TestBatchLineDirectionContradicted: a line object whose members say
// both directions ("response":true with "request":true) was read as the
// last one said, silently; it is the line's error, naming both, whichever
// reader takes the line (scanLine, or encoding/json for one with an
// escape). Members that agree still read. "apiKey" given a name says
// that "api" takes names.
func TestBatchLineDirectionContradicted(t *testing.T) {
	const frame = "0000000a00000007000000000000"
	const says = " contradict each other: a frame is a request or a response"
	for line, want := range map[string]string{
		`{"hex":"` + frame + `","response":true,"request":true}`:                          `"response":true and "request":true` + says,
		`{"hex":"` + frame + `","request":true,"response":true}`:                          `"request":true and "response":true` + says,
		`{"hex":"` + frame + `","direction":"request","response":true}`:                   `"direction":"request" and "response":true` + says,
		`{"hex":"` + frame + `","response":false,"request":false}`:                        `"response":false and "request":false` + says,
		`{"hex":"` + frame + `","response":true,"request":true,"api":"\u0041piVersions"}`: `"response":true and "request":true` + says,
		`{"hex":"` + frame + `","response":true,"apiKey":"ApiVersions","apiVersion":0}`:   `"apiKey": expected an integer, found a string ("api" takes a name: "api":"ApiVersions")`,
	} {
		out, _, code := runCLI(t, []string{"batch"}, []byte(line+"\n"))
		require.Equal(t, 1, code, line)
		var got struct {
			Line  int `json:"line"`
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		require.Equal(t, 1, got.Line)
		require.Equal(t, want, got.Error.Message, line)
	}
	for _, line := range []string{
		`{"hex":"` + frame + `","response":true,"request":false,"api":"ApiVersions","version":0}`,
		`{"hex":"` + frame + `","direction":"response","response":true,"api":"ApiVersions","version":0}`,
		`{"hex":"` + frame + `","direction":"Response","request":false,"api":"Api\u0056ersions","version":0}`,
	} {
		out, errOut, code := runCLI(t, []string{"batch"}, []byte(line+"\n"))
		require.Equal(t, 0, code, "%s: %s", line, errOut)
		require.Contains(t, out, `{"direction":"response","apiKey":18,"apiName":"ApiVersions","apiVersion":0`)
	}
}
