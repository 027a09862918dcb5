package codec

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/internal/rec"
	"github.com/kwire/kwire/codec/schema"
)

// exampleBatch is the records value examples carry at versions that use
// record batches: base64 of an uncompressed record batch (magic 2) as an
// idempotent producer writes it (producer id 4001, epoch 0, sequence 0)
// and as it lies in the log at offset 0 of a new partition, holding one
// record: key "order-1042", a JSON value, the header trace-id, timestamp
// 2025-06-02 09:30:00 UTC. The round-trip tests decode it without a
// warning (its CRC is right).
const exampleBatch = "AAAAAAAAAAAAAACLAAAAAAKBRJLVAAAAAAAAAAABly/59cAAAAGXL/n1wAAAAAAAAA+hAAAAAAAAAAAAAbABAAAAFG9yZGVyLTEwNDJceyJvcmRlciI6MTA0MiwiaXRlbSI6ImVzcHJlc3NvIGJlYW5zIiwicXR5IjoyfQIQdHJhY2UtaWQgNGJmOTJmMzU3N2IzNGRhNg=="

// exampleProducerBatch is exampleBatch as the producer sent it, before the
// leader stamped it: partitionLeaderEpoch -1 (the Java producer's
// NO_PARTITION_LEADER_EPOCH), the leader's epoch 0 in exampleBatch. The
// field lies before the attributes, outside the CRC, so the CRC is the
// same. Produce requests carry it.
const exampleProducerBatch = "AAAAAAAAAAAAAACL/////wKBRJLVAAAAAAAAAAABly/59cAAAAGXL/n1wAAAAAAAAA+hAAAAAAAAAAAAAbABAAAAFG9yZGVyLTEwNDJceyJvcmRlciI6MTA0MiwiaXRlbSI6ImVzcHJlc3NvIGJlYW5zIiwicXR5IjoyfQIQdHJhY2UtaWQgNGJmOTJmMzU3N2IzNGRhNg=="

// exampleRecordKey and exampleRecordValue are the key and value of every
// example's record (exampleBatch holds them too).
const (
	exampleRecordKey   = "order-1042"
	exampleRecordValue = `{"order":1042,"item":"espresso beans","qty":2}`
)

// recordsMagic is the record format a records field carries at an API
// version: Produce v0-1 and Fetch v0-1 carry message sets of magic 0;
// Produce v2 and Fetch v2-3 message sets of magic 1 (timestamps, KIP-32,
// Kafka 0.10.0; Fetch v3 added max_bytes in 0.10.1); Produce v3+ and Fetch
// v4+ record batches of magic 2 (KIP-98, Kafka 0.11), as every later API
// with records (FetchSnapshot, ShareFetch) does. The schema files' comments
// say so ("Version 3 also adds support for Kafka Message Format v2";
// "Starting in version 4, the requestor must be able to handle Kafka log
// message format version 2"), but only as prose, which the tables do not
// carry.
func recordsMagic(apiKey, version int16) int8 {
	switch {
	case apiKey == schema.KeyProduce && version <= 1, apiKey == schema.KeyFetch && version <= 1:
		return 0
	case apiKey == schema.KeyProduce && version == 2, apiKey == schema.KeyFetch && version <= 3:
		return 1
	}
	return 2
}

// exampleRecords is the records value of examples at an API version: a
// message set of one message (exampleRecordKey, exampleRecordValue) for magic 0 and 1,
// for magic 2 exampleBatch in a response (as the log holds it) and
// exampleProducerBatch in a request (as a producer sends it).
func exampleRecords(apiKey, version int16, response bool) string {
	magic := recordsMagic(apiKey, version)
	if magic == 2 {
		if !response {
			return exampleProducerBatch
		}
		return exampleBatch
	}
	msg := map[string]any{"offset": 0, "magic": magic, "attributes": map[string]any{"compression": "none"},
		"key": map[string]any{"text": exampleRecordKey}, "value": map[string]any{"text": exampleRecordValue}}
	if magic == 1 {
		msg["timestamp"] = int64(exampleTime)
	}
	b, _ := rec.Encode(nil, []any{msg}) // a fixed, valid message: TestExamplesCarryTheirVersionsRecords decodes it
	return base64.StdEncoding.EncodeToString(b)
}

