package proxy

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
	"github.com/stretchr/testify/require"
)

// versionsWhere lists, per API name, the versions at which fn holds, as
// "Name 1,2,3".
func versionsWhere(fn func(key, v int16) bool) []string {
	var out []string
	for _, a := range schema.APIs() {
		var vs []string
		for v := a.Request.Valid.Lo; v <= a.Request.Valid.Hi; v++ {
			if fn(a.Key, v) {
				vs = append(vs, strconv.Itoa(int(v)))
			}
		}
		if len(vs) > 0 {
			out = append(out, a.Name+" "+strings.Join(vs, ","))
		}
	}
	return out
}

// TestEndpointFieldsFromSchemas pins what the scan of the layouts finds:
// every response struct with a host, a port and a node id, at the versions
// that carry it. A new Kafka schema with endpoints shows up here.
func TestEndpointFieldsFromSchemas(t *testing.T) {
	require.Equal(t, []string{
		"Produce 10,11,12,13", // nodeEndpoints (tagged), KIP-951
		"Fetch 16,17,18",      // nodeEndpoints (tagged), KIP-951
		"Metadata 0,1,2,3,4,5,6,7,8,9,10,11,12,13",
		"FindCoordinator 0,1,2,3,4,5,6", // the coordinator, then coordinators[]
		"Vote 1,2",
		"BeginQuorumEpoch 1",
		"EndQuorumEpoch 1",
		"DescribeQuorum 2", // nodes[].listeners[]: the node id is one level up
		"FetchSnapshot 1",
		"DescribeCluster 0,1,2",
		"ShareFetch 0,1,2",
		"ShareAcknowledge 0,1,2",
		"UpdateRaftVoter 0",
	}, versionsWhere(HasEndpoints))
	// Kafka Streams application endpoints have a host and a port but name
	// no node: they are not brokers, and are left alone.
	for _, name := range []string{"StreamsGroupHeartbeat", "StreamsGroupDescribe"} {
		a := schema.ByName(name)
		for v := a.Response.Valid.Lo; v <= a.Response.Valid.Hi; v++ {
			require.False(t, HasEndpoints(a.Key, v), name)
		}
	}
}

// TestSecretFieldsFromSchemas pins the secret fields the scan finds, by
// name and type, and that nothing else is taken for one.
func TestSecretFieldsFromSchemas(t *testing.T) {
	require.Equal(t, []string{
		"CreateTopics 0,1,2,3,4,5,6,7",
		"DescribeConfigs 0,1,2,3,4",
		"AlterConfigs 0,1,2",
		"SaslAuthenticate 0,1,2",
		"CreateDelegationToken 0,1,2,3",
		"RenewDelegationToken 0,1,2",
		"ExpireDelegationToken 0,1,2",
		"DescribeDelegationToken 0,1,2,3",
		"IncrementalAlterConfigs 0,1",
		"AlterUserScramCredentials 0",
		"StreamsGroupHeartbeat 0,1",
		"StreamsGroupDescribe 0,1",
	}, versionsWhere(HasSecrets))
	var fields, configs []string
	for _, a := range schema.APIs() {
		for _, m := range []*schema.Message{a.Request, a.Response} {
			seen := map[string]bool{}
			for _, d := range m.Versions {
				var walk func(l *schema.Layout, path string)
				walk = func(l *schema.Layout, path string) {
					if isConfigEntry(l) && !seen[path] {
						seen[path] = true
						configs = append(configs, m.Name+" "+path)
					}
					for i := range l.Fields {
						f := &l.Fields[i]
						if isSecret(f) && !seen[path+f.JSON] {
							seen[path+f.JSON] = true
							fields = append(fields, m.Name+" "+path+f.JSON)
						}
						if f.Struct != nil {
							walk(f.Struct, path+f.JSON+".")
						}
					}
				}
				walk(d.Root, "")
			}
		}
	}
	require.Equal(t, []string{
		"SaslAuthenticateRequest authBytes",
		"SaslAuthenticateResponse authBytes",
		"CreateDelegationTokenResponse hmac",
		"RenewDelegationTokenRequest hmac",
		"ExpireDelegationTokenRequest hmac",
		"DescribeDelegationTokenResponse tokens.hmac",
		"AlterUserScramCredentialsRequest upsertions.salt",
		"AlterUserScramCredentialsRequest upsertions.saltedPassword",
	}, fields)
	require.Equal(t, []string{
		"CreateTopicsRequest topics.configs.",
		"CreateTopicsResponse topics.configs.",
		"DescribeConfigsResponse results.configs.",
		"DescribeConfigsResponse results.configs.synonyms.",
		"AlterConfigsRequest resources.configs.",
		"IncrementalAlterConfigsRequest resources.configs.",
		"StreamsGroupHeartbeatRequest topology.subtopologies.stateChangelogTopics.topicConfigs.",
		"StreamsGroupHeartbeatRequest topology.subtopologies.repartitionSourceTopics.topicConfigs.",
		"StreamsGroupHeartbeatRequest clientTags.",
		"StreamsGroupDescribeResponse groups.topology.subtopologies.stateChangelogTopics.topicConfigs.",
		"StreamsGroupDescribeResponse groups.topology.subtopologies.repartitionSourceTopics.topicConfigs.",
		"StreamsGroupDescribeResponse groups.members.clientTags.",
	}, configs, "the configuration entries, whose values are redacted by name")
}

