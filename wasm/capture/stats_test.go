//go:build js && wasm

package main

import (
	"encoding/binary"
	"reflect"
	"testing"
	"time"
)

// TestSummaryCountsUnlisted: the per-API figures the page's summary shows
// cover every exchange of a capture, not only the maxListed it lists.
// 12,000 ApiVersions exchanges (11,000 v0, then 1,000 v1), exchange i
// answered in i+1 µs: the first 10,000 are listed, and "apis" counts all
// 12,000, their versions and bytes, and their latencies' percentiles by
// nearest rank (6.000 and 11.880 ms) and maximum (12.000 ms), where the
// listed ones alone give 5.000, 9.900 and 10.000. (The old code said
// nothing of the 2,000 but their count per API in a note.)
func TestSummaryCountsUnlisted(t *testing.T) {
	const n, v1 = 12000, 1000
	c := newPcapConn()
	for i := 0; i < n; i++ {
		ver := byte(0)
		if i >= n-v1 {
			ver = 1
		}
		req := binary.BigEndian.AppendUint32(nil, 10)
		req = append(req, 0, 18, 0, ver) // ApiVersions
		req = binary.BigEndian.AppendUint32(req, uint32(i))
		req = append(req, 0xff, 0xff) // no client id
		resp := binary.BigEndian.AppendUint32(nil, uint32(10+4*int(ver)))
		resp = binary.BigEndian.AppendUint32(resp, uint32(i))
		resp = append(resp, 0, 0, 0, 0, 0, 0) // no error, no APIs
		if ver == 1 {
			resp = append(resp, 0, 0, 0, 0) // no throttle
		}
		at := time.Duration(i) * 20 * time.Millisecond
		c.at = at - time.Microsecond // send moves it on by one
		c.send(false, req)
		c.at = at + time.Duration(i+1)*time.Microsecond - time.Microsecond
		c.send(true, resp)
	}
	s, _ := readSummary(t, c.b)
	if len(s.Exchanges) != maxListed {
		t.Fatalf("%d exchanges listed, want %d", len(s.Exchanges), maxListed)
	}
	if len(s.APIs) != 1 {
		t.Fatalf("apis %+v, want ApiVersions's figures of all %d exchanges", s.APIs, n)
	}
	a := s.APIs[0]
	if a.API != "ApiVersions" || a.Count != n || a.Bytes != (n-v1)*28+v1*32 || !reflect.DeepEqual(a.Versions, [][2]int{{0, n - v1}, {1, v1}}) {
		t.Errorf("apis %+v: want ApiVersions ×%d, v0×%d v1×%d, %d bytes", a, n, n-v1, v1, (n-v1)*28+v1*32)
	}
	if a.Latencies != n || a.P50Ms != 6 || a.P99Ms != 11.88 || a.MaxMs != 12 || a.Sampled {
		t.Errorf("latencies %d, p50 %v, p99 %v, max %v ms, sampled %v: want %d, 6, 11.88 and 12, from every latency", a.Latencies, a.P50Ms, a.P99Ms, a.MaxMs, a.Sampled, n)
	}
	want := "2000 of the capture's 12000 exchanges are not listed or checked (ApiVersions 2000): the page lists the first 10000 (by their first packet), their frames at most 128 MiB; the per-API summary counts them all, but for errors and expected codes; kwire pcap and kwire check read them all"
	if len(s.Notes) == 0 || s.Notes[0] != want {
		t.Errorf("notes %q, want first %q", s.Notes, want)
	}
}
