package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
)

// outOfOrder reports whether layout l, or a struct under it, declares at
// version v a tagged field before an untagged one: the tree-less path then
// decodes those tagged values at their declared place, before the section.
func outOfOrder(l *schema.Layout, v int16, seen map[*schema.Layout]bool) bool {
	if seen[l] {
		return false
	}
	seen[l] = true
	if needsPrescan(l, v) {
		return true
	}
	for i := range l.Fields {
		if f := &l.Fields[i]; f.Versions.Contains(v) && f.Struct != nil && outOfOrder(f.Struct, v, seen) {
			return true
		}
	}
	return false
}

type oooExample struct {
	name string
	b    []byte
	o    Options
}

// outOfOrderExamples are the examples of every API, version and direction
// whose flexible layouts declare a tagged field before an untagged one.
func outOfOrderExamples(t *testing.T) []oooExample {
	var out []oooExample
	for _, api := range schema.APIs() {
		for _, resp := range []bool{false, true} {
			m := api.Request
			if resp {
				m = api.Response
			}
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				if !m.Flexible(v) || !outOfOrder(m.At(v).Root, v, map[*schema.Layout]bool{}) {
					continue
				}
				b, err := ExampleFrame(api, v, resp)
				require.NoError(t, err)
				dir := map[bool]string{false: " request", true: " response"}[resp]
				out = append(out, oooExample{api.Name + " v" + decimal(int(v)) + dir, b, Options{Response: resp, APIKey: api.Key, Version: v}})
			}
		}
	}
	return out
}

// Issue 12's contract under limits: the tree-less path decodes the tagged
// values a layout declares before untagged ones at their declared place,
// but must charge them where the tree does (in the tag section), so at
// every MaxNodes, MaxWork and MaxDepth both paths give the same JSON,
// warnings and budget spent, or fail at the same offset and path with the
// same message (bothPaths). Before, the Fetch v12
// response example at MaxNodes 20 failed at
// body.responses[0].partitions[0] in the tree-less walk and at
// body.responses[0].partitions[0].abortedTransactions in the tree.
func TestOutOfOrderTaggedLimits(t *testing.T) {
	exs := outOfOrderExamples(t)
	names := map[string]bool{}
	for _, e := range exs {
		names[e.name] = true
	}
	for _, want := range []string{"Fetch v12 request", "Fetch v12 response", "Fetch v17 response", "UpdateMetadata v8 request", "CreateTopics v5 response", "FetchSnapshot v0 request", "FetchSnapshot v0 response"} {
		require.True(t, names[want], "%s is not among the out-of-order examples", want)
	}
	exs = append(exs, outOfOrderWarned(t)...)
	for _, e := range exs {
		t.Run(e.name, func(t *testing.T) {
			limits := make([]Limits, 0, 310)
			for n := 1; n <= 300; n++ {
				limits = append(limits, Limits{MaxNodes: n})
			}
			for _, w := range []int{1, 8, 20, len(e.b) / 2, len(e.b) - 1, len(e.b)} {
				limits = append(limits, Limits{MaxWork: w})
			}
			for depth := 1; depth <= 5; depth++ {
				limits = append(limits, Limits{MaxDepth: depth})
			}
			for _, lim := range limits {
				o := e.o
				o.Limits = lim
				for _, m := range []Options{{}, {Records: RecordsBase64}} {
					t.Run(fmt.Sprintf("%+v/%d", lim, m.Records), func(t *testing.T) { bothPaths(t, e.b, inMode(o, m)) })
				}
			}
		})
	}
	t.Logf("%d examples", len(exs))
}