// TestSensitiveConfig: Kafka's PASSWORD configurations, their
// per-listener forms, and names that say secret are redacted; ordinary
// configurations are not.
func TestSensitiveConfig(t *testing.T) {
	for _, n := range []string{"sasl.jaas.config", "listener.name.internal.scram-sha-256.sasl.jaas.config",
		"ssl.keystore.password", "listener.name.ext.ssl.key.password", "ssl.keystore.key", "ssl.truststore.certificates",
		"delegation.token.secret.key", "password.encoder.secret", "basic.auth.user.info", "SSL.KEY.PASSWORD",
		"my_db_password", "aws.secret.access.key", "oauth.token", "api-key", "database.credentials", "sasl.client.secretValue"} {
		require.True(t, sensitiveConfig(n), n)
	}
	for _, n := range []string{"cleanup.policy", "retention.ms", "ssl.keystore.location", "ssl.keystore.type", "min.insync.replicas",
		"compression.type", "monkey.business", "tokenizer.class"} {
		require.False(t, sensitiveConfig(n), n)
	}
}

// endpointsOf lists the endpoints a response frame names.
func endpointsOf(t *testing.T, b []byte, key, ver int16) []Endpoint {
	var o codec.Options
	o.Response, o.APIKey, o.Version = true, key, ver
	f, err := codec.Decode(b, o)
	require.NoError(t, err)
	var out []Endpoint
	visitEndpoints(f.Body, f.Message.At(f.LayoutVersion).Root, nil, func(n *tree.Node) {
		if h, p := n.Get("host"), n.Get("port"); h != nil && p != nil { // FindCoordinator's own fields end at v3
			out = append(out, Endpoint{string(h.Raw), int(p.Int)})
		}
	})
	return out
}

// exampleHost is the host of every endpoint of codec's examples.
const exampleHost = "broker-1.kafka.example.com"

// endpointExample is the example response of a at v, with a broker in its
// nodeEndpoints when the example leaves that tagged field at its default,
// as a broker does without a leader error (KIP-951: Produce, Fetch, the
// share APIs): the proxy must rewrite it when a broker sends it.
func endpointExample(t *testing.T, a *schema.API, v int16) []byte {
	orig, err := codec.ExampleFrame(a, v, true)
	require.NoError(t, err)
	if len(endpointsOf(t, orig, a.Key, v)) > 0 {
		return orig
	}
	env := codec.Example(a, v, true)
	env["body"].(map[string]any)["nodeEndpoints"] = []any{map[string]any{"nodeId": 1, "host": exampleHost, "port": 9092, "rack": "use1-az1"}}
	b, err := codec.Encode(nil, env, codec.EncodeOptions{})
	require.NoError(t, err, "%s v%d", a.Name, v)
	return b
}

