package codec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// startBroker serves the example broker on a loopback port chosen by the
// OS until the test ends.
func startBroker(t *testing.T) (*broker, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	b := newBroker("127.0.0.1", int32(port))
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go b.serve(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return b, ln.Addr().String()
}

// waitRecords waits (a bounded time) until the broker holds n records of
// a topic's partition, for producers that get no answer (acks=0).
func waitRecords(t *testing.T, b *broker, topic string, n int) []record {
	deadline := time.After(10 * time.Second)
	for {
		if rs := b.records(topic, 0); len(rs) >= n {
			return rs
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s: %d records arrived, want %d", topic, len(b.records(topic, 0)), n)
		}
	}
}

// TestBrokerExampleClients runs real clients against the example broker:
// franz-go's kgo producing at the versions of three Kafka releases (and
// once with acks=0) with four compression codecs, then consuming from the
// start; kcat producing keyed lines with a header, consuming them, and
// listing metadata; a message set in Produce v3 refused. The records must
// arrive in the broker decoded and come back whole, and the broker's
// version-free handlers must have answered every version the clients
// chose without an error.
func TestBrokerExampleClients(t *testing.T) {
	b, addr := startBroker(t)

	t.Run("kgo", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			max   *kversion.Versions
			codec kgo.CompressionCodec
			noAck bool
		}{
			{"0.11", kversion.V0_11_0(), kgo.GzipCompression(), false},
			{"2.4", kversion.V2_4_0(), kgo.Lz4Compression(), false},
			{"latest", kversion.Stable(), kgo.ZstdCompression(), false},
			{"latest-acks0", kversion.Stable(), kgo.SnappyCompression(), true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				topic := "kgo-" + tc.name
				opts := []kgo.Opt{kgo.SeedBrokers(addr), kgo.MaxVersions(tc.max), kgo.DefaultProduceTopic(topic),
					kgo.ProducerBatchCompression(tc.codec), kgo.RecordRetries(3), kgo.RequestRetries(3)}
				if tc.noAck {
					opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
				}
				cl, err := kgo.NewClient(opts...)
				require.NoError(t, err)
				defer cl.Close()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()

				var sent []*kgo.Record
				for i := range 5 {
					sent = append(sent, &kgo.Record{
						Key:     []byte(fmt.Sprintf("key-%d", i)),
						Value:   bytes.Repeat([]byte(fmt.Sprintf("value %d of %s; ", i, tc.name)), 20),
						Headers: []kgo.RecordHeader{{Key: "trace", Value: []byte(strconv.Itoa(100 + i))}},
					})
				}
				require.NoError(t, cl.ProduceSync(ctx, sent...).FirstErr())

				got := waitRecords(t, b, topic, len(sent))
				require.Len(t, got, len(sent))
				for i, r := range sent {
					require.Equal(t, r.Key, got[i].Key, "record %d", i)
					require.Equal(t, r.Value, got[i].Value, "record %d", i)
					require.Equal(t, [][2]string{{"trace", strconv.Itoa(100 + i)}}, got[i].Headers, "record %d", i)
					require.Equal(t, int64(i), got[i].Offset)
					if !tc.noAck {
						require.Equal(t, int64(i), r.Offset, "kgo read the offset from the broker's answer")
					}
				}

				// Consumed back from the start (ListOffsets, then Fetch).
				cons, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.MaxVersions(tc.max), kgo.ConsumeTopics(topic),
					kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.RequestRetries(3))
				require.NoError(t, err)
				defer cons.Close()
				var back []*kgo.Record
				for len(back) < len(sent) && ctx.Err() == nil {
					fs := cons.PollFetches(ctx)
					fs.EachError(func(_ string, _ int32, err error) {
						if ctx.Err() == nil {
							t.Errorf("fetch: %v", err)
						}
					})
					back = append(back, fs.Records()...)
				}
				require.Len(t, back, len(sent))
				for i, r := range sent {
					require.Equal(t, r.Key, back[i].Key, "record %d", i)
					require.Equal(t, r.Value, back[i].Value, "record %d", i)
					require.Equal(t, r.Headers, back[i].Headers, "record %d", i)
					require.Equal(t, int64(i), back[i].Offset)
					require.Equal(t, r.Timestamp.UnixMilli(), back[i].Timestamp.UnixMilli(), "record %d", i)
				}
			})
		}
	})

	t.Run("kcat", func(t *testing.T) {
		kcat, err := exec.LookPath("kcat")
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatal("kcat is required in CI (.ci/run installs it)")
			}
			t.Skip("kcat not installed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		run := func(stdin string, args ...string) []byte {
			cmd := exec.CommandContext(ctx, kcat, append([]string{"-b", addr, "-X", "broker.address.family=v4"}, args...)...)
			cmd.Stdin = strings.NewReader(stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "kcat %v: %s", args, stderr.String())
			return out
		}

		var lines strings.Builder
		for i := range 100 {
			fmt.Fprintf(&lines, "key-%d:line %d from kcat\n", i, i)
		}
		run(lines.String(), "-P", "-t", "kcat", "-K", ":", "-H", "source=kcat", "-z", "gzip")
		got := b.records("kcat", 0)
		require.Len(t, got, 100)
		for i, r := range got {
			require.Equal(t, fmt.Sprintf("key-%d", i), string(r.Key))
			require.Equal(t, fmt.Sprintf("line %d from kcat", i), string(r.Value))
			require.Equal(t, [][2]string{{"source", "kcat"}}, r.Headers)
			require.Equal(t, int64(i), r.Offset)
		}

		// Consumed back through Fetch: every line, key and header.
		out := run("", "-C", "-t", "kcat", "-p", "0", "-o", "0", "-e", "-q", "-f", "%k:%s:%h\n")
		var want strings.Builder
		for i := range 100 {
			fmt.Fprintf(&want, "key-%d:line %d from kcat:source=kcat\n", i, i)
		}
		require.Equal(t, want.String(), string(out))

		var md struct {
			Brokers []struct {
				ID   int32  `json:"id"`
				Name string `json:"name"`
			} `json:"brokers"`
			Topics []struct {
				Topic      string            `json:"topic"`
				Partitions []json.RawMessage `json:"partitions"`
			} `json:"topics"`
		}
		require.NoError(t, json.Unmarshal(run("", "-L", "-J"), &md))
		require.Len(t, md.Brokers, 1)
		require.Equal(t, int32(1), md.Brokers[0].ID)
		require.Equal(t, addr, md.Brokers[0].Name)
		parts := map[string]int{}
		for _, tp := range md.Topics {
			parts[tp.Topic] = len(tp.Partitions)
		}
		require.Equal(t, 2, parts["orders"])
		require.Equal(t, 1, parts["kcat"])
	})

	t.Run("message set refused", func(t *testing.T) {
		// Produce v3 and later carry record batches only: a magic 1
		// message set is INVALID_RECORD, and nothing of it is kept.
		conn, server := net.Pipe()
		go b.serve(server)
		defer conn.Close()
		c := &client{conn: conn}
		f, err := c.call(schema.KeyProduce, 3, map[string]any{"acks": -1, "timeoutMs": 1000, "topicData": []map[string]any{
			{"name": "orders", "partitionData": []map[string]any{{"index": 0, "records": []map[string]any{
				{"offset": 0, "magic": 1, "attributes": 0, "timestamp": 1700000000000, "key": []byte("k"), "value": []byte("v")},
			}}}},
		}})
		require.NoError(t, err)
		codes := f.ErrorCodes()
		require.Len(t, codes, 1)
		require.Equal(t, "INVALID_RECORD", codes[0].Name)
		require.Empty(t, b.records("orders", 0))
	})

	b.mu.Lock()
	defer b.mu.Unlock()
	require.Empty(t, b.errs, "the broker hung up on a client")
	versions := map[int16][]int16{}
	for k := range b.asked {
		versions[k[0]] = append(versions[k[0]], k[1])
	}
	t.Logf("versions answered: %v", versions)
	for _, k := range []int16{schema.KeyMetadata, schema.KeyProduce, schema.KeyFetch, schema.KeyListOffsets} {
		require.GreaterOrEqual(t, len(versions[k]), 3, "%s: the same handler answered several versions", schema.APIName(k))
	}
}

