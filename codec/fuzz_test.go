package codec

import (
	"bytes"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// seedFrames adds the example frames of a spread of APIs and versions.
func seedFrames(add func(b []byte, response bool, key, version int16)) {
	for _, name := range []string{"Produce", "Fetch", "Metadata", "ApiVersions", "JoinGroup", "CreateTopics", "DescribeCluster", "ConsumerGroupHeartbeat"} {
		api := schema.ByName(name)
		for _, v := range []int16{api.Request.Valid.Lo, api.Request.Valid.Hi} {
			for _, resp := range []bool{false, true} {
				if b, err := ExampleFrame(api, v, resp); err == nil {
					add(b, resp, api.Key, v)
				}
			}
		}
	}
}

// FuzzDecode: no input panics; what decodes cleanly re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	seedFrames(func(b []byte, response bool, key, version int16) { f.Add(b, response, key, version) })
	f.Fuzz(func(t *testing.T, b []byte, response bool, key, version int16) {
		fr, err := Decode(b, Options{Response: response, APIKey: key, Version: version, Limits: Limits{MaxNodes: 1 << 16}})
		if fr == nil || fr.Root == nil || fr.Root.End != len(b) {
			t.Fatal("no root covering the input")
		}
		js := fr.AppendJSON(nil)
		if err != nil || fr.Assumed {
			return
		}
		requireTagsAsCarried(t, fr)
		clean := true
		tree.Walk(fr.Root, func(n *tree.Node) bool {
			clean = clean && len(n.Warnings) == 0
			return clean
		})
		if !clean {
			return
		}
		again, err := Encode(nil, js, EncodeOptions{})
		if err != nil {
			t.Fatalf("decoded cleanly but does not encode: %v\n%s", err, js)
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("round trip differs\nin  %x\nout %x\n%s", b, again, js)
		}
	})
}

// FuzzEncodeJSON: no JSON panics the encoder; what it encodes decodes and re-encodes the same.
func FuzzEncodeJSON(f *testing.F) {
	seedFrames(func(b []byte, response bool, key, version int16) {
		if fr, err := Decode(b, Options{Response: response, APIKey: key, Version: version}); err == nil {
			f.Add(fr.AppendJSON(nil))
		}
	})
	f.Add([]byte(`{"apiKey":18,"apiVersion":3,"body":{"clientSoftwareName":"a","_unknownTaggedFields":[{"tag":3,"data":"AA=="}]}}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		b, err := Encode(nil, js, EncodeOptions{})
		if err != nil {
			return
		}
		v, _ := parseJSON(js)
		env := v.(map[string]any)
		response := env["direction"] == "response"
		var key, version int16
		if response {
			h, _ := ParseRequestHeader(append([]byte{0, 0, 0, 0}, b[4:]...), Options{})
			_ = h
			api := schema.ByName(jsonName(env))
			if api == nil {
				return
			}
			key = api.Key
			vv, _ := v.(map[string]any)["apiVersion"].(interface{ String() string })
			if vv == nil {
				return
			}
			n, ok := atoi16(vv.String())
			if !ok {
				return
			}
			version = n
		}
		fr, err := Decode(b, Options{Response: response, APIKey: key, Version: version})
		if err != nil {
			t.Fatalf("encoded bytes do not decode: %v\n%s\n%x", err, js, b)
		}
		requireTagsAsCarried(t, fr)
		again, err := Encode(nil, fr.AppendJSON(nil), EncodeOptions{})
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("re-encoding differs: %v\n%x\n%x", err, b, again)
		}
	})
}

func jsonName(env map[string]any) string {
	if k, ok := env["apiKey"].(interface{ String() string }); ok {
		return k.String()
	}
	s, _ := env["apiName"].(string)
	return s
}

func atoi16(s string) (int16, bool) {
	n := 0
	if s == "" || len(s) > 5 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return int16(n), n <= 32767
}
