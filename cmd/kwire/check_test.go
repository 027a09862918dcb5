package main

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/internal/bench/traffic"
)

var ruleExamples = filepath.Join("..", "..", "codec", "check", "ruledoc", "examples")

func example(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join(ruleExamples, name))
	require.NoError(t, err)
	return p
}

// TestCheckRealClients: the captures of real clients (franz-go producing
// with every codec, a consumer group, kcat) break no rule at error level,
// nor at any other.
func TestCheckRealClients(t *testing.T) {
	out, errOut, code := runCLI(t, []string{"check", "--fail-on", "note", "kfake-clients.pcapng"}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.Empty(t, strings.TrimSpace(out))
	require.Contains(t, errOut, "check: 0 errors, 0 warnings, 0 notes")
}

// TestCheckText: one line per finding, RULE severity where: what,
// expected, found; the exit status follows --fail-on.
func TestCheckText(t *testing.T) {
	crc := example(t, "records.crc.bad.hex")
	out, errOut, code := runCLI(t, []string{"check", crc}, nil)
	require.Equal(t, 1, code, errOut)
	line := regexp.MustCompile(`(?m)^records\.crc error frame 1 correlation 1 request at byte 58 \(body\.topicData\[0\]\.partitionData\[0\]\.records\[0\]\.crc\): CRC-32C mismatch: computed 0x[0-9a-f]{8}, found 0x[0-9a-f]{8}$`)
	require.Regexp(t, line, out)
	require.Contains(t, out, "conn.version skipped frame 1 correlation 1 request: no ApiVersions answer", "a rule that cannot be judged says so once")
	require.Contains(t, errOut, "check: 1 error, 0 warnings, 0 notes")

	_, _, code = runCLI(t, []string{"check", "--fail-on", "none", crc}, nil)
	require.Equal(t, 0, code)

	// A warning fails only --fail-on warning or note.
	varint := example(t, "frame.varint.bad.hex")
	out, _, code = runCLI(t, []string{"check", varint}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, out, "frame.varint warning frame 1 correlation 1 request at byte 20 (body.clientSoftwareName): non-minimal varint")
	_, _, code = runCLI(t, []string{"check", "--fail-on", "warning", varint}, nil)
	require.Equal(t, 1, code)

	// Standard input, and several files named in the lines.
	b, err := os.ReadFile(crc)
	require.NoError(t, err)
	out, _, code = runCLI(t, []string{"check"}, b)
	require.Equal(t, 1, code)
	require.Regexp(t, line, out)
	out, _, _ = runCLI(t, []string{"check", crc, varint}, nil)
	require.Contains(t, out, crc+": records.crc error")
	require.Contains(t, out, varint+": frame.varint warning")

	_, errOut, code = runCLI(t, []string{"check", "--fail-on", "fatal", crc}, nil)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--fail-on must be")
}

// TestCheckCutResponse: a Fetch response cut short, given as hex lines
// after a whole one, was read as a Produce v7 request (its correlation id
// 7 reads so): a frame.enum error for an acks of 4822, a frame.decode
// error, and the whole response before it a stray. Check says the frame
// is cut and judges nothing else of it.
func TestCheckCutResponse(t *testing.T) {
	whole, _, code := runCLI(t, []string{"example", "Fetch", "--version", "12", "--response"}, nil)
	require.Equal(t, 0, code)
	frame, _, _ := strings.Cut(whole, "\n")
	in := frame + "\n" + frame[:len(frame)/4*2] + "\n"
	out, errOut, code := runCLI(t, []string{"check"}, []byte(in))
	require.Equal(t, 1, code, out+errOut)
	require.NotContains(t, out, "frame.enum")
	require.NotContains(t, out, "Produce")
	require.NotContains(t, out, "conn.correlation error")
	require.Regexp(t, `(?m)^frame\.size error frame 2 at byte 0 \(size\): the frame is cut short, and nothing in it is judged: .* most likely a response \(correlation id 7\), .*expected \d+ bytes after the size, as it says, found \d+$`, out)
	require.Contains(t, errOut, "check: 1 error, 0 warnings, 0 notes")
}

// TestCheckSaysWhatItCouldNotRead: a file that is neither a capture nor
// frames is an error, exit 1, and the summary's counts, which say nothing
// of it, say it was not read; the files that were read still count.
func TestCheckSaysWhatItCouldNotRead(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "notes.txt")
	require.NoError(t, os.WriteFile(junk, []byte("hello\n"), 0o644))
	_, errOut, code := runCLI(t, []string{"check", junk}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, junk+": ")
	require.Contains(t, errOut, "check: 0 errors, 0 warnings, 0 notes; 0 rules not judged (said in their lines); 1 of 1 files not read (said above)")

	out, errOut, code := runCLI(t, []string{"check", junk, example(t, "records.crc.bad.hex")}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, "records.crc error")
	require.Contains(t, errOut, "check: 1 error, 0 warnings, 0 notes; 1 rule not judged (said in its line); 1 of 2 files not read (said above)")
}

