package codec

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// guessText is what a guess says, for comparing the two paths' guesses.
func guessText(g *Guess) string {
	if g == nil {
		return "no guess"
	}
	var s strings.Builder
	fmt.Fprintf(&s, "tried %d cut %v:", g.Tried, g.Cut)
	for _, c := range g.Candidates {
		fmt.Fprintf(&s, " %d/%d%v", c.APIKey, c.Version, c.Versions)
	}
	return s.String()
}

// withSize puts a size prefix before body.
func withSize(body []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// guessInputs are frames for every branch of read: requests, responses
// with and without hints, bad and cut-short sizes, an unknown API key, a
// response no reading fits, a guess the work limit cuts short.
func guessInputs(t *testing.T) map[string][]byte {
	ex := func(key, v int16, resp bool) []byte {
		b, err := ExampleFrame(schema.ByKey(key), v, resp)
		require.NoError(t, err)
		return b
	}
	metaResp := ex(3, 12, true)
	// A request header with API key 999, which no schema has.
	unknownKey := withSize([]byte{0x03, 0xe7, 0, 0, 0, 0, 0, 1, 0xff, 0xff})
	return map[string][]byte{
		"metadata request v12":        ex(3, 12, false),
		"produce request v3":          ex(0, 3, false),
		"metadata response v12":       metaResp,
		"apiversions response 0":      ex(18, 0, true),
		"fetch response v4":           ex(1, 4, true),
		"size too big":                []byte("0000"),
		"size negative":               {0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 1},
		"under 4 bytes":               {0, 0},
		"cut short":                   metaResp[:len(metaResp)-3],
		"trailing bytes":              append(append([]byte(nil), metaResp...), 0, 0),
		"unknown api key":             unknownKey,
		"fits nothing":                withSize([]byte{0}),
		"empty body":                  withSize(nil),
		"just a correlation id":       withSize([]byte{0, 0, 0, 7}),
		"broken request":              brokenMetadataRequest(t, "consumer-billing-1"),
		"broken request, id not text": brokenMetadataRequest(t, "consumer-billing-\xfe"),
		"request cut short":           ex(0, 9, false)[:150],
		"fetch response v1":           ex(1, 1, true),
		"fetch response v3":           ex(1, 3, true),
	}
}

// brokenMetadataRequest is a Metadata v0 request from client id whose
// topic count is negative: a request corrupted in its body.
func brokenMetadataRequest(t *testing.T, id string) []byte {
	b := []byte{0, 3, 0, 0, 0, 0, 0, 7}
	b = binary.BigEndian.AppendUint16(b, uint16(len(id)))
	b = append(b, id...)
	b = append(b, 0xff, 0, 0, 1, 0, 6)
	return withSize(append(b, "orders"...))
}

// guessOptions are the option sets that leave something to guess, and
// one that does not.
var guessOptions = map[string]Options{
	"auto":                      {Auto: true},
	"auto, hints":               {Auto: true, APIKey: 3, Version: 12},
	"response any":              {Response: true, APIKey: Any, Version: Any},
	"response, api key":         {Response: true, APIKey: 3, Version: Any},
	"response, fetch":           {Response: true, APIKey: 1, Version: Any},
	"response, unknown api key": {Response: true, APIKey: 999, Version: Any},
	"response, version":         {Response: true, APIKey: Any, Version: 12},
	"response, version 0":       {Response: true, APIKey: Any, Version: 0},
	"response, no size prefix":  {Response: true, APIKey: Any, Version: Any, NoSizePrefix: true},
	"auto, no size prefix":      {Auto: true, NoSizePrefix: true},
	"response any, little work": {Response: true, APIKey: Any, Version: Any, Limits: Limits{MaxWork: 600}},
	"auto, little work":         {Auto: true, Limits: Limits{MaxWork: 600}},
	"response, known":           {Response: true, APIKey: 3, Version: 12},
}

// Both paths make every decision of read the same way: for frames
// reaching each of its branches, under every option set, the same
// reading, guess, error, JSON and warnings, whether the tree-less walk
// stands or falls back to the tree. The table is checked to reach each
// branch, so a rule added to one path only shows here.
func TestGuessSameOnBothPaths(t *testing.T) {
	reached := map[string]bool{}
	for in, frame := range guessInputs(t) {
		for on, o := range guessOptions {
			b := frame
			if o.NoSizePrefix {
				if len(b) < 4 {
					continue
				}
				b = b[4:]
			}
			t.Run(in+"/"+on, func(t *testing.T) {
				for _, m := range []Options{{}, {Kafka: true}} {
					bothPaths(t, b, inMode(o, m))
				}
				var tdec, fdec Decoder
				f, terr := tdec.Decode(b, o)
				_, info, ferr := fdec.AppendJSON(nil, b, o)
				require.Equal(t, fmt.Sprint(terr), fmt.Sprint(ferr))
				require.Equal(t, guessText(f.Guess), guessText(info.Guess), "Info.Guess")
				if terr == nil {
					require.Equal(t, [3]any{f.Response, f.APIKey, f.Version}, [3]any{info.Response, info.APIKey, info.Version})
				}
				reached[branch(f, o, terr)] = true
			})
		}
	}
	for _, want := range []string{"not guessed", "bad size", "request", "guessed response", "unknown API hint", "request's error", "no reading fits", "search cut short"} {
		require.True(t, reached[want], "no input reaches %q", want)
	}
}

// branch names what read did with a frame, from the tree's result.
func branch(f *Frame, o Options, err error) string {
	msg := fmt.Sprint(err)
	switch {
	case !o.guessing():
		return "not guessed"
	case strings.HasPrefix(msg, "at byte 0 (size)"):
		return "bad size"
	case strings.Contains(msg, "hint for a response"):
		return "unknown API hint"
	case strings.Contains(msg, "before a work limit"):
		return "search cut short"
	case strings.Contains(msg, "read as none"):
		return "no reading fits"
	case f.Guess != nil:
		return "guessed response"
	case err == nil:
		return "request"
	}
	return "request's error"
}

// A request whose reading streams past flushAt and then fails is that
// request's error, not a response to guess; the tree, finding no
// response either, says the same.
func TestAutoBigBrokenRequestStreams(t *testing.T) {
	// Metadata v0: the header, then topics, 1200 names of 1000 bytes,
	// the count saying one more than there are.
	const n, size = 1200, 1000
	body := []byte{0, 3, 0, 0, 0, 0, 0, 7, 0xff, 0xff}
	body = binary.BigEndian.AppendUint32(body, n+1)
	name := bytes.Repeat([]byte("t"), size)
	for range n {
		body = binary.BigEndian.AppendUint16(body, size)
		body = append(body, name...)
	}
	b := withSize(body)
	o := Options{Auto: true}
	var dec Decoder
	f, terr := dec.Decode(b, o)
	require.Error(t, terr)
	require.False(t, f.Response)
	require.Nil(t, f.Guess)
	var out bytes.Buffer
	var fdec Decoder
	info, ferr := fdec.WriteJSON(&out, b, o)
	require.EqualError(t, ferr, terr.Error())
	require.Greater(t, out.Len(), jsontext.FlushAt, "the request's reading was streamed")
	require.True(t, json.Valid(out.Bytes()), "the stream ends as valid JSON")
	require.False(t, info.Response)
	require.Nil(t, info.Guess)
	require.True(t, strings.HasPrefix(out.String(), `{"direction":"request","apiKey":3,`), "the request's reading was written")
}

// Read with Auto, a request whose header is as clients send it (a known
// API at one of its versions, a client id) and whose body is broken is
// that request and its error, unless some response reads from its bytes
// free of doubt: not a response of another API that its bytes happen to
// fit (a Metadata request with a corrupt topic count was read as an
// InitProducerId response, with errorCode 4707 and an unknown tag, at
// confidence 1.00).
func TestAutoReadsABrokenRequestAsTheRequest(t *testing.T) {
	for _, id := range []string{"consumer-billing-1", "consumer-billing-\xfe"} {
		b := brokenMetadataRequest(t, id)
		f, err := Decode(b, Options{Auto: true})
		require.EqualError(t, err, "at byte "+decimal(14+len(id))+" (body.topics): expected a count of -1 or more, found -16777215")
		require.False(t, f.Response)
		require.Nil(t, f.Guess)
		require.Equal(t, int16(3), f.APIKey)
		bothPaths(t, b, Options{Auto: true})
	}
}

// Read with Auto, every example response is a response and every example
// request a request: the request's look (requestHeaded) does not take a
// response for one.
func TestAutoTellsEveryExampleApart(t *testing.T) {
	var dec Decoder
	eachVersion(t, func(t *testing.T, api *schema.API, v int16, resp bool) {
		b, err := ExampleFrame(api, v, resp)
		require.NoError(t, err)
		f, err := dec.Decode(b, Options{Auto: true})
		require.NoError(t, err, "%s v%d response %v", api.Name, v, resp)
		require.Equal(t, resp, f.Response, "%s v%d response %v", api.Name, v, resp)
	})
}
