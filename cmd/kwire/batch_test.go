package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/internal/bench/traffic"
)

// TestBatchLineForms: every way a line can name a frame's reading gives the
// same decoding: "api" as a name or a key number (a number or a string),
// "apiKey", "direction" or "response"/"request" booleans, "version" or
// "apiVersion"; a named API without a direction means a response, as
// --api does; lines encoding/json must read (escapes, odd spacing)
// agree with the fast scanner's.
func TestBatchLineForms(t *testing.T) {
	const frame = "0000000a00000007000000000000" // ApiVersions v0 response, no API keys
	lines := []string{
		`{"hex":"` + frame + `","direction":"response","api":"ApiVersions","apiVersion":0}`,
		`{"response":true,"api":18,"version":0,"hex":"` + frame + `"}`,
		`{"request":false,"api":"18","version":0,"hex":"` + frame + `"}`,
		`{"apiKey":18,"apiVersion":0,"hex":"` + frame + `"}`,
		`{"api":"apiversions","version":0,"hex":"` + frame + `"}`,
		`{"api": 18, "version": 0, "hex": "` + frame + `", "direction" : "response"}`,
		`{"api":"Api\u0056ersions","version":0,"hex":"` + frame + `"}`,
		`{"base64":"AAAACgAAAAcAAAAAAAA=","response":true,"api":18,"version":0}`,
		`{"hex":"` + frame + `","direction":"response","api":18,"apiVersion":0,"sizePrefix":true}`,
		`{"hex":"` + frame + `","direction":"Response","api":18,"apiVersion":0}`,
		`{"hex":"` + frame + `","direction":"RESPONSE","api":18,"apiVersion":0}`,
		// The hex read as the line is scanned, and every shape that
		// scan leaves to the full reader: upper case, an escaped digit,
		// white space between bytes, the hex given twice.
		`{"hex":"` + strings.ToUpper(frame) + `","response":true,"api":18,"version":0}`,
		`{"hex":"\u0030` + frame[1:] + `","response":true,"api":18,"version":0}`,
		`{"hex":"` + frame[:8] + ` ` + frame[8:] + `","response":true,"api":18,"version":0}`,
		`{"hex":"ff","hex":"` + frame + `","response":true,"api":18,"version":0}`,
	}
	out, errOut, code := runCLI(t, []string{"batch"}, []byte(strings.Join(lines, "\n")+"\n"))
	require.Equal(t, 0, code, errOut)
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, got, len(lines))
	for i, g := range got {
		require.Equal(t, got[0], g, "line %d: %s", i+1, lines[i])
	}
	require.Contains(t, got[0], `"direction":"response","apiKey":18,"apiName":"ApiVersions","apiVersion":0`)

	for _, bad := range []struct{ line, msg string }{
		{`{"api":"NoSuchAPI","hex":"` + frame + `"}`, `unknown API \"NoSuchAPI\"`},
		{`{"api":true,"hex":"` + frame + `"}`, `\"api\" must be a name or a key number`},
		{`{"direction":"sideways","hex":"` + frame + `"}`, `\"direction\" must be`},
		{`{"direction":"respons3","hex":"` + frame + `"}`, `\"direction\" must be`},
		{`{"direction":"respo\u004ese ","hex":"` + frame + `"}`, `\"direction\" must be`},
		{`{"api":18}`, `needs \"hex\" or \"base64\"`},
		{`{"api":18,"version":0,"hex":"` + frame[1:] + `"}`, `odd`},
		{`{"api":18,"version":0,"hex":"` + frame[:4] + "\x01" + frame[4:] + `"}`, `invalid JSON at byte 33: control character in a string`},
	} {
		out, _, code := runCLI(t, []string{"batch"}, []byte(bad.line+"\n"))
		require.Equal(t, 1, code, bad.line)
		require.Contains(t, out, `{"line":1,"error":{"message":`, bad.line)
		require.Contains(t, out, bad.msg, bad.line)
	}
}

