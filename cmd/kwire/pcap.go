package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/capture"
)

// portList is a repeatable --port flag.
type portList []uint16

func (p *portList) String() string {
	s := make([]string, len(*p))
	for i, x := range *p {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, ",")
}

func (p *portList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		n, err := strconv.ParseUint(strings.TrimSpace(part), 10, 16)
		if err != nil || n == 0 {
			return errorf("bad port %q", part)
		}
		*p = append(*p, uint16(n))
	}
	return nil
}

type apiStats struct {
	name      string
	key       int16
	versions  map[int16]int
	count     int
	bytes     int64
	latencies []time.Duration
	unpaired  int
}

func runPcap(e *env, args []string) int {
	fs := newFlags(e, "pcap", "[flags] FILE",
		"kwire pcap kfake-clients.pcapng",
		"kwire pcap --summary kfake-clients.pcapng",
		"kwire pcap --api JoinGroup --client-id kwire-group kfake-clients.pcapng")
	var ports portList
	fs.Var(&ports, "port", "broker port (repeatable, or comma-separated; default 9092, else inferred from who sends requests)")
	apiFilter := fs.String("api", "", "only exchanges of this API (name or key)")
	errorsOnly := fs.Bool("errors-only", false, "only exchanges whose response holds a non-zero error code")
	clientID := fs.String("client-id", "", "only requests with this client id")
	summary := fs.Bool("summary", false, "print a table per API: counts, versions, bytes, error codes, latency percentiles")
	records := fs.String("records", "decoded", "records in value JSON: decoded, base64 or size")
	args, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(args) != 1 {
		fail(e, "pcap needs one capture file")
		return 2
	}
	var only *schema.API
	if *apiFilter != "" {
		if only = schema.ByName(*apiFilter); only == nil {
			fail(e, "unknown API %q (run kwire apis)", *apiFilter)
			return 2
		}
	}
	jo, err := recordsMode(*records)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	f, err := os.Open(args[0])
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	defer f.Close()
	res, err := capture.Read(bufio.NewReaderSize(f, 1<<20), capture.Options{BrokerPorts: ports})
	if err != nil {
		fail(e, "%s: %v", args[0], err)
		return 1
	}
	w := bufio.NewWriterSize(e.stdout, 1<<20)
	defer w.Flush()
	stats := map[int16]*apiStats{}
	errCodes := map[int16]int{}
	failed := 0
	for _, x := range res.Exchanges {
		var req, rsp *codec.Frame
		var reqErr, rspErr error
		var guessed []codec.Candidate
		key, ver := x.APIKey, x.APIVersion
		if x.Request != nil {
			req, reqErr = codec.Decode(x.Request.Bytes, codec.Options{})
			key, ver = req.APIKey, req.Version
		}
		if x.Response != nil {
			if x.Request != nil {
				rsp, rspErr = codec.Decode(x.Response.Bytes, codec.Options{Response: true, APIKey: key, Version: ver})
			} else if c := codec.GuessResponse(x.Response.Bytes, codec.GuessOptions{}); len(c) > 0 {
				rsp, guessed, key, ver = c[0].Frame, c, c[0].APIKey, c[0].Version
			} else {
				rspErr = errorf("an unpaired response that fits no API")
			}
		}
		if only != nil && key != only.Key {
			continue
		}
		if *clientID != "" && (req == nil || clientIDOf(req) != *clientID) {
			continue
		}
		codes := errorCodes(rsp)
		if *errorsOnly && len(codes) == 0 {
			continue
		}
		if reqErr != nil || rspErr != nil {
			failed++
		}
		st := stats[key]
		if st == nil {
			name := strconv.Itoa(int(key))
			if a := schema.ByKey(key); a != nil {
				name = a.Name
			}
			st = &apiStats{name: name, key: key, versions: map[int16]int{}}
			stats[key] = st
		}
		st.count++
		st.versions[ver]++
		if x.Request != nil {
			st.bytes += int64(len(x.Request.Bytes))
		}
		if x.Response != nil {
			st.bytes += int64(len(x.Response.Bytes))
		}
		if x.Request != nil && x.Response != nil {
			st.latencies = append(st.latencies, x.Latency)
		} else if !x.NoResponseExpected {
			st.unpaired++
		}
		for _, c := range codes {
			errCodes[c]++
		}
		if *summary {
			continue
		}
		out := []byte(`{"conn":`)
		out = strconv.AppendQuote(out, x.Conn.String())
		out = append(out, `,"connId":`...)
		out = strconv.AppendInt(out, int64(x.Conn.ID), 10)
		out = append(out, `,"apiKey":`...)
		out = strconv.AppendInt(out, int64(key), 10)
		if a := schema.ByKey(key); a != nil {
			out = append(out, `,"apiName":`...)
			out = strconv.AppendQuote(out, a.Name)
		}
		out = append(out, `,"apiVersion":`...)
		out = strconv.AppendInt(out, int64(ver), 10)
		out = append(out, `,"correlationId":`...)
		out = strconv.AppendInt(out, int64(x.CorrelationID), 10)
		out = append(out, `,"paired":`...)
		out = strconv.AppendBool(out, x.Paired())
		if x.NoResponseExpected {
			out = append(out, `,"noResponseExpected":true`...)
		}
		if x.Request != nil {
			out = append(out, `,"requestTime":`...)
			out = strconv.AppendQuote(out, x.Request.Time.UTC().Format(time.RFC3339Nano))
		}
		if x.Response != nil {
			out = append(out, `,"responseTime":`...)
			out = strconv.AppendQuote(out, x.Response.Time.UTC().Format(time.RFC3339Nano))
		}
		if x.Paired() {
			out = append(out, `,"latencyMs":`...)
			out = strconv.AppendFloat(out, float64(x.Latency.Microseconds())/1000, 'f', 3, 64)
		}
		if len(guessed) > 0 {
			out = append(out, `,"guessed":{"confidence":`...)
			out = strconv.AppendFloat(out, guessed[0].Confidence, 'f', 2, 64)
			out = append(out, '}')
		}
		if req != nil {
			out = append(out, `,"request":`...)
			out = req.AppendJSON(out, jo)
		}
		if reqErr != nil {
			out = append(out, `,"requestError":`...)
			out = strconv.AppendQuote(out, reqErr.Error())
		}
		if rsp != nil {
			out = append(out, `,"response":`...)
			out = rsp.AppendJSON(out, jo)
		}
		if rspErr != nil {
			out = append(out, `,"responseError":`...)
			out = strconv.AppendQuote(out, rspErr.Error())
		}
		out = append(out, "}\n"...)
		w.Write(out)
	}
	for _, n := range res.Notes {
		fail(e, "%s: %s", args[0], n.String())
	}
	if *summary {
		printSummary(w, res, stats, errCodes)
	}
	if failed > 0 {
		w.Flush()
		fail(e, "%d exchanges had frames that failed to decode", failed)
		return 1
	}
	return 0
}