// TestCheckSaysJSONIsNotFrames: kwire pcap's and kwire proxy's NDJSON
// logs and kwire decode's value JSON hold no frame bytes; kwire check
// says what it needs instead, not "unexpected character 'o' in hex".
func TestCheckSaysJSONIsNotFrames(t *testing.T) {
	dir := t.TempDir()
	frame := exampleFrame(t, "ApiVersions", 3, false, 7)
	log := filepath.Join(dir, "proxy.ndjson")
	out, _, code := runCLI(t, []string{"pcap", connPcap(t, true, nil, segment{true, 0, frame})}, nil)
	require.Equal(t, 0, code)
	require.True(t, strings.HasPrefix(out, `{"conn":`), out)
	require.NoError(t, os.WriteFile(log, []byte(out), 0o644))
	value := filepath.Join(dir, "value.json")
	out, _, code = runCLI(t, []string{"decode", "--format", "json", hex.EncodeToString(frame)}, nil)
	require.Equal(t, 0, code)
	require.NoError(t, os.WriteFile(value, []byte(out), 0o644))
	for file, want := range map[string]string{
		log:   "this is the NDJSON log of kwire pcap or kwire proxy: its exchanges are decoded, and the frames' bytes are not in it. kwire check needs the frames: check the capture itself (pcap, pcapng), or run kwire proxy --check to check the traffic as it passes",
		value: "this is JSON, not frames: kwire check reads captures (pcap, pcapng) and frames (binary, hex, dumps); kwire encode turns a frame's value JSON back into its bytes (kwire encode FILE | kwire check)",
	} {
		_, errOut, code := runCLI(t, []string{"check", file}, nil)
		require.Equal(t, 1, code, errOut)
		require.Contains(t, errOut, "kwire: "+file+": "+want+"\n")
		require.NotContains(t, errOut, " in hex")
	}
	// What the hint says works.
	hexed, _, code := runCLI(t, []string{"encode", value}, nil)
	require.Equal(t, 0, code)
	_, errOut, code := runCLI(t, []string{"check"}, []byte(hexed))
	require.Equal(t, 0, code, errOut)
}