// Example returns a deterministic example envelope (value JSON in generic
// form) for an API, version and direction: a frame a client or broker
// could send. Its structure comes from the generated tables (every array
// holds one element, unless the values say a real one would be empty; a
// tagged field is present when its value differs from its default, as
// Kafka's writers do); its values from example_values.go: enums in range,
// error codes NONE, names, ids, offsets, timestamps and sizes from one small
// world (a consumer group "billing" reading the topic "orders"). Records
// fields hold what that version carries: a magic 0 or magic 1 message set
// before Kafka 0.11's record batches (Produce v0-2, Fetch v0-3), else
// exampleBatch.
func Example(api *schema.API, version int16, response bool) map[string]any {
	m := api.Request
	dir := "request"
	if response {
		m, dir = api.Response, "response"
	}
	hdr := map[string]any{"correlationId": json.Number("7")}
	if !response && m.HeaderVersion(version) >= 1 {
		hdr["clientId"] = exampleClientID(api, version)
	}
	env := map[string]any{
		"direction":  dir,
		"apiKey":     json.Number(strconv.Itoa(int(api.Key))),
		"apiName":    api.Name,
		"apiVersion": json.Number(strconv.Itoa(int(version))),
		"header":     hdr,
	}
	if d := m.At(version); d != nil {
		g := exampleGen{v: version, apiKey: api.Key, msg: m.Name, records: exampleRecords(api.Key, version, response)}
		env["body"] = g.structValue(d.Root)
	}
	return env
}

// exampleClientID is the client id a request carries: for the requests
// Kafka's brokers and controllers send, the client id Kafka's sender of
// that request gives its own network client (node 1, as in
// exampleValues); otherwise the Java client's default for the kind of
// client that sends the API.
func exampleClientID(api *schema.API, version int16) string {
	if id := serverClientID(api, version); id != "" {
		return id
	}
	switch api.Key {
	case schema.KeyProduce, schema.KeyInitProducerId, schema.KeyAddPartitionsToTxn, schema.KeyAddOffsetsToTxn,
		schema.KeyEndTxn, schema.KeyTxnOffsetCommit:
		return "producer-1"
	}
	switch api.Key {
	case schema.KeyMetadata, schema.KeyApiVersions, schema.KeySaslHandshake, schema.KeySaslAuthenticate,
		schema.KeyGetTelemetrySubscriptions, schema.KeyPushTelemetry:
		return "consumer-billing-1" // every client sends these; here, the consumer
	}
	switch api.Category {
	case "records", "consumer groups", "share groups":
		return "consumer-billing-1"
	}
	// The rest are an admin client's (kafka-metadata-quorum's
	// DescribeQuorum, AddRaftVoter and RemoveRaftVoter included).
	return "adminclient-1"
}