// TestRewriteEveryEndpointResponse rewrites the example response of every
// API and version that carries endpoints (every endpoint field there, with
// endpointExample): each endpoint is the proxy's afterwards, and rewriting
// back gives the original bytes exactly, so nothing else moved.
func TestRewriteEveryEndpointResponse(t *testing.T) {
	toProxy := func(e Endpoint) (Endpoint, error) { return Endpoint{"proxy.example", e.Port + 1000}, nil }
	back := func(e Endpoint) (Endpoint, error) { return Endpoint{exampleHost, e.Port - 1000}, nil }
	var dec codec.Decoder
	n := 0
	for _, a := range schema.APIs() {
		for v := a.Response.Valid.Lo; v <= a.Response.Valid.Hi; v++ {
			if !HasEndpoints(a.Key, v) {
				continue
			}
			n++
			orig := endpointExample(t, a, v)
			before := endpointsOf(t, orig, a.Key, v)
			require.NotEmpty(t, before, "%s v%d", a.Name, v)
			for _, e := range before {
				require.Equal(t, exampleHost, e.Host)
			}
			out, count, err := rewriteResponse(&dec, orig, a.Key, v, toProxy)
			require.NoError(t, err, "%s v%d", a.Name, v)
			require.Equal(t, len(before), count)
			after := endpointsOf(t, out, a.Key, v)
			require.Len(t, after, len(before))
			for i, e := range after {
				require.Equal(t, Endpoint{"proxy.example", before[i].Port + 1000}, e, "%s v%d", a.Name, v)
			}
			again, _, err := rewriteResponse(&dec, out, a.Key, v, back)
			require.NoError(t, err)
			require.True(t, bytes.Equal(orig, again), "%s v%d: rewriting back gives the original bytes", a.Name, v)
		}
	}
	require.Equal(t, 44, n)
}

// TestPlaceholdersLeftAsSent: an endpoint that stands for no node (host
// "", a negative port or node id), in every API and version that carries
// endpoints, is never mapped: the response goes through as the broker
// sent it. Beside a real broker, only the real one is rewritten.
func TestPlaceholdersLeftAsSent(t *testing.T) {
	never := func(e Endpoint) (Endpoint, error) {
		return Endpoint{}, errors.New("a placeholder was mapped: " + e.String())
	}
	var dec codec.Decoder
	for _, a := range schema.APIs() {
		for v := a.Response.Valid.Lo; v <= a.Response.Valid.Hi; v++ {
			if !HasEndpoints(a.Key, v) {
				continue
			}
			orig, err := codec.ExampleFrame(a, v, true)
			require.NoError(t, err)
			for _, none := range []struct{ host, port, id bool }{{true, true, true}, {true, false, false}, {false, true, false}, {false, false, true}} {
				f, err := dec.Decode(orig, codec.Options{Response: true, APIKey: a.Key, Version: v, Kafka: true})
				require.NoError(t, err)
				env, body, err := genericOf(f)
				require.NoError(t, err)
				set := 0
				rewriteValue(body, f.Message.At(v).Root, nil, func(m map[string]any, l *schema.Layout) {
					if _, ok := m[fieldOf(l, "Host", schema.String).JSON]; !ok {
						return // not at this version (FindCoordinator's own, after v3)
					}
					if none.host {
						m[fieldOf(l, "Host", schema.String).JSON] = ""
						set++
					}
					if pf := fieldOf(l, "Port", schema.Int32); none.port && pf != nil {
						m[pf.JSON] = -1
						set++
					}
					if idf := nodeIDField(l); none.id && idf != nil {
						m[idf.JSON] = -1
						set++
					}
				})
				if set == 0 {
					continue // no such field here (a uint16 port, an id held outside)
				}
				b, err := codec.Encode(nil, env, codec.EncodeOptions{})
				require.NoError(t, err)
				out, n, err := rewriteResponse(&dec, b, a.Key, v, never)
				require.NoError(t, err, "%s v%d %+v", a.Name, v, none)
				require.Nil(t, out, "%s v%d %+v", a.Name, v, none)
				require.Zero(t, n)
			}
		}
	}
	b, err := codec.Encode(nil, map[string]any{"direction": "response", "apiKey": 3, "apiVersion": 12,
		"header": map[string]any{"correlationId": 1},
		"body":   map[string]any{"brokers": []map[string]any{{"nodeId": -1, "host": "", "port": -1}, {"nodeId": 2, "host": "b2", "port": 9092}}, "topics": []any{}}}, codec.EncodeOptions{})
	require.NoError(t, err)
	out, n, err := rewriteResponse(&dec, b, schema.KeyMetadata, 12, func(e Endpoint) (Endpoint, error) { return Endpoint{"proxy", 1}, nil })
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, []Endpoint{{"", -1}, {"proxy", 1}}, endpointsOf(t, out, schema.KeyMetadata, 12))
}

