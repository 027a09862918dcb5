package storage_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/kwire/kwire/codec/storage"
)

// A segment (.log file) read one entry at a time: a record batch of two
// records (magic 2, uncompressed, laid out as a broker writes it), then the first bytes of a second batch, as a broker that
// stopped mid-write leaves them. Each entry's records are read from its
// tree; the torn tail is a *TailError after the good entries.
func ExampleSegment() {
	batch, _ := hex.DecodeString("000000000000000000000051000000000221adb32a000000000001000001972ff9f5c0" +
		"000001972ff9f5c5ffffffffffffffffffffffffffff000000021e000000046b310e6f72" +
		"6465722031001e000a02046b320e6f72646572203200")
	log := append(batch, batch[:20]...) // a second batch, cut short

	seg := storage.NewSegment(bytes.NewReader(log), storage.SegmentOptions{})
	for {
		b, err := seg.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var tail *storage.TailError
		if errors.As(err, &tail) { // Next gives io.EOF after it
			fmt.Printf("tail at %d: %d bytes, torn %v\n", tail.Position, tail.Size, tail.Torn)
			continue
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("offsets %d-%d, %d records, CRC valid: %v\n", b.BaseOffset, b.LastOffset, b.Records, b.CRCValid)
		entry, _, err := seg.Decode(b) // its tree; WriteJSON writes kwire log's JSON line
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, r := range entry.Records { // each record's node, offset and timestamp
			fmt.Printf("offset %d: %s = %s\n", r.Offset, r.Node.Get("key").Raw, r.Node.Get("value").Raw)
		}
	}
	// Output:
	// offsets 0-1, 2 records, CRC valid: true
	// offset 0: k1 = order 1
	// offset 1: k2 = order 2
	// tail at 93: 20 bytes, torn true
}
