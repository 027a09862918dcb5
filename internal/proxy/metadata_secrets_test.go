package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/wire"
	"github.com/kwire/kwire/internal/storagedata"
)

// metadataRecord is a __cluster_metadata record value: frame version 1,
// apiKey, version, then the record as the codec encodes value JSON.
func metadataRecord(t *testing.T, apiKey int16, name string, value map[string]any) []byte {
	b := wire.AppendUvarint(wire.AppendUvarint(wire.AppendUvarint(nil, 1), uint32(apiKey)), 0)
	b, err := codec.Encode(b, map[string]any{"data": name, "value": value}, codec.EncodeOptions{Version: 0})
	require.NoError(t, err)
	return b
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// kraftFetch is the Fetch v17 response a KRaft voter gets for the
// metadata log (by its fixed id): a batch of a sensitive ConfigRecord, an
// ordinary one and a UserScramCredentialRecord, compressed when gzip.
func kraftFetch(t *testing.T, compress bool) *Exchange {
	recs := []storagedata.Record{
		{Value: metadataRecord(t, 4, "ConfigRecord", map[string]any{"resourceType": 4, "resourceName": "1", "name": "listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config", "value": "hunter2-jaas"})},
		{Value: metadataRecord(t, 4, "ConfigRecord", map[string]any{"resourceType": 2, "resourceName": "orders", "name": "retention.ms", "value": "604800000"}), TimestampDelta: 1},
		{Value: metadataRecord(t, 11, "UserScramCredentialRecord", map[string]any{"name": "alice", "mechanism": 1, "salt": b64("saltsaltsalt"), "storedKey": b64("storedkey-storedkey"), "serverKey": b64("serverkey-serverkey"), "iterations": 4096}), TimestampDelta: 2},
	}
	batch := storagedata.Batch(recs, storagedata.BatchOptions{FirstTimestamp: 1700000000000, ProducerID: -1})
	if compress {
		var rb kmsg.RecordBatch
		require.NoError(t, rb.ReadFrom(batch))
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(rb.Records)
		require.NoError(t, w.Close())
		rb.Attributes, rb.Records = rb.Attributes|1, buf.Bytes()
		batch = rb.AppendTo(nil)
		binary.BigEndian.PutUint32(batch[8:], uint32(len(batch)-12))
		binary.BigEndian.PutUint32(batch[17:], crc32.Checksum(batch[21:], crc32.MakeTable(crc32.Castagnoli)))
	}
	r := kmsg.NewPtrFetchResponse()
	r.Version = 17
	tp := kmsg.NewFetchResponseTopic()
	tp.TopicID = [16]byte{15: 1}
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = 3, 3, batch
	tp.Partitions = append(tp.Partitions, p)
	r.Topics = append(r.Topics, tp)
	rsp := append([]byte{0, 0, 0, 0, 0, 0, 0, 7, 0}, r.AppendTo(nil)...)
	binary.BigEndian.PutUint32(rsp, uint32(len(rsp)-4))
	req := kmsg.NewPtrFetchRequest()
	req.Version = 17
	rq := kmsg.NewRequestFormatter(kmsg.FormatterClientID("raft")).AppendRequest(nil, req, 7)
	return &Exchange{APIKey: 1, APIVersion: 17, CorrelationID: 7, Request: rq, Response: rsp, RequestSize: len(rq), ResponseSize: len(rsp)}
}

// TestRedactClusterMetadata: the metadata log a KRaft voter fetches holds
// secrets (sensitive configs in ConfigRecords, SCRAM credentials): the
// proxy zeroes them (the whole records field when they lie in compressed
// bytes), through both decoding paths, and leaves the rest readable.
func TestRedactClusterMetadata(t *testing.T) {
	secrets := []string{"hunter2-jaas", b64("saltsaltsalt"), b64("storedkey-storedkey"), b64("serverkey-serverkey"), "saltsaltsalt", "storedkey-storedkey", "serverkey-serverkey"}
	for _, compress := range []bool{false, true} {
		var d Decoder
		x := kraftFetch(t, compress)
		shown := d.Decode(kraftFetch(t, compress))
		require.NoError(t, shown.ResponseErr)
		got := d.Decode(x)
		require.NoError(t, got.ResponseErr)
		require.Equal(t, []string{"response.body.responses[0].partitions[0].records"}, got.Redacted)
		js := string(got.Response.AppendJSON(nil))
		for _, s := range secrets {
			require.NotContains(t, js, s)
			require.NotContains(t, string(x.Response), s)
		}
		x2 := kraftFetch(t, compress)
		jd := d.DecodeJSON(x2)
		require.NoError(t, jd.Response.Err)
		require.Equal(t, got.Redacted, jd.Redacted)
		require.Equal(t, js, string(jd.Response.JSON))
		if !compress {
			require.Contains(t, js, `"name":"retention.ms","value":"604800000"`, "an ordinary config stays")
			require.Contains(t, js, `"schema":"UserScramCredentialRecord","decoded":{"name":"alice"`)
		}
		d.ShowSecrets = true
		open := string(d.DecodeJSON(kraftFetch(t, compress)).Response.JSON)
		require.Contains(t, open, "hunter2-jaas")
		require.True(t, strings.Contains(open, `"storedKey":"`+b64("storedkey-storedkey")+`"`) || compress)
	}
}

// TestRedactClusterMetadataInAnyForm: the metadata log's secrets are
// zeroed whatever form the JSON is asked in (kwire proxy --payloads bytes,
// --kafka, --records base64), though that form reads no record: they were
// shown, as text or base64, when the tree that found them was the one
// printed.
func TestRedactClusterMetadataInAnyForm(t *testing.T) {
	forms := map[string]codec.Options{
		"payloads bytes": {InternalTopicsAsBytes: true},
		"kafka":          {Kafka: true},
		"records base64": {Records: codec.RecordsBase64},
	}
	for name, o := range forms {
		t.Run(name, func(t *testing.T) {
			d := Decoder{Options: o}
			x := kraftFetch(t, false)
			jd := d.DecodeJSON(x)
			require.NoError(t, jd.Response.Err)
			require.Equal(t, []string{"response.body.responses[0].partitions[0].records"}, jd.Redacted)
			require.NotContains(t, string(x.Response), "hunter2-jaas")
			require.NotContains(t, string(jd.Response.JSON), b64("hunter2-jaas")[:12])

			x = kraftFetch(t, false)
			got := d.Decode(x)
			require.NoError(t, got.ResponseErr)
			require.Equal(t, jd.Redacted, got.Redacted)
			require.NotContains(t, string(x.Response), "hunter2-jaas")
			require.Equal(t, string(jd.Response.JSON), string(got.Response.AppendJSON(nil)))
		})
	}
}

// TestCarriesMetadataByVersion: a frame is searched for
// __cluster_metadata the way its version names topics: by name up to
// Fetch 12 (and in every FetchSnapshot), by the fixed topic id from Fetch
// 13 on; the other way is not looked for.
func TestCarriesMetadataByVersion(t *testing.T) {
	name, id := []byte("..__cluster_metadata.."), append([]byte(".."), metadataTopicID...)
	for _, c := range []struct {
		key, ver int16
		byName   bool
	}{{1, 12, true}, {1, 13, false}, {1, 17, false}, {0, 9, true}, {59, 0, true}, {59, 1, true}} {
		require.Equal(t, c.byName, carriesMetadata(c.key, c.ver, name), "%d v%d by name", c.key, c.ver)
		require.Equal(t, !c.byName, carriesMetadata(c.key, c.ver, id), "%d v%d by id", c.key, c.ver)
	}
	require.False(t, carriesMetadata(3, 12, name), "Metadata carries no records")
}

// TestCarriesMetadataFirstTopic: the topic is looked for where a KRaft
// node's frames name it, among the first bytes; a name deep in a frame's
// records is not searched for.
func TestCarriesMetadataFirstTopic(t *testing.T) {
	deep := append(make([]byte, metadataWindow), "__cluster_metadata"...)
	require.False(t, carriesMetadata(1, 12, deep))
	require.True(t, carriesMetadata(1, 12, deep[metadataWindow-100:]))
}