// TestBatchOrderManyLines: 3,000 lines of realistic frames (20 MB, 80 chunks), with bad and
// blank lines among them, decoded by one worker or by four: the same
// bytes, one output line per non-blank input line in input order, and
// error objects giving each line's number in the file (blank lines
// counted), across the chunks the input is read in.
func TestBatchOrderManyLines(t *testing.T) {
	var good bytes.Buffer
	_, err := traffic.WriteNDJSON(&good, 3000)
	require.NoError(t, err)
	in := strings.Split(strings.TrimSuffix(good.String(), "\n"), "\n")
	var input strings.Builder
	badAt := map[int]int{} // output line: its line in the file
	n, fileLine := 0, 0
	for i, l := range in {
		if i%97 == 0 {
			input.WriteString("\n   \n") // blank lines: no output, but numbered
			fileLine += 2
		}
		input.WriteString(l + "\n")
		n++
		fileLine++
		if i%101 == 0 {
			input.WriteString("zz not a frame\n")
			n++
			fileLine++
			badAt[n] = fileLine
		}
	}
	file := filepath.Join(t.TempDir(), "lines.ndjson")
	require.NoError(t, os.WriteFile(file, []byte(input.String()), 0o644))
	one, _, code := runCLI(t, []string{"batch", "--jobs", "1", file}, nil)
	require.Equal(t, 1, code)
	four, errOut, code := runCLI(t, []string{"batch", "--jobs", "4", file}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, strconv.Itoa(len(badAt))+" of "+strconv.Itoa(n)+" lines failed")
	require.Equal(t, one, four)

	out := strings.Split(strings.TrimSuffix(one, "\n"), "\n")
	require.Len(t, out, n)
	k := 0
	for i, l := range out {
		if at, bad := badAt[i+1]; bad {
			require.True(t, strings.HasPrefix(l, `{"line":`+strconv.Itoa(at)+`,"error"`), "line %d: %s", at, l)
			continue
		}
		var src struct {
			Direction  string
			APIKey     int16
			APIVersion int16
		}
		require.NoError(t, json.Unmarshal([]byte(in[k]), &src))
		k++
		var dec struct {
			Direction  string
			APIKey     int16
			APIVersion int16
			Body       json.RawMessage
		}
		require.NoError(t, json.Unmarshal([]byte(l), &dec), l)
		require.Equal(t, src.Direction, dec.Direction, "line %d", i+1)
		require.Equal(t, src.APIKey, dec.APIKey, "line %d", i+1)
		require.Equal(t, src.APIVersion, dec.APIVersion, "line %d", i+1)
		require.NotEmpty(t, dec.Body)
	}
	require.Equal(t, len(in), k)
}

// checkHexValue decodes b, a value ending at its first quote, with
// hexValue (32 digits a step in vectors where the machine has them, then
// sixteen at a time, then one pair at a time) and with its table loops
// alone: both agree with encoding/hex, and stop at the quote after an
// even number of digits only.
func checkHexValue(t testing.TB, b []byte) {
	n := bytes.IndexByte(b, '"')
	want, err := hex.DecodeString(string(b[:n]))
	whole := func(dst, b []byte) ([]byte, int, bool) { return hexValue(dst, b) }
	loops := func(dst, b []byte) ([]byte, int, bool) {
		return hexPairsFrom(dst, slices.Grow(dst[:0], len(b)/2)[:len(b)/2], b, 0, 0)
	}
	for _, decode := range []func(dst, b []byte) ([]byte, int, bool){whole, loops} {
		got, m, ok := decode(nil, b)
		if err != nil || n%2 != 0 {
			require.False(t, ok, "%q", b)
			continue
		}
		require.True(t, ok, "%q", b)
		require.Equal(t, n, m)
		require.True(t, bytes.Equal(want, got), "%q: %x, want %x", b, got, want)
	}
}

// TestHexValue: hex values of every length to past two vector steps, a
// byte anywhere in a third of them, and every byte value at each of 48
// places across a vector step and a step of sixteen after it.
func TestHexValue(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	digits := "0123456789abcdefABCDEF"
	for range 20000 {
		n := rnd.IntN(150)
		b := make([]byte, n, n+1)
		for i := range b {
			b[i] = digits[rnd.IntN(len(digits))]
		}
		if n > 0 && rnd.IntN(3) == 0 {
			b[rnd.IntN(n)] = byte(rnd.IntN(256)) // any byte, anywhere
		}
		checkHexValue(t, append(b, '"'))
	}
	for at := range 48 {
		for c := range 256 {
			b := []byte(`0123456789abcdefABCDEF0123456789aBcDeF0123456789abcDEF01"`)
			b[at] = byte(c)
			checkHexValue(t, b)
		}
	}
}

