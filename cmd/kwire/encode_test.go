package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec"
)

// apiVersionsV3JSON is apiVersionsV3 as value JSON, on one line.
const apiVersionsV3JSON = `{"apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}`

// TestEncodeDashIsStandardInput: "-" reads standard input where it
// stands among the arguments, as kwire log, pcap and check take it, not
// as JSON; alone it is as no argument; twice is misuse.
func TestEncodeDashIsStandardInput(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"encode", "-"}, []byte(apiVersionsV3JSON+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, apiVersionsV3+"\n", out)
	require.Empty(t, errOut)

	// Among files, standard input is an input of its own, named "-".
	f := filepath.Join(t.TempDir(), "a.json")
	require.NoError(t, os.WriteFile(f, []byte(apiVersionsV3JSON+"\n"), 0o644))
	out, errOut, code = runCLI(t, []string{"encode", f, "-"}, []byte(`{"apiKey":18,"apiVersion":3,"body":{"nope":1}}`+"\n"))
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2)
	require.Equal(t, apiVersionsV3, lines[0])
	require.True(t, strings.HasPrefix(lines[1], `{"file":"-","line":1,"error":{"path":"body.nope"`), lines[1])
	require.Contains(t, errOut, "kwire: -: line 1: body.nope: unknown field")

	_, errOut, code = runCLI(t, []string{"encode", "-", "-"}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "kwire: - is given twice: standard input is read once\n", errOut)
}

// TestEncodeKwireExampleOutput: kwire example prints a frame's hex, then
// its JSON; kwire encode passes over that first line, saying so, and
// encodes the JSON (a user who saved an example to edit it gets the
// edited frame). Hex anywhere else is one error that says it is hex.
func TestEncodeKwireExampleOutput(t *testing.T) {
	ex, errOut, code := runCLI(t, []string{"example", "Produce"}, nil)
	require.Equal(t, 0, code, errOut)
	hexLine, _, _ := strings.Cut(ex, "\n")
	out, errOut, code := runCLI(t, []string{"encode"}, []byte(ex))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, hexLine+"\n", out)
	require.Equal(t, "kwire: line 1: a frame's hex, passed over (kwire example prints it above its JSON); the JSON after it is encoded\n", errOut)

	// Hex alone: one error, on standard error as any lone document's.
	out, errOut, code = runCLI(t, []string{"encode"}, []byte(hexLine+"\n"+hexLine+"\n"))
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "kwire: line 1: hex, not JSON: kwire encode reads the JSON of a frame; kwire decode reads its hex\n", errOut)

	// Hex after JSON: one error in its place.
	out, errOut, code = runCLI(t, []string{"encode"}, []byte(apiVersionsV3JSON+"\n"+apiVersionsV3+"\n"+apiVersionsV3JSON+"\n"))
	require.Equal(t, 1, code)
	require.Equal(t, apiVersionsV3+"\n"+`{"line":2,"error":{"path":"","message":"hex, not JSON: kwire encode reads the JSON of a frame; kwire decode reads its hex"}}`+"\n"+apiVersionsV3+"\n", out)
	require.Equal(t, "kwire: line 2: hex, not JSON: kwire encode reads the JSON of a frame; kwire decode reads its hex\nkwire: 1 of 3 lines failed\n", errOut)

	// A line of decimal digits is a number, not hex.
	out, _, code = runCLI(t, []string{"encode"}, []byte("12345678\n"+apiVersionsV3JSON+"\n"))
	require.Equal(t, 1, code)
	require.True(t, strings.HasPrefix(out, `{"line":1,"error":{"path":"","message":"expected an object`), out)
}

// TestEncodeLeadingZeroIsOneError: "00" is no two numbers but one
// error, at the zero.
func TestEncodeLeadingZeroIsOneError(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"encode"}, []byte("00\n"+apiVersionsV3JSON+"\n"))
	require.Equal(t, 1, code)
	require.Equal(t, `{"line":1,"error":{"path":"","message":"invalid JSON at byte 0: a number with a leading zero"}}`+"\n"+apiVersionsV3+"\n", out)
	require.Equal(t, "kwire: line 1: invalid JSON at byte 0: a number with a leading zero\nkwire: 1 of 2 lines failed\n", errOut)
}

