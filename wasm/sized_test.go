//go:build js && wasm

package main

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"syscall/js"
	"testing"
)

// TestDecodeFrameThenMore: pasted bytes holding a whole frame and then
// more (another frame, or one cut short) show that frame, the bytes after
// it in a warning; they were read as one unsized frame, a Produce v28
// request failing in its body.
func TestDecodeFrameThenMore(t *testing.T) {
	const apiVersionsV3 = "0000001b001200030000000700056b7769726500066b7769726504312e3000"
	for _, tail := range []string{apiVersionsV3, "0000001c00120003", "00000000"} {
		b, _ := hex.DecodeString(apiVersionsV3 + tail)
		r := decode(js.Undefined(), []js.Value{bytesValue(b), js.ValueOf(false), js.ValueOf(0), js.ValueOf(0), js.ValueOf("auto")})
		var s struct {
			APIName    string          `json:"apiName"`
			SizePrefix bool            `json:"sizePrefix"`
			Error      json.RawMessage `json:"error"`
			Warnings   []struct {
				Message string `json:"message"`
			} `json:"warnings"`
		}
		summary := r.(map[string]any)["summary"].(string)
		if err := json.Unmarshal([]byte(summary), &s); err != nil {
			t.Fatal(err)
		}
		if s.APIName != "ApiVersions" || !s.SizePrefix || string(s.Error) != "null" || len(s.Warnings) != 1 ||
			!strings.HasSuffix(s.Warnings[0].Message, strconv.Itoa(len(tail)/2)+" bytes after the frame's declared size") {
			t.Errorf("frame + %s: %.400s", tail, summary)
		}
	}
}
