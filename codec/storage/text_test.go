package storage

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func readCheckpoint(t *testing.T, text string, kind CheckpointKind) ([]CheckpointEntry, error) {
	t.Helper()
	r := NewCheckpointReader(strings.NewReader(text), kind)
	var out []CheckpointEntry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}

func TestCheckpoints(t *testing.T) {
	es, err := readCheckpoint(t, "0\n2\n0 0\n3 120\n", LeaderEpochCheckpoint)
	require.NoError(t, err)
	require.Equal(t, []CheckpointEntry{{Line: 3, Epoch: 0, StartOffset: 0}, {Line: 4, Epoch: 3, StartOffset: 120}}, es)

	es, err = readCheckpoint(t, "0\n2\n5 100\n4 90\n", LeaderEpochCheckpoint)
	require.NoError(t, err)
	require.Contains(t, es[1].Problem, "epoch 4 is not above")

	es, err = readCheckpoint(t, "0\n2\norders 0 40\n__consumer_offsets 7 12\n", OffsetCheckpoint)
	require.NoError(t, err)
	require.Equal(t, "__consumer_offsets", es[1].Topic)
	require.Equal(t, int64(12), es[1].Offset)

	var te *TextError
	for text, want := range map[string]string{
		"":                      "ends before its version line",
		"1\n0\n":                "version 1",
		"0\nx\n":                "entry count should be a number",
		"0\n3\n0 0\n":           "says 3 entries; the file has 1",
		"0\n1\n0 zero\n":        "as numbers",
		"0\n99999999999\n0 0\n": "says 99999999999 entries",
		"0\n1\n" + strings.Repeat("1", 70000) + " 0\n": "longer than",
	} {
		_, err := readCheckpoint(t, text, LeaderEpochCheckpoint)
		require.ErrorAs(t, err, &te, "%q", text)
		require.Contains(t, err.Error(), want, "%q", text)
	}
	es, err = readCheckpoint(t, "0\n1\n0 0\n1 5\n", LeaderEpochCheckpoint)
	require.Error(t, err)
	require.Contains(t, es[1].Problem, "past the 1 entries")
}

func TestPartitionMetadataAndProperties(t *testing.T) {
	pm, err := ReadPartitionMetadata([]byte("version: 0\ntopic_id: WlpaWlpaWlpaWlpaWlpaWg\n"))
	require.NoError(t, err)
	require.Equal(t, byte(0x5a), pm.TopicID[15])
	for text, want := range map[string]string{
		"version: 1\ntopic_id: WlpaWlpaWlpaWlpaWlpaWg\n": "version 1",
		"version: 0\ntopic_id: short\n":                  "UUID",
		"version: 0\n":                                   "two lines",
	} {
		_, err := ReadPartitionMetadata([]byte(text))
		require.ErrorContains(t, err, want, text)
	}

	props, problems, err := ReadMetaProperties(strings.NewReader("#c\nversion=1\nnode.id=3\n"))
	require.NoError(t, err)
	require.Len(t, props, 2)
	require.Equal(t, []string{"version 1 needs cluster.id"}, problems)
	_, problems, _ = ReadMetaProperties(strings.NewReader("version=0\nbroker.id=1\n"))
	require.Empty(t, problems)
	_, _, err = ReadMetaProperties(strings.NewReader("version\n"))
	require.ErrorContains(t, err, "key=value")
	// A key given twice: its last value, the one Kafka reads, and a problem.
	props, problems, err = ReadMetaProperties(strings.NewReader("version=1\nnode.id=1\ncluster.id=c\nnode.id=2\n"))
	require.NoError(t, err)
	require.Equal(t, []Property{{Key: "version", Value: "1", Line: 1}, {Key: "cluster.id", Value: "c", Line: 3}, {Key: "node.id", Value: "2", Line: 4}}, props)
	require.Equal(t, []string{`key "node.id" is given again (entry 4, first 2): Kafka uses the last value, "2"`}, problems)

	// The values Kafka parses: an id that is no int, a directory id that
	// is no Uuid (a broker refuses to start on either); only a missing
	// cluster.id was said.
	_, problems, err = ReadMetaProperties(strings.NewReader("version=1\nnode.id=x\ncluster.id=c\ndirectory.id=nope\n"))
	require.NoError(t, err)
	require.Equal(t, []string{`node.id "x" is not an int, as Kafka reads it`,
		`directory.id "nope" is not a Uuid (22 characters of URL-safe base64, 16 bytes), as Kafka reads it`}, problems)
	_, problems, _ = ReadMetaProperties(strings.NewReader("version=1\nnode.id=2\ncluster.id=c\ndirectory.id=aAsGnYmuQ1qxKbX0GJbZ0Q\n"))
	require.Empty(t, problems)
	_, problems, _ = ReadMetaProperties(strings.NewReader("version=0\nbroker.id=99999999999\n"))
	require.Equal(t, []string{`broker.id "99999999999" is not an int, as Kafka reads it`}, problems)
}