// outOfOrderWarned are frames whose early-declared tagged values carry
// warnings, which are charged as nodes too: tagged fields present at their
// default value, and a clusterId whose length is a non-minimal varint.
func outOfOrderWarned(t *testing.T) []oooExample {
	enc := func(js string) []byte {
		b, err := Encode(nil, []byte(js), EncodeOptions{})
		require.NoError(t, err)
		return b
	}
	resp := enc(`{"direction":"response","apiName":"Fetch","apiVersion":12,"header":{"correlationId":3},"body":{
		"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topic":"orders","partitions":[
		{"partitionIndex":0,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,
		 "divergingEpoch":{"epoch":-1,"endOffset":-1},"currentLeader":{"leaderId":-1,"leaderEpoch":-1},
		 "abortedTransactions":[{"producerId":1,"firstOffset":2}],"preferredReadReplica":-1,"records":null},
		{"partitionIndex":1,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,
		 "snapshotId":{"endOffset":-1,"epoch":-1},"abortedTransactions":null,"preferredReadReplica":-1,"records":null}]}]}}`)
	req := enc(`{"apiName":"Fetch","apiVersion":12,"header":{"correlationId":3,"clientId":"c"},"body":{
		"clusterId":"clusterId","replicaId":-1,"maxWaitMs":500,"minBytes":1,"maxBytes":1024,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,
		"topics":[{"topic":"orders","partitions":[{"partition":0,"currentLeaderEpoch":-1,"fetchOffset":0,"lastFetchedEpoch":-1,"logStartOffset":-1,"partitionMaxBytes":1024}]}],
		"forgottenTopicsData":[],"rackId":""}}`)
	// clusterId's tag (0, 10 bytes: length 9+1, then the 9 bytes) with its
	// length written in two bytes.
	tag := append([]byte{0, 10, 10}, "clusterId"...)
	i := bytes.Index(req, tag)
	require.GreaterOrEqual(t, i, 0)
	wide := append(append(append([]byte(nil), req[:i]...), append([]byte{0, 11, 0x8a, 0}, "clusterId"...)...), req[i+len(tag):]...)
	binary.BigEndian.PutUint32(wide, uint32(len(wide)-4))
	nullID := enc(`{"apiName":"Fetch","apiVersion":12,"header":{"correlationId":3,"clientId":"c"},"body":{
		"clusterId":null,"replicaId":-1,"maxWaitMs":500,"minBytes":1,"maxBytes":1024,"isolationLevel":0,"sessionId":0,"sessionEpoch":-1,
		"topics":[],"forgottenTopicsData":[],"rackId":""}}`)
	out := []oooExample{
		{"Fetch v12 response, tagged fields at their defaults", resp, Options{Response: true, APIKey: 1, Version: 12}},
		{"Fetch v12 request, non-minimal clusterId length", wide, Options{APIKey: 1, Version: 12}},
		{"Fetch v12 request, clusterId null", nullID, Options{APIKey: 1, Version: 12}},
	}
	for _, e := range out {
		f, err := Decode(e.b, e.o)
		require.NoError(t, err, e.name)
		require.NotEmpty(t, f.Warnings, e.name)
	}
	return out
}

// The tagged fields that layouts declare before untagged ones are decoded
// early by the tree-less path, their cost measured and spent later at the
// tag section. A records or consumer-protocol bytes field among them would
// see the early count in its own limits (its nested budget is set from the
// nodes spent so far) and could be cut elsewhere than in the tree: none is.
func TestOutOfOrderTaggedNothingNested(t *testing.T) {
	var nested func(l *schema.Layout, v int16, seen map[*schema.Layout]bool) string
	nested = func(l *schema.Layout, v int16, seen map[*schema.Layout]bool) string {
		if seen[l] {
			return ""
		}
		seen[l] = true
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(v) {
				continue
			}
			if f.Kind == schema.Records || f.Kind == schema.Bytes {
				return f.Name
			}
			if f.Struct != nil {
				if n := nested(f.Struct, v, seen); n != "" {
					return n
				}
			}
		}
		return ""
	}
	var check func(l *schema.Layout, v int16, where string, seen map[*schema.Layout]bool)
	check = func(l *schema.Layout, v int16, where string, seen map[*schema.Layout]bool) {
		if seen[l] {
			return
		}
		seen[l] = true
		for i := range l.Fields {
			f := &l.Fields[i]
			if !f.Versions.Contains(v) {
				continue
			}
			if needsPrescan(l, v) && f.IsTagged(v) {
				require.Contains(t, []schema.Kind{schema.Int8, schema.Int16, schema.String, schema.Struct}, f.Kind, "%s %s", where, f.Name)
				if f.Struct != nil {
					require.Empty(t, nested(f.Struct, v, map[*schema.Layout]bool{}), "%s %s", where, f.Name)
				}
			}
			if f.Struct != nil {
				check(f.Struct, v, where+"."+f.JSON, seen)
			}
		}
	}
	for _, api := range schema.APIs() {
		for _, m := range []*schema.Message{api.Request, api.Response} {
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				if m.Flexible(v) {
					check(m.At(v).Root, v, api.Name+" v"+decimal(int(v)), map[*schema.Layout]bool{})
				}
			}
		}
	}
}

