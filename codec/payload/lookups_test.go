package payload

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kwire/kwire/codec/internal/budget"
)

// countingSource answers every id with an Avro int schema (odd ids: an
// error, as a registry's 404) and counts what it is asked.
type countingSource struct {
	mu    sync.Mutex
	ids   map[int]int
	calls int
}

func (c *countingSource) SchemaByID(id int) (*Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.ids == nil {
		c.ids = map[int]int{}
	}
	c.ids[id]++
	if id%2 == 1 {
		return nil, errors.New("schema not found")
	}
	return &Schema{Type: TypeAvro, Text: `"int"`}, nil
}

func (c *countingSource) SchemaFor(topic string, key bool) (*Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	return nil, nil
}

// TestFrameSchemaLimit: one frame's payloads look up at most
// maxFrameSchemas distinct schemas (each asked once); past them payloads
// keep their framing, undecoded, and one limit warning says so where the
// first of them is.
func TestFrameSchemaLimit(t *testing.T) {
	src := &countingSource{}
	d := NewDecoder(src, Config{})
	b := bigBudget()
	var ws budget.Warnings
	decoded := 0
	for i := 0; i < 5*maxFrameSchemas; i++ {
		id := 2 * (1 + i%(2*maxFrameSchemas)) // every id twice, all even
		p := framed(id, []byte{2})
		in := In{B: p, End: len(p), Path: valuePath, Budget: &b, Warnings: &ws}
		js, _ := d.Decode(nil, &in)
		if strings.Contains(string(js), `"decoded"`) {
			decoded++
		}
	}
	if src.calls != maxFrameSchemas {
		t.Fatalf("the source was asked %d times in one frame, want %d", src.calls, maxFrameSchemas)
	}
	if decoded != 3*maxFrameSchemas {
		t.Fatalf("%d payloads decoded, want %d (those of the first %d ids)", decoded, 3*maxFrameSchemas, maxFrameSchemas)
	}
	if len(ws.List) != 1 || !ws.List[0].Limit || ws.List[0].Offset != 1 || ws.List[0].Path != "value" ||
		!strings.Contains(ws.List[0].Message, "limit of schema lookups per frame") {
		t.Fatalf("warnings %+v, want one limit warning at byte 1 of value", ws.List)
	}

	// A new frame looks up its own schemas: those kept are not asked
	// again, errors are.
	src.calls = 0
	b2 := bigBudget()
	for _, id := range []int{2, 3, 3} {
		p := framed(id, []byte{2})
		d.Decode(nil, &In{B: p, End: len(p), Path: valuePath, Budget: &b2})
	}
	if src.calls != 1 || src.ids[3] != 1 {
		t.Fatalf("next frame asked the source %d times (%v), want once, for id 3", src.calls, src.ids)
	}
}

// TestDecoderKeepsBounded: across frames a Decoder keeps at most maxKept
// schemas, and none of the source's errors.
func TestDecoderKeepsBounded(t *testing.T) {
	src := &countingSource{}
	d := NewDecoder(src, Config{})
	for f := 0; f < 4*maxKept/maxFrameSchemas; f++ {
		b := bigBudget()
		for i := 0; i < maxFrameSchemas; i++ {
			p := framed(1+f*maxFrameSchemas+i, []byte{2})
			d.Decode(nil, &In{B: p, End: len(p), Topic: "t" + string(rune('a'+i)), Path: valuePath, Budget: &b})
		}
	}
	if n := len(d.byID) + len(d.bySub); n > maxKept {
		t.Fatalf("the Decoder keeps %d schemas, more than %d", n, maxKept)
	}
	for id, c := range d.byID {
		if id%2 == 1 || c.err != "" {
			t.Fatalf("the Decoder keeps the source's error for id %d: %q", id, c.err)
		}
	}
}

// TestFrameTopicLimit: unframed keys and values of many topics spend the
// topics' lookups, not the schema ids': past maxFrameTopics topics, one
// warning, and framed values still look their ids up.
func TestFrameTopicLimit(t *testing.T) {
	src := &countingSource{}
	d := NewDecoder(src, Config{})
	b := bigBudget()
	var ws budget.Warnings
	for i := 0; i < maxFrameTopics+10; i++ {
		topic := "t" + strconv.Itoa(i)
		d.Decode(nil, &In{B: []byte("k"), End: 1, Key: true, Topic: topic, Path: valuePath, Budget: &b, Warnings: &ws})
	}
	if src.calls != maxFrameTopics || len(ws.List) != 1 || !strings.Contains(ws.List[0].Message, "limit of topic schema lookups per frame") {
		t.Fatalf("%d lookups, warnings %+v", src.calls, ws.List)
	}
	p := framed(2, []byte{2})
	js, _ := d.Decode(nil, &In{B: p, End: len(p), Topic: "t0", Path: valuePath, Budget: &b, Warnings: &ws})
	if !strings.Contains(string(js), `"decoded":1`) {
		t.Fatalf("a framed value after the topics' limit: %s %+v", js, ws.List)
	}
}
