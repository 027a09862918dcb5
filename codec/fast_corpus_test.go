package codec

import (
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// Every kmsg-random frame of the differential test reads the same both
// ways: records (random bytes, so mostly warnings and errors) left as
// bytes and decoded.
func TestFastPathKmsgRandom(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	n := 0
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Request
			if response {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				msg := kmsgFor(api.Key, response)
				if msg == nil {
					continue
				}
				if req := kmsgFor(api.Key, false); v > req.(interface{ MaxVersion() int16 }).MaxVersion() {
					continue
				}
				for round := 0; round < 2; round++ {
					msg := kmsgFor(api.Key, response)
					fillRandom(reflect.ValueOf(msg).Elem(), rnd, 0)
					msg.SetVersion(v)
					b := frameFor(api, v, response, msg.AppendTo(nil))
					o := Options{Response: response, APIKey: api.Key, Version: v}
					bothPaths(t, b, o)
					o.raw = true // nothing nested decoded, kwire's keys kept
					bothPaths(t, b, o)
					n++
				}
			}
		}
	}
	t.Logf("%d random frames", n)
	require.Greater(t, n, 1000)
}

// frameFor puts a body behind its size and header (correlation id 7,
// client id "kwire").
func frameFor(api *schema.API, v int16, response bool, body []byte) []byte {
	m := api.Request
	if response {
		m = api.Response
	}
	hv := m.HeaderVersion(v)
	b := []byte{0, 0, 0, 0}
	if !response {
		b = append(b, byte(api.Key>>8), byte(api.Key), byte(v>>8), byte(v))
	}
	b = append(b, 0, 0, 0, 7)
	if !response && hv >= 1 {
		b = append(b, 0, 5, 'k', 'w', 'i', 'r', 'e')
	}
	if (!response && hv >= 2) || (response && hv >= 1) {
		b = append(b, 0)
	}
	b = append(b, body...)
	n := len(b) - 4
	b[0], b[1], b[2], b[3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	return b
}

// Every fuzz corpus entry (FuzzDecode's as they are; the records fuzzers'
// as a Produce request's records) reads the same both ways, under the
// fuzzer's limits and under tight ones.
func TestFastPathCorpora(t *testing.T) {
	cases := readCorpus(t, filepath.Join("testdata", "fuzz", "FuzzDecode"))
	cases = append(cases, recordsCorpus(t)...)
	for _, c := range cases {
		o := Options{Response: c.response, APIKey: c.key, Version: c.ver}
		for _, lim := range []Limits{{MaxNodes: 1 << 16}, {MaxNodes: 40, MaxDecompressed: 64, MaxRecordNesting: 1}, {MaxWork: 200}} {
			o.Limits = lim
			for _, m := range jsonModes {
				bothPaths(t, c.b, inMode(o, m))
			}
		}
	}
	t.Logf("%d corpus frames", len(cases))
}
