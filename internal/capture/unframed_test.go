package capture

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/gopacket/layers"
	"github.com/kwire/kwire/internal/textfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// garbageConns adds n connections to b, each followed from its SYN, whose
// client sends bytes that frame no way: the odd ones an HTTP request,
// whose first size a broker refuses (Note.Refused), the even ones a size
// of 16 and bytes no request header has.
func garbageConns(b *tb, n int) {
	for i := range n {
		v := b.conv(textfmt.Sprintf("10.1.%d.%d:40000", i/250, i%250+1), "10.0.0.2:9092")
		v.handshake()
		if i%2 == 1 {
			v.req([]byte("GET / HTTP/1.1\r\nHost: kafka\r\n\r\n"))
		} else {
			v.req(append([]byte{0, 0, 0, 16}, bytes.Repeat([]byte{0xff}, 32)...))
		}
		v.fin()
	}
}

// lossyKafka adds a Kafka connection followed from its SYN whose third
// request was lost: its notes say the gap.
func lossyKafka(b *tb) {
	v := b.conv("10.0.0.1:40001", "10.0.0.2:9092")
	v.handshake()
	for i := int32(1); i <= 6; i++ {
		q := kreq(3, 12, i, "consumer", []byte{0, 0, 0, 0})
		if i == 3 {
			v.cs += uint32(len(q)) // lost
		} else {
			v.req(q)
		}
		v.resp(kresp(i, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
	}
	v.fin()
}

// TestUnframedFolded: the notes of streams followed from their SYN whose
// bytes frame no way (Note.Unframed), which kwire check turns into
// findings, were kept one a stream, bounded only by the cap on notes: a
// capture of 2,000 connections of bytes that are no Kafka filled it, and
// the notes of a Kafka connection after them were not said ("more notes
// not shown"). The first maxFolded of each kind (unframed; a first size
// a broker refuses) are said each in a note of their own, the rest in
// one note at the last of them that counts them (Note.Folded) and says
// where the first was (Note.First), all kept whatever the cap.
func TestUnframedFolded(t *testing.T) {
	const conns = 2000
	alone := newTB(t, layers.LinkTypeEthernet)
	lossyKafka(alone)
	want := alone.read(Options{})
	require.NotEmpty(t, want.Notes)

	b := newTB(t, layers.LinkTypeEthernet)
	garbageConns(b, conns)
	lossyKafka(b)
	r := b.read(Options{})

	var kafka, unframed, refused []Note
	for _, n := range r.Notes {
		assert.NotContains(t, n.Message, "notes not shown")
		switch {
		case n.Refused:
			refused = append(refused, n)
		case n.Unframed:
			unframed = append(unframed, n)
		case n.Conn != nil && n.Conn.ID == conns+1:
			kafka = append(kafka, n)
		}
	}
	var got, wantMsgs []string
	for _, n := range kafka {
		got = append(got, n.Message)
	}
	for _, n := range want.Notes {
		wantMsgs = append(wantMsgs, n.Message)
	}
	assert.Equal(t, wantMsgs, got, "the Kafka connection's notes")
	assert.Equal(t, pairedCorrs(want), pairedCorrs(r), "and its exchanges")
	assert.Equal(t, []int32{1, 2, 4, 5, 6}, pairedCorrs(r))

	for _, kind := range []struct {
		notes []Note
		first int // the first connection folded, and the last
		last  int
		what  string
	}{
		{unframed, 2*maxFolded + 1, conns - 1, "streams followed from their SYN whose bytes do not read as a frame (not judged)"},
		{refused, 2*maxFolded + 2, conns, "connections whose first frame declares a size a broker refuses"},
	} {
		require.Len(t, kind.notes, maxFolded+1, "%v", kind.notes)
		for i, n := range kind.notes[:maxFolded] {
			assert.Zero(t, n.Folded)
			assert.Equal(t, kind.first-2*maxFolded+2*i, n.Conn.ID)
			assert.True(t, strings.HasPrefix(n.Message, "implausible frame header "), n.Message)
		}
		last := kind.notes[maxFolded]
		assert.Equal(t, conns/2-maxFolded, last.Folded)
		if assert.NotNil(t, last.First) {
			assert.Equal(t, kind.first, last.First.Conn.ID)
		}
		assert.Equal(t, kind.last, last.Conn.ID, "said at the last")
		assert.True(t, strings.HasPrefix(last.Message, textfmt.Sprintf("%d more %s after the first %d: the first of them in packet %d, conn %d ", conns/2-maxFolded, kind.what, maxFolded, last.First.Packet, kind.first)), last.Message)
		assert.True(t, strings.HasSuffix(last.Message, "; the last in this packet, at stream offset 0 of the client stream"), last.Message)
	}
	assert.Equal(t, int64(0x47455420), refused[maxFolded].Size, "the last's size (GET )")
	// and the resynchronisations past them, folded as they were
	assert.Len(t, r.Notes, len(want.Notes)+2*(maxFolded+1)+maxFolded+1, "bounded: %v", r.Notes)
}
