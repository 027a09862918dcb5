package main

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// The streaming indenter writes what json.Indent(dst, src, "", "  ")
// does, whatever the pieces the JSON arrives in: checked on the value JSON
// of every example frame (escapes, empty objects and arrays, nesting) cut
// at random places.
func TestIndentWriterIsJSONIndent(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	n := 0
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			m := api.Request
			if resp {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				b, err := codec.ExampleFrame(api, v, resp)
				require.NoError(t, err)
				f, err := codec.Decode(b, codec.Options{Response: resp, APIKey: api.Key, Version: v})
				require.NoError(t, err)
				js := f.AppendJSON(nil)
				js = append(js[:len(js)-1], `,"s":"a\"b\\c{[,:]}","e":{},"a":[],"n":[{}]}`...)
				var want bytes.Buffer
				require.NoError(t, json.Indent(&want, js, "", "  "))
				var got bytes.Buffer
				x := indentWriter{w: &got}
				for rest := js; len(rest) > 0; {
					k := min(len(rest), 1+rnd.Intn(40))
					x.Write(rest[:k])
					rest = rest[k:]
				}
				require.NoError(t, x.Close())
				require.Equal(t, want.String(), got.String())
				n++
			}
		}
	}
	t.Logf("%d documents", n)
}

// kwire's package inits do no registry loading: every command starts
// without chroma's lexer and style registries (30 ms and 4.7 MB of
// allocations at init when output.go imported them for terminal colour),
// no package's init allocates as a registry's does (santhosh-tekuri's
// JSON Schema meta-schemas were 1.7 MB, protocompile's standard imports
// 197 KB), and what all inits allocate together stays small. Read from
// Go's init trace of the built binary (one line per package init with
// the bytes it allocated), not from a clock.
func TestInitsLoadNoRegistry(t *testing.T) {
	for _, args := range [][]string{{"apis"}, {"batch"}} {
		cmd := exec.Command(kwireBin, args...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		cmd.Stdin = bytes.NewReader(nil)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Run(), stderr.String())
		total, inits := 0, 0
		for _, line := range strings.Split(stderr.String(), "\n") {
			// init PKG @T ms, C ms clock, B bytes, A allocs
			f := strings.Fields(line)
			if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
				continue
			}
			inits++
			pkg := f[1]
			for _, banned := range []string{"/chroma/v2/lexers", "/chroma/v2/styles"} {
				require.False(t, strings.HasSuffix(pkg, banned), "kwire %v: %s loads its registry at init: %s", args, pkg, line)
			}
			b, err := strconv.Atoi(f[7])
			require.NoError(t, err, line)
			// The largest is protodesc's, 168 KB: it unmarshals the
			// editions defaults, building descriptor.proto's types,
			// in every program that links protocompile.
			require.Less(t, b, 192<<10, "kwire %v: %s allocates like a registry at init: %s", args, pkg, line)
			total += b
		}
		require.Greater(t, inits, 20, "no init trace in:\n%s", stderr.String())
		// 637 KB in all now (4.9 MB with chroma's registries, 2.4 MB
		// with santhosh-tekuri/jsonschema): 222 KB before record
		// payloads, then Protobuf's descriptors and protocompile 294
		// KB, google/jsonschema-go 81 KB, Avro 33 KB.
		require.Less(t, total, 768<<10, "kwire %v: package inits allocate %d bytes in all:\n%s", args, total, stderr.String())
	}
}