// A count line that says more entries than the file holds is reported at
// the count line, not at the last line read.
func TestCheckpointCountMismatchAtItsLine(t *testing.T) {
	_, err := readCheckpoint(t, "0\n5\n0 0\n1 10\n3 20\n", LeaderEpochCheckpoint)
	var te *TextError
	require.ErrorAs(t, err, &te)
	require.Equal(t, 2, te.Line, err.Error())
}

// quorum-state is checked against QuorumStateData at its data_version.
func TestQuorumState(t *testing.T) {
	q, err := ReadQuorumState([]byte(`{"leaderId":1,"leaderEpoch":2,"votedId":-1,"votedDirectoryId":"AAAAAAAAAAAAAAAAAAAAAA","data_version":1}`))
	require.NoError(t, err)
	require.Empty(t, q.Problems)
	q, err = ReadQuorumState([]byte(`{"clusterId":"c","leaderId":1,"leaderEpoch":2,"votedId":-1,"appliedOffset":0,"currentVoters":[{"voterId":1}],"data_version":0}`))
	require.NoError(t, err)
	require.Empty(t, q.Problems, "version 0's members")
	q, err = ReadQuorumState([]byte(`{"leaderId":1,"bogus":true,"data_version":1}`))
	require.NoError(t, err)
	require.Contains(t, strings.Join(q.Problems, ";"), "bogus is not a member of QuorumStateData version 1")
	_, err = ReadQuorumState([]byte(`not json`))
	require.Error(t, err)
}

// A producer snapshot laid out as Kafka writes it reads through the
// ProducerSnapshot schema, its CRC checked; its JSON encodes back.
func TestProducerSnapshot(t *testing.T) {
	b := []byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1}
	b = append(b, bytes.Repeat([]byte{0, 0, 0, 0, 0, 0, 0, 7}, 1)...)
	b = append(b, make([]byte, 38)...)
	binaryCRC(b)
	p := ReadProducerSnapshot(b)
	require.NoError(t, p.Err)
	require.True(t, p.CRCValid)
	v, err := parseJSON(p.AppendJSON(nil))
	require.NoError(t, err)
	again, err := EncodeProducerSnapshot(v.(map[string]any))
	require.NoError(t, err)
	require.Equal(t, b, again)

	b[20] ^= 1
	require.False(t, ReadProducerSnapshot(b).CRCValid)
	// Too short for its header: said at byte 0 (a binary file has no lines).
	require.EqualError(t, ReadProducerSnapshot(b[:5]).Err, "at byte 0: a producer snapshot has at least an int16 version and a uint32 CRC (6 bytes); this one has 5")
	require.EqualError(t, ReadProducerSnapshot(nil).Err, "at byte 0: the file is empty; a producer snapshot has at least an int16 version and a uint32 CRC (6 bytes)")
	require.Error(t, ReadProducerSnapshot(b[:30]).Err, "an entry cut short")

	// Each problem once: an empty file was also said to have a CRC that
	// does not match, one it has no room for.
	require.Equal(t, []string{"the CRC does not match the bytes"}, ReadProducerSnapshot(b).Problems())
	require.Equal(t, []string{"at byte 0: the file is empty; a producer snapshot has at least an int16 version and a uint32 CRC (6 bytes)"}, ReadProducerSnapshot(nil).Problems())
	require.Len(t, ReadProducerSnapshot(b[:5]).Problems(), 1)
	require.Len(t, ReadProducerSnapshot(b[:30]).Problems(), 2, "a CRC of other bytes, and the entry cut short")
}