// flushes counts the writes a streamed decode makes.
type flushes struct {
	bytes.Buffer
	n int
}

func (f *flushes) Write(b []byte) (int, error) {
	f.n++
	return f.Buffer.Write(b)
}

// A Fetch v13 response's partitions declare their tagged fields before
// their records: the tree-less walk reads currentLeader early, at its
// declared place, so a response of big partitions still streams as its
// records are read, and writes the JSON the tree's does.
func TestOutOfOrderStreams(t *testing.T) {
	const count = 12000 // some 1.7 MB of JSON a partition, past jsontext.FlushAt
	batch := base64.StdEncoding.EncodeToString(recordBatch(0, count, bytes.Repeat(tinyRecord, count)))
	part := func(i int) string {
		return fmt.Sprintf(`{"partitionIndex":%d,"errorCode":0,"highWatermark":1,"lastStableOffset":1,"logStartOffset":0,
			"currentLeader":{"leaderId":%d,"leaderEpoch":7},"abortedTransactions":null,"preferredReadReplica":-1,"records":%q}`, i, i+1, batch)
	}
	b, err := Encode(nil, []byte(`{"direction":"response","apiName":"Fetch","apiVersion":13,"header":{"correlationId":3},
		"body":{"throttleTimeMs":0,"errorCode":0,"sessionId":0,"responses":[{"topicId":"AAAAAAAAAAAAAAAAAAAAAQ","partitions":[`+
		part(0)+","+part(1)+","+part(2)+`]}]}}`), EncodeOptions{})
	require.NoError(t, err)
	o := Options{Response: true, APIKey: 1, Version: 13}
	var out flushes
	_, err = new(Decoder).WriteJSON(&out, b, o)
	require.NoError(t, err)
	f, err := Decode(b, o)
	require.NoError(t, err)
	require.Equal(t, string(treeJSON(f)), out.String())
	require.GreaterOrEqual(t, out.n, 3, "the partitions are written away as they are read")
	require.Contains(t, out.String(), `"logStartOffset":0,"currentLeader":{"leaderId":2,"leaderEpoch":7},"abortedTransactions":null,`)
	bothPaths(t, b, o)
}

// A data message whose layout declares a tagged field among untagged ones
// (TransactionLogValue v1+: previousProducerId after producerId) has its
// tagged values at their declared place when read alone too, in both
// sinks.
func TestOutOfOrderDataMessage(t *testing.T) {
	js := `{"data":"TransactionLogValue","version":1,"value":{"producerId":12,"previousProducerId":11,"producerEpoch":0,` +
		`"transactionTimeoutMs":60000,"transactionStatus":4,"transactionPartitions":null,"transactionLastUpdateTimestampMs":1700000000001,` +
		`"transactionStartTimestampMs":1700000000000,"clientTransactionVersion":2}}`
	b, err := Encode(nil, []byte(js), EncodeOptions{})
	require.NoError(t, err)
	o := Options{Data: "TransactionLogValue", Version: Any}
	f, err := Decode(b, o)
	require.NoError(t, err)
	require.Equal(t, js, string(f.AppendJSON(nil)))
	fast, _, err := new(Decoder).AppendJSON(nil, b, o)
	require.NoError(t, err)
	require.Equal(t, js, string(fast))
	bothPaths(t, b, o)
}