func clientIDOf(f *codec.Frame) string {
	if f.Header == nil {
		return ""
	}
	if c := f.Header.Child("ClientId"); c != nil && !c.Null {
		return string(c.Raw)
	}
	return ""
}

// errorCodes lists the non-zero error codes anywhere in a response.
func errorCodes(f *codec.Frame) []int16 {
	if f == nil || f.Body == nil {
		return nil
	}
	var out []int16
	tree.Walk(f.Body, func(n *tree.Node) bool {
		if n.Field != nil && n.Kind == schema.Int16 && n.Int != 0 && strings.HasSuffix(n.Field.Name, "ErrorCode") {
			out = append(out, int16(n.Int))
		}
		return true
	})
	return out
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(p * float64(len(d)-1))
	return d[i]
}

func printSummary(w *bufio.Writer, res *capture.Result, stats map[int16]*apiStats, errCodes map[int16]int) {
	fmt.Fprintf(w, "%d packets, %d connections, %d exchanges, %d non-Kafka packets\n\n", res.Packets, len(res.Conns), len(res.Exchanges), res.NonKafka)
	keys := make([]int, 0, len(stats))
	for k := range stats {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "API\tVERSIONS\tCOUNT\tUNPAIRED\tBYTES\tP50 ms\tP90 ms\tP99 ms\tMAX ms\t")
	for _, k := range keys {
		s := stats[int16(k)]
		sort.Slice(s.latencies, func(i, j int) bool { return s.latencies[i] < s.latencies[j] })
		var vs []string
		var vk []int
		for v := range s.versions {
			vk = append(vk, int(v))
		}
		sort.Ints(vk)
		for _, v := range vk {
			vs = append(vs, "v"+strconv.Itoa(v)+"×"+strconv.Itoa(s.versions[int16(v)]))
		}
		ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) }
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t\n", s.name, strings.Join(vs, " "), s.count, s.unpaired, s.bytes,
			ms(percentile(s.latencies, .5)), ms(percentile(s.latencies, .9)), ms(percentile(s.latencies, .99)), ms(percentile(s.latencies, 1)))
	}
	tw.Flush()
	if len(errCodes) > 0 {
		fmt.Fprintln(w, "\nerror codes seen:")
		var cs []int
		for c := range errCodes {
			cs = append(cs, int(c))
		}
		sort.Ints(cs)
		for _, c := range cs {
			fmt.Fprintf(w, "  %d %s ×%d\n", c, schema.ErrorName(int16(c)), errCodes[int16(c)])
		}
	}
}
