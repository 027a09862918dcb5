package main

import (
	"encoding/hex"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/jsontext"
)

// runExample prints the example frame of an API, version and direction as
// hex, then as value JSON: the frames the docs site draws. The JSON is
// what kwire decode prints for that hex: record keys and values read as
// decode reads them by default (--payloads decoded, no schemas).
func runExample(e *env, args []string) int {
	api, v, response, code := messageArgs(e, "example", args, "kwire example ApiVersions", "kwire example Produce --version 0 --request", "kwire example Fetch --version 4 --response")
	if code >= 0 {
		return code
	}
	b, err := codec.ExampleFrame(api, v, response)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	pf := payloadFlags{mode: "decoded"}
	hook, err := pf.hook(e.stderr)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	o := codec.Options{Response: response, APIKey: api.Key, Version: v}
	pf.setOptions(&o, hook, false)
	f, err := codec.Decode(b, o)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	e.stdout.Write(append([]byte(hex.EncodeToString(b)), '\n'))
	e.stdout.Write(append(jsontext.Indent(nil, f.AppendJSON(nil)), '\n'))
	return 0
}
