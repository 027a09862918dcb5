package codec_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	. "github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/capture"
)

// The examples are frames a real client or broker could send: every one,
// decoded, passes these rules. They are kept here, apart from the table
// the values come from (example_values.go), so that a value typed there
// is checked by a rule written without it.

// exampleRanges holds the values Kafka accepts for the small integer
// fields whose names Kafka's schemas leave to its code, beyond the
// enumerations schema.EnumFor knows (those are checked against enums.tsv).
var exampleRanges = map[string][2]int64{
	"Acks":                {-1, 1},
	"ConfigSource":        {1, 8}, // TOPIC_CONFIG ... GROUP_CONFIG (0 is UNKNOWN)
	"Source":              {1, 8},
	"ConfigType":          {1, 9}, // BOOLEAN ... PASSWORD
	"ElectionType":        {0, 1}, // PREFERRED, UNCLEAN
	"EndpointType":        {1, 2}, // BROKER, CONTROLLER
	"ConfigOperation":     {0, 3}, // SET, DELETE, APPEND, SUBTRACT
	"MatchType":           {0, 2}, // EXACT, DEFAULT, ANY
	"Mechanism":           {1, 2}, // SCRAM-SHA-256, SCRAM-SHA-512
	"LeaderRecoveryState": {0, 1},
	"UpgradeType":         {1, 3}, // UPGRADE, SAFE_DOWNGRADE, UNSAFE_DOWNGRADE
	"SecurityProtocol":    {0, 3}, // PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL
	"TransactionVersion":  {0, 2},
	"MemberType":          {-1, 1},
	"KeyType":             {0, 2},
	"DeliveryState":       {0, 4},
	"Type":                {0, 2},
}

