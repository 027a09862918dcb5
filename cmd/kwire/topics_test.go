package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/kwire/kwire/internal/topicids"
)

// commitRecord is the key and value of a commit record, as the group
// coordinator writes one (kmsg's types); wantCommitValue is its value
// decoded.
func commitRecord() (key, value []byte) {
	ok := kmsg.OffsetCommitKey{Version: 1, Group: "billing", Topic: "orders", Partition: 3}
	ov := kmsg.NewOffsetCommitValue()
	ov.Version, ov.Offset, ov.LeaderEpoch, ov.Metadata, ov.CommitTimestamp = 3, 4242, 7, "note", 1700000000123
	return ok.AppendTo(nil), ov.AppendTo(nil)
}

// commitTraffic is commitRecord produced by kgo into __consumer_offsets
// on kfake and fetched back, and the topic's id.
func commitTraffic(t *testing.T) ([]traffic.Pair, [16]byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	key, value := commitRecord()
	pairs, err := traffic.ProduceAndFetch(ctx, "__consumer_offsets", key, value)
	require.NoError(t, err)
	var names topicids.Names
	var id [16]byte
	for _, p := range pairs {
		if p.Request.Key == 3 {
			var m kmsg.MetadataResponse
			m.Version = p.Request.Version
			hdr := 8
			if m.IsFlexible() {
				hdr++
			}
			require.NoError(t, m.ReadFrom(p.Response.Bytes[hdr:]))
			for _, tp := range m.Topics {
				if tp.Topic != nil && *tp.Topic == "__consumer_offsets" {
					id = tp.TopicID
				}
			}
		}
		names.LearnFrom(p.Response.Bytes, p.Request.Key, p.Request.Version)
	}
	require.NotEqual(t, [16]byte{}, id, "kfake's Metadata names the topic's id")
	require.Equal(t, "__consumer_offsets", names.Name(id), "learned from the Metadata responses, as kmsg reads them")
	return pairs, id
}

const wantCommitValue = `"format":"kafka","version":3,"schema":"OffsetCommitValue","decoded":{"offset":4242,"leaderEpoch":7,"metadata":"note","commitTimestamp":1700000000123}`

func writePcap(t *testing.T, pairs []traffic.Pair) string {
	file := filepath.Join(t.TempDir(), "commit.pcap")
	f, err := os.Create(file)
	require.NoError(t, err)
	_, err = traffic.WritePcap(f, traffic.PcapOptions{Pairs: len(pairs), Mix: pairs})
	require.NoError(t, err)
	require.NoError(t, f.Close())
	return file
}

// kwire pcap learns topic ids from the Metadata responses in the capture
// and decodes the commit record the Fetch response (v13+: by id) carries;
// without the Metadata exchanges it cannot, unless --topic-id names the
// id.
func TestPcapInternalTopicByID(t *testing.T) {
	pairs, id := commitTraffic(t)
	out, errOut, code := runCLI(t, []string{"pcap", "--api", "Fetch", writePcap(t, pairs)}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, wantCommitValue)
	require.Contains(t, out, `"schema":"OffsetCommitKey","decoded":{"group":"billing","topic":"orders","partition":3}`)

	var noMeta []traffic.Pair
	for _, p := range pairs {
		if p.Request.Key != 3 {
			noMeta = append(noMeta, p)
		}
	}
	file := writePcap(t, noMeta)
	out, errOut, code = runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "OffsetCommitValue", "no Metadata seen: the id names no topic")
	require.Contains(t, out, `"apiKey":1`)
	flag := base64.RawURLEncoding.EncodeToString(id[:]) + "=__consumer_offsets"
	out, errOut, code = runCLI(t, []string{"pcap", "--topic-id", flag, file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, wantCommitValue)
}

// kwire decode --topic-id names the id a Fetch response names its topic
// by, so its __consumer_offsets records decode; a bad --topic-id is a
// usage error.
func TestDecodeTopicIDFlag(t *testing.T) {
	pairs, id := commitTraffic(t)
	var fetch *traffic.Pair
	for i := range pairs {
		if pairs[i].Request.Key == 1 && strings.Contains(string(pairs[i].Response.Bytes), "billing") {
			fetch = &pairs[i]
		}
	}
	require.NotNil(t, fetch)
	require.GreaterOrEqual(t, fetch.Request.Version, int16(13), "kgo fetches by topic id")
	args := []string{"decode", "--format", "ndjson", "--response", "--api", "Fetch", "--version", strconv.Itoa(int(fetch.Request.Version))}
	h := hex.EncodeToString(fetch.Response.Bytes)
	out, errOut, code := runCLI(t, append(args, h), nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, "OffsetCommitValue")
	uuid := hex.EncodeToString(id[:])
	uuid = uuid[:8] + "-" + uuid[8:12] + "-" + uuid[12:16] + "-" + uuid[16:20] + "-" + uuid[20:]
	out, errOut, code = runCLI(t, append(args, "--topic-id", uuid+"=__consumer_offsets", h), nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, wantCommitValue)
	_, errOut, code = runCLI(t, append(args, "--topic-id", "nope=__consumer_offsets", h), nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "topic id")
}

// kwire proxy learns topic ids from the Metadata responses it relays (even
// under --api Fetch, which shows no Metadata), so the commit record kgo
// fetches from __consumer_offsets by topic id is decoded in the Fetch
// lines it prints.
func TestProxyInternalTopicByID(t *testing.T) {
	out := commitThroughProxy(t)
	lines := parseProxyLines(t, out)
	require.NotEmpty(t, lines)
	decoded := 0
	for _, l := range lines {
		require.Equal(t, "Fetch", l.APIName)
		if strings.Contains(string(l.Response), wantCommitValue) {
			decoded++
			require.GreaterOrEqual(t, l.APIVersion, 13, "the Fetch names its topic by id")
		}
	}
	require.Greater(t, decoded, 0, out)
}

// commitThroughProxy runs kwire proxy (NDJSON of the Fetch exchanges,
// flags added) in front of kfake while kgo produces commitRecord into
// __consumer_offsets and fetches it back by topic id; the proxy's output.
func commitThroughProxy(t *testing.T, flags ...string) string {
	t.Helper()
	cluster, _ := kfakeCluster(t, kfake.SeedTopics(1, "__consumer_offsets"))
	args := []string{"--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--api", "Fetch"}
	p := startProxyCLI(t, append(args, flags...)...)
	key, value := commitRecord()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.ConsumeTopics("__consumer_offsets"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	require.NoError(t, cl.ProduceSync(ctx, &kgo.Record{Topic: "__consumer_offsets", Key: key, Value: value}).FirstErr())
	for got := 0; got < 1; {
		got += cl.PollFetches(ctx).NumRecords()
		require.NoError(t, ctx.Err())
	}
	cl.Close()
	out, _ := p.stop(t)
	return out
}
