package codec

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// Golden vectors built by hand, byte by byte, from the framing and header
// grammar of Kafka's protocol guide (kafka-message-schemas/docs/protocol.html,
// "Common Request and Response Structure": RequestOrResponse => Size
// (RequestMessage | ResponseMessage), Size => int32) and the 0.10-era guide in
// shared/seeds (the BNF of ApiVersions and Metadata v0), and for flexible
// versions from KIP-482's rules (compact lengths are unsigned varints of
// length+1; a tagged-field section is a count, then tag, size, payload).
type golden struct {
	name     string
	hex      string // spaces and newlines for reading only
	response bool
	api      int16
	version  int16
	json     string            // the expected value JSON
	spans    map[string][2]int // path -> [start, end)
	prefix   map[string]int    // path -> end of its length or count prefix
}

var goldens = []golden{
	{
		name: "ApiVersions v0 request, header v1 (protocol guide: Size, then api_key api_version correlation_id client_id)",
		hex: `0000000e   size 14
		      0012 0000 00000001   api_key 18, api_version 0, correlation_id 1
		      0004 6b636174        client_id "kcat" (int16 length 4)`,
		json:   `{"direction":"request","apiKey":18,"apiName":"ApiVersions","apiVersion":0,"header":{"requestApiKey":18,"requestApiVersion":0,"correlationId":1,"clientId":"kcat"},"body":{}}`,
		spans:  map[string][2]int{"size": {0, 4}, "header": {4, 18}, "header.clientId": {12, 18}, "body": {18, 18}},
		prefix: map[string]int{"header.clientId": 14},
	},
	{
		name: "Metadata v0 request: [topics] as int32 count and int16-length strings",
		hex: `00000016 0003 0000 0000002a ffff   size 22, Metadata v0, correlation 42, client_id null
		      00000002 0001 61 0003 626262     topics: "a", "bbb"`,
		json:   `{"direction":"request","apiKey":3,"apiName":"Metadata","apiVersion":0,"header":{"requestApiKey":3,"requestApiVersion":0,"correlationId":42,"clientId":null},"body":{"topics":[{"name":"a"},{"name":"bbb"}]}}`,
		spans:  map[string][2]int{"body.topics": {14, 26}, "body.topics[0].name": {18, 21}, "body.topics[1].name": {21, 26}},
		prefix: map[string]int{"body.topics": 18, "body.topics[1].name": 23},
	},
	{
		name: "ApiVersions v3 request, header v2: compact strings and empty tag sections",
		hex: `0000001b 0012 0003 00000007 0005 6b77697265 00   size 27; header v2: client_id stays int16-length, then tags
		      06 6b77697265     client_software_name "kwire" (uvarint 6 = length 5 + 1)
		      04 312e30 00      client_software_version "1.0", body tags`,
		json:   `{"direction":"request","apiKey":18,"apiName":"ApiVersions","apiVersion":3,"header":{"requestApiKey":18,"requestApiVersion":3,"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire","clientSoftwareVersion":"1.0"}}`,
		spans:  map[string][2]int{"header._tagged": {19, 20}, "body.clientSoftwareName": {20, 26}, "body.clientSoftwareVersion": {26, 30}, "body._tagged": {30, 31}},
		prefix: map[string]int{"body.clientSoftwareName": 21},
	},
	{
		name:     "ApiVersions v3 response: header v0 despite flexible body, compact array, tagged field 1",
		response: true, api: 18, version: 3,
		hex: `0000001d 00000007   size 29, correlation_id 7 (response header v0 for ApiVersions)
		      0000 02 0012 0000 0004 00   error 0; api_keys: 1 element {18, 0..4, tags}
		      00000000                   throttle_time_ms 0
		      01 01 08 0000000000000005  one tag: 1 (FinalizedFeaturesEpoch), 8 bytes, 5`,
		json:   `{"direction":"response","apiKey":18,"apiName":"ApiVersions","apiVersion":3,"header":{"correlationId":7},"body":{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0,"finalizedFeaturesEpoch":5}}`,
		spans:  map[string][2]int{"body.apiKeys": {10, 18}, "body._tagged": {22, 33}, "body.finalizedFeaturesEpoch": {23, 33}},
		prefix: map[string]int{"body.apiKeys": 11},
	},
	{
		name: "a 200-byte compact string: its length+1 (201) is the two-byte uvarint c9 01",
		hex: `000000d8 0012 0003 00000001 ffff 00   size 216, header v2, client_id null, no tags
		      c901 ` + strings.Repeat("61", 200) + `
		      02 30 00   client_software_version "0", no tags`,
		json:   `{"direction":"request","apiKey":18,"apiName":"ApiVersions","apiVersion":3,"header":{"requestApiKey":18,"requestApiVersion":3,"correlationId":1,"clientId":null},"body":{"clientSoftwareName":"` + strings.Repeat("a", 200) + `","clientSoftwareVersion":"0"}}`,
		spans:  map[string][2]int{"body.clientSoftwareName": {15, 217}},
		prefix: map[string]int{"body.clientSoftwareName": 17},
	},
}

// cleanHex keeps the hex digits of a commented vector: each line's words
// up to the first one that is not hex.
func cleanHex(t *testing.T, s string) []byte {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		for _, w := range strings.Fields(line) {
			if strings.Trim(w, "0123456789abcdef") != "" {
				break
			}
			b.WriteString(w)
		}
	}
	out, err := hex.DecodeString(b.String())
	require.NoError(t, err)
	return out
}

// nodeAt finds a node by its value-JSON path.
func nodeAt(root *tree.Node, path string) *tree.Node {
	var found *tree.Node
	var walk func(n *tree.Node, p string)
	walk = func(n *tree.Node, p string) {
		for _, c := range n.Children {
			name := c.Name
			if c.Field != nil {
				name = c.Field.JSON
			}
			cp := p
			switch {
			case c.Role == tree.RoleElement:
				cp += "[" + itoa(c.Index) + "]"
			case c.Role == tree.RoleTags:
				cp = join(p, "_tagged")
				walk(c, p) // tagged fields are named from the struct
				if cp == path {
					found = c
				}
				continue
			default:
				cp = join(p, name)
			}
			if cp == path {
				found = c
			}
			walk(c, cp)
		}
	}
	walk(root, "")
	return found
}

func TestGoldenVectors(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			b := cleanHex(t, g.hex)
			f, err := Decode(b, Options{Response: g.response, APIKey: g.api, Version: g.version})
			require.NoError(t, err)
			noWarnings(t, f.Root)
			coverage(t, f.Root, len(b))
			require.JSONEq(t, g.json, string(f.AppendJSON(nil)))
			for p, span := range g.spans {
				n := nodeAt(f.Root, p)
				require.NotNil(t, n, p)
				require.Equal(t, span, [2]int{n.Start, n.End}, p)
			}
			for p, end := range g.prefix {
				n := nodeAt(f.Root, p)
				require.NotNil(t, n, p)
				require.Equal(t, end, n.PrefixEnd, p)
			}
			requireTagsAsCarried(t, f)
			again, err := Encode(nil, f.AppendJSON(nil), EncodeOptions{})
			require.NoError(t, err)
			require.Equal(t, hex.EncodeToString(b), hex.EncodeToString(again))
		})
	}
}