// FuzzHexValue: any bytes before a quote decode as encoding/hex says, both
// ways.
func FuzzHexValue(f *testing.F) {
	f.Add([]byte("00ff"))
	f.Add([]byte("0123456789abcdefABCDEF0123456789aBcDeF0123456789abcDEF01"))
	f.Add([]byte("0123456789abcdefABCDEF0123456789aBcDeF0123456789abcDE\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if i := bytes.IndexByte(b, '"'); i >= 0 {
			b = b[:i]
		}
		checkHexValue(t, append(b, '"', '}'))
	})
}

// TestBatchLinesNumberedAsInTheFile: a line's number, in its error object
// and on stderr, is its line in the input, blank lines counted: blank
// lines give no output, so the number is how a user finds the line.
func TestBatchLinesNumberedAsInTheFile(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"batch"}, []byte("\n\nzz\n  \n"+apiVersionsV3+"\n\n{\"hex\":\"00\"}\n"))
	require.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Len(t, lines, 3)
	require.True(t, strings.HasPrefix(lines[0], `{"line":3,"error":`), lines[0])
	require.True(t, strings.HasPrefix(lines[1], `{"direction":"request"`), lines[1])
	require.True(t, strings.HasPrefix(lines[2], `{"line":7,"error":`), lines[2])
	require.Contains(t, errOut, "kwire: 2 of 3 lines failed")
}

// TestBatchLineErrorsInKwiresWords: a line object whose member has the
// wrong type is told so in kwire's words, naming the member and what was
// expected, with none of encoding/json's Go (struct fields, Go types).
func TestBatchLineErrorsInKwiresWords(t *testing.T) {
	for _, c := range []struct{ line, msg string }{
		{`{"apiKey":18,"version":"x","hex":"00"}`, `\"version\": expected an integer, found a string`},
		{`{"apiKey":18,"apiVersion":1.5,"hex":"00"}`, `\"apiVersion\": expected an integer, found the number 1.5`},
		{`{"apiKey":"18","hex":"00"}`, `\"apiKey\": expected an integer, found a string`},
		{`{"hex":["00"]}`, `\"hex\": expected a string, found an array`},
		{`{"sizePrefix":"yes","hex":"00"}`, `\"sizePrefix\": expected true, false or \"auto\", found \"yes\"`},
		{`{"response":{},"hex":"00"}`, `\"response\": expected true or false, found an object`},
		{`{"hex":"0\u0030","api":}`, `invalid JSON at byte 23: `},
	} {
		out, _, code := runCLI(t, []string{"batch"}, []byte(c.line+"\n"))
		require.Equal(t, 1, code, c.line)
		require.True(t, strings.HasPrefix(out, `{"line":1,"error":{"message":"`+c.msg), "%s: %s", c.line, out)
		for _, goWord := range []string{"Go ", "struct", "batchLineJSON", "unmarshal", "of type", "bool"} {
			require.NotContains(t, out, goWord, c.line)
		}
	}
}

// TestBatchLineSizePrefixAuto: a line's sizePrefix may be "auto", as
// /api/decode's may: decided from the bytes, whatever --size says, so a
// file mixing framed and bare frames reads each right.
func TestBatchLineSizePrefixAuto(t *testing.T) {
	const frame = "0000001b001200030000000700056b7769726500066b7769726504312e3000"
	in := `{"hex":"` + frame + `","sizePrefix":"auto"}
{"hex":"` + frame[8:] + `","sizePrefix":"auto"}
`
	for _, size := range []string{"yes", "no", "auto"} {
		out, errOut, code := runCLI(t, []string{"batch", "--size", size}, []byte(in))
		require.Equal(t, 0, code, errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 2)
		require.Equal(t, lines[0], lines[1])
		require.Contains(t, lines[0], `"apiName":"ApiVersions"`)
	}
}
