//go:build js && wasm

package main

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"syscall/js"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/internal/topicids"
)

// A capture whose Metadata responses name more topic ids than the
// playground keeps (topicids.MaxNames) says so once, in scanExchanges'
// notes, which the page adds to the capture's notes as kwire pcap prints
// its own: learning stopped silently before. The ids known are set by
// hand (a response naming 65,536 topics would pass the browser's node
// limit); the response then names one more.
func TestScanExchangesTopicIDsFull(t *testing.T) {
	captureTopics = topicids.Names{}
	t.Cleanup(func() { captureTopics = topicids.Names{} })
	for i := 0; i < topicids.MaxNames; i++ {
		var id [16]byte
		binary.BigEndian.PutUint64(id[8:], uint64(i+1))
		captureTopics.Set(id, "known")
	}
	m := kmsg.NewPtrMetadataResponse()
	m.Version = 12
	tp := kmsg.NewMetadataResponseTopic()
	name := "one-too-many"
	tp.Topic = &name
	binary.BigEndian.PutUint64(tp.TopicID[8:], uint64(topicids.MaxNames+1))
	m.Topics = append(m.Topics, tp)
	b := m.AppendTo([]byte{0, 0, 0, 7, 0}) // correlation id 7, no tagged fields
	resp := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
	resp = append(resp, b...)

	scan := func() (out struct {
		Exchanges []map[string]any
		Notes     []string
	}) {
		u := js.Global().Get("Uint8Array").New(len(resp))
		js.CopyBytesToJS(u, resp)
		frames := js.ValueOf([]any{nil, u})
		s := scanExchanges(js.Undefined(), []js.Value{frames, js.ValueOf([]any{3}), js.ValueOf([]any{12})}).(string)
		if err := json.Unmarshal([]byte(s), &out); err != nil {
			t.Fatalf("%v: %s", err, s)
		}
		if len(out.Exchanges) != 1 || out.Exchanges[0]["responseError"] != nil {
			t.Fatalf("exchanges %v", out.Exchanges)
		}
		return out
	}
	if n := scan().Notes; len(n) != 1 || !strings.Contains(n[0], "65536 ids are known, the limit") {
		t.Fatalf("notes %q, want the topic ids note", n)
	}
	if n := scan().Notes; len(n) != 0 {
		t.Fatalf("said again: %q", n)
	}
}
