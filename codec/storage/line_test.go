package storage

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// An edit to an internal topic's decoded value is what kwire encode
// writes: the batch's record value changes, and reads back edited.
func TestEncodeLineKeepsAnEditToADecodedValue(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("..", "..", "testdata", "storage", "logdir", "__consumer_offsets-7", "00000000000000000000.log"))
	require.NoError(t, err)
	s := NewSegment(bytes.NewReader(log), SegmentOptions{Topic: "__consumer_offsets"})
	_, err = s.Next() // the group metadata
	require.NoError(t, err)
	b, err := s.Next() // the offset commits
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, s.WriteJSON(&out, []byte(`{"kind":"batch","topic":"__consumer_offsets",`), b))
	orig := append([]byte(nil), b.Bytes...)

	v, err := parseJSON(out.Bytes())
	require.NoError(t, err)
	line := v.(map[string]any)
	same, err := EncodeLine("batch", line)
	require.NoError(t, err)
	require.Equal(t, orig, same, "unedited, the same bytes")

	first := line["internal"].([]any)[0].(map[string]any)
	first["value"].(map[string]any)["offset"] = json.Number("123456")
	edited, err := EncodeLine("batch", line)
	require.NoError(t, err)
	require.NotEqual(t, orig, edited)

	s = NewSegment(bytes.NewReader(edited), SegmentOptions{Topic: "__consumer_offsets"})
	b, err = s.Next()
	require.NoError(t, err)
	require.True(t, b.CRCValid, "the CRC is computed afresh")
	_, recs, err := s.Decode(b)
	require.NoError(t, err)
	require.EqualValues(t, 123456, recs[0].Topic().ValueMessage.Get("offset").Int)
	_, err = s.Next()
	require.True(t, errors.Is(err, io.EOF))
}

// An error in a line's batch names the line's member: a misspelt field
// of the batch, or of one of its records, is refused at batch.NAME.
func TestEncodeLineNamesTheBatch(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("..", "..", "testdata", "storage", "logdir", "orders-0", "00000000000000000000.log"))
	require.NoError(t, err)
	s := NewSegment(bytes.NewReader(log), SegmentOptions{})
	b, err := s.Next()
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, s.WriteJSON(&out, []byte(`{"kind":"batch",`), b))
	v, err := parseJSON(out.Bytes())
	require.NoError(t, err)
	line := v.(map[string]any)
	batch := line["batch"].(map[string]any)
	batch["bogus"] = true
	_, err = EncodeLine("batch", line)
	require.ErrorContains(t, err, "batch.bogus: unknown field; valid here: baseOffset,")
	delete(batch, "bogus")
	batch["records"].([]any)[0].(map[string]any)["Headers"] = []any{}
	_, err = EncodeLine("batch", line)
	require.ErrorContains(t, err, "batch.records[0].Headers: unknown field; valid here: attributes,")
}

// TestEncodeLineOfASkippedEntry: an entry --max-batch passed over has no
// bytes in its line; encoding it said "expected the entry's records
// JSON", as if the line were damaged.
func TestEncodeLineOfASkippedEntry(t *testing.T) {
	log, err := os.ReadFile(filepath.Join("..", "..", "testdata", "storage", "logdir", "orders-0", "00000000000000000000.log"))
	require.NoError(t, err)
	s := NewSegment(bytes.NewReader(log), SegmentOptions{MaxBatch: 20})
	b, err := s.Next()
	require.NoError(t, err)
	require.True(t, b.Skipped)
	var out bytes.Buffer
	require.NoError(t, s.WriteJSON(&out, []byte(`{"kind":"batch",`), b))
	v, err := parseJSON(out.Bytes())
	require.NoError(t, err)
	_, err = EncodeLine("batch", v.(map[string]any))
	require.ErrorContains(t, err, "skipped: the entry was not read (")
	require.ErrorContains(t, err, "so this line does not carry its bytes: read it again with a larger limit (kwire log --max-batch)")
}

// tailLine is the line kwire log writes of the tail te of log, carrying
// its bytes up to ZeroFrom when carried is set.
func tailLine(te *TailError, log []byte, carried int64) map[string]any {
	v := map[string]any{"kind": "tail", "position": json.Number(itoa(te.Position)), "size": json.Number(itoa(te.Size)), "torn": te.Torn}
	if te.ZeroFrom < te.Position+te.Size {
		v["zeroFrom"] = json.Number(itoa(te.ZeroFrom))
	}
	v["bytes"] = base64.StdEncoding.EncodeToString(log[te.Position : te.Position+carried])
	return v
}

// A torn tail in preallocated space carries its bytes up to its zeros;
// EncodeLineZeros gives those bytes and counts the zeros after them, so a
// line of a few hundred bytes no longer costs the zeros it stands for
// (EncodeLine appended up to MaxUnused of them in memory). Bytes and
// zeros are the tail read, and EncodeLine's bytes are the same.
func TestEncodeLineZerosOfATornTail(t *testing.T) {
	log, _, _ := testSegment(0, 4)
	at := starts(log)
	cut := at[3] + 70
	for log[cut-1] == 0 {
		cut--
	}
	file := append(append([]byte(nil), log[:cut]...), make([]byte, 3<<20)...)
	te, n := tailOf(t, file)
	require.Equal(t, 3, n)
	require.True(t, te.Torn)
	require.Equal(t, cut, te.ZeroFrom)
	line := tailLine(te, file, te.ZeroFrom-te.Position)

	b, zeros, err := EncodeLineZeros("tail", line)
	require.NoError(t, err)
	require.Equal(t, file[at[3]:cut], b)
	require.Equal(t, int64(len(file))-cut, zeros)
	whole, err := EncodeLine("tail", line)
	require.NoError(t, err)
	require.Equal(t, file[at[3]:], whole, "the segment's bytes from the tail on, as before")

	// As many zeros as are written back: counted, not made.
	line["size"] = json.Number(itoa(cut - at[3] + MaxUnused))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b, zeros, err = EncodeLineZeros("tail", line)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Equal(t, file[at[3]:cut], b)
	require.EqualValues(t, MaxUnused, zeros)
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<10), "bytes allocated for a line asking for %d zeros", zeros)
	// One more is refused, as before.
	line["size"] = json.Number(itoa(cut - at[3] + MaxUnused + 1))
	_, _, err = EncodeLineZeros("tail", line)
	require.ErrorContains(t, err, "size: the tail's zeros after its bytes (268435457) are more than are written back (268435456)")

	// Lines of zeros alone give none, and their count.
	b, zeros, err = EncodeLineZeros("tail", map[string]any{"kind": "tail", "zero": true, "size": json.Number("1048576")})
	require.NoError(t, err)
	require.Empty(t, b)
	require.EqualValues(t, 1<<20, zeros)
	b, zeros, err = EncodeLineZeros("timeindex-unused", map[string]any{"count": json.Number("3")})
	require.NoError(t, err)
	require.Empty(t, b)
	require.EqualValues(t, 36, zeros)
	// A tail carried whole has none after it.
	line = tailLine(te, file, te.Size)
	b, zeros, err = EncodeLineZeros("tail", line)
	require.NoError(t, err)
	require.Equal(t, file[at[3]:], b)
	require.Zero(t, zeros)
}
