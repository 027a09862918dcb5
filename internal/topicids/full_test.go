package topicids

import (
	"encoding/binary"
	"strings"
	"testing"
)

// Once an id is refused for MaxNames, FullNote says so, once: a session
// that stops learning ids tells its user.
func TestFullNote(t *testing.T) {
	var n Names
	set := func(i int) bool {
		var id [16]byte
		binary.BigEndian.PutUint64(id[8:], uint64(i+1))
		return n.Set(id, "t")
	}
	for i := 0; i < MaxNames; i++ {
		set(i)
	}
	if s := n.FullNote(); s != "" {
		t.Fatalf("a note before any id was refused: %s", s)
	}
	if set(MaxNames) {
		t.Fatal("an id past MaxNames kept")
	}
	if s := n.FullNote(); !strings.Contains(s, "65536 ids are known, the limit") {
		t.Fatalf("note %q", s)
	}
	set(MaxNames + 1)
	if s := n.FullNote(); s != "" {
		t.Fatalf("said twice: %s", s)
	}
	if (*Names)(nil).FullNote() != "" {
		t.Fatal("a nil Names has a note")
	}
}
