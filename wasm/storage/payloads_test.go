//go:build js && wasm

package main

import (
	"encoding/binary"
	"encoding/json"
	"strconv"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/internal/storagedata"
	"github.com/kwire/kwire/wasm/internal/glue"
)

// fakePayload is a payload hook as payload.wasm's kwirePayload answers
// storage.wasm's payloads: each part's row says which hook read it (gen)
// and its bytes; calls counts the parts it read.
func fakePayload(t *testing.T, gen string, calls *int) (js.Value, func()) {
	f := js.FuncOf(func(this js.Value, args []js.Value) any {
		b := glue.Bytes(args[1])
		var lines []string
		for len(b) >= 5 {
			n := int(binary.BigEndian.Uint32(b[1:5]))
			lines = append(lines, `{"format":"fake","decoded":`+strconv.Quote(gen+":"+string(b[5:5+n]))+`}`)
			b = b[5+n:]
			*calls++
		}
		return strings.Join(lines, "\n")
	})
	o := js.Global().Get("Object").New()
	o.Set("payloads", f)
	return o, f.Release
}

// TestStoragePayloadsAgain: schemas given after a segment was listed read
// the records listed again (kwireStorage.payloads, by their ids) with the
// hook now given, reading only their batches, not the segment: the records
// asked for, and no byte past their batches.
func TestStoragePayloadsAgain(t *testing.T) {
	defer setChunks(1024, 4096)()
	var batches [][]byte
	for i := 0; i < 40; i++ {
		var recs []storagedata.Record
		for j := 0; j < 5; j++ {
			recs = append(recs, storagedata.Record{Key: []byte("k" + strconv.Itoa(5*i+j)), Value: []byte(strings.Repeat("v", 50) + strconv.Itoa(5*i+j))})
		}
		batches = append(batches, storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1}))
	}
	batches = append(batches, storagedata.Batch([]storagedata.Record{{Key: []byte{0, 0, 0, 0}, Value: []byte{0, 0, 0, 0, 0, 0}}},
		storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: 7, Transactional: true, Control: true}))
	seg, _, _ := storagedata.Segment(0, 0, batches, 1)
	blob := js.Global().Get("Blob").New([]any{glue.Uint8Array(seg)})
	var read, reads int
	slice := js.FuncOf(func(this js.Value, args []js.Value) any {
		read += args[1].Int() - args[0].Int()
		reads++
		return blob.Call("slice", args[0], args[1])
	})
	defer slice.Release()
	counting := js.Global().Get("Object").New()
	counting.Set("size", len(seg))
	counting.Set("slice", slice)

	var first, second int
	a, releaseA := fakePayload(t, "A", &first)
	defer releaseA()
	b, releaseB := fakePayload(t, "B", &second)
	defer releaseB()
	listed := await(t, open(js.Undefined(), []js.Value{js.ValueOf([]any{"00000000000000000000.log"}), js.ValueOf([]any{counting}), js.ValueOf("orders"),
		js.Undefined(), js.ValueOf(false), a}))
	if !strings.HasSuffix(listed, `"recordCount":201}`) || !strings.Contains(listed, `"valuePayload":{"format":"fake","decoded":"A:`) || first != 400 {
		t.Fatalf("listed (%d parts read): %.300s", first, listed)
	}

	type answer struct {
		Error   string
		Records []struct {
			ID                       int
			KeyPayload, ValuePayload *struct{ Decoded string }
		}
	}
	again := func(from, to int, hook js.Value) (a answer) {
		t.Helper()
		read, reads = 0, 0
		got := await(t, payloads(js.Undefined(), []js.Value{js.ValueOf(from), js.ValueOf(to), hook}))
		if err := json.Unmarshal([]byte(got), &a); err != nil {
			t.Fatalf("%v: %.300s", err, got)
		}
		return a
	}
	all := again(0, 201, b)
	if len(all.Records) != 201 || second != 400 || read != len(seg) || reads > len(seg)/4096+2 {
		t.Fatalf("%d records again, %d parts read, %d bytes in %d reads of a %d-byte segment: %+v", len(all.Records), second, read, reads, len(seg), all)
	}
	for i, r := range all.Records[:200] {
		if r.ID != i || r.KeyPayload == nil || r.KeyPayload.Decoded != "B:k"+strconv.Itoa(i) || r.ValuePayload == nil || r.ValuePayload.Decoded != "B:"+strings.Repeat("v", 50)+strconv.Itoa(i) {
			t.Fatalf("record %d: %+v", i, r)
		}
	}
	if m := all.Records[200]; m.ID != 200 || m.KeyPayload != nil || m.ValuePayload != nil {
		t.Errorf("the control record: %+v", m)
	}

	// Some records: their batches alone (records 12-31 are batches 2-6).
	second = 0
	some := again(12, 32, b)
	if len(some.Records) != 20 || some.Records[0].ID != 12 || some.Records[19].ID != 31 || second != 2*25 {
		t.Errorf("records 12-31: %d records, %d parts read: %+v", len(some.Records), second, some)
	}
	want := 0
	for _, b := range batches[2:7] {
		want += len(b)
	}
	if read != want || reads != 1 {
		t.Errorf("records 12-31: %d bytes read in %d reads, their batches are %d bytes", read, reads, want)
	}

	if e := again(0, 10, js.Undefined()); e.Error == "" || len(e.Records) != 0 {
		t.Errorf("with no hook: %+v", e)
	}
	if e := again(300, 400, b); e.Error != "" || len(e.Records) != 0 {
		t.Errorf("past the records listed: %+v", e)
	}
}
