// Command e2egen writes the frames the playground's browser tests use
// (site/e2e/playground.test.mjs) into a directory, with a manifest of what the
// page should show for each:
//
//	go run ./site/internal/e2egen -out DIR
//
// big-fetch.bin    a Fetch v12 response of about 1 MiB holding 10,000 records
// produce-gzip.hex a Produce v9 request whose batch is gzip-compressed
// html.hex         an ApiVersions v3 request whose strings hold HTML and script
// malformed.hex    an ApiVersions v3 request with a string length past the end
// apiversions-response.hex  the example ApiVersions v3 response
// truncated-response.hex    a Metadata v12 response cut short: its size says more bytes follow
// node-flood.bin   an ApiVersions v0 response of 300,000 entries: more tree nodes than the browser's limit
// many-partitions.bin  a Fetch v12 response of 5,500 partitions of one batch (1.1 MB): records past the browser's node limit
// traffic.pcap     100 realistic exchanges (Metadata, Produce, Fetch with records): tshark -x prints over 4 MiB of it
// commit.pcap      kgo producing an offset commit into __consumer_offsets on kfake and fetching it back (Fetch by topic id)
// manifest.json    sizes, expected values and the malformed frame's error offset
package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/bench/traffic"
)

func main() {
	out := flag.String("out", ".", "directory to write into")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	man := map[string]any{}

	// A Fetch response with 10 batches of 1,000 records, ~100 bytes each.
	var batches []any
	for b := 0; b < 10; b++ {
		var recs []any
		for r := 0; r < 1000; r++ {
			i := b*1000 + r
			recs = append(recs, map[string]any{
				"attributes": 0, "timestampDelta": r, "offsetDelta": r,
				"key":     map[string]any{"text": "key-" + strconv.Itoa(i)},
				"value":   map[string]any{"text": "value " + strconv.Itoa(i) + " " + strings.Repeat("x", 75)},
				"headers": []any{},
			})
		}
		batches = append(batches, map[string]any{
			"baseOffset": b * 1000, "partitionLeaderEpoch": 0, "magic": 2,
			"attributes":      map[string]any{"compression": "none", "timestampType": "CreateTime"},
			"lastOffsetDelta": 999, "baseTimestamp": 1767225600000, "maxTimestamp": 1767225600999,
			"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs,
		})
	}
	fetch := encode(schema.ByName("Fetch"), 12, true, batches)
	write(*out, "big-fetch.bin", fetch)
	man["bigFetch"] = map[string]any{"bytes": len(fetch), "records": 10000}

	// A Produce request with one gzip batch of three records.
	var recs []any
	for r := 0; r < 3; r++ {
		recs = append(recs, map[string]any{"attributes": 0, "timestampDelta": r, "offsetDelta": r,
			"key": map[string]any{"text": "k" + strconv.Itoa(r)}, "value": map[string]any{"text": "compressed value " + strconv.Itoa(r)}, "headers": []any{}})
	}
	produce := encode(schema.ByName("Produce"), 9, false, []any{map[string]any{
		"baseOffset": 0, "partitionLeaderEpoch": 0, "magic": 2,
		"attributes":      map[string]any{"compression": "gzip", "timestampType": "CreateTime"},
		"lastOffsetDelta": 2, "baseTimestamp": 1767225600000, "maxTimestamp": 1767225600002,
		"producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs,
	}})
	write(*out, "produce-gzip.hex", []byte(hex.EncodeToString(produce)))
	man["produceGzip"] = map[string]any{"bytes": len(produce)}

	// Strings that are HTML and script.
	evil := `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>`
	env := codec.Example(schema.ByName("ApiVersions"), 3, false)
	env["header"].(map[string]any)["clientId"] = evil
	body := env["body"].(map[string]any)
	body["clientSoftwareName"] = `<b onmouseover="window.__pwned=3">bold</b>`
	body["clientSoftwareVersion"] = "1.0"
	html := mustEncode(env)
	write(*out, "html.hex", []byte(hex.EncodeToString(html)))
	man["html"] = map[string]any{"clientId": evil, "softwareName": body["clientSoftwareName"]}

	// A compact string whose length runs past the end of the frame.
	good, _ := hex.DecodeString("0000001b001200030000000700056b7769726500066b7769726504312e3000")
	bad := append([]byte(nil), good...)
	bad[20] = 0x40 // clientSoftwareName's length: 63 bytes, 11 left
	_, err := codec.Decode(bad, codec.Options{})
	var de *codec.DecodeError
	if !errors.As(err, &de) {
		log.Fatal("malformed frame decoded: ", err)
	}
	write(*out, "malformed.hex", []byte(hex.EncodeToString(bad)))
	man["malformed"] = map[string]any{"offset": de.Offset, "path": de.Path, "expected": de.Expected, "found": de.Found}

	// An ApiVersions v3 response, for automatic API detection and links.
	resp, err := codec.ExampleFrame(schema.ByName("ApiVersions"), 3, true)
	if err != nil {
		log.Fatal(err)
	}
	write(*out, "apiversions-response.hex", []byte(hex.EncodeToString(resp)))

	// A Metadata response cut off three bytes into its first topic id.
	md, err := codec.ExampleFrame(schema.ByName("Metadata"), 12, true)
	if err != nil {
		log.Fatal(err)
	}
	mf, err := codec.Decode(md, codec.Options{Response: true, APIKey: schema.KeyMetadata, Version: 12})
	if err != nil {
		log.Fatal(err)
	}
	tid, err := mf.Root.Lookup("body.topics[0].topicId")
	if err != nil {
		log.Fatal(err)
	}
	at := tid.Start
	cut := md[:at+3]
	write(*out, "truncated-response.hex", []byte(hex.EncodeToString(cut)))
	man["truncated"] = map[string]any{"bytes": len(cut), "whole": len(md), "topicId": at}

	// 300,000 ApiVersions entries of 6 bytes: 4 nodes each, 1.2 million in
	// all, past the browser's 2^20.
	const entries = 300000
	flood := wire.AppendInt32(nil, 0)        // size, set below
	flood = wire.AppendInt32(flood, 5)       // correlation id
	flood = wire.AppendInt16(flood, 0)       // error code
	flood = wire.AppendInt32(flood, entries) // apiKeys
	for i := 0; i < entries; i++ {
		flood = wire.AppendInt16(flood, int16(i%100))
		flood = wire.AppendInt16(flood, 0)
		flood = wire.AppendInt16(flood, 3)
	}
	copy(flood, wire.AppendInt32(nil, int32(len(flood)-4)))
	write(*out, "node-flood.bin", flood)
	man["nodeFlood"] = map[string]any{"bytes": len(flood), "entries": entries}

	// The example Fetch v12 response's partition 5,500 times (a batch of
	// one record each): 1.1 MB whose records the browser's MaxNodes limit
	// cuts in half of its partitions.
	env = codec.Example(schema.ByName("Fetch"), 12, true)
	js, err := json.Marshal(env)
	if err != nil {
		log.Fatal(err)
	}
	var many map[string]any
	if err := json.Unmarshal(js, &many); err != nil {
		log.Fatal(err)
	}
	topic := many["body"].(map[string]any)["responses"].([]any)[0].(map[string]any)
	part := topic["partitions"].([]any)[0].(map[string]any)
	const partitions = 5500
	parts := make([]any, partitions)
	for i := range parts {
		p := map[string]any{}
		for k, v := range part {
			p[k] = v
		}
		p["partitionIndex"] = i
		parts[i] = p
	}
	topic["partitions"] = parts
	manyParts := mustEncode(many)
	write(*out, "many-partitions.bin", manyParts)
	man["manyPartitions"] = map[string]any{"bytes": len(manyParts), "partitions": partitions}

	// Real traffic: the topic's id is named only by the Metadata responses.
	ok := kmsg.OffsetCommitKey{Version: 1, Group: "billing", Topic: "orders", Partition: 3}
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset, ov.LeaderEpoch, ov.Metadata, ov.CommitTimestamp = 3, 4242, 7, "note", 1700000000123
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	pairs, err := traffic.ProduceAndFetch(ctx, "__consumer_offsets", ok.AppendTo(nil), ov.AppendTo(nil))
	cancel()
	if err != nil {
		log.Fatal(err)
	}
	var pc bytes.Buffer
	if _, err := traffic.WritePcap(&pc, traffic.PcapOptions{Pairs: len(pairs), Mix: pairs}); err != nil {
		log.Fatal(err)
	}
	write(*out, "commit.pcap", pc.Bytes())

	// Realistic traffic big enough that tshark -x prints more than 4 MiB
	// of text (the playground once took a text file that large as binary).
	pc.Reset()
	tst, err := traffic.WritePcap(&pc, traffic.PcapOptions{Pairs: 100, Conns: 4, InFlight: 2})
	if err != nil {
		log.Fatal(err)
	}
	write(*out, "traffic.pcap", pc.Bytes())
	man["traffic"] = map[string]any{"bytes": pc.Len(), "frames": tst.Frames}

	m, _ := json.MarshalIndent(man, "", "  ")
	write(*out, "manifest.json", m)
}

// encode builds the example frame for api/version/direction with its
// (first) records field replaced by batches.
func encode(api *schema.API, v int16, response bool, batches []any) []byte {
	env := codec.Example(api, v, response)
	if !replaceRecords(env, batches) {
		log.Fatal("no records field in ", api.Name)
	}
	return mustEncode(env)
}

func mustEncode(env map[string]any) []byte {
	js, err := json.Marshal(env)
	if err != nil {
		log.Fatal(err)
	}
	b, err := codec.Encode(nil, js, codec.EncodeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	return b
}

func replaceRecords(v any, batches []any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "records" {
				x[k] = batches
				return true
			}
			if replaceRecords(e, batches) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if replaceRecords(e, batches) {
				return true
			}
		}
	}
	return false
}

func write(dir, name string, b []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		log.Fatal(err)
	}
}
