package main

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// --payloads bytes asks for records' keys and values as bytes, and the
// keys and values of Kafka's internal topics are no exception: each test
// below reads the commit record commitTraffic (or kgo through the proxy)
// puts in __consumer_offsets, decoded by default, and bytes (the value's
// base64) with --payloads bytes.

// wantCommitBytes is commitRecord's value as bytes JSON.
func wantCommitBytes() string {
	_, value := commitRecord()
	return `{"base64":"` + base64.StdEncoding.EncodeToString(value) + `"}`
}

// requireBytesNotDecoded: out has the commit value as bytes and no
// internal record decoded.
func requireBytesNotDecoded(t *testing.T, out string) {
	t.Helper()
	require.NotContains(t, out, "OffsetCommitValue", "--payloads bytes: an internal topic's values stay bytes")
	require.NotContains(t, out, "OffsetCommitKey")
	require.NotContains(t, out, `"format":"kafka"`)
	require.Contains(t, out, wantCommitBytes())
}

func commitFetch(t *testing.T) (*[]byte, int16, string) {
	t.Helper()
	pairs, id := commitTraffic(t)
	for i := range pairs {
		if pairs[i].Request.Key == 1 && strings.Contains(string(pairs[i].Response.Bytes), "billing") {
			return &pairs[i].Response.Bytes, pairs[i].Request.Version, base64.RawURLEncoding.EncodeToString(id[:]) + "=__consumer_offsets"
		}
	}
	t.Fatal("no Fetch response carries the commit")
	return nil, 0, ""
}

func TestPayloadsBytesDecode(t *testing.T) {
	resp, version, topicID := commitFetch(t)
	args := []string{"decode", "--format", "ndjson", "--response", "--api", "Fetch", "--version", strconv.Itoa(int(version)), "--topic-id", topicID}
	h := hex.EncodeToString(*resp)
	out, errOut, code := runCLI(t, append(args, h), nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, wantCommitValue)
	out, errOut, code = runCLI(t, append(args, "--payloads", "bytes", h), nil)
	require.Equal(t, 0, code, errOut)
	requireBytesNotDecoded(t, out)
}

func TestPayloadsBytesBatch(t *testing.T) {
	resp, version, topicID := commitFetch(t)
	args := []string{"batch", "--response", "--api", "Fetch", "--version", strconv.Itoa(int(version)), "--topic-id", topicID}
	in := []byte(hex.EncodeToString(*resp) + "\n")
	out, errOut, code := runCLI(t, args, in)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, wantCommitValue)
	out, errOut, code = runCLI(t, append(args, "--payloads", "bytes"), in)
	require.Equal(t, 0, code, errOut)
	requireBytesNotDecoded(t, out)
}

func TestPayloadsBytesPcap(t *testing.T) {
	pairs, _ := commitTraffic(t)
	file := writePcap(t, pairs)
	out, errOut, code := runCLI(t, []string{"pcap", "--api", "Fetch", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, wantCommitValue)
	out, errOut, code = runCLI(t, []string{"pcap", "--api", "Fetch", "--payloads", "bytes", file}, nil)
	require.Equal(t, 0, code, errOut)
	requireBytesNotDecoded(t, out)
}

func TestPayloadsBytesProxy(t *testing.T) {
	out := commitThroughProxy(t, "--payloads", "bytes")
	require.NotEmpty(t, parseProxyLines(t, out))
	requireBytesNotDecoded(t, out)
}

// kwire log: --payloads bytes leaves an internal topic's records as
// --kafka does; by default they are decoded ("internal").
func TestPayloadsBytesLog(t *testing.T) {
	seg := "logdir/__consumer_offsets-7/00000000000000000000.log"
	out, errOut, code := runCLI(t, []string{"log", seg}, nil)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, `"internal":[`)
	bytesOut, errOut, code := runCLI(t, []string{"log", "--payloads", "bytes", seg}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, bytesOut, `"internal"`)
	require.NotContains(t, bytesOut, "OffsetCommit")
	kafka, _, _ := runCLI(t, []string{"log", "--kafka", seg}, nil)
	require.Equal(t, kafka, bytesOut)
}