// serverClientID is the client id of a request that brokers or
// controllers send, never clients ("" for the others; Fetch, which a
// controller's raft client sends too, is a consumer's here), as node 1's
// sender of it names its network client in Kafka:
//
//   - the KRaft quorum's own requests, sent by KafkaRaftClient through
//     KafkaRaftManager's network client, "raft-client-" + node id: Vote,
//     BeginQuorumEpoch, EndQuorumEpoch, FetchSnapshot, UpdateRaftVoter
//     (a voter telling the leader its endpoints, KIP-853);
//   - WriteTxnMarkers, sent by a transaction coordinator's
//     TransactionMarkerChannelManager: "broker-" + broker id +
//     "-txn-marker-sender";
//   - AddPartitionsToTxn v4 and later (schema.API.BrokerSent), sent by a
//     partition leader's AddPartitionsToTxnManager, whose NetworkClient
//     (NetworkUtils.buildNetworkClient("AddPartitionsManager")) names
//     itself prefix + "-client-" + node id;
//   - the requests a broker or controller sends the active controller
//     through NodeToControllerChannelManager (BrokerRegistration,
//     BrokerHeartbeat, AlterPartition, Envelope, AllocateProducerIds,
//     AssignReplicasToDirs, ControllerRegistration), and those of the
//     ZooKeeper era's controller channel (LeaderAndIsr, StopReplica,
//     UpdateMetadata) and a broker's controlled shutdown: the node id
//     itself.
func serverClientID(api *schema.API, version int16) string {
	switch api.Key {
	case schema.KeyVote, schema.KeyBeginQuorumEpoch, schema.KeyEndQuorumEpoch, schema.KeyFetchSnapshot, schema.KeyUpdateRaftVoter:
		return "raft-client-1"
	case schema.KeyWriteTxnMarkers:
		return "broker-1-txn-marker-sender"
	case schema.KeyBrokerRegistration, schema.KeyBrokerHeartbeat, schema.KeyAlterPartition, schema.KeyEnvelope,
		schema.KeyAllocateProducerIds, schema.KeyAssignReplicasToDirs, schema.KeyControllerRegistration,
		schema.KeyLeaderAndIsr, schema.KeyStopReplica, schema.KeyUpdateMetadata, schema.KeyControlledShutdown:
		return "1"
	}
	if api.BrokerSent.Contains(version) && api.Key == schema.KeyAddPartitionsToTxn {
		return "AddPartitionsManager-client-1"
	}
	return ""
}

// ExampleFrame encodes Example with its size prefix.
func ExampleFrame(api *schema.API, version int16, response bool) ([]byte, error) {
	return Encode(nil, Example(api, version, response), EncodeOptions{})
}

type exampleGen struct {
	v       int16
	apiKey  int16
	msg     string // the message's name, for the table's lines of one message
	records string // the records value at this version
}

func (g *exampleGen) structValue(l *schema.Layout) map[string]any {
	obj := make(map[string]any, len(l.Fields))
	for i := range l.Fields {
		f := &l.Fields[i]
		if !f.Versions.Contains(g.v) {
			continue
		}
		v := g.value(l, f, f.Kind)
		if f.IsTagged(g.v) && exampleIsDefault(f, f.Kind, v, g.v) {
			continue // writers leave out a tagged field at its default
		}
		obj[f.JSON] = v
	}
	return obj
}

// value is the example value of field f (of struct l) as kind k: the
// field's own kind, or its element kind inside an array.
func (g *exampleGen) value(l *schema.Layout, f *schema.Field, k schema.Kind) any {
	t := exampleLookup(g.msg, l, f)
	if t != nil && !exampleFits(f, t) {
		t = nil // a value for another field of the name
	}
	if t == nil && f.EntityType != "" {
		t = exampleEntity(f.EntityType)
	}
	if _, null := t.(exNull); null {
		if f.Nullable.Contains(g.v) && k == f.Kind {
			return nil
		}
		t = nil
		if k == schema.Array {
			return []any{}
		}
	}
	switch k {
	case schema.Array:
		if list, ok := t.([]any); ok && (f.Elem != schema.Struct || len(list) == 0) {
			out := make([]any, len(list))
			for i, x := range list {
				out[i] = exampleScalar(f.Elem, x)
			}
			return out
		}
		if f.Elem == schema.Struct {
			return []any{g.structValue(f.Struct)}
		}
		return []any{g.value(l, f, f.Elem)}
	case schema.Struct:
		return g.structValue(f.Struct)
	case schema.Records:
		return g.records
	case schema.Bytes:
		if data := consumerData(f.Name); data != "" && t == nil {
			return g.consumerValue(data)
		}
	}
	if list, ok := t.([]any); ok && len(list) > 0 && k != schema.Array {
		t = list[0] // an array field's element
		if !exampleFitsKind(k, t) {
			t = nil
		}
	}
	if t == nil {
		if e := schema.EnumFor(g.apiKey, f); e != nil {
			for _, x := range e.Values {
				if x.Name != "UNKNOWN" && x.Name != "ANY" {
					t = int(x.Value)
					break
				}
			}
		}
	}
	if t == nil {
		t = exampleGuess(f)
		if list, ok := t.([]any); ok && len(list) > 0 {
			t = list[0]
		}
		if t != nil && !exampleFitsKind(k, t) {
			t = nil
		}
		if _, null := t.(exNull); null {
			if f.Nullable.Contains(g.v) {
				return nil
			}
			t = nil
		}
	}
	if t == nil {
		switch k {
		case schema.Bool:
			t = defaultInt(f) != 0
		case schema.String, schema.Bytes:
			if f.Nullable.Contains(g.v) {
				return nil
			}
			t = ""
		case schema.UUID:
			t = exampleUUID(f.Name)
		default:
			t = 0
		}
	}
	return exampleScalar(k, t)
}

