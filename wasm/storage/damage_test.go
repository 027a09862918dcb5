//go:build js && wasm

package main

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/internal/storagedata"
)

// TestStorageDamageInTheMiddle: a corrupt length in the middle of a
// segment, running past its end, is a damaged region, as kwire log says:
// the batches after it are read and listed, and it is no torn tail.
func TestStorageDamageInTheMiddle(t *testing.T) {
	var batches [][]byte
	for i := 0; i < 6; i++ {
		batches = append(batches, storagedata.Batch([]storagedata.Record{{Key: []byte("k"), Value: []byte("v")}, {Key: []byte("k"), Value: []byte("w")}},
			storagedata.BatchOptions{FirstTimestamp: 1700000000000 + int64(i), ProducerID: -1}))
	}
	log, _, _ := storagedata.Segment(0, 0, batches, 1<<20)
	second := 12 + int(binary.BigEndian.Uint32(log[8:]))
	binary.BigEndian.PutUint32(log[second+8:], 4096)
	a := openAnswer(t, "00000000000000000000.log", log)
	ps := problems(a)
	if matching(ps, "are no batch") != 1 || matching(ps, "read resumed at") != 1 || matching(ps, "torn") != 0 {
		t.Errorf("problems: %q", ps)
	}
	if ns := a.Files[0].Notes; len(ns) != 1 || !strings.Contains(ns[0], "the batch at "+strconv.Itoa(second+len(batches[1]))+" was found by searching past the damage") {
		t.Errorf("notes: %q", ns)
	}
	if a.RecordCount != 10 {
		t.Errorf("%d records, want the 10 of the 5 whole batches: %q", a.RecordCount, strings.Join(ps, "; "))
	}
}
