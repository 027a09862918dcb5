//go:build js && wasm

package main

import (
	"strconv"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// A Fetch v4 response cut short inside its records: no reading fits, and
// the one drawn is Fetch v4's, whose records length the whole frame would
// hold, not Metadata v10's, which reads further by finding a null where
// the schema has none and text that is not UTF-8 (what a tester got).
func TestPartialReadingsPreferTheCleanCutOne(t *testing.T) {
	whole, err := codec.ExampleFrame(schema.ByName("Fetch"), 4, true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := codec.Decode(whole, codec.Options{Response: true, APIKey: 1, Version: 4})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := f.Root.Lookup("body.responses[0].partitions[0].records")
	if err != nil {
		t.Fatal(err)
	}
	cut := whole[:recs.DataStart()+len(whole[recs.DataStart():])/3] // inside the records
	got := partialReadings(cut, true)
	if len(got) == 0 || got[0].api.Name != "Fetch" || got[0].v != 4 {
		var names []string
		for _, r := range got {
			names = append(names, r.api.Name+" v"+strconv.Itoa(int(r.v))+" "+r.msg)
		}
		t.Fatalf("readings of a cut Fetch v4 response, first should be Fetch v4: %q", names)
	}
}

// A Metadata v12 response cut three bytes into its first topic id (the
// playground's e2e frame): the Metadata readings that ran out of bytes
// there come first.
func TestPartialReadingsOfACutMetadataResponse(t *testing.T) {
	whole, err := codec.ExampleFrame(schema.ByName("Metadata"), 12, true)
	if err != nil {
		t.Fatal(err)
	}
	f, err := codec.Decode(whole, codec.Options{Response: true, APIKey: 3, Version: 12})
	if err != nil {
		t.Fatal(err)
	}
	id, err := f.Root.Lookup("body.topics[0].topicId")
	if err != nil {
		t.Fatal(err)
	}
	got := partialReadings(whole[:id.Start+3], true)
	if len(got) == 0 || got[0].api.Name != "Metadata" || got[0].off != id.Start {
		t.Fatalf("readings of a cut Metadata v12 response: %+v", got)
	}
}
