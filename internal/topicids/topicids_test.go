package topicids

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/internal/bench/traffic"
)

// A commit record as the group coordinator writes it, produced by kgo
// into __consumer_offsets on kfake and fetched back: the Fetch responses
// (Fetch 13+ names topics by id alone) decode its key and value into
// OffsetCommitKey and OffsetCommitValue once the session has learned the
// topic's id from the Metadata responses it saw, and not before.
func TestCommitRecordFetchedFromKfake(t *testing.T) {
	ok := kmsg.OffsetCommitKey{Version: 1, Group: "billing", Topic: "orders", Partition: 3}
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset, ov.LeaderEpoch, ov.Metadata, ov.CommitTimestamp = 3, 4242, 7, "note", 1700000000123
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	pairs, err := traffic.ProduceAndFetch(ctx, "__consumer_offsets", ok.AppendTo(nil), ov.AppendTo(nil))
	if err != nil {
		t.Fatal(err)
	}

	var names Names
	const wantKey = `"schema":"OffsetCommitKey","decoded":{"group":"billing","topic":"orders","partition":3}`
	const wantValue = `"format":"kafka","version":3,"schema":"OffsetCommitValue","decoded":{"offset":4242,"leaderEpoch":7,"metadata":"note","commitTimestamp":1700000000123}`
	var fetched, produced int
	for _, p := range pairs {
		x := struct{ key, ver int16 }{p.Request.Key, p.Request.Version}
		names.LearnFrom(p.Response.Bytes, x.key, x.ver)
		var b []byte
		o := codec.Options{APIKey: x.key, Version: x.ver}
		switch x.key {
		case 0:
			b = p.Request.Bytes
		case 1:
			b, o.Response = p.Response.Bytes, true
		default:
			continue
		}
		blind, err := codec.Decode(b, o)
		if err != nil {
			t.Fatalf("api %d v%d: %v", x.key, x.ver, err)
		}
		o.TopicNames = names.Name
		f, err := codec.Decode(b, o)
		if err != nil {
			t.Fatalf("api %d v%d: %v", x.key, x.ver, err)
		}
		js := string(f.AppendJSON(nil))
		if !strings.Contains(js, "OffsetCommitValue") {
			continue // a fetch that came back empty
		}
		if !strings.Contains(js, wantKey) || !strings.Contains(js, wantValue) {
			t.Fatalf("api %d v%d: want\n%s\n%s\nin %s", x.key, x.ver, wantKey, wantValue, js)
		}
		if len(f.Warnings) > 0 {
			t.Fatalf("api %d v%d: %v", x.key, x.ver, f.Warnings)
		}
		byID := x.key == 1 && x.ver >= 13 || x.key == 0 && x.ver >= 13
		if bjs := string(blind.AppendJSON(nil)); byID == strings.Contains(bjs, "OffsetCommitValue") {
			t.Fatalf("api %d v%d names topics by id: %v, yet without the ids' names its records decode: %v", x.key, x.ver, byID, !byID)
		}
		t.Logf("api %d v%d decoded (by id: %v)", x.key, x.ver, byID)
		if x.key == 1 {
			fetched++
		} else {
			produced++
		}
	}
	if fetched == 0 || produced == 0 {
		t.Fatalf("decoded the commit record in %d Fetch responses and %d Produce requests, want both", fetched, produced)
	}
	if names.Len() == 0 {
		t.Fatal("no topic id learned from the Metadata responses")
	}
}

func TestParseFlag(t *testing.T) {
	want := [16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}
	for _, s := range []string{"EjRWeJq83vARIjNEVWZ3iA=__consumer_offsets", "12345678-9abc-def0-1122-334455667788=__consumer_offsets", "123456789abcdef01122334455667788=__consumer_offsets"} {
		id, name, err := ParseFlag(s)
		if err != nil || id != want || name != "__consumer_offsets" {
			t.Fatalf("%s: %x %q %v", s, id, name, err)
		}
	}
	for _, s := range []string{"", "abc", "EjRWeJq83vARIjNEVWZ3iA=", "EjRWeJq83vARIjNEVWZ3i!=x", "12345678-9abc-def0-1122-33445566778g=x"} {
		if _, _, err := ParseFlag(s); err == nil {
			t.Fatalf("%q: no error", s)
		}
	}
}

// A Names stops learning at MaxNames ids: a session's map is bounded.
func TestNamesBounded(t *testing.T) {
	var n Names
	for i := 0; i < MaxNames+10; i++ {
		var id [16]byte
		binary.BigEndian.PutUint64(id[8:], uint64(i+1))
		n.Set(id, "t")
	}
	if n.Len() != MaxNames {
		t.Fatalf("%d names kept, want %d", n.Len(), MaxNames)
	}
}

// Only the response versions whose topics carry ids are decoded: Metadata
// from v10, CreateTopics from v7, as Kafka's schemas say; a version newer
// than known reads as the newest does.
func TestNamesIDsByVersion(t *testing.T) {
	for _, c := range []struct {
		key, version int16
		want         bool
	}{{3, 9, false}, {3, 10, true}, {3, 13, true}, {19, 6, false}, {19, 7, true}, {1, 13, false}, {3, 999, true}, {3, -1, false}} {
		if got := namesIDs(c.key, c.version); got != c.want {
			t.Errorf("namesIDs(%d, %d) = %v, want %v", c.key, c.version, got, c.want)
		}
	}
}