// TestRewriteUnchanged: a response whose endpoints all map to themselves,
// or that names none, is not re-encoded.
func TestRewriteUnchanged(t *testing.T) {
	var dec codec.Decoder
	same := func(e Endpoint) (Endpoint, error) { return e, nil }
	b, err := codec.ExampleFrame(schema.ByKey(schema.KeyMetadata), 12, true)
	require.NoError(t, err)
	out, n, err := rewriteResponse(&dec, b, schema.KeyMetadata, 12, same)
	require.NoError(t, err)
	require.Nil(t, out)
	require.Zero(t, n)
	// A Produce v11 response without its tagged nodeEndpoints.
	b, err = codec.Encode(nil, map[string]any{"direction": "response", "apiKey": 0, "apiVersion": 11,
		"header": map[string]any{"correlationId": 3}, "body": map[string]any{"responses": []any{}}}, codec.EncodeOptions{})
	require.NoError(t, err)
	out, n, err = rewriteResponse(&dec, b, schema.KeyProduce, 11, func(Endpoint) (Endpoint, error) { return Endpoint{}, errors.New("not called") })
	require.NoError(t, err)
	require.Nil(t, out)
	require.Zero(t, n)
}

// TestRewriteFailures: a response that does not decode, or whose mapping
// fails, is an error (the connection is then closed), never the original.
func TestRewriteFailures(t *testing.T) {
	var dec codec.Decoder
	m := func(e Endpoint) (Endpoint, error) { return Endpoint{"p", 1}, nil }
	b, err := codec.ExampleFrame(schema.ByKey(schema.KeyMetadata), 12, true)
	require.NoError(t, err)
	cut := append([]byte(nil), b[:len(b)-6]...)
	cut[3] -= 6
	_, _, err = rewriteResponse(&dec, cut, schema.KeyMetadata, 12, m)
	require.Error(t, err)
	_, _, err = rewriteResponse(&dec, b, schema.KeyMetadata, 12, func(Endpoint) (Endpoint, error) { return Endpoint{}, errors.New("no port left") })
	require.ErrorContains(t, err, "no port left")
	// A version newer than kwire knows cannot be re-encoded.
	_, _, err = rewriteResponse(&dec, b, schema.KeyMetadata, 99, m)
	require.Error(t, err)
}

// TestApiVersionsCapped: an ApiVersions response offering a version of an
// endpoint-carrying API newer than kwire knows is capped at the newest
// known, so the client never picks one the proxy could not rewrite; other
// APIs are left as the broker offers them.
func TestApiVersionsCapped(t *testing.T) {
	meta := schema.ByKey(schema.KeyMetadata).Response.Valid.Hi
	resp := func(metaMax int) []byte {
		b, err := codec.Encode(nil, map[string]any{"direction": "response", "apiKey": 18, "apiVersion": 3,
			"header": map[string]any{"correlationId": 1},
			"body": map[string]any{"apiKeys": []any{
				map[string]any{"apiKey": 3, "minVersion": 0, "maxVersion": metaMax},
				map[string]any{"apiKey": 19, "minVersion": 0, "maxVersion": 99},
			}}}, codec.EncodeOptions{})
		require.NoError(t, err)
		return b
	}
	var dec codec.Decoder
	out, n, err := rewriteResponse(&dec, resp(int(meta)+5), schema.KeyApiVersions, 3, nil)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, resp(int(meta)), out)
	out, n, err = rewriteResponse(&dec, resp(int(meta)), schema.KeyApiVersions, 3, nil)
	require.NoError(t, err)
	require.Nil(t, out)
	require.Zero(t, n)
}