// TestEncodeSkipsAByteOrderMark: a UTF-8 BOM at an input's start, as
// editors on Windows save JSON, is dropped, on standard input and in a
// file.
func TestEncodeSkipsAByteOrderMark(t *testing.T) {
	bom := "\xef\xbb\xbf"
	out, errOut, code := runCLI(t, []string{"encode"}, []byte(bom+apiVersionsV3JSON+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, apiVersionsV3+"\n", out)
	f := filepath.Join(t.TempDir(), "a.json")
	require.NoError(t, os.WriteFile(f, []byte(bom+"\n"+apiVersionsV3JSON+"\n{bad\n"), 0o644))
	out, errOut, code = runCLI(t, []string{"encode", f}, nil)
	require.Equal(t, 1, code)
	require.Equal(t, apiVersionsV3+"\n"+`{"line":3,"error":{"path":"","message":"invalid JSON at byte 1: expected a string key"}}`+"\n", out, errOut)
}

// TestEncodeOneDocumentErrorAlone: one document gives its frame or its
// error alone, on standard error, whether it does not parse or does not
// encode; a stream keeps an error object per bad document.
func TestEncodeOneDocumentErrorAlone(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"apiKey" 18}` + "\n", "kwire: line 1: invalid JSON at byte 10: expected ':' after a key\n"},
		{"\n\n" + `{"apiKey" 18}` + "\n", "kwire: line 3: invalid JSON at byte 10: expected ':' after a key\n"},
		// An indented document's error is said on its own line, its byte
		// counted in that line (it was "line 1: ... at byte 40").
		{"{\n  \"apiKey\": 18,\n  \"apiKey\": 19\n}\n", "kwire: line 3: invalid JSON at byte 2: duplicate key \"apiKey\" in an object\n"},
		{"\n  {\n    \"apiKey\" 18\n  }\n", "kwire: line 3: invalid JSON at byte 13: expected ':' after a key\n"},
		{`{"apiKey":18,"apiVersion":3,"body":{"nope":1}}` + "\n", "kwire: body.nope: unknown field; valid here: clientSoftwareName, clientSoftwareVersion, _unknownTaggedFields (at v3)\n"},
	} {
		out, errOut, code := runCLI(t, []string{"encode"}, []byte(c.in))
		require.Equal(t, 1, code, c.in)
		require.Empty(t, out, c.in)
		require.Equal(t, c.err, errOut, c.in)
	}
	f := filepath.Join(t.TempDir(), "a.json")
	require.NoError(t, os.WriteFile(f, []byte("{bad\n"), 0o644))
	out, errOut, code := runCLI(t, []string{"encode", f}, nil)
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "kwire: "+f+": line 1: invalid JSON at byte 1: expected a string key\n", errOut)
}

// TestDecodeAndBatchDashIsStandardInput: "-" is standard input for kwire
// decode (in its place among other inputs, read once) and kwire batch, as
// for encode, log, pcap and check.
func TestDecodeAndBatchDashIsStandardInput(t *testing.T) {
	alone, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson"}, []byte(apiVersionsV3+"\n"))
	require.Equal(t, 0, code, errOut)
	out, errOut, code := runCLI(t, []string{"decode", "--format", "ndjson", "-"}, []byte(apiVersionsV3+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, alone, out)
	require.Contains(t, out, `"apiKey":18`)

	// Between two inline frames: three frames, standard input's second.
	out, errOut, code = runCLI(t, []string{"decode", "--format", "ndjson", apiVersionsV3, "-", apiVersionsV3}, []byte(apiVersionsV3+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Len(t, strings.Split(strings.TrimSpace(out), "\n"), 3)

	_, errOut, code = runCLI(t, []string{"decode", "-", "-"}, nil)
	require.Equal(t, 2, code)
	require.Equal(t, "kwire: - is given twice: standard input is read once\n", errOut)

	alone, errOut, code = runCLI(t, []string{"batch"}, []byte(apiVersionsV3+"\n"))
	require.Equal(t, 0, code, errOut)
	out, errOut, code = runCLI(t, []string{"batch", "-"}, []byte(apiVersionsV3+"\n"))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, alone, out)
}

// TestEncodeAnnotated: kwire decode --format annotated's output encodes
// back to the frame (it failed as "buffers: unknown field"), an edited
// value encoded as edited, indented or one document a line; annotated
// JSON that does not hold its frame whole is refused with what to pass
// instead, alone or in a stream, exit status 1.
func TestEncodeAnnotated(t *testing.T) {
	ann, errOut, code := runCLI(t, []string{"decode", "--format", "annotated", apiVersionsV3}, nil)
	require.Equal(t, 0, code, errOut)
	out, errOut, code := runCLI(t, []string{"encode"}, []byte(ann))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, apiVersionsV3+"\n", out)
	require.Empty(t, errOut)

	edited := strings.Replace(ann, `"value":"1.0"`, `"value":"1.0.1"`, 1)
	out, errOut, code = runCLI(t, []string{"encode"}, []byte(edited+ann))
	require.Equal(t, 0, code, errOut)
	want, errOut, code := runCLI(t, []string{"encode", strings.Replace(apiVersionsV3JSON, `"1.0"`, `"1.0.1"`, 1)}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, want+apiVersionsV3+"\n", out)

	cut := `{"direction":"request","apiKey":18,"apiVersion":3,"buffers":[40],"root":{"name":"frame","role":"frame","children":[{"name":"trailing","role":"trailing","type":"bytes"}]}}`
	hint := "annotated JSON (kwire decode --format annotated) that cannot be encoded: root.children[0] (trailing): bytes the decoder could not read as fields, which annotated JSON holds only as a span; pass value JSON instead, as kwire decode prints it by default or with --format ndjson"
	out, errOut, code = runCLI(t, []string{"encode"}, []byte(cut+"\n"))
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "kwire: "+hint+"\n", errOut)

	out, errOut, code = runCLI(t, []string{"encode"}, []byte(ann+cut+"\n"))
	require.Equal(t, 1, code)
	require.Equal(t, apiVersionsV3+"\n"+`{"line":2,"error":{"path":"","message":`+strconv.Quote(hint)+"}}\n", out)
	require.Equal(t, "kwire: line 2: "+hint+"\nkwire: 1 of 2 lines failed\n", errOut)
}

// A line of kwire log's JSON that stands for zeros (a zero tail, an
// index's unused space) asks in a few dozen bytes for up to 256 MiB of
// them: kwire encode writes them in pieces. Held whole, as bytes, hex and
// a string, the two lines below cost 1.8 GB of memory; written in pieces,
// a small process's worth. The hex is what the bytes give.
func TestEncodeLogZerosInPieces(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"encode"}, []byte(`{"kind":"tail","zero":true,"size":3}
{"kind":"timeindex-unused","count":2}
{"kind":"index-unused","count":1}`))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "000000\n"+strings.Repeat("00", 24)+"\n"+strings.Repeat("00", 8)+"\n", out)
	// One document alone, a piece and a little over.
	out, errOut, code = runCLI(t, []string{"encode"}, []byte(`{"kind":"tail","zero":true,"size":32769}`))
	require.Equal(t, 0, code, errOut)
	require.Equal(t, strings.Repeat("00", 32769)+"\n", out)

	file := filepath.Join(t.TempDir(), "zeros.ndjson")
	require.NoError(t, os.WriteFile(file, []byte(`{"kind":"tail","zero":true,"size":268435456}
{"kind":"index-unused","count":33554432}
`), 0o644))
	helper := filepath.Join(t.TempDir(), "maxrss")
	b, err := exec.Command("go", "build", "-o", helper, "./testdata/maxrss").CombinedOutput()
	require.NoError(t, err, string(b))
	kib := peakRSS(t, helper, kwireBin, "encode", file)
	t.Logf("peak RSS: %d KiB for 512 MiB of zeros", kib)
	require.Less(t, kib, int64(64<<10))
}

// A torn tail in preallocated space carries its bytes up to its zeros,
// and its size counts the zeros after them: up to 256 MiB asked for by a
// line of a few hundred bytes. kwire encode writes them in pieces after
// the bytes, in every form, as one frame; it held them whole as bytes,
// then as hex, some 768 MiB for the line below.
func TestEncodeTornTailZerosInPieces(t *testing.T) {
	line := func(head []byte, zeros int) string {
		return `{"kind":"tail","position":100,"size":` + strconv.Itoa(len(head)+zeros) + `,"torn":true,"zeroFrom":` + strconv.Itoa(100+len(head)) +
			`,"bytes":"` + base64.StdEncoding.EncodeToString(head) + `"}`
	}
	for _, c := range []struct{ head, zeros int }{{5, 1}, {5, 100000}, {24577, 3}, {24576, 24576}, {70000, 49151}} {
		head := bytes.Repeat([]byte{7, 1, 2}, c.head/3+1)[:c.head]
		want := append(append([]byte(nil), head...), make([]byte, c.zeros)...)
		l := line(head, c.zeros)
		out, errOut, code := runCLI(t, []string{"encode", "--as", "binary", l}, nil)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, want, []byte(out), "%+v", c)
		out, errOut, code = runCLI(t, []string{"encode", "--as", "base64", l}, nil)
		require.Equal(t, 0, code, errOut)
		require.Equal(t, base64.StdEncoding.EncodeToString(want)+"\n", out, "%+v", c)
		out, errOut, code = runCLI(t, []string{"encode"}, []byte(l+"\n"+l+"\n"))
		require.Equal(t, 0, code, errOut)
		require.Equal(t, strings.Repeat(hex.EncodeToString(want)+"\n", 2), out, "%+v", c)
	}

	file := filepath.Join(t.TempDir(), "torn.ndjson")
	require.NoError(t, os.WriteFile(file, []byte(line([]byte("what was written of the batch"), 256<<20)+"\n"), 0o644))
	helper := filepath.Join(t.TempDir(), "maxrss")
	b, err := exec.Command("go", "build", "-o", helper, "./testdata/maxrss").CombinedOutput()
	require.NoError(t, err, string(b))
	kib := peakRSS(t, helper, kwireBin, "encode", file)
	t.Logf("peak RSS: %d KiB for a torn tail of 256 MiB of zeros", kib)
	require.Less(t, kib, int64(64<<10))
}

// kwire encode reads a pipe as its documents come: each frame is written
// once its document is read (the first once the second is, which says
// the input is a stream), not when the input ends, whether NDJSON or
// indented, and a document split across reads is read whole.
func TestEncodeStreamsAPipe(t *testing.T) {
	doc := `{"apiKey":18,"apiVersion":3,"header":{"correlationId":%d,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}`
	indented := "{\n  \"apiKey\": 18,\n  \"apiVersion\": 3,\n  \"header\": {\"correlationId\": %d, \"clientId\": \"kwire\"},\n  \"body\": {\"clientSoftwareName\": \"kwire\", \"clientSoftwareVersion\": \"1.0\"}\n}"
	_, stdin, lines, stderr := startPiped(t, "encode", "-")
	next := func(what string) string {
		select {
		case l, ok := <-lines:
			require.True(t, ok, "kwire ended before %s; stderr: %s", what, stderr.String())
			return l
		case <-time.After(30 * time.Second):
			t.Fatalf("no line for %s while the input is open; stderr: %s", what, stderr.String())
		}
		return ""
	}
	frame := func(id int) string {
		b, err := codec.Encode(nil, []byte(fmt.Sprintf(doc, id)), codec.EncodeOptions{})
		require.NoError(t, err)
		return hex.EncodeToString(b)
	}
	fmt.Fprintf(stdin, doc+"\n"+doc+"\n", 1, 2)
	require.Equal(t, frame(1), next("the first frame"))
	require.Equal(t, frame(2), next("the second frame"))
	// The third, indented, in two writes that split a line.
	third := fmt.Sprintf(indented, 3)
	io.WriteString(stdin, third[:40])
	io.WriteString(stdin, third[40:]+"\n")
	require.Equal(t, frame(3), next("the third frame"))
	fmt.Fprintf(stdin, doc+"\n", 4)
	require.Equal(t, frame(4), next("the fourth frame"))
	require.NoError(t, stdin.Close())
	_, ok := <-lines
	require.False(t, ok)
}

// An input with no JSON in it (an empty file, a blank pipe) fails as an
// input kwire decode finds empty fails: exit 1, the file named. It was
// exit 2, misuse, and named no file.
func TestEncodeEmptyInput(t *testing.T) {
	f := filepath.Join(t.TempDir(), "empty.json")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	out, errOut, code := runCLI(t, []string{"encode", f}, nil)
	require.Equal(t, 1, code, errOut)
	require.Empty(t, out)
	require.Equal(t, "kwire: "+f+": no JSON given\n", errOut)
	_, decErr, decCode := runCLI(t, []string{"decode", f}, nil)
	require.Equal(t, decCode, code, decErr)

	out, errOut, code = runCLI(t, []string{"encode"}, []byte("\n\n"))
	require.Equal(t, 1, code, errOut)
	require.Empty(t, out)
	require.Equal(t, "kwire: no JSON given\n", errOut)
}

// An apiName no API has names the API meant, as --api and a batch line's
// "api" do: "unknown API "ApiVersion"" alone left the user to find the
// missing s in kwire apis' hundred lines.
func TestEncodeUnknownAPINameSaysTheNearest(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"encode", `{"apiName":"ApiVersion","apiVersion":3,"body":{}}`}, nil)
	require.Equal(t, 1, code)
	require.Empty(t, out)
	require.Equal(t, "kwire: apiName: unknown API \"ApiVersion\" (did you mean ApiVersions? kwire apis lists them)\n", errOut)
	out, _, code = runCLI(t, []string{"encode"}, []byte(`{"apiName":"Metdata","apiVersion":3,"body":{}}`+"\n"+`{"apiName":"Zzzz","apiVersion":3,"body":{}}`+"\n"))
	require.Equal(t, 1, code)
	require.Equal(t, `{"line":1,"error":{"path":"apiName","message":"unknown API \"Metdata\" (did you mean Metadata? kwire apis lists them)"}}`+"\n"+
		`{"line":2,"error":{"path":"apiName","message":"unknown API \"Zzzz\" (run kwire apis)"}}`+"\n", out)
}