// TestCheckSaysACaptureIsCut: a capture cut short (or corrupt after some
// packet) is checked up to there, and, as for a file not read, standard
// error and the summary say it was not read whole and the exit status is
// 1 whatever --fail-on; the whole capture is reported as ever.
func TestCheckSaysACaptureIsCut(t *testing.T) {
	whole := trafficPcap(t, traffic.PcapOptions{Pairs: 20})
	_, errOut, code := runCLI(t, []string{"check", whole}, nil)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^kwire: check: 0 errors, \d+ warnings?, \d+ notes?; \d+ (rules not judged \(said in their lines\)|rule not judged \(said in its line\))\n$`, errOut)

	b, err := os.ReadFile(whole)
	require.NoError(t, err)
	cut := filepath.Join(t.TempDir(), "cut.pcap")
	require.NoError(t, os.WriteFile(cut, b[:len(b)-40], 0o644))
	for _, failOn := range []string{"error", "none"} {
		out, errOut, code := runCLI(t, []string{"check", "--fail-on", failOn, cut}, nil)
		require.Equal(t, 1, code, errOut)
		require.NotEmpty(t, out, "the findings up to the cut")
		require.Regexp(t, `kwire: `+regexp.QuoteMeta(cut)+`: packet \d+: file truncated or corrupt after packet \d+: truncated packet`, errOut)
		require.Contains(t, errOut, "; 1 of 1 files truncated or corrupt (said above)\n")
	}
	_, errOut, code = runCLI(t, []string{"check", whole, cut}, nil)
	require.Equal(t, 1, code, errOut)
	require.Contains(t, errOut, "; 1 of 2 files truncated or corrupt (said above)\n")
}

// TestCheckJSON: ndjson is one finding a line; json one document with the
// counts; both name the rule, its severity and level, where, what,
// expected and found.
func TestCheckJSON(t *testing.T) {
	file := example(t, "records.last-offset-delta.bad.hex")
	out, _, code := runCLI(t, []string{"check", "--format", "ndjson", file}, nil)
	require.Equal(t, 1, code)
	type where struct {
		Frame         int    `json:"frame"`
		CorrelationID *int32 `json:"correlationId"`
		Side          string `json:"side"`
		Offset        *int   `json:"offset"`
		Path          string `json:"path"`
	}
	type finding struct {
		Rule, Severity, Level, What, Expected, Found, File string
		Where                                              where
	}
	var got []finding
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var f finding
		require.NoError(t, json.Unmarshal([]byte(l), &f), l)
		got = append(got, f)
	}
	require.Len(t, got, 2)
	f := got[0]
	require.Equal(t, "records.last-offset-delta", f.Rule)
	require.Equal(t, "error", f.Severity)
	require.Equal(t, "records", f.Level)
	require.Equal(t, "1", f.Expected)
	require.Equal(t, "5", f.Found)
	require.Equal(t, file, f.File)
	require.Equal(t, "request", f.Where.Side)
	require.Equal(t, 1, f.Where.Frame)
	require.Equal(t, "body.topicData[0].partitionData[0].records[0].lastOffsetDelta", f.Where.Path)
	require.NotNil(t, f.Where.Offset)
	require.Equal(t, "skipped", got[1].Severity)

	out, _, _ = runCLI(t, []string{"check", "--format", "json", file}, nil)
	var doc struct {
		Findings []finding
		Errors   int
		Skipped  int
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	require.Len(t, doc.Findings, 2)
	require.Equal(t, 1, doc.Errors)
	require.Equal(t, 1, doc.Skipped)
}

// TestCheckSARIF: the SARIF report (--format sarif, and --sarif FILE
// beside the text) holds every required property of SARIF 2.1.0's schema
// for the objects it writes, a result per finding with the rule's index,
// and the rules not judged as notifications.
func TestCheckSARIF(t *testing.T) {
	file := example(t, "conn.order.bad.hex")
	out, _, code := runCLI(t, []string{"check", "--format", "sarif", file}, nil)
	require.Equal(t, 1, code)
	report := validateSARIF(t, []byte(out))
	run := report["runs"].([]any)[0].(map[string]any)
	results := run["results"].([]any)
	require.Len(t, results, 1)
	r := results[0].(map[string]any)
	require.Equal(t, "conn.order", r["ruleId"])
	require.Equal(t, "error", r["level"])
	rules := run["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any)
	idx := int(r["ruleIndex"].(float64))
	require.Equal(t, "conn.order", rules[idx].(map[string]any)["id"])
	inv := run["invocations"].([]any)[0].(map[string]any)
	require.Len(t, inv["toolExecutionNotifications"], 1, "conn.version could not be judged")

	sarif := filepath.Join(t.TempDir(), "kwire.sarif")
	text, _, code := runCLI(t, []string{"check", "--sarif", sarif, file}, nil)
	require.Equal(t, 1, code)
	require.Contains(t, text, "conn.order error frame 4 correlation 1 response")
	b, err := os.ReadFile(sarif)
	require.NoError(t, err)
	validateSARIF(t, b)
}

// validateSARIF checks a report against the required properties and
// enumerations of the SARIF 2.1.0 schema (sarif-schema-2.1.0.json) for
// the objects kwire writes: sarifLog {version, runs}, run {tool}, tool
// {driver}, toolComponent {name}, reportingDescriptor {id}, result
// {message}, message {text}, invocation {executionSuccessful},
// notification {message}, reportingDescriptorReference {id or index};
// version "2.1.0", levels none, note, warning or error.
func validateSARIF(t *testing.T, b []byte) map[string]any {
	var log map[string]any
	require.NoError(t, json.Unmarshal(b, &log))
	need := func(o map[string]any, what string, keys ...string) {
		for _, k := range keys {
			require.Contains(t, o, k, "%s needs %q", what, k)
		}
	}
	level := func(o map[string]any) {
		if l, ok := o["level"]; ok {
			require.Contains(t, []any{"none", "note", "warning", "error"}, l)
		}
	}
	message := func(o map[string]any, what string) {
		need(o, what, "message")
		need(o["message"].(map[string]any), what+".message", "text")
	}
	need(log, "sarifLog", "version", "runs")
	require.Equal(t, "2.1.0", log["version"])
	runs := log["runs"].([]any)
	require.NotEmpty(t, runs)
	for _, r := range runs {
		run := r.(map[string]any)
		need(run, "run", "tool")
		tool := run["tool"].(map[string]any)
		need(tool, "tool", "driver")
		drv := tool["driver"].(map[string]any)
		need(drv, "toolComponent", "name")
		for _, d := range drv["rules"].([]any) {
			rd := d.(map[string]any)
			need(rd, "reportingDescriptor", "id")
			level(rd["defaultConfiguration"].(map[string]any))
		}
		for _, x := range run["results"].([]any) {
			res := x.(map[string]any)
			message(res, "result")
			level(res)
			for _, l := range res["locations"].([]any) {
				loc := l.(map[string]any)
				if p, ok := loc["physicalLocation"].(map[string]any); ok {
					require.Contains(t, p, "artifactLocation", "physicalLocation needs address or artifactLocation")
					validateSARIFRegion(t, p)
				}
				if props, ok := loc["properties"]; ok {
					require.IsType(t, map[string]any{}, props, "a propertyBag is an object")
				}
				// A place in a Kafka conversation is no XML element (the
				// kind it was given) nor any kind SARIF names.
				for _, x := range loc["logicalLocations"].([]any) {
					ll := x.(map[string]any)
					require.NotEmpty(t, ll["fullyQualifiedName"])
					require.NotContains(t, ll, "kind")
				}
			}
		}
		for _, x := range run["invocations"].([]any) {
			inv := x.(map[string]any)
			need(inv, "invocation", "executionSuccessful")
			if ns, ok := inv["toolExecutionNotifications"].([]any); ok {
				for _, n := range ns {
					no := n.(map[string]any)
					message(no, "notification")
					level(no)
					if ref, ok := no["associatedRule"].(map[string]any); ok {
						require.True(t, ref["id"] != nil || ref["index"] != nil, "reportingDescriptorReference needs id, index or guid")
					}
				}
			}
		}
	}
	return log
}

// validateSARIFRegion checks a physicalLocation's region and
// contextRegion as SARIF 2.1.0 has them (schema and §3.30): only the
// properties kwire writes (startLine, endLine, byteOffset, byteLength),
// integers, at least one of startLine or byteOffset (the schema's anyOf,
// charOffset aside), startLine and endLine from 1 with endLine not before
// startLine, byteOffset from 0 (the schema's -1 means unknown, which
// kwire says by leaving the region out), byteLength from 0; a region is
// a text region or a binary one, not both; a contextRegion comes with a
// region and encloses it.
func validateSARIFRegion(t *testing.T, p map[string]any) {
	t.Helper()
	num := func(r map[string]any, k string, least float64) (float64, bool) {
		v, ok := r[k]
		if !ok {
			return 0, false
		}
		n, isNum := v.(float64)
		require.True(t, isNum && n == float64(int64(n)), "region.%s is an integer: %v", k, v)
		require.GreaterOrEqual(t, n, least, "region.%s", k)
		return n, true
	}
	type span struct {
		text       bool
		start, end float64 // lines, or bytes [start, end)
	}
	check := func(what string, x any) span {
		r, ok := x.(map[string]any)
		require.True(t, ok, "%s is an object", what)
		for k := range r {
			require.Contains(t, []string{"startLine", "endLine", "byteOffset", "byteLength"}, k, "%s.%s", what, k)
		}
		line, hasLine := num(r, "startLine", 1)
		off, hasOff := num(r, "byteOffset", 0)
		require.True(t, hasLine || hasOff, "%s needs startLine, charOffset or byteOffset", what)
		require.False(t, hasLine && hasOff, "%s is a text region or a binary one", what)
		if hasLine {
			end, ok := num(r, "endLine", 1)
			if !ok {
				end = line
			}
			require.GreaterOrEqual(t, end, line, "%s.endLine", what)
			_, hasLen := r["byteLength"]
			require.False(t, hasLen, "%s: byteLength without byteOffset", what)
			return span{true, line, end}
		}
		_, hasEnd := r["endLine"]
		require.False(t, hasEnd, "%s: endLine without startLine", what)
		n, _ := num(r, "byteLength", 0)
		return span{false, off, off + n}
	}
	rx, ok := p["region"]
	if !ok {
		require.NotContains(t, p, "contextRegion", "a contextRegion encloses a region")
		return
	}
	region := check("region", rx)
	if cx, ok := p["contextRegion"]; ok {
		context := check("contextRegion", cx)
		require.Equal(t, region.text, context.text, "region and contextRegion are of one kind")
		require.True(t, context.start <= region.start && region.end <= context.end, "contextRegion %v encloses region %v", context, region)
	}
}

// TestProxyCheck: kwire proxy --check applies the rules live: a producer
// that leaves a gap in its sequence is flagged on standard error as kwire
// check would; franz-go producing and consuming through the proxy is not.
func TestProxyCheck(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"), kfake.Ports(freePort(t)))
	require.NoError(t, err)
	defer cluster.Close()
	seed := cluster.ListenAddrs()[0]
	var seq scenario
	for _, s := range scenarios {
		if s.rule == "conv.sequence" {
			seq = s
		}
	}

	bad := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--check")
	seq.run(t, bad.addr, true)
	_, errOut, code := bad.stopStatus(t)
	require.Equal(t, 1, code, "an error reached --fail-on's default")
	require.Regexp(t, `(?m)^kwire: check: conv\.sequence error conn \d+ correlation 3 request at byte \d+ \(body\.topicData\[0\]\.partitionData\[0\]\.records\[0\]\.baseSequence\): .* expected 2, found 3$`, errOut)
	require.Equal(t, 1, strings.Count(errOut, " error conn "), errOut)

	// --api chooses what is shown, not what is checked: the rules follow
	// every exchange (the proxy copied only Metadata, and the sequence
	// was not followed at all).
	only := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--check", "--api", "Metadata")
	seq.run(t, only.addr, true)
	out, errOut, _ := only.stopStatus(t)
	require.Regexp(t, `(?m)^kwire: check: conv\.sequence error conn \d+ correlation 3 request `, errOut)
	for _, l := range parseProxyLines(t, out) {
		require.Equal(t, "Metadata", l.APIName)
	}

	good := startProxyCLI(t, "--upstream", seed, "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--check")
	seq.run(t, good.addr, false)
	kgoTraffic(t, good.addr, "kwire-proxy-check", "orders", 5)
	out, errOut = good.stop(t)
	require.NotEmpty(t, out)
	for _, sev := range []string{" error ", " warning "} {
		require.NotRegexp(t, `(?m)^kwire: check: \S+`+sev, errOut)
	}
}

// TestProxyCheckSkippedExchangesAreLost: when kwire proxy --check skips
// exchanges because decoding is behind (here a hundredth of a core and a
// queue of two, so that it surely is while the producer produces), the
// rules take them as lost data, as bytes lost from a capture: an
// idempotent producer's batches after a skip are not judged against the
// batch before it (it was 265 false conv.sequence errors, "leaves a gap
// in its sequence", at the default --decode-cpu), and the summary says
// what was not judged and how many exchanges were not checked. The skips
// are logged at most once a second (it was a line per exchange delivered
// after one, 268 in two seconds).
func TestProxyCheckSkippedExchangesAreLost(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "bulk"), kfake.Ports(freePort(t)))
	require.NoError(t, err)
	defer cluster.Close()
	p := startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--decode-cpu", "0.01", "--queue", "2", "--format", "ndjson", "--check")
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.DefaultProduceTopic("bulk"), kgo.ProducerLinger(0),
		kgo.ProducerBatchMaxBytes(5000), kgo.MaxBufferedRecords(100000), kgo.ConsumeTopics("bulk"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	defer cl.Close()
	const n = 10000
	value := []byte(strings.Repeat("x", 1000))
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range n {
		wg.Add(1)
		cl.Produce(ctx, &kgo.Record{Value: value}, func(_ *kgo.Record, err error) {
			if err != nil {
				failed.Add(1)
			}
			wg.Done()
		})
	}
	wg.Wait()
	require.Zero(t, failed.Load())
	for got := 0; got < n; {
		fs := cl.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		got += fs.NumRecords()
	}
	cl.Close()
	_, errOut := p.stop(t)
	elapsed := time.Since(start)

	m := regexp.MustCompile(`\(\d+ shown, (\d+) skipped because decoding was behind\)`).FindStringSubmatch(errOut)
	require.NotNil(t, m, errOut)
	skipped, _ := strconv.Atoi(m[1])
	require.Positive(t, skipped, "the proxy skipped exchanges, or this test tests nothing")
	require.NotRegexp(t, `(?m)^kwire: check: \S+ (error|warning) `, errOut)
	// A rule's skip is said once, for its first cause: the skipped
	// exchanges, or (when the proxy fell behind before any batch of the
	// producer was checked) the first batch seen starting past 0.
	require.Regexp(t, `(?m)^kwire: check: conv\.sequence skipped .*(a producer's batch after exchanges were left out unchecked \(decoding was behind\) is not judged|a producer's first batch seen for a partition is judged from its sequence on)`, errOut)
	require.Regexp(t, `(?m)^kwire: check: 0 errors, 0 warnings, 0 notes; (1 rule not judged \(said in its line\)|([2-9]|[1-9]\d+) rules not judged \(said in their lines\)); `+m[1]+` of \d+ exchanges not checked \(skipped: decoding was behind the traffic; --decode-cpu 0 checks every one\)$`, errOut)
	said := regexp.MustCompile(`(?m)^kwire: proxy: \d+ exchanges skipped in the last second, \d+ in all: decoding was behind`).FindAllString(errOut, -1)
	require.LessOrEqual(t, len(said), int(elapsed/time.Second)+1, errOut)
}

// TestProxyCheckKfakeMarkers: franz-go's kfake writes its transaction
// markers with a null value where Kafka's broker writes an EndTxnMarker
// (a version and the coordinator's epoch), which a Kafka follower or a
// broker loading its log could not read: kwire proxy --check says so, a
// warning, when a read_committed consumer fetches one; the transaction
// itself breaks no rule.
func TestProxyCheckKfakeMarkers(t *testing.T) {
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "txn"), kfake.Ports(freePort(t)))
	require.NoError(t, err)
	defer cluster.Close()
	p := startProxyCLI(t, "--upstream", cluster.ListenAddrs()[0], "--listen", "127.0.0.1:0", "--decode-cpu", "0", "--format", "ndjson", "--check")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pr, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.TransactionalID("kwire-markers"), kgo.DefaultProduceTopic("txn"))
	require.NoError(t, err)
	require.NoError(t, pr.BeginTransaction())
	require.NoError(t, pr.ProduceSync(ctx, &kgo.Record{Value: []byte("v")}).FirstErr())
	require.NoError(t, pr.EndTransaction(ctx, kgo.TryCommit))
	pr.Close()
	co, err := kgo.NewClient(kgo.SeedBrokers(p.addr), kgo.ConsumeTopics("txn"), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	require.NoError(t, err)
	for got := 0; got < 1; {
		fs := co.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		got += fs.NumRecords()
	}
	co.Close()
	_, errOut := p.stop(t)
	require.Regexp(t, `(?m)^kwire: check: records\.marker warning conn \d+ correlation \d+ response at byte \d+ \(body\.responses\[0\]\.partitions\[0\]\.records\[\d+\]\.records\[0\]\.value\): a transaction marker's value is no EndTxnMarker, expected an int16 version of 0 or more and the coordinator's int32 epoch, 6 bytes, found null$`, errOut)
	require.NotRegexp(t, `(?m)^kwire: check: \S+ error `, errOut)
	require.NotRegexp(t, `(?m)^kwire: check: (conv|conn)\.\S+ warning `, errOut)
}

// TestCheckCaptureLostRequestTail: a capture that lost the last segment
// of a request (the broker's ACK shows it was sent) drops that request as
// damaged (kwire pcap shows it as far as it was captured, paired with its
// response), pairs the exchange after it, and judges no response against
// the broker for bytes the capture lost: its answer pairs with it and is
// left unjudged with it, never read as a response to no request; as
// when the loss is in the middle of a request.
func TestCheckCaptureLostRequestTail(t *testing.T) {
	produce := exampleFrame(t, "Produce", 9, false, 2)
	cut := len(produce) - 20
	head := []segment{
		{true, 0, exampleFrame(t, "Metadata", 9, false, 1)},
		{false, time.Millisecond, exampleFrame(t, "Metadata", 9, true, 1)},
		{true, 2 * time.Millisecond, produce[:cut]},
		{true, 2 * time.Millisecond, produce[cut:]}, // lost
		{false, 3 * time.Millisecond, exampleFrame(t, "Produce", 9, true, 2)},
	}
	for _, tc := range []struct {
		name string
		segs []segment
	}{
		{"next exchange captured", append(slices.Clip(head),
			segment{true, 4 * time.Millisecond, exampleFrame(t, "Metadata", 9, false, 3)},
			segment{false, 5 * time.Millisecond, exampleFrame(t, "Metadata", 9, true, 3)})},
		{"nothing after", head},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := connPcap(t, true, []int{3}, tc.segs...)
			out, errOut, code := runCLI(t, []string{"check", file}, nil)
			require.Equal(t, 0, code, out+errOut)
			require.Contains(t, out, "frame.decode skipped conn 1 correlation 2 request (packet 6): a frame the capture holds only in part (bytes lost, or cut by the snap length, inside it) is not judged\n")
			require.NotContains(t, out, "conn.correlation")
			require.NotContains(t, out, "correlation 2 response")
			require.Contains(t, errOut, "check: 0 errors, 0 warnings, 0 notes; 2 rules not judged")

			out, errOut, code = runCLI(t, []string{"pcap", file}, nil)
			require.Equal(t, 0, code, errOut)
			require.Contains(t, errOut, "acknowledged by peer but not captured")
			// pcap keeps the request up to the gap: its header pairs it.
			require.Contains(t, errOut, "damaged by a gap: only its first 181 bytes are kept, 20 are missing")
			require.Contains(t, out, `"correlationId":1,"paired":true`)
			require.Contains(t, out, `"correlationId":2,"paired":true`)
			require.Regexp(t, `"correlationId":2,.*"requestError":\{"message":"[^"]*20 are missing\)"`, out)
			if len(tc.segs) > len(head) {
				require.Contains(t, out, `"correlationId":3,"paired":true`)
			}
			require.NotContains(t, out, `"correlationId":3,"paired":false`)
		})
	}
}