// TestApiVersionsNeverEmptyRange: an endpoint-carrying API whose lowest
// version offered is newer than kwire knows is left as the broker offers
// it, never capped into a range with no version in it (min above max);
// the others of the same response are capped as ever.
func TestApiVersionsNeverEmptyRange(t *testing.T) {
	meta := int(schema.ByKey(schema.KeyMetadata).Response.Valid.Hi)
	coord := int(schema.ByKey(schema.KeyFindCoordinator).Response.Valid.Hi)
	resp := func(coordMax int) []byte {
		b, err := codec.Encode(nil, map[string]any{"direction": "response", "apiKey": 18, "apiVersion": 3,
			"header": map[string]any{"correlationId": 1},
			"body": map[string]any{"apiKeys": []any{
				map[string]any{"apiKey": 3, "minVersion": meta + 1, "maxVersion": meta + 2},
				map[string]any{"apiKey": 10, "minVersion": coord, "maxVersion": coordMax},
			}}}, codec.EncodeOptions{})
		require.NoError(t, err)
		return b
	}
	var dec codec.Decoder
	out, n, err := rewriteResponse(&dec, resp(coord+1), schema.KeyApiVersions, 3, nil)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, resp(coord), out, "Metadata as offered, FindCoordinator capped")
	out, n, err = rewriteResponse(&dec, resp(coord), schema.KeyApiVersions, 3, nil)
	require.NoError(t, err)
	require.Nil(t, out, "only the range that cannot be capped: as the broker sent it")
	require.Zero(t, n)
}

// TestRewriteKeepsTagsAsSent: a rewritten response carries exactly the
// tagged fields the broker sent: here a Fetch v17 response whose
// nodeEndpoints (tagged) are rewritten while its partitions carry none of
// their tagged fields (divergingEpoch, currentLeader, snapshotId), which
// must not appear at their defaults.
func TestRewriteKeepsTagsAsSent(t *testing.T) {
	b, err := codec.Encode(nil, map[string]any{"direction": "response", "apiKey": 1, "apiVersion": 17,
		"header": map[string]any{"correlationId": 9},
		"body": map[string]any{"sessionId": 5, "responses": []map[string]any{{
			"topicId":    "BQYHCAkKCwwNDg8QERITFA",
			"partitions": []map[string]any{{"partitionIndex": 0, "errorCode": schema.CodeNotLeaderOrFollower, "highWatermark": 10, "records": nil}},
		}}, "nodeEndpoints": []map[string]any{{"nodeId": 2, "host": "127.0.0.1", "port": 9093, "rack": nil}}},
	}, codec.EncodeOptions{})
	require.NoError(t, err)
	var dec codec.Decoder
	out, n, err := rewriteResponse(&dec, b, schema.KeyFetch, 17, func(e Endpoint) (Endpoint, error) { return Endpoint{"127.0.0.1", 19093}, nil })
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Len(t, out, len(b), "the same fields, the same size")
	require.Equal(t, []Endpoint{{"127.0.0.1", 19093}}, endpointsOf(t, out, schema.KeyFetch, 17))
	back, _, err := rewriteResponse(&dec, out, schema.KeyFetch, 17, func(e Endpoint) (Endpoint, error) { return Endpoint{"127.0.0.1", 9093}, nil })
	require.NoError(t, err)
	require.Equal(t, b, back)
}
