package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/internal/registry/registrytest"
)

// kwire serve with a registry: a frame of 5,000 records, each value
// framed with a new schema id (65 KB), makes the server ask the registry
// for at most 32 of them, once, and answer at once with one limit warning;
// it asked for every id, one after another (100+ s).
func TestServeSchemaLookupsBounded(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	pf := payloadFlags{registry: srv.URL, mode: "decoded", timeout: time.Second}
	hook, err := pf.serverHook(io.Discard)
	require.NoError(t, err)

	const n = 5000
	var recs []byte
	for i := 0; i < n; i++ {
		v := binary.BigEndian.AppendUint32([]byte{0}, uint32(1000000+i))
		r := kmsg.Record{OffsetDelta: int32(i), Value: append(v, 0)}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		recs = r.AppendTo(recs)
	}
	rb := kmsg.RecordBatch{Magic: 2, LastOffsetDelta: n - 1, FirstTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: n, Records: recs}
	batch := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(batch[8:], uint32(len(batch)-12))
	binary.BigEndian.PutUint32(batch[17:], crc32.Checksum(batch[21:], crc32.MakeTable(crc32.Castagnoli)))
	resp := kmsg.NewFetchResponse()
	resp.SetVersion(11)
	tp := kmsg.NewFetchResponseTopic()
	tp.Topic = "clicks"
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = n, n, batch
	tp.Partitions = append(tp.Partitions, p)
	resp.Topics = append(resp.Topics, tp)
	body := resp.AppendTo(nil)
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	frame = binary.BigEndian.AppendUint32(frame, 7)
	frame = append(frame, body...)

	s := httptest.NewServer(siteHandlerWith(t.TempDir(), api.Options{Payload: hook}))
	defer s.Close()
	start := time.Now()
	res, err := http.Post(s.URL+"/api/decode?direction=response&api=Fetch&version=11", "application/octet-stream", bytes.NewReader(frame))
	require.NoError(t, err)
	out, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode, string(out))
	require.LessOrEqual(t, reg.Requests, 32, "registry requests for one frame")
	require.Equal(t, 1, strings.Count(string(out), "the limit of schema lookups per frame"))
	require.Less(t, time.Since(start), 10*time.Second)
}