// TestCheckCaptureGapInRequestPairsAnswer: a capture from the
// connection's start that lost a segment in the middle of a request
// keeps the request up to the gap (its header was captured), and kwire
// check pairs its answer with it: neither is judged (the one line says
// the request was held only in part), and the answer is not said to
// answer no request, nor to be undecodable for want of its request, as
// it was. The exchanges around it are judged as usual.
func TestCheckGapInRequestPairsAnswer(t *testing.T) {
	produce := exampleFrame(t, "Produce", 9, false, 2)
	third := len(produce) / 3
	file := connPcap(t, true, []int{3},
		segment{true, 0, exampleFrame(t, "Metadata", 9, false, 1)},
		segment{false, time.Millisecond, exampleFrame(t, "Metadata", 9, true, 1)},
		segment{true, 2 * time.Millisecond, produce[:third]},
		segment{true, 2 * time.Millisecond, produce[third : 2*third]}, // lost
		segment{true, 2 * time.Millisecond, produce[2*third:]},
		segment{false, 3 * time.Millisecond, exampleFrame(t, "Produce", 9, true, 2)},
		segment{true, 4 * time.Millisecond, exampleFrame(t, "Metadata", 9, false, 3)},
		segment{false, 5 * time.Millisecond, exampleFrame(t, "Metadata", 9, true, 3)})
	out, errOut, code := runCLI(t, []string{"check", file}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.Contains(t, out, "frame.decode skipped conn 1 correlation 2 request (packet 6): a frame the capture holds only in part (bytes lost, or cut by the snap length, inside it) is not judged\n")
	require.NotContains(t, out, "conn.correlation")
	require.NotContains(t, out, "correlation 2 response")
	require.Contains(t, errOut, "check: 0 errors, 0 warnings, 0 notes; 2 rules not judged")

	// kwire pcap pairs the three exchanges, the second's request kept
	// up to the gap.
	out, errOut, code = runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	for _, corr := range []string{"1", "2", "3"} {
		require.Contains(t, out, `"correlationId":`+corr+`,"paired":true`)
	}
}

// withAPI is frame f with its request header's API key and version
// replaced.
func withAPI(f []byte, key, ver uint16) []byte {
	f = append([]byte(nil), f...)
	binary.BigEndian.PutUint16(f[4:], key)
	binary.BigEndian.PutUint16(f[6:], ver)
	return f
}

// TestCheckCaptureUnreadableFrameAtStart: a connection captured from its
// SYN whose client sends a frame with an API key or version past any
// Kafka (999; 95 at version 12) is flagged frame.api as kwire proxy
// --check flags it, first frame or not: the capture reader took such a
// header for garbage, resynchronised past it, and kwire check said
// nothing and exited 0. The stream, followed from the SYN with nothing
// lost, says where frames begin, and the size prefix is borne out. Bytes
// there that frame no way are said not judged, but for a first size a
// broker refuses (negative, or past socket.request.max.bytes: HTTP's
// "GET " too), which closes the connection: frame.size. A capture that
// starts mid-connection knows no boundary: no finding there. Nor after a SaslHandshake v0, after which come raw SASL
// tokens, size-prefixed but not frames.
func TestCheckCaptureUnreadableFrameAtStart(t *testing.T) {
	md := exampleFrame(t, "Metadata", 12, false, 7)
	av := []segment{
		{true, 0, exampleFrame(t, "ApiVersions", 3, false, 1)},
		{false, time.Millisecond, exampleFrame(t, "ApiVersions", 3, true, 1)},
	}
	bad := func(key, ver uint16) segment { return segment{true, 2 * time.Millisecond, withAPI(md, key, ver)} }
	for _, tc := range []struct {
		name string
		syn  bool
		segs []segment
		want string // a line of the output, "" for none
		code int
	}{
		{"key 999 first", true, []segment{bad(999, 12)}, "frame.api error conn 1 correlation 7 request (packet 4) at byte 4 (header.requestApiKey): no such API or version, expected a known API key (0-94), found 999", 1},
		{"key 95 v12 first", true, []segment{bad(95, 12)}, "frame.api error conn 1 correlation 7 request (packet 4) at byte 4 (header.requestApiKey): no such API or version, expected a known API key (0-94), found 95", 1},
		{"key 999 after ApiVersions", true, append(slices.Clip(av), bad(999, 12)), "frame.api error conn 1 correlation 7 request (packet 6) at byte 4 (header.requestApiKey): no such API or version, expected a known API key (0-94), found 999", 1},
		{"key 999 mid-stream", false, []segment{bad(999, 12)}, "", 0},
		{"a size past the limit first", true, []segment{{true, 0, append([]byte{0x7f, 0xff, 0xff, 0xff}, md[4:]...)}},
			"frame.size error conn 1 (packet 4): the connection's first frame declares a size a broker refuses (a negative one, or one over socket.request.max.bytes, 100 MiB by default); it closes the connection, expected a size from 8 to 104857599, found 2147483647", 1},
		{"a negative size first", true, []segment{{true, 0, append([]byte{0xff, 0xff, 0xff, 0xfe}, md[4:]...)}},
			"frame.size error conn 1 (packet 4): the connection's first frame declares a size a broker refuses (a negative one, or one over socket.request.max.bytes, 100 MiB by default); it closes the connection, expected a size from 8 to 104857599, found -2", 1},
		{"a size past the limit mid-stream", false, []segment{{true, 0, append([]byte{0x7f, 0xff, 0xff, 0xff}, md[4:]...)}}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := connPcap(t, tc.syn, nil, tc.segs...)
			out, errOut, code := runCLI(t, []string{"check", file}, nil)
			require.Equal(t, tc.code, code, out+errOut)
			if tc.want == "" {
				require.NotContains(t, out, "frame.api")
				require.NotContains(t, out, "do not read as a frame")
			} else {
				require.Contains(t, out, tc.want+"\n")
			}
		})
	}

	// SaslHandshake v0 (PLAIN), then a PLAIN token and the broker's empty
	// answer, raw, then Metadata.
	file := saslV0Pcap(t, "PLAIN", []string{"\x00user\x00pass", ""})
	out, errOut, code := runCLI(t, []string{"check", "--fail-on", "warning", file}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.NotContains(t, out, "frame.api")
	require.NotContains(t, out, "do not read as a frame")
}

// TestCaptureTLSConnectionSaid: a connection that carries TLS is said by
// kwire pcap (a note, and in --summary's first line) and by kwire check
// (a line, and in its last), never decoded as Kafka frames nor counted
// as a Kafka connection.
func TestCaptureTLSConnectionSaid(t *testing.T) {
	file := connPcap(t, true, nil,
		segment{true, 0, []byte{22, 3, 1, 0, 6, 1, 0, 0, 2, 3, 3}},
		segment{false, time.Millisecond, []byte{22, 3, 3, 0, 4, 2, 0, 0, 0}},
		segment{true, 2 * time.Millisecond, []byte{23, 3, 3, 0, 3, 1, 2, 3}})
	const note = "packet 4: conn 1 10.0.0.2:40000->10.0.0.1:9092: TLS (record header 16 03 01): encrypted, not decoded"
	out, errOut, code := runCLI(t, []string{"pcap", "--summary", file}, nil)
	require.Equal(t, 0, code, errOut)
	hint := "1 TLS connection left encrypted: --tls-keylog FILE decrypts it with the secrets its client logged (SSLKEYLOGFILE, Go's tls.Config.KeyLogWriter)"
	require.Equal(t, "kwire: "+file+": "+note+"\nkwire: "+file+": "+hint+"\n", errOut)
	require.True(t, strings.HasPrefix(out, "6 packets, 0 connections, 0 exchanges, 6 non-Kafka packets, 1 TLS connection among them (encrypted, not decoded)\n"), out)

	out, errOut, code = runCLI(t, []string{"check", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Empty(t, out)
	require.Equal(t, "kwire: "+file+": "+note+", not checked\n"+
		"kwire: check: 0 errors, 0 warnings, 0 notes; 0 rules not judged (said in their lines); 1 TLS connection not checked (encrypted, said above)\n"+
		"kwire: check: "+hint+"\n", errOut)
}

// TestCheckSummaryAgreesInNumber: the summary kwire check and kwire
// proxy --check end with gives each count its noun in the singular for
// one and in the plural otherwise; it said "1 errors", "1 rules not
// judged".
func TestCheckSummaryAgreesInNumber(t *testing.T) {
	for _, tc := range []struct {
		counts       [check.Error + 1]int // none, notes, warnings, errors
		rules, lines int
		want         string
	}{
		{[4]int{}, 0, 0, "0 errors, 0 warnings, 0 notes; 0 rules not judged (said in their lines)"},
		{[4]int{0, 1, 1, 1}, 1, 1, "1 error, 1 warning, 1 note; 1 rule not judged (said in its line)"},
		{[4]int{0, 2, 3, 4}, 2, 2, "4 errors, 3 warnings, 2 notes; 2 rules not judged (said in their lines)"},
		{[4]int{7, 1, 11, 21}, 11, 11, "21 errors, 11 warnings, 1 note; 11 rules not judged (said in their lines)"},
		// A rule said not judged in more than one line (the transactions
		// a capture ended with, for two reasons) is one rule.
		{[4]int{}, 1, 2, "0 errors, 0 warnings, 0 notes; 1 rule not judged (said in 2 lines)"},
		{[4]int{0, 0, 1, 0}, 3, 5, "0 errors, 1 warning, 0 notes; 3 rules not judged (said in 5 lines)"},
	} {
		var skips notJudged
		for i := range tc.lines {
			skips.add(check.Rules()[min(i, tc.rules-1)])
		}
		require.Equal(t, tc.want, checkSummary(&tc.counts, &skips), "%v %d %d", tc.counts, tc.rules, tc.lines)
	}

	// Through the CLI: one error and one rule not judged.
	_, errOut, code := runCLI(t, []string{"check", example(t, "records.crc.bad.hex")}, nil)
	require.Equal(t, 1, code, errOut)
	require.Equal(t, "kwire: check: 1 error, 0 warnings, 0 notes; 1 rule not judged (said in its line)\n", errOut)
}

// TestFailOn: --fail-on, read and compared by one pair of functions for
// kwire check and kwire proxy --check: a severity makes the exit status 1
// once a finding is at least that severe, none never does, and a value
// it does not know is misuse, said.
func TestFailOn(t *testing.T) {
	var errOut strings.Builder
	e := &env{stdout: io.Discard, stderr: &errOut}
	for _, tc := range []struct {
		flag   string
		counts [check.Error + 1]int // none, notes, warnings, errors
		want   bool
	}{
		{"error", [4]int{}, false},
		{"error", [4]int{0, 5, 5, 0}, false},
		{"error", [4]int{0, 0, 0, 1}, true},
		{"warning", [4]int{0, 5, 0, 0}, false},
		{"warning", [4]int{0, 0, 1, 0}, true},
		{"warning", [4]int{0, 0, 0, 1}, true},
		{"note", [4]int{0, 1, 0, 0}, true},
		{"note", [4]int{0, 0, 0, 1}, true},
		{"note", [4]int{9, 0, 0, 0}, false}, // severity 0 counts no finding
		{"none", [4]int{0, 1, 1, 1}, false},
	} {
		sev, ok := parseFailOn(e, tc.flag)
		require.True(t, ok, tc.flag)
		require.Equal(t, tc.want, failOnReached(&tc.counts, sev), "%s %v", tc.flag, tc.counts)
	}
	require.Empty(t, errOut.String())
	_, ok := parseFailOn(e, "fatal")
	require.False(t, ok)
	require.Equal(t, "kwire: --fail-on must be error, warning, note or none, not \"fatal\"\n", errOut.String())

	// Both commands say it alike, with exit status 2.
	for _, args := range [][]string{{"check", "--fail-on", "fatal", "x.pcap"}, {"proxy", "--upstream", "127.0.0.1:9", "--check", "--fail-on", "fatal"}} {
		_, stderr, code := runCLI(t, args, nil)
		require.Equal(t, 2, code, args)
		require.Equal(t, "kwire: --fail-on must be error, warning, note or none, not \"fatal\"\n", stderr, args)
	}
}

// TestSummaryCountsInTheSingular: kwire pcap --summary counts one of a
// thing in the singular, as the playground's capture title does ("1
// connection", not "1 connections").
func TestSummaryCountsInTheSingular(t *testing.T) {
	file, err := filepath.Abs(filepath.Join(checkCaptures, "conn.retry-version.good.pcapng"))
	require.NoError(t, err)
	out, errOut, code := runCLI(t, []string{"pcap", "--summary", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.Regexp(t, `^24 packets, 1 connection, 2 exchanges, 12 non-Kafka packets\n`, out)
}