// BenchmarkBrokerExampleAnswer measures the example broker's answer to one
// request (header, decode, handler, lenient encode), frames as its client
// writes them: Metadata for one topic, Produce of a batch of 5 records of
// 200 bytes, Fetch of them back.
func BenchmarkBrokerExampleAnswer(b *testing.B) {
	br := newBroker("127.0.0.1", 9092)
	id := br.topics["orders"].id
	var recs []map[string]any
	for i := range 5 {
		recs = append(recs, map[string]any{"offsetDelta": i, "key": []byte(fmt.Sprint("key-", i)), "value": bytes.Repeat([]byte{'v'}, 200),
			"headers": []map[string]any{{"key": "trace", "value": []byte("abc")}}})
	}
	batch := []map[string]any{{"baseOffset": 0, "partitionLeaderEpoch": -1, "magic": 2, "lastOffsetDelta": 4, "baseTimestamp": 1700000000000,
		"maxTimestamp": 1700000000000, "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "records": recs}}
	frame := func(key, version int16, body map[string]any) []byte {
		out, err := codec.Encode(nil, map[string]any{"apiKey": key, "apiVersion": version,
			"header": map[string]any{"correlationId": 1, "clientId": "bench"}, "body": body}, codec.EncodeOptions{Lenient: true})
		require.NoError(b, err)
		return out
	}
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"Metadata/v0", frame(schema.KeyMetadata, 0, map[string]any{"topics": []map[string]any{{"name": "orders"}}})},
		{"Metadata/v13", frame(schema.KeyMetadata, 13, map[string]any{"topics": []map[string]any{{"name": "orders"}}})},
		{"Produce/v3", frame(schema.KeyProduce, 3, map[string]any{"acks": -1, "timeoutMs": 1000, "topicData": []map[string]any{
			{"name": "orders", "partitionData": []map[string]any{{"index": 0, "records": batch}}}}})},
		{"Produce/v13", frame(schema.KeyProduce, 13, map[string]any{"acks": -1, "timeoutMs": 1000, "topicData": []map[string]any{
			{"topicId": id, "partitionData": []map[string]any{{"index": 0, "records": batch}}}}})},
		{"Fetch/v18", frame(schema.KeyFetch, 18, map[string]any{"maxWaitMs": 0, "minBytes": 1, "maxBytes": 1 << 20, "topics": []map[string]any{
			{"topicId": id, "partitions": []map[string]any{{"partition": 1, "fetchOffset": 0, "partitionMaxBytes": 1 << 20}}}}})},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var dec codec.Decoder
			br.topics["orders"].logs[1], _ = keep(nil, must(must(codec.Decode(frame(schema.KeyProduce, 3, map[string]any{"acks": -1, "timeoutMs": 1000,
				"topicData": []map[string]any{{"name": "orders", "partitionData": []map[string]any{{"index": 0, "records": batch}}}}}), codec.Options{})).
				Body.Lookup("topicData[0].partitionData[0].records")))
			b.SetBytes(int64(len(tc.frame)))
			b.ReportAllocs()
			for b.Loop() {
				br.topics["orders"].logs[0] = br.topics["orders"].logs[0][:0]
				if _, err := br.answer(&dec, tc.frame); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
