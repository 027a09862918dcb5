package storage

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
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
