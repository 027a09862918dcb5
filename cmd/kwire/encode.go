package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"

	"github.com/kwire/kwire/codec"
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
	// One JSON value, or several one after another (NDJSON).
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	status, n := 0, 0
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			fail(e, "invalid JSON: %v", err)
			return 1
		}
		n++
		b, err := codec.Encode(nil, v, codec.EncodeOptions{NoSizePrefix: *noSize})
		if err != nil {
			fail(e, "%v", err)
			status = 1
			continue
		}
		io.WriteString(e.stdout, hex.EncodeToString(b)+"\n")
	}
	if n == 0 {
		fail(e, "no JSON given")
		return 2
	}
	return status
}
