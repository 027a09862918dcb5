package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strconv"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
)

func runEncode(e *env, args []string) int {
	fs := newFlags(e, "encode", "[flags] [JSON | FILE ...]",
		`kwire encode '{"apiKey":18,"apiVersion":3,"header":{"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}'`,
		"kwire decode --format ndjson frame.bin | kwire encode")
	noSize := fs.Bool("no-size", false, "leave out the 4-byte size prefix")
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	raw, err := readInputs(e, args)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		fail(e, "no JSON given")
		return 2
	}
	opts := codec.EncodeOptions{NoSizePrefix: *noSize}
	// One JSON value (indented or not), or NDJSON: one value a line, one
	// line out per line in, a bad line giving an error object in its place.
	if v, err := jsontext.Parse(raw); err == nil {
		b, err := encodeAny(v, opts)
		if err != nil {
			fail(e, "%v", err)
			return 1
		}
		io.WriteString(e.stdout, hex.EncodeToString(b)+"\n")
		return 0
	}
	lines, failed := 0, 0
	for _, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines++
		v, err := jsontext.Parse(line)
		var b []byte
		if err == nil {
			b, err = encodeAny(v, opts)
		}
		if err != nil {
			failed++
			var ee *codec.EncodeError
			path, msg := "", err.Error()
			if errors.As(err, &ee) {
				path, msg = ee.Path, ee.Msg
			}
			io.WriteString(e.stdout, `{"line":`+strconv.Itoa(lines)+`,"error":{"path":`+strconv.Quote(path)+`,"message":`+strconv.Quote(msg)+"}}\n")
			fail(e, "line %d: %v", lines, err)
			continue
		}
		io.WriteString(e.stdout, hex.EncodeToString(b)+"\n")
	}
	if failed > 0 {
		fail(e, "%d of %d lines failed", failed, lines)
		return 1
	}
	return 0
}