var (
	hostRE      = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$|^\d+\.\d+\.\d+\.\d+$`)
	printableRE = regexp.MustCompile(`^[\x20-\x7e]*$`)
)

// ts2020 and ts2035 bound the wall-clock times an example may carry.
const ts2020, ts2035 = 1577836800000, 2051222400000

// plausible checks one decoded field against the rules; what breaks one
// is returned.
func plausible(apiKey int16, n *tree.Node) []string {
	f := n.Field
	name := f.Name
	var bad []string
	say := func(s string) { bad = append(bad, name+": "+s) }
	isInt := n.Kind >= schema.Int8 && n.Kind <= schema.Int64
	if isInt {
		x := n.Int
		if e := schema.EnumFor(apiKey, f); e != nil {
			if v := e.ValueName(x); v == "" || v == "UNKNOWN" {
				say(strconv.FormatInt(x, 10) + " is no " + e.Name)
			}
		} else if r, ok := exampleRanges[name]; ok && (x < r[0] || x > r[1]) {
			say(strconv.FormatInt(x, 10) + " is out of range")
		}
		switch {
		case strings.HasSuffix(name, "ErrorCode"):
			if x != 0 {
				say("error code " + strconv.FormatInt(x, 10) + " in an example that is not about an error")
			}
		case name == "ThrottleTimeMs":
			if x != 0 {
				say("throttled")
			}
		case strings.HasSuffix(name, "TimeoutMs"), strings.HasSuffix(name, "IntervalMs"), name == "MaxWaitMs":
			if x < 0 || x > 15*60*1000 {
				say(strconv.FormatInt(x, 10) + " ms is no timeout a client sets")
			}
		case n.Kind == schema.Int64 && (strings.HasSuffix(name, "Timestamp") || strings.HasSuffix(name, "TimestampMs") || strings.HasSuffix(name, "TimeMs")):
			if !(x >= -5 && x <= -1 || x >= ts2020 && x <= ts2035) {
				say(strconv.FormatInt(x, 10) + " is neither a special timestamp nor a time between 2020 and 2035")
			}
		case strings.HasSuffix(name, "Port"):
			if x < 1 || x > 65535 {
				say("port " + strconv.FormatInt(x, 10))
			}
		case strings.HasSuffix(name, "Offset") || name == "HighWatermark" || name == "LowWatermark":
			if x < -1 {
				say("offset " + strconv.FormatInt(x, 10))
			}
		case name == "PartitionIndex" || name == "Partition" || name == "Index" || name == "PartitionId":
			if x < 0 || x > 1000 {
				say("partition " + strconv.FormatInt(x, 10))
			}
		case name == "MaxBytes" || name == "MinBytes" || name == "PartitionMaxBytes":
			if x <= 0 {
				say("size " + strconv.FormatInt(x, 10))
			}
		case strings.HasSuffix(name, "NodeId") || strings.HasSuffix(name, "BrokerId") || strings.HasSuffix(name, "LeaderId") || name == "ControllerId":
			if x < -1 || x > 10000 {
				say("node " + strconv.FormatInt(x, 10))
			}
		case name == "ProducerId":
			if x < -1 {
				say("producer id " + strconv.FormatInt(x, 10))
			}
		}
	}
	switch n.Kind {
	case schema.String:
		if n.Null {
			break
		}
		s := string(n.Raw)
		switch {
		case strings.HasSuffix(name, "ErrorMessage"):
			if s != "" {
				say("an error message in an example without an error")
			}
		case strings.EqualFold(s, f.JSON), strings.EqualFold(s, name), s == "x":
			say("placeholder text " + strconv.Quote(s))
		case !printableRE.MatchString(s):
			say("unprintable " + strconv.Quote(s))
		case strings.HasSuffix(name, "Host") && s != "*" && !strings.HasPrefix(s, "/"):
			if !hostRE.MatchString(s) {
				say("no host name: " + strconv.Quote(s))
			}
		case f.EntityType != "" || name == "Name" || name == "Topic" || name == "TopicName":
			if s == "" {
				say("an empty name")
			}
		}
	case schema.UUID:
		if len(n.Raw) == 16 && !bytes.Equal(n.Raw, make([]byte, 16)) && (n.Raw[6]>>4 != 4 || n.Raw[8]&0xc0 != 0x80) {
			say("not a random (version 4) UUID")
		}
	}
	return bad
}

// readableRecords checks the keys and values of the records under n: text
// a person reads.
func readableRecords(n *tree.Node) []string {
	var bad []string
	tree.Walk(n, func(x *tree.Node) bool {
		if x.Name != "record" && x.Name != "message" {
			return true
		}
		for _, part := range []string{"key", "value"} {
			c := x.Get(part)
			if c == nil || c.Null || len(c.Raw) < 3 || !utf8.Valid(c.Raw) || !printableRE.Match(c.Raw) {
				raw := []byte(nil)
				if c != nil {
					raw = c.Raw
				}
				bad = append(bad, "record "+part+" "+strconv.Quote(string(raw))+" is not readable text")
			}
		}
		return false
	})
	return bad
}

// TestExamplesArePlausible decodes every example and checks every field
// against the rules above, and the ApiVersions answers against the tables.
func TestExamplesArePlausible(t *testing.T) {
	checked := 0
	EachVersion(t, func(t *testing.T, api *schema.API, v int16, response bool) {
		b, err := ExampleFrame(api, v, response)
		require.NoError(t, err)
		f, err := Decode(b, Options{Response: response, APIKey: api.Key, Version: v})
		require.NoError(t, err)
		name := api.Name + " v" + strconv.Itoa(int(v)) + map[bool]string{false: " request", true: " response"}[response]
		var bad []string
		tree.Walk(f.Root, func(n *tree.Node) bool {
			if n.Field != nil && n.Role == tree.RoleField {
				bad = append(bad, plausible(api.Key, n)...)
				checked++
			}
			if n.Kind == schema.Records && n.Field != nil {
				bad = append(bad, readableRecords(n)...)
				return false
			}
			return true
		})
		if api.Key == schema.KeyApiVersions && response {
			for _, k := range f.Root.Get("body").Get("apiKeys").Children {
				a := schema.ByKey(int16(k.Get("apiKey").Int))
				lo, hi := k.Get("minVersion").Int, k.Get("maxVersion").Int
				if a == nil || lo > hi || !a.Valid().Contains(int16(lo)) || !a.Valid().Contains(int16(hi)) {
					bad = append(bad, "apiKeys: no such API and versions")
				}
			}
		}
		// A client id is a Java client's default (producer-1) or, for the
		// requests brokers and controllers send, the name Kafka's sender
		// gives its own clients (AddPartitionsManager-client-1,
		// raft-client-1, broker-1-txn-marker-sender, or the node id).
		if hdr, _ := f.Root.Lookup("header.clientId"); hdr != nil && !hdr.Null {
			if !regexp.MustCompile(`^[a-z]+(-[a-z0-9]+)+$|^[A-Z][A-Za-z]+-client-[0-9]+$|^[0-9]+$`).Match(hdr.Raw) {
				bad = append(bad, "clientId "+strconv.Quote(string(hdr.Raw)))
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s: %s\n%s", name, strings.Join(bad, "; "), f.AppendJSON(nil))
		}
	})
	t.Logf("%d fields checked", checked)
	require.Greater(t, checked, 7800) // 8000 before the KIP-951 leader fields went with errors only
}

// The rules catch what the counting placeholders did: a Fetch v18 request
// at isolation level 8, a Produce request with acks 2, an error code
// where nothing went wrong, a name that is its field's name.
func TestPlausibilityRulesCatchPlaceholders(t *testing.T) {
	for _, tc := range []struct {
		api      string
		v        int16
		response bool
		body     string
		want     string
	}{
		{"Fetch", 18, false, `{"isolationLevel":8}`, "IsolationLevel: 8 is no IsolationLevel"},
		{"Produce", 13, false, `{"acks":2}`, "Acks: 2 is out of range"},
		{"ApiVersions", 3, false, `{"clientSoftwareName":"clientSoftwareName"}`, `ClientSoftwareName: placeholder text "clientSoftwareName"`},
		{"Fetch", 12, true, `{"errorCode":2}`, "ErrorCode: error code 2 in an example that is not about an error"},
		{"Produce", 9, true, `{"responses":[{"name":"orders","partitionResponses":[{"logAppendTimeMs":33}]}]}`, "LogAppendTimeMs: 33 is neither"},
		{"Metadata", 12, true, `{"brokers":[{"nodeId":1,"host":"host","port":70000}]}`, "Port: port 70000"},
	} {
		api := schema.ByName(tc.api)
		dir := map[bool]string{false: "request", true: "response"}[tc.response]
		hdr := `{"correlationId":1,"clientId":"c-1"}`
		if tc.response {
			hdr = `{"correlationId":1}`
		}
		js := `{"direction":"` + dir + `","apiName":"` + tc.api + `","apiVersion":` + strconv.Itoa(int(tc.v)) +
			`,"header":` + hdr + `,"body":` + tc.body + `}`
		b, err := Encode(nil, js, EncodeOptions{})
		require.NoError(t, err, js)
		f, err := Decode(b, Options{Response: tc.response, APIKey: api.Key, Version: tc.v})
		require.NoError(t, err)
		var bad []string
		tree.Walk(f.Root, func(n *tree.Node) bool {
			if n.Field != nil && n.Role == tree.RoleField {
				bad = append(bad, plausible(api.Key, n)...)
			}
			return true
		})
		require.Contains(t, strings.Join(bad, "\n"), tc.want, js)
	}
}

// capturedValues flattens value JSON into its scalar leaves by path
// (array indices left out): path -> the values seen there.
func capturedValues(n *tree.Node, path string, out map[string]map[string]bool) {
	for _, c := range n.Children {
		p := path
		switch {
		case c.Role == tree.RoleElement:
		case c.Field != nil:
			p = path + "." + c.Field.Name
		default:
			continue
		}
		if len(c.Children) == 0 || c.Kind == schema.Bytes {
			if c.Kind == schema.Records || c.Kind == schema.Bytes {
				continue
			}
			if out[p] == nil {
				out[p] = map[string]bool{}
			}
			out[p][leafText(c)] = true
			continue
		}
		capturedValues(c, p, out)
	}
}

func leafText(n *tree.Node) string {
	switch {
	case n.Null:
		return "null"
	case n.Kind == schema.String, n.Kind == schema.UUID:
		return strconv.Quote(string(n.Raw))
	case n.Kind == schema.Float64:
		return strconv.FormatFloat(n.Float, 'g', -1, 64)
	}
	return strconv.FormatInt(n.Int, 10)
}

// runSpecific are the fields whose values say which run a capture came
// from (names, ids, ports, offsets, epochs, times): an example need not
// repeat them. Every other field the captures of real clients carry at an
// API (any version) holds, in the example, a value one of them sent.
var runSpecific = map[string]bool{
	"ClientSoftwareName": true, "ClientSoftwareVersion": true, "Host": true, "Port": true, "NodeId": true,
	"LeaderId": true, "ControllerId": true, "ClusterId": true, "Rack": true, "RackId": true, "TopicId": true, "Name": true,
	"Topic": true, "Key": true, "GroupId": true, "CoordinatorKeys": true, "MemberId": true, "Leader": true,
	"GenerationId": true, "GenerationIdOrMemberEpoch": true, "MemberEpoch": true, "ProducerId": true,
	"ProducerEpoch": true, "SessionId": true, "SessionEpoch": true, "LeaderEpoch": true, "CurrentLeaderEpoch": true,
	"CommittedLeaderEpoch": true, "BaseOffset": true, "FetchOffset": true, "CommittedOffset": true,
	"HighWatermark": true, "LastStableOffset": true, "LogStartOffset": true, "Offset": true, "Timestamp": true,
	"CommittedMetadata": true, "Metadata": true, "Reason": true, "ClientInstanceId": true, "SubscriptionId": true,
	"ReplicaNodes": true, "IsrNodes": true, "PartitionIndex": true, "Partition": true, "Index": true,
	"PartitionIndexes": true, "ApiKey": true, "MinVersion": true, "MaxVersion": true, "ProtocolName": true,
	"ErrorCode": true, // the examples say NONE; what a capture saw is checked by the rules instead
}

// TestExamplesAgreeWithCaptures: where the captures of real clients
// (kcat's librdkafka and franz-go against kfake, testdata/captures) cover
// an API, the example's request or response holds, in every field they
// carry that is not run-specific, a value some client or broker there sent.
func TestExamplesAgreeWithCaptures(t *testing.T) {
	file := filepath.Join("..", "testdata", "captures", "kfake-clients.pcapng")
	fh, err := os.Open(file)
	require.NoError(t, err)
	defer fh.Close()
	type side struct {
		key      int16
		response bool
	}
	seen := map[side]map[string]map[string]bool{}
	versions := map[side]map[int16]bool{}
	add := func(s side, v int16, b []byte) {
		if b == nil {
			return
		}
		f, err := Decode(b, Options{Response: s.response, APIKey: s.key, Version: v})
		require.NoError(t, err)
		if seen[s] == nil {
			seen[s], versions[s] = map[string]map[string]bool{}, map[int16]bool{}
		}
		versions[s][v] = true
		capturedValues(f.Body, "", seen[s])
	}
	_, err = capture.ReadFunc(fh, capture.Options{}, func(x *capture.Exchange) {
		if x.Request != nil {
			add(side{x.APIKey, false}, x.APIVersion, x.Request.Bytes)
		}
		if x.Response != nil && x.Request != nil {
			add(side{x.APIKey, true}, x.APIVersion, x.Response.Bytes)
		}
	})
	require.NoError(t, err)
	compared := 0
	var sides []side
	for s := range seen {
		sides = append(sides, s)
	}
	sort.Slice(sides, func(i, j int) bool {
		return sides[i].key < sides[j].key || sides[i].key == sides[j].key && !sides[i].response && sides[j].response
	})
	for _, s := range sides {
		api := schema.ByKey(s.key)
		for v := range versions[s] {
			b, err := ExampleFrame(api, v, s.response)
			require.NoError(t, err)
			f, err := Decode(b, Options{Response: s.response, APIKey: s.key, Version: v})
			require.NoError(t, err)
			mine := map[string]map[string]bool{}
			capturedValues(f.Body, "", mine)
			for path, vals := range mine {
				last := path[strings.LastIndexByte(path, '.')+1:]
				got, ok := seen[s][path]
				if !ok || runSpecific[last] {
					continue
				}
				for val := range vals {
					compared++
					if !got[val] {
						var want []string
						for w := range got {
							want = append(want, w)
						}
						sort.Strings(want)
						t.Errorf("%s v%d %s %s: the example has %s, the captures %s", api.Name, v, map[bool]string{false: "request", true: "response"}[s.response], path, val, strings.Join(want, " "))
					}
				}
			}
		}
	}
	t.Logf("%d values compared with the captures, over %d API/direction pairs", compared, len(sides))
	require.Greater(t, compared, 80)
}

// heartbeatGroupAPI reports whether an API belongs to a group its members
// join by heartbeat (KIP-848's consumer protocol, share groups, Streams
// groups), whose members draw their own UUIDs as member ids.
func heartbeatGroupAPI(a *schema.API) bool {
	for _, p := range []string{"ConsumerGroup", "ShareGroup", "StreamsGroup"} {
		if strings.HasPrefix(a.Name, p) {
			return true
		}
	}
	return a.Category == "share groups"
}

// exampleBody decodes an example's body.
func exampleBody(t *testing.T, a *schema.API, v int16, response bool) *tree.Node {
	t.Helper()
	b, err := ExampleFrame(a, v, response)
	require.NoError(t, err)
	f, err := Decode(b, Options{Response: response, APIKey: a.Key, Version: v})
	require.NoError(t, err)
	return f.Body
}

// fieldNodes are the nodes of every field named name (Kafka's name) under n.
func fieldNodes(n *tree.Node, name string) []*tree.Node {
	var out []*tree.Node
	tree.Walk(n, func(x *tree.Node) bool {
		if x.Field != nil && x.Role == tree.RoleField && x.Field.Name == name {
			out = append(out, x)
		}
		return true
	})
	return out
}

// The examples keep what the fields' own texts on the site promise, where
// a rule can check it across every version:
//   - CreateTopics: numPartitions and replicationFactor are -1 when
//     assignments are given (Kafka refuses anything else), and the
//     response reports what the assignments made;
//   - a partition's currentLeader and the nodeEndpoints go with
//     NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH (KIP-951), so an
//     answer without those errors leaves them at their defaults;
//   - EndTxn v5+ answers with the epoch bumped (transactions V2);
//   - a ShareFetch opening its session (epoch 0) acknowledges nothing;
//   - a producer's batch carries partitionLeaderEpoch -1 (the records
//     page's layout table), a leader's log its epoch;
//   - members of heartbeat-joined groups carry a UUID as member id.
func TestExamplesKeepTheirFieldsPromises(t *testing.T) {
	uuid := regexp.MustCompile(`^[A-Za-z0-9_-]{22}$`)
	checked := map[string]int{}
	for _, a := range schema.APIs() {
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			req, resp := exampleBody(t, a, v, false), exampleBody(t, a, v, true)
			name := a.Name + " v" + strconv.Itoa(int(v))
			if a.Key == schema.KeyCreateTopics {
				for _, tp := range req.Get("topics").Children {
					as := tp.Get("assignments")
					if as == nil || as.Count() == 0 {
						continue
					}
					checked["CreateTopics"]++
					if np, rf := tp.Get("numPartitions").Int, tp.Get("replicationFactor").Int; np != -1 || rf != -1 {
						t.Errorf("%s request: assignments given with numPartitions %d, replicationFactor %d (must be -1)", name, np, rf)
					}
					for _, rt := range resp.Get("topics").Children {
						if np := rt.Get("numPartitions"); np != nil && np.Int != int64(as.Count()) {
							t.Errorf("%s response: numPartitions %d, the request assigned %d", name, np.Int, as.Count())
						}
						if rf := rt.Get("replicationFactor"); rf != nil && rf.Int != int64(firstElem(as).Get("brokerIds").Count()) {
							t.Errorf("%s response: replicationFactor %d, the request assigned %d replicas", name, rf.Int, firstElem(as).Get("brokerIds").Count())
						}
					}
				}
			}
			if a.Key == schema.KeyProduce || a.Key == schema.KeyFetch || a.Key == schema.KeyShareFetch || a.Key == schema.KeyShareAcknowledge {
				leaderErr := false
				for _, e := range fieldNodes(resp, "ErrorCode") {
					leaderErr = leaderErr || e.Int == 6 || e.Int == 74
				}
				for _, cl := range fieldNodes(resp, "CurrentLeader") {
					checked["currentLeader"]++
					if !leaderErr && (cl.Get("leaderId").Int != -1 || cl.Get("leaderEpoch").Int != -1) {
						t.Errorf("%s response: currentLeader without a leader error", name)
					}
				}
				for _, ne := range fieldNodes(resp, "NodeEndpoints") {
					checked["nodeEndpoints"]++
					if !leaderErr && ne.Count() > 0 {
						t.Errorf("%s response: nodeEndpoints without a leader error", name)
					}
				}
			}
			if a.Key == schema.KeyEndTxn && v >= 5 {
				checked["EndTxn"]++
				if got, sent := resp.Get("producerEpoch").Int, req.Get("producerEpoch").Int; got != sent+1 {
					t.Errorf("%s response: producerEpoch %d after a request at %d: v5 bumps it", name, got, sent)
				}
			}
			if a.Key == schema.KeyShareFetch {
				if e := req.Get("shareSessionEpoch"); e != nil && e.Int == 0 {
					for _, ab := range fieldNodes(req, "AcknowledgementBatches") {
						checked["ShareFetch"]++
						if ab.Count() > 0 {
							t.Errorf("%s request: acknowledgements in the share session's first fetch (epoch 0)", name)
						}
					}
				}
			}
			for _, dir := range []struct {
				body *tree.Node
				want int64
				what string
			}{{req, -1, "request"}, {resp, 0, "response"}} {
				if a.Key != schema.KeyProduce && a.Key != schema.KeyFetch {
					continue
				}
				tree.Walk(dir.body, func(x *tree.Node) bool {
					if x.Name == "partitionLeaderEpoch" {
						checked["partitionLeaderEpoch"]++
						if x.Int != dir.want {
							t.Errorf("%s %s: a batch's partitionLeaderEpoch is %d, want %d", name, dir.what, x.Int, dir.want)
						}
					}
					return true
				})
			}
			if heartbeatGroupAPI(a) {
				for _, body := range []*tree.Node{req, resp} {
					for _, m := range fieldNodes(body, "MemberId") {
						checked["memberId"]++
						if !m.Null && !uuid.Match(m.Raw) {
							t.Errorf("%s: memberId %q is no UUID the member drew", name, m.Raw)
						}
					}
				}
			}
		}
	}
	t.Log(checked)
	for _, k := range []string{"CreateTopics", "currentLeader", "nodeEndpoints", "EndTxn", "ShareFetch", "partitionLeaderEpoch", "memberId"} {
		if checked[k] == 0 {
			t.Errorf("nothing checked for %s", k)
		}
	}
}

// firstElem is n's first element, or nil when it has none.
func firstElem(n *tree.Node) *tree.Node {
	for _, c := range n.Elems() {
		return c
	}
	return nil
}