// consumerValue is consumer-protocol data (a subscription or an
// assignment) as its decoded object, which the encoder writes as bytes.
func (g *exampleGen) consumerValue(data string) any {
	m := schema.DataMessage(data)
	v := m.Valid.Hi
	sub := exampleGen{v: v, apiKey: -1}
	obj := sub.structValue(m.At(v).Root)
	obj["version"] = json.Number(strconv.Itoa(int(v)))
	return obj
}

// exampleFits reports whether a table value can be f's.
func exampleFits(f *schema.Field, t any) bool {
	k := f.Kind
	if k == schema.Array {
		if list, ok := t.([]any); ok {
			return f.Elem != schema.Struct || len(list) == 0 // structs: only "none"
		}
		k = f.Elem
	}
	return exampleFitsKind(k, t)
}

// exampleFitsKind reports whether a table value can be a value of kind k.
func exampleFitsKind(k schema.Kind, t any) bool {
	switch t.(type) {
	case exNull:
		return true
	case int, json.Number:
		return k >= schema.Int8 && k <= schema.Float64
	case float64:
		return k == schema.Float64
	case bool:
		return k == schema.Bool
	case string:
		return k == schema.String || k == schema.UUID
	case []byte:
		return k == schema.Bytes
	case []any:
		return true // the element is checked when taken
	}
	return false
}

// exampleScalar turns a table value into value JSON in generic form.
func exampleScalar(k schema.Kind, t any) any {
	switch x := t.(type) {
	case int:
		if k == schema.Float64 {
			return json.Number(strconv.Itoa(x) + ".0")
		}
		return json.Number(strconv.Itoa(x))
	case json.Number:
		if k == schema.Float64 && !strings.ContainsAny(string(x), ".eE") {
			return x + ".0"
		}
		return x
	case float64:
		return json.Number(strconv.FormatFloat(x, 'f', -1, 64))
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case exNull:
		return nil
	}
	return t
}

// exampleIsDefault reports whether v (value JSON in generic form) is f's
// default at version ver.
func exampleIsDefault(f *schema.Field, k schema.Kind, v any, ver int16) bool {
	if v == nil {
		return nullDefault(f, ver)
	}
	switch k {
	case schema.Bool:
		b, _ := v.(bool)
		return b == (defaultInt(f) != 0)
	case schema.Int8, schema.Int16, schema.Uint16, schema.Int32, schema.Uint32, schema.Int64:
		n, _ := v.(json.Number)
		i, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil && i == defaultInt(f)
	case schema.Float64:
		n, _ := v.(json.Number)
		x, err := strconv.ParseFloat(string(n), 64)
		return err == nil && x == defaultFloat(f)
	case schema.String:
		s, _ := v.(string)
		return !nullDefault(f, ver) && s == defaultString(f)
	case schema.Bytes, schema.Records:
		s, _ := v.(string)
		return !nullDefault(f, ver) && s == ""
	case schema.UUID:
		return v == "AAAAAAAAAAAAAAAAAAAAAA"
	case schema.Array:
		list, _ := v.([]any)
		return !nullDefault(f, ver) && len(list) == 0
	case schema.Struct:
		obj, _ := v.(map[string]any)
		if nullDefault(f, ver) {
			return false
		}
		for i := range f.Struct.Fields {
			sf := &f.Struct.Fields[i]
			if x, ok := obj[sf.JSON]; ok && !exampleIsDefault(sf, sf.Kind, x, ver) {
				return false
			}
		}
		return true
	}
	return false
}
